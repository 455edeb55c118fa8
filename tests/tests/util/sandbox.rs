//! What the tests of confinement share (escape.rs, privilege.rs): the
//! interpreter their Python servers run on, and Landlock, which most of
//! them need.

/// The venv's Python (the test servers' installation).
pub fn python() -> String {
    super::servers_dir()
        .join(".venv/bin/python")
        .display()
        .to_string()
}

/// Landlock must be there: a kernel without it fails the tests that need
/// it, with this message, rather than skipping them.
pub fn require_landlock() {
    // SAFETY: the version query of landlock_create_ruleset(2).
    let abi = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<u8>(),
            0usize,
            1u32,
        )
    };
    assert!(
        abi >= 1,
        "these tests need Landlock (Linux 5.13+ with landlock in `lsm=`): landlock_create_ruleset says {abi} ({})",
        std::io::Error::last_os_error()
    );
}
