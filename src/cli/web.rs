//! `signaltty web`: the command's flags, and `web pair|sessions|revoke`,
//! which ask the running web view; the view itself is `src/web/`.

use crate::args::Global;
use crate::cli::fail_with;
use serde_json::json;
use signaltty_protocol::ErrorCode;
use std::path::PathBuf;

/// `signaltty web` options.
#[derive(Debug, Clone, clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct WebArgs {
    #[command(subcommand)]
    pub command: Option<WebCommand>,
    /// Where to listen. An address that is not loopback needs --tls-cert and
    /// --tls-key, or --insecure-http (docs/web.md#reaching-it-from-a-phone).
    #[arg(long, value_name = "ADDR:PORT", default_value = crate::web::DEFAULT_LISTEN)]
    pub listen: String,
    /// This machine's server and every configured host's in one view.
    #[arg(long)]
    pub all_hosts: bool,
    /// TLS certificate chain (PEM) to serve HTTPS with.
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// The certificate's private key (PEM).
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// Serve plain HTTP on an address that is not loopback (cookies and
    /// pairing codes then cross the network in the clear).
    #[arg(long)]
    pub insecure_http: bool,
    /// The address people open, when a proxy or tunnel serves this view
    /// (`https://box.example.ts.net`): pairing links use it and its origin
    /// is allowed.
    #[arg(long, value_name = "URL")]
    pub public_url: Option<String>,
    /// Print the pairing link without its QR code.
    #[arg(long)]
    pub no_qr: bool,
    /// Make no pairing link at start (for a service, whose output goes to a
    /// log): `signaltty web pair` prints one when it is wanted.
    #[arg(long)]
    pub no_pair_link: bool,
}

#[derive(Debug, Clone, clap::Subcommand)]
pub enum WebCommand {
    /// Print a fresh one-time pairing link (and its QR code).
    Pair {
        /// Without the QR code.
        #[arg(long)]
        no_qr: bool,
    },
    /// The paired browsers.
    Sessions,
    /// End a paired browser's session (`--all`: every one).
    Revoke {
        /// The session id `web sessions` shows.
        #[arg(required_unless_present = "all")]
        id: Option<String>,
        #[arg(long, conflicts_with = "id")]
        all: bool,
    },
}

pub fn run(global: &Global, args: WebArgs) -> i32 {
    let control = crate::web::control_path(global);
    let ask = |request| crate::web::control::ask(&control, &request);
    match args.command {
        None => crate::web::run(global, args),
        Some(WebCommand::Pair { no_qr }) => match ask(json!({"op": "pair"})) {
            Ok(v) => {
                let url = v["url"].as_str().unwrap_or_default();
                if global.json {
                    say!("{v}");
                } else {
                    crate::web::print_pairing(url, !no_qr);
                }
                0
            },
            Err(e) => fail_with(ErrorCode::NoSuchServer, e),
        },
        Some(WebCommand::Sessions) => match ask(json!({"op": "sessions"})) {
            Ok(v) => {
                if global.json {
                    say!("{v}");
                } else {
                    let list = v["sessions"].as_array().cloned().unwrap_or_default();
                    if list.is_empty() {
                        say!("no paired browsers");
                    }
                    for s in list {
                        say!(
                            "{}  {}",
                            s["id"].as_str().unwrap_or_default(),
                            s["label"].as_str().unwrap_or_default()
                        );
                    }
                }
                0
            },
            Err(e) => fail_with(ErrorCode::NoSuchServer, e),
        },
        Some(WebCommand::Revoke { id, all }) => {
            match ask(json!({"op": "revoke", "id": id, "all": all})) {
                Ok(v) => {
                    let n = v["revoked"].as_u64().unwrap_or(0);
                    if global.json {
                        say!("{v}");
                        0
                    } else if n == 0 {
                        fail_with(ErrorCode::BadParams, "no such session")
                    } else {
                        say!("revoked {n} session(s)");
                        0
                    }
                },
                Err(e) => fail_with(ErrorCode::NoSuchServer, e),
            }
        },
    }
}
