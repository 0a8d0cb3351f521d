//! Opening a PTY pair and starting a child on it as a session leader whose
//! controlling terminal is the slave, through `clone(CLONE_VM | CLONE_VFORK)`
//! rather than `fork` (docs/performance-pty.md#how-a-pane-is-started).

use super::SpawnSpec;
use nix::fcntl::{FcntlArg, FdFlag, OFlag, fcntl};
use nix::libc;
use nix::pty::{grantpt, posix_openpt, ptsname_r, unlockpt};
use nix::sys::resource::{Resource, getrlimit};
use std::ffi::CString;
use std::fs::{File, OpenOptions};
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::OpenOptionsExt;
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

/// The stack of the short-lived child between `clone` and `execve`: it only makes
/// system calls, so a few pages are plenty.
const CHILD_STACK_BYTES: usize = 64 * 1024;

/// Starts `spec.argv` with the slave as stdin, stdout and stderr, in `spec.cwd`,
/// with exactly `spec.env`, as the leader of a new session whose controlling
/// terminal is the slave, with every signal at its default and none blocked, and
/// with the open-file limit the server started with
/// (docs/performance-pty.md#how-a-pane-is-started). Returns the child's pid once it
/// has exec'd; an exec that failed is the error, and its child is already reaped.
///
/// The child shares the server's memory (`clone(CLONE_VM | CLONE_VFORK)`, what
/// glibc's `posix_spawn` does) instead of copying it with `fork`: a fork copies
/// the page tables of every mapping, and the exec throws them away again, a cost
/// that grew with every pane's thread stacks. The calling thread sleeps until the
/// child has exec'd or exited.
pub(super) fn spawn_child(spec: &SpawnSpec, slave: &File) -> io::Result<Spawned> {
    let mut plan = ExecPlan::new(spec)?;
    // fd 0, 1 and 2 are about to be replaced in the child: a slave that got one of
    // those numbers (a server started with a closed stdin) moves up first.
    let moved;
    let slave_fd = if slave.as_raw_fd() > 2 {
        slave.as_raw_fd()
    } else {
        let raw = fcntl(slave, FcntlArg::F_DUPFD_CLOEXEC(3))?;
        // SAFETY: F_DUPFD_CLOEXEC returned a new descriptor that nothing else owns.
        moved = unsafe { OwnedFd::from_raw_fd(raw) };
        moved.as_raw_fd()
    };
    // Computed before the clone: the child may only make async-signal-safe calls.
    let fd_limit = match getrlimit(Resource::RLIMIT_NOFILE) {
        Ok((soft, _)) => {
            libc::c_int::try_from(soft).map_or(FD_SCAN_LIMIT, |n| n.min(FD_SCAN_LIMIT))
        },
        Err(_) => FD_SCAN_LIMIT,
    };
    let nofile = crate::os::limits::child_nofile().map(|(soft, hard)| libc::rlimit {
        rlim_cur: soft,
        rlim_max: hard,
    });
    let mut child = ChildArgs {
        slave: slave_fd,
        cwd: plan.cwd.as_ptr(),
        argv: plan.argv.as_ptr(),
        envp: plan.envp.as_ptr(),
        candidates: plan.candidate_ptrs.as_ptr(),
        candidate_count: plan.candidate_ptrs.len(),
        script_argv: plan.script_argv.as_mut_ptr(),
        nofile,
        last_signal: libc::SIGRTMAX(),
        fd_limit,
        errno: 0,
    };
    let mut stack = vec![0u8; CHILD_STACK_BYTES];
    // The stack grows down from its end, which must be 16-byte aligned.
    let top = {
        let end = stack.as_mut_ptr_range().end as usize;
        (end & !15) as *mut libc::c_void
    };
    let blocked = BlockedSignals::all()?;
    let args: *mut ChildArgs = &mut child;
    // SAFETY: `child_main` runs on `stack`, which lives until after `clone` returns;
    // CLONE_VFORK suspends this thread until the child has exec'd or exited, so
    // `child`, `plan` and `stack` outlive every use the child makes of them, and
    // nothing else touches them meanwhile. Every signal is blocked in this thread
    // (so in the child) until the child has reset their dispositions, so no
    // handler of the server runs on the shared memory in the child. Without
    // CLONE_FILES and CLONE_SIGHAND, the child's descriptor table and signal
    // handlers are its own copies.
    let pid = unsafe {
        libc::clone(
            child_main,
            top,
            libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD,
            args.cast::<libc::c_void>(),
        )
    };
    let cloned = if pid == -1 {
        Err(io::Error::last_os_error())
    } else {
        Ok(pid)
    };
    drop(blocked);
    let pid = cloned.map_err(open_files_error)?;
    // SAFETY: the child has exec'd or exited (CLONE_VFORK): nothing writes `child`
    // any more; the volatile read keeps the compiler from assuming it unchanged.
    let errno = unsafe { ptr::read_volatile(&raw const (*args).errno) };
    drop(stack);
    drop(plan);
    if errno != 0 {
        reap(pid);
        return Err(open_files_error(io::Error::from_raw_os_error(errno)));
    }
    u32::try_from(pid)
        .map(|pid| Spawned { pid })
        .map_err(|_| io::Error::other("pid out of range"))
}

/// A child `spawn_child` started. Nothing waits for it: whoever takes its pid
/// reaps it (reap.rs).
#[derive(Debug)]
pub(super) struct Spawned {
    pid: u32,
}

impl Spawned {
    /// Its process id.
    pub(super) fn id(&self) -> u32 {
        self.pid
    }
}

/// EMFILE and ENFILE said in words a person can act on: which limit, and how to
/// raise it (docs/panes.md#how-many-panes).
fn open_files_error(e: io::Error) -> io::Error {
    match e.raw_os_error() {
        Some(libc::EMFILE) => io::Error::new(
            e.kind(),
            format!(
                "the server has as many files open as its limit allows ({e}); close panes or \
                 raise the open-file limit (`ulimit -n`, or LimitNOFILE= of its systemd unit)"
            ),
        ),
        Some(libc::ENFILE) => io::Error::new(
            e.kind(),
            format!("the system's table of open files is full ({e}); see fs.file-max"),
        ),
        _ => e,
    }
}

/// Waits for a child whose exec failed, so it leaves no zombie.
fn reap(pid: libc::pid_t) {
    loop {
        // SAFETY: waitpid writes nothing through a null status pointer.
        let rc = unsafe { libc::waitpid(pid, ptr::null_mut(), 0) };
        if rc != -1 || io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            return;
        }
    }
}

/// Every signal blocked in the calling thread until this drops, when the mask
/// before is restored.
struct BlockedSignals(libc::sigset_t);

impl BlockedSignals {
    fn all() -> io::Result<BlockedSignals> {
        // SAFETY: all-zero `sigset_t`s are valid storage; sigfillset initialises
        // `all`, and pthread_sigmask reads `all` and writes `old`, both alive for
        // the calls.
        unsafe {
            let mut all: libc::sigset_t = std::mem::zeroed();
            let mut old: libc::sigset_t = std::mem::zeroed();
            libc::sigfillset(&mut all);
            let rc = libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut old);
            if rc != 0 {
                return Err(io::Error::from_raw_os_error(rc));
            }
            Ok(BlockedSignals(old))
        }
    }
}

impl Drop for BlockedSignals {
    fn drop(&mut self) {
        // SAFETY: restores the mask saved by `all`, which `self` holds.
        unsafe { libc::pthread_sigmask(libc::SIG_SETMASK, &self.0, ptr::null_mut()) };
    }
}

/// Everything the child needs, as C strings and pointer arrays built before the
/// clone: the child allocates nothing.
struct ExecPlan {
    cwd: CString,
    /// Kept alive for `argv`.
    _args: Vec<CString>,
    argv: Vec<*const libc::c_char>,
    /// Kept alive for `envp`.
    _env: Vec<CString>,
    envp: Vec<*const libc::c_char>,
    /// The paths the exec tries in order: the program itself when it names a
    /// path, else each directory of the child's `PATH` joined with it.
    _candidates: Vec<CString>,
    candidate_ptrs: Vec<*const libc::c_char>,
    /// `/bin/sh`, a slot for the script's path, the arguments: how a file that
    /// is not a binary and has no `#!` line runs, as `execvp` runs it.
    _sh: CString,
    script_argv: Vec<*const libc::c_char>,
}

impl ExecPlan {
    fn new(spec: &SpawnSpec) -> io::Result<ExecPlan> {
        let nul = |_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL byte in the command");
        let Some(program) = spec.argv.first() else {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "empty argv"));
        };
        let args = spec
            .argv
            .iter()
            .map(|a| CString::new(a.as_bytes()).map_err(nul))
            .collect::<io::Result<Vec<_>>>()?;
        let env = spec
            .env
            .iter()
            .map(|(k, v)| CString::new(format!("{k}={v}")).map_err(nul))
            .collect::<io::Result<Vec<_>>>()?;
        let candidates = if program.contains('/') {
            vec![CString::new(program.as_bytes()).map_err(nul)?]
        } else {
            // As `execvp` searches: the child's PATH, else the libc's default; an
            // empty entry is the working directory.
            let path = spec
                .env
                .iter()
                .find(|(k, _)| k == "PATH")
                .map_or("/bin:/usr/bin", |(_, v)| v.as_str());
            path.split(':')
                .map(|dir| {
                    let joined = if dir.is_empty() {
                        program.clone()
                    } else {
                        format!("{}/{program}", dir.trim_end_matches('/'))
                    };
                    CString::new(joined).map_err(nul)
                })
                .collect::<io::Result<Vec<_>>>()?
        };
        let cwd = CString::new(spec.cwd.as_os_str().as_bytes()).map_err(nul)?;
        let sh = CString::new("/bin/sh").map_err(nul)?;
        let with_null = |v: &[CString]| {
            v.iter()
                .map(|c| c.as_ptr())
                .chain(std::iter::once(ptr::null()))
                .collect::<Vec<_>>()
        };
        let argv = with_null(&args);
        let envp = with_null(&env);
        let candidate_ptrs = candidates.iter().map(|c| c.as_ptr()).collect();
        let script_argv = std::iter::once(sh.as_ptr())
            .chain(std::iter::once(ptr::null()))
            .chain(args.iter().skip(1).map(|c| c.as_ptr()))
            .chain(std::iter::once(ptr::null()))
            .collect();
        Ok(ExecPlan {
            cwd,
            _args: args,
            argv,
            _env: env,
            envp,
            _candidates: candidates,
            candidate_ptrs,
            _sh: sh,
            script_argv,
        })
    }
}

/// What `child_main` reads, and where it leaves the errno of a failed step.
struct ChildArgs {
    slave: RawFd,
    cwd: *const libc::c_char,
    argv: *const *const libc::c_char,
    envp: *const *const libc::c_char,
    candidates: *const *const libc::c_char,
    candidate_count: usize,
    /// `script_argv[1]` is written by the child before a script's exec.
    script_argv: *mut *const libc::c_char,
    nofile: Option<libc::rlimit>,
    last_signal: libc::c_int,
    fd_limit: libc::c_int,
    errno: libc::c_int,
}

/// The child, from the clone to the exec. It runs on its own stack in the
/// server's memory, with every signal blocked: only system calls on what
/// `ChildArgs` points to, nothing that allocates, locks or can panic.
extern "C" fn child_main(arg: *mut libc::c_void) -> libc::c_int {
    let args = arg.cast::<ChildArgs>();
    // SAFETY: `arg` is the parent's `ChildArgs`, alive and untouched by anyone else
    // while the parent waits for this child's exec (see `spawn_child`).
    let errno = unsafe { child_steps(&*args) };
    // SAFETY: as above; the parent reads it after this child exits.
    unsafe {
        ptr::write_volatile(&raw mut (*args).errno, errno);
        libc::_exit(127)
    }
}

/// The child's set-up in order, then the exec; returns the errno of what failed.
///
/// # Safety
/// Only in the child of `spawn_child`, with `args` pointing to live values.
unsafe fn child_steps(args: &ChildArgs) -> libc::c_int {
    let errno = || {
        io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EIO)
    };
    // Dispositions first, while every signal is still blocked.
    reset_signals(args.last_signal);
    // SAFETY: plain system calls on integers and on C strings the parent built
    // and keeps alive.
    unsafe {
        if libc::setsid() == -1 {
            return errno();
        }
        for fd in 0..=2 {
            if libc::dup2(args.slave, fd) == -1 {
                return errno();
            }
        }
        // The slave is fd 0 now; TIOCSCTTY's 0 means "do not steal it from another
        // session" (1 would take a terminal another session holds).
        if libc::ioctl(0, libc::TIOCSCTTY as _, 0) == -1 {
            return errno();
        }
        if libc::chdir(args.cwd) == -1 {
            return errno();
        }
        // Programs that still use select() break above 1024 descriptors: the child
        // gets the limit the server was started with, not the one it raised. A
        // failure leaves the raised one, which is no reason to fail the pane.
        if let Some(limit) = &args.nofile {
            libc::setrlimit(libc::RLIMIT_NOFILE, limit);
        }
    }
    mark_inherited_fds_cloexec(args.fd_limit);
    // SAFETY: an all-zero `sigset_t` is valid storage; sigemptyset initialises it,
    // and sigprocmask reads it while it is alive.
    unsafe {
        let mut empty: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut empty);
        libc::sigprocmask(libc::SIG_SETMASK, &empty, ptr::null_mut());
    }
    // SAFETY: `candidates` holds `candidate_count` valid C strings.
    let candidates = unsafe { std::slice::from_raw_parts(args.candidates, args.candidate_count) };
    // The search `execvp` makes: a missing or inaccessible candidate tries the
    // next; EACCES is remembered; anything else is the answer.
    let mut denied = false;
    for &path in candidates {
        // SAFETY: `path`, `argv` and `envp` are NUL-terminated strings and
        // null-terminated arrays the parent keeps alive; execve returns only on
        // failure.
        unsafe { libc::execve(path, args.argv, args.envp) };
        match errno() {
            libc::ENOEXEC => {
                // SAFETY: `script_argv` has room for slot 1, which the parent made
                // for this; `/bin/sh` then runs the file as a script.
                unsafe {
                    *args.script_argv.add(1) = path;
                    libc::execve(*args.script_argv, args.script_argv.cast_const(), args.envp);
                }
                return errno();
            },
            libc::EACCES => denied = true,
            libc::ENOENT | libc::ESTALE | libc::ENOTDIR | libc::ENODEV | libc::ETIMEDOUT => {},
            other => return other,
        }
    }
    if denied { libc::EACCES } else { libc::ENOENT }
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
/// started it, left a descriptor inheritable. Marking, not closing: one system
/// call either way, and the child's table is its own copy.
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

#[cfg(test)]
mod tests;
