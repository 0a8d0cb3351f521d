//! PTY ingest: MB/s from `pane.spawn` of `cat FILE` (a generated ANSI log file) to
//! its `pane.exited`, beside tmux on the same file and two ceilings (a bare PTY
//! drained in 8 KiB reads, and util-linux `script`).

use crate::common::client::Conn;
use crate::common::procfs::{busiest_thread, cpu_seconds, proc_status_kb, thread_cpu};
use crate::common::server::Server;
use crate::common::stats::median;
use crate::common::tempdir::TempDir;
use crate::common::tmux::Tmux;
use crate::common::{Context, Res, check_interrupted, run_output, spawn_unmasked};
use crate::{Opts, connect, opt, start_server, tmux_keep};
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::fs;
use std::io::{BufWriter, Read, Write};
use std::os::fd::OwnedFd;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

const END_MARKER: &str = "signaltty-pty-bench: end of file";

/// xorshift64*: a deterministic generator for the ingest (and viewer) file.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }
}

/// Writes about `target` bytes of log lines with ANSI colours (SGR 16-colour,
/// 256-colour and truecolour, bold, underline; 80–120 visible columns, so some lines
/// wrap at 80) and a plain last line `END_MARKER`.
fn generate_file(path: &Path, target: u64) -> Res<FileStats> {
    const LEVELS: &[(&str, &str)] = &[
        ("32", "INFO "),
        ("32", "INFO "),
        ("32", "INFO "),
        ("36", "DEBUG"),
        ("33", "WARN "),
        ("1;31", "ERROR"),
        ("90", "TRACE"),
    ];
    const WORDS: &str = "processed item request from cache miss hit retrying upstream \
        connection reset by peer queue depth flushed segment compacted GET POST /api/v1/items \
        /healthz user=alice status=200 status=503 bytes=18234 ok checksum mismatch scheduled \
        job completed in the worker pool";
    let words: Vec<&str> = WORDS.split_whitespace().collect();
    let file = fs::File::create(path).ctx(|| format!("cannot create {}", path.display()))?;
    let mut w = BufWriter::with_capacity(1 << 20, file);
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut written: u64 = 0;
    let mut line = String::with_capacity(512);
    let mut n: u64 = 0;
    let mut escapes: u64 = 0;
    while written < target {
        line.clear();
        n += 1;
        let (colour, level) = LEVELS[rng.below(LEVELS.len() as u64) as usize];
        let secs = n / 200;
        let _ = write!(
            line,
            "\x1b[{colour}m{level}\x1b[0m 2026-11-30 {:02}:{:02}:{:02}.{:03} ",
            12 + (secs / 3600) % 12,
            (secs / 60) % 60,
            secs % 60,
            rng.below(1000)
        );
        // Visible so far: 5 + 1 + 23 + 1 = 30 columns.
        let mut visible = 30;
        let worker = rng.below(64);
        match rng.below(4) {
            0 => {
                let _ = write!(
                    line,
                    "\x1b[38;5;{}mworker-{worker:02}\x1b[0m ",
                    16 + worker * 3
                );
            },
            1 => {
                let _ = write!(
                    line,
                    "\x1b[38;2;{};{};{}mworker-{worker:02}\x1b[0m ",
                    rng.below(256),
                    rng.below(256),
                    rng.below(256)
                );
            },
            2 => {
                let _ = write!(line, "\x1b[1mworker-{worker:02}\x1b[22m ");
            },
            _ => {
                let _ = write!(line, "worker-{worker:02} ");
            },
        }
        visible += 10;
        let width = 80 + rng.below(41) as usize;
        while visible < width - 12 {
            let word = rng.pick(&words);
            match rng.below(12) {
                0 => {
                    let _ = write!(line, "\x1b[4m{word}\x1b[24m ");
                },
                1 => {
                    let _ = write!(line, "\x1b[35m{word}\x1b[39m ");
                },
                _ => {
                    line.push_str(word);
                    line.push(' ');
                },
            }
            visible += word.len() + 1;
        }
        let item = rng.below(1_000_000);
        let ms = rng.below(1000);
        let _ = writeln!(line, "#{item:06} in {}.{} ms", ms / 10, ms % 10);
        w.write_all(line.as_bytes())
            .ctx(|| format!("write {}", path.display()))?;
        written += line.len() as u64;
        escapes += escape_bytes(line.as_bytes());
    }
    let last = format!("{END_MARKER}\n");
    w.write_all(last.as_bytes())
        .ctx(|| format!("write {}", path.display()))?;
    written += last.len() as u64;
    w.flush().ctx(|| format!("write {}", path.display()))?;
    Ok(FileStats {
        bytes: written,
        lines: n + 1,
        escape_bytes: escapes,
    })
}

/// What the ingest file holds.
#[derive(Debug, Clone, Copy)]
struct FileStats {
    bytes: u64,
    lines: u64,
    /// Bytes inside CSI sequences (`ESC [` … final byte).
    escape_bytes: u64,
}

/// Bytes inside CSI sequences of `line`.
fn escape_bytes(line: &[u8]) -> u64 {
    let mut n = 0;
    let mut inside = false;
    for (i, &b) in line.iter().enumerate() {
        if b == 0x1b && line.get(i + 1) == Some(&b'[') {
            inside = true;
        }
        if inside {
            n += 1;
            if (0x40..=0x7e).contains(&b) && b != b'[' {
                inside = false;
            }
        }
    }
    n
}

#[derive(Debug, Default, Clone)]
pub struct IngestPair {
    pub signaltty_s: f64,
    pub signaltty_cpu_s: f64,
    /// The server thread that used the most CPU (the Pane actor's) and its seconds.
    pub signaltty_busiest: (String, f64),
    pub tmux_s: Option<f64>,
    pub tmux_cpu_s: Option<f64>,
    pub bare_pty_s: f64,
    pub script_s: Option<f64>,
    pub signaltty_first: bool,
}

/// `cat FILE` in a fresh tab; spawn request → `pane.exited`. Returns (seconds, server
/// CPU seconds, busiest server thread).
fn ingest_signaltty(
    server: &Server,
    conn: &mut Conn,
    ws: &str,
    file: &Path,
) -> Res<(f64, f64, (String, f64))> {
    let tab = conn.create_tab(ws)?;
    let path = file.to_string_lossy().into_owned();
    let threads0 = thread_cpu(server.pid());
    let cpu0 = cpu_seconds(server.pid())?;
    let t = Instant::now();
    let pane = conn.spawn(ws, &tab, &["cat", &path])?;
    let exited = conn.wait_event("pane.exited", |p| {
        p.get("pane_id").and_then(Value::as_str) == Some(&pane)
    })?;
    let dt = t.elapsed();
    let cpu = cpu_seconds(server.pid())? - cpu0;
    let busiest = busiest_thread(&threads0, &thread_cpu(server.pid()));
    if exited.get("code").and_then(Value::as_i64) != Some(0) {
        return Err(format!("cat exited with {exited}"));
    }
    // Everything arrived: the last line of the tail is the file's last line.
    let tail = conn.read_text(&pane, "tail", Some(1))?;
    if tail.trim_end() != END_MARKER {
        return Err(format!(
            "the pane's last line is {tail:?}, not the file's last line"
        ));
    }
    conn.call("pane.close", json!({"pane_id": pane}))?;
    conn.call("tab.close", json!({"tab_id": tab}))?;
    Ok((dt.as_secs_f64(), cpu, busiest))
}

/// tmux: `new-window 'cat FILE; tmux wait-for -S CH'`, then `tmux wait-for CH`; from
/// the start of the first command to the return of the second.
fn ingest_tmux(tmux: &Tmux, pid: u32, file: &Path, round: usize) -> Res<(f64, f64)> {
    let channel = format!("ptybench-done-{round}");
    let shell = format!(
        "cat '{}'; tmux wait-for -S {channel}",
        file.to_string_lossy()
    );
    let cpu0 = cpu_seconds(pid)?;
    let t = Instant::now();
    tmux.run(&["new-window", "-d", "-t", "keep:", &shell])?;
    tmux.run(&["wait-for", &channel])?;
    let dt = t.elapsed();
    let cpu = cpu_seconds(pid)? - cpu0;
    Ok((dt.as_secs_f64(), cpu))
}

/// The ceiling: `cat FILE` on a bare PTY (default termios) whose master this process
/// drains with 8 KiB reads, from spawn to EOF.
fn ingest_bare_pty(file: &Path, expected: u64) -> Res<f64> {
    let pty = nix::pty::openpty(None, None).ctx(|| "openpty".into())?;
    nix::fcntl::fcntl(
        &pty.master,
        nix::fcntl::FcntlArg::F_SETFD(nix::fcntl::FdFlag::FD_CLOEXEC),
    )
    .ctx(|| "fcntl".into())?;
    let mut master = fs::File::from(pty.master);
    let t = Instant::now();
    let mut child = {
        let slave: OwnedFd = pty.slave;
        let mut cmd = Command::new("cat");
        cmd.arg(file)
            .stdin(Stdio::null())
            .stdout(Stdio::from(slave))
            .stderr(Stdio::null());
        spawn_unmasked(&mut cmd).ctx(|| "cannot run cat".into())?
        // `cmd` (and with it our copy of the slave) is dropped here, so the master
        // reads EIO once cat exits.
    };
    let mut buf = vec![0u8; 8192];
    let mut total: u64 = 0;
    loop {
        match master.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => total += n as u64,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {},
            Err(e) if e.raw_os_error() == Some(nix::libc::EIO) => break,
            Err(e) => return Err(format!("read the PTY master: {e}")),
        }
    }
    let dt = t.elapsed();
    let _ = child.wait();
    // ONLCR adds a \r per line: at least the file's bytes must have come through.
    if total < expected {
        return Err(format!("bare PTY: read {total} bytes of {expected}"));
    }
    Ok(dt.as_secs_f64())
}

/// util-linux `script -q -c "cat FILE" /dev/null > /dev/null`, whole process.
fn ingest_script(file: &Path) -> Res<f64> {
    let t = Instant::now();
    run_output(Command::new("script").args([
        "-q",
        "-c",
        &format!("cat '{}'", file.to_string_lossy()),
        "/dev/null",
    ]))
    .map(|_| ())?;
    Ok(t.elapsed().as_secs_f64())
}

pub struct IngestResult {
    file_bytes: u64,
    file: FileStats,
    pub pairs: Vec<IngestPair>,
    signaltty_hwm_kb: u64,
}

pub fn bench_ingest(
    opts: &Opts,
    bin: &Path,
    dir: &TempDir,
    log: &dyn Fn(&str),
) -> Res<IngestResult> {
    let file = dir.path().join("ingest.txt");
    log(&format!("ingest: generating {} MB", opts.ingest_mb));
    let stats = generate_file(&file, opts.ingest_mb * 1_000_000)?;
    let bytes = stats.bytes;
    let server = start_server(bin, dir)?;
    let mut conn = connect(&server)?;
    conn.call("subscribe", json!({"events": ["pane.exited"]}))?;
    let ws = conn.create_workspace("bench", Some(Path::new("/tmp")))?;
    let tmux = if opts.no_tmux {
        None
    } else {
        let t = tmux_keep(dir)?;
        let pid = t.server_pid()?;
        Some((t, pid))
    };
    let has_script = run_output(Command::new("script").arg("--version")).is_ok();
    // Warm the page cache and both servers once (not reported).
    log("ingest: warm-up");
    ingest_bare_pty(&file, bytes)?;
    let mut pairs = Vec::new();
    for round in 0..opts.iterations {
        check_interrupted()?;
        let mut pair = IngestPair {
            signaltty_first: round % 2 == 0,
            ..Default::default()
        };
        for step in 0..2 {
            let ours = (step == 0) == pair.signaltty_first;
            if ours {
                log(&format!("ingest {}: signaltty", round + 1));
                (
                    pair.signaltty_s,
                    pair.signaltty_cpu_s,
                    pair.signaltty_busiest,
                ) = ingest_signaltty(&server, &mut conn, &ws, &file)?;
            } else if let Some((t, pid)) = &tmux {
                log(&format!("ingest {}: tmux", round + 1));
                let (s, cpu) = ingest_tmux(t, *pid, &file, round)?;
                pair.tmux_s = Some(s);
                pair.tmux_cpu_s = Some(cpu);
            }
        }
        log(&format!("ingest {}: bare PTY", round + 1));
        pair.bare_pty_s = ingest_bare_pty(&file, bytes)?;
        if has_script {
            pair.script_s = Some(ingest_script(&file)?);
        }
        pairs.push(pair);
    }
    let signaltty_hwm_kb = proc_status_kb(server.pid(), "VmHWM")?;
    drop(tmux);
    drop(conn);
    drop(server);
    let _ = fs::remove_file(&file);
    Ok(IngestResult {
        file_bytes: bytes,
        file: stats,
        pairs,
        signaltty_hwm_kb,
    })
}

fn mbps(bytes: u64, secs: f64) -> f64 {
    bytes as f64 / 1e6 / secs
}

impl IngestResult {
    /// The ingest table.
    pub fn print(&self, o: &mut String) {
        let ing = self;
        let mb = ing.file_bytes as f64 / 1e6;
        let b = ing.file_bytes;
        let _ = writeln!(
            o,
            "\ningest: `cat` of a {mb:.1} MB ANSI log file ({} lines, {:.0} bytes a line, {:.0}% in SGR \
             sequences), MB/s (10^6 B/s of file bytes)",
            ing.file.lines,
            b as f64 / ing.file.lines as f64,
            100.0 * ing.file.escape_bytes as f64 / b as f64
        );
        let _ = writeln!(
            o,
            "{:<4} {:>5} | {:>9} {:>8} {:>16} | {:>8} {:>8} | {:>6} | {:>8} {:>7}",
            "pair",
            "first",
            "signaltty",
            "CPU s",
            "busiest thread",
            "tmux",
            "CPU s",
            "ratio",
            "bare PTY",
            "script"
        );
        for (i, p) in ing.pairs.iter().enumerate() {
            let busy = p.signaltty_busiest.1;
            let busiest = format!("{busy:.2} s {:.0}%", 100.0 * busy / p.signaltty_s);
            let _ = writeln!(
                o,
                "{:<4} {:>5} | {:>9.1} {:>8.2} {busiest:>16} | {:>8} {:>8} | {:>6} | {:>8.1} {:>7}",
                i + 1,
                if p.signaltty_first { "ours" } else { "tmux" },
                mbps(b, p.signaltty_s),
                p.signaltty_cpu_s,
                opt(p.tmux_s.map(|s| mbps(b, s)), 1),
                opt(p.tmux_cpu_s, 2),
                opt(p.tmux_s.map(|t| t / p.signaltty_s), 2),
                mbps(b, p.bare_pty_s),
                opt(p.script_s.map(|s| mbps(b, s)), 1),
            );
        }
        let names: Vec<&str> = ing
            .pairs
            .iter()
            .map(|p| p.signaltty_busiest.0.as_str())
            .collect();
        let _ = writeln!(
            o,
            "(CPU s: the server process during the transfer; busiest thread: the server thread \
             with the most CPU ({}), and its share of the wall time; ratio: signaltty MB/s / tmux MB/s)",
            names.join(", ")
        );
        let _ = writeln!(
            o,
            "median: signaltty {} MB/s, tmux {} MB/s, ratio {}, bare PTY {} MB/s; signaltty peak RSS {} kB",
            opt(
                Some(median(ing.pairs.iter().map(|p| mbps(b, p.signaltty_s)))),
                1
            ),
            opt(
                Some(median(
                    ing.pairs
                        .iter()
                        .filter_map(|p| p.tmux_s.map(|s| mbps(b, s)))
                )),
                1
            ),
            opt(
                Some(median(
                    ing.pairs
                        .iter()
                        .filter_map(|p| p.tmux_s.map(|t| t / p.signaltty_s))
                )),
                2
            ),
            opt(
                Some(median(ing.pairs.iter().map(|p| mbps(b, p.bare_pty_s)))),
                1
            ),
            ing.signaltty_hwm_kb
        );
    }

    pub fn json(&self) -> Value {
        let ing = self;
        let b = ing.file_bytes;
        let pairs: Vec<Value> = ing
            .pairs
            .iter()
            .map(|p| {
                json!({
                    "signaltty_first": p.signaltty_first,
                    "signaltty_s": p.signaltty_s,
                    "signaltty_mb_s": mbps(b, p.signaltty_s),
                    "signaltty_server_cpu_s": p.signaltty_cpu_s,
                    "signaltty_busiest_thread": p.signaltty_busiest.0,
                    "signaltty_busiest_thread_cpu_s": p.signaltty_busiest.1,
                    "tmux_s": p.tmux_s,
                    "tmux_mb_s": p.tmux_s.map(|s| mbps(b, s)),
                    "tmux_server_cpu_s": p.tmux_cpu_s,
                    "ratio": p.tmux_s.map(|t| t / p.signaltty_s),
                    "bare_pty_mb_s": mbps(b, p.bare_pty_s),
                    "script_mb_s": p.script_s.map(|s| mbps(b, s)),
                })
            })
            .collect();
        json!({
            "file_bytes": b,
            "file_lines": ing.file.lines,
            "file_escape_bytes": ing.file.escape_bytes,
            "pairs": pairs,
            "median_ratio": median(ing.pairs.iter().filter_map(|p| p.tmux_s.map(|t| t / p.signaltty_s))),
            "signaltty_peak_rss_kb": ing.signaltty_hwm_kb,
        })
    }
}
