//! `service install --web`: the web view (`signaltty web`) as the user unit
//! `signaltty-web.service`. Its flags are `signaltty web`'s, checked by the
//! same code (`crate::web::check`) before anything is written; what it
//! starts with is read back from `ExecStart=` for `status` and the doctor.

use super::*;
use crate::systemd::WEB;
use crate::web::{DEFAULT_LISTEN, Serving};

/// The flags of `service install` for the web view's unit.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct WebFlags {
    /// Also write, enable and start signaltty-web.service: the web view
    /// (`signaltty web`) from login on; `signaltty web pair` prints a link.
    #[arg(long)]
    pub web: bool,
    /// Where the web view listens (default 127.0.0.1:7681). An address that
    /// is not loopback needs --tls-cert and --tls-key, or --insecure-http.
    #[arg(long, value_name = "ADDR:PORT", requires = "web")]
    pub listen: Option<String>,
    /// The web view shows every configured host's server too.
    #[arg(long, requires = "web")]
    pub all_hosts: bool,
    /// TLS certificate chain (PEM) the web view serves HTTPS with.
    #[arg(long, value_name = "FILE", requires_all = ["web", "tls_key"])]
    pub tls_cert: Option<PathBuf>,
    /// The certificate's private key (PEM).
    #[arg(long, value_name = "FILE", requires_all = ["web", "tls_cert"])]
    pub tls_key: Option<PathBuf>,
    /// The web view serves plain HTTP on an address that is not loopback.
    #[arg(long, requires = "web")]
    pub insecure_http: bool,
    /// The address people open when a proxy or tunnel serves the web view.
    #[arg(long, value_name = "URL", requires = "web")]
    pub public_url: Option<String>,
}

/// The web view's unit as `install` will write it.
pub(super) struct WebPlan {
    /// The words after `web --no-pair-link`.
    pub words: Vec<String>,
    /// What people open (the public URL, else the listening address).
    pub url: String,
    pub listen: String,
}

/// The unit's flags, once `signaltty web` would take them: the same checks,
/// the same refusals (`BAD_PARAMS: …`, as `signaltty web` prints them), and
/// the TLS files as absolute paths (the unit does not run in this directory).
pub(super) fn plan(flags: &WebFlags) -> Result<WebPlan, String> {
    let serving = Serving {
        listen: flags.listen.as_deref().unwrap_or(DEFAULT_LISTEN),
        tls: flags.tls_cert.as_deref().zip(flags.tls_key.as_deref()),
        insecure_http: flags.insecure_http,
        public_url: flags.public_url.as_deref(),
    };
    let bad = |e: String| failure(ErrorCode::BadParams, e);
    let (addr, tls) = crate::web::check(&serving).map_err(bad)?;
    let listen = addr.to_string();
    let mut words = vec!["--listen".to_owned(), listen.clone()];
    if flags.all_hosts {
        words.push("--all-hosts".to_owned());
    }
    if let Some((cert, key)) = serving.tls {
        for (flag, file) in [("--tls-cert", cert), ("--tls-key", key)] {
            let absolute = std::fs::canonicalize(file)
                .map_err(|e| bad(format!("{flag} {}: {e}", file.display())))?;
            let absolute = absolute.to_str().ok_or_else(|| {
                bad(format!(
                    "{flag} {}: the path is not UTF-8",
                    absolute.display()
                ))
            })?;
            words.extend([flag.to_owned(), absolute.to_owned()]);
        }
    }
    if flags.insecure_http {
        words.push("--insecure-http".to_owned());
    }
    if let Some(url) = serving.public_url {
        words.extend(["--public-url".to_owned(), url.to_owned()]);
    }
    let scheme = if tls.is_some() { "https" } else { "http" };
    let url = serving.public_url.map_or_else(
        || format!("{scheme}://{listen}"),
        |u| u.trim_end_matches('/').to_owned(),
    );
    Ok(WebPlan { words, url, listen })
}

/// Whether a `signaltty web` not started by systemd (in a terminal) holds
/// the control socket the unit's view would take: started now, the unit
/// would only fail. Refused unless `force`; forced, the unit is enabled but
/// not started (`true`), with a note saying so.
pub(super) fn held(force: bool, warnings: &mut Vec<String>) -> Result<bool, String> {
    let control = unit_socket().with_file_name("web.sock");
    if std::os::unix::net::UnixStream::connect(&control).is_err()
        || query("is-active", WEB).as_deref() == Some("active")
    {
        return Ok(false);
    }
    if !force {
        // Not a wire code, as the server's ALREADY_RUNNING in `install`.
        return Err(format!(
            "ALREADY_RUNNING: a web view not started by systemd answers on {}: stop it first \
             (Ctrl-C where it runs), or pass --force to install anyway",
            control.display()
        ));
    }
    warnings.push(format!(
        "a web view not started by systemd answers on {}: {WEB} is enabled but not started; \
         stop that view, then start the unit",
        control.display()
    ));
    Ok(true)
}

/// The `systemctl --user` commands that bring the web unit up after
/// `action` (`created`, `updated`, …): a changed unit is restarted, so the
/// new flags apply; with `hold` (the socket or the control socket is taken)
/// it is only enabled.
pub(super) fn start_commands(action: &str, hold: bool) -> Vec<Vec<&'static str>> {
    if hold {
        return vec![vec!["enable", WEB]];
    }
    match action {
        "created" => vec![vec!["enable", "--now", WEB]],
        "unchanged"
            if query("is-enabled", WEB).as_deref() == Some("enabled")
                && query("is-active", WEB).as_deref() == Some("active") =>
        {
            Vec::new()
        },
        "unchanged" => vec![vec!["enable", "--now", WEB]],
        _ => vec![vec!["enable", WEB], vec!["restart", WEB]],
    }
}

/// What a web unit's text starts the view with.
pub(super) struct Described {
    /// Every word of `ExecStart=`.
    pub words: Vec<String>,
    pub program: Option<String>,
    /// `--listen`, else the default.
    pub listen: String,
    pub public_url: Option<String>,
    pub tls: bool,
    pub all_hosts: bool,
}

impl Described {
    /// What people open.
    pub fn url(&self) -> String {
        self.public_url.clone().unwrap_or_else(|| {
            format!(
                "{}://{}",
                if self.tls { "https" } else { "http" },
                self.listen
            )
        })
    }
}

/// Reads a web unit's `ExecStart=` back.
pub(super) fn describe(text: &str) -> Described {
    let words = units::exec_start_words(text).unwrap_or_default();
    let value = |flag: &str| {
        words
            .iter()
            .position(|w| w == flag)
            .and_then(|i| words.get(i + 1))
            .cloned()
    };
    Described {
        program: words.first().cloned(),
        words: words.clone(),
        listen: value("--listen").unwrap_or_else(|| DEFAULT_LISTEN.to_owned()),
        public_url: value("--public-url"),
        tls: words.iter().any(|w| w == "--tls-cert"),
        all_hosts: words.iter().any(|w| w == "--all-hosts"),
    }
}

/// `status`'s lines and JSON for the web unit.
pub(super) fn status(dir: &Path, current: Option<&Path>) -> Result<(String, Value), String> {
    let disk = OnDisk::read(dir, WEB)?;
    let Some(text) = disk.text.as_deref() else {
        return Ok((
            format!("{WEB}: not installed (optional: `signaltty service install --web`)"),
            json!({"unit": WEB, "path": disk.path, "installed": false, "present": false}),
        ));
    };
    let ownership = units::ownership(text);
    let seen = describe(text);
    let enabled = query("is-enabled", WEB);
    let active = query("is-active", WEB);
    let exists = seen
        .program
        .as_deref()
        .is_some_and(|p| Path::new(p).is_file());
    let is_current = current.is_some_and(|c| seen.program.as_deref() == c.to_str());
    let mut line = format!("{WEB}: {} ({})", disk.path.display(), ownership.as_str());
    if seen.program.is_some() {
        let shown: Vec<String> = seen
            .words
            .iter()
            .map(|w| {
                if w.is_empty() || w.contains(char::is_whitespace) {
                    format!("{w:?}")
                } else {
                    w.clone()
                }
            })
            .collect();
        line.push_str(&format!(
            "\n  ExecStart: {}{}",
            shown.join(" "),
            if !exists {
                " (missing: run `signaltty service install --web` again with its flags)"
            } else if !is_current {
                " (another binary than this one)"
            } else {
                ""
            }
        ));
    }
    line.push_str(&format!(
        "\n  listens on {}{}{}",
        seen.listen,
        seen.public_url
            .as_deref()
            .map_or_else(String::new, |u| format!(", opened as {u}")),
        if seen.all_hosts { ", every host" } else { "" }
    ));
    line.push_str(&format!(
        "\n  enabled: {}, active: {}",
        enabled.as_deref().unwrap_or("unknown"),
        active.as_deref().unwrap_or("unknown")
    ));
    if active.as_deref() == Some("active") {
        line.push_str("\n  pair a browser: `signaltty web pair`");
    }
    let json = json!({
        "unit": WEB,
        "path": disk.path,
        "installed": matches!(ownership, Ownership::Ours | Ownership::Edited) && exists,
        "present": true,
        "owner": ownership.as_str(),
        "enabled": enabled,
        "active": active,
        "exec_start": seen.program,
        "exec_start_exists": exists,
        "exec_start_is_this_binary": is_current,
        "listen": seen.listen,
        "url": seen.url(),
        "tls": seen.tls,
        "all_hosts": seen.all_hosts,
    });
    Ok((line, json))
}

/// A note for `install` without `--web`, which leaves the web unit as it
/// is: when it is ours and starts another binary than this one.
pub(super) fn stale_note(dir: &Path, exe: &Path) -> Option<String> {
    let disk = OnDisk::read(dir, WEB).ok()?;
    let text = disk.text.as_deref()?;
    if units::ownership(text) == Ownership::Foreign {
        return None;
    }
    let program = describe(text).program?;
    (Path::new(&program) != exe).then(|| {
        format!(
            "{} (left as it is) starts {program}, not this binary: `signaltty service install \
             --web` with its flags rewrites it",
            disk.path.display()
        )
    })
}
