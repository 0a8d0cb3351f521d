//! Snapshot tests.
