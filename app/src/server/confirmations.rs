//! Confirmations for collecting orphaned weights. A preview, asked for
//! explicitly, signs what the operator is shown: the scope, a digest of the
//! exact set of paths, and an expiry. A collection is only sent with a
//! confirmation this console's key signed, not expired, for the same scope,
//! whose set is still exactly what the admin API lists now. Nothing is
//! stored: memory does not grow with previews, and any console sharing the
//! key verifies it. Once a collection has gone through, its files are no
//! longer listed, so the same confirmation no longer matches.

use std::collections::BTreeSet;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::signing::Signer;
use crate::admin_api::types::OrphanView;
use crate::error::ConsoleError;

/// How long an operator has between reviewing and confirming.
pub const DEFAULT_TTL: Duration = Duration::from_secs(120);

const PURPOSE: &str = "collect";

/// The exact set a preview showed: (node, path) pairs.
pub type PathSet = BTreeSet<(String, String)>;

pub fn path_set(orphans: &[OrphanView]) -> PathSet {
    orphans
        .iter()
        .flat_map(|o| o.paths.iter().map(|p| (o.node.clone(), p.clone())))
        .collect()
}

/// A fixed-size name for a set: the confirmation carries this, not the set.
fn digest(paths: &PathSet) -> String {
    let mut hash = Sha256::new();
    for (node, path) in paths {
        // Lengths first, so no two different sets write the same bytes.
        for part in [node, path] {
            hash.update((part.len() as u64).to_le_bytes());
            hash.update(part.as_bytes());
        }
    }
    hash.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

#[derive(Debug, Serialize, Deserialize)]
struct Claim {
    /// A node id, or empty for every node.
    scope: String,
    set: String,
    /// Unix seconds.
    expires: u64,
}

/// What a confirmation says, once verified.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verified {
    pub expires_in: Duration,
    /// Whether the set is still the one the operator reviewed.
    pub unchanged: bool,
}

#[derive(Clone, Debug)]
pub struct Confirmations {
    signer: Signer,
    ttl: Duration,
}

impl Confirmations {
    pub fn new(signer: Signer, ttl: Duration) -> Self {
        Self { signer, ttl }
    }

    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    /// The same confirmations, for the cluster `id` only.
    pub fn scoped(&self, id: &str) -> Self {
        Self {
            signer: self.signer.scoped(id),
            ttl: self.ttl,
        }
    }

    /// Signs a confirmation for collecting `paths` within `scope` (a node
    /// id, or empty for every node); `now` in Unix seconds.
    pub fn issue(&self, scope: &str, paths: &PathSet, now: u64) -> Result<String, ConsoleError> {
        self.signer.sign(
            PURPOSE,
            &Claim {
                scope: scope.to_string(),
                set: digest(paths),
                expires: now + self.ttl.as_secs(),
            },
        )
    }

    /// Checks `token` for `scope` against what the admin API lists now.
    /// Checks what `token` itself says (signed here, not expired, for
    /// `scope`) before anything is listed to compare it with.
    pub fn check(&self, token: &str, scope: &str, now: u64) -> Result<Checked, ConsoleError> {
        let claim: Claim =
            self.signer
                .verify(PURPOSE, token)
                .ok_or_else(|| ConsoleError::ConfirmationStale {
                    reason: "it was not issued by this console".into(),
                })?;
        if claim.expires <= now {
            return Err(ConsoleError::ConfirmationStale {
                reason: format!("it expired after {} s", self.ttl.as_secs()),
            });
        }
        if claim.scope != scope {
            return Err(ConsoleError::ConfirmationStale {
                reason: "it was issued for another node".into(),
            });
        }
        Ok(Checked(claim))
    }

    pub fn verify(
        &self,
        token: &str,
        scope: &str,
        current: &PathSet,
        now: u64,
    ) -> Result<Verified, ConsoleError> {
        Ok(self.check(token, scope, now)?.against(current, now))
    }

    pub fn redeem(
        &self,
        token: &str,
        scope: &str,
        current: &PathSet,
        now: u64,
    ) -> Result<(), ConsoleError> {
        if self.verify(token, scope, current, now)?.unchanged {
            Ok(())
        } else {
            Err(ConsoleError::ListChanged)
        }
    }
}

/// A confirmation this console issued, unexpired, for the scope asked.
#[derive(Debug)]
pub struct Checked(Claim);

impl Checked {
    /// Whether `current` is still the set it was issued for.
    pub fn against(&self, current: &PathSet, now: u64) -> Verified {
        Verified {
            expires_in: Duration::from_secs(self.0.expires.saturating_sub(now)),
            unchanged: self.0.set == digest(current),
        }
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

    fn confirmations(key: u8) -> Confirmations {
        Confirmations::new(
            Signer::new(&[key; 32]).expect("key"),
            Duration::from_secs(60),
        )
    }

    #[test]
    fn a_confirmation_holds_for_the_set_and_scope_it_was_issued_for() {
        let c = confirmations(1);
        let s = set(&[("n1", "/a"), ("n2", "/b")]);
        let token = c.issue("", &s, 1000).expect("token");
        assert_eq!(c.redeem(&token, "", &s, 1000), Ok(()));
        // Another console with the same key believes it too.
        assert_eq!(confirmations(1).redeem(&token, "", &s, 1059), Ok(()));
    }

    #[test]
    fn expired_changed_foreign_and_forged_confirmations_are_refused() {
        let c = confirmations(1);
        let s = set(&[("n1", "/a")]);
        let t = c.issue("", &s, 1000).expect("token");
        assert!(matches!(
            c.redeem(&t, "", &s, 1060),
            Err(ConsoleError::ConfirmationStale { .. })
        ));
        assert_eq!(
            c.redeem(&t, "", &set(&[("n1", "/a"), ("n1", "/new")]), 1000),
            Err(ConsoleError::ListChanged)
        );
        // A path moved from one node to another is another set.
        assert_eq!(
            c.redeem(&t, "", &set(&[("n2", "/a")]), 1000),
            Err(ConsoleError::ListChanged)
        );
        let t = c.issue("n1", &s, 1000).expect("token");
        assert!(matches!(
            c.redeem(&t, "", &s, 1000),
            Err(ConsoleError::ConfirmationStale { .. })
        ));
        assert!(confirmations(2).redeem(&t, "n1", &s, 1000).is_err());
        assert!(c.redeem("made-up", "", &s, 1000).is_err());
    }
}
