//! `/metrics`: well formed by Prometheus's own tools, in agreement with
//! what the admin API lists, free for the admin API however often it is
//! scraped, and read back by a real Prometheus server.

use std::collections::BTreeSet;
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use llmgw_console::simulator::Simulator;

use crate::support::helpers::{TestApp, free_port, get, http, settings, spawn_console_with};

/// Prometheus's tool, which the project's bootstrap installs for the tests.
fn promtool() -> Command {
    let found = Command::new("promtool").arg("--version").output();
    assert!(
        found.is_ok_and(|o| o.status.success()),
        "promtool is missing: ./scripts/bootstrap.sh test installs it"
    );
    Command::new("promtool")
}

async fn scrape(console: &str) -> String {
    let response = get(&format!("{console}/metrics"), &[]).await;
    assert_eq!(response.status(), 200);
    response.text().await.expect("body")
}

/// The value of the sample of `name` whose labels include `labels`.
fn sample(text: &str, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .find_map(|line| {
            let (series, value) = line.rsplit_once(' ')?;
            let (metric, rest) = series.split_once('{').unwrap_or((series, "}"));
            let all = labels
                .iter()
                .all(|(k, v)| rest.contains(&format!("{k}=\"{v}\"")));
            (metric == name && all)
                .then(|| value.parse().ok())
                .flatten()
        })
}

/// Every sample of `name`: its labels as written, and its value.
fn samples<'a>(text: &'a str, name: &str) -> Vec<(&'a str, f64)> {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|line| {
            let (series, value) = line.rsplit_once(' ')?;
            let (metric, labels) = series.split_once('{').unwrap_or((series, ""));
            (metric == name).then(|| (labels, value.parse().unwrap_or(f64::NAN)))
        })
        .collect()
}

/// Scrapes until the cluster's figures are in: the first scrape starts
/// the cluster's reads and does not wait for them.
async fn scrape_with_figures(console: &str) -> String {
    let started = Instant::now();
    loop {
        let text = scrape(console).await;
        if sample(&text, "llmgw_gpus", &[]).is_some()
            && sample(&text, "llmgw_replicas", &[]).is_some()
            && sample(&text, "llmgw_reclaimable_bytes", &[]).is_some()
        {
            return text;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "no figures after 10 s:\n{text}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn promtool_check(text: &str) {
    let mut child = promtool()
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("promtool runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(text.as_bytes())
        .expect("written");
    let out = child.wait_with_output().expect("promtool ends");
    assert!(
        out.status.success() && out.stdout.is_empty() && out.stderr.is_empty(),
        "promtool check metrics: {}{}\n{text}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[tokio::test]
async fn the_scrape_passes_promtool_and_agrees_with_the_admin_api() {
    let app = TestApp::spawn().await;
    // A page and an attempt first, so that every family has samples.
    app.page("/nodes").await;
    app.cordon("gpu-h100-01").await;
    let text = scrape_with_figures(&app.console).await;
    promtool_check(&text);

    let lists = app.lists();
    let cluster = [("cluster", "default")];
    let nodes: f64 = samples(&text, "llmgw_nodes").iter().map(|(_, v)| v).sum();
    assert_eq!(nodes as usize, lists.nodes.len());
    let gpus: i64 = lists.nodes.iter().map(|n| n.gpu_total).sum();
    assert_eq!(sample(&text, "llmgw_gpus", &cluster), Some(gpus as f64));
    let unhealthy: usize = lists.nodes.iter().map(|n| n.unhealthy.len()).sum();
    assert_eq!(
        sample(&text, "llmgw_gpus_unhealthy", &cluster),
        Some(unhealthy as f64)
    );
    assert!(
        unhealthy > 0,
        "the demo cluster has an unhealthy GPU to count"
    );
    let reclaimable: i64 = lists.orphans.iter().map(|o| o.bytes.max(0)).sum();
    assert_eq!(
        sample(&text, "llmgw_reclaimable_bytes", &cluster),
        Some(reclaimable as f64)
    );
    assert_eq!(
        sample(&text, "llmgw_replicas", &cluster),
        Some(lists.replicas.len() as f64)
    );
    // One series per model of the catalog, and a model not serving has one
    // that counts.
    let per_model = samples(&text, "llmgw_model_not_serving_seconds");
    assert_eq!(per_model.len(), lists.models.len());
    let not_serving = lists
        .models
        .iter()
        .find(|m| app::format::ModelStatus::not_serving(m))
        .expect("the demo cluster has a model not serving");
    assert!(
        sample(
            &text,
            "llmgw_model_not_serving_seconds",
            &[("model", &not_serving.name)]
        )
        .is_some()
    );
    // The console's own.
    assert!(
        sample(
            &text,
            "llmgw_console_requests_total",
            &[("kind", "page"), ("code", "200")]
        ) >= Some(1.0)
    );
    assert!(
        sample(
            &text,
            "llmgw_console_upstream_requests_total",
            &[
                ("cluster", "default"),
                ("path", "/api/v1/nodes"),
                ("outcome", "ok")
            ]
        ) >= Some(1.0)
    );
    assert!(
        sample(
            &text,
            "llmgw_console_upstream_requests_total",
            &[("path", "/api/v1/nodes/{node}/state"), ("outcome", "ok")]
        ) >= Some(1.0),
        "a change is counted by its route, not its node"
    );
    assert!(
        sample(
            &text,
            "llmgw_console_audit_records_total",
            &[("outcome", "done")]
        ) >= Some(1.0)
    );
    assert_eq!(
        sample(&text, "llmgw_console_admin_api_up", &cluster),
        Some(1.0)
    );
    assert!(sample(&text, "llmgw_console_build_info", &[]).is_some());
    assert!(
        samples(&text, "llmgw_node_gpus").is_empty(),
        "no series per node without --metrics-per-node"
    );
    // A node's name never becomes a label of the console's own series.
    assert!(!text.contains("gpu-h100-01"), "{text}");
}

#[tokio::test]
async fn per_node_series_come_with_the_flag_and_pass_promtool() {
    let sim = Simulator::demo();
    let addr =
        crate::support::helpers::spawn_simulator(sim.clone(), "127.0.0.1:0".parse().expect("addr"));
    let mut with_flag = settings();
    with_flag.metrics_per_node = true;
    let console = spawn_console_with(with_flag, &format!("http://{addr}"));
    let text = scrape_with_figures(&console).await;
    promtool_check(&text);
    let nodes = sim.cluster().list_nodes(Instant::now());
    assert_eq!(samples(&text, "llmgw_node_gpus").len(), nodes.len());
    assert_eq!(samples(&text, "llmgw_node_state").len(), nodes.len());
}

#[tokio::test]
async fn a_name_from_the_admin_api_cannot_break_or_forge_a_series() {
    let sim = Simulator::demo();
    let forged = "x\"} 0\nllmgw_console_admin_api_up{cluster=\"eu\\";
    sim.cluster().models[0].name = forged.into();
    // A carriage return in a node's name is written escaped, never raw.
    sim.cluster().nodes[0].id = "gpu-\r01".into();
    let addr =
        crate::support::helpers::spawn_simulator(sim.clone(), "127.0.0.1:0".parse().expect("addr"));
    let mut per_node = settings();
    per_node.metrics_per_node = true;
    let console = spawn_console_with(per_node, &format!("http://{addr}"));
    let text = scrape_with_figures(&console).await;
    promtool_check(&text);
    assert_eq!(
        sample(&text, "llmgw_console_admin_api_up", &[("cluster", "eu")]),
        None,
        "a forged sample: {text}"
    );
    let models = sim.cluster().list_models(Instant::now()).len();
    assert_eq!(
        samples(&text, "llmgw_model_not_serving_seconds").len(),
        models
    );
    assert!(
        text.contains(r#"model="x\"} 0\nllmgw_console_admin_api_up{cluster=\"eu\\""#),
        "escaped as the format says: {text}"
    );
    assert!(!text.contains('\r'), "a raw carriage return: {text:?}");
    assert!(text.contains(r#"node="gpu-\\r01""#), "{text}");
}

#[tokio::test]
async fn a_thousand_scrapes_cost_the_admin_api_nothing_more() {
    let sim = Simulator::demo();
    let addr =
        crate::support::helpers::spawn_simulator(sim.clone(), "127.0.0.1:0".parse().expect("addr"));
    let mut slow = settings();
    // One read per list per minute: every scrape below falls in the first.
    slow.refresh_seconds = 60.0;
    let console = spawn_console_with(slow, &format!("http://{addr}"));
    scrape_with_figures(&console).await;
    let before = sim.calls().counts();
    for list in [
        "/api/v1/nodes",
        "/api/v1/models",
        "/api/v1/replicas",
        "/api/v1/weights/orphans",
    ] {
        assert_eq!(before.get(list), Some(&1), "{list} read once: {before:?}");
    }
    for _ in 0..1000 {
        scrape(&console).await;
    }
    assert_eq!(sim.calls().counts(), before, "scrapes asked the admin API");
}

#[tokio::test]
async fn an_unreachable_admin_api_is_said_and_no_figure_is_made_up() {
    let console = spawn_console_with(settings(), &format!("http://127.0.0.1:{}", free_port()));
    let started = Instant::now();
    let text = loop {
        let text = scrape(&console).await;
        if sample(&text, "llmgw_console_admin_api_up", &[]).is_some() {
            break text;
        }
        assert!(started.elapsed() < Duration::from_secs(10), "{text}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(
        sample(
            &text,
            "llmgw_console_admin_api_up",
            &[("cluster", "default")]
        ),
        Some(0.0)
    );
    assert!(samples(&text, "llmgw_gpus").is_empty(), "{text}");
    assert!(
        sample(
            &text,
            "llmgw_console_upstream_requests_total",
            &[("outcome", "unreachable")]
        ) >= Some(1.0)
    );
    promtool_check(&text);
}

#[tokio::test]
async fn a_scrape_by_address_is_answered_and_by_a_stranger_name_refused() {
    let app = TestApp::spawn().await;
    let port = app.console.rsplit(':').next().expect("port").to_string();
    let by = |host: String| {
        let url = format!("{}/metrics", app.console);
        async move { get(&url, &[("host", &host)]).await.status() }
    };
    assert_eq!(by(format!("127.0.0.1:{port}")).await, 200);
    assert_eq!(
        by(format!("10.1.2.3:{port}")).await,
        200,
        "Prometheus scrapes by address"
    );
    assert_eq!(by(format!("[::1]:{port}")).await, 200);
    assert_eq!(
        by(format!("attacker.example:{port}")).await,
        421,
        "a rebound name"
    );

    let om = get(
        &format!("{}/metrics", app.console),
        &[(
            "accept",
            "application/openmetrics-text;version=1.0.0,text/plain;q=0.5",
        )],
    )
    .await;
    assert!(
        om.headers()["content-type"]
            .to_str()
            .expect("ascii")
            .starts_with("application/openmetrics-text")
    );
    assert!(om.text().await.expect("body").ends_with("# EOF\n"));
}

/// Every metric the shipped alert rules and dashboard use is one the
/// console gives: a renamed metric fails here, not in someone's pager.
#[tokio::test]
async fn the_shipped_rules_pass_promtool_and_use_only_metrics_the_console_gives() {
    let root = env!("CARGO_MANIFEST_DIR");
    let rules = format!("{root}/docs/prometheus/alerts.yml");
    let out = promtool()
        .args(["check", "rules", &rules])
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let out = promtool()
        .args(["test", "rules", "alerts.test.yml"])
        .current_dir(format!("{root}/docs/prometheus"))
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );

    let sim = Simulator::demo();
    let addr = crate::support::helpers::spawn_simulator(sim, "127.0.0.1:0".parse().expect("addr"));
    let mut every = settings();
    every.metrics_per_node = true;
    let console = spawn_console_with(every, &format!("http://{addr}"));
    let text = scrape_with_figures(&console).await;
    let given: BTreeSet<&str> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split(['{', ' ']).next())
        .collect();
    let dashboard = format!("{root}/docs/grafana/llmgw-console.json");
    for file in [&rules, &dashboard] {
        let source = std::fs::read_to_string(file).expect("shipped");
        let used: BTreeSet<String> = source
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .filter(|w| w.starts_with("llmgw_"))
            .map(str::to_string)
            .collect();
        assert!(!used.is_empty(), "{file} uses no metric of the console");
        for metric in &used {
            assert!(
                given.contains(metric.as_str()),
                "{file} uses {metric}, which /metrics does not give"
            );
        }
    }
}

/// A real Prometheus server scrapes the console on loopback, and a series
/// is read back through its query API.
#[tokio::test]
async fn a_real_prometheus_scrapes_the_console_and_answers_a_query() {
    let found = Command::new("prometheus").arg("--version").output();
    assert!(
        found.is_ok_and(|o| o.status.success()),
        "prometheus is missing: ./scripts/bootstrap.sh test installs it"
    );
    let app = TestApp::spawn().await;
    let target = app.console.trim_start_matches("http://").to_string();
    let dir = std::env::temp_dir().join(format!("llmgw-prometheus-{}", free_port()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let config = dir.join("prometheus.yml");
    std::fs::write(
        &config,
        format!(
            "global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: llmgw-console\n    static_configs:\n      - targets: ['{target}']\n"
        ),
    )
    .expect("config written");
    let port = free_port();
    let server = Command::new("prometheus")
        .arg(format!("--config.file={}", config.display()))
        .arg(format!(
            "--storage.tsdb.path={}",
            dir.join("data").display()
        ))
        .arg(format!("--web.listen-address=127.0.0.1:{port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("prometheus starts");
    struct Stop(std::process::Child, std::path::PathBuf);
    impl Drop for Stop {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
            let _ = std::fs::remove_dir_all(&self.1);
        }
    }
    let _stop = Stop(server, dir);
    let gpus: i64 = app.lists().nodes.iter().map(|n| n.gpu_total).sum();
    let query = format!(
        "http://127.0.0.1:{port}/api/v1/query?query=llmgw_gpus%7Bcluster%3D%22default%22%7D"
    );
    let started = Instant::now();
    loop {
        if let Ok(answer) = http().get(&query).send().await
            && let Ok(body) = answer.json::<serde_json::Value>().await
            && let Some(value) = body["data"]["result"][0]["value"][1].as_str()
        {
            assert_eq!(value, gpus.to_string(), "{body}");
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "Prometheus had no llmgw_gpus after 60 s"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}
