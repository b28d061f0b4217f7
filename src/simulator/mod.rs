//! A stand-in for the llmgw admin API: the demo's cluster, and the real HTTP
//! server every test talks to. It serves the same wire types the console's
//! client decodes, so the two cannot drift apart unnoticed.

pub mod cluster;
pub mod default_cluster;
pub mod generated;
pub mod routes;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

pub use cluster::{AuditEntry, Cluster, SimError};
use tokio::net::TcpListener;

/// A shared, mutable simulated cluster. Cheap to clone.
#[derive(Clone)]
pub struct Simulator {
    cluster: Arc<Mutex<Cluster>>,
}

impl Simulator {
    pub fn new(cluster: Cluster) -> Self {
        Self {
            cluster: Arc::new(Mutex::new(cluster)),
        }
    }

    /// The hand-made demo cluster.
    pub fn demo() -> Self {
        Self::new(default_cluster::build())
    }

    /// Access to the cluster; a poisoned lock is recovered, since the state
    /// is still consistent after any panic between whole mutations.
    pub fn cluster(&self) -> MutexGuard<'_, Cluster> {
        self.cluster
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// How long a draining node takes per replica it moves.
    pub fn set_drain_step(&self, step: Duration) {
        self.cluster().drain_step = step;
    }

    pub fn audit(&self) -> Vec<AuditEntry> {
        self.cluster().audit.clone()
    }

    /// Serves the admin API on `listener` until the task is dropped.
    pub async fn serve(self, listener: TcpListener) -> std::io::Result<()> {
        axum::serve(listener, routes::router(self)).await
    }

    /// Binds `addr` and serves in the background; returns the bound address.
    pub async fn spawn(self, addr: SocketAddr) -> std::io::Result<SocketAddr> {
        let listener = TcpListener::bind(addr).await?;
        let bound = listener.local_addr()?;
        tokio::spawn(async move {
            if let Err(e) = self.serve(listener).await {
                tracing::error!(error = %e, "the simulated admin API stopped");
            }
        });
        Ok(bound)
    }
}
