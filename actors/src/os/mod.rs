//! What talks to the operating system: PTYs and child processes, git, `/proc`,
//! the listening socket and systemd's handover, and the in-place upgrade's
//! exec. Blocking calls here run on blocking threads, never in a handler.

pub mod activation;
pub mod git;
pub mod limits;
pub mod listener;
pub mod malloc;
pub mod occupants;
pub mod procfs;
pub mod pty;
pub mod seams;
pub mod text;
pub mod upgrade;
pub mod zone;
