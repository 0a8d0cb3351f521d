//! `signaltty host add|list|remove|check`: the machines reached over
//! OpenSSH, saved in the config file's `[hosts.NAME]` tables
//! (docs/remote.md#hosts).

use crate::args::Global;
use crate::cli::{fail_call, fail_with, human_duration, say_err};
use crate::remote::configured;
use clap::Subcommand;
use signaltty_model::Env;
use signaltty_model::client::Client;
use signaltty_model::client::conn::link_error;
use signaltty_model::remote::{Host, Link, hosts, ssh};
use signaltty_protocol::server::ServerStatusResult;
use signaltty_protocol::{ErrorCode, Method};
use std::path::PathBuf;
use std::time::{Duration, Instant};

#[derive(Debug, Subcommand)]
pub enum HostCommand {
    /// Save a host: a name for an ssh destination (a ~/.ssh/config alias,
    /// user@host or ssh://user@host:port).
    Add {
        /// The name to use with --host and in HOST:PANE.
        name: String,
        /// What `ssh` is given as the destination.
        dest: String,
        /// The remote signaltty, when it is not on the PATH of a
        /// non-interactive ssh session (e.g. ~/.cargo/bin/signaltty).
        #[arg(long, value_name = "PATH")]
        remote_bin: Option<String>,
        /// The remote server's socket, when it is not the remote default.
        #[arg(long, value_name = "PATH")]
        remote_socket: Option<String>,
        /// An ssh option (`-o`), e.g. `Port=2222`; repeatable.
        #[arg(long = "ssh-option", value_name = "OPTION")]
        ssh_options: Vec<String>,
        /// An ssh config file to use instead of ~/.ssh/config (`ssh -F`).
        #[arg(long, value_name = "FILE")]
        ssh_config: Option<PathBuf>,
    },
    /// The saved hosts.
    List,
    /// Forget a host (and end its ssh control master).
    Remove {
        /// The host's name.
        name: String,
    },
    /// Reach a host: its signaltty's version and protocol, its server, and
    /// the round trip. Exits 1 with ssh's error when it cannot.
    Check {
        /// The host's name.
        name: String,
    },
}

/// `signaltty host …`.
pub fn run(global: &Global, cmd: HostCommand) -> i32 {
    match cmd {
        HostCommand::Add {
            name,
            dest,
            remote_bin,
            remote_socket,
            ssh_options,
            ssh_config,
        } => {
            let ssh_config = match ssh_config.map(std::path::absolute).transpose() {
                Ok(c) => c,
                Err(e) => return fail_with(ErrorCode::BadParams, format!("--ssh-config: {e}")),
            };
            let host = Host {
                name,
                dest,
                remote_bin,
                remote_socket,
                ssh_options,
                ssh_config,
            };
            add(global, &host)
        },
        HostCommand::List => list(global),
        HostCommand::Remove { name } => remove(global, &name),
        HostCommand::Check { name } => check(global, &name),
    }
}

fn config_path() -> PathBuf {
    signaltty_model::settings::file_path(&Env::from_process())
}

fn add(global: &Global, host: &Host) -> i32 {
    if let Err(why) = hosts::check_name(&host.name) {
        return fail_with(ErrorCode::BadParams, why);
    }
    if host.dest.is_empty() || host.dest.starts_with('-') {
        return fail_with(
            ErrorCode::BadParams,
            format!("{:?} is not an ssh destination", host.dest),
        );
    }
    let path = config_path();
    if let Err(why) = hosts::edit_file(&path, |text| hosts::with_host(text, host)) {
        return fail_with(ErrorCode::BadParams, why);
    }
    if global.json {
        say!("{}", serde_json::json!({"added": host, "config": path}));
    } else {
        say!("added {} ({}) to {}", host.name, host.dest, path.display());
        say!("  check it: signaltty host check {}", host.name);
    }
    0
}

fn list(global: &Global) -> i32 {
    let table = configured();
    if global.json {
        say!(
            "{}",
            serde_json::json!({"hosts": table.hosts, "problems": table.problems})
        );
    } else {
        if table.hosts.is_empty() {
            say!("no hosts (add one with `signaltty host add NAME SSH_DESTINATION`)");
        }
        for h in &table.hosts {
            let mut extra = Vec::new();
            if let Some(b) = &h.remote_bin {
                extra.push(format!("remote-bin {b}"));
            }
            if let Some(s) = &h.remote_socket {
                extra.push(format!("remote-socket {s}"));
            }
            if let Some(c) = &h.ssh_config {
                extra.push(format!("ssh-config {}", c.display()));
            }
            for o in &h.ssh_options {
                extra.push(format!("-o {o}"));
            }
            if extra.is_empty() {
                say!("{}  {}", h.name, h.dest);
            } else {
                say!("{}  {}  ({})", h.name, h.dest, extra.join(", "));
            }
        }
        for p in &table.problems {
            say_err(&format!("  ! {p}"));
        }
    }
    0
}

fn remove(global: &Global, name: &str) -> i32 {
    let host = configured().get(name).cloned();
    let path = config_path();
    if let Err(why) = hosts::edit_file(&path, |text| hosts::without_host(text, name)) {
        return fail_with(ErrorCode::BadParams, why);
    }
    if let Some(host) = host {
        end_master(&host);
    }
    if global.json {
        say!("{}", serde_json::json!({"removed": name}));
    } else {
        say!("removed {name}");
    }
    0
}

/// Asks a host's control master, if one runs, to exit.
fn end_master(host: &Host) {
    let dir = ssh::control_dir(&Env::from_process());
    let mut args = ssh::options(host, &dir);
    args.extend(["-O".into(), "exit".into(), "--".into(), (&host.dest).into()]);
    let child = std::process::Command::new("ssh")
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    if let Ok(mut child) = child {
        let deadline = Instant::now() + Duration::from_secs(3);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = child.kill();
        let _ = child.wait();
    }
}

fn check(global: &Global, name: &str) -> i32 {
    let host = match crate::remote::find(name) {
        Ok(h) => h,
        Err(code) => return code,
    };
    let began = Instant::now();
    let link = match Link::open(&host, &Env::from_process()) {
        Ok(l) => l,
        Err(e) => return fail_call(link_error(e)),
    };
    let connect = began.elapsed();
    let Some(hello) = link.hello() else {
        return fail_with(ErrorCode::Internal, "the link has no hello");
    };
    let mut pings = Vec::new();
    for _ in 0..5 {
        match link.ping(Duration::from_secs(5)) {
            Ok(rtt) => pings.push(rtt),
            Err(e) => return fail_call(link_error(e)),
        }
    }
    pings.sort();
    let rtt = pings[pings.len() / 2];
    let status = match link.channel() {
        Ok(ch) => {
            let (r, w) = ch.split();
            let mut client = Client::from_halves(
                signaltty_model::client::ConnRead::Channel(r),
                signaltty_model::client::ConnWrite::Channel(w),
            );
            let sent = Instant::now();
            client
                .call(Method::ServerStatus(Default::default()))
                .map(|v| (v, sent.elapsed()))
        },
        Err(e) => Err(link_error(e)),
    };
    let (status, status_rtt) = match status {
        Ok((v, t)) => match serde_json::from_value::<ServerStatusResult>(v) {
            Ok(s) => (s, t),
            Err(e) => {
                return fail_with(ErrorCode::Internal, format!("unexpected status: {e}"));
            },
        },
        Err(e) => return fail_call(e),
    };
    link.close();
    let here = env!("CARGO_PKG_VERSION");
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    if global.json {
        say!(
            "{}",
            serde_json::json!({
                "host": host.name,
                "dest": host.dest,
                "reachable": true,
                "connect_ms": ms(connect),
                "version": hello.version,
                "protocol": hello.protocol,
                "socket": hello.socket,
                "started": hello.started,
                "server_version": status.version,
                "rtt_ms": ms(rtt),
                "status_ms": ms(status_rtt),
                "same_version": hello.version == here && status.version == here,
            })
        );
        return 0;
    }
    say!(
        "{}  {}: reachable, link up in {:.0} ms",
        host.name,
        host.dest,
        ms(connect)
    );
    say!(
        "  remote signaltty {} ({}), socket {}{}",
        hello.version,
        hello.protocol,
        hello.socket,
        if hello.started {
            " (server started now)"
        } else {
            ""
        }
    );
    say!(
        "  server {} up {}, {} pane(s) ({} live)",
        status.version,
        human_duration(status.uptime_s),
        status.panes,
        status.live_panes
    );
    say!(
        "  round trip: ping {:.1} ms, server.status {:.1} ms",
        ms(rtt),
        ms(status_rtt)
    );
    if hello.version != here || status.version != here {
        say!(
            "  ! this machine runs {here}: the protocol matches, but install the same \
             version on both to get every feature"
        );
    }
    0
}
