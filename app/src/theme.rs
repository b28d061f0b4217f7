//! Light, dark, or whatever the system prefers. The choice lives in a
//! cookie, so the server renders the page in it from the first byte (no
//! flash of the wrong theme), and it is switched by a plain link, so it works
//! without JavaScript.

use serde::{Deserialize, Serialize};

/// The cookie that keeps an operator's choice; absent means "follow the system".
pub const COOKIE: &str = "llmgw_theme";

/// Where the switch lives: `/theme/<choice>?back=<the page>`.
pub const SWITCH_PATH: &str = "/theme";

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Theme {
    /// The system's `prefers-color-scheme`.
    #[default]
    Auto,
    Light,
    Dark,
}

impl Theme {
    pub fn parse(word: &str) -> Option<Self> {
        match word {
            "auto" => Some(Self::Auto),
            "light" => Some(Self::Light),
            "dark" => Some(Self::Dark),
            _ => None,
        }
    }

    pub fn word(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::Light => "light",
            Self::Dark => "dark",
        }
    }

    /// The value of `<html data-theme>`: none when the system decides.
    pub fn attribute(self) -> Option<&'static str> {
        (self != Self::Auto).then(|| self.word())
    }

    /// What one click on the switch chooses: auto, then dark, then light.
    pub fn next(self) -> Self {
        match self {
            Self::Auto => Self::Dark,
            Self::Dark => Self::Light,
            Self::Light => Self::Auto,
        }
    }

    /// The choice in a request's `Cookie` header; anything unknown is auto.
    pub fn from_cookie_header(header: &str) -> Self {
        header
            .split(';')
            .filter_map(|pair| pair.trim().split_once('='))
            .find(|(name, _)| *name == COOKIE)
            .and_then(|(_, value)| Self::parse(value.trim()))
            .unwrap_or_default()
    }

    /// The choice of the viewer whose request is being rendered.
    #[cfg(feature = "ssr")]
    pub fn of_request() -> Self {
        leptos::prelude::use_context::<axum::http::request::Parts>()
            .and_then(|parts| {
                let cookies = parts.headers.get(axum::http::header::COOKIE)?;
                Some(Self::from_cookie_header(cookies.to_str().ok()?))
            })
            .unwrap_or_default()
    }

    /// The `Set-Cookie` value that keeps this choice for a year (auto
    /// forgets it).
    pub fn set_cookie(self) -> String {
        match self {
            Self::Auto => format!("{COOKIE}=; Path=/; Max-Age=0; SameSite=Lax; HttpOnly"),
            chosen => format!(
                "{COOKIE}={}; Path=/; Max-Age=31536000; SameSite=Lax; HttpOnly",
                chosen.word()
            ),
        }
    }

    /// The link that switches to the next theme and comes back to `here`.
    pub fn switch_href(self, here: &str) -> String {
        format!(
            "{SWITCH_PATH}/{}?back={}",
            self.next().word(),
            crate::urls::encode_component(here)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cookie_names_the_theme_and_anything_else_is_auto() {
        assert_eq!(
            Theme::from_cookie_header("a=1; llmgw_theme=dark"),
            Theme::Dark
        );
        assert_eq!(
            Theme::from_cookie_header("llmgw_theme=light;b=2"),
            Theme::Light
        );
        assert_eq!(Theme::from_cookie_header("llmgw_theme=purple"), Theme::Auto);
        assert_eq!(Theme::from_cookie_header("xllmgw_theme=dark"), Theme::Auto);
        assert_eq!(Theme::from_cookie_header(""), Theme::Auto);
    }

    #[test]
    fn one_click_goes_round_every_theme() {
        let mut theme = Theme::Auto;
        let mut seen = vec![];
        for _ in 0..3 {
            theme = theme.next();
            seen.push(theme);
        }
        assert_eq!(seen, [Theme::Dark, Theme::Light, Theme::Auto]);
        assert_eq!(
            Theme::Light.switch_href("/nodes?q=h100 x"),
            "/theme/auto?back=%2Fnodes%3Fq%3Dh100%20x"
        );
        assert!(Theme::Auto.set_cookie().contains("Max-Age=0"));
        assert!(Theme::Dark.set_cookie().starts_with("llmgw_theme=dark;"));
    }
}
