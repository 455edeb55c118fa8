//! The cassette: recorded calls, written like the lockfile (sorted keys,
//! indented, a trailing newline, deterministic), one entry per server
//! keyed by name; each tool's and prompt's calls beside its locked
//! definition hash, each resource URI's reads beside the name and hash of
//! the locked resource template it matched.
//!
//! ```json
//! {
//!   "cassette_version": 1,
//!   "servers": {
//!     "everything": {
//!       "protocol_version": "2025-11-25",
//!       "tools": {
//!         "echo": {
//!           "calls": [{"arguments": {"message": "hi"}, "result": {…}}],
//!           "sha256": "…"
//!         }
//!       },
//!       "prompts": {
//!         "simple-prompt": {"calls": [{"arguments": {}, "result": {…}}], "sha256": "…"}
//!       },
//!       "resources": {
//!         "demo://resource/dynamic/text/1": {
//!           "reads": [{"result": {…}}],
//!           "sha256": "…",
//!           "template": "Dynamic Text Resource"
//!         }
//!       }
//!     }
//!   }
//! }
//! ```
//!
//! Arguments are stored canonical (RFC 8785 key order) and without
//! `_meta`; a tool's calls are sorted by their arguments, identical calls
//! in the order they were made, so that concurrent calls are stored the
//! same on every run.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use mcpbind_model::hash::canonical_json;
use mcpbind_model::lock::{LockedEntry, Lockfile, ServerLock};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The format's version: a newer one than this reader knows is refused.
pub const CASSETTE_VERSION: u64 = 1;

/// Recorded sessions with one or more servers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cassette {
    /// [`CASSETTE_VERSION`].
    pub cassette_version: u64,
    /// Per server, by its name in the config.
    pub servers: BTreeMap<String, ServerTape>,
}

impl Default for Cassette {
    fn default() -> Self {
        Cassette {
            cassette_version: CASSETTE_VERSION,
            servers: BTreeMap::new(),
        }
    }
}

/// One server's recorded calls.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerTape {
    /// The protocol version the session spoke (the lockfile's).
    pub protocol_version: String,
    /// Tool calls, by tool.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tools: BTreeMap<String, Tape>,
    /// `prompts/get`, by prompt.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub prompts: BTreeMap<String, Tape>,
    /// `resources/read`, by URI.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub resources: BTreeMap<String, ResourceTape>,
}

/// One tool's or prompt's recorded calls, beside its locked hash.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tape {
    /// The locked definition's hash (as `mcpbind.lock` lists it).
    pub sha256: String,
    /// The calls, sorted by arguments.
    pub calls: Vec<Exchange>,
}

/// One resource URI's recorded reads, beside the locked resource template
/// the URI matched (none for a resource no template expands to).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResourceTape {
    /// The template's name, as `mcpbind.lock` lists it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub template: Option<String>,
    /// The template's locked hash.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// The reads, in the order they were made.
    pub reads: Vec<Exchange>,
}

/// One request and its answer: a result, or an error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Exchange {
    /// The arguments (canonical, without `_meta`); absent for a resource
    /// read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Value>,
    /// The result as the server sent it (`CallToolResult`,
    /// `GetPromptResult`, `ReadResourceResult`), secrets redacted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// The error the server answered with (its message, redacted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Why a cassette could not be read, used or written. Each names the
/// file, and where the problem is in it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CassetteError {
    /// The file could not be read or written.
    #[error("cannot {action} cassette {}: {source}", file.display())]
    Io {
        /// `read` or `write`.
        action: &'static str,
        /// The cassette.
        file: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is no cassette: corrupt, truncated, or of an unknown shape.
    #[error("{}:{line}:{column}: not a cassette: {reason}; record it again", file.display())]
    Parse {
        /// The cassette.
        file: PathBuf,
        /// The line (1-based).
        line: usize,
        /// The column (1-based).
        column: usize,
        /// What the JSON reader says.
        reason: String,
    },
    /// Written by a newer mcpbind.
    #[error("{}: cassette_version {found}, newer than this mcpbind reads ({CASSETTE_VERSION}); upgrade mcpbind", file.display())]
    Version {
        /// The cassette.
        file: PathBuf,
        /// Its version.
        found: u64,
    },
    /// A server the lockfile does not hold.
    #[error("{}:{line}: server `{server}` is not in the lockfile; the cassette is for another set of servers", file.display())]
    UnknownServer {
        /// The cassette.
        file: PathBuf,
        /// Where the server's entry starts.
        line: usize,
        /// The server.
        server: String,
    },
    /// Recorded at another protocol version than the lockfile's.
    #[error("{}:{line}: server `{server}` was recorded at protocol {recorded}, the lockfile says {locked}; record it again", file.display())]
    Protocol {
        /// The cassette.
        file: PathBuf,
        /// Where the server's entry starts.
        line: usize,
        /// The server.
        server: String,
        /// The cassette's version.
        recorded: String,
        /// The lockfile's.
        locked: String,
    },
    /// Tools, prompts or resource templates whose locked definition
    /// changed since they were recorded (or that the lockfile no longer
    /// holds).
    #[error("{}:{line}: server `{server}` changed since it was recorded: {}; review the change, then record again", file.display(), drift_words(tools, prompts, resource_templates))]
    Drift {
        /// The cassette (boxed: this variant is the enum's largest).
        file: Box<Path>,
        /// Where the first such entry starts.
        line: usize,
        /// The server.
        server: String,
        /// The tools, by name.
        tools: Vec<String>,
        /// The prompts, by name.
        prompts: Vec<String>,
        /// The resource templates, by name.
        resource_templates: Vec<String>,
    },
    /// A recorded result that breaks the tool's locked `outputSchema`.
    #[error("{}:{line}: a recorded result of tool `{tool}` (server `{server}`) does not fit its locked outputSchema: {}; record it again", file.display(), violations.join("; "))]
    Output {
        /// The cassette.
        file: PathBuf,
        /// Where the tool's entry starts.
        line: usize,
        /// The server.
        server: String,
        /// The tool.
        tool: String,
        /// Each violation (`/pointer: message`).
        violations: Vec<String>,
    },
    /// Another recorder holds the file.
    #[error("cassette {} is being written by another recorder ({}); wait for it, or record to another file", file.display(), lock.display())]
    Busy {
        /// The cassette.
        file: PathBuf,
        /// The lock file that says so.
        lock: PathBuf,
    },
}

/// `tool `a`, prompts `b`, `c``: the drifted entries of each kind.
fn drift_words(tools: &[String], prompts: &[String], templates: &[String]) -> String {
    let kinds = [
        ("tool", tools),
        ("prompt", prompts),
        ("resource template", templates),
    ];
    let words: Vec<String> = kinds
        .iter()
        .filter(|(_, names)| !names.is_empty())
        .map(|(noun, names)| {
            let plural = if names.len() == 1 { "" } else { "s" };
            let names: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
            format!("{noun}{plural} {}", names.join(", "))
        })
        .collect();
    words.join("; ")
}

impl Cassette {
    /// Reads the cassette at `path` and checks it against `lockfile`: each
    /// server is locked, at the same protocol version; each tool's,
    /// prompt's and resource template's hash is the locked one; each recorded structured result fits the tool's
    /// locked `outputSchema`.
    ///
    /// # Errors
    ///
    /// A [`CassetteError`] naming the file, the line and the server or tool.
    pub fn load(path: impl AsRef<Path>, lockfile: &Lockfile) -> Result<Cassette, CassetteError> {
        let cassette = Cassette::read(path.as_ref())?;
        cassette.check(path.as_ref(), lockfile)?;
        Ok(cassette)
    }

    /// Reads the cassette at `path` without checking it against a lockfile
    /// (a missing file is an empty cassette).
    ///
    /// # Errors
    ///
    /// [`CassetteError::Io`], [`CassetteError::Parse`],
    /// [`CassetteError::Version`].
    pub fn read(path: &Path) -> Result<Cassette, CassetteError> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Cassette::default()),
            Err(source) => {
                return Err(CassetteError::Io {
                    action: "read",
                    file: path.to_owned(),
                    source,
                })
            }
        };
        Cassette::parse(&text, path)
    }

    /// The cassette in `text` (read from `path`, for errors).
    ///
    /// # Errors
    ///
    /// [`CassetteError::Parse`], [`CassetteError::Version`].
    pub fn parse(text: &str, path: &Path) -> Result<Cassette, CassetteError> {
        let parse_error = |e: serde_json::Error| CassetteError::Parse {
            file: path.to_owned(),
            line: e.line(),
            column: e.column(),
            reason: e.to_string(),
        };
        let value: Value = serde_json::from_str(text).map_err(parse_error)?;
        let found = value["cassette_version"].as_u64().unwrap_or(0);
        if found > CASSETTE_VERSION {
            return Err(CassetteError::Version {
                file: path.to_owned(),
                found,
            });
        }
        serde_json::from_str(text).map_err(parse_error)
    }

    /// The cassette as written: sorted keys, two-space indents, a trailing
    /// newline.
    ///
    /// # Panics
    ///
    /// Never: a cassette and its canonical JSON are JSON (the `expect`s say
    /// so).
    pub fn to_text(&self) -> String {
        let mut sorted = self.clone();
        for server in sorted.servers.values_mut() {
            for tape in server.tools.values_mut() {
                sort_calls(&mut tape.calls);
            }
            for tape in server.prompts.values_mut() {
                sort_calls(&mut tape.calls);
            }
        }
        let value = serde_json::to_value(&sorted).expect("a cassette is JSON");
        let canonical: Value =
            serde_json::from_str(&canonical_json(&value)).expect("canonical JSON is JSON");
        let mut text = serde_json::to_string_pretty(&canonical).expect("a cassette is JSON");
        text.push('\n');
        text
    }

    /// Adds `other`'s calls to this cassette's (a second recording of the
    /// same file).
    pub fn merge(&mut self, other: Cassette) {
        for (name, theirs) in other.servers {
            let ours = self.servers.entry(name).or_default();
            ours.protocol_version = theirs.protocol_version;
            for (tool, tape) in theirs.tools {
                let mine = ours.tools.entry(tool).or_default();
                mine.sha256 = tape.sha256;
                mine.calls.extend(tape.calls);
            }
            for (prompt, tape) in theirs.prompts {
                let mine = ours.prompts.entry(prompt).or_default();
                mine.sha256 = tape.sha256;
                mine.calls.extend(tape.calls);
            }
            for (uri, tape) in theirs.resources {
                let mine = ours.resources.entry(uri).or_default();
                (mine.template, mine.sha256) = (tape.template, tape.sha256);
                mine.reads.extend(tape.reads);
            }
        }
    }

    fn check(&self, path: &Path, lockfile: &Lockfile) -> Result<(), CassetteError> {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let file = || path.to_owned();
        for (name, tape) in &self.servers {
            let line = line_of(&text, &["\"servers\"", &format!("\"{name}\"")]);
            let Some(locked) = lockfile.servers.get(name) else {
                return Err(CassetteError::UnknownServer {
                    file: file(),
                    line,
                    server: name.clone(),
                });
            };
            if locked.protocol_version != tape.protocol_version {
                return Err(CassetteError::Protocol {
                    file: file(),
                    line,
                    server: name.clone(),
                    recorded: tape.protocol_version.clone(),
                    locked: locked.protocol_version.clone(),
                });
            }
            let tool_line = |tool: &str| {
                line_of(
                    &text,
                    &[
                        "\"servers\"",
                        &format!("\"{name}\""),
                        "\"tools\"",
                        &format!("\"{tool}\""),
                    ],
                )
            };
            if let Some(drift) = drift_of(&text, name, tape, locked) {
                return Err(drift.into_error(file(), name));
            }
            for (tool, recorded) in &tape.tools {
                let definition = locked.tools.iter().find(|t| &t.name == tool);
                let Some(schema) = definition.and_then(|t| t.definition.get("outputSchema")) else {
                    continue;
                };
                if let Some(violations) = output_violations(schema, &recorded.calls) {
                    return Err(CassetteError::Output {
                        file: file(),
                        line: tool_line(tool),
                        server: name.clone(),
                        tool: tool.clone(),
                        violations,
                    });
                }
            }
        }
        Ok(())
    }
}

/// What changed since a server's tape was recorded: each kind's entries
/// whose hash is not the locked one, and the line of the first.
struct Drifted {
    line: usize,
    tools: Vec<String>,
    prompts: Vec<String>,
    resource_templates: Vec<String>,
}

impl Drifted {
    fn into_error(self, file: PathBuf, server: &str) -> CassetteError {
        CassetteError::Drift {
            file: file.into_boxed_path(),
            line: self.line,
            server: server.to_owned(),
            tools: self.tools,
            prompts: self.prompts,
            resource_templates: self.resource_templates,
        }
    }
}

/// The entries of `tape` (server `server`, written as `text`) whose hash
/// differs from `locked`'s, if any.
fn drift_of(text: &str, server: &str, tape: &ServerTape, locked: &ServerLock) -> Option<Drifted> {
    let moved = |entries: &[LockedEntry], name: &str, sha256: &str| {
        entries
            .iter()
            .find(|e| e.name == name)
            .is_none_or(|e| e.sha256 != sha256)
    };
    let tools: Vec<String> = (tape.tools.iter())
        .filter(|(tool, t)| moved(&locked.tools, tool, &t.sha256))
        .map(|(tool, _)| tool.clone())
        .collect();
    let prompts: Vec<String> = (tape.prompts.iter())
        .filter(|(prompt, t)| moved(&locked.prompts, prompt, &t.sha256))
        .map(|(prompt, _)| prompt.clone())
        .collect();
    let mut uris = Vec::new();
    let mut resource_templates = Vec::new();
    for (uri, read) in &tape.resources {
        let Some(template) = &read.template else {
            continue;
        };
        let sha256 = read.sha256.as_deref().unwrap_or_default();
        if moved(&locked.resource_templates, template, sha256) {
            uris.push(uri.as_str());
            if !resource_templates.contains(template) {
                resource_templates.push(template.clone());
            }
        }
    }
    let at = |kind: &str, key: &str| {
        line_of(
            text,
            &[
                "\"servers\"",
                &format!("\"{server}\""),
                kind,
                &format!("\"{key}\""),
            ],
        )
    };
    let line = if let Some(tool) = tools.first() {
        at("\"tools\"", tool)
    } else if let Some(prompt) = prompts.first() {
        at("\"prompts\"", prompt)
    } else {
        at("\"resources\"", uris.first()?)
    };
    Some(Drifted {
        line,
        tools,
        prompts,
        resource_templates,
    })
}

/// The violations of the first recorded structured result that breaks
/// `schema`.
fn output_violations(schema: &Value, calls: &[Exchange]) -> Option<Vec<String>> {
    let compiled = mcpbind_model::internal::validate::compile(schema).ok()?;
    calls.iter().find_map(|call| {
        let result = call.result.as_ref()?;
        if result.get("isError") == Some(&Value::Bool(true)) {
            return None;
        }
        let structured = result.get("structuredContent")?;
        let found = mcpbind_model::internal::validate::violations_of(&compiled, structured);
        (!found.is_empty()).then(|| {
            found
                .iter()
                .map(|v| format!("{}: {}", v.pointer, v.message))
                .collect()
        })
    })
}

/// A tool's calls in stored order: by arguments, identical ones in the
/// order they were made (a stable sort).
fn sort_calls(calls: &mut [Exchange]) {
    calls.sort_by_cached_key(|call| call.arguments.as_ref().map(canonical_json));
}

/// The 1-based line of the last of `keys`, each looked for after the one
/// before it (1 when one is missing).
pub(crate) fn line_of(text: &str, keys: &[&str]) -> usize {
    let mut at = 0;
    for key in keys {
        match text[at..].find(&format!("{key}:")) {
            Some(found) => at += found,
            None => return 1,
        }
    }
    text[..at].matches('\n').count() + 1
}

/// `arguments` as a cassette stores them: canonical key order, without
/// `_meta`.
///
/// # Panics
///
/// Never: canonical JSON is JSON (the `expect` says so).
pub fn canonical_arguments(arguments: &serde_json::Map<String, Value>) -> Value {
    let mut arguments = arguments.clone();
    arguments.remove("_meta");
    serde_json::from_str(&canonical_json(&Value::Object(arguments)))
        .expect("canonical JSON is JSON")
}
