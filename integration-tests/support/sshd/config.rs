//! The files sshd and ssh read: `sshd_config` (checked with `sshd -t`), the
//! client config with a `Host` block per account, `known_hosts`, and the keys.

use super::{Account, SSHD, Sshd, read, write};
use crate::support::process::run_with_deadline;
use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;

impl Sshd {
    /// `sshd_config`, `ssh_config` and `known_hosts` for the current port.
    pub(super) fn write_configs(&self) {
        let root = self.root();
        let names: Vec<&str> = self.accounts.iter().map(Account::name).collect();
        let mut server = format!(
            "ListenAddress 127.0.0.1\n\
             Port {port}\n\
             HostKey {root}/host_key\n\
             PidFile {root}/sshd.pid\n\
             AuthorizedKeysFile {root}/authorized_keys/%u\n\
             StrictModes no\n\
             UsePAM no\n\
             PasswordAuthentication no\n\
             KbdInteractiveAuthentication no\n\
             PubkeyAuthentication yes\n\
             PermitRootLogin no\n\
             AllowUsers {names}\n\
             PrintMotd no\n\
             PrintLastLog no\n\
             LogLevel VERBOSE\n\
             ClientAliveInterval 0\n\
             MaxSessions 50\n\
             MaxStartups 50:30:100\n",
            port = self.port,
            root = root.display(),
            names = names.join(" "),
        );
        let config = root.join("sshd_config");
        write(&config, &server);
        // OpenSSH 9.8 and later hold back a source whose connections fail,
        // which would make the tests that kill connections flaky.
        if knows_per_source_penalties(&config) {
            server.push_str("PerSourcePenalties no\n");
            write(&config, &server);
        }
        let check = run_with_deadline(
            Command::new(SSHD).arg("-t").arg("-f").arg(&config),
            "sshd -t",
        );
        assert!(
            check.status.success(),
            "sshd -t rejects {}: {}\n{server}",
            config.display(),
            String::from_utf8_lossy(&check.stderr)
        );
        let mut client = String::new();
        for account in &self.accounts {
            client.push_str(&format!(
                "Host {alias}\n\
                 \x20   HostName 127.0.0.1\n\
                 \x20   Port {port}\n\
                 \x20   User {user}\n\
                 \x20   IdentityFile {key}\n\
                 \x20   IdentitiesOnly yes\n\
                 \x20   UserKnownHostsFile {known}\n\
                 \x20   GlobalKnownHostsFile /dev/null\n\
                 \x20   StrictHostKeyChecking yes\n\
                 \x20   UpdateHostKeys no\n\
                 \x20   BatchMode yes\n\
                 \x20   LogLevel ERROR\n",
                alias = self.alias(account),
                port = self.port,
                user = account.name(),
                key = self.client_key_path().display(),
                known = self.known_hosts_path().display(),
            ));
        }
        write(&self.ssh_config_path(), &client);
        let host_key = read(&root.join("host_key.pub"));
        let key: Vec<&str> = host_key.split_whitespace().take(2).collect();
        write(
            &self.known_hosts_path(),
            &format!("[127.0.0.1]:{} {}\n", self.port, key.join(" ")),
        );
    }
}

/// Whether this sshd has `PerSourcePenalties` (OpenSSH 9.8 and later): its
/// full configuration for `config` lists it.
fn knows_per_source_penalties(config: &Path) -> bool {
    static KNOWS: OnceLock<bool> = OnceLock::new();
    *KNOWS.get_or_init(|| {
        let out = run_with_deadline(
            Command::new(SSHD).arg("-T").arg("-f").arg(config),
            "sshd -T",
        );
        assert!(
            out.status.success(),
            "sshd -T -f {} failed: {}",
            config.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .any(|line| line.starts_with("persourcepenalties "))
    })
}

/// `ssh-keygen -q -t ed25519 -N '' -f PATH`.
pub(super) fn keygen(path: &Path) {
    let out = run_with_deadline(
        Command::new("ssh-keygen")
            .args([
                "-q",
                "-t",
                "ed25519",
                "-N",
                "",
                "-C",
                "signaltty-test",
                "-f",
            ])
            .arg(path),
        "ssh-keygen",
    );
    assert!(
        out.status.success(),
        "ssh-keygen -f {} failed: {}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}
