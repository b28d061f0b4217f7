//! The clusters a console shows, as the settings give them: `[[clusters]]`
//! tables in the settings file, or `--cluster id=address` flags for a
//! one-liner. Checked whole at start-up; an error names the entry.

use std::path::PathBuf;

use app::cluster_tag::{ID_LIMIT, is_valid_colour, is_valid_id};
use app::server::admin_client::address::{parse_admin_api_base, redacted};
use serde::Deserialize;

/// One `[[clusters]]` table as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileCluster {
    id: Option<String>,
    label: Option<String>,
    admin_api: Option<String>,
    /// A file holding `user:password` for the admin API, read at start.
    credentials_file: Option<String>,
    colour: Option<String>,
    read_only: Option<bool>,
}

/// One cluster, checked.
#[derive(Clone, PartialEq, Eq)]
pub struct ClusterSetting {
    pub id: String,
    pub label: String,
    /// With the credentials of `credentials_file`, if any, in it: never
    /// shown (see `Debug`).
    pub admin_api: String,
    pub colour: Option<String>,
    pub read_only: bool,
}

impl std::fmt::Debug for ClusterSetting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClusterSetting")
            .field("id", &self.id)
            .field("label", &self.label)
            .field("admin_api", &shown(&self.admin_api))
            .field("colour", &self.colour)
            .field("read_only", &self.read_only)
            .finish()
    }
}

/// The longest label the header has room for.
const LABEL_LIMIT: usize = 64;

/// `id=address`, as `--cluster` takes it.
pub fn parse_flag(text: &str) -> Result<FileCluster, String> {
    let (id, address) = text.split_once('=').ok_or_else(|| {
        format!("--cluster {text:?} is not id=address, like eu=https://10.0.0.5:9090")
    })?;
    Ok(FileCluster {
        id: Some(id.trim().to_string()),
        admin_api: Some(address.trim().to_string()),
        ..FileCluster::default()
    })
}

/// Every entry checked, in order; the error names the first bad one.
pub fn resolve(entries: Vec<FileCluster>) -> Result<Vec<ClusterSetting>, String> {
    let mut checked: Vec<ClusterSetting> = Vec::with_capacity(entries.len());
    for (n, entry) in entries.into_iter().enumerate() {
        let cluster =
            check(entry).map_err(|why| format!("cluster {} of the settings: {why}", n + 1))?;
        if checked.iter().any(|c| c.id == cluster.id) {
            return Err(format!(
                "cluster {}: the id {:?} is given twice; each cluster needs its own",
                n + 1,
                cluster.id
            ));
        }
        checked.push(cluster);
    }
    Ok(checked)
}

fn check(entry: FileCluster) -> Result<ClusterSetting, String> {
    let id = entry.id.map(|i| i.trim().to_string()).unwrap_or_default();
    if !is_valid_id(&id) {
        return Err(format!(
            "the id {id:?} must be 1 to {ID_LIMIT} lowercase letters, digits and inner dashes \
             (it is the word in the cluster's addresses, /c/<id>/)"
        ));
    }
    let address = entry
        .admin_api
        .ok_or_else(|| format!("{id}: admin_api is missing"))?;
    let mut url = parse_admin_api_base(&address).map_err(|e| format!("{id}: {e}"))?;
    if let Some(file) = entry.credentials_file.filter(|f| !f.trim().is_empty()) {
        let path = PathBuf::from(file);
        let text = std::fs::read_to_string(&path).map_err(|e| {
            format!(
                "{id}: cannot read the credentials file {}: {e}",
                path.display()
            )
        })?;
        let (user, password) = text.trim().split_once(':').ok_or_else(|| {
            format!(
                "{id}: the credentials file {} must hold user:password",
                path.display()
            )
        })?;
        if url.set_username(user).is_err() || url.set_password(Some(password)).is_err() {
            return Err(format!(
                "{id}: the admin API address cannot carry credentials"
            ));
        }
    }
    let label = entry
        .label
        .map(|l| l.trim().to_string())
        .unwrap_or_default();
    let label = if label.is_empty() { id.clone() } else { label };
    if label.chars().count() > LABEL_LIMIT || label.chars().any(char::is_control) {
        return Err(format!(
            "{id}: the label must be one line of at most {LABEL_LIMIT} characters"
        ));
    }
    if let Some(colour) = &entry.colour
        && !is_valid_colour(colour)
    {
        return Err(format!(
            "{id}: colour {colour:?} must be written #rgb or #rrggbb"
        ));
    }
    Ok(ClusterSetting {
        id,
        label,
        admin_api: url.to_string(),
        colour: entry.colour,
        read_only: entry.read_only.unwrap_or(false),
    })
}

fn shown(address: &str) -> String {
    parse_admin_api_base(address)
        .map(|u| redacted(&u))
        .unwrap_or_else(|_| "an address".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: &str, address: &str) -> FileCluster {
        FileCluster {
            id: Some(id.into()),
            admin_api: Some(address.into()),
            ..FileCluster::default()
        }
    }

    #[test]
    fn a_flag_is_id_equals_address() {
        let c = resolve(vec![parse_flag("eu=10.0.0.5:9090").expect("parses")]).expect("valid");
        assert_eq!(c[0].id, "eu");
        assert_eq!(c[0].label, "eu");
        assert_eq!(c[0].admin_api, "http://10.0.0.5:9090/");
        assert!(parse_flag("eu").is_err());
    }

    #[test]
    fn every_error_names_its_entry() {
        let err =
            resolve(vec![entry("eu", "10.0.0.5:9090"), entry("EU!", "x:1")]).expect_err("bad id");
        assert!(err.contains("cluster 2"), "{err}");
        let err = resolve(vec![entry("eu", "a:1"), entry("eu", "b:1")]).expect_err("twice");
        assert!(err.contains("twice"), "{err}");
        let err = resolve(vec![entry("eu", "ftp://a")]).expect_err("scheme");
        assert!(err.contains("eu"), "{err}");
        let mut coloured = entry("eu", "a:1");
        coloured.colour = Some("red;background:url(x)".into());
        assert!(resolve(vec![coloured]).is_err());
        let mut long = entry("eu", "a:1");
        long.label = Some("x".repeat(65));
        assert!(resolve(vec![long]).is_err());
    }

    #[test]
    fn credentials_come_from_their_file_and_are_never_shown() {
        let dir = std::env::temp_dir().join(format!("llmgw-cluster-cred-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let file = dir.join("eu.credentials");
        std::fs::write(&file, "ops:s3cret\n").expect("write");
        let mut e = entry("eu", "https://admin.example:9090");
        e.credentials_file = Some(file.display().to_string());
        let c = resolve(vec![e]).expect("valid");
        assert_eq!(c[0].admin_api, "https://ops:s3cret@admin.example:9090/");
        assert!(!format!("{c:?}").contains("s3cret"));
        let mut missing = entry("eu", "https://admin.example:9090");
        missing.credentials_file = Some(dir.join("none").display().to_string());
        assert!(
            resolve(vec![missing])
                .expect_err("missing")
                .contains("credentials file")
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
