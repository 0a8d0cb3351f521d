//! End-to-end tests (docs/ARCHITECTURE.md#testing): each test runs the real
//! `signaltty` binary in fresh temp `XDG_*` dirs and talks to it over its Unix socket
//! or through the CLI.

mod support;

mod activation;
mod agents;
mod agents_record;
mod attach;
mod board;
mod cli;
mod cli_mapping;
mod clock;
mod closed_stdout;
mod config;
mod decisions;
mod diff;
mod differential;
mod doctor;
mod failed_spawn;
mod first_hour;
mod flood;
mod full_disk;
mod hibernate;
mod hooks;
mod integration;
mod journal;
mod journal_faults;
mod layouts;
mod limits;
mod manual;
mod notifications;
mod pane_ops;
mod panes;
mod readme;
mod real_agents;
mod remote;
mod remote_harness;
mod replay;
mod restore;
mod security;
mod service;
mod spawn_env;
mod state_dir;
mod states;
mod tabs;
mod task_finish;
mod tasks;
mod thousand_panes;
mod transport;
mod upgrade;
mod wait;
mod web;
mod workspace;
mod worktrees;
