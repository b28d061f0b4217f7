use std::process::ExitCode;

use clap::Parser;
use clap::error::ErrorKind;
use llmgw_console::settings::{Cli, Command, Settings};
use llmgw_console::startup;

mod allocator;

fn main() -> ExitCode {
    allocator::tune();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => {
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => return fail(&clap_reason(&e), 2),
    };
    let (log, task): (String, _) = match cli.command {
        Some(Command::Simulate(args)) => (
            args.log.clone().unwrap_or_else(|| "info".into()),
            Task::Simulate(args),
        ),
        None => match Settings::resolve(&cli) {
            Ok(settings) => (settings.log.clone(), Task::Console(Box::new(settings))),
            Err(reason) => return fail(&reason, 2),
        },
    };
    if let Err(reason) = init_tracing(&log) {
        return fail(&reason, 2);
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => return fail(&format!("cannot start the async runtime: {e}"), 1),
    };
    let outcome = runtime.block_on(async move {
        match task {
            Task::Console(settings) => startup::run_console(*settings).await,
            Task::Simulate(args) => startup::run_simulator(args).await,
        }
    });
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(reason) => fail(&reason, 1),
    }
}

/// What the command line asks for. The console's settings are boxed: they
/// are most of the size, and the simulator's would carry it too.
enum Task {
    Console(Box<Settings>),
    Simulate(llmgw_console::settings::SimulateArgs),
}

/// One line: clap's first line without its "error: " prefix, which is the
/// reason; the usage block after it only repeats `--help`.
fn clap_reason(e: &clap::Error) -> String {
    let rendered = e.render().to_string();
    let first = rendered.lines().next().unwrap_or("invalid arguments");
    format!(
        "{} (see --help)",
        first.trim_start_matches("error: ").trim()
    )
}

fn fail(reason: &str, code: u8) -> ExitCode {
    eprintln!("llmgw-console: {reason}");
    ExitCode::from(code)
}

fn init_tracing(filter: &str) -> Result<(), String> {
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    // Targets and levels ("warn", "llmgw_console=debug,info"): what the log
    // is filtered by. `EnvFilter` reads the same and span fields besides,
    // which nothing here logs by, at the price of a regular-expression
    // engine in the binary.
    let filter: tracing_subscriber::filter::Targets = filter
        .parse()
        .map_err(|e| format!("log filter {filter:?} is not valid: {e}"))?;
    // The audit is written whatever the filter says.
    let filter = filter.with_target("audit", tracing::Level::INFO);
    tracing_subscriber::registry()
        .with(tracing_subscriber::fmt::layer().with_writer(std::io::stderr))
        .with(filter)
        .try_init()
        .map_err(|e| format!("the log: {e}"))
}
