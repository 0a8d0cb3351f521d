//! The signal allow-list shared by `pane.signal` and every `*.close`
//! (docs/methods.md#panesignal).

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A signal a client may send to a pane's child. Parsed case-insensitively, with or
/// without a `SIG` prefix; anything else is `BAD_PARAMS`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SignalName {
    Int,
    Term,
    Kill,
    Hup,
    Quit,
    Winch,
    Usr1,
    Usr2,
}

impl SignalName {
    /// Every allowed signal.
    pub const ALL: &'static [SignalName] = &[
        SignalName::Int,
        SignalName::Term,
        SignalName::Kill,
        SignalName::Hup,
        SignalName::Quit,
        SignalName::Winch,
        SignalName::Usr1,
        SignalName::Usr2,
    ];

    /// The canonical name, without the `SIG` prefix.
    pub const fn as_str(self) -> &'static str {
        match self {
            SignalName::Int => "INT",
            SignalName::Term => "TERM",
            SignalName::Kill => "KILL",
            SignalName::Hup => "HUP",
            SignalName::Quit => "QUIT",
            SignalName::Winch => "WINCH",
            SignalName::Usr1 => "USR1",
            SignalName::Usr2 => "USR2",
        }
    }

    /// Parses `term`, `TERM`, `SIGTERM`, `sigTerm`, ….
    pub fn parse(text: &str) -> Option<SignalName> {
        let upper = text.to_ascii_uppercase();
        let bare = upper.strip_prefix("SIG").unwrap_or(&upper);
        SignalName::ALL.iter().copied().find(|s| s.as_str() == bare)
    }
}

impl Serialize for SignalName {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for SignalName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        SignalName::parse(&text).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "unknown signal {text:?}, expected one of INT TERM KILL HUP QUIT WINCH USR1 USR2"
            ))
        })
    }
}

#[cfg(test)]
mod tests;
