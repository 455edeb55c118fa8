//! `cargo build` integration: the build.rs helper offline, refresh, stale
//! lockfiles, and compile errors at the user's call site.

use std::path::Path;

use crate::util;

use util::cargo;

#[test]
fn no_op_build_does_not_rerun_the_build_script() {
    let build = |verbose: bool| {
        let mut cmd = cargo();
        cmd.current_dir(util::root())
            .args(["build", "-p", "mcpbind-example-quickstart"]);
        if verbose {
            cmd.arg("-v");
        }
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    build(false);
    let second = build(true);
    assert!(
        second.contains("Fresh mcpbind-example-quickstart"),
        "{second}"
    );
    assert!(
        !second.contains("Running `"),
        "the build script ran again:\n{second}"
    );
}

#[test]
fn stale_lockfile_fails_with_the_command_to_run() {
    let dir = tempfile::tempdir().unwrap();
    let lock = util::tests_dir().join("mcpbind.lock");
    let config = dir.path().join("mcpbind.toml");
    let generate = || {
        mcpbind_codegen::Builder::new()
            .lockfile(&lock)
            .config(&config)
            .out_dir(dir.path())
            .generate()
    };
    let base = "[servers.demo]\ncommand = \"x\"\n[servers.everything]\ncommand = \"x\"\n[servers.filesystem]\ncommand = \"x\"\n[servers.memory]\ncommand = \"x\"\n[servers.time]\ncommand = \"x\"\n";
    std::fs::write(&config, base).unwrap();
    generate().unwrap();
    assert!(dir.path().join("mcpbind.rs").exists());

    std::fs::write(
        &config,
        format!("{base}[servers.weather]\ncommand = \"y\"\n"),
    )
    .unwrap();
    let err = generate().unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "server `weather` in {} is out of date (the server is configured but not locked)",
            lock.display()
        )
    );
    assert_eq!(
        err.help().unwrap(),
        "run `mcpbind lock weather` and commit mcpbind.lock"
    );
    // What a build.rs that unwraps prints: the phrase, then the hint.
    assert_eq!(
        format!("{err:?}"),
        format!("{err}\nhelp: run `mcpbind lock weather` and commit mcpbind.lock")
    );

    std::fs::write(
        &config,
        base.replace(
            "[servers.demo]\ncommand = \"x\"\n",
            "[servers.demo]\ncommand = \"x\"\ndisabled_tools = [\"crash\"]\n",
        ),
    )
    .unwrap();
    let err = generate().unwrap_err().to_string();
    assert!(
        err.contains("server `demo`") && err.contains("enabled_tools/disabled_tools changed"),
        "{err}"
    );

    std::fs::write(&config, "[servers.demo]\ncommand = \"x\"\n").unwrap();
    let err = generate().unwrap_err().to_string();
    assert!(
        err.contains("(the server is no longer configured)"),
        "{err}"
    );
}

#[test]
fn refresh_relocks_before_generating() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("mcpbind.toml");
    std::fs::write(
        &config,
        format!(
            "[servers.demo]\ncommand = {}\nenabled_tools = [\"add\", \"echo\"]\n",
            util::toml_str(&util::bin("mcpbind-demo-server").display().to_string())
        ),
    )
    .unwrap();
    let lock = dir.path().join("mcpbind.lock");
    let written = mcpbind_codegen::Builder::new()
        .refresh(true)
        .lockfile(&lock)
        .config(&config)
        .out_dir(dir.path())
        .generate()
        .unwrap();
    let locked = mcpbind::Lockfile::read(&lock).unwrap();
    let names: Vec<&str> = locked.servers["demo"]
        .tools
        .iter()
        .map(|t| t.name.as_str())
        .collect();
    assert_eq!(names, ["add", "echo"]);
    let code = std::fs::read_to_string(written).unwrap();
    assert!(code.contains("pub fn add("));
    assert!(!code.contains("pub fn sleep("));
}

/// A tool's parameter renamed in the lockfile: the user's crate no longer
/// compiles, and the compiler points at the user's call. (The same build
/// also shows generation warnings as `cargo:warning` lines.)
#[test]
fn renamed_param_in_the_lockfile_breaks_the_call_site() {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path();
    quickstart_copy(copy, &["build.rs", "src/main.rs", "mcpbind.toml"]);

    // Rename `add`'s parameter `a` to `augend`, with a correct digest.
    let mut lock = lockfile_with_unresolvable_ref();
    let tools = lock["servers"]["demo"]["tools"].as_array_mut().unwrap();
    let add = tools.iter_mut().find(|t| t["name"] == "add").unwrap();
    let schema = &mut add["definition"]["inputSchema"];
    let a = schema["properties"]
        .as_object_mut()
        .unwrap()
        .remove("a")
        .unwrap();
    schema["properties"]["augend"] = a;
    schema["required"] = serde_json::json!(["augend", "b"]);
    add["sha256"] = mcpbind::hash::sha256_hex(&add["definition"]).into();
    std::fs::write(
        copy.join("mcpbind.lock"),
        serde_json::to_string_pretty(&lock).unwrap(),
    )
    .unwrap();

    let out = cargo()
        .current_dir(copy)
        .args(["check", "--message-format", "short"])
        .envs(util::nested_target())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "the edited lockfile still compiled");
    assert!(
        stderr.contains("mcpbind: server `demo`, tool `echo`, at /inputSchema/properties/message/$ref: cannot resolve $ref"),
        "expected a cargo:warning for the unresolvable $ref, got:\n{stderr}"
    );
    let main = std::fs::read_to_string(copy.join("src/main.rs")).unwrap();
    let line = main
        .lines()
        .position(|l| l.contains("AddInput { a: 2"))
        .unwrap()
        + 1;
    let at = format!("src/main.rs:{line}:");
    assert!(
        stderr
            .lines()
            .any(|l| l.starts_with(&at) && l.contains("no field named `a`")),
        "expected an error at {at}, got:\n{stderr}"
    );
    assert!(Path::new(&copy.join("src/main.rs")).exists());

    // A server added to the config: the build script's `unwrap` shows the
    // phrase and, on its own line, the command to run.
    let mut config = std::fs::read_to_string(copy.join("mcpbind.toml")).unwrap();
    config.push_str("\n[servers.weather]\ncommand = \"weather-mcp\"\n");
    std::fs::write(copy.join("mcpbind.toml"), config).unwrap();
    let out = cargo()
        .current_dir(copy)
        .args(["check", "--message-format", "short"])
        .envs(util::nested_target())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "the stale lockfile still compiled");
    let expected = format!(
        "Err` value: server `weather` in {} is out of date (the server is configured but not locked)\n  help: run `mcpbind lock weather` and commit mcpbind.lock\n",
        copy.join("mcpbind.lock").display()
    );
    assert!(
        stderr.contains(&expected),
        "expected {expected:?} in:\n{stderr}"
    );
}

/// A copy of the quickstart in `copy` (`files` of it, a `Cargo.toml` of
/// its own outside the workspace), for `cargo` to build.
fn quickstart_copy(copy: &Path, files: &[&str]) {
    let root = util::root();
    let example = root.join("examples/quickstart");
    std::fs::create_dir_all(copy.join("src")).unwrap();
    for file in files {
        std::fs::copy(example.join(file), copy.join(file)).unwrap();
    }
    std::fs::copy(root.join("Cargo.lock"), copy.join("Cargo.lock")).unwrap();
    std::fs::write(
        copy.join("Cargo.toml"),
        format!(
            r#"[package]
name = "mcpbind-example-quickstart"
version = "0.1.0"
edition = "2021"
publish = false

[workspace]

[dependencies]
mcpbind = {{ path = {runtime} }}
tokio = {{ version = "1", features = ["rt-multi-thread", "macros"] }}

[build-dependencies]
mcpbind-codegen = {{ path = {codegen} }}
"#,
            runtime = util::toml_str(&root.join("mcpbind").display().to_string()),
            codegen = util::toml_str(&root.join("codegen").display().to_string()),
        ),
    )
    .unwrap();
}

/// `cargo check` of the crate in `dir` (`-v` with `verbose`), in the
/// shared target dir: whether it passed, and its stderr.
fn check_crate(dir: &Path, verbose: bool) -> (bool, String) {
    let mut command = cargo();
    command
        .current_dir(dir)
        .args(["check", "--message-format", "short"])
        .envs(util::nested_target());
    if verbose {
        command.arg("-v");
    }
    let out = command.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.success(), stderr)
}

/// The line of `src/main.rs` in `dir` that holds `text`, as the compiler
/// names it (`src/main.rs:N:`).
fn main_rs_line(dir: &Path, text: &str) -> String {
    let main = std::fs::read_to_string(dir.join("src/main.rs")).unwrap();
    let line = main.lines().position(|l| l.contains(text)).unwrap() + 1;
    format!("src/main.rs:{line}:")
}

/// The README's quickstart with `annotations = "enforce"` in its
/// mcpbind.toml and `.config(..)` left out of its build.rs: the config
/// beside the lockfile is read, so `set_mode` (a tool that may modify
/// things) called without an `Approved` does not compile. The build
/// script reruns when that config appears, and not on every build while
/// there is none.
#[test]
fn the_quickstart_without_config_enforces_the_config_beside_the_lockfile() {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path();
    quickstart_copy(copy, &["build.rs", "src/main.rs"]);
    let build_rs = std::fs::read_to_string(copy.join("build.rs")).unwrap();
    let without = build_rs.replace("        .config(\"mcpbind.toml\")\n", "");
    assert_ne!(without, build_rs, "the quickstart names its config");
    std::fs::write(copy.join("build.rs"), without).unwrap();
    let lock = util::root().join("examples/quickstart/mcpbind.lock");
    std::fs::copy(lock, copy.join("mcpbind.lock")).unwrap();

    // No config yet: advise bindings, and a no-op build stays one.
    let (ok, stderr) = check_crate(copy, false);
    assert!(ok, "{stderr}");
    let (ok, stderr) = check_crate(copy, true);
    assert!(ok, "{stderr}");
    assert!(
        !stderr.contains("build-script-build`"),
        "the build script ran again with no config:\n{stderr}"
    );

    let config = std::fs::read_to_string(util::root().join("examples/quickstart/mcpbind.toml"))
        .unwrap()
        .replace(
            "timeout = 10\n",
            "timeout = 10\nannotations = \"enforce\"\n",
        );
    assert!(config.contains("annotations = \"enforce\""));
    std::fs::write(copy.join("mcpbind.toml"), config).unwrap();
    let (ok, stderr) = check_crate(copy, false);
    assert!(!ok, "set_mode without an approval compiled:\n{stderr}");
    let at = main_rs_line(copy, ".set_mode(SetModeInput {");
    assert!(
        stderr.lines().any(|l| l.starts_with(&at)
            && l.contains("this method takes 2 arguments but 1 argument was supplied")),
        "expected an error at {at}, got:\n{stderr}"
    );
}

/// `mcp_tools!` without `config` reads the `mcpbind.toml` beside the
/// lockfile too: under `annotations = "enforce"` there, a call of a tool
/// that may modify things without an `Approved` does not compile;
/// `config = false` reads none.
#[test]
fn the_macro_enforces_the_config_beside_the_lockfile() {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path();
    quickstart_copy(copy, &["src/main.rs"]);
    let root = util::root();
    let manifest = std::fs::read_to_string(copy.join("Cargo.toml"))
        .unwrap()
        .replace(
            "mcpbind = { path",
            "mcpbind = { features = [\"macros\"], path",
        );
    std::fs::write(copy.join("Cargo.toml"), manifest).unwrap();
    let main = std::fs::read_to_string(copy.join("src/main.rs")).unwrap();
    let with_macro = main.replace(
        "mcpbind::include_bindings!();",
        "mcpbind::mcp_tools!(\"mcpbind.lock\");",
    );
    assert_ne!(with_macro, main);
    std::fs::write(copy.join("src/main.rs"), &with_macro).unwrap();
    std::fs::copy(
        root.join("examples/quickstart/mcpbind.lock"),
        copy.join("mcpbind.lock"),
    )
    .unwrap();
    let config = std::fs::read_to_string(root.join("examples/quickstart/mcpbind.toml"))
        .unwrap()
        .replace(
            "timeout = 10\n",
            "timeout = 10\nannotations = \"enforce\"\n",
        );
    std::fs::write(copy.join("mcpbind.toml"), config).unwrap();

    let (ok, stderr) = check_crate(copy, false);
    assert!(!ok, "set_mode without an approval compiled:\n{stderr}");
    let at = main_rs_line(copy, ".set_mode(SetModeInput {");
    assert!(
        stderr.lines().any(|l| l.starts_with(&at)
            && l.contains("this method takes 2 arguments but 1 argument was supplied")),
        "expected an error at {at}, got:\n{stderr}"
    );

    let opted_out = with_macro.replace(
        "mcp_tools!(\"mcpbind.lock\")",
        "mcp_tools!(lockfile = \"mcpbind.lock\", config = false)",
    );
    std::fs::write(copy.join("src/main.rs"), opted_out).unwrap();
    let (ok, stderr) = check_crate(copy, false);
    assert!(ok, "config = false: {stderr}");
}

/// The quickstart's lockfile, where `echo`'s `message` points at a schema on
/// the network, which is never fetched: generation loosens it and warns,
/// naming server, tool and JSON pointer.
fn lockfile_with_unresolvable_ref() -> serde_json::Value {
    let example = util::root().join("examples/quickstart");
    let text = std::fs::read_to_string(example.join("mcpbind.lock")).unwrap();
    let mut lock: serde_json::Value = serde_json::from_str(&text).unwrap();
    let tools = lock["servers"]["demo"]["tools"].as_array_mut().unwrap();
    let echo = tools.iter_mut().find(|t| t["name"] == "echo").unwrap();
    echo["definition"]["inputSchema"]["properties"]["message"] =
        serde_json::json!({"$ref": "https://example.com/message.json"});
    echo["sha256"] = mcpbind::hash::sha256_hex(&echo["definition"]).into();
    lock
}

/// `mcp_tools!` reports what generation loosened as compiler warnings at
/// the macro call, and the crate (without `#![deny(warnings)]`) builds.
#[test]
fn macro_warns_about_loosened_schemas_at_the_call() {
    let root = util::root();
    let dir = tempfile::tempdir().unwrap();
    let krate = dir.path();
    std::fs::create_dir(krate.join("src")).unwrap();
    std::fs::copy(root.join("Cargo.lock"), krate.join("Cargo.lock")).unwrap();
    std::fs::write(
        krate.join("Cargo.toml"),
        format!(
            "[package]\nname = \"mcpbind-macro-warnings\"\nversion = \"0.1.0\"\nedition = \"2021\"\npublish = false\n\n[workspace]\n\n[dependencies]\nmcpbind = {{ path = {} }}\n",
            util::toml_str(&root.join("mcpbind").display().to_string())
        ),
    )
    .unwrap();
    std::fs::write(
        krate.join("src/lib.rs"),
        "//! Bindings with a loosened schema.\nmcpbind::mcp_tools!(\"mcpbind.lock\");\n",
    )
    .unwrap();
    std::fs::write(
        krate.join("mcpbind.lock"),
        serde_json::to_string_pretty(&lockfile_with_unresolvable_ref()).unwrap(),
    )
    .unwrap();

    let out = cargo()
        .current_dir(krate)
        .args(["check", "--message-format", "short"])
        .envs(util::nested_target())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let warnings: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("src/lib.rs:2:21: warning: "))
        .collect();
    assert_eq!(warnings.len(), 1, "{stderr}");
    assert!(
        warnings[0].contains(": mcpbind: server `demo`, tool `echo`, at /inputSchema/properties/message/$ref: cannot resolve $ref"),
        "{stderr}"
    );
}

/// The config given to the helper decides, per server, whether its tools'
/// annotations are enforced: the demo server's `delete_item` takes an
/// approval under `enforce`, and nothing changes under `advise`, which is
/// the default.
#[test]
fn the_config_decides_whether_annotations_are_enforced() {
    let dir = tempfile::tempdir().unwrap();
    let lock = util::tests_dir().join("mcpbind.lock");
    let config = dir.path().join("mcpbind.toml");
    let generate = |annotations: &str| {
        std::fs::write(
            &config,
            format!("[servers.demo]\ncommand = \"x\"\n{annotations}"),
        )
        .unwrap();
        let path = mcpbind_codegen::Builder::new()
            .lockfile(&lock)
            .config(&config)
            .servers(["demo"])
            .out_dir(dir.path())
            .generate()
            .unwrap();
        std::fs::read_to_string(path).unwrap()
    };
    let approved = "approved: ::mcpbind::Approved<tools::DeleteItem>";
    let enforced = generate("annotations = \"enforce\"\n");
    assert!(enforced.contains(approved), "{enforced}");
    assert!(!enforced.contains("Approved<tools::Add>"));
    let advised = generate("annotations = \"advise\"\n");
    assert!(!advised.contains("Approved<"));
    assert_eq!(generate(""), advised);
}
