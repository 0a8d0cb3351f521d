//! Path rules: the socket (flag, env, runtime dir, /tmp), and the data, config
//! and state directories with their fallbacks.

use super::*;

fn env() -> Env {
    Env {
        uid: 1000,
        ..Env::default()
    }
}

#[test]
fn socket_flag_beats_env_beats_runtime_dir_beats_tmp() {
    let mut e = env();
    assert_eq!(
        e.socket_path(None).0,
        PathBuf::from("/tmp/signaltty-1000/signaltty.sock")
    );
    e.xdg_runtime_dir = Some("/run/user/1000".into());
    assert_eq!(
        e.socket_path(None),
        (
            PathBuf::from("/run/user/1000/signaltty/signaltty.sock"),
            SocketOrigin::Default
        )
    );
    e.signaltty_socket = Some("/x/env.sock".into());
    assert_eq!(
        e.socket_path(None),
        (PathBuf::from("/x/env.sock"), SocketOrigin::Explicit)
    );
    let flag = PathBuf::from("/x/flag.sock");
    assert_eq!(e.socket_path(Some(&flag)).0, flag);
}

#[test]
fn data_and_config_dirs_follow_their_rules() {
    let mut e = env();
    assert_eq!(e.data_dir(), PathBuf::from("/tmp/signaltty-data"));
    e.home = Some("/home/u".into());
    assert_eq!(
        e.data_dir(),
        PathBuf::from("/home/u/.local/share/signaltty")
    );
    e.xdg_data_home = Some("/d".into());
    assert_eq!(e.data_dir(), PathBuf::from("/d/signaltty"));
    assert_eq!(e.config_dir(), PathBuf::from("/home/u/.config/signaltty"));
    e.xdg_config_home = Some("/c".into());
    assert_eq!(e.config_dir(), PathBuf::from("/c/signaltty"));
    e.home = None;
    e.xdg_config_home = None;
    assert_eq!(e.config_dir(), PathBuf::from("/tmp/signaltty-config"));
}

#[test]
fn state_dir_falls_back_from_xdg_to_home_to_tmp() {
    let mut e = env();
    assert_eq!(e.state_dir(), PathBuf::from("/tmp/signaltty-state"));
    e.home = Some("/home/u".into());
    assert_eq!(
        e.state_dir(),
        PathBuf::from("/home/u/.local/state/signaltty")
    );
    e.xdg_state_home = Some("relative".into());
    assert_eq!(
        e.state_dir(),
        PathBuf::from("/home/u/.local/state/signaltty")
    );
    e.xdg_state_home = Some("/s".into());
    assert_eq!(e.state_dir(), PathBuf::from("/s/signaltty"));
}
