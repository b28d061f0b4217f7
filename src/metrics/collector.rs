//! What `/metrics` reads at each scrape rather than keeps: each cluster's
//! figures from its last reads, the age of those reads, the turns and
//! streams open now, and the audit's counts. Formatting is all a scrape
//! costs: the lists are the ones every page shares, and nothing here asks
//! the admin API.

use std::borrow::Cow;
use std::fmt::Error;
use std::sync::Arc;
use std::time::SystemTime;

use app::server::audit::AuditLog;
use app::server::clusters::Clusters;
use app::server::journal::Journal;
use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeGaugeValue, EncodeMetric};
use prometheus_client::metrics::MetricType;
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;

use super::figures::{ClusterScrape, Labelled, state_label};
use crate::connections::PeerStreams;
use crate::turns::{Kind, Turns};

#[derive(Debug)]
pub struct ConsoleCollector {
    pub clusters: Arc<Clusters>,
    pub audit: Arc<AuditLog>,
    pub journal: Arc<Journal>,
    pub turns: Turns,
    pub streams: PeerStreams,
    /// The version and the build's id.
    pub build: (String, String),
    /// A series per node and figure too.
    pub per_node: bool,
}

/// A label value as the text formats write it: the client crate writes
/// values as given, and a model or node name is whatever the admin API
/// says (a quote in one would end its label, a newline its sample, a
/// carriage return confuse a reader). The formats escape only `\\`, `"`
/// and newline; any other control character is written as its Rust
/// escape, its backslash escaped (`\\r`), so it is seen and not obeyed.
fn escaped(value: &str) -> Cow<'_, str> {
    if !value
        .chars()
        .any(|c| c == '\\' || c == '"' || c.is_control())
    {
        return Cow::Borrowed(value);
    }
    let mut out = String::with_capacity(value.len() + 8);
    for c in value.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c if c.is_control() => {
                out.push('\\');
                out.extend(c.escape_default());
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// One gauge family: its descriptor, then a sample per label set, every
/// label value escaped on the way.
fn gauges<S, const K: usize, N>(
    encoder: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    samples: impl IntoIterator<Item = ([(&'static str, S); K], N)>,
) -> Result<(), Error>
where
    S: AsRef<str>,
    N: EncodeGaugeValue,
{
    let mut family = encoder.encode_descriptor(name, help, None, MetricType::Gauge)?;
    for (labels, value) in samples {
        let labels = labels.each_ref().map(|(k, v)| (*k, escaped(v.as_ref())));
        ConstGauge::new(value).encode(family.encode_family(&labels)?)?;
    }
    Ok(())
}

/// A family of one series, without labels.
type NoLabels = [(&'static str, &'static str); 0];
#[allow(non_upper_case_globals)]
const NoLabels: NoLabels = [];

type ClusterLabel<'a> = [(&'static str, &'a str); 1];
type TwoLabels<'a> = [(&'static str, &'a str); 2];

/// One gauge per cluster whose figures have it.
fn per_cluster<N: EncodeGaugeValue>(
    encoder: &mut DescriptorEncoder,
    figures: &[(String, ClusterScrape)],
    name: &str,
    help: &str,
    value: impl Fn(&ClusterScrape) -> Option<N>,
) -> Result<(), Error> {
    gauges(
        encoder,
        name,
        help,
        figures.iter().filter_map(|(id, f)| {
            value(f).map(|v| -> (ClusterLabel, N) { ([("cluster", id.as_str())], v) })
        }),
    )
}

/// One gauge per cluster and label value, from a figure that has several
/// (nodes by state, models by status, each model's seconds).
fn per_cluster_by<N: EncodeGaugeValue + Copy>(
    encoder: &mut DescriptorEncoder,
    figures: &[(String, ClusterScrape)],
    (name, help): (&str, &str),
    label: &'static str,
    values: impl Fn(&ClusterScrape) -> Option<&Labelled<N>>,
) -> Result<(), Error> {
    let samples = figures.iter().flat_map(|(id, f)| {
        values(f)
            .into_iter()
            .flatten()
            .map(move |(value, n)| -> (TwoLabels, N) {
                ([("cluster", id.as_str()), (label, value.as_str())], *n)
            })
    });
    gauges(encoder, name, help, samples)
}

impl Collector for ConsoleCollector {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), Error> {
        let e = &mut encoder;
        let now = SystemTime::now();
        let figures: Vec<(String, ClusterScrape)> = self
            .clusters
            .iter()
            .map(|c| (c.tag.id.clone(), ClusterScrape::of(&c.snapshots, now)))
            .collect();

        // The console's own.
        let (version, build) = (&self.build.0, &self.build.1);
        let info: TwoLabels = [("version", version), ("build", build)];
        gauges(
            e,
            "llmgw_console_build_info",
            "The console's version and build; always 1",
            [(info, 1_i64)],
        )?;
        gauges(
            e,
            "llmgw_console_turns_waiting",
            "Renders, changes and reads of the journal's history waiting for a turn to be made",
            Kind::ALL.map(|k| -> (ClusterLabel, i64) {
                ([("kind", k.as_str())], self.turns.waiting(k) as i64)
            }),
        )?;
        let mut sending = e.encode_descriptor(
            "llmgw_console_sending_bytes",
            "Bytes of made answers not yet handed on to their clients (slow readers hold them)",
            None,
            MetricType::Gauge,
        )?;
        ConstGauge::new(self.turns.sending_bytes() as i64)
            .encode(sending.encode_family(&NoLabels)?)?;
        let mut streams = e.encode_descriptor(
            "llmgw_console_change_streams_open",
            "Open pages' change streams",
            None,
            MetricType::Gauge,
        )?;
        ConstGauge::new(self.streams.count() as i64).encode(streams.encode_family(&NoLabels)?)?;
        let mut records = e.encode_descriptor(
            "llmgw_console_audit_records",
            "Audit records written since the console started, by outcome",
            None,
            MetricType::Counter,
        )?;
        for (outcome, n) in self.audit.written_by_outcome() {
            let labels: ClusterLabel = [("outcome", outcome.as_str())];
            ConstCounter::new(n).encode(records.encode_family(&labels)?)?;
        }
        self.encode_journal(e)?;
        gauges(
            e,
            "llmgw_console_snapshot_age_seconds",
            "Seconds since the console last read each list of each cluster, whether or not the read answered",
            figures.iter().flat_map(|(id, f)| {
                f.ages.iter().map(move |(list, age)| -> (TwoLabels, f64) {
                    (
                        [("cluster", id.as_str()), ("list", list)],
                        age.as_secs_f64(),
                    )
                })
            }),
        )?;
        per_cluster(
            e,
            &figures,
            "llmgw_console_admin_api_up",
            "1 when the last read of each list from the cluster's admin API answered, 0 when one failed",
            |f| f.up.map(i64::from),
        )?;

        // Each cluster's.
        per_cluster_by(
            e,
            &figures,
            ("llmgw_nodes", "Nodes by state (unknown: none reported)"),
            "state",
            |f| f.nodes.as_ref().map(|n| &n.by_state),
        )?;
        per_cluster(
            e,
            &figures,
            "llmgw_nodes_not_reporting",
            "Nodes whose agent has gone silent",
            |f| f.nodes.as_ref().map(|n| n.not_reporting),
        )?;
        per_cluster(
            e,
            &figures,
            "llmgw_nodes_disk_nearly_full",
            "Nodes with less than 2 % of their model disk free",
            |f| f.nodes.as_ref().map(|n| n.disk_nearly_full),
        )?;
        per_cluster(e, &figures, "llmgw_gpus", "GPUs in all", |f| {
            f.nodes.as_ref().map(|n| n.gpus)
        })?;
        per_cluster(e, &figures, "llmgw_gpus_free", "GPUs free", |f| {
            f.nodes.as_ref().map(|n| n.gpus_free)
        })?;
        per_cluster(
            e,
            &figures,
            "llmgw_gpus_unhealthy",
            "GPUs reported unhealthy, kept out of placement",
            |f| f.nodes.as_ref().map(|n| n.gpus_unhealthy),
        )?;
        per_cluster_by(
            e,
            &figures,
            ("llmgw_models", "Models of the catalog by status"),
            "status",
            |f| f.models.as_ref().map(|m| &m.by_status),
        )?;
        per_cluster_by(
            e,
            &figures,
            (
                "llmgw_model_not_serving_seconds",
                "Seconds since this console first saw the model not serving (not placed, or below its minimum); 0 while it serves",
            ),
            "model",
            |f| f.models.as_ref().map(|m| &m.not_serving_seconds),
        )?;
        per_cluster(e, &figures, "llmgw_replicas", "Replicas in all", |f| {
            f.replicas.as_ref().map(|r| r.replicas)
        })?;
        per_cluster(
            e,
            &figures,
            "llmgw_replicas_failing",
            "Replicas reporting an error",
            |f| f.replicas.as_ref().map(|r| r.failing),
        )?;
        per_cluster(
            e,
            &figures,
            "llmgw_reclaimable_bytes",
            "Bytes of orphaned model weights that collection would free",
            |f| f.reclaimable_bytes,
        )?;
        if self.per_node {
            self.encode_nodes(e)?;
        }
        Ok(())
    }
}

impl ConsoleCollector {
    /// Whether the journal's database answers, and what recording costs
    /// this console.
    fn encode_journal(&self, e: &mut DescriptorEncoder) -> Result<(), Error> {
        gauges(
            e,
            "llmgw_console_journal_up",
            "1 while the journal's database answers, 0 while it does not",
            [(NoLabels, i64::from(self.journal.error().is_none()))],
        )?;
        let (periods, seconds) = self.journal.recording();
        let mut family = e.encode_descriptor(
            "llmgw_console_journal_periods",
            "Periods this console recorded the journal (only the console holding the lease records)",
            None,
            MetricType::Counter,
        )?;
        ConstCounter::new(periods).encode(family.encode_family(&NoLabels)?)?;
        let mut family = e.encode_descriptor(
            "llmgw_console_journal_recording_seconds",
            "Time spent recording the journal, its reads of the admin API apart",
            None,
            MetricType::Counter,
        )?;
        ConstCounter::new(seconds).encode(family.encode_family(&NoLabels)?)?;
        Ok(())
    }

    /// A series per node and figure, from each cluster's last node list.
    fn encode_nodes(&self, e: &mut DescriptorEncoder) -> Result<(), Error> {
        let lists: Vec<(String, Arc<Vec<app::admin_api::types::NodeView>>)> = self
            .clusters
            .iter()
            .filter_map(|c| c.snapshots.known_nodes().map(|n| (c.tag.id.clone(), n)))
            .collect();
        let each = |value: fn(&app::admin_api::types::NodeView) -> i64| {
            lists.iter().flat_map(move |(id, nodes)| {
                nodes.iter().map(move |n| -> (TwoLabels, i64) {
                    (
                        [("cluster", id.as_str()), ("node", n.id.as_str())],
                        value(n),
                    )
                })
            })
        };
        gauges(e, "llmgw_node_gpus", "A node's GPUs", each(|n| n.gpu_total))?;
        gauges(
            e,
            "llmgw_node_gpus_free",
            "A node's free GPUs",
            each(|n| n.gpu_free),
        )?;
        gauges(
            e,
            "llmgw_node_gpus_unhealthy",
            "A node's unhealthy GPUs",
            each(|n| n.unhealthy.len() as i64),
        )?;
        // A share rather than sizes: llmgw reports whole "GB" without
        // saying which, and a share is what "nearly full" is judged by.
        gauges(
            e,
            "llmgw_node_disk_free_ratio",
            "Share of a node's model directories that is free, where their size is known",
            lists.iter().flat_map(|(id, nodes)| {
                nodes
                    .iter()
                    .filter(|n| n.disk_total_gb > 0)
                    .map(move |n| -> (TwoLabels, f64) {
                        (
                            [("cluster", id.as_str()), ("node", n.id.as_str())],
                            n.disk_free_gb as f64 / n.disk_total_gb as f64,
                        )
                    })
            }),
        )?;
        gauges(
            e,
            "llmgw_node_reporting",
            "1 while a node's agent reports, 0 once it has gone silent",
            each(|n| i64::from(!app::fixes::is_silent(n))),
        )?;
        gauges(
            e,
            "llmgw_node_state",
            "A node's state (unknown: none reported); always 1",
            lists.iter().flat_map(|(id, nodes)| {
                nodes.iter().map(move |n| {
                    let labels = [
                        ("cluster", id.clone()),
                        ("node", n.id.clone()),
                        ("state", state_label(&n.state)),
                    ];
                    (labels, 1_i64)
                })
            }),
        )
    }
}
