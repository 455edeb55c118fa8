//! The demo server answers `initialize` on stdio and exits when stdin closes.
//! (This test also makes `cargo test --workspace` build the binary in
//! its build phase, for `mcpbind-tests`.)

use std::io::{BufRead as _, BufReader, Write as _};
use std::process::{Command, Stdio};

#[test]
fn answers_initialize_and_exits_on_eof() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcpbind-demo-server"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("run the demo server");
    let mut stdin = child.stdin.take().unwrap();
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"2025-06-18","capabilities":{{}},"clientInfo":{{"name":"t","version":"0"}}}}}}"#
    )
    .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let answer: serde_json::Value = serde_json::from_str(&line).expect("a JSON line");
    assert_eq!(answer["id"], 1, "{answer}");
    assert!(
        answer["result"]["capabilities"]["tools"].is_object(),
        "{answer}"
    );
    drop(stdin);
    assert!(child.wait().unwrap().success());
}
