use super::*;

#[test]
fn the_capacity_leaves_the_reserve_and_counts_whole_panes() {
    assert_eq!(pane_capacity(0), 0);
    assert_eq!(pane_capacity(RESERVED_FDS), 0);
    assert_eq!(pane_capacity(1024), (1024 - RESERVED_FDS) / FDS_PER_PANE);
    assert_eq!(pane_capacity(524_288), 261_888);
    assert_eq!(pane_capacity(1000), 244);
}
