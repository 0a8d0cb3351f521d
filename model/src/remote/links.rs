//! This process's links: one per host, opened on first use and opened again
//! once the last one was lost.

use super::hosts::Host;
use super::link::{Link, LinkError};
use crate::env::Env;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::Arc;

/// One host's slot: its link, while it has one.
type Slot = Arc<Mutex<Option<Arc<Link>>>>;

/// This process's links, one per host, made on first use and made again
/// after one is lost.
pub struct Links {
    slots: Mutex<HashMap<String, Slot>>,
}

impl Links {
    /// The process's links.
    pub fn global() -> &'static Links {
        static LINKS: std::sync::OnceLock<Links> = std::sync::OnceLock::new();
        LINKS.get_or_init(|| Links {
            slots: Mutex::new(HashMap::new()),
        })
    }

    /// The live link to `host`, opened when there is none (a slow host
    /// holds only its own slot).
    pub fn get(&self, host: &Host, env: &Env) -> Result<Arc<Link>, LinkError> {
        let slot = self
            .slots
            .lock()
            .entry(host.name.clone())
            .or_default()
            .clone();
        let mut slot = slot.lock();
        if let Some(link) = slot.as_ref()
            && link.lost().is_none()
            && link.host() == host
        {
            return Ok(link.clone());
        }
        // Not waiting for the hello: the first request rides with the open.
        let link = Arc::new(Link::start(host, env)?);
        *slot = Some(link.clone());
        Ok(link)
    }
}
