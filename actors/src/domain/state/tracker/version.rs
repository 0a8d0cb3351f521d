//! The running agent's version against the versions its rules were checked
//! on (docs/agents.md#checked-versions).

use super::AgentTracker;
use signaltty_model::agents::versions;
use signaltty_protocol::pane::Fidelity;

impl AgentTracker {
    /// The agent's version from the packages around its program (the first
    /// one the pane's manifest names) and what it says about the rules.
    /// Returns whether either changed.
    pub(super) fn learn_version(&mut self, packages: &[(String, String)]) -> bool {
        let set = self.rules.current();
        let manifest = set.versions_for(self.pane.agent.kind, &self.process_name);
        let version = manifest.and_then(|m| {
            packages
                .iter()
                .find(|(name, _)| m.packages.contains(name))
                .map(|(_, v)| v.clone())
        });
        let fidelity = match (&version, manifest) {
            (Some(v), Some(m)) => versions::fidelity(v, &m.checked_versions),
            _ => None,
        };
        let agent = &mut self.pane.agent;
        if agent.version == version && agent.fidelity == fidelity {
            return false;
        }
        agent.version = version;
        agent.fidelity = fidelity;
        true
    }

    /// For `pane.explain`: the running version, the checked ones, and in
    /// words what follows.
    pub fn version_explain(&self) -> serde_json::Value {
        let set = self.rules.current();
        let manifest = set.versions_for(self.pane.agent.kind, &self.process_name);
        let checked = manifest
            .map(|m| m.checked_versions.clone())
            .unwrap_or_default();
        let newest = versions::newest(&checked).unwrap_or("");
        let agent = &self.pane.agent;
        let reason = match (&agent.version, agent.fidelity) {
            (Some(v), Some(Fidelity::Unverified)) => format!(
                "version {v} is newer than every version its rules were checked on (newest {newest}): the state is their best reading, unverified"
            ),
            (Some(v), Some(Fidelity::Checked)) => {
                format!("version {v}: its rules were checked on it or a newer one ({newest})")
            },
            (Some(v), None) => format!("version {v}: no version was checked for this agent"),
            (None, _) if manifest.is_some() => {
                "its version is not known: no package metadata beside its program".to_owned()
            },
            (None, _) => "no manifest names the versions this agent was checked on".to_owned(),
        };
        serde_json::json!({
            "running": agent.version,
            "checked": checked,
            "fidelity": agent.fidelity,
            "reason": reason,
        })
    }
}
