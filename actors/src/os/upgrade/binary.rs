//! The pre-flight check of an upgrade's binary: `execve` only fails after the
//! server has quiesced, so everything that makes it fail for a reason that
//! can be seen beforehand is checked first — the path exists and is a regular
//! file this user may execute, and it is an ELF program for this machine (the
//! class, byte order and `e_machine` of the running binary) or a `#!` script.

use crate::error::Error;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The part of an ELF header that says which machine a program runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Machine {
    /// `EI_CLASS`: 1 for 32-bit, 2 for 64-bit.
    pub class: u8,
    /// `EI_DATA`: 1 for little-endian, 2 for big-endian.
    pub data: u8,
    /// `e_machine` (62: x86-64, 183: AArch64, …).
    pub machine: u16,
}

/// What the first bytes of a file say it is.
#[derive(Debug, PartialEq, Eq)]
pub enum Kind {
    /// An ELF file for `Machine`.
    Elf(Machine),
    /// A script the kernel runs through its `#!` interpreter.
    Script,
    /// Anything else.
    Other,
}

/// Reads the kind from a file's first bytes (at least 20 for an ELF header).
pub fn kind_of(head: &[u8]) -> Kind {
    if head.starts_with(b"#!") {
        return Kind::Script;
    }
    if head.len() < 20 || !head.starts_with(b"\x7fELF") {
        return Kind::Other;
    }
    let (class, data) = (head[4], head[5]);
    let bytes = [head[18], head[19]];
    let machine = match data {
        1 => u16::from_le_bytes(bytes),
        2 => u16::from_be_bytes(bytes),
        _ => return Kind::Other,
    };
    Kind::Elf(Machine {
        class,
        data,
        machine,
    })
}

/// The first 64 bytes of `path` (fewer for a shorter file).
fn head_of(path: &Path) -> std::io::Result<Vec<u8>> {
    let mut head = Vec::with_capacity(64);
    std::fs::File::open(path)?.take(64).read_to_end(&mut head)?;
    Ok(head)
}

/// The machine the running binary is built for.
pub fn this_machine() -> Result<Machine, Error> {
    let exe = std::env::current_exe().map_err(|source| Error::Io {
        what: "finding the running binary".to_owned(),
        source,
    })?;
    match head_of(&exe).map(|h| kind_of(&h)) {
        Ok(Kind::Elf(m)) => Ok(m),
        Ok(_) => Err(Error::Internal(format!(
            "the running binary {} is not an ELF program",
            exe.display()
        ))),
        Err(source) => Err(Error::Io {
            what: format!("reading {}", exe.display()),
            source,
        }),
    }
}

/// Checks that `path` can replace the running binary; returns it made
/// absolute and canonical. Each refusal is `BAD_PARAMS` naming the path and
/// what is wrong with it, and nothing has been stopped yet.
pub fn check(path: &Path, this: Machine) -> Result<PathBuf, Error> {
    let shown = path.display();
    let resolved = std::fs::canonicalize(path)
        .map_err(|e| Error::BadParams(format!("upgrade binary {shown}: {e}")))?;
    let meta = std::fs::metadata(&resolved)
        .map_err(|e| Error::BadParams(format!("upgrade binary {shown}: {e}")))?;
    if !meta.is_file() {
        return Err(Error::BadParams(format!(
            "upgrade binary {shown} is not a regular file"
        )));
    }
    if nix::unistd::access(&resolved, nix::unistd::AccessFlags::X_OK).is_err() {
        return Err(Error::BadParams(format!(
            "upgrade binary {shown} is not executable by this user"
        )));
    }
    let head = head_of(&resolved)
        .map_err(|e| Error::BadParams(format!("upgrade binary {shown}: cannot read it: {e}")))?;
    match kind_of(&head) {
        Kind::Elf(m) if m == this => Ok(resolved),
        Kind::Elf(m) => Err(Error::BadParams(format!(
            "upgrade binary {shown} is built for another machine \
             (ELF class {}, machine {}; this server is class {}, machine {})",
            m.class, m.machine, this.class, this.machine
        ))),
        Kind::Script => Ok(resolved),
        Kind::Other => Err(Error::BadParams(format!(
            "upgrade binary {shown} is neither an ELF program nor a #! script"
        ))),
    }
}

#[cfg(test)]
mod tests;
