//! A stand-in for the llmgw admin API: the demo's cluster, and the real HTTP
//! server every test talks to. It serves the same wire types the console's
//! client decodes, so the two cannot drift apart unnoticed.

pub mod calls;
pub mod cluster;
pub mod default_cluster;
pub mod faults;
pub mod generated;
pub mod routes;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};

use calls::Calls;
pub use cluster::{AuditEntry, Cluster, SimError, Spec};
use faults::{Fault, Faults, FaultyListener};
use tokio::net::TcpListener;

/// A shared, mutable simulated cluster. Cheap to clone.
#[derive(Clone)]
pub struct Simulator {
    cluster: Arc<Mutex<Cluster>>,
    /// Builds the cluster as it was at the start, for [`Self::reset`].
    build: Arc<dyn Fn() -> Cluster + Send + Sync>,
    faults: Faults,
    calls: Calls,
}

impl Simulator {
    /// A simulator of the cluster `build` makes, now and on every reset.
    pub fn built_by(build: impl Fn() -> Cluster + Send + Sync + 'static) -> Self {
        Self {
            cluster: Arc::new(Mutex::new(build())),
            build: Arc::new(build),
            faults: Faults::default(),
            calls: Calls::default(),
        }
    }

    /// The hand-made demo cluster.
    pub fn demo() -> Self {
        Self::built_by(default_cluster::build)
    }

    /// Puts the cluster back as it was at the start, with no fault, so that
    /// end-to-end tests do not depend on what the one before them changed.
    pub fn reset(&self) {
        *self.cluster() = (self.build)();
        self.faults.set(Fault::None, None);
    }

    /// How many times each admin API path was asked for.
    pub fn calls(&self) -> &Calls {
        &self.calls
    }

    /// The switch that makes this admin API fail on purpose.
    pub fn faults(&self) -> &Faults {
        &self.faults
    }

    /// Access to the cluster; a poisoned lock is recovered, since the state
    /// is still consistent after any panic between whole mutations.
    pub fn cluster(&self) -> MutexGuard<'_, Cluster> {
        self.cluster
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub fn audit(&self) -> Vec<AuditEntry> {
        self.cluster().audit.clone()
    }

    /// Serves the admin API on `listener` until the task is dropped.
    pub async fn serve(self, listener: TcpListener) -> std::io::Result<()> {
        let faults = self.faults.clone();
        axum::serve(FaultyListener::new(listener, faults)?, routes::router(self)).await
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
