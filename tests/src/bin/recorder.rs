//! A stdio MCP server that records every line it receives, for the tests of
//! what reaches a server (cancellations, call order, reconnects).
//!
//! - `MCPBIND_RECORD=PATH`: each received line is appended to PATH (and
//!   flushed) before it is handled; each answer to `slow` appends
//!   `{"answered": TAG}`. Startup appends `{"started": PID}`.
//! - `MCPBIND_RECORD_DESCRIPTION=PATH`: the description of tool `slow` is
//!   read from PATH at startup (so that a test can change the tool between
//!   two runs of the server).
//! - `MCPBIND_RECORD_SCHEMA=PATH`: the inputSchema of tool `hang` is read
//!   from PATH at startup (a schema mcpbind can't check, say).
//!
//! Tools: `slow {tag, millis}` answers `tag` after `millis` (each call on its
//! own thread, so calls overlap unless the client holds them back); `meet
//! {tag, count}` answers no call until `count` calls of `meet` are waiting,
//! then answers them all, in the order they came (calls that a client holds
//! back never meet: they wait for their timeout); `hang` never answers. The
//! process exits when stdin closes.

use std::io::{BufRead, Write};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};

fn main() {
    let record = std::env::var_os("MCPBIND_RECORD").map(|path| {
        Arc::new(Mutex::new(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .expect("open the record file"),
        ))
    });
    let note = {
        let record = record.clone();
        move |line: &str| {
            if let Some(file) = &record {
                let mut file = file.lock().unwrap();
                let _ = writeln!(file, "{line}");
                let _ = file.flush();
            }
        }
    };
    note(&json!({"started": std::process::id()}).to_string());
    let description = std::env::var_os("MCPBIND_RECORD_DESCRIPTION")
        .and_then(|path| std::fs::read_to_string(path).ok())
        .unwrap_or_else(|| "Answer after a delay.".to_owned());
    let hang_schema: Value = std::env::var_os("MCPBIND_RECORD_SCHEMA")
        .and_then(|path| std::fs::read_to_string(path).ok())
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_else(|| json!({"type": "object"}));
    let stdout = Arc::new(Mutex::new(std::io::stdout()));
    let send = {
        let stdout = Arc::clone(&stdout);
        move |message: Value| {
            let mut out = stdout.lock().unwrap();
            let _ = writeln!(out, "{message}");
            let _ = out.flush();
        }
    };
    // The `meet` calls waiting for their company.
    let mut waiting: Vec<(Value, String)> = Vec::new();
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        note(&line);
        let Ok(message) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let Some(id) = message.get("id").cloned() else {
            continue; // a notification
        };
        let params = message.get("params").cloned().unwrap_or(Value::Null);
        let result = match message.get("method").and_then(Value::as_str) {
            Some("initialize") => json!({
                "protocolVersion": params.get("protocolVersion").cloned().unwrap_or(json!("2025-06-18")),
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "recorder", "version": "1.0.0"}
            }),
            Some("tools/list") => json!({"tools": [
                {"name": "slow", "description": description, "inputSchema": {
                    "type": "object",
                    "properties": {"tag": {"type": "string"}, "millis": {"type": "integer"}},
                    "required": ["tag"]
                }, "annotations": {"readOnlyHint": true}},
                {"name": "meet", "description": "Answer when `count` calls wait.", "inputSchema": {
                    "type": "object",
                    "properties": {"tag": {"type": "string"}, "count": {"type": "integer"}},
                    "required": ["tag", "count"]
                }},
                {"name": "hang", "description": "Never answer.", "inputSchema": hang_schema}
            ]}),
            Some("tools/call") => {
                let name = params.get("name").and_then(Value::as_str).unwrap_or("");
                if name == "meet" {
                    let args = params.get("arguments").cloned().unwrap_or(Value::Null);
                    let tag = args.get("tag").and_then(Value::as_str).unwrap_or("");
                    let count = args.get("count").and_then(Value::as_u64).unwrap_or(1);
                    waiting.push((id, tag.to_owned()));
                    if waiting.len() as u64 >= count {
                        for (id, tag) in waiting.drain(..) {
                            note(&json!({"answered": tag}).to_string());
                            send(json!({"jsonrpc": "2.0", "id": id, "result": {
                                "content": [{"type": "text", "text": tag}]
                            }}));
                        }
                    }
                    continue;
                }
                if name == "slow" {
                    let args = params.get("arguments").cloned().unwrap_or(Value::Null);
                    let tag = args
                        .get("tag")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_owned();
                    let millis = args.get("millis").and_then(Value::as_u64).unwrap_or(0);
                    let send = send.clone();
                    let note = note.clone();
                    std::thread::spawn(move || {
                        std::thread::sleep(Duration::from_millis(millis));
                        note(&json!({"answered": tag}).to_string());
                        send(json!({"jsonrpc": "2.0", "id": id, "result": {
                            "content": [{"type": "text", "text": tag}]
                        }}));
                    });
                }
                continue; // `hang`: no answer
            }
            Some("ping") => json!({}),
            _ => {
                send(json!({"jsonrpc": "2.0", "id": id, "error": {
                    "code": -32601, "message": "method not found"
                }}));
                continue;
            }
        };
        send(json!({"jsonrpc": "2.0", "id": id, "result": result}));
    }
}
