//! `signaltty web`: the web and phone view (docs/web.md). A client of the
//! local server like the board: one subscription per server feeds a shared
//! picture (`hub`), which `items` turns into what pages are sent; actix-web
//! serves the page, the pairing link, the live channel (`live`) and the
//! actions (`actions`). Who may see anything is `access`; the paired
//! sessions' hashes survive restarts (`store`); `web pair|sessions|revoke`
//! reach the running view through `control`.

pub mod access;
mod actions;
pub mod control;
mod http;
mod hub;
mod items;
mod live;
mod screen;
mod store;

use crate::args::Global;
use access::Access;
use http::App;
use hub::Hub;
use parking_lot::Mutex;
use std::io::IsTerminal as _;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Milliseconds since the epoch (the access rules' clock).
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// The control socket, beside the server's socket.
pub fn control_path(global: &Global) -> PathBuf {
    crate::cli::resolve_socket(global).with_file_name("web.sock")
}

/// Prints a pairing link, and its QR code for a phone's camera.
pub fn print_pairing(url: &str, qr: bool) {
    say!("Pair a browser (the link works once, for 10 minutes):");
    say!("pair: {url}");
    if qr && let Some(drawn) = qr_text(url, std::io::stdout().is_terminal()) {
        say!("{drawn}");
    }
}

/// The link as a QR code in text, two modules to a character, dark modules
/// drawn as blocks. On a terminal each line is also painted black on white:
/// on a dark theme the blocks would otherwise come out light on dark, an
/// inverted code that some phones' cameras do not read.
fn qr_text(url: &str, paint: bool) -> Option<String> {
    let code = qrcode::QrCode::new(url.as_bytes()).ok()?;
    let drawn = code
        .render::<qrcode::render::unicode::Dense1x2>()
        .quiet_zone(true)
        .build();
    if !paint {
        return Some(drawn);
    }
    let lines: Vec<String> = drawn
        .lines()
        .map(|l| format!("\x1b[38;5;16;48;5;231m{l}\x1b[0m"))
        .collect();
    Some(lines.join("\n"))
}

/// Serves until stopped; the exit code.
pub fn run(global: &Global, args: crate::cli::web::WebArgs) -> i32 {
    match serve(global, &args) {
        Ok(()) => 0,
        Err(e) => crate::cli::fail_with(signaltty_protocol::ErrorCode::BadParams, e),
    }
}

/// Where `signaltty web` listens unless told.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:7681";

/// How the view is to be served: the flags [`check`] looks at.
pub struct Serving<'a> {
    pub listen: &'a str,
    /// The certificate chain and the key (PEM files).
    pub tls: Option<(&'a Path, &'a Path)>,
    pub insecure_http: bool,
    pub public_url: Option<&'a str>,
}

impl<'a> Serving<'a> {
    fn of(args: &'a crate::cli::web::WebArgs) -> Serving<'a> {
        Serving {
            listen: &args.listen,
            tls: args.tls_cert.as_deref().zip(args.tls_key.as_deref()),
            insecure_http: args.insecure_http,
            public_url: args.public_url.as_deref(),
        }
    }
}

/// What `signaltty web`'s flags ask for, checked before anything listens:
/// the address, the TLS files read, the loopback rule and the public URL.
/// `service install --web` checks its flags here too, so both refuse alike.
pub fn check(args: &Serving) -> Result<(SocketAddr, Option<rustls::ServerConfig>), String> {
    let addr: SocketAddr = args
        .listen
        .parse()
        .map_err(|e| format!("--listen {}: {e} (an address and port)", args.listen))?;
    let tls = match args.tls {
        Some((cert, key)) => Some(tls_config(cert, key)?),
        None => None,
    };
    if !addr.ip().is_loopback() && tls.is_none() && !args.insecure_http {
        return Err(format!(
            "{addr} is not a loopback address: serve it with --tls-cert and --tls-key, put a \
             TLS proxy or tunnel in front of 127.0.0.1 (docs/web.md#reaching-it-from-a-phone), \
             or say --insecure-http"
        ));
    }
    if let Some(url) = args.public_url {
        let host = url
            .strip_prefix("https://")
            .or_else(|| url.strip_prefix("http://"))
            .map(|rest| rest.split('/').next().unwrap_or_default());
        if host.is_none_or(|h| h.is_empty() || h.contains(char::is_whitespace)) {
            return Err(format!(
                "--public-url {url}: not an http:// or https:// address with a host \
                 (https://box.example.ts.net)"
            ));
        }
    }
    Ok((addr, tls))
}

fn serve(global: &Global, args: &crate::cli::web::WebArgs) -> Result<(), String> {
    let (addr, tls) = check(&Serving::of(args))?;
    let targets = crate::board::targets(global, args.all_hosts)
        .map_err(|_| "cannot name the servers to show (see the error above)".to_owned())?;
    let env = signaltty_model::Env::from_process();
    let sessions_file = env.state_dir().join("web-sessions.json");
    let sessions = store::load(&sessions_file)?;
    let control = control::listen(&control_path(global))?;
    let listener =
        std::net::TcpListener::bind(addr).map_err(|e| format!("cannot listen on {addr}: {e}"))?;
    let bound = listener
        .local_addr()
        .map_err(|e| format!("cannot read the bound address: {e}"))?;
    let scheme = if tls.is_some() { "https" } else { "http" };
    let shown_ip = if bound.ip().is_unspecified() {
        "127.0.0.1".to_owned()
    } else {
        bound.ip().to_string()
    };
    let host_port = if bound.is_ipv6() {
        format!("[{shown_ip}]:{}", bound.port())
    } else {
        format!("{shown_ip}:{}", bound.port())
    };
    let url_base = args
        .public_url
        .clone()
        .map(|u| u.trim_end_matches('/').to_owned())
        .unwrap_or_else(|| format!("{scheme}://{host_port}"));
    let (origins, hosts) = allowed(scheme, &bound, &host_port, &url_base);
    let epoch = access::random_hex(8)?;
    let hub = Arc::new(Hub::new(epoch));
    let named: Vec<(String, signaltty_model::client::Target)> = targets
        .iter()
        .map(|t| (t.name().to_owned(), t.clone()))
        .collect();
    hub.start(&targets);
    let app = Arc::new(App {
        hub,
        access: Mutex::new(Access::with_sessions(sessions)),
        targets: named,
        origins,
        secure: tls.is_some(),
        sessions_file,
        revoked: tokio::sync::watch::channel(0).0,
    });
    // Under a service manager stdout is a log others may read: no code is
    // made at start at all, and `web pair` asks for one (docs/service.md).
    let code = if args.no_pair_link {
        None
    } else {
        Some(app.access.lock().new_code(now_ms())?)
    };
    control::serve(control, app.clone(), url_base.clone());
    say!("signaltty web: serving {url_base} (Ctrl-C stops)");
    match code {
        Some(code) => print_pairing(&format!("{url_base}/pair?code={code}"), !args.no_qr),
        None => say!("Pair a browser: `signaltty web pair` prints a one-time link"),
    }
    let data = actix_web::web::Data::from(app);
    let system = actix_rt::System::new();
    system.block_on(async move {
        let server = actix_web::HttpServer::new(move || {
            let hosts = hosts.clone();
            actix_web::App::new()
                .app_data(data.clone())
                .wrap_fn(move |req, srv| {
                    use actix_web::dev::Service as _;
                    let call = if http::guard(&hosts, &req) {
                        futures_util::future::Either::Right(srv.call(req))
                    } else {
                        let resp = req.into_response(
                            actix_web::HttpResponse::MisdirectedRequest().body("unknown host"),
                        );
                        futures_util::future::Either::Left(async move { Ok(resp) })
                    };
                    async move {
                        let mut resp = call.await?;
                        http::harden(resp.headers_mut());
                        Ok(resp)
                    }
                })
                .configure(http::routes)
        })
        .workers(1)
        .disable_signals();
        let server = match tls {
            Some(cfg) => server.listen_rustls_0_23(listener, cfg),
            None => server.listen(listener),
        }
        .map_err(|e| format!("cannot serve on {bound}: {e}"))?;
        let running = server.run();
        let handle = running.handle();
        actix_rt::spawn(async move {
            let _ = tokio::signal::ctrl_c().await;
            handle.stop(true).await;
        });
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            .map_err(|e| format!("cannot watch SIGTERM: {e}"))?;
        tokio::select! {
            r = running => r.map_err(|e| format!("the web view stopped: {e}")),
            _ = term.recv() => Ok(()),
        }
    })?;
    let _ = std::fs::remove_file(control_path(global));
    Ok(())
}

/// The origins changes may come from and the `Host` values answered.
fn allowed(
    scheme: &str,
    bound: &SocketAddr,
    host_port: &str,
    url_base: &str,
) -> (Vec<String>, Vec<String>) {
    let port = bound.port();
    let mut hosts = vec![host_port.to_owned()];
    if bound.ip().is_loopback() || bound.ip().is_unspecified() {
        hosts.push(format!("localhost:{port}"));
        hosts.push(format!("127.0.0.1:{port}"));
    }
    if let Some(rest) = url_base.split("://").nth(1) {
        hosts.push(rest.split('/').next().unwrap_or(rest).to_owned());
    }
    hosts.sort();
    hosts.dedup();
    let mut origins: Vec<String> = hosts.iter().map(|h| format!("{scheme}://{h}")).collect();
    origins.push(url_base.split('/').take(3).collect::<Vec<_>>().join("/"));
    origins.sort();
    origins.dedup();
    (origins, hosts)
}

/// The TLS configuration from the PEM files, or what is wrong with them.
fn tls_config(
    cert: &std::path::Path,
    key: &std::path::Path,
) -> Result<rustls::ServerConfig, String> {
    use rustls_pki_types::pem::PemObject as _;
    use rustls_pki_types::{CertificateDer, PrivateKeyDer};
    let certs = CertificateDer::pem_file_iter(cert)
        .and_then(|i| i.collect::<Result<Vec<_>, _>>())
        .map_err(|e| format!("--tls-cert {}: {e}", cert.display()))?;
    let key = PrivateKeyDer::from_pem_file(key)
        .map_err(|e| format!("--tls-key {}: {e}", key.display()))?;
    rustls::ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()
        .and_then(|b| b.with_no_client_auth().with_single_cert(certs, key))
        .map_err(|e| format!("the TLS certificate and key: {e}"))
}

#[cfg(test)]
mod tests;
