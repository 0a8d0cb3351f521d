//! PTY benchmarks (being written).
fn main() {}
