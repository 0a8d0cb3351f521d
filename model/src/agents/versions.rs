//! Which agent versions a manifest's rules were checked on, and what the
//! running agent's version says about a pane's reading
//! (docs/agents.md#checked-versions).

use signaltty_protocol::pane::Fidelity;
use std::cmp::Ordering;

/// A release number: its dotted numeric core (`2.1.332`), and whether a
/// pre-release suffix follows it (`0.62.0-nightly.3`).
#[derive(Debug, Clone)]
pub struct Version {
    core: Vec<u64>,
    pre: bool,
}

impl Version {
    /// `1`, `2.1.332`, `v0.61.0`, `0.62.0-preview.1` (a leading `v` and a
    /// `+build` tail are ignored).
    pub fn parse(text: &str) -> Option<Version> {
        let text = text.trim();
        let text = text.strip_prefix('v').unwrap_or(text);
        let text = text.split('+').next().unwrap_or(text);
        let (core, pre) = match text.split_once('-') {
            Some((core, tail)) if !tail.is_empty() => (core, true),
            Some(_) => return None,
            None => (text, false),
        };
        let core = core
            .split('.')
            .map(|n| n.parse::<u64>().ok())
            .collect::<Option<Vec<_>>>()?;
        (!core.is_empty() && core.len() <= 6).then_some(Version { core, pre })
    }
}

impl Ord for Version {
    fn cmp(&self, other: &Version) -> Ordering {
        let len = self.core.len().max(other.core.len());
        let at = |v: &Version, i: usize| v.core.get(i).copied().unwrap_or(0);
        (0..len)
            .map(|i| at(self, i).cmp(&at(other, i)))
            .find(|o| o.is_ne())
            // A pre-release comes before its release.
            .unwrap_or_else(|| other.pre.cmp(&self.pre))
    }
}

/// Equal by their numbers: `0.61` is `0.61.0`.
impl PartialEq for Version {
    fn eq(&self, other: &Version) -> bool {
        self.cmp(other).is_eq()
    }
}

impl Eq for Version {}

impl PartialOrd for Version {
    fn partial_cmp(&self, other: &Version) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// The versions a manifest names (`agent.checked_versions`), validated.
pub fn parse_checked(list: &[String]) -> Result<Vec<String>, String> {
    for v in list {
        if Version::parse(v).is_none() {
            return Err(format!(
                "agent.checked_versions: {v:?} is not a version (numbers separated by dots)"
            ));
        }
    }
    Ok(list.to_vec())
}

/// What `running` means for rules checked on `checked`: `checked` when it is
/// one of them or older than the newest, `unverified` when it is newer than
/// all (or cannot be read as a version). `None` when nothing was checked.
pub fn fidelity(running: &str, checked: &[String]) -> Option<Fidelity> {
    let newest = checked.iter().filter_map(|v| Version::parse(v)).max()?;
    Some(match Version::parse(running) {
        Some(v) if v <= newest => Fidelity::Checked,
        _ => Fidelity::Unverified,
    })
}

/// The newest of `checked`, as written.
pub fn newest(checked: &[String]) -> Option<&str> {
    checked
        .iter()
        .filter_map(|v| Version::parse(v).map(|p| (p, v)))
        .max_by(|a, b| a.0.cmp(&b.0))
        .map(|(_, v)| v.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_compare_by_their_numbers() {
        let v = |s: &str| Version::parse(s).unwrap_or_else(|| panic!("{s}"));
        assert!(v("2.1.332") > v("2.1.197"));
        assert!(v("2.10.0") > v("2.9.9"));
        assert!(v("v0.61.0") == v("0.61"));
        assert!(v("0.62.0-nightly.1") < v("0.62.0"));
        assert!(v("0.62.0-nightly.1") > v("0.61.9"));
        assert_eq!(v("1.2.3+build.7"), v("1.2.3"));
        for bad in ["", "x", "1..2", "1.2-", "1.a"] {
            assert_eq!(Version::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn a_version_newer_than_every_checked_one_is_unverified() {
        let checked = vec!["2.1.197".to_owned(), "2.1.332".to_owned()];
        assert_eq!(fidelity("2.1.332", &checked), Some(Fidelity::Checked));
        assert_eq!(fidelity("2.1.200", &checked), Some(Fidelity::Checked));
        assert_eq!(fidelity("1.0.0", &checked), Some(Fidelity::Checked));
        assert_eq!(fidelity("2.1.333", &checked), Some(Fidelity::Unverified));
        assert_eq!(
            fidelity("3.0.0-beta.1", &checked),
            Some(Fidelity::Unverified)
        );
        assert_eq!(fidelity("garbled", &checked), Some(Fidelity::Unverified));
        assert_eq!(fidelity("2.1.332", &[]), None);
        assert_eq!(newest(&checked), Some("2.1.332"));
        assert!(parse_checked(&["1.x".to_owned()]).is_err());
    }
}
