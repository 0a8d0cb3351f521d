use super::*;

#[test]
fn the_host_flag_is_taken_out_and_the_rest_kept() {
    let args = |v: &[&str]| v.iter().map(OsString::from).collect::<Vec<_>>();
    assert_eq!(
        strip_host(args(&[
            "--host",
            "devbox",
            "integration",
            "install",
            "--all"
        ])),
        ["integration", "install", "--all"]
    );
    assert_eq!(
        strip_host(args(&["doctor", "--host=devbox", "--json"])),
        ["doctor", "--json"]
    );
    assert_eq!(
        strip_host(args(&["config", "show", "--", "--host", "x"])),
        ["config", "show", "--", "--host", "x"]
    );
}
