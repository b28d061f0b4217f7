//! What the server tells the page about itself. The shell writes it into a
//! `<meta>` tag, so the islands learn it without a round trip and agree
//! with the page the server rendered.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::cluster_tag::ClusterTag;
use crate::heartbeat::Heartbeat;
use crate::theme::Theme;
use crate::wall::Pulse;

pub const META_NAME: &str = "llmgw-console-ui";

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UiSettings {
    /// Milliseconds between polls of the admin API; a page whose change stream
    /// was refused waits this long before it tries again.
    pub refresh_millis: u64,
    /// Whether changes are refused (the page hides their buttons too).
    pub read_only: bool,
    /// The admin API address, shown so nobody mistakes which cluster this is.
    pub admin_api: String,
    /// The cluster this page is about; none on a page about every cluster
    /// (the overview of several). Set per request.
    #[serde(default)]
    pub cluster: Option<ClusterTag>,
    /// Every cluster this console shows, in the settings' order.
    #[serde(default)]
    pub clusters: Vec<ClusterTag>,
    /// Who the console takes the viewer for (the proxy's user, or the
    /// console with the viewer's address): what llmgw would record beside a
    /// change. Set per request.
    #[serde(default)]
    pub actor: String,
    /// The console's build: a wall screen from another build reloads.
    #[serde(default)]
    pub build: String,
    /// The viewer's theme, from their cookie. Set per request.
    #[serde(default)]
    pub theme: Theme,
    /// The change feed's heartbeat when this page was rendered; its data is
    /// at least that recent. Set per request.
    #[serde(default)]
    pub rendered_at: Option<Heartbeat>,
    /// Links to the team's tools on node and model pages. Rendered on the
    /// server only, so never written into every page's settings.
    #[serde(skip)]
    pub team_links: Vec<crate::team_links::LinkTemplate>,
    /// Why the journal's database does not answer, while it does not. Set
    /// per request, rendered on the server only.
    #[serde(skip)]
    pub journal_error: Option<String>,
}

impl Default for UiSettings {
    fn default() -> Self {
        Self {
            refresh_millis: 5000,
            read_only: false,
            admin_api: String::new(),
            cluster: None,
            clusters: Vec::new(),
            actor: String::new(),
            build: String::new(),
            theme: Theme::default(),
            rendered_at: None,
            team_links: Vec::new(),
            journal_error: None,
        }
    }
}

impl UiSettings {
    /// Where this build's browser code is served from: a path that names
    /// the build, so that browsers may keep those files for good.
    pub fn pkg_dir(&self) -> String {
        if self.build.is_empty() {
            "pkg".to_string()
        } else {
            format!("pkg/{}", self.build)
        }
    }

    /// The cluster's pulse when this page was rendered (all clear when
    /// nothing has been polled yet).
    pub fn rendered_pulse(&self) -> Pulse {
        self.rendered_at.and_then(|h| h.pulse).unwrap_or_default()
    }

    pub fn refresh_period(&self) -> Duration {
        Duration::from_millis(self.refresh_millis.max(100))
    }

    /// The settings in force for this render: on the server, what the router
    /// provided for the request; in the browser, the tag the server wrote.
    pub fn current() -> Self {
        #[cfg(feature = "ssr")]
        {
            leptos::prelude::use_context::<Self>().unwrap_or_default()
        }
        #[cfg(not(feature = "ssr"))]
        {
            Self::from_document().unwrap_or_default()
        }
    }

    #[cfg(not(feature = "ssr"))]
    fn from_document() -> Option<Self> {
        #[cfg(feature = "hydrate")]
        {
            let selector = format!("meta[name='{META_NAME}']");
            let tag = leptos::prelude::document()
                .query_selector(&selector)
                .ok()
                .flatten()?;
            serde_json::from_str(&tag.get_attribute("content")?).ok()
        }
        #[cfg(not(feature = "hydrate"))]
        {
            None
        }
    }
}
