//! What each sandbox setting becomes on each platform: the table behind
//! the README's, as a function of (platform, settings), compiled and tested
//! on every platform.
//!
//! Linux enforces every setting (Landlock, namespaces, `setrlimit`); what
//! its kernel refuses is `linux.rs`'s to find, at spawn. Elsewhere a setting
//! the platform cannot enforce is named here, by the key the user wrote, so
//! that `required = true` refuses it and `required = false` warns about it
//! and drops exactly it: nothing is dropped silently.

use super::plan::Unenforced;
use mcpbind_model::sandbox::{HomePolicy, NetworkPolicy, SandboxConfig};

/// The platforms the sandbox knows apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Platform {
    /// Landlock, namespaces and `setrlimit`.
    Linux,
    /// `setrlimit` only.
    MacOs,
    /// Another Unix (the BSDs): `setrlimit` only.
    OtherUnix,
    /// No `setrlimit`, no file or network confinement.
    Windows,
}

impl Platform {
    /// The platform this build runs on.
    pub(crate) const CURRENT: Platform = if cfg!(target_os = "linux") {
        Platform::Linux
    } else if cfg!(target_os = "macos") {
        Platform::MacOs
    } else if cfg!(unix) {
        Platform::OtherUnix
    } else {
        Platform::Windows
    };

    fn name(self) -> &'static str {
        match self {
            Platform::Linux => "Linux",
            Platform::MacOs => "macOS",
            Platform::OtherUnix => "this Unix",
            Platform::Windows => "Windows",
        }
    }
}

/// The keys of `[servers.NAME.sandbox]` that `sandbox` sets (that confine
/// something), in the order of the README's table.
pub(crate) fn settings(sandbox: &SandboxConfig) -> Vec<&'static str> {
    let mut keys = Vec::new();
    if let Some(files) = &sandbox.files {
        // `read = []` alone confines files too (it grants nothing extra);
        // `write` alone is named `write`.
        if !files.read.is_empty() || files.write.is_empty() {
            keys.push("read");
        }
        if !files.write.is_empty() {
            keys.push("write");
        }
    }
    if sandbox.home == HomePolicy::Isolated {
        keys.push("home");
    }
    if sandbox.network != NetworkPolicy::Allow {
        keys.push("network");
    }
    let limits = &sandbox.limits;
    for (key, value) in [
        ("memory", limits.memory),
        ("cpu", limits.cpu_seconds),
        ("open_files", limits.open_files),
        ("processes", limits.processes),
        ("file_size", limits.file_size),
    ] {
        if value.is_some() {
            keys.push(key);
        }
    }
    keys
}

/// Why `platform` cannot enforce `setting`; `None` when it can.
pub(crate) fn why_not(platform: Platform, setting: &str) -> Option<String> {
    let on = platform.name();
    let reason = match (platform, setting) {
        (Platform::Linux, _) => return None,
        (_, "read" | "write") => {
            "files are confined with Landlock, which only Linux has".to_owned()
        }
        (_, "home") => format!(
            "the agent's HOME is hidden with Landlock, which only Linux has \
             (a fresh HOME alone would leave it reachable by its path on {on})"
        ),
        (_, "network") => "the network is cut with namespaces, which only Linux has".to_owned(),
        (_, "processes") => format!(
            "the count is the server's own only in a user namespace, which only Linux has \
             (RLIMIT_NPROC on {on} counts every process of the user)"
        ),
        (Platform::MacOs | Platform::OtherUnix, "memory") => format!(
            "RLIMIT_DATA on {on} does not count mapped memory, where allocators put \
             most of the heap"
        ),
        (Platform::MacOs | Platform::OtherUnix, "cpu" | "open_files" | "file_size") => return None,
        (Platform::Windows, "memory" | "cpu" | "open_files" | "file_size") => {
            "resource limits are set with setrlimit, which Windows does not have".to_owned()
        }
        (_, other) => format!("`{other}` is not a sandbox setting mcpbind knows on {on}"),
    };
    Some(reason)
}

/// The settings of `sandbox` that `platform` cannot enforce, each with why.
pub(crate) fn gaps(platform: Platform, sandbox: &SandboxConfig) -> Vec<Unenforced> {
    settings(sandbox)
        .into_iter()
        .filter_map(|setting| {
            why_not(platform, setting).map(|reason| Unenforced { setting, reason })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sandbox(toml: &str) -> SandboxConfig {
        let config = format!("[servers.s]\ncommand = \"server\"\n[servers.s.sandbox]\n{toml}\n");
        let config = mcpbind_model::config::Config::from_toml_str(&config).expect(toml);
        match &config.servers["s"].transport {
            mcpbind_model::config::TransportConfig::Stdio {
                sandbox: Some(sandbox),
                ..
            } => sandbox.clone(),
            _ => panic!("no sandbox in {toml}"),
        }
    }

    fn named(platform: Platform, toml: &str) -> Vec<&'static str> {
        gaps(platform, &sandbox(toml))
            .into_iter()
            .map(|gap| gap.setting)
            .collect()
    }

    #[test]
    fn each_setting_names_itself_off_linux() {
        let all = r#"
            read = ["."]
            write = ["./out"]
            home = "isolated"
            network = false
            memory = "1G"
            cpu = 10
            open_files = 64
            processes = 8
            file_size = "1M"
        "#;
        assert_eq!(named(Platform::Linux, all), [] as [&str; 0]);
        assert_eq!(
            named(Platform::MacOs, all),
            ["read", "write", "home", "network", "memory", "processes"]
        );
        assert_eq!(named(Platform::OtherUnix, all), named(Platform::MacOs, all));
        assert_eq!(
            named(Platform::Windows, all),
            [
                "read",
                "write",
                "home",
                "network",
                "memory",
                "cpu",
                "open_files",
                "processes",
                "file_size"
            ]
        );
    }

    #[test]
    fn home_alone_is_named_home_not_read() {
        for platform in [Platform::MacOs, Platform::Windows] {
            assert_eq!(named(platform, r#"home = "isolated""#), ["home"]);
        }
    }

    #[test]
    fn each_limit_is_named_on_windows() {
        assert_eq!(named(Platform::Windows, "cpu = 10"), ["cpu"]);
        assert_eq!(named(Platform::Windows, "open_files = 64"), ["open_files"]);
        assert_eq!(
            named(Platform::Windows, r#"file_size = "1M""#),
            ["file_size"]
        );
        assert_eq!(named(Platform::MacOs, "cpu = 10"), [] as [&str; 0]);
    }

    #[test]
    fn files_are_named_by_the_key_written() {
        let mac = Platform::MacOs;
        assert_eq!(named(mac, "read = []"), ["read"]);
        assert_eq!(named(mac, r#"write = ["./out"]"#), ["write"]);
        assert_eq!(named(mac, r#"network = ["example.com:443"]"#), ["network"]);
        assert_eq!(named(mac, "network = true"), [] as [&str; 0]);
    }

    #[test]
    fn reasons_say_why() {
        let reason = |setting| why_not(Platform::Windows, setting).unwrap();
        assert!(reason("home").contains("Landlock"), "{}", reason("home"));
        assert!(reason("cpu").contains("setrlimit"), "{}", reason("cpu"));
        assert!(why_not(Platform::MacOs, "memory")
            .unwrap()
            .contains("RLIMIT_DATA on macOS"));
    }
}
