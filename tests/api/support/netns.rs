//! A network of a server's own: a Linux network namespace reached from the
//! tests' over two links (veth pairs), either of which the test can cut. A
//! cut link is down, so what is sent over it is dropped: nothing answers
//! and nothing is refused, and a session across it ends only when TCP's
//! keepalives give up, as across a real partition. (The proxy of
//! `partition` cannot show that: it is a live peer, and its kernel answers
//! the keepalives itself.)
//!
//! Making one needs root (`ip netns`); `ip` is iproute2's, which
//! `./scripts/bootstrap.sh test` installs.

use std::process::Command;

/// Runs `ip` with `args`; panics with its error when it fails.
fn ip(args: &[&str]) {
    let out = Command::new("ip")
        .args(args)
        .output()
        .expect("ip (iproute2) runs: ./scripts/bootstrap.sh test installs it");
    assert!(
        out.status.success(),
        "ip {}: {} (a network namespace needs root)",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr).trim()
    );
}

/// One of the two links: its end outside, and the addresses of both ends.
pub struct Link {
    outside: String,
    /// The server's address on this link.
    pub server: String,
}

pub struct Network {
    name: String,
    pub links: [Link; 2],
}

impl Network {
    /// A namespace with its two links up, named after this process so that
    /// two runs of the tests do not meet. Its addresses are from the
    /// range set aside for network tests (198.18.0.0/15).
    pub fn new() -> Self {
        let pid = std::process::id();
        let name = format!("llmgw-{pid}");
        ip(&["netns", "add", &name]);
        let mut network = Self {
            name,
            links: [0, 1].map(|i| Link {
                outside: format!("lgw{pid}{i}o"),
                server: String::new(),
            }),
        };
        ip(&["-n", &network.name, "link", "set", "lo", "up"]);
        // Two /30s of their own, out of what the process's id picks: the
        // outside end .2, the server's .1.
        let prefix = format!("198.{}.{}", 18 + (pid >> 8) % 2, pid % 256);
        for (i, link) in network.links.iter_mut().enumerate() {
            let inside = format!("lgw{pid}{i}i");
            let at = |host: usize| format!("{prefix}.{}", i * 4 + host);
            ip(&[
                "link",
                "add",
                &link.outside,
                "type",
                "veth",
                "peer",
                "name",
                &inside,
            ]);
            ip(&["link", "set", &inside, "netns", &network.name]);
            ip(&[
                "addr",
                "add",
                &format!("{}/30", at(2)),
                "dev",
                &link.outside,
            ]);
            ip(&["link", "set", &link.outside, "up"]);
            ip(&[
                "-n",
                &network.name,
                "addr",
                "add",
                &format!("{}/30", at(1)),
                "dev",
                &inside,
            ]);
            ip(&["-n", &network.name, "link", "set", &inside, "up"]);
            link.server = at(1);
        }
        network
    }

    /// `program` to run inside the namespace: `ip netns exec` replaces
    /// itself with it, so that the process started is the program's own.
    pub fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut command = Command::new("ip");
        command.args(["netns", "exec", &self.name]).arg(program);
        command
    }

    /// Cuts `link`: from now on what either side sends over it is lost.
    pub fn cut(&self, link: usize) {
        ip(&["link", "set", &self.links[link].outside, "down"]);
    }
}

impl Drop for Network {
    fn drop(&mut self) {
        // A veth pair goes with either end; the namespace with its name.
        for link in &self.links {
            let _ = Command::new("ip")
                .args(["link", "del", &link.outside])
                .output();
        }
        let _ = Command::new("ip")
            .args(["netns", "del", &self.name])
            .output();
    }
}
