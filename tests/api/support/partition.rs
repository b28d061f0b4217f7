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
    /// Where a client's bytes cut the network (see [`Trigger`]).
    trigger: Arc<Mutex<Option<Trigger>>>,
    accepting: tokio::task::JoinHandle<()>,
}

impl Partition {
    /// A proxy to `127.0.0.1:to`, on a free port of its own.
    pub async fn to(to: u16) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("a port");
        let port = listener.local_addr().expect("bound").port();
        let (cut, _) = watch::channel(false);
        let trigger = Arc::new(Mutex::new(None::<Trigger>));
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
        *self.trigger.lock().expect("not poisoned") = Some(Trigger {
            after: None,
            at: bytes.to_vec(),
            before: true,
        });
    }

    /// Cuts the network right after a client has sent `bytes`, once it
    /// has sent `first`: the server has them, its answer waits.
    pub fn cut_after(&self, first: &[u8], bytes: &[u8]) {
        *self.trigger.lock().expect("not poisoned") = Some(Trigger {
            after: Some(first.to_vec()),
            at: bytes.to_vec(),
            before: false,
        });
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

/// Bytes of a client that cut the network: `at`, once `after` (if any)
/// has been sent; `before` or after `at` itself is sent on.
struct Trigger {
    after: Option<Vec<u8>>,
    at: Vec<u8>,
    before: bool,
}

fn contains(chunk: &[u8], bytes: &[u8]) -> bool {
    chunk.windows(bytes.len()).any(|w| w == bytes)
}

/// Copies `from` to `to` while the network is whole; what is read while
/// it is cut waits, and nothing more is read, until it heals.
async fn carry(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    cut: watch::Sender<bool>,
    trigger: Option<Arc<Mutex<Option<Trigger>>>>,
) {
    let mut whole = cut.subscribe();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match from.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let mut cut_after = false;
        if let Some(trigger) = &trigger {
            let mut armed = trigger.lock().expect("not poisoned");
            if let Some(t) = armed.as_mut() {
                if t.after
                    .as_deref()
                    .is_some_and(|first| contains(&buf[..n], first))
                {
                    t.after = None;
                } else if t.after.is_none() && contains(&buf[..n], &t.at) {
                    if t.before {
                        cut.send_replace(true);
                    } else {
                        cut_after = true;
                    }
                    *armed = None;
                }
            }
        }
        if whole.wait_for(|cut| !cut).await.is_err() || to.write_all(&buf[..n]).await.is_err() {
            break;
        }
        if cut_after {
            cut.send_replace(true);
        }
    }
    let _ = to.shutdown().await;
}
