//! What the console hands to the browser and later believes again (a
//! collection's confirmation, an action's receipt) is signed rather than
//! stored: nothing is kept per request, and every console sharing the key
//! (`--secret-file`) verifies what any of them issued.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use serde::Serialize;
use serde::de::DeserializeOwned;
use sha2::Sha256;

use crate::error::ConsoleError;

type HmacSha256 = Hmac<Sha256>;

/// Shorter keys are refused: the key is all that stands between a forged
/// confirmation and a deletion.
pub const MIN_KEY_BYTES: usize = 32;

#[derive(Clone)]
pub struct Signer {
    key: std::sync::Arc<[u8]>,
    /// The cluster what is signed is about: part of every signature, so
    /// that a confirmation or receipt of one cluster is nothing on another.
    scope: std::sync::Arc<str>,
}

impl std::fmt::Debug for Signer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Signer(..)")
    }
}

impl Signer {
    pub fn new(key: &[u8]) -> Result<Self, String> {
        if key.len() < MIN_KEY_BYTES {
            return Err(format!(
                "the secret is {} bytes; at least {MIN_KEY_BYTES} are needed",
                key.len()
            ));
        }
        Ok(Self {
            key: key.into(),
            scope: "".into(),
        })
    }

    /// The same key, signing for (and believing only what was signed for)
    /// the cluster `id`.
    pub fn scoped(&self, id: &str) -> Self {
        Self {
            key: self.key.clone(),
            scope: id.into(),
        }
    }

    /// A key for this process alone: what it signs is not believed by any
    /// other console, nor after a restart.
    pub fn random() -> Result<Self, String> {
        let mut key = [0u8; MIN_KEY_BYTES];
        getrandom::fill(&mut key).map_err(|e| format!("no randomness for a key: {e}"))?;
        Self::new(&key)
    }

    fn mac(&self, purpose: &str, payload: &[u8]) -> HmacSha256 {
        // HMAC takes a key of any length; `new_from_slice` cannot fail.
        let mut mac = HmacSha256::new_from_slice(&self.key)
            .unwrap_or_else(|_| unreachable!("HMAC accepts every key length"));
        // The purpose is part of what is signed, so a receipt can never be
        // passed off as a confirmation.
        mac.update(self.scope.as_bytes());
        mac.update(&[0]);
        mac.update(purpose.as_bytes());
        mac.update(&[0]);
        mac.update(payload);
        mac
    }

    /// `value` as `PAYLOAD.SIGNATURE`, both base64url, safe in a URL.
    pub fn sign<T: Serialize>(&self, purpose: &str, value: &T) -> Result<String, ConsoleError> {
        let payload = serde_json::to_vec(value)
            .map_err(|e| ConsoleError::Internal(format!("cannot encode what is signed: {e}")))?;
        let tag = self.mac(purpose, &payload).finalize().into_bytes();
        Ok(format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(&payload),
            URL_SAFE_NO_PAD.encode(tag)
        ))
    }

    /// The value signed in `token` for `purpose`, or `None` when the token
    /// was not made by a console with this key, for this purpose.
    pub fn verify<T: DeserializeOwned>(&self, purpose: &str, token: &str) -> Option<T> {
        let (payload, tag) = token.split_once('.')?;
        let payload = URL_SAFE_NO_PAD.decode(payload).ok()?;
        let tag = URL_SAFE_NO_PAD.decode(tag).ok()?;
        self.mac(purpose, &payload).verify_slice(&tag).ok()?;
        serde_json::from_slice(&payload).ok()
    }
}

/// Seconds since the Unix epoch: what a signed expiry is written in, the
/// same on every console.
pub fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_same_key_and_purpose_verify() {
        let a = Signer::new(&[7; 32]).expect("key");
        let b = Signer::new(&[8; 32]).expect("key");
        let token = a.sign("receipt", &("drain", 3)).expect("signed");
        assert_eq!(
            a.verify::<(String, i32)>("receipt", &token),
            Some(("drain".into(), 3))
        );
        assert_eq!(b.verify::<(String, i32)>("receipt", &token), None);
        assert_eq!(a.verify::<(String, i32)>("collect", &token), None);
        let (payload, tag) = token.split_once('.').expect("two parts");
        let forged = URL_SAFE_NO_PAD.encode(br#"["drain",4]"#);
        assert_eq!(
            a.verify::<(String, i32)>("receipt", &format!("{forged}.{tag}")),
            None
        );
        assert_eq!(a.verify::<(String, i32)>("receipt", payload), None);
        assert!(Signer::new(&[1; 31]).is_err());
    }

    #[test]
    fn what_one_cluster_signed_is_nothing_on_another() {
        let key = Signer::new(&[7; 32]).expect("key");
        let eu = key.scoped("eu");
        let token = eu.sign("receipt", &("drain", 3)).expect("signed");
        assert!(eu.verify::<(String, i32)>("receipt", &token).is_some());
        assert_eq!(
            key.scoped("us").verify::<(String, i32)>("receipt", &token),
            None
        );
        assert_eq!(key.verify::<(String, i32)>("receipt", &token), None);
    }
}
