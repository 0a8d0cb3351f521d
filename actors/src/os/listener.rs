//! The socket: directory checks, the single-server lock, stale-socket handling,
//! binding with mode 0600 (docs/protocol.md#the-socket), and the accept loop with
//! its peer-uid check.

use nix::sys::stat::{Mode, umask};
use signaltty_model::SocketOrigin;
use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::os::unix::net::{UnixListener as StdListener, UnixStream as StdStream};
use std::path::{Path, PathBuf};
use std::time::Duration;
use tokio::sync::watch;

/// The longest socket path the kernel accepts (`sun_path` is 108 bytes with its NUL).
pub const MAX_SOCKET_PATH_BYTES: usize = 107;

/// Why the server could not take the socket.
#[derive(Debug)]
pub enum BindError {
    /// Another server already answers on this socket (exit code 3).
    AlreadyRunning(PathBuf),
    /// Another server holds this state directory (exit code 3).
    StateDirBusy(PathBuf),
    /// The directory is unsafe, the path too long, or an I/O call failed.
    Other(String),
}

impl std::fmt::Display for BindError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BindError::AlreadyRunning(p) => {
                write!(f, "a server is already listening on {}", p.display())
            },
            BindError::StateDirBusy(p) => write!(
                f,
                "another signaltty server is already using the state directory {}",
                p.display()
            ),
            BindError::Other(m) => f.write_str(m),
        }
    }
}

/// A bound socket, and the lock that makes this server the only one on it. The
/// socket file is removed when this is dropped.
#[derive(Debug)]
pub struct Bound {
    /// The listening socket.
    pub listener: StdListener,
    /// Its path.
    pub path: PathBuf,
    /// The socket's lock, held for the server's life.
    #[allow(dead_code)] // Never read: holding it is the point; dropping it releases the lock.
    pub lock: File,
    /// The state directory's lock, once taken.
    #[allow(dead_code)] // Never read: holding it is the point; dropping it releases the lock.
    pub state_lock: Option<File>,
    /// Passed by a service manager (socket activation), which owns the socket
    /// file: it is never removed here.
    pub passed: bool,
}

impl Drop for Bound {
    fn drop(&mut self) {
        if self.passed {
            return;
        }
        // Only our own socket file is removed; we still hold the lock, so no other
        // server can have replaced it.
        if let Err(e) = fs::remove_file(&self.path)
            && e.kind() != io::ErrorKind::NotFound
        {
            log::warn!("could not remove {}: {e}", self.path.display());
        }
    }
}

/// Prepares the directory, takes the socket's lock and clears a stale socket; the
/// bind itself is `listen`.
pub fn claim(path: &Path, origin: SocketOrigin) -> Result<Claimed, BindError> {
    let other =
        |what: &str, e: io::Error| BindError::Other(format!("{what} {}: {e}", path.display()));
    if path.as_os_str().len() > MAX_SOCKET_PATH_BYTES {
        return Err(BindError::Other(format!(
            "socket path {} is longer than {MAX_SOCKET_PATH_BYTES} bytes; choose a shorter one with --socket or SIGNALTTY_SOCKET",
            path.display()
        )));
    }
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    prepare_dir(dir, origin)?;

    // The lock beside the socket serializes servers that start at the same moment,
    // so two of them can never both decide the socket is stale and unlink each other's.
    let lock = lock_socket(path)?;

    if fs::symlink_metadata(path).is_ok() {
        if StdStream::connect(path).is_ok() {
            return Err(BindError::AlreadyRunning(path.to_path_buf()));
        }
        log::info!("removing stale socket {}", path.display());
        fs::remove_file(path).map_err(|e| other("cannot remove the stale socket", e))?;
    }
    Ok(Claimed {
        path: path.to_path_buf(),
        lock,
    })
}

/// A socket path this server has claimed (its lock is held, no other server answers
/// there) but not bound yet: binding is the last step of startup, so a client that
/// can connect talks to a server that is ready.
#[derive(Debug)]
pub struct Claimed {
    path: PathBuf,
    lock: File,
}

/// Binds a claimed socket path with mode 0600.
pub fn listen(claimed: Claimed) -> Result<Bound, BindError> {
    let Claimed { path, lock } = claimed;
    let path = path.as_path();
    let other =
        |what: &str, e: io::Error| BindError::Other(format!("{what} {}: {e}", path.display()));
    // Bind under umask 077 so the socket is never reachable by others, even for the
    // moment before the chmod below.
    let old = umask(Mode::from_bits_truncate(0o077));
    let bound = StdListener::bind(path);
    umask(old);
    let listener = bound.map_err(|e| other("cannot bind", e))?;
    fs::set_permissions(path, fs::Permissions::from_mode(0o600))
        .map_err(|e| other("cannot chmod", e))?;
    listener
        .set_nonblocking(true)
        .map_err(|e| other("cannot configure", e))?;
    Ok(Bound {
        listener,
        path: path.to_path_buf(),
        lock,
        state_lock: None,
        passed: false,
    })
}

/// Takes a listening socket a service manager passed (socket activation,
/// `crate::os::activation`), bound at `path`: its lock is taken like a bound
/// socket's, but the stale-file check and the bind are the manager's, and the
/// file stays when the server stops.
pub fn adopt(listener: StdListener, path: PathBuf) -> Result<Bound, BindError> {
    let lock = lock_socket(&path)?;
    Ok(Bound {
        listener,
        path,
        lock,
        state_lock: None,
        passed: true,
    })
}

/// Takes the exclusive lock beside socket `path` (`<path>.lock`); another
/// server holding it is `AlreadyRunning`.
fn lock_socket(path: &Path) -> Result<File, BindError> {
    let other =
        |what: &str, e: io::Error| BindError::Other(format!("{what} {}: {e}", path.display()));
    let lock = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .mode(0o600)
        .open(lock_path(path))
        .map_err(|e| other("cannot open the lock file for", e))?;
    // Called through the trait on purpose: std's inherent `File::try_lock` has the
    // same name and would win method resolution.
    match fs4::FileExt::try_lock(&lock) {
        Ok(()) => Ok(lock),
        Err(fs4::TryLockError::WouldBlock) => Err(BindError::AlreadyRunning(path.to_path_buf())),
        Err(fs4::TryLockError::Error(e)) => Err(other("cannot lock", e)),
    }
}

/// Takes the exclusive lock of a state directory (`server.lock` in it).
pub fn lock_state_dir(dir: &Path) -> Result<File, BindError> {
    let path = dir.join("server.lock");
    let lock = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .mode(0o600)
        .open(&path)
        .map_err(|e| BindError::Other(format!("cannot open {}: {e}", path.display())))?;
    match fs4::FileExt::try_lock(&lock) {
        Ok(()) => Ok(lock),
        Err(fs4::TryLockError::WouldBlock) => Err(BindError::StateDirBusy(dir.to_path_buf())),
        Err(fs4::TryLockError::Error(e)) => Err(BindError::Other(format!(
            "cannot lock {}: {e}",
            path.display()
        ))),
    }
}

/// The lock file of a socket path.
pub fn lock_path(socket: &Path) -> PathBuf {
    let mut name = socket.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

/// Creates the socket directory (mode 0700) if missing. The default directory must
/// be ours and private; a directory the user named is taken as it is.
fn prepare_dir(dir: &Path, origin: SocketOrigin) -> Result<(), BindError> {
    match fs::DirBuilder::new()
        .recursive(false)
        .mode(0o700)
        .create(dir)
    {
        Ok(()) => {},
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {},
        Err(e) if e.kind() == io::ErrorKind::NotFound && origin == SocketOrigin::Explicit => {
            fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir)
                .map_err(|e| BindError::Other(format!("cannot create {}: {e}", dir.display())))?;
        },
        Err(e) => {
            return Err(BindError::Other(format!(
                "cannot create {}: {e}",
                dir.display()
            )));
        },
    }
    let meta = fs::symlink_metadata(dir)
        .map_err(|e| BindError::Other(format!("cannot inspect {}: {e}", dir.display())))?;
    if origin == SocketOrigin::Explicit {
        return if meta.is_dir() || meta.file_type().is_symlink() {
            Ok(())
        } else {
            Err(BindError::Other(format!(
                "{} is not a directory",
                dir.display()
            )))
        };
    }
    // Recheck after mkdir: EEXIST may be another user's directory or a symlink in /tmp.
    let uid = nix::unistd::getuid().as_raw();
    let unsafe_reason = if meta.file_type().is_symlink() {
        Some("it is a symlink".to_owned())
    } else if !meta.is_dir() {
        Some("it is not a directory".to_owned())
    } else if meta.uid() != uid {
        Some(format!("it is owned by uid {}, not {uid}", meta.uid()))
    } else if meta.mode() & 0o077 != 0 {
        Some(format!(
            "its mode is {:o}, expected 700",
            meta.mode() & 0o7777
        ))
    } else {
        None
    };
    match unsafe_reason {
        Some(why) => Err(BindError::Other(format!(
            "directory {} has unsafe permissions: {why}",
            dir.display()
        ))),
        None => Ok(()),
    }
}

/// Whether the accept loop takes connections.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Accepting {
    /// Accepting.
    Open,
    /// Not now: new clients wait in the socket's backlog (an upgrade).
    Paused,
    /// Never again: the server is stopping.
    Stopped,
}

/// Accepts connections until `stop` turns `Stopped` (none while `Paused`) and
/// hands each to `serve`. Peers of another uid are dropped without a reply;
/// running out of file descriptors backs off instead of spinning.
pub async fn accept_loop(
    listener: StdListener,
    serve: impl Fn(tokio::net::UnixStream),
    mut stop: watch::Receiver<Accepting>,
) {
    let listener = match tokio::net::UnixListener::from_std(listener) {
        Ok(l) => l,
        Err(e) => {
            log::error!("cannot register the listening socket: {e}");
            return;
        },
    };
    let uid = nix::unistd::getuid().as_raw();
    loop {
        let now = *stop.borrow_and_update();
        match now {
            Accepting::Stopped => return,
            Accepting::Paused => {
                if stop.changed().await.is_err() {
                    return;
                }
                continue;
            },
            Accepting::Open => {},
        }
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            changed = stop.changed() => match changed {
                Ok(()) => continue,
                Err(_) => return,
            },
        };
        match accepted {
            Ok((stream, _)) => match stream.peer_cred() {
                Ok(cred) if cred.uid() == uid => serve(stream),
                Ok(cred) => log::warn!("refused a connection from uid {}", cred.uid()),
                Err(e) => log::warn!("refused a connection without peer credentials: {e}"),
            },
            Err(e) => {
                let pause = match e.raw_os_error() {
                    Some(code) if code == nix::libc::EMFILE || code == nix::libc::ENFILE => {
                        Duration::from_millis(200)
                    },
                    _ => Duration::from_millis(10),
                };
                log::warn!("accept failed: {e}; pausing {} ms", pause.as_millis());
                tokio::time::sleep(pause).await;
            },
        }
    }
}
