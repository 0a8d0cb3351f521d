//! Crate-wide tests: the in-process system tests (`system.rs`), the module
//! graph's rules (`module_graph.rs`), and the docs the code cites (`docs.rs`).

mod docs;
mod module_graph;
mod system;
