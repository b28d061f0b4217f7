//! Names kept once, however many records repeat them: a catalog's model
//! names, its profiles, pools and reasons recur in thousands of rejections,
//! and a record of four numbers costs 16 bytes where four `String`s cost 96
//! before their text.

use std::collections::HashMap;
use std::sync::Arc;

#[derive(Clone, Debug, Default)]
pub struct Interned {
    ids: HashMap<Arc<str>, u32>,
    names: Vec<Arc<str>>,
}

impl Interned {
    /// The number `name` is known by, given one if it is new.
    pub fn id(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = u32::try_from(self.names.len()).unwrap_or(u32::MAX);
        let name: Arc<str> = name.into();
        self.ids.insert(name.clone(), id);
        self.names.push(name);
        id
    }

    /// The number `name` is known by, if it is known.
    pub fn find(&self, name: &str) -> Option<u32> {
        self.ids.get(name).copied()
    }

    pub fn name(&self, id: u32) -> &str {
        self.names.get(id as usize).map_or("", |n| n)
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// Frees what the map over-allocated while it grew.
    pub fn shrink(&mut self) {
        self.ids.shrink_to_fit();
        self.names.shrink_to_fit();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_kept_once_and_read_back_by_its_number() {
        let mut names = Interned::default();
        let a = names.id("llama-70b");
        let b = names.id("mistral");
        assert_eq!(names.id("llama-70b"), a);
        assert_ne!(a, b);
        assert_eq!(names.len(), 2);
        assert_eq!(names.name(b), "mistral");
        assert_eq!(names.find("mistral"), Some(b));
        assert_eq!(names.find("other"), None);
        assert_eq!(names.name(99), "");
    }
}
