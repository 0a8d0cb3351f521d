//! Id newtypes (docs/objects.md#ids). Ids are opaque strings to clients; the
//! prefix (`ws_`, `tab_`, `pane_`) is cosmetic but lets a reference tell an id
//! from a handle or a name, since handles and names never contain `_`.

use serde::{Deserialize, Serialize};

macro_rules! hex_id {
    ($(#[$doc:meta])* $name:ident, $prefix:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub String);

        impl $name {
            /// The prefix every id of this kind starts with.
            pub const PREFIX: &'static str = $prefix;

            /// Builds the id from 128 random bits, formatted as a UUIDv4 without dashes.
            pub fn from_random(bits: u128) -> Self {
                // Set the version (4) and variant (10xx) bits, as a UUIDv4 does.
                let bits = (bits & !(0xF << 76)) | (0x4 << 76);
                let bits = (bits & !(0x3 << 62)) | (0x2 << 62);
                $name(format!("{}{:032x}", $prefix, bits))
            }

            /// The id as text.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.0)
            }
        }
    };
}

hex_id!(
    /// A workspace id: `ws_` + 32 lowercase hex digits.
    WorkspaceId,
    "ws_"
);
hex_id!(
    /// A tab id: `tab_` + 32 lowercase hex digits.
    TabId,
    "tab_"
);
hex_id!(
    /// A pane id: `pane_` + 32 lowercase hex digits. Stable across resume and restart.
    PaneId,
    "pane_"
);

hex_id!(
    /// A task id: `task_` + 32 lowercase hex digits (docs/objects.md#ids).
    TaskId,
    "task_"
);
hex_id!(
    /// A task context id: `tctx_` + 32 lowercase hex digits; refinements of
    /// one piece of work are new tasks in the same context.
    ContextId,
    "tctx_"
);

/// A reference to a workspace as a client writes it: its id or its handle
/// (docs/protocol.md#addressing). Resolution tries ids first, then handles.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct WorkspaceRef(pub String);

impl WorkspaceRef {
    /// The reference as the client wrote it.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for WorkspaceRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A reference to a pane as a client writes it: its id or its name
/// (docs/protocol.md#addressing). Resolution tries ids first, then names; a resolved pane is a
/// [`PaneId`], so an unresolved reference and an id never look the same.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct PaneRef(pub String);

impl PaneRef {
    /// The reference as the client wrote it.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl From<PaneId> for PaneRef {
    /// A pane id is always a valid reference to its pane.
    fn from(id: PaneId) -> Self {
        PaneRef(id.0)
    }
}

impl From<&PaneId> for PaneRef {
    fn from(id: &PaneId) -> Self {
        PaneRef(id.0.clone())
    }
}

impl std::fmt::Display for PaneRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A server-wide event sequence number: strictly increasing, never reused.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Seq(pub u64);

impl Seq {
    /// The number after this one.
    pub fn next(self) -> Seq {
        Seq(self.0 + 1)
    }
}

impl std::fmt::Display for Seq {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

#[cfg(test)]
mod tests;
