//! Who a call to the admin API is made for, and the permission a change
//! needs. The client's mutating calls take a [`ChangeAuthorized`] instead of
//! a bare actor, and the only way to get one runs every check a change needs
//! (read-only mode, a known user when one is required) and then writes the
//! change's audit record, so a server function added later can skip
//! neither.

use crate::error::ConsoleError;
use crate::server::audit::AuditWritten;

/// Who is behind a request, sent as `X-Llmgw-Actor` and stored by the server
/// beside what it changes. Never blank.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Actor(String);

impl Actor {
    /// Used when nothing better is known about who is asking.
    pub const FALLBACK: &'static str = "llmgw-console";

    /// Keeps a name only if it can travel in a header and is not blank.
    pub fn new(name: &str) -> Option<Self> {
        let name = name.trim();
        let printable = name.chars().all(|c| c.is_ascii_graphic() || c == ' ');
        (!name.is_empty() && name.len() <= 200 && printable).then(|| Self(name.to_string()))
    }

    pub fn console() -> Self {
        Self(Self::FALLBACK.to_string())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for Actor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Who is asking, as far as the console can tell.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identity {
    /// The operator, as named by a trusted proxy's header.
    pub user: Option<Actor>,
    /// The address the request came from, when known.
    pub peer: Option<std::net::IpAddr>,
}

impl Identity {
    /// The name llmgw records beside a change: the user, or the console
    /// with the caller's address. Never blank.
    pub fn actor(&self) -> Actor {
        if let Some(user) = &self.user {
            return user.clone();
        }
        self.peer
            .and_then(|ip| Actor::new(&format!("{} ({ip})", Actor::FALLBACK)))
            .unwrap_or_else(Actor::console)
    }
}

/// What the console's settings say about changes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChangePolicy {
    /// Refuse every change.
    pub read_only: bool,
    /// Refuse a change that comes without a user.
    pub require_user: bool,
}

/// The console's settings allow a change on behalf of `actor`; it may be
/// sent once its audit record is written.
#[derive(Debug)]
pub struct ChangePermitted {
    actor: Actor,
}

impl ChangePermitted {
    pub fn check(policy: ChangePolicy, who: &Identity) -> Result<Self, ConsoleError> {
        if policy.read_only {
            return Err(ConsoleError::ReadOnly);
        }
        if policy.require_user && who.user.is_none() {
            return Err(ConsoleError::UserRequired);
        }
        Ok(Self { actor: who.actor() })
    }

    pub fn actor(&self) -> &Actor {
        &self.actor
    }

    /// The change, now that its record is written.
    pub fn recorded(self, _written: AuditWritten) -> ChangeAuthorized {
        ChangeAuthorized { actor: self.actor }
    }
}

/// A change may be sent, on behalf of `actor`: permitted, and recorded.
#[derive(Debug)]
pub struct ChangeAuthorized {
    actor: Actor,
}

impl ChangeAuthorized {
    pub fn actor(&self) -> &Actor {
        &self.actor
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn anonymous() -> Identity {
        Identity {
            user: None,
            peer: Some("10.1.2.3".parse().expect("ip")),
        }
    }

    #[test]
    fn actors_are_never_blank() {
        assert!(Actor::new("  ").is_none());
        assert!(Actor::new("bad\nname").is_none());
        assert_eq!(
            Actor::new(" ana ").map(|a| a.to_string()),
            Some("ana".into())
        );
        assert_eq!(Actor::console().as_str(), "llmgw-console");
    }

    #[test]
    fn each_policy_refuses_what_it_says() {
        let open = ChangePolicy::default();
        let change = ChangePermitted::check(open, &anonymous()).expect("allowed");
        assert_eq!(change.actor().as_str(), "llmgw-console (10.1.2.3)");
        let read_only = ChangePolicy {
            read_only: true,
            ..open
        };
        assert_eq!(
            ChangePermitted::check(read_only, &anonymous()).err(),
            Some(ConsoleError::ReadOnly)
        );
        let named = ChangePolicy {
            require_user: true,
            ..open
        };
        assert_eq!(
            ChangePermitted::check(named, &anonymous()).err(),
            Some(ConsoleError::UserRequired)
        );
        let ana = Identity {
            user: Actor::new("ana"),
            ..anonymous()
        };
        let change = ChangePermitted::check(named, &ana).expect("a user");
        assert_eq!(change.actor().as_str(), "ana");
    }
}
