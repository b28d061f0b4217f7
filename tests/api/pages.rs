//! Every page renders on the server with what the simulator holds.

use crate::helpers::TestApp;

#[tokio::test]
async fn the_overview_counts_and_links_to_each_list() {
    let app = TestApp::spawn().await;
    let html = app.page("/").await;
    assert!(html.contains("12 nodes"), "{html}");
    assert!(html.contains("href=\"/nodes?state=cordoned\""));
    assert!(html.contains("href=\"/models?status=not-placed\""));
    assert!(html.contains("href=\"/replicas?errors=1\""));
    assert!(html.contains("1 with errors"));
    assert!(html.contains("reclaimable"));
}

#[tokio::test]
async fn models_show_the_four_statuses_and_where_to_look() {
    let app = TestApp::spawn().await;
    let html = app.page("/models").await;
    for status in ["ready", "starting", "not placed", "stopped"] {
        assert!(html.contains(&format!(">{status}<")), "{status}");
    }
    assert!(html.contains("href=\"/models/deepseek-ai%2FDeepSeek-V3/placement\""));
    assert!(html.contains(">wait<"));
    let filtered = app.page("/models?status=not-placed").await;
    assert!(filtered.contains("deepseek-ai/DeepSeek-V3"));
    assert!(!filtered.contains("data-model=\"qwen2.5:7b\""));
}

#[tokio::test]
async fn explain_pages_open_for_names_with_slashes_colons_dots_and_spaces() {
    let app = TestApp::spawn().await;
    for (path, model) in [
        (
            "/models/meta-llama%2FLlama-3.1-70B-Instruct/placement",
            "meta-llama/Llama-3.1-70B-Instruct",
        ),
        (
            "/models/meta-llama/Llama-3.1-70B-Instruct/placement",
            "meta-llama/Llama-3.1-70B-Instruct",
        ),
        ("/models/qwen2.5:7b/placement", "qwen2.5:7b"),
        ("/models/qwen2.5%3A7b/placement", "qwen2.5:7b"),
        (
            "/models/acme%2Fsupport%20bot%3Av2/placement",
            "acme/support bot:v2",
        ),
    ] {
        let html = app.page(path).await;
        assert!(
            html.contains(&format!("<h1 class=\"id\">{model}</h1>")),
            "{path}"
        );
    }
}

#[tokio::test]
async fn the_four_situations_read_differently() {
    let app = TestApp::spawn().await;
    for (model, words) in [
        ("qwen2.5%3A7b", "No candidate was turned down"),
        (
            "meta-llama%2FLlama-3.1-70B-Instruct",
            "Some candidates were turned down on the way",
        ),
        (
            "deepseek-ai%2FDeepSeek-V3",
            "Every candidate was turned down",
        ),
        (
            "microsoft%2FPhi-3.5-mini-instruct",
            "no placement has been attempted",
        ),
    ] {
        let html = app.page(&format!("/models/{model}/placement")).await;
        assert!(html.contains(words), "{model}");
    }
}

#[tokio::test]
async fn the_explain_grouping_and_filter_come_from_the_url() {
    let app = TestApp::spawn().await;
    let base = "/models/deepseek-ai%2FDeepSeek-V3/placement";
    let by_reason = app.page(&format!("{base}?group=reason")).await;
    assert!(by_reason.contains("class=\"groups by-reason\""));
    assert!(by_reason.contains("pool has no h100-80g GPUs"));
    let by_node = app.page(&format!("{base}?group=node&q=h100-03")).await;
    assert!(by_node.contains("class=\"groups by-node\""));
    assert!(by_node.contains("2 of 8 rejections"), "{by_node}");
    // The rejected node's live state and capacity stand beside the reason.
    assert!(by_node.contains("6/8 free"), "{by_node}");
}

#[tokio::test]
async fn an_unknown_model_says_so_with_the_servers_words() {
    let app = TestApp::spawn().await;
    let html = app.page("/models/no%2Fsuch/placement").await;
    assert!(html.contains("404 Not Found"), "{html}");
    assert!(html.contains("not in the catalog"));
}

#[tokio::test]
async fn replicas_show_shards_idle_dashes_and_errors_on_their_rows() {
    let app = TestApp::spawn().await;
    let html = app.page("/replicas").await.replace("<!>", "");
    assert!(
        html.contains("gpu-h100-01</a>:[0 1 2 3]"),
        "multi-node shards"
    );
    assert!(html.contains("engine exited with status 1"));
    assert!(html.contains("r-0006-s1 on gpu-a100-02: CUDA out of memory"));
    let bge = crate::nodes_page::row_by(&html, "data-replica", "r-0005");
    assert_eq!(crate::nodes_page::cells(bge)[5], "-", "idle not reported");
    let one = app.page("/replicas?model=qwen2.5%3A7b").await;
    assert!(one.contains("r-0003") && !one.contains("r-0001"));
}

#[tokio::test]
async fn tables_sort_and_filter_from_the_url() {
    let app = TestApp::spawn().await;
    let html = app.page("/nodes?sort=gpus&desc=1&q=l40s").await;
    assert!(html.contains("4 of 12 nodes"), "{html}");
    let first = html.find("data-node=\"gpu-l40s-02\"").expect("l40s-02");
    let h100 = html.find("data-node=\"gpu-h100");
    assert!(h100.is_none(), "filtered out");
    let l40s1 = html.find("data-node=\"gpu-l40s-01\"").expect("l40s-01");
    // l40s-02 has 4 free GPUs, l40s-01 has 3: descending puts 02 first.
    assert!(first < l40s1);
    let none = app.page("/nodes?q=nothing-matches-this").await;
    assert!(none.contains("No node matches this filter"));
}

#[tokio::test]
async fn the_node_page_joins_replicas_and_rejections() {
    let app = TestApp::spawn().await;
    let html = app.page("/nodes/gpu-h100-03").await;
    assert!(html.contains("GPU 5: Xid 79"));
    assert!(
        html.contains("Rejections that name this node (4)"),
        "{html}"
    );
    assert!(html.contains("insufficient disk: needs 55G, 12G free"));
    let html = app.page("/nodes/gpu-h100-01").await;
    assert!(html.contains("Replicas on this node (2)"));
    let html = app.page("/nodes/gpu-l40s-04.rack7.dc-west").await;
    assert!(html.contains("r-0005"));
}

#[tokio::test]
async fn a_drain_dialog_previews_what_moves_and_who_dips() {
    let app = TestApp::spawn().await;
    let html = app.page("/nodes?confirm=drain&node=gpu-h100-01").await;
    assert!(html.contains("role=\"dialog\""));
    assert!(html.contains("2 replicas move"), "{html}");
    assert!(
        html.contains(
            "meta-llama/Llama-3.1-70B-Instruct</strong>: 2 ready of 2 wanted, 0 while moving"
        ),
        "{html}"
    );
    assert!(html.contains("llmgw ctl drain gpu-h100-01"));
}

#[tokio::test]
async fn the_weights_page_lists_paths_sizes_and_the_total() {
    let app = TestApp::spawn().await;
    let html = app.page("/weights").await;
    assert!(html.contains("141.9 GB"), "{html}");
    assert!(html.contains("size unknown"));
    assert!(html.contains("Meta-Llama-3-70B-Instruct/model-00001-of-00003.safetensors"));
    let dialog = app.page("/weights?confirm=collect&node=gpu-a100-01").await;
    assert!(dialog.contains("llmgw ctl weights --collect --node gpu-a100-01"));
    assert!(dialog.contains("name=\"token\""));
}

#[tokio::test]
async fn the_node_pages_tables_sort_and_filter_from_the_url_too() {
    let app = TestApp::spawn().await;
    let html = app.page("/nodes/gpu-h100-03?q=gemma").await;
    assert!(
        html.contains("Rejections that name this node (1)"),
        "{html}"
    );
    assert!(html.contains("1 of 4 replicas and rejections"), "{html}");
    let html = app.page("/nodes/gpu-h100-03?sort=reason&desc=1").await;
    let needs = html.find("needs 8 free GPUs, 6 free").expect("one reason");
    let disk = html.find("insufficient disk: needs 141G").expect("another");
    assert!(needs < disk, "descending by reason");
}
