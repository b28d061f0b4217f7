//! A network the test can cut: a TCP proxy between a console and its
//! database whose connections, once cut, go silent both ways (nothing
//! forwarded, nothing closed, as in a partition) and carry on where they
//! were when it heals.

use std::sync::{Arc, Mutex};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

pub struct Partition {
    pub port: u16,
    cut: watch::Sender<bool>,
    /// Bytes a client is about to send that cut the network first, so a
    /// test cuts exactly there (a transaction's `COMMIT`).
    trigger: Arc<Mutex<Option<Vec<u8>>>>,
    accepting: tokio::task::JoinHandle<()>,
}

impl Partition {
    /// A proxy to `127.0.0.1:to`, on a free port of its own.
    pub async fn to(to: u16) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("a port");
        let port = listener.local_addr().expect("bound").port();
        let (cut, _) = watch::channel(false);
        let trigger = Arc::new(Mutex::new(None::<Vec<u8>>));
        let (sender, armed) = (cut.clone(), trigger.clone());
        let accepting = tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let Ok(server) = TcpStream::connect(("127.0.0.1", to)).await else {
                    continue;
                };
                let (client_read, client_write) = client.into_split();
                let (server_read, server_write) = server.into_split();
                tokio::spawn(carry(
                    client_read,
                    server_write,
                    sender.clone(),
                    Some(armed.clone()),
                ));
                tokio::spawn(carry(server_read, client_write, sender.clone(), None));
            }
        });
        Self {
            port,
            cut,
            trigger,
            accepting,
        }
    }

    /// Cuts the network as soon as a client is about to send `bytes`,
    /// which then wait with everything else.
    pub fn cut_before(&self, bytes: &[u8]) {
        *self.trigger.lock().expect("not poisoned") = Some(bytes.to_vec());
    }

    pub fn cut(&self) {
        self.cut.send_replace(true);
    }

    pub fn is_cut(&self) -> bool {
        *self.cut.borrow()
    }

    pub fn heal(&self) {
        self.cut.send_replace(false);
    }
}

impl Drop for Partition {
    fn drop(&mut self) {
        self.accepting.abort();
    }
}

/// Copies `from` to `to` while the network is whole; what is read while
/// it is cut waits, and nothing more is read, until it heals.
async fn carry(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    cut: watch::Sender<bool>,
    trigger: Option<Arc<Mutex<Option<Vec<u8>>>>>,
) {
    let mut whole = cut.subscribe();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match from.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        if let Some(trigger) = &trigger {
            let mut armed = trigger.lock().expect("not poisoned");
            let hit = armed
                .as_deref()
                .is_some_and(|t| buf[..n].windows(t.len()).any(|w| w == t));
            if hit {
                *armed = None;
                cut.send_replace(true);
            }
        }
        if whole.wait_for(|cut| !cut).await.is_err() || to.write_all(&buf[..n]).await.is_err() {
            break;
        }
    }
    let _ = to.shutdown().await;
}
