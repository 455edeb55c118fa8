//! A cassette as a double: each recorded call gets its recorded answer.
//!
//! Calls are matched on the tool and its canonical arguments (no JSON-RPC
//! id, no `_meta`); identical calls get their answers in the order they
//! were recorded. A call that was not recorded is an error that names the
//! tool and shows the closest recorded arguments as a JSON diff; it is
//! kept too ([`Replay::unrecorded`]), as data.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use mcpbind_model::handler::{BoxFuture, ServeError, ServeResult};
use mcpbind_model::handler::{ToolFailure, ToolServer};
use serde_json::Value;

use crate::cassette::{Cassette, Exchange, ServerTape};
use crate::listing::Asked;
use mcpbind_model::hash::canonical_json;

/// A call the cassette holds no answer for.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("server `{server}`: {kind} `{name}` was not recorded with these arguments{}", closest_words(.closest, .diff))]
pub struct Unrecorded {
    /// The server.
    pub server: String,
    /// `tool`, `prompt` or `resource`.
    pub kind: &'static str,
    /// The tool's or prompt's name, or the resource's URI.
    pub name: String,
    /// The arguments called with (canonical).
    pub arguments: Value,
    /// The recorded arguments closest to them, if any were recorded.
    pub closest: Option<Value>,
    /// How they differ, a line per difference: `- /pointer: recorded`,
    /// `+ /pointer: called with`.
    pub diff: Vec<String>,
}

fn closest_words(closest: &Option<Value>, diff: &[String]) -> String {
    match closest {
        None => "; nothing was recorded for it, record it".to_owned(),
        Some(_) if diff.is_empty() => "; it was called more often than recorded".to_owned(),
        Some(_) => format!("; the closest recorded call differs:\n{}", diff.join("\n")),
    }
}

/// A generated `Server` whose calls are answered from a cassette (its
/// locked tools, prompts and templates are listed as the generated server
/// lists them).
pub struct Replay<S> {
    shape: S,
    server: String,
    tape: ServerTape,
    in_order: bool,
    /// Per (kind, name, canonical arguments): answers given; per (kind,
    /// name) with `in_order`: calls made.
    cursors: Mutex<HashMap<String, usize>>,
    unrecorded: Arc<Mutex<Vec<Unrecorded>>>,
}

impl<S: ToolServer> Replay<S> {
    /// `shape`'s server answered from server `name`'s tape in `cassette`
    /// (recorded at `protocol`; an absent tape answers nothing).
    pub fn new(shape: S, name: &str, protocol: &str, cassette: &Cassette) -> Self {
        let tape = cassette.servers.get(name).cloned().unwrap_or(ServerTape {
            protocol_version: protocol.to_owned(),
            ..ServerTape::default()
        });
        Replay {
            shape,
            server: name.to_owned(),
            tape,
            in_order: false,
            cursors: Mutex::default(),
            unrecorded: Arc::default(),
        }
    }

    /// Requires each tool's calls in the order the cassette stores them.
    #[must_use]
    pub fn in_order(mut self, yes: bool) -> Self {
        self.in_order = yes;
        self
    }

    /// The calls that found no answer so far (shared: it keeps filling
    /// while the double serves).
    pub fn unrecorded(&self) -> Arc<Mutex<Vec<Unrecorded>>> {
        Arc::clone(&self.unrecorded)
    }

    /// The answer to call `name` of `kind` with `arguments` among
    /// `recorded`.
    fn answer_from(
        &self,
        kind: &'static str,
        name: &str,
        arguments: Option<Value>,
        recorded: &[Exchange],
    ) -> ServeResult {
        let key = arguments.as_ref().map(canonical_json).unwrap_or_default();
        let mut cursors = self.cursors.lock().unwrap_or_else(|e| e.into_inner());
        let found = if self.in_order {
            let turn = cursors.entry(format!("{kind}\0{name}")).or_insert(0);
            let at = *turn;
            *turn += 1;
            recorded
                .get(at)
                .filter(|call| call.arguments == arguments)
                .ok_or_else(|| recorded.get(at).or(recorded.last()))
        } else {
            let seen = cursors.entry(format!("{kind}\0{name}\0{key}")).or_insert(0);
            let found = recorded
                .iter()
                .filter(|call| call.arguments == arguments)
                .nth(*seen);
            *seen += 1;
            found.ok_or_else(|| closest(recorded, arguments.as_ref()))
        };
        drop(cursors);
        match found {
            Ok(Exchange {
                result: Some(result),
                ..
            }) => Ok(result.clone()),
            Ok(Exchange { error, .. }) => Err(ServeError::Failed(ToolFailure(
                error.clone().unwrap_or_default(),
            ))),
            Err(near) => {
                let near = near.and_then(|call| call.arguments.clone());
                let miss = Unrecorded {
                    server: self.server.clone(),
                    kind,
                    name: name.to_owned(),
                    diff: near
                        .as_ref()
                        .map(|n| json_diff(n, arguments.as_ref().unwrap_or(&Value::Null)))
                        .unwrap_or_default(),
                    arguments: arguments.unwrap_or(Value::Null),
                    closest: near,
                };
                let message = miss.to_string();
                self.unrecorded
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(miss);
                Err(ServeError::Failed(ToolFailure(message)))
            }
        }
    }
}

/// The recorded call whose arguments differ least from `arguments`.
fn closest<'a>(recorded: &'a [Exchange], arguments: Option<&Value>) -> Option<&'a Exchange> {
    let called = arguments.unwrap_or(&Value::Null);
    recorded
        .iter()
        .min_by_key(|call| json_diff(call.arguments.as_ref().unwrap_or(&Value::Null), called).len())
}

/// How `called` differs from `recorded`: a line per differing value,
/// `- /pointer: recorded` then `+ /pointer: called`.
pub fn json_diff(recorded: &Value, called: &Value) -> Vec<String> {
    let mut lines = Vec::new();
    diff_at("", recorded, called, &mut lines);
    lines
}

fn diff_at(pointer: &str, a: &Value, b: &Value, lines: &mut Vec<String>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            for key in keys {
                let at = format!("{pointer}/{}", key.replace('~', "~0").replace('/', "~1"));
                match (x.get(key), y.get(key)) {
                    (Some(p), Some(q)) => diff_at(&at, p, q, lines),
                    (Some(p), None) => lines.push(format!("- {at}: {p}")),
                    (None, Some(q)) => lines.push(format!("+ {at}: {q}")),
                    (None, None) => {}
                }
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                diff_at(&format!("{pointer}/{i}"), p, q, lines);
            }
        }
        _ if a == b => {}
        _ => {
            let at = if pointer.is_empty() { "/" } else { pointer };
            lines.push(format!("- {at}: {a}"));
            lines.push(format!("+ {at}: {b}"));
        }
    }
}

impl<S: ToolServer> ToolServer for Replay<S> {
    crate::listing::listed_by!(shape);
    crate::listing::answered!();
}

impl<S: ToolServer> Replay<S> {
    fn answer<'a>(&'a self, asked: Asked<'a>) -> BoxFuture<'a, Option<ServeResult>> {
        let (kind, name, arguments, recorded) = match asked {
            Asked::Tool(name, canonical, _) => {
                let calls = self.tape.tools.get(name).map_or(&[][..], |t| &t.calls);
                ("tool", name, Some(canonical), calls)
            }
            Asked::Prompt(name, canonical, _) => {
                let calls = self.tape.prompts.get(name).map_or(&[][..], |t| &t.calls);
                ("prompt", name, Some(canonical), calls)
            }
            Asked::Resource(uri) => {
                let reads = self.tape.resources.get(uri).map_or(&[][..], |t| &t.reads);
                ("resource", uri, None, reads)
            }
        };
        let answer = self.answer_from(kind, name, arguments, recorded);
        Box::pin(async move { Some(answer) })
    }
}
