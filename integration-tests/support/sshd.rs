//! A real OpenSSH server on loopback for the tests that reach remote hosts.
//! `Sshd` runs `/usr/sbin/sshd` on 127.0.0.1 with a host key, config and log
//! of its own in a temp dir, and makes one throwaway local account per host
//! label; its client config (`ssh -F`) reaches each account by the label as a
//! host alias, checking the host key. It plays a host that goes away
//! (`stop`, `start_again`) or stops answering (`freeze`, `thaw`). On drop it
//! kills the server, its connections and every process of its accounts, then
//! deletes the accounts. It needs root and openssh-server.

mod accounts;
mod config;
mod procs;
mod session;

pub use accounts::Account;
pub use session::SshSession;

use super::DEADLINE;
use super::process::{BIN, run_with_deadline, set_mode};
use nix::sys::signal::Signal;
use std::ffi::{OsStr, OsString};
use std::fs::{self, OpenOptions};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};
use tempfile::TempDir;

/// The server. sshd re-executes itself for every connection, so it must be
/// started by its absolute path.
const SSHD: &str = "/usr/sbin/sshd";

/// sshd's privilege separation dir, which it expects to exist (the package's
/// service unit makes it at boot).
const PRIVSEP_DIR: &str = "/run/sshd";

/// How many free ports the first start tries when another process takes the
/// port between the probe and sshd's bind.
const PORT_TRIES: usize = 10;

/// A running (or stopped, or frozen) sshd with its accounts.
pub struct Sshd {
    listener: Option<Child>,
    port: u16,
    accounts: Vec<Account>,
    /// The processes `freeze` stopped, for `thaw`.
    frozen: Vec<procs::Proc>,
    /// While stopped: a socket bound to the port but not listening, so
    /// connections are refused and the kernel hands the port to no other
    /// socket (neither `connect` nor a bind to port 0 picks it).
    port_hold: Option<OwnedFd>,
    /// The binary under test, where the accounts can run it.
    bin: OnceLock<PathBuf>,
    // Last, so it is removed after the accounts: it holds their homes and
    // every file of the harness.
    dir: TempDir,
}

/// Why a start of the listener failed.
enum Launch {
    /// The port is in use by another socket.
    PortTaken,
    Failed(String),
}

impl Sshd {
    /// Makes an account per label (1 to 12 lower-case letters and digits,
    /// each also the host alias: `hosta`, `hostb`), the keys and configs, and
    /// starts sshd on a free port of 127.0.0.1.
    pub fn start(labels: &[&str]) -> Sshd {
        assert!(!labels.is_empty(), "an Sshd needs at least one account");
        assert!(
            nix::unistd::geteuid().is_root(),
            "the SSH tests need root: they add accounts and run sshd"
        );
        assert!(
            Path::new(SSHD).is_file(),
            "{SSHD} is missing: the SSH tests need openssh-server"
        );
        let dir = match tempfile::Builder::new()
            .prefix("stt-sshd")
            .tempdir_in(traversable_temp_base())
        {
            Ok(dir) => dir,
            Err(e) => panic!("cannot create a temp dir: {e}"),
        };
        let root = dir.path().to_owned();
        // The accounts reach their homes and the binary through it.
        set_mode(&root, 0o755);
        for sub in ["authorized_keys", "bin"] {
            let path = root.join(sub);
            if let Err(e) = fs::create_dir(&path) {
                panic!("cannot create {}: {e}", path.display());
            }
            set_mode(&path, 0o755);
        }
        config::keygen(&root.join("host_key"));
        config::keygen(&root.join("client_key"));
        set_mode(&root.join("client_key"), 0o600);
        let mut sshd = Sshd {
            listener: None,
            port: 0,
            accounts: Vec::new(),
            frozen: Vec::new(),
            port_hold: None,
            bin: OnceLock::new(),
            dir,
        };
        // From here on a failure drops `sshd`, which deletes the accounts made so far.
        let client_key = read(&root.join("client_key.pub"));
        for (i, &label) in labels.iter().enumerate() {
            assert!(
                !labels[..i].contains(&label),
                "the label {label:?} is given twice"
            );
            let account = match accounts::create(&root, label) {
                Ok(account) => account,
                Err(e) => panic!("cannot make the account for {label:?}: {e}"),
            };
            let key_file = root.join("authorized_keys").join(account.name());
            sshd.accounts.push(account);
            write(&key_file, &client_key);
            set_mode(&key_file, 0o644);
        }
        ensure_privsep_dir();
        sshd.launch_on_a_free_port();
        sshd
    }

    /// The temp dir holding the keys, configs, log, homes and binary.
    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// The port sshd listens on (the same after `start_again`).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The accounts, in the order of their labels.
    pub fn accounts(&self) -> &[Account] {
        &self.accounts
    }

    /// The account made for `label`.
    #[track_caller]
    pub fn account(&self, label: &str) -> &Account {
        match self.accounts.iter().find(|a| a.label() == label) {
            Some(account) => account,
            None => panic!("no account labelled {label:?}"),
        }
    }

    /// The host alias that reaches `account` in the client config: its label.
    pub fn alias<'a>(&self, account: &'a Account) -> &'a str {
        account.label()
    }

    /// The client config with one `Host` block per account, for `ssh -F`
    /// (OpenSSH reads `~/.ssh/config` from the passwd home, never `$HOME`).
    pub fn ssh_config_path(&self) -> PathBuf {
        self.root().join("ssh_config")
    }

    /// The known-hosts file the client config names: `[127.0.0.1]:PORT` and the host key.
    pub fn known_hosts_path(&self) -> PathBuf {
        self.root().join("known_hosts")
    }

    /// The client's private key (mode 0600).
    pub fn client_key_path(&self) -> PathBuf {
        self.root().join("client_key")
    }

    /// The arguments that make `ssh` use the client config and never prompt.
    pub fn ssh_args(&self) -> Vec<OsString> {
        vec![
            "-F".into(),
            self.ssh_config_path().into(),
            "-o".into(),
            "BatchMode=yes".into(),
        ]
    }

    /// `ssh -F <config> -o BatchMode=yes ALIAS`, stdin closed: append the remote
    /// command. More options may follow the alias: ssh reads options after
    /// the destination too (`… hosta -o ConnectTimeout=2 true`).
    pub fn ssh_command(&self, alias: &str) -> Command {
        let mut cmd = Command::new("ssh");
        cmd.args(self.ssh_args()).arg(alias).stdin(Stdio::null());
        cmd
    }

    /// Runs `ssh ALIAS REMOTE…` under the harness deadline and returns its output.
    pub fn ssh<S: AsRef<OsStr>>(&self, alias: &str, remote: &[S]) -> Output {
        let mut cmd = self.ssh_command(alias);
        cmd.args(remote);
        let shown: Vec<String> = remote
            .iter()
            .map(|a| a.as_ref().to_string_lossy().into_owned())
            .collect();
        run_with_deadline(&mut cmd, &format!("ssh {alias} {}", shown.join(" ")))
    }

    /// The binary under test at `<root>/bin/signaltty` (mode 0755), where the
    /// accounts can run it: the cargo target dir may be closed to them. A
    /// hard link when that works, a copy otherwise; made on the first call.
    pub fn binary_for_accounts(&self) -> PathBuf {
        self.bin
            .get_or_init(|| {
                let to = self.root().join("bin").join("signaltty");
                let open_to_all = super::mode_of(Path::new(BIN)) & 0o005 == 0o005;
                if !(open_to_all && fs::hard_link(BIN, &to).is_ok()) {
                    if let Err(e) = fs::copy(BIN, &to) {
                        panic!("cannot copy {BIN} to {}: {e}", to.display());
                    }
                    set_mode(&to, 0o755);
                }
                to
            })
            .clone()
    }

    /// Everything sshd logged (`LogLevel VERBOSE`), over all its starts.
    pub fn log(&self) -> String {
        fs::read(self.log_path())
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default()
    }

    /// The pid of the listening sshd, `None` while stopped.
    pub fn listener_pid(&self) -> Option<u32> {
        self.listener.as_ref().map(Child::id)
    }

    /// The pids of the sshd processes serving connections now (the listener
    /// left out).
    pub fn connection_pids(&self) -> Vec<u32> {
        self.serving().iter().map(|p| p.pid).collect()
    }

    /// The pids of the live processes running as `account`.
    pub fn account_pids(&self, account: &Account) -> Vec<u32> {
        live_pids_of_uid(account.uid())
    }

    /// Kills the listener and every sshd process serving its connections, so
    /// new connections are refused and open SSH links die. The accounts'
    /// own processes keep running, as they do when a host's sshd restarts.
    /// The port stays reserved for `start_again`.
    #[track_caller]
    pub fn stop(&mut self) {
        if let Err(e) = self.try_stop() {
            self.fail(&e);
        }
    }

    /// Starts sshd again after `stop`, on the same port with the same host key.
    #[track_caller]
    pub fn start_again(&mut self) {
        assert!(self.listener.is_none(), "sshd is running: stop() it first");
        self.port_hold = None;
        let start = Instant::now();
        loop {
            match self.launch() {
                Ok(()) => return,
                // A socket of the last run, or another process, still has the port.
                Err(Launch::PortTaken) if start.elapsed() < DEADLINE => {
                    std::thread::sleep(Duration::from_millis(20));
                },
                Err(Launch::PortTaken) => {
                    self.fail(&format!("port {} stayed taken for {DEADLINE:?}", self.port))
                },
                Err(Launch::Failed(e)) => self.fail(&e),
            }
        }
    }

    /// SIGSTOPs the listener and every sshd process serving its connections:
    /// open TCP connections stay up (the kernel still acknowledges) and new
    /// ones are accepted into the backlog, but nothing answers, as with a
    /// host that hangs. Undone by `thaw`.
    #[track_caller]
    pub fn freeze(&mut self) {
        assert!(
            self.listener.is_some(),
            "sshd is stopped: nothing to freeze"
        );
        match self.hold() {
            Ok(held) => self.frozen.extend(held),
            Err(e) => self.fail(&e),
        }
    }

    /// SIGCONTs what `freeze` stopped.
    pub fn thaw(&mut self) {
        let mut all = std::mem::take(&mut self.frozen);
        all.extend(self.serving());
        all.extend(self.listener_pid().and_then(procs::read));
        for p in &all {
            procs::signal(p, Signal::SIGCONT);
        }
    }

    /// Fails the test with `what` and the tail of sshd's log.
    #[track_caller]
    pub fn fail(&self, what: &str) -> ! {
        panic!(
            "{what}\n--- the last lines of {} ---\n{}--- end of the sshd log ---",
            self.log_path().display(),
            tail(&self.log(), 40)
        )
    }

    /// What sshd logged after the first `offset` bytes of its log.
    fn log_since(&self, offset: usize) -> String {
        let bytes = fs::read(self.log_path()).unwrap_or_default();
        String::from_utf8_lossy(bytes.get(offset..).unwrap_or_default()).into_owned()
    }

    fn log_path(&self) -> PathBuf {
        self.root().join("sshd.log")
    }

    fn uids(&self) -> Vec<u32> {
        self.accounts.iter().map(Account::uid).collect()
    }

    /// The live sshd processes serving connections, the listener left out.
    fn serving(&self) -> Vec<procs::Proc> {
        procs::sshd_serving(self.listener_pid(), &self.uids())
    }

    /// SIGSTOPs the listener, then the processes serving its connections,
    /// until every one of them is stopped and no new one has appeared (a
    /// stopped process cannot fork), and returns them all.
    fn hold(&self) -> Result<Vec<procs::Proc>, String> {
        let mut held: Vec<procs::Proc> = Vec::new();
        if let Some(listener) = self.listener_pid().and_then(procs::read) {
            procs::signal(&listener, Signal::SIGSTOP);
            held.push(listener);
        }
        let start = Instant::now();
        loop {
            // Stopped first, listed second: nothing can have forked since.
            let all_stopped = held.iter().all(procs::stopped_or_gone);
            let new: Vec<procs::Proc> = self
                .serving()
                .into_iter()
                .filter(|p| !held.iter().any(|h| h.same(p)))
                .collect();
            if all_stopped && new.is_empty() {
                return Ok(held);
            }
            if start.elapsed() >= DEADLINE {
                let running: Vec<_> = held.iter().filter_map(procs::now).collect();
                return Err(format!(
                    "sshd's processes did not all stop within {DEADLINE:?}: {running:?}, new {new:?}"
                ));
            }
            for p in &new {
                procs::signal(p, Signal::SIGSTOP);
            }
            held.extend(new);
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// `stop` without a panic, for `Drop`.
    fn try_stop(&mut self) -> Result<(), String> {
        let held = self.hold()?;
        for p in &held {
            procs::signal(p, Signal::SIGKILL);
        }
        if let Some(mut listener) = self.listener.take() {
            let _ = listener.kill();
            if let Err(e) = listener.wait() {
                return Err(format!("cannot reap sshd {}: {e}", listener.id()));
            }
        }
        self.frozen.clear();
        let start = Instant::now();
        loop {
            // One serving a connection may have lost its parent to an earlier kill.
            let left: Vec<procs::Proc> = held
                .iter()
                .filter(|p| !procs::gone(p))
                .cloned()
                .chain(self.serving())
                .collect();
            if left.is_empty() {
                if self.port_hold.is_none() && self.port != 0 {
                    self.port_hold = hold_port(self.port);
                }
                return Ok(());
            }
            if start.elapsed() >= DEADLINE {
                return Err(format!(
                    "sshd's processes outlived SIGKILL for {DEADLINE:?}: {left:?}"
                ));
            }
            for p in &left {
                procs::signal(p, Signal::SIGKILL);
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    /// The first start: a free port, the configs, and sshd listening on it;
    /// another port when the one probed was taken before sshd bound it.
    fn launch_on_a_free_port(&mut self) {
        for _ in 0..PORT_TRIES {
            self.port = free_port();
            self.write_configs();
            match self.launch() {
                Ok(()) => return,
                Err(Launch::PortTaken) => continue,
                Err(Launch::Failed(e)) => self.fail(&e),
            }
        }
        self.fail(&format!(
            "sshd found every one of {PORT_TRIES} free ports taken"
        ));
    }

    /// Starts `sshd -D -e` (stderr appended to `sshd.log`) and waits until it
    /// logs that it listens on the port and the port accepts a connection.
    fn launch(&mut self) -> Result<(), Launch> {
        let log_path = self.log_path();
        let offset = fs::metadata(&log_path).map(|m| m.len()).unwrap_or(0) as usize;
        let log = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log_path)
            .map_err(|e| Launch::Failed(format!("cannot open {}: {e}", log_path.display())))?;
        let mut child = Command::new(SSHD)
            .arg("-D")
            .arg("-e")
            .arg("-f")
            .arg(self.root().join("sshd_config"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .map_err(|e| Launch::Failed(format!("cannot spawn {SSHD}: {e}")))?;
        let listening = format!("Server listening on 127.0.0.1 port {}.", self.port);
        let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, self.port));
        let start = Instant::now();
        loop {
            let fresh = self.log_since(offset);
            match child.try_wait() {
                Ok(Some(_)) if fresh.contains("Address already in use") => {
                    return Err(Launch::PortTaken);
                },
                Ok(Some(status)) => {
                    return Err(Launch::Failed(format!(
                        "sshd exited ({status}) before listening on port {}",
                        self.port
                    )));
                },
                Ok(None) => {},
                Err(e) => return Err(Launch::Failed(format!("cannot wait for sshd: {e}"))),
            }
            // The log line says it is this sshd that has the port, not another process.
            if fresh.contains(&listening)
                && TcpStream::connect_timeout(&addr, Duration::from_secs(1)).is_ok()
            {
                self.listener = Some(child);
                return Ok(());
            }
            if start.elapsed() >= DEADLINE {
                let _ = child.kill();
                let _ = child.wait();
                return Err(Launch::Failed(format!(
                    "sshd did not listen on port {} within {DEADLINE:?}",
                    self.port
                )));
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

impl Drop for Sshd {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!(
                "--- the last lines of {} ---\n{}--- end of the sshd log ---",
                self.log_path().display(),
                tail(&self.log(), 40)
            );
        }
        if let Err(e) = self.try_stop() {
            eprintln!("the SSH harness could not stop sshd: {e}");
        }
        for account in &self.accounts {
            if let Err(e) = accounts::delete(account) {
                eprintln!("the SSH harness could not delete {}: {e}", account.name());
            }
        }
    }
}

/// The pids of the live processes running as `uid` (zombies left out: they
/// run nothing).
pub fn live_pids_of_uid(uid: u32) -> Vec<u32> {
    procs::of_uid(uid).iter().map(|p| p.pid).collect()
}

/// The last `n` lines of `text`.
fn tail(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = lines[lines.len().saturating_sub(n)..].join("\n");
    out.push('\n');
    out
}

/// The temp dir base, if every dir above it lets other accounts through
/// (they reach their homes and the binary under it); `/tmp` otherwise.
fn traversable_temp_base() -> PathBuf {
    let base = std::env::temp_dir();
    let open = base
        .ancestors()
        .all(|dir| fs::metadata(dir).is_ok_and(|m| m.is_dir() && open_to_others(&m)));
    if open { base } else { PathBuf::from("/tmp") }
}

fn open_to_others(meta: &fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o001 != 0
}

/// Makes sshd's privilege separation dir (root's, mode 0755) when it is missing.
fn ensure_privsep_dir() {
    let dir = Path::new(PRIVSEP_DIR);
    match fs::create_dir(dir) {
        Ok(()) => set_mode(dir, 0o755),
        // Made by the system, or by a test running beside this one.
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {},
        Err(e) => panic!("cannot create {PRIVSEP_DIR}: {e}"),
    }
}

/// A port of 127.0.0.1 that nothing listens on now.
fn free_port() -> u16 {
    let probe = match TcpListener::bind((Ipv4Addr::LOCALHOST, 0)) {
        Ok(probe) => probe,
        Err(e) => panic!("cannot bind 127.0.0.1:0: {e}"),
    };
    match probe.local_addr() {
        Ok(addr) => addr.port(),
        Err(e) => panic!("cannot read the address of a bound socket: {e}"),
    }
}

/// A TCP socket bound to 127.0.0.1:`port` that does not listen, or `None`
/// when the port cannot be bound. It takes SO_REUSEADDR, as sshd's own
/// sockets do, so the closing connections of the last run do not block it.
fn hold_port(port: u16) -> Option<OwnedFd> {
    use nix::sys::socket::{
        AddressFamily, SockFlag, SockType, SockaddrIn, bind, setsockopt, socket, sockopt,
    };
    let fd = socket(
        AddressFamily::Inet,
        SockType::Stream,
        SockFlag::SOCK_CLOEXEC,
        None,
    )
    .ok()?;
    setsockopt(&fd, sockopt::ReuseAddr, &true).ok()?;
    bind(fd.as_raw_fd(), &SockaddrIn::new(127, 0, 0, 1, port)).ok()?;
    Some(fd)
}

pub(super) fn read(path: &Path) -> String {
    match fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) => panic!("cannot read {}: {e}", path.display()),
    }
}

pub(super) fn write(path: &Path, text: &str) {
    if let Err(e) = fs::write(path, text) {
        panic!("cannot write {}: {e}", path.display());
    }
}
