//! Crate-wide tests: the in-process system tests (`system.rs`) and the
//! module graph's rules (`module_graph.rs`).

mod module_graph;
mod system;
