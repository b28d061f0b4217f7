//! One file per page.

pub mod audit;
pub mod events;
pub mod fleet;
pub mod jump;
pub mod models;
pub mod node;
pub mod nodes;
pub mod overview;
pub mod placement;
pub mod replicas;
pub mod wall;
pub mod wall_setup;
pub mod weights;

pub use audit::AuditPage;
pub use events::EventsPage;
pub use fleet::FleetPage;
pub use jump::JumpPage;
pub use models::ModelsPage;
pub use node::NodePage;
pub use nodes::NodesPage;
pub use overview::OverviewPage;
pub use placement::PlacementPage;
pub use replicas::ReplicasPage;
pub use wall::WallPage;
pub use wall_setup::WallSetupPage;
pub use weights::WeightsPage;
