//! Opening a PTY pair and starting a child on it as a session leader whose
//! controlling terminal is the slave (the shape of alacritty's `tty/unix.rs`).

use super::SpawnSpec;
use nix::fcntl::{FcntlArg, FdFlag, OFlag, fcntl};
use nix::libc;
use nix::pty::{grantpt, posix_openpt, ptsname_r, unlockpt};
use nix::sys::resource::{Resource, getrlimit};
use std::fs::{File, OpenOptions};
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::ptr;

/// The most descriptors the fallback of `mark_inherited_fds_cloexec` walks.
const FD_SCAN_LIMIT: libc::c_int = 65_536;

/// Both ends of a new PTY, close-on-exec; the master is non-blocking.
pub(super) struct PtyPair {
    pub master: OwnedFd,
    pub slave: File,
}

/// Opens a PTY pair of `rows` × `cols`.
///
/// `openpty(3)` opens both ends without O_CLOEXEC, so a fork elsewhere could
/// leak them into another child; this opens `/dev/ptmx` and the slave with O_CLOEXEC instead: no fork anywhere
/// in the server, even one that does not take `SPAWN_LOCK`, can inherit them.
pub(super) fn open_pty(rows: u16, cols: u16) -> io::Result<PtyPair> {
    let master = posix_openpt(OFlag::O_RDWR | OFlag::O_NOCTTY | OFlag::O_CLOEXEC)?;
    grantpt(&master)?;
    unlockpt(&master)?;
    let slave_path = ptsname_r(&master)?;
    let master = OwnedFd::from(master);
    // std opens every file with O_CLOEXEC.
    let slave = OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_NOCTTY)
        .open(&slave_path)?;
    // Both flags are already set by the opens; setting them again is free and keeps
    // the guarantee independent of the libc's posix_openpt.
    fcntl(&master, FcntlArg::F_SETFD(FdFlag::FD_CLOEXEC))?;
    fcntl(&slave, FcntlArg::F_SETFD(FdFlag::FD_CLOEXEC))?;
    let flags = OFlag::from_bits_retain(fcntl(&master, FcntlArg::F_GETFL)?);
    fcntl(&master, FcntlArg::F_SETFL(flags | OFlag::O_NONBLOCK))?;
    set_winsize(master.as_fd(), rows, cols)?;
    Ok(PtyPair { master, slave })
}

/// `TIOCSWINSZ`: sets the terminal size; the kernel sends SIGWINCH to the
/// terminal's foreground process group when it changes.
pub(super) fn set_winsize(fd: impl AsFd, rows: u16, cols: u16) -> io::Result<()> {
    let fd: BorrowedFd<'_> = fd.as_fd();
    let size = libc::winsize {
        ws_row: rows,
        ws_col: cols,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: `fd` is an open descriptor borrowed for the duration of the call, and
    // TIOCSWINSZ only reads a `winsize` through the pointer, which points to `size`,
    // alive until the call returns.
    let rc = unsafe { libc::ioctl(fd.as_raw_fd(), libc::TIOCSWINSZ, &size) };
    if rc == -1 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Starts `spec.argv` with the slave as stdin, stdout and stderr, in `spec.cwd`,
/// with exactly `spec.env`, as the leader of a new session whose controlling
/// terminal is the slave, with every signal at its default and none blocked.
pub(super) fn spawn_child(spec: &SpawnSpec, slave: &File) -> io::Result<Child> {
    let Some((program, args)) = spec.argv.split_first() else {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "empty argv"));
    };
    let mut command = Command::new(program);
    command
        .args(args)
        .current_dir(&spec.cwd)
        .env_clear()
        .envs(spec.env.iter().map(|(k, v)| (k, v)))
        // `try_clone` dups with F_DUPFD_CLOEXEC; std dup2s them onto 0, 1 and 2 in
        // the child and closes them in the parent once `spawn` returns.
        .stdin(Stdio::from(slave.try_clone()?))
        .stdout(Stdio::from(slave.try_clone()?))
        .stderr(Stdio::from(slave.try_clone()?));
    // Computed before the fork: the child may only make async-signal-safe calls.
    let last_signal = libc::SIGRTMAX();
    let fd_limit = match getrlimit(Resource::RLIMIT_NOFILE) {
        Ok((soft, _)) => {
            libc::c_int::try_from(soft).map_or(FD_SCAN_LIMIT, |n| n.min(FD_SCAN_LIMIT))
        },
        Err(_) => FD_SCAN_LIMIT,
    };
    // SAFETY: the closure runs in the forked child before exec. It allocates nothing,
    // takes no lock and only makes async-signal-safe system calls (setsid, ioctl,
    // sigaction, sigprocmask, close_range, fcntl) on values captured by copy: after
    // fork only such calls are safe in a process that had other threads.
    unsafe {
        command.pre_exec(move || child_setup(last_signal, fd_limit));
    }
    command.spawn()
}

/// Runs in the forked child, after std has set up stdio and the cwd and before exec.
fn child_setup(last_signal: libc::c_int, fd_limit: libc::c_int) -> io::Result<()> {
    // SAFETY: setsid takes no arguments and touches no memory of ours.
    if unsafe { libc::setsid() } == -1 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: fd 0 is the slave (std dup2'd it before running pre_exec) and
    // TIOCSCTTY takes a plain int argument; 0 means "do not steal it from another
    // session" (1 would take a terminal another session holds).
    if unsafe { libc::ioctl(0, libc::TIOCSCTTY as _, 0) } == -1 {
        return Err(io::Error::last_os_error());
    }
    reset_signals(last_signal);
    mark_inherited_fds_cloexec(fd_limit);
    Ok(())
}

/// Sets every signal's disposition to the default and unblocks them all. Exec
/// resets caught signals but keeps ignored ones and the mask: a server started
/// under `nohup`, or std's own SIG_IGN for SIGPIPE, would otherwise leak into panes.
fn reset_signals(last_signal: libc::c_int) {
    // SAFETY: an all-zero `sigaction` is a valid value: handler SIG_DFL (0), empty
    // mask, no flags.
    let mut default: libc::sigaction = unsafe { std::mem::zeroed() };
    default.sa_sigaction = libc::SIG_DFL;
    for sig in 1..=last_signal {
        // SAFETY: sigaction reads `default`, which outlives the call, and writes
        // nothing (null old action). SIGKILL and SIGSTOP fail with EINVAL, which is
        // harmless.
        let rc = unsafe { libc::sigaction(sig, &default, ptr::null_mut()) };
        if rc == -1 && sig != libc::SIGKILL && sig != libc::SIGSTOP {
            reset_reserved_signal(sig);
        }
    }
    // SAFETY: an all-zero `sigset_t` is valid storage; sigemptyset initialises it.
    let mut empty: libc::sigset_t = unsafe { std::mem::zeroed() };
    // SAFETY: both calls only touch `empty`, alive for both calls; the old mask
    // pointer is null.
    unsafe {
        libc::sigemptyset(&mut empty);
        libc::sigprocmask(libc::SIG_SETMASK, &empty, ptr::null_mut());
    }
}

/// glibc refuses to change the signals it reserves for itself (32 and 33), yet a
/// process can inherit them ignored (this test binary does); the raw system call
/// resets them.
fn reset_reserved_signal(sig: libc::c_int) {
    // The kernel's `struct sigaction`, all zero: SIG_DFL, no flags, empty mask. The
    // buffer is larger than that struct on every architecture.
    let default = [0 as libc::c_ulong; 8];
    // The kernel's sigset size: 64 signals (other sizes fail with EINVAL).
    let sigset_bytes: libc::size_t = 8;
    // SAFETY: rt_sigaction reads at most the kernel's `struct sigaction` from
    // `default`, which outlives the call, and writes nothing (null old action).
    unsafe {
        libc::syscall(
            libc::SYS_rt_sigaction,
            sig,
            default.as_ptr(),
            ptr::null_mut::<libc::c_void>(),
            sigset_bytes,
        )
    };
}

/// Marks every descriptor above 2 close-on-exec, so the child starts with only its
/// terminal (docs/terminal.md#testing) even if something in the server, or whoever
/// started it, left a descriptor inheritable. Marking, not closing: std's
/// exec-error pipe must stay open until the exec.
fn mark_inherited_fds_cloexec(fd_limit: libc::c_int) {
    let (first, last, flags): (libc::c_uint, libc::c_uint, libc::c_uint) =
        (3, libc::c_uint::MAX, libc::CLOSE_RANGE_CLOEXEC);
    // SAFETY: close_range with CLOSE_RANGE_CLOEXEC only sets a flag on descriptors
    // and reads no memory; the arguments are plain integers.
    let rc = unsafe { libc::syscall(libc::SYS_close_range, first, last, flags) };
    if rc == 0 {
        return;
    }
    // Kernels before 5.11 lack CLOSE_RANGE_CLOEXEC: walk the descriptors instead.
    for fd in 3..fd_limit {
        // SAFETY: F_SETFD on a number that is not open fails with EBADF and does
        // nothing else.
        unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) };
    }
}
