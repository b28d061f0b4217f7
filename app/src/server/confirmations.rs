//! One-time confirmations for collecting orphaned weights, kept on the
//! server. A preview issues a token bound to the exact set of paths it showed;
//! a collection is only sent with a token that exists, has not expired, has
//! not been used, was issued for the same scope, and whose set of paths is
//! still exactly what the admin API lists now. The browser never decides.

use std::collections::{BTreeSet, HashMap};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::admin_api::types::OrphanView;
use crate::error::ConsoleError;

/// How long an operator has between reviewing and confirming.
pub const DEFAULT_TTL: Duration = Duration::from_secs(120);

/// The exact set a preview showed: (node, path) pairs.
pub type PathSet = BTreeSet<(String, String)>;

pub fn path_set(orphans: &[OrphanView]) -> PathSet {
    orphans
        .iter()
        .flat_map(|o| o.paths.iter().map(|p| (o.node.clone(), p.clone())))
        .collect()
}

struct Pending {
    scope: String,
    paths: PathSet,
    expires: Instant,
}

pub struct Confirmations {
    ttl: Duration,
    pending: Mutex<HashMap<String, Pending>>,
}

impl std::fmt::Debug for Confirmations {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Confirmations")
            .field("ttl", &self.ttl)
            .finish()
    }
}

impl Confirmations {
    pub fn new(ttl: Duration) -> Self {
        Self {
            ttl,
            pending: Mutex::new(HashMap::new()),
        }
    }

    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    /// Issues a token for collecting `paths` within `scope` (a node id, or
    /// empty for every node).
    pub fn issue(&self, scope: &str, paths: PathSet, now: Instant) -> Result<String, ConsoleError> {
        let mut bytes = [0u8; 16];
        getrandom::fill(&mut bytes)
            .map_err(|e| ConsoleError::Internal(format!("no randomness for a token: {e}")))?;
        let token: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let mut pending = self.lock();
        // Expired entries are dropped here, so the map cannot grow without bound.
        pending.retain(|_, p| p.expires > now);
        pending.insert(
            token.clone(),
            Pending {
                scope: scope.to_string(),
                paths,
                expires: now + self.ttl,
            },
        );
        Ok(token)
    }

    /// Spends `token` (whatever the outcome: a refused token must be reviewed
    /// again anyway) and checks it against what the admin API lists now.
    pub fn redeem(
        &self,
        token: &str,
        scope: &str,
        current: &PathSet,
        now: Instant,
    ) -> Result<(), ConsoleError> {
        let pending = self
            .lock()
            .remove(token)
            .ok_or_else(|| ConsoleError::ConfirmationStale {
                reason: "it was already used, or never issued".into(),
            })?;
        if pending.expires <= now {
            return Err(ConsoleError::ConfirmationStale {
                reason: format!("it expired after {} s", self.ttl.as_secs()),
            });
        }
        if pending.scope != scope {
            return Err(ConsoleError::ConfirmationStale {
                reason: "it was issued for another node".into(),
            });
        }
        if &pending.paths != current {
            return Err(ConsoleError::ListChanged);
        }
        Ok(())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Pending>> {
        self.pending
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(items: &[(&str, &str)]) -> PathSet {
        items
            .iter()
            .map(|(n, p)| (n.to_string(), p.to_string()))
            .collect()
    }

    #[test]
    fn a_token_works_once_for_the_set_it_was_issued_for() {
        let c = Confirmations::new(Duration::from_secs(60));
        let now = Instant::now();
        let s = set(&[("n1", "/a"), ("n2", "/b")]);
        let token = c.issue("", s.clone(), now).expect("token");
        assert_eq!(token.len(), 32);
        assert_eq!(c.redeem(&token, "", &s, now), Ok(()));
        assert!(matches!(
            c.redeem(&token, "", &s, now),
            Err(ConsoleError::ConfirmationStale { .. })
        ));
    }

    #[test]
    fn expired_changed_and_foreign_tokens_are_refused() {
        let c = Confirmations::new(Duration::from_secs(60));
        let now = Instant::now();
        let s = set(&[("n1", "/a")]);
        let t = c.issue("", s.clone(), now).expect("token");
        assert!(matches!(
            c.redeem(&t, "", &s, now + Duration::from_secs(61)),
            Err(ConsoleError::ConfirmationStale { .. })
        ));
        let t = c.issue("", s.clone(), now).expect("token");
        assert_eq!(
            c.redeem(&t, "", &set(&[("n1", "/a"), ("n1", "/new")]), now),
            Err(ConsoleError::ListChanged)
        );
        let t = c.issue("n1", s.clone(), now).expect("token");
        assert!(matches!(
            c.redeem(&t, "", &s, now),
            Err(ConsoleError::ConfirmationStale { .. })
        ));
        assert!(c.redeem("made-up", "", &s, now).is_err());
    }
}
