//! `config show`'s table: rows fit 80 columns or move the origin down.

use super::*;

#[test]
fn rows_fit_80_columns_or_move_the_origin_down() {
    let r = row("connections.slow_subscriber_bytes", "4194304", "default");
    assert_eq!(r.len(), 1);
    assert!(r[0].chars().count() <= WIDTH, "{r:?}");
    let r = row(
        "tasks.worker_silent_timeout_s",
        "600",
        "$SIGNALTTY_WORKER_SILENT_TIMEOUT_S",
    );
    assert_eq!(r.len(), 1, "{r:?}");
    let r = row(
        "server.socket",
        "/run/user/1000/signaltty/signaltty.sock",
        "$SIGNALTTY_SOCKET",
    );
    assert_eq!(r.len(), 2, "{r:?}");
    assert!(r[1].ends_with("from $SIGNALTTY_SOCKET"), "{r:?}");
    for knob in signaltty_model::settings::knobs::KNOBS {
        assert!(knob.name().len() <= KEY_WIDTH, "{}", knob.name());
    }
}
