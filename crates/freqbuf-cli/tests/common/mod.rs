//! Running the built `freqbuf` binary from the workspace root, and the
//! temporary directories tests write effect files into.

#![allow(dead_code, reason = "each test binary uses some of these")]

use std::process::Command;

/// (exit code, stdout, stderr) of `freqbuf ARGS`.
pub(crate) fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_freqbuf"))
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// A directory of its own under the temp dir, removed on drop.
pub(crate) struct Dir(pub(crate) std::path::PathBuf);

impl Dir {
    pub(crate) fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("freqbuf-cli-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
