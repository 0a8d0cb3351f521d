//! A stand-in for the Supervisor a pane publishes to: it records and
//! acknowledges every batch, and the test waits on what it recorded.

use actix::prelude::*;
use parking_lot::Mutex;
use signaltty_protocol::Seq;
use std::sync::Arc;
use std::time::Duration;

/// What a `PublishProbe` has been sent.
#[derive(Debug, Default)]
pub struct PublishLog {
    /// Every `Publish`, one batch each, in arrival order.
    pub batches: Vec<Vec<signaltty_protocol::Event>>,
}

impl PublishLog {
    /// The names of every published event, in order.
    pub fn names(&self) -> Vec<&'static str> {
        self.batches.iter().flatten().map(|e| e.name()).collect()
    }
}

/// Stands in for the Supervisor a pane publishes to: records each `Publish`
/// batch and acknowledges it.
pub struct PublishProbe {
    log: Arc<Mutex<PublishLog>>,
    changed: Arc<tokio::sync::Notify>,
    seq: u64,
}

/// The test's side of a `PublishProbe`: what it recorded, and bounded waits.
#[derive(Clone)]
pub struct Published {
    log: Arc<Mutex<PublishLog>>,
    changed: Arc<tokio::sync::Notify>,
}

impl PublishProbe {
    /// Starts a probe on the current arbiter.
    pub fn start() -> (Addr<PublishProbe>, Published) {
        let log = Arc::new(Mutex::new(PublishLog::default()));
        let changed = Arc::new(tokio::sync::Notify::new());
        let probe = PublishProbe {
            log: log.clone(),
            changed: changed.clone(),
            seq: 0,
        }
        .start();
        (probe, Published { log, changed })
    }
}

impl Actor for PublishProbe {
    type Context = Context<Self>;
}

impl Handler<crate::actors::publish::Publish> for PublishProbe {
    type Result = Result<Seq, crate::error::Error>;
    fn handle(
        &mut self,
        msg: crate::actors::publish::Publish,
        _: &mut Self::Context,
    ) -> Self::Result {
        self.seq += msg.events.len() as u64;
        self.log.lock().batches.push(msg.events);
        self.changed.notify_waiters();
        Ok(Seq(self.seq))
    }
}

impl Published {
    /// Reads the log.
    pub fn with<T>(&self, f: impl FnOnce(&PublishLog) -> T) -> T {
        f(&self.log.lock())
    }

    /// The names of every published event so far.
    pub fn names(&self) -> Vec<&'static str> {
        self.log.lock().names()
    }

    /// Waits until `cond` holds for the log, failing after 10 s with `what`
    /// and everything published.
    pub async fn wait_for(&self, what: &str, cond: impl Fn(&PublishLog) -> bool) {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        loop {
            // Registered before the check: a batch between them still wakes us.
            let changed = self.changed.notified();
            if cond(&self.log.lock()) {
                return;
            }
            if tokio::time::timeout_at(deadline, changed).await.is_err() {
                panic!(
                    "timed out waiting for {what}; published: {:?}",
                    self.names()
                );
            }
        }
    }

    /// Waits for the first batch that holds an event named `name` and returns it.
    pub async fn batch_with(&self, name: &str) -> Vec<signaltty_protocol::Event> {
        let find = |log: &PublishLog| {
            log.batches
                .iter()
                .find(|b| b.iter().any(|e| e.name() == name))
                .cloned()
        };
        self.wait_for(&format!("a batch with {name}"), |log| find(log).is_some())
            .await;
        self.with(find).unwrap_or_default()
    }
}
