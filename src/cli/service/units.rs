//! The systemd user units `signaltty service install` writes (the server's
//! two, and the web view's with `--web`), the marker line that says a file is
//! ours (and whether it was edited since), and the program `status` reads
//! from `ExecStart=` (the reading itself is `crate::systemd::unit_file`).
//! Pure: no I/O.

use std::path::Path;

pub use crate::systemd::unit_file::exec_start_words;
pub use crate::systemd::{SERVICE, SOCKET};
/// Where the socket unit listens: the server's default socket path in the
/// user manager's runtime directory (`%t` is `$XDG_RUNTIME_DIR`).
pub const LISTEN_STREAM: &str = "%t/signaltty/signaltty.sock";
/// How a file we wrote begins; the hash of the rest follows it.
pub const MARKER: &str = "# signaltty-managed";

/// Whose a unit file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ownership {
    /// Written by us and unchanged since: ours to replace or remove.
    Ours,
    /// Written by us, then edited: replaced only with `--force`.
    Edited,
    /// No marker line: the user's own file.
    Foreign,
}

impl Ownership {
    /// The word `status` and `--json` use.
    pub fn as_str(self) -> &'static str {
        match self {
            Ownership::Ours => "ours",
            Ownership::Edited => "edited",
            Ownership::Foreign => "foreign",
        }
    }
}

/// The service unit, marker line included. `exe` is the absolute path of the
/// binary; `path_env` the `PATH` panes start with (the installing shell's).
pub fn service_unit(exe: &Path, path_env: Option<&str>) -> Result<String, String> {
    let exe = absolute_exe(exe)?;
    let environment = environment(path_env, "panes start with it");
    let body = format!(
        "[Unit]\n\
         Description=signaltty server: the terminals of AI coding agents\n\
         Requires={SOCKET}\n\
         After={SOCKET}\n\
         \n\
         [Service]\n\
         # The server tells systemd when it answers (READY=1) and when it stops.\n\
         Type=notify\n\
         NotifyAccess=main\n\
         ExecStart={} server\n\
         {environment}\
         Restart=on-failure\n\
         RestartSec=2s\n\
         # 3: another server holds the socket or the state directory; a restart cannot help.\n\
         RestartPreventExitStatus=3\n\
         # SIGTERM goes to the server alone, which writes its snapshot and ends its panes.\n\
         KillMode=mixed\n\
         TimeoutStopSec=30s\n\
         \n\
         [Install]\n\
         Also={SOCKET}\n",
        quote_word(exe)
    );
    Ok(with_marker(&body))
}

/// The web view's unit, marker line included: `exe web --no-pair-link` and
/// `flags` (the `signaltty web` flags, already checked), one word each. It
/// wants the server's units and starts after them, so the server is up (or
/// its socket listens) when the view first connects.
pub fn web_unit(exe: &Path, flags: &[String], path_env: Option<&str>) -> Result<String, String> {
    let exe = absolute_exe(exe)?;
    let mut command = vec![quote_word(exe), "web".to_owned(), NO_PAIR_LINK.to_owned()];
    command.extend(flags.iter().map(|w| quote_word(w)));
    let environment = environment(path_env, "ssh (for --all-hosts) is looked up in it");
    let body = format!(
        "[Unit]\n\
         Description=signaltty web view: the panes, questions and tasks in a browser\n\
         Wants={SOCKET} {SERVICE}\n\
         After={SOCKET} {SERVICE}\n\
         # Five failed starts within two minutes (a taken port, an unreadable\n\
         # certificate) and it stays down: `systemctl --user status` says why.\n\
         StartLimitIntervalSec=120s\n\
         StartLimitBurst=5\n\
         \n\
         [Service]\n\
         Type=exec\n\
         # {NO_PAIR_LINK}: its output goes to the journal, which must carry no pairing\n\
         # code; `signaltty web pair` asks the running view for a link.\n\
         ExecStart={}\n\
         {environment}\
         Restart=on-failure\n\
         RestartSec=5s\n\
         TimeoutStopSec=10s\n\
         \n\
         [Install]\n\
         WantedBy=default.target\n",
        command.join(" ")
    );
    Ok(with_marker(&body))
}

/// The flag the web unit always passes: no pairing link in the journal.
pub const NO_PAIR_LINK: &str = "--no-pair-link";

/// `exe` as a string, when it is UTF-8 and absolute (what ExecStart= needs).
fn absolute_exe(exe: &Path) -> Result<&str, String> {
    let exe = exe
        .to_str()
        .ok_or_else(|| format!("the binary's path {} is not UTF-8", exe.display()))?;
    if !exe.starts_with('/') {
        return Err(format!("the binary's path {exe} is not absolute"));
    }
    Ok(exe)
}

/// The `Environment="PATH=…"` line and its comment (empty without a PATH).
fn environment(path_env: Option<&str>, why: &str) -> String {
    match path_env.filter(|p| !p.is_empty()) {
        Some(path) => format!(
            "# The PATH of the shell that ran `signaltty service install`: {why}.\n\
             Environment={}\n",
            quote(&format!("PATH={path}").replace('%', "%%"))
        ),
        None => String::new(),
    }
}

/// The socket unit, marker line included.
pub fn socket_unit() -> String {
    let body = format!(
        "[Unit]\n\
         Description=signaltty server socket\n\
         \n\
         [Socket]\n\
         ListenStream={LISTEN_STREAM}\n\
         SocketMode=0600\n\
         DirectoryMode=0700\n\
         RemoveOnStop=yes\n\
         Service={SERVICE}\n\
         \n\
         [Install]\n\
         WantedBy=sockets.target\n"
    );
    with_marker(&body)
}

/// `body` behind the marker line carrying its hash.
fn with_marker(body: &str) -> String {
    format!(
        "{MARKER} {:016x}: written by `signaltty service install`; delete this line to make the file yours\n{body}",
        fnv1a64(body.as_bytes())
    )
}

/// Whose `text` (a unit file's content) is.
pub fn ownership(text: &str) -> Ownership {
    let (first, body) = text.split_once('\n').unwrap_or((text, ""));
    let Some(rest) = first.strip_prefix(MARKER) else {
        return Ownership::Foreign;
    };
    let hash = rest
        .trim_start()
        .split(|c: char| !c.is_ascii_hexdigit())
        .next()
        .and_then(|h| u64::from_str_radix(h, 16).ok());
    match hash {
        Some(h) if h == fnv1a64(body.as_bytes()) => Ownership::Ours,
        _ => Ownership::Edited,
    }
}

/// FNV-1a, 64 bits: enough to notice an edit (this is not a security check).
fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// `word` as one ExecStart= word: `%` and `$` doubled (specifiers and
/// variables), double-quoted when it is empty or holds a blank, a quote, a
/// backslash or a `;`.
fn quote_word(word: &str) -> String {
    let escaped = word.replace('%', "%%").replace('$', "$$");
    if escaped.is_empty()
        || escaped
            .chars()
            .any(|c| c.is_whitespace() || matches!(c, '"' | '\'' | '\\' | ';'))
    {
        quote(&escaped)
    } else {
        escaped
    }
}

/// `text` in double quotes, with `\` and `"` escaped (`%` is the caller's).
fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The program of the service unit's `ExecStart=`, unquoted and unescaped.
pub fn exec_start_program(text: &str) -> Option<String> {
    exec_start_words(text)?.into_iter().next()
}

#[cfg(test)]
mod tests;
