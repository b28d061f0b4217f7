//! The console's settings: defaults, then `Leptos.toml` (or `--config`), then
//! `LLMGW_CONSOLE_*` variables, then flags, each overriding the one before.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use app::server::admin_client::address::parse_admin_api_base;
use app::team_links::LinkTemplate;

use crate::cluster_settings::{self, ClusterSetting, FileCluster};
use axum::http::HeaderName;
use clap::builder::BoolishValueParser;
use clap::{Args, Parser, Subcommand};
use ipnet::IpNet;
use serde::Deserialize;

/// The file read from the working directory when `--config` is not given.
pub const DEFAULT_CONFIG_FILE: &str = "Leptos.toml";

#[derive(Debug, Parser)]
#[command(
    name = "llmgw-console",
    version,
    about = "Web console for an llmgw cluster: nodes, models, replicas, placement, weights",
    long_about = "Web console for an llmgw cluster.\n\n\
        Serves pages that read the llmgw admin API (nodes, models, replicas, why a model \
        is not placed, orphaned weights) and act on it (cordon, drain, collect).\n\n\
        Settings come from defaults, then Leptos.toml in the working directory (or \
        --config), then LLMGW_CONSOLE_* variables, then these flags."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,

    /// Settings file to read instead of ./Leptos.toml (which is optional).
    #[arg(long, env = "LLMGW_CONSOLE_CONFIG", value_name = "PATH")]
    pub config: Option<PathBuf>,

    /// Address to serve the console on [default: 127.0.0.1:8080]
    #[arg(long, env = "LLMGW_CONSOLE_LISTEN", value_name = "ADDR")]
    pub listen: Option<SocketAddr>,

    /// The llmgw admin API (its admin_listen address); a bare host:port means http:// [default: http://127.0.0.1:9090]
    #[arg(long, env = "LLMGW_CONSOLE_ADMIN_API", value_name = "URL")]
    pub admin_api: Option<String>,

    /// A cluster to show, as id=address (repeatable): its pages live under /c/<id>/; for labels, colours and credentials use [[clusters]] in the settings file
    #[arg(
        long = "cluster",
        env = "LLMGW_CONSOLE_CLUSTERS",
        value_name = "ID=URL",
        value_delimiter = ','
    )]
    pub clusters: Vec<String>,

    /// Start simulated admin APIs in-process and show their two demo clusters
    #[arg(long, env = "LLMGW_CONSOLE_DEMO", value_name = "BOOL", num_args = 0..=1,
          default_missing_value = "true", value_parser = BoolishValueParser::new())]
    pub demo: Option<bool>,

    /// Seconds between polls of the admin API while a page is open (and how long an answer is shared), 0.1 to 3600 [default: 5]
    #[arg(long, env = "LLMGW_CONSOLE_REFRESH_SECONDS", value_name = "SECONDS",
          value_parser = parse_refresh)]
    pub refresh_seconds: Option<f64>,

    /// Refuse every change (cordon, drain, collect); for wall screens and shared views
    #[arg(long, env = "LLMGW_CONSOLE_READ_ONLY", value_name = "BOOL", num_args = 0..=1,
          default_missing_value = "true", value_parser = BoolishValueParser::new())]
    pub read_only: Option<bool>,

    /// Request header that an authenticating proxy sets to the operator's name; sent to llmgw as the actor of each change
    #[arg(long, env = "LLMGW_CONSOLE_ACTOR_HEADER", value_name = "NAME")]
    pub actor_header: Option<String>,

    /// Peer address or CIDR (repeatable) of the proxy that sets the actor header; the header is believed from these peers only [default: loopback]
    #[arg(
        long = "trusted-proxy",
        env = "LLMGW_CONSOLE_TRUSTED_PROXIES",
        value_name = "CIDR",
        value_delimiter = ','
    )]
    pub trusted_proxies: Vec<String>,

    /// Refuse every change that does not come with a user from the trusted proxy
    #[arg(long, env = "LLMGW_CONSOLE_REQUIRE_USER", value_name = "BOOL", num_args = 0..=1,
          default_missing_value = "true", value_parser = BoolishValueParser::new())]
    pub require_user: Option<bool>,

    /// Another name (repeatable) the console may be reached by, besides loopback and the listen address
    #[arg(
        long = "allowed-host",
        env = "LLMGW_CONSOLE_ALLOWED_HOSTS",
        value_name = "NAME",
        value_delimiter = ','
    )]
    pub allowed_hosts: Vec<String>,

    /// File holding the key (32 bytes or more) that signs confirmations and receipts; consoles behind one address share it [default: a random key per start]
    #[arg(long, env = "LLMGW_CONSOLE_SECRET_FILE", value_name = "PATH")]
    pub secret_file: Option<PathBuf>,

    /// Also append the audit (one JSON line per attempted change) to this file
    #[arg(long, env = "LLMGW_CONSOLE_AUDIT_LOG", value_name = "PATH")]
    pub audit_log: Option<PathBuf>,

    /// Directory of the built-in journal (an SQLite file, created on first start) when no --database is given [default: llmgw-console-data]
    #[arg(long, env = "LLMGW_CONSOLE_DATA_DIR", value_name = "PATH")]
    pub data_dir: Option<PathBuf>,

    /// PostgreSQL database shared by several consoles for the journal, e.g. postgres://console@db/llmgw [default: an SQLite file in --data-dir]
    #[arg(long, env = "LLMGW_CONSOLE_DATABASE", value_name = "URL")]
    pub database: Option<String>,

    /// Seconds between two reads of a cluster for the journal while no page is open [default: 30]
    #[arg(long, env = "LLMGW_CONSOLE_RECORD_SECONDS", value_name = "SECONDS", value_parser = parse_record)]
    pub record_seconds: Option<u64>,

    /// Days the journal keeps its records [default: 30]
    #[arg(long, env = "LLMGW_CONSOLE_RETAIN_DAYS", value_name = "DAYS", value_parser = parse_retain)]
    pub retain: Option<u64>,

    /// Log filter, e.g. info or llmgw_console=debug; the audit is written whatever it says [default: info]
    #[arg(long, env = "LLMGW_CONSOLE_LOG", value_name = "FILTER")]
    pub log: Option<String>,

    /// Also give each node's figures in /metrics (a series per node and figure: mind Prometheus's cardinality)
    #[arg(long, env = "LLMGW_CONSOLE_METRICS_PER_NODE", value_name = "BOOL", num_args = 0..=1,
          default_missing_value = "true", value_parser = BoolishValueParser::new())]
    pub metrics_per_node: Option<bool>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve only the simulated llmgw admin API (for demos, tests and benchmarks)
    Simulate(SimulateArgs),
}

#[derive(Debug, Args)]
pub struct SimulateArgs {
    /// Address to serve the simulated admin API on
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:9090")]
    pub listen: SocketAddr,
    /// Generate a cluster of this many nodes instead of the demo cluster
    #[arg(long, value_name = "N", requires = "models",
          value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub nodes: Option<u64>,
    /// With --nodes: how many models the generated catalog has
    #[arg(long, value_name = "M", requires = "nodes",
          value_parser = clap::value_parser!(u64).range(0..=100_000))]
    pub models: Option<u64>,
    /// With --nodes: the seed; the same seed always gives the same cluster
    #[arg(long, value_name = "SEED", default_value_t = 1)]
    pub seed: u64,
    /// Log filter [default: info]
    #[arg(long, env = "LLMGW_CONSOLE_LOG", value_name = "FILTER")]
    pub log: Option<String>,
}

/// What `Leptos.toml` may say. Unknown keys are refused, so a typo is an
/// error at start-up rather than a setting silently ignored.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileSettings {
    listen: Option<String>,
    admin_api: Option<String>,
    clusters: Option<Vec<FileCluster>>,
    demo: Option<bool>,
    refresh_seconds: Option<f64>,
    read_only: Option<bool>,
    actor_header: Option<String>,
    trusted_proxies: Option<Vec<String>>,
    require_user: Option<bool>,
    allowed_hosts: Option<Vec<String>>,
    secret_file: Option<String>,
    audit_log: Option<String>,
    log: Option<String>,
    metrics_per_node: Option<bool>,
    links: Option<Vec<LinkTemplate>>,
    data_dir: Option<String>,
    database: Option<String>,
    record_seconds: Option<u64>,
    retain: Option<u64>,
}

/// Fractions of a second are allowed (a wall screen's endurance test runs
/// a thousand refreshes in minutes); below 0.1 s the console would only
/// hammer the admin API.
const REFRESH_RANGE: std::ops::RangeInclusive<f64> = 0.1..=3600.0;

fn parse_refresh(text: &str) -> Result<f64, String> {
    let value: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a number of seconds"))?;
    if REFRESH_RANGE.contains(&value) {
        Ok(value)
    } else {
        Err(format!("{value} is not between 0.1 and 3600"))
    }
}

fn parse_record(text: &str) -> Result<u64, String> {
    match text.trim().parse::<u64>() {
        Ok(n) if (1..=3600).contains(&n) => Ok(n),
        _ => Err(format!(
            "{text:?} is not a whole number of seconds between 1 and 3600"
        )),
    }
}

fn parse_retain(text: &str) -> Result<u64, String> {
    match text.trim().parse::<u64>() {
        Ok(n) if (1..=3650).contains(&n) => Ok(n),
        _ => Err(format!(
            "{text:?} is not a whole number of days between 1 and 3650"
        )),
    }
}

/// Where the journal is kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JournalAt {
    /// An SQLite file in this directory.
    DataDir(PathBuf),
    /// A PostgreSQL database (its URL).
    Database(String),
}

impl JournalAt {
    /// The URL sqlx opens.
    pub fn url(&self) -> String {
        match self {
            Self::DataDir(dir) => llmgw_journal::store::sqlite_url(&dir.join("journal.db")),
            Self::Database(url) => url.clone(),
        }
    }
}

/// The settings in force, validated.
#[derive(Debug, Clone)]
pub struct Settings {
    pub listen: SocketAddr,
    /// The one cluster's admin API when no clusters are listed; `None`
    /// with `--demo` (the console starts its demo clusters itself, and
    /// their addresses are known only once bound) or with `clusters`.
    pub admin_api: Option<String>,
    /// The clusters listed by `--cluster` or `[[clusters]]`; empty: one
    /// cluster, `admin_api`, or the demo.
    pub clusters: Vec<ClusterSetting>,
    pub refresh_seconds: f64,
    pub read_only: bool,
    pub actor_header: Option<HeaderName>,
    /// Peers whose actor header is believed.
    pub trusted_proxies: Vec<IpNet>,
    pub require_user: bool,
    /// Names besides loopback and the listen address that requests may use.
    pub allowed_hosts: Vec<String>,
    /// The signing key's file; `None`: a random key per start.
    pub secret_file: Option<PathBuf>,
    pub audit_log: Option<PathBuf>,
    pub log: String,
    /// `/metrics` gives each node's figures too.
    pub metrics_per_node: bool,
    /// Links to the team's tools on node and model pages (`[[links]]`).
    pub links: Vec<LinkTemplate>,
    pub journal: JournalAt,
    /// How often the journal reads a cluster nobody looks at.
    pub record_seconds: u64,
    /// How long the journal keeps a record, in days.
    pub retain_days: u64,
}

impl Settings {
    pub fn resolve(cli: &Cli) -> Result<Self, String> {
        let file = read_file(cli.config.as_deref())?;
        let listen = match (&cli.listen, &file.listen) {
            (Some(flag), _) => *flag,
            (None, Some(text)) => text.parse().map_err(|_| {
                format!(
                    "listen = {text:?} in the settings file is not an address like 127.0.0.1:8080"
                )
            })?,
            (None, None) => SocketAddr::from(([127, 0, 0, 1], 8080)),
        };
        let demo = cli.demo.or(file.demo).unwrap_or(false);
        let listed = if cli.clusters.is_empty() {
            file.clusters.unwrap_or_default()
        } else {
            cli.clusters
                .iter()
                .map(|flag| cluster_settings::parse_flag(flag))
                .collect::<Result<_, _>>()?
        };
        let clusters = cluster_settings::resolve(listed)?;
        let given = cli.admin_api.clone().or(file.admin_api);
        if !clusters.is_empty() {
            if demo {
                return Err("--demo starts its own clusters, but clusters are also listed; drop one of them"
                    .into());
            }
            if given
                .as_ref()
                .is_some_and(|a| a.trim() != DEFAULT_ADMIN_API)
            {
                return Err("both an admin API and a list of clusters are given; list the admin API as one of the clusters"
                    .into());
            }
        }
        let admin_api = given.clone().unwrap_or_else(|| DEFAULT_ADMIN_API.into());
        let admin_api = if !clusters.is_empty() {
            None
        } else if demo {
            // The file states the default; anything else is a real choice
            // that --demo would silently override.
            if let Some(other) = given.filter(|a| a.trim() != DEFAULT_ADMIN_API) {
                return Err(format!(
                    "--demo starts its own admin API, but an admin API is also given ({}); \
                     drop one of them",
                    shown_address(&other)
                ));
            }
            None
        } else {
            parse_admin_api_base(&admin_api)?;
            Some(admin_api)
        };
        let refresh_seconds = cli.refresh_seconds.or(file.refresh_seconds).unwrap_or(5.0);
        if !REFRESH_RANGE.contains(&refresh_seconds) {
            return Err(format!(
                "refresh_seconds = {refresh_seconds} must be between 0.1 and 3600"
            ));
        }
        let actor_header = cli
            .actor_header
            .clone()
            .or(file.actor_header)
            .filter(|h| !h.trim().is_empty())
            .map(|h| {
                HeaderName::try_from(h.trim())
                    .map_err(|_| format!("actor_header {h:?} is not a valid HTTP header name"))
            })
            .transpose()?;
        let trusted_proxies = match (cli.trusted_proxies.is_empty(), file.trusted_proxies) {
            (false, _) => cli.trusted_proxies.clone(),
            (true, Some(list)) => list,
            (true, None) => vec!["127.0.0.0/8".into(), "::1/128".into()],
        }
        .iter()
        .map(|text| parse_cidr(text))
        .collect::<Result<Vec<_>, _>>()?;
        let allowed_hosts = if cli.allowed_hosts.is_empty() {
            file.allowed_hosts.unwrap_or_default()
        } else {
            cli.allowed_hosts.clone()
        };
        if let Some(bad) = allowed_hosts
            .iter()
            .find(|h| h.trim().is_empty() || h.contains(['/', ' ']))
        {
            return Err(format!("allowed host {bad:?} is not a host name"));
        }
        let links = file.links.unwrap_or_default();
        for (i, link) in links.iter().enumerate() {
            link.check()
                .map_err(|why| format!("[[links]] entry {} in the settings file: {why}", i + 1))?;
        }
        Ok(Self {
            listen,
            admin_api,
            clusters,
            refresh_seconds,
            read_only: cli.read_only.or(file.read_only).unwrap_or(false),
            actor_header,
            trusted_proxies,
            require_user: cli.require_user.or(file.require_user).unwrap_or(false),
            allowed_hosts,
            secret_file: path_setting(cli.secret_file.clone(), file.secret_file),
            audit_log: path_setting(cli.audit_log.clone(), file.audit_log),
            log: cli
                .log
                .clone()
                .or(file.log)
                .unwrap_or_else(|| "info".into()),
            metrics_per_node: cli
                .metrics_per_node
                .or(file.metrics_per_node)
                .unwrap_or(false),
            links,
            journal: journal_at(cli, file.data_dir, file.database)?,
            record_seconds: match file.record_seconds {
                Some(n) if cli.record_seconds.is_none() => parse_record(&n.to_string())
                    .map_err(|why| format!("record_seconds in the settings file: {why}"))?,
                _ => cli.record_seconds.unwrap_or(30),
            },
            retain_days: match file.retain {
                Some(n) if cli.retain.is_none() => parse_retain(&n.to_string())
                    .map_err(|why| format!("retain in the settings file: {why}"))?,
                _ => cli.retain.unwrap_or(30),
            },
        })
    }
}

const DEFAULT_ADMIN_API: &str = "http://127.0.0.1:9090";

/// An address as typed, credentials hidden, for a message.
fn shown_address(raw: &str) -> String {
    parse_admin_api_base(raw)
        .map(|url| app::server::admin_client::address::redacted(&url))
        .unwrap_or_else(|_| "an address".into())
}

/// A path from a flag, else from the file; empty means none.
fn path_setting(flag: Option<PathBuf>, file: Option<String>) -> Option<PathBuf> {
    flag.or(file.map(PathBuf::from))
        .filter(|p| !p.as_os_str().is_empty())
}

/// A peer address or network: `10.0.0.0/8`, `::1/128`, or a bare address.
fn parse_cidr(text: &str) -> Result<IpNet, String> {
    let text = text.trim();
    text.parse::<IpNet>()
        .or_else(|_| text.parse::<std::net::IpAddr>().map(IpNet::from))
        .map_err(|_| format!("trusted proxy {text:?} is not an address or a CIDR like 10.0.0.0/8"))
}

fn read_file(explicit: Option<&Path>) -> Result<FileSettings, String> {
    let path = match explicit {
        Some(path) => path.to_path_buf(),
        None if Path::new(DEFAULT_CONFIG_FILE).is_file() => PathBuf::from(DEFAULT_CONFIG_FILE),
        None => return Ok(FileSettings::default()),
    };
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read the settings file {}: {e}", path.display()))?;
    toml::from_str(&text).map_err(|e| {
        let reason = e.message().to_string();
        format!(
            "the settings file {} is not valid: {reason}",
            path.display()
        )
    })
}

/// `--database` if given (a PostgreSQL URL), else the SQLite file in
/// `--data-dir`.
fn journal_at(
    cli: &Cli,
    data_dir: Option<String>,
    database: Option<String>,
) -> Result<JournalAt, String> {
    if let Some(url) = cli.database.clone().or(database) {
        let url = url.trim().to_string();
        if !(url.starts_with("postgres://") || url.starts_with("postgresql://")) {
            return Err(format!(
                "--database {}: give a PostgreSQL URL (postgres://user@host/database); the built-in journal is an SQLite file in --data-dir",
                llmgw_journal::store::redacted(&url)
            ));
        }
        return Ok(JournalAt::Database(url));
    }
    let dir = path_setting(cli.data_dir.clone(), data_dir)
        .unwrap_or_else(|| PathBuf::from("llmgw-console-data"));
    Ok(JournalAt::DataDir(dir))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Settings, String> {
        let cli = Cli::try_parse_from(std::iter::once("llmgw-console").chain(args.iter().copied()))
            .map_err(|e| e.to_string())?;
        Settings::resolve(&cli)
    }

    /// A config file of the test's own, removed when dropped.
    struct ConfigFile(PathBuf);

    impl Drop for ConfigFile {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }

    impl std::ops::Deref for ConfigFile {
        type Target = std::path::Path;
        fn deref(&self) -> &std::path::Path {
            &self.0
        }
    }

    fn write_config(text: &str) -> ConfigFile {
        // Tests run side by side in one process: a number each keeps them apart.
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let path = std::env::temp_dir().join(format!(
            "llmgw-console-settings-{}-{}.toml",
            std::process::id(),
            NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        ));
        std::fs::write(&path, text).expect("write");
        ConfigFile(path)
    }

    #[test]
    fn flags_override_the_file() {
        let path =
            write_config("listen = \"127.0.0.1:7000\"\nrefresh_seconds = 9\nread_only = true\n");
        let path = path.to_str().expect("utf-8");
        let s = parse(&["--config", path]).expect("valid");
        assert_eq!(s.listen.port(), 7000);
        assert_eq!(s.refresh_seconds, 9.0);
        assert!(s.read_only);
        let s = parse(&[
            "--config",
            path,
            "--listen",
            "127.0.0.1:7001",
            "--read-only=false",
        ])
        .expect("valid");
        assert_eq!(s.listen.port(), 7001);
        assert!(!s.read_only);
        assert_eq!(s.refresh_seconds, 9.0);
    }

    #[test]
    fn bad_values_are_refused_with_a_reason() {
        assert!(parse(&["--admin-api", "ftp://x"]).is_err());
        assert!(parse(&["--refresh-seconds", "0"]).is_err());
        assert!(parse(&["--actor-header", "bad header"]).is_err());
        assert!(parse(&["--listen", "nowhere"]).is_err());
        let typo = write_config("refresh_second = 3\n");
        let err = parse(&["--config", typo.to_str().expect("utf-8")]).expect_err("typo");
        assert!(err.contains("refresh_second"), "{err}");
        assert!(parse(&["--config", "/no/such/file.toml"]).is_err());
    }

    #[test]
    fn the_repositorys_settings_file_states_the_defaults() {
        let listed = parse(&[
            "--config",
            concat!(env!("CARGO_MANIFEST_DIR"), "/Leptos.toml"),
        ])
        .expect("Leptos.toml is valid");
        let defaults = parse(&["--config", write_config("").to_str().expect("utf-8")])
            .expect("an empty file is valid");
        assert_eq!(format!("{listed:?}"), format!("{defaults:?}"));
    }

    #[test]
    fn link_templates_are_read_and_a_bad_one_is_named() {
        let good = write_config(
            "[[links]]\nname = \"GPU dashboard\"\nnode = \"https://g.example/d?n={node}&c={cluster}\"\n",
        );
        let s = parse(&["--config", good.to_str().expect("utf-8")]).expect("valid");
        assert_eq!(s.links.len(), 1);
        let bad = write_config(
            "[[links]]\nname = \"ok\"\nmodel = \"https://x/{model}\"\n\n[[links]]\nname = \"evil\"\nnode = \"javascript:alert({node})\"\n",
        );
        let err = parse(&["--config", bad.to_str().expect("utf-8")]).expect_err("refused");
        assert!(err.contains("entry 2") && err.contains("evil"), "{err}");
    }

    #[test]
    fn trusted_proxies_and_allowed_hosts_are_checked() {
        let s = parse(&[
            "--trusted-proxy",
            "10.0.0.0/8",
            "--trusted-proxy",
            "192.0.2.7",
        ])
        .expect("valid");
        assert_eq!(s.trusted_proxies.len(), 2);
        assert!(parse(&["--trusted-proxy", "not-an-address"]).is_err());
        assert!(parse(&["--allowed-host", "a b"]).is_err());
        let s = parse(&["--allowed-host", "console.example.org"]).expect("valid");
        assert_eq!(s.allowed_hosts, ["console.example.org"]);
    }

    #[test]
    fn demo_with_another_admin_api_is_an_error_not_a_choice() {
        let s = parse(&["--demo"]).expect("valid");
        assert_eq!(s.admin_api, None);
        let err = parse(&[
            "--demo",
            "--admin-api",
            "https://ops:s3cret@admin.example:9090",
        ])
        .expect_err("two answers to one question");
        assert!(err.contains("--demo"), "{err}");
        assert!(!err.contains("s3cret"), "{err}");
        let s = parse(&["--demo", "--admin-api", "http://127.0.0.1:9090"]).expect("the default");
        assert_eq!(s.admin_api, None);
    }

    #[test]
    fn clusters_come_from_flags_or_the_file_and_replace_the_admin_api() {
        let s = parse(&[
            "--cluster",
            "eu=10.0.0.5:9090",
            "--cluster",
            "us=https://b:1",
        ])
        .expect("valid");
        let ids: Vec<&str> = s.clusters.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["eu", "us"]);
        assert_eq!(s.admin_api, None);
        let file = write_config(
            "[[clusters]]\nid = \"eu\"\nlabel = \"Europe\"\nadmin_api = \"a:1\"\ncolour = \"#2a7\"\nread_only = true\n",
        );
        let s = parse(&["--config", file.to_str().expect("utf-8")]).expect("valid");
        assert_eq!(s.clusters[0].label, "Europe");
        assert!(s.clusters[0].read_only);
        let typo = write_config("[[clusters]]\nid = \"eu\"\nadmin = \"a:1\"\n");
        let err = parse(&["--config", typo.to_str().expect("utf-8")]).expect_err("typo");
        assert!(err.contains("admin"), "{err}");
    }

    #[test]
    fn clusters_with_another_admin_api_or_the_demo_are_refused() {
        let err = parse(&["--cluster", "eu=a:1", "--admin-api", "b:2"]).expect_err("both");
        assert!(err.contains("clusters"), "{err}");
        let err = parse(&["--cluster", "eu=a:1", "--demo"]).expect_err("both");
        assert!(err.contains("--demo"), "{err}");
        let err = parse(&["--cluster", "Bad Id=a:1"]).expect_err("bad id");
        assert!(err.contains("cluster 1"), "{err}");
    }
}
