//! The count of pane launches under way, which a hook from a process whose pane
//! is not registered yet waits on.

/// Pane launches under way: a launched process may report a hook before its
/// pane is registered, so such a hook waits for the launches to finish.
#[derive(Debug)]
pub struct Launches {
    under_way: usize,
    finished: tokio::sync::watch::Sender<u64>,
}

impl Default for Launches {
    fn default() -> Self {
        Launches {
            under_way: 0,
            finished: tokio::sync::watch::channel(0).0,
        }
    }
}

impl Launches {
    /// A launch starts (counted from before its process exists).
    pub fn begin(&mut self) {
        self.under_way += 1;
    }

    /// A launch ended, placed or not: hooks that found no pane retry.
    pub fn end(&mut self) {
        self.under_way = self.under_way.saturating_sub(1);
        self.finished.send_modify(|n| *n += 1);
    }

    /// Some launch is under way.
    pub fn any(&self) -> bool {
        self.under_way > 0
    }

    /// Changes each time a launch ends.
    pub fn watch(&self) -> tokio::sync::watch::Receiver<u64> {
        self.finished.subscribe()
    }
}
