//! Advice that is safe to follow: over a thousand random simulated clusters,
//! every fix the console offers as working is applied through the admin API,
//! and the explanation asked again must no longer reject that node for that
//! profile.

use std::collections::BTreeSet;
use std::net::SocketAddr;

use app::admin_api::types::{NodeState, TargetState};
use app::fixes::{Explained, Fix, Outcome, Surroundings};
use app::server::admin_client::{Actor, AdminApiClient};
use llmgw_console::simulator::{Simulator, generated};

use crate::support::helpers::spawn_simulator;

/// States tried; the budget of the advice's issue.
const STATES: u64 = 1000;

fn actor() -> Actor {
    crate::support::helpers::actor("advice-test")
}

/// SplitMix64, to stir each generated cluster further.
struct Stir(u64);

impl Stir {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) % n.max(1)
    }
}

/// A small cluster of `seed`, with more of its nodes cordoned or draining,
/// short of disk and holding orphans than the generator makes.
fn state(seed: u64) -> llmgw_console::simulator::Cluster {
    let mut cluster = generated::build_placed(15, 6, seed);
    let mut stir = Stir(seed);
    for n in cluster.nodes.iter_mut() {
        match stir.below(10) {
            0..=2 => n.state = NodeState::Cordoned,
            3 => n.state = NodeState::Draining,
            _ => {}
        }
        if n.disk_total_gb > 0 && stir.below(3) == 0 {
            n.disk_free_gb = stir.below(200) as i64;
        }
        if stir.below(4) == 0 {
            cluster.orphans.push(app::admin_api::types::OrphanView {
                node: n.id.clone(),
                paths: vec![format!("/var/lib/llmgw/cache/{seed}/w.safetensors")],
                bytes: (stir.below(700) as i64 + 1) << 30,
            });
        }
    }
    // Every node agrees to delete, so a collection is what it says.
    cluster.refusing_nodes.clear();
    cluster
}

/// A fix said to work, and what it claims to remove.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Claim {
    model: String,
    node: String,
    profile: String,
    collect: bool,
}

async fn claims(client: &AdminApiClient) -> (Vec<Claim>, usize) {
    let a = actor();
    let nodes = client.list_nodes(&a).await.expect("nodes");
    let models = client.list_models(&a).await.expect("models");
    let replicas = client.list_replicas(&a, None).await.expect("replicas");
    let orphans = client.list_orphans(&a).await.expect("orphans");
    let mut claims = BTreeSet::new();
    let mut refused = 0;
    for m in &models {
        let explain = client
            .explain_placement(&a, &m.name)
            .await
            .expect("explanation");
        let around = Surroundings::around(
            &|_| true,
            &nodes,
            &orphans,
            &replicas,
            &[Explained {
                model: &m.name,
                profiles: &m.profiles,
                rejections: &explain.rejections,
            }],
        );
        let advice = around.index().advise(&m.name, &explain.rejections);
        for fix in advice.iter().flatten() {
            match fix {
                Fix::Uncordon {
                    node,
                    profile,
                    outcome: Outcome::Works,
                    ..
                }
                | Fix::Collect {
                    node,
                    profile,
                    outcome: Outcome::Works,
                    ..
                } => {
                    claims.insert(Claim {
                        model: m.name.clone(),
                        node: node.clone(),
                        profile: profile.clone(),
                        collect: matches!(fix, Fix::Collect { .. }),
                    });
                }
                Fix::Uncordon { .. } | Fix::Collect { .. } => refused += 1,
                _ => {}
            }
        }
    }
    (claims.into_iter().collect(), refused)
}

#[tokio::test]
async fn every_fix_offered_over_a_thousand_random_states_removes_what_it_claims() {
    let simulator = Simulator::built_by(|| state(0));
    let addr = spawn_simulator(simulator.clone(), SocketAddr::from(([127, 0, 0, 1], 0)));
    let client = AdminApiClient::new(&addr.to_string()).expect("valid");
    let change = crate::support::helpers::authorized("advice-test");
    let (mut offered, mut refused) = (0, 0);
    let mut kinds = BTreeSet::new();
    for seed in 0..STATES {
        let start = state(seed);
        *simulator.cluster() = start.clone();
        let (claims, not_enough) = claims(&client).await;
        refused += not_enough;
        for claim in claims {
            offered += 1;
            kinds.insert(claim.collect);
            *simulator.cluster() = start.clone();
            if claim.collect {
                client
                    .collect_weights(&change, Some(&claim.node))
                    .await
                    .expect("collected");
            } else {
                client
                    .set_node_state(&change, &claim.node, TargetState::Ready)
                    .await
                    .expect("uncordoned");
            }
            let again = client
                .explain_placement(&actor(), &claim.model)
                .await
                .expect("explanation");
            let left: Vec<&str> = again
                .rejections
                .iter()
                .filter(|r| r.node == claim.node && r.profile == claim.profile)
                .map(|r| r.reason.as_str())
                .collect();
            assert!(
                left.is_empty(),
                "seed {seed}: {claim:?} was offered as a fix, but once taken the node is still \
                 rejected: {left:?}"
            );
        }
    }
    // The test means something only if the console offered fixes of both
    // kinds, and held some back.
    assert!(offered >= 100, "only {offered} fixes offered");
    assert_eq!(kinds.len(), 2, "uncordon and collect both offered");
    assert!(
        refused >= 100,
        "only {refused} fixes held back as not enough"
    );
}

/// An admin API written by hand, in the contract's Go field names and with
/// wording unlike the simulator's: a model of one profile needing 8 GPUs a
/// node, and four cordoned nodes that turned it down, only one of which
/// would take it once uncordoned.
async fn hand_written() -> String {
    use axum::Json;
    use axum::routing::get;
    use serde_json::json;
    let node = |id: &str, free: i64, disk_free: i64| {
        json!({"ID": id, "State": "cordoned", "GPUFree": free, "GPUTotal": 8, "MemoryGB": 1024,
               "DiskFreeGB": disk_free, "DiskTotalGB": 3800, "Classes": ["h100-80g"],
               "Fabrics": ["nvlink"], "Replicas": 0, "LastSeenAgo": "2s", "Unhealthy": null})
    };
    let nodes = json!([
        node("n-roomy", 8, 3000),
        node("n-small", 2, 3000),
        node("n-tight", 8, 37),
        node("n-twin", 8, 3000),
        {"ID": "n-busy", "State": "ready", "GPUFree": 0, "GPUTotal": 8, "DiskFreeGB": 20,
         "DiskTotalGB": 3800, "Classes": ["h100-80g"], "LastSeenAgo": "1s"},
    ]);
    let rejection = |pool: &str, node: &str, reason: &str| json!({"Profile": "tp8-h100", "Pool": pool, "Node": node, "Reason": reason});
    let explain = json!({"Model": MODEL_BY_HAND, "Placed": false, "Rejections": [
        rejection("h100", "n-roomy", "excluded: marked unschedulable by an operator"),
        rejection("h100", "n-small", "excluded: marked unschedulable by an operator"),
        rejection("h100", "n-small", "insufficient accelerators: requires 8 GPUs, 2 available"),
        rejection("h100", "n-tight", "excluded: marked unschedulable by an operator"),
        rejection("h100", "n-twin", "excluded: marked unschedulable by an operator"),
        rejection("h100", "n-twin", "colocation rule: an instance of this model already runs here"),
        rejection("h100", "n-busy", "model volume too small: 140 GiB wanted, 20 GiB available"),
        rejection("a100", "", "pool has no h100-80g GPUs"),
    ]});
    let models = json!([{"Name": MODEL_BY_HAND, "Ready": 0, "Min": 1, "Total": 0,
                         "Profiles": ["tp8-h100"]}]);
    let app = axum::Router::new()
        .route("/api/v1/nodes", get(move || async move { Json(nodes) }))
        .route("/api/v1/models", get(move || async move { Json(models) }))
        .route("/api/v1/replicas", get(|| async { Json(json!([])) }))
        .route("/api/v1/weights/orphans", get(|| async { Json(json!([])) }))
        .route(
            "/api/v1/explain-placement",
            get(move || async move { Json(explain) }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("binds");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}")
}

const MODEL_BY_HAND: &str = "acme/llm-8x:v2";

#[tokio::test]
async fn against_an_admin_api_of_its_own_words_only_the_fix_that_works_is_offered() {
    let upstream = hand_written().await;
    let console = crate::support::helpers::spawn_console(&upstream).await;
    let url = format!(
        "{console}{}{}",
        crate::support::helpers::BASE,
        app::urls::placement(MODEL_BY_HAND)
    );
    let read = || async {
        let body = crate::support::helpers::http()
            .get(&url)
            .send()
            .await
            .expect("answers")
            .text()
            .await
            .expect("a page");
        crate::support::html::Page::parse(&body)
    };
    let page = read().await;
    // The explanation is as old as its read; asked again, it says so.
    assert!(
        page.text(".explained-age")
            .starts_with("llmgw's explanation, read just now"),
        "{}",
        page.text(".explained-age")
    );
    tokio::time::sleep(std::time::Duration::from_millis(2100)).await;
    let again = read().await.text(".explained-age");
    let secs: Option<u64> = again
        .strip_prefix("llmgw's explanation, read ")
        .and_then(|rest| rest.split(" s ago").next())
        .and_then(|n| n.parse().ok());
    assert!(secs.is_some_and(|s| s >= 2), "{again}");
    let fixes = page.texts("table.rejections li.fix");
    let of = |node: &str| -> String {
        fixes
            .iter()
            .find(|f| f.starts_with(&format!("{node} ")))
            .cloned()
            .unwrap_or_else(|| panic!("no fix named {node} in {fixes:?}"))
    };
    assert!(
        of("n-roomy").contains("it would take tp8-h100"),
        "{}",
        of("n-roomy")
    );
    assert!(
        of("n-small").contains("it has 2 usable GPUs of the 8 a shard needs"),
        "{}",
        of("n-small")
    );
    assert!(
        of("n-tight").contains("its disk has 37 of 140 GB"),
        "{}",
        of("n-tight")
    );
    assert!(
        of("n-twin").contains("colocation rule: an instance of this model already runs here"),
        "{}",
        of("n-twin")
    );
    assert_eq!(page.all("table.rejections li.fix.in-reach").len(), 1);
    assert_eq!(
        page.text(".outlook-sentence"),
        "1 of 8 rejections has a fix in reach; the best: uncordoning n-roomy would remove 1 of 8. 5 more have a lead, below."
    );
}
