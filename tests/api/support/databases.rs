//! The databases the journal's tests run against, real ones: an SQLite file
//! in a temporary directory, and a PostgreSQL server started here on a free
//! loopback port from Debian's programs (`./scripts/bootstrap.sh test`
//! installs them). Each is removed when dropped.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::helpers::free_port;
use crate::support::netns::Network;

/// A directory of its own, removed when dropped.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(what: &str) -> Self {
        let dir = std::env::temp_dir().join(format!(
            "llmgw-{what}-{}-{}",
            std::process::id(),
            free_port()
        ));
        std::fs::create_dir_all(&dir).expect("temp dir");
        Self(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The URL of a fresh SQLite journal in `dir`.
pub fn sqlite_url(dir: &Path) -> String {
    llmgw_journal::store::sqlite_url(&dir.join("journal.db"))
}

/// A PostgreSQL server of the test's own.
pub struct Postgres {
    server: Child,
    pub url: String,
    bin: PathBuf,
    host: String,
    port: u16,
    _dir: TempDir,
}

impl Drop for Postgres {
    fn drop(&mut self) {
        // Its immediate shutdown: the server and every session of it end
        // now, as in a crash, before its directory goes.
        let _ = Command::new("kill")
            .args(["-QUIT", &self.server.id().to_string()])
            .status();
        let _ = self.server.wait();
    }
}

/// Where Debian keeps the server's programs (not on PATH): the newest.
fn postgres_bin() -> PathBuf {
    if let Some(found) = std::env::var_os("LLMGW_POSTGRES_BIN") {
        return PathBuf::from(found);
    }
    let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("bin"))
        .filter(|bin| bin.join("initdb").exists())
        .collect();
    versions.sort_by_key(|p| {
        p.parent()
            .and_then(|v| v.file_name())
            .and_then(|v| v.to_str())
            .and_then(|v| v.parse::<u32>().ok())
            .unwrap_or(0)
    });
    versions.pop().expect(
        "PostgreSQL's initdb is missing: ./scripts/bootstrap.sh test installs it \
         (or set LLMGW_POSTGRES_BIN to the directory of initdb and postgres)",
    )
}

/// PostgreSQL will not run as root: as root, its programs run as the
/// `postgres` user that Debian's package creates. Started as that user
/// (not through `runuser`, which would stand between), the server is the
/// test's own child, and stopping it stops it.
fn as_server_user(program: PathBuf) -> Command {
    use std::os::unix::process::CommandExt;
    let mut command = Command::new(program);
    let root = std::fs::read_to_string("/proc/self/status")
        .map(|s| {
            s.lines()
                .any(|l| l.starts_with("Uid:") && l.split_whitespace().nth(1) == Some("0"))
        })
        .unwrap_or(false);
    if root {
        let id = |flag: &str| -> u32 {
            let out = Command::new("id")
                .args([flag, "postgres"])
                .output()
                .expect("id runs");
            String::from_utf8_lossy(&out.stdout)
                .trim()
                .parse()
                .expect("the postgres user, which Debian's package makes")
        };
        command.uid(id("-u")).gid(id("-g"));
    }
    command
}

impl Postgres {
    /// Starts a server and waits until it takes connections.
    pub async fn start() -> Self {
        Self::start_on(free_port()).await
    }

    /// Starts a server on `port`, where a console may already be trying to
    /// reach it.
    pub async fn start_on(port: u16) -> Self {
        Self::start_with(port, None).await
    }

    /// Starts a server in `network`, taking connections on both its links;
    /// its URL is over the second.
    pub async fn start_in(network: &Network) -> Self {
        Self::start_with(free_port(), Some(network)).await
    }

    /// The server's URL through `host`, one of its addresses.
    pub fn url_at(&self, host: &str) -> String {
        format!("postgres://postgres@{host}:{}/postgres", self.port)
    }

    async fn start_with(port: u16, network: Option<&Network>) -> Self {
        let bin = postgres_bin();
        let dir = TempDir::new("postgres");
        let data = dir.0.join("data");
        // The server's user must own its directory.
        let _ = Command::new("chown")
            .args(["-R", "postgres"])
            .arg(&dir.0)
            .status();
        let init = as_server_user(bin.join("initdb"))
            .args(["--auth=trust", "--username=postgres", "--no-sync", "-D"])
            .arg(&data)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .expect("initdb runs");
        assert!(
            init.status.success(),
            "initdb: {}",
            String::from_utf8_lossy(&init.stderr)
        );
        if network.is_some() {
            // initdb trusts only the loopback; the links are of the server's
            // own subnets.
            let hba = data.join("pg_hba.conf");
            let mut rules = std::fs::read_to_string(&hba).expect("initdb wrote pg_hba.conf");
            rules.push_str("host all all samenet trust\n");
            std::fs::write(&hba, rules).expect("pg_hba.conf written");
        }
        let (host, listen, mut server) = match network {
            None => (
                "127.0.0.1".to_string(),
                "127.0.0.1".to_string(),
                as_server_user(bin.join("postgres")),
            ),
            Some(network) => {
                // `setpriv` replaces itself with the server as `ip` does:
                // the child is still the server.
                let mut command = network.command("setpriv");
                command
                    .args(["--reuid=postgres", "--regid=postgres", "--clear-groups"])
                    .arg(bin.join("postgres"));
                let [a, b] = &network.links;
                (
                    b.server.clone(),
                    format!("{},{}", a.server, b.server),
                    command,
                )
            }
        };
        let server = server
            .arg("-D")
            .arg(&data)
            .args(["-p", &port.to_string(), "-c"])
            .arg(format!("listen_addresses={listen}"))
            .arg("-c")
            .arg(format!("unix_socket_directories={}", dir.0.display()))
            .args(["-c", "fsync=off"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("postgres starts");
        let url = format!("postgres://postgres@{host}:{port}/postgres");
        let started = Instant::now();
        while std::net::TcpStream::connect((host.as_str(), port)).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "PostgreSQL did not start in 30 s"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        Self {
            server,
            url,
            bin,
            host,
            port,
            _dir: dir,
        }
    }

    /// PostgreSQL's own client on this server: what an operator would
    /// type, and a session of its own that the test holds.
    pub fn psql(&self) -> Command {
        let mut command = Command::new(self.bin.join("psql"));
        command.args([
            "-h",
            &self.host,
            "-p",
            &self.port.to_string(),
            "-U",
            "postgres",
            "-d",
            "postgres",
            "-X",
            "-qAt",
            "-v",
            "ON_ERROR_STOP=1",
        ]);
        command
    }

    /// The answer to `sql`, as psql prints it unaligned.
    pub fn ask(&self, sql: &str) -> String {
        let out = self.psql().args(["-c", sql]).output().expect("psql runs");
        assert!(
            out.status.success(),
            "psql -c {sql}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }
}
