//! Links from a node or a model to the team's own tools (a Grafana
//! dashboard, a runbook, a ticket queue), from templates in the settings:
//! `node = "https://grafana.example/d/gpu?var-node={node}&var-cluster={cluster}"`.
//! Each value is percent-encoded whole, so a name can never end a query
//! parameter or start another; a template that is not an http(s) address
//! is refused at start-up, and a link that is not one is never shown.

use serde::{Deserialize, Serialize};

use crate::urls::encode_component;

/// One `[[links]]` entry of the settings.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkTemplate {
    /// What the link says: "GPU dashboard".
    pub name: String,
    /// On node pages; `{node}` and `{cluster}` are filled in.
    #[serde(default)]
    pub node: Option<String>,
    /// On model pages; `{model}` and `{cluster}` are filled in.
    #[serde(default)]
    pub model: Option<String>,
}

/// What a page is about.
#[derive(Clone, Copy, Debug)]
pub enum Subject<'a> {
    Node(&'a str),
    Model(&'a str),
}

/// A name on a page is a line, not a paragraph.
const NAME_LIMIT: usize = 64;

impl LinkTemplate {
    /// Whether the entry can make links; the error says what to fix.
    pub fn check(&self) -> Result<(), String> {
        let name = self.name.trim();
        if name.is_empty() || name.chars().count() > NAME_LIMIT {
            return Err(format!(
                "a link needs a name of 1 to {NAME_LIMIT} characters"
            ));
        }
        if self.node.is_none() && self.model.is_none() {
            return Err(format!("{name:?} has neither a node nor a model template"));
        }
        for (kind, template, subject) in [
            ("node", &self.node, Subject::Node("x")),
            ("model", &self.model, Subject::Model("x")),
        ] {
            let Some(template) = template else { continue };
            if fill(template, "x", subject).is_none() {
                return Err(format!(
                    "{name:?}: the {kind} template {template:?} must be an http:// or https:// address, \
                     with only {{{kind}}} and {{cluster}} in braces"
                ));
            }
        }
        Ok(())
    }

    /// The link for `subject` in `cluster`, when this entry has a template
    /// for it and the result is an http(s) address.
    pub fn href(&self, cluster: &str, subject: Subject) -> Option<String> {
        let template = match subject {
            Subject::Node(_) => self.node.as_deref(),
            Subject::Model(_) => self.model.as_deref(),
        }?;
        fill(template, cluster, subject)
    }
}

/// `template` with its placeholders filled in, or `None` when it names
/// one this subject has not, or is not an http(s) address.
fn fill(template: &str, cluster: &str, subject: Subject) -> Option<String> {
    let (word, value) = match subject {
        Subject::Node(id) => ("node", id),
        Subject::Model(name) => ("model", name),
    };
    // A name picks a page on the team's tool, never the tool itself: no
    // placeholder in the scheme or the host.
    let after_scheme = template
        .split_once("://")
        .map_or(template, |(_, rest)| rest);
    let authority = after_scheme
        .split(['/', '?', '#'])
        .next()
        .unwrap_or_default();
    if authority.contains('{') {
        return None;
    }
    let mut out = String::with_capacity(template.len() + 32);
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let close = after.find('}')?;
        match &after[..close] {
            w if w == word => out.push_str(&segment(value)),
            "cluster" => out.push_str(&segment(cluster)),
            _ => return None,
        }
        rest = &after[close + 1..];
    }
    if rest.contains('}') {
        return None;
    }
    out.push_str(rest);
    let scheme_ok = ["https://", "http://"]
        .iter()
        .any(|s| out.len() > s.len() && out[..s.len()].eq_ignore_ascii_case(s));
    let clean = !out
        .chars()
        .any(|c| c.is_whitespace() || c.is_control() || c == '"' || c == '<');
    (scheme_ok && clean).then_some(out)
}

/// `value` encoded whole; `.` and `..`, which a path would read as "here"
/// and "up", with their dots encoded too.
fn segment(value: &str) -> String {
    match value {
        "." => "%2E".into(),
        ".." => "%2E%2E".into(),
        other => encode_component(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grafana() -> LinkTemplate {
        LinkTemplate {
            name: "GPU dashboard".into(),
            node: Some(
                "https://grafana.example/d/gpu?var-node={node}&var-cluster={cluster}".into(),
            ),
            model: None,
        }
    }

    #[test]
    fn values_are_encoded_whole_and_cannot_add_parameters() {
        let link = grafana();
        assert_eq!(
            link.href("eu", Subject::Node("gpu-01")).as_deref(),
            Some("https://grafana.example/d/gpu?var-node=gpu-01&var-cluster=eu")
        );
        let hostile = link
            .href("eu", Subject::Node("x&var-admin=1#frag /\"<b>"))
            .expect("a link");
        assert_eq!(
            hostile,
            "https://grafana.example/d/gpu?var-node=x%26var-admin%3D1%23frag%20%2F%22%3Cb%3E&var-cluster=eu"
        );
        assert_eq!(
            link.href("eu", Subject::Model("m")),
            None,
            "no model template"
        );
        let up = LinkTemplate {
            node: Some("https://tools.example/n/{node}/logs".into()),
            ..grafana()
        };
        assert_eq!(
            up.href("eu", Subject::Node("..")).as_deref(),
            Some("https://tools.example/n/%2E%2E/logs")
        );
    }

    #[test]
    fn only_http_addresses_with_known_placeholders_are_accepted() {
        assert!(grafana().check().is_ok());
        for bad in [
            "javascript:alert(1)//{node}",
            "{node}",
            "data:text/html,{node}",
            "https://x/{nod}",
            "https://x/{model}",
            "https://x/{node",
            "https://x/node}",
            "https:// x/{node}",
            "https://{node}.example/",
            "https://x.example:{node}/",
            "",
        ] {
            let t = LinkTemplate {
                node: Some(bad.into()),
                ..grafana()
            };
            assert!(t.check().is_err(), "{bad:?} accepted");
            assert_eq!(t.href("eu", Subject::Node("n")), None, "{bad:?} rendered");
        }
        let nameless = LinkTemplate {
            name: " ".into(),
            ..grafana()
        };
        assert!(nameless.check().is_err());
        let empty = LinkTemplate {
            node: None,
            ..grafana()
        };
        assert!(empty.check().is_err());
    }
}
