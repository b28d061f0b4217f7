//! Answers only to the names the console is known by. A hostile site can
//! point a name of its own at 127.0.0.1 (DNS rebinding) and then read and
//! act through the console as if it were the same origin; the browser still
//! sends that name in `Host`, so a request for a name not on the list is
//! refused before anything is rendered or changed.

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::sync::Arc;

/// The host names (without port) the console answers to.
#[derive(Clone, Debug)]
pub struct AllowedHosts(Arc<BTreeSet<String>>);

impl AllowedHosts {
    /// Loopback names and the listen address always; `extra` from
    /// `--allowed-host` (a name, or a name with a port, which is ignored).
    pub fn new(listen: SocketAddr, extra: &[String]) -> Self {
        let mut names: BTreeSet<String> = ["localhost", "127.0.0.1", "[::1]"]
            .into_iter()
            .map(str::to_string)
            .collect();
        if !listen.ip().is_unspecified() {
            names.insert(host_of(&listen.to_string()));
        }
        names.extend(extra.iter().map(|h| host_of(h)));
        Self(Arc::new(names))
    }

    pub fn allows(&self, host_header: &str) -> bool {
        self.0.contains(&host_of(host_header))
    }

    pub fn names(&self) -> impl Iterator<Item = &String> {
        self.0.iter()
    }
}

/// `Host: name:port` without the port, lower-case; `[v6]:port` keeps its
/// brackets.
fn host_of(value: &str) -> String {
    let value = value.trim().to_ascii_lowercase();
    if value.starts_with('[') {
        return value
            .split_once(']')
            .map(|(ip, _)| format!("{ip}]"))
            .unwrap_or(value);
    }
    match value.rsplit_once(':') {
        Some((name, port)) if port.chars().all(|c| c.is_ascii_digit()) => name.to_string(),
        _ => value,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_the_listen_address_and_named_hosts_are_allowed() {
        let hosts = AllowedHosts::new(
            "10.0.0.7:8080".parse().expect("addr"),
            &["console.ops.example".into()],
        );
        for ok in [
            "localhost:8080",
            "127.0.0.1:8080",
            "[::1]:8080",
            "10.0.0.7:8080",
            "Console.Ops.Example",
            "console.ops.example:443",
        ] {
            assert!(hosts.allows(ok), "{ok}");
        }
        for refused in ["evil.example", "evil.example:8080", "", "127.0.0.2"] {
            assert!(!hosts.allows(refused), "{refused}");
        }
    }

    #[test]
    fn an_unspecified_listen_address_is_not_a_name() {
        let hosts = AllowedHosts::new("0.0.0.0:8080".parse().expect("addr"), &[]);
        assert!(!hosts.allows("0.0.0.0:8080"));
        assert!(hosts.allows("localhost"));
    }
}
