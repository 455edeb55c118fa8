//! The binary runs and says which version it is. (Having an integration test
//! also makes `cargo test --workspace` build the `mcpbind` binary in
//! its build phase, so `mcpbind-tests` finds it fresh and runs no cargo of
//! its own.)

use std::process::Command;

#[test]
fn prints_its_version() {
    let out = Command::new(env!("CARGO_BIN_EXE_mcpbind"))
        .arg("--version")
        .output()
        .expect("run mcpbind");
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        concat!("mcpbind ", env!("CARGO_PKG_VERSION"))
    );
}
