//! The release binary run as operators run it, for what only a separate
//! process shows: its log on stderr, its memory.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::helpers::free_port;

/// A running `llmgw-console`, stopped when dropped.
pub struct Process {
    child: Child,
    /// Of a console: where its first cluster's pages are (`/c/default`, or
    /// `/c/eu` with `--demo`); of a simulator: the admin API.
    pub url: String,
    /// The console or simulator itself.
    pub root: String,
    /// Where its stderr goes: a file, so that a long run never blocks on a
    /// full pipe.
    log: std::path::PathBuf,
    /// A console's journal, its own unless the test gave one.
    _data: Option<crate::support::databases::TempDir>,
}

impl Process {
    /// Starts the console with `args` on a free port and waits until it
    /// answers `/healthz`.
    pub async fn start(args: &[&str]) -> Self {
        let given = args
            .iter()
            .any(|a| *a == "--data-dir" || *a == "--database");
        let data = (!given).then(|| crate::support::databases::TempDir::new("data"));
        let data_dir = data.as_ref().map(|d| d.0.display().to_string());
        let mut with_data = args.to_vec();
        if let Some(dir) = &data_dir {
            with_data.extend(["--data-dir", dir.as_str()]);
        }
        let mut process = Self::spawn(&with_data);
        process._data = data;
        let first = if args.contains(&"--demo") {
            "/c/eu"
        } else {
            crate::support::helpers::BASE
        };
        process.url = format!("{}{first}", process.root);
        let http = crate::support::helpers::http();
        let healthz = format!("{}/healthz", process.root);
        process
            .wait_until(async || {
                http.get(&healthz)
                    .send()
                    .await
                    .is_ok_and(|r| r.status().is_success())
            })
            .await
    }

    /// The simulated admin API alone, as `llmgw-console simulate` serves it.
    pub async fn simulator() -> Self {
        Self::simulator_of(&[]).await
    }

    /// The simulated admin API with `args` after `simulate` (a generated
    /// cluster's size, say).
    pub async fn simulator_of(args: &[&str]) -> Self {
        let process = Self::spawn(&[&["simulate", "--log", "warn"], args].concat());
        let addr = process.url.trim_start_matches("http://").to_string();
        process
            .wait_until(async || std::net::TcpStream::connect(&addr).is_ok())
            .await
    }

    fn spawn(args: &[&str]) -> Self {
        let listen = format!("127.0.0.1:{}", free_port());
        let log = std::env::temp_dir().join(format!(
            "llmgw-console-test-{}.log",
            listen.replace(':', "-")
        ));
        let stderr = std::fs::File::create(&log).expect("a log file");
        let child = Command::new(env!("CARGO_BIN_EXE_llmgw-console"))
            .args(args)
            .args(["--listen", &listen])
            .current_dir(std::env::temp_dir())
            .stdout(Stdio::null())
            .stderr(stderr)
            .spawn()
            .expect("the binary starts");
        Self {
            child,
            url: format!("http://{listen}"),
            root: format!("http://{listen}"),
            log,
            _data: None,
        }
    }

    async fn wait_until(self, ready: impl AsyncFn() -> bool) -> Self {
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if ready().await {
                return self;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let url = self.url.clone();
        panic!("{url} did not start:\n{}", self.stop());
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Resident memory, in KiB, from /proc.
    pub fn rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .expect("/proc is readable");
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("VmRSS in /proc")
    }

    /// Sends the process the signal `name` ("HUP"), as `kill` does.
    pub fn signal(&self, name: &str) {
        let _ = Command::new("kill")
            .args([&format!("-{name}"), &self.child.id().to_string()])
            .status();
    }

    /// Asks the process to stop as a service manager does (SIGTERM) and
    /// says whether it exited within `limit`.
    pub fn terminate_within(&mut self, limit: Duration) -> bool {
        self.signal("TERM");
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        false
    }

    /// Stops the process and returns everything it wrote to stderr.
    pub fn stop(mut self) -> String {
        let _ = self.child.kill();
        let _ = self.child.wait();
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_file(&self.log);
    }
}

/// A series of the console's `/metrics` without labels.
pub async fn metric(console: &Process, name: &str) -> Option<f64> {
    let text = crate::support::helpers::http()
        .get(format!("{}/metrics", console.root))
        .send()
        .await
        .expect("the console answers")
        .text()
        .await
        .expect("text");
    text.lines().find_map(|l| {
        let rest = l.strip_prefix(name)?;
        let rest = rest.strip_prefix("{}").unwrap_or(rest);
        rest.strip_prefix(' ')?.parse().ok()
    })
}
