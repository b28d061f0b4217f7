//! Start-up: from validated settings to a serving console (and, with
//! `--demo`, the simulated admin API beside it).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use app::cluster_tag::ClusterTag;
use app::server::admin_client::AdminApiClient;
use app::server::audit::AuditLog;
use app::server::clusters::{Cluster, Clusters};
use app::server::confirmations::DEFAULT_TTL;
use app::server::meters::{Meters, UpstreamMeter};
use app::server::signing::Signer;
use app::server::{Confirmations, ConsoleContext};
use app::ui_settings::UiSettings;
use tokio::net::TcpListener;

use crate::allowed_hosts::AllowedHosts;
use crate::cluster_settings::ClusterSetting;
use crate::connections::{self, Limits};
use crate::router::router;
use crate::settings::{Settings, SimulateArgs};
use crate::simulator::{Simulator, generated};

/// Builds the context every request shares, for one cluster at `admin_api`.
pub fn console_context(settings: &Settings, admin_api: &str) -> Result<ConsoleContext, String> {
    console_context_for(settings, &[single_cluster(admin_api)])
}

/// The cluster of a console given `--admin-api` alone.
fn single_cluster(admin_api: &str) -> ClusterSetting {
    ClusterSetting {
        id: SINGLE_CLUSTER.into(),
        label: SINGLE_CLUSTER.into(),
        admin_api: admin_api.into(),
        colour: None,
        read_only: false,
    }
}

/// The id of the one cluster of a console given `--admin-api` alone: the
/// word in its addresses, `/c/default/nodes`.
pub const SINGLE_CLUSTER: &str = "default";

/// Builds the context every request shares, for `clusters` (at least one).
pub fn console_context_for(
    settings: &Settings,
    clusters: &[ClusterSetting],
) -> Result<ConsoleContext, String> {
    let build = crate::assets::build_id();
    let period = Duration::from_secs_f64(settings.refresh_seconds);
    let meters = Arc::new(Meters::default());
    let journal = Arc::new(app::server::journal::Journal::default());
    let list = clusters
        .iter()
        .map(|c| {
            let client = AdminApiClient::new(&c.admin_api)
                .map_err(|e| format!("{}: {e}", c.id))?
                .metered(UpstreamMeter {
                    meters: meters.clone(),
                    cluster: c.id.clone(),
                });
            let tag = ClusterTag {
                id: c.id.clone(),
                label: c.label.clone(),
                colour: c.colour.clone(),
            };
            Ok(Cluster::new(
                tag,
                client,
                period,
                c.read_only,
                build.clone(),
                journal.clone(),
            ))
        })
        .collect::<Result<Vec<_>, String>>()?;
    let clusters =
        Arc::new(Clusters::new(list).ok_or("no cluster to show, or one listed twice".to_string())?);
    let first = clusters.first().clone();
    let ui = UiSettings {
        refresh_millis: (settings.refresh_seconds * 1000.0) as u64,
        read_only: settings.read_only,
        admin_api: first.admin_api.address().to_string(),
        clusters: clusters.tags(),
        build,
        team_links: settings.links.clone(),
        // Per viewer, set per request.
        ..UiSettings::default()
    };
    let signer = match &settings.secret_file {
        Some(path) => {
            let key = std::fs::read(path)
                .map_err(|e| format!("cannot read the secret file {}: {e}", path.display()))?;
            // The bytes exactly as written: a key is not text, and one made
            // by `head -c 32 /dev/urandom` may begin or end with a newline.
            Signer::new(&key).map_err(|e| format!("the secret file {}: {e}", path.display()))?
        }
        None => Signer::random()?,
    };
    Ok(ConsoleContext {
        cluster: first,
        clusters,
        ui,
        actor_header: settings.actor_header.clone(),
        trusted_proxies: settings.trusted_proxies.clone(),
        require_user: settings.require_user,
        confirmations: Confirmations::new(signer.clone(), DEFAULT_TTL),
        signer,
        audit: Arc::new(AuditLog::new(settings.audit_log.as_deref())?),
        meters,
        metrics_per_node: settings.metrics_per_node,
        journal,
    })
}

/// The clusters to show: those listed, the one `--admin-api` names, or the
/// demo's two, started here.
async fn clusters_to_show(settings: &Settings) -> Result<Vec<ClusterSetting>, String> {
    if !settings.clusters.is_empty() {
        return Ok(settings.clusters.clone());
    }
    if let Some(address) = &settings.admin_api {
        return Ok(vec![single_cluster(address)]);
    }
    let mut demo = Vec::new();
    for (id, label, colour, simulator) in [
        ("eu", "Europe (demo)", "#2f7dd1", Simulator::demo()),
        (
            "us",
            "US East (demo)",
            "#1b9e77",
            Simulator::built_by(|| generated::build(DEMO_SECOND_NODES, DEMO_SECOND_MODELS, 3)),
        ),
    ] {
        let addr = simulator
            .spawn(SocketAddr::from(([127, 0, 0, 1], 0)))
            .await
            .map_err(|e| format!("cannot start the demo cluster {id}: {e}"))?;
        tracing::info!(%addr, cluster = id, "demo: simulated llmgw admin API started");
        demo.push(ClusterSetting {
            id: id.into(),
            label: label.into(),
            admin_api: format!("http://{addr}"),
            colour: Some(colour.into()),
            read_only: false,
        });
    }
    Ok(demo)
}

/// The demo's second cluster: larger than the first, and calmer.
const DEMO_SECOND_NODES: usize = 48;
const DEMO_SECOND_MODELS: usize = 16;

pub async fn run_console(settings: Settings) -> Result<(), String> {
    let clusters = clusters_to_show(&settings).await?;
    let context = console_context_for(&settings, &clusters)?;
    let hosts = AllowedHosts::new(settings.listen, &settings.allowed_hosts);
    if let Some(warning) = exposure_warning(&settings) {
        tracing::warn!("{warning}");
    }
    let listener = bind(settings.listen).await?;
    let url = format!(
        "http://{}",
        listener.local_addr().map_err(|e| e.to_string())?
    );
    for cluster in context.clusters.iter() {
        tracing::info!(
            cluster = %cluster.tag.id,
            admin_api = %cluster.admin_api.address(),
            read_only = settings.read_only || cluster.read_only,
            "showing a cluster"
        );
    }
    tracing::info!(%url, "llmgw-console is serving; open {url}");
    let recording = start_journal(&settings, &context)?;
    let feeds: Vec<_> = context.clusters.iter().map(|c| c.changes.clone()).collect();
    let audit = context.audit.clone();
    tokio::spawn(keep_audit(audit.clone()));
    survive_file_size_limits();
    let limits = Limits::for_this_process();
    let app = router(context, hosts, limits.stream_places());
    connections::serve(listener, app, limits, async move {
        shutdown_signal().await;
        // Open pages' update streams would hold the shutdown up for good.
        for feed in feeds {
            feed.close();
        }
    })
    .await
    .map_err(|e| format!("the server stopped: {e}"))?;
    // The refusals still being counted, before the journal's last write.
    audit.flush();
    recording.stop().await;
    Ok(())
}

/// Starts recording the journal, in the background: a database that does
/// not answer yet is tried again, and holds up nothing else. Only a data
/// directory that cannot be made stops the start, as a bad flag would.
fn start_journal(
    settings: &Settings,
    context: &app::server::ConsoleContext,
) -> Result<Recording, String> {
    use crate::settings::JournalAt;
    use app::server::journal::Recorder;
    if let JournalAt::DataDir(dir) = &settings.journal {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("--data-dir {}: cannot be made: {e}", dir.display()))?;
        // The database is opened by a URL of its full path (symbolic links
        // followed), which can say only UTF-8.
        let full = std::fs::canonicalize(dir)
            .map_err(|e| format!("--data-dir {}: cannot be found: {e}", dir.display()))?;
        if full.to_str().is_none() {
            return Err(format!(
                "--data-dir {}: its full path, {}, is not UTF-8; give a directory whose path is",
                dir.display(),
                full.display()
            ));
        }
    }
    // Randomly keyed by the standard library: a name no other console has.
    let nonce = {
        use std::hash::{BuildHasher, Hasher};
        std::collections::hash_map::RandomState::new()
            .build_hasher()
            .finish()
    };
    let stop = std::sync::Arc::new(tokio::sync::Notify::new());
    let recorder = Recorder {
        url: settings.journal.url(),
        holder: format!("{}-{nonce:016x}", std::process::id()),
        record_every: Duration::from_secs(settings.record_seconds),
        retain: Duration::from_secs(settings.retain_days * 86_400),
        journal: context.journal.clone(),
        audit: context.audit.clone(),
        stop: stop.clone(),
    };
    context.audit.journal.enable(context.journal.clone());
    let clusters: Vec<_> = context.clusters.iter().cloned().collect();
    let period = Duration::from_secs_f64(settings.refresh_seconds);
    let task = tokio::spawn(recorder.run(clusters, period));
    Ok(Recording { stop, task })
}

/// The journal's recorder, to stop with the console.
struct Recording {
    stop: std::sync::Arc<tokio::sync::Notify>,
    task: tokio::task::JoinHandle<()>,
}

impl Recording {
    /// Lets the recorder write what waits and hand the lease over, so
    /// that a console restarted or upgraded leaves no gap in the record;
    /// a database that does not answer holds the stop up a few seconds
    /// at most.
    async fn stop(self) {
        self.stop.notify_one();
        if tokio::time::timeout(Duration::from_secs(3), self.task)
            .await
            .is_err()
        {
            tracing::warn!("the journal's recorder did not stop in time");
        }
    }
}

/// A write past the size a file may reach (`ulimit -f`, `LimitFSIZE=` of a
/// service) sends SIGXFSZ, whose default ends the process: a journal or an
/// audit log that may grow no further would kill the console. Caught, the
/// write fails instead, as on a full disk: the journal says so on every
/// page and catches up once it can grow, and a change whose audit record
/// cannot be written is refused.
fn survive_file_size_limits() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::from_raw(libc::SIGXFSZ)) {
            Ok(mut reached) => {
                tokio::spawn(async move {
                    while reached.recv().await.is_some() {
                        tracing::warn!(
                            "a file reached the size this process may write (SIGXFSZ); its write failed"
                        );
                    }
                });
            }
            Err(e) => {
                tracing::warn!(error = %e, "SIGXFSZ cannot be caught; a file size limit ends the console")
            }
        }
    }
}

/// The audit's upkeep: the counts of repeated refusals written once their
/// second is over, and the file opened again on SIGHUP, so that it can be
/// rotated from outside (move it away, then send the signal).
async fn keep_audit(audit: std::sync::Arc<app::server::audit::AuditLog>) {
    #[cfg(unix)]
    let mut hangups = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup()).ok();
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    loop {
        #[cfg(unix)]
        let hangup = async {
            match hangups.as_mut() {
                Some(h) => h.recv().await,
                None => std::future::pending().await,
            }
        };
        #[cfg(not(unix))]
        let hangup = std::future::pending::<Option<()>>();
        tokio::select! {
            _ = tick.tick() => audit.write_due_repeats(app::server::signing::unix_now()),
            Some(()) = hangup => match audit.reopen() {
                Ok(()) => tracing::info!(target: "audit", "the audit log was opened again (SIGHUP)"),
                Err(e) => tracing::error!(target: "audit", "{e}; records go to the file open before"),
            },
        }
    }
}

/// What an operator should know before anyone else can reach the console:
/// on a non-loopback address, without read-only mode and without a proxy
/// that names users, anyone who reaches the port can drain nodes and delete
/// weights, recorded under the console's own name.
pub fn exposure_warning(settings: &Settings) -> Option<String> {
    let only_loopback = settings
        .trusted_proxies
        .iter()
        .all(|net| net.addr().is_loopback());
    let has_proxy = settings.actor_header.is_some() && !only_loopback;
    (!settings.listen.ip().is_loopback() && !settings.read_only && !has_proxy).then(|| {
        format!(
            "listening on {} without --read-only and without a trusted proxy: anyone who \
             can reach this port can cordon, drain and delete weights, and llmgw records \
             each change as the console with the caller's address. Put an authenticating \
             proxy in front (--actor-header, --trusted-proxy, --require-user) or use \
             --read-only.",
            settings.listen
        )
    })
}

pub async fn run_simulator(args: SimulateArgs) -> Result<(), String> {
    let simulator = match (args.nodes, args.models) {
        (Some(nodes), Some(models)) => Simulator::built_by(move || {
            generated::build(nodes as usize, models as usize, args.seed)
        }),
        _ => Simulator::demo(),
    };
    let listener = bind(args.listen).await?;
    // The bound address, not the asked one: with port 0 the system picks it,
    // and whoever started the simulator learns it here.
    let url = format!(
        "http://{}",
        listener.local_addr().map_err(|e| e.to_string())?
    );
    tracing::info!(%url, "simulated llmgw admin API is serving at {url}");
    tokio::select! {
        served = simulator.serve(listener) => served.map_err(|e| format!("the simulator stopped: {e}")),
        () = shutdown_signal() => Ok(()),
    }
}

/// Connections waiting to be accepted. With tokio's default (1,024), a
/// crowd of 19,000 connecting 500 at a time overflowed the queue 895
/// times, and a client whose SYN is dropped waits a second or more for its
/// retry. The kernel caps this at `net.core.somaxconn` (4,096 on current
/// Linux).
const BACKLOG: u32 = 4_096;

async fn bind(addr: SocketAddr) -> Result<TcpListener, String> {
    let failed = |e: std::io::Error| format!("cannot listen on {addr}: {e}");
    let socket = if addr.is_ipv4() {
        tokio::net::TcpSocket::new_v4()
    } else {
        tokio::net::TcpSocket::new_v6()
    }
    .map_err(failed)?;
    // As std's and tokio's own bind do: a restart need not wait for the
    // last run's connections to time out.
    #[cfg(unix)]
    socket.set_reuseaddr(true).map_err(failed)?;
    socket.bind(addr).map_err(failed)?;
    socket.listen(BACKLOG).map_err(failed)
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
    tracing::info!("shutting down");
}
