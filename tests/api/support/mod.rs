//! What the tests share: the console and simulator in-process or as the
//! release binary, real databases, networks that can be cut, reading pages
//! by their structure, and waiting for what takes time.

pub mod databases;
pub mod helpers;
pub mod html;
pub mod journal_steps;
pub mod netns;
pub mod partition;
pub mod poll;
pub mod process;
