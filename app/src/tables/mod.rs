//! Every table the console shows: its row type, its columns (header, cell,
//! sort key, filter text) and the facets it answers to, and the table's own
//! widgets where it has any. The pages place them; the table model they are
//! built on (the view in the URL, paging, columns) is `table/`.

pub mod audit;
pub mod models;
pub mod node_rejections;
pub mod node_replicas;
pub mod nodes;
pub mod placement_rejections;
pub mod replicas;
pub mod weights;

pub use node_rejections::RejectionHere;
pub use node_replicas::ReplicaHere;
pub use nodes::NodesTable;
pub use placement_rejections::{LiveNode, RejectionRow};
pub use weights::OrphanTable;
