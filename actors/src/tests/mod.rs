//! Crate-wide tests: the in-process system tests (`system.rs`), the module
//! graph's rules (`module_graph.rs`), the docs the code cites (`docs.rs`),
//! and the files' size limits (`file_size.rs`).

mod docs;
mod file_size;
mod module_graph;
mod system;
