//! Whether the server's state directory takes writes, looked at every few
//! seconds on a connection of its own (docs/reliability.md#a-full-disk).
//! While it does not, the server publishes nothing new, so the event feed
//! cannot say it: the status line does, from here.

use super::Input;
use signaltty_model::client::Client;
use signaltty_model::client::Target;
use signaltty_protocol::Method;
use signaltty_protocol::server::{ServerStatusResult, StorageStatus};
use std::sync::mpsc::Sender;
use std::time::Duration;

/// How often the board asks.
const EVERY: Duration = Duration::from_secs(3);

/// Asks the board's host `host` on its own thread until the main loop goes
/// away; sends the storage status when it changes (`None`: fine, or a server
/// too old to say). Every host of the board has a watch of its own.
pub fn watch(host: usize, socket: Target, out: Sender<Input>) {
    std::thread::spawn(move || {
        let mut client: Option<Client> = None;
        let mut last: Option<Option<StorageStatus>> = None;
        loop {
            if client.is_none() {
                client = Client::open(&socket).ok();
                if let Some(c) = client.as_mut() {
                    let _ = c.set_timeout(Some(EVERY));
                }
            }
            let seen = client.as_mut().map(|c| {
                c.call(Method::ServerStatus(Default::default()))
                    .ok()
                    .and_then(|v| serde_json::from_value::<ServerStatusResult>(v).ok())
            });
            match seen {
                Some(Some(status)) => {
                    let storage = status.storage.filter(|s| s.state != "ok");
                    if last.as_ref() != Some(&storage) {
                        if out.send(Input::Storage(host, storage.clone())).is_err() {
                            return;
                        }
                        last = Some(storage);
                    }
                },
                // The feed says when the server is gone; ask again later.
                _ => client = None,
            }
            std::thread::sleep(EVERY);
        }
    });
}
