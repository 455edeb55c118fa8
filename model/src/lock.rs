//! The lockfile: `mcpbind.lock`, a committed snapshot of each server's
//! `tools/list`, and of its `prompts/list` and `resources/templates/list`
//! when it has prompts or resources.
//!
//! The format is JSON with sorted keys, two-space indentation, no timestamps
//! and a trailing newline, so that locking an unchanged server gives the same
//! bytes and a changed tool gives a small diff:
//!
//! ```json
//! {"lockfile_version": 1, "servers": {NAME: {"protocol_version", "server_info",
//!   "tools": [{"name", "sha256", "definition"}]}}}
//! ```
//!
//! `definition` is the tool object exactly as the server listed it, and
//! `sha256` the hex digest of its RFC 8785 canonical JSON. Reading checks both
//! agree, that no server lists a tool twice, and that nothing nests deeper
//! than [`MAX_DEPTH`]; whatever the writer writes, the reader reads.
//!
//! A server with prompts or resource templates also has `prompts` and
//! `resource_templates`, entries of the same shape (`name`, `sha256`,
//! `definition`), and `completions: true` when it answers
//! `completion/complete`. These keys, and the filters
//! `enabled_prompts`/`disabled_prompts`/`enabled_resource_templates`/
//! `disabled_resource_templates`, are left out when empty, so a lockfile
//! without them is still version 1, written byte for byte as before, and an
//! older reader (which ignores keys it doesn't know in a server) still reads
//! a newer file.

#[doc(hidden)]
pub mod depth;
mod error;
mod find;

use std::collections::BTreeMap;
use std::path::Path;

use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::config::{is_valid_server_name, Config, ServerConfig};
use crate::hash::sha256_hex;

#[doc(hidden)]
pub use depth::deeper_than;
#[cfg(feature = "validate")]
pub(crate) use depth::on_thread;
pub(crate) use depth::{from_str_deep, on_deep_stack};
pub use depth::{value_depth, MAX_DEPTH};
pub use error::{LockError, StaleReason};
pub use find::{
    config_beside, find_lockfile, lockfile_candidates, workspace_root, LOCKFILE_ENV, LOCKFILE_NAME,
};

/// The lockfile format this version reads and writes.
pub const LOCKFILE_VERSION: u64 = 1;

/// The largest lockfile read: far more than 10,000 tools, and a bound on
/// what a file that keeps growing (or is mistaken for one) can cost.
pub const MAX_LOCKFILE_BYTES: u64 = 512 << 20;

/// `Result` with [`LockError`].
pub type Result<T, E = LockError> = std::result::Result<T, E>;

/// A lockfile: the locked servers, by name.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lockfile {
    /// The format version; always [`LOCKFILE_VERSION`] once read.
    pub lockfile_version: u64,
    /// The servers, sorted by name.
    pub servers: BTreeMap<String, ServerLock>,
}

/// One locked server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServerLock {
    /// The protocol version negotiated when locking.
    pub protocol_version: String,
    /// The server's `serverInfo` (name, version…).
    pub server_info: Value,
    /// Its tools, sorted by name.
    pub tools: Vec<LockedTool>,
    /// The config's `enabled_tools` when locked, if it had one (so that a
    /// changed filter is caught as a stale lockfile).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled_tools: Option<Vec<String>>,
    /// The config's `disabled_tools` when locked, if any.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disabled_tools: Vec<String>,
    /// Its prompts (`prompts/list`, every page), sorted by name; empty when
    /// the server declares no `prompts` capability.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prompts: Vec<LockedPrompt>,
    /// Its resource templates (`resources/templates/list`, every page),
    /// sorted by name; empty when the server declares no `resources`
    /// capability.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resource_templates: Vec<LockedResourceTemplate>,
    /// Whether the server declared the `completions` capability (answers
    /// `completion/complete`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub completions: bool,
    /// The config's `enabled_prompts` when locked, if it had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled_prompts: Option<Vec<String>>,
    /// The config's `disabled_prompts` when locked, if any.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disabled_prompts: Vec<String>,
    /// The config's `enabled_resource_templates` when locked, if it had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled_resource_templates: Option<Vec<String>>,
    /// The config's `disabled_resource_templates` when locked, if any.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disabled_resource_templates: Vec<String>,
}

/// One locked entry of a list: a tool, a prompt or a resource template,
/// with its digest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LockedEntry {
    /// The entry's `name` on the wire.
    pub name: String,
    /// The hex sha256 of `definition`'s RFC 8785 canonical JSON.
    pub sha256: String,
    /// The object exactly as the server listed it.
    pub definition: Value,
}

/// One locked tool (a `tools/list` entry).
pub type LockedTool = LockedEntry;
/// One locked prompt (a `prompts/list` entry).
pub type LockedPrompt = LockedEntry;
/// One locked resource template (a `resources/templates/list` entry).
pub type LockedResourceTemplate = LockedEntry;

/// What a list holds, for messages: `("tool", "tools/list")`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    /// `tools/list`.
    Tool,
    /// `prompts/list`.
    Prompt,
    /// `resources/templates/list`.
    ResourceTemplate,
}

impl EntryKind {
    /// The kind in words: `tool`, `prompt`, `resource template`.
    pub fn noun(self) -> &'static str {
        match self {
            EntryKind::Tool => "tool",
            EntryKind::Prompt => "prompt",
            EntryKind::ResourceTemplate => "resource template",
        }
    }

    /// The MCP method that lists it.
    pub fn method(self) -> &'static str {
        match self {
            EntryKind::Tool => "tools/list",
            EntryKind::Prompt => "prompts/list",
            EntryKind::ResourceTemplate => "resources/templates/list",
        }
    }
}

impl LockedEntry {
    /// Locks a definition (a tool, prompt or resource template) as the
    /// server sent it; `None` when it has no string `name`. It doesn't
    /// check the depth: [`ServerLock::new`] does, and refuses a definition
    /// deeper than [`MAX_DEPTH`].
    pub fn new(definition: Value) -> Option<LockedEntry> {
        let name = definition.get("name")?.as_str()?.to_owned();
        let depth = value_depth(&definition);
        Some(LockedEntry {
            name,
            sha256: on_deep_stack(depth, || sha256_hex(&definition)),
            definition,
        })
    }

    /// The tool's `inputSchema`.
    pub fn input_schema(&self) -> Option<&Value> {
        self.definition.get("inputSchema")
    }

    /// The tool's `outputSchema`, if it has one.
    pub fn output_schema(&self) -> Option<&Value> {
        self.definition.get("outputSchema").filter(|v| !v.is_null())
    }

    /// The tool's `description`, if it has one.
    pub fn description(&self) -> Option<&str> {
        self.definition.get("description").and_then(Value::as_str)
    }

    /// The tool's `title` (or `annotations.title`), if it has one.
    pub fn title(&self) -> Option<&str> {
        self.definition
            .get("title")
            .or_else(|| self.definition.pointer("/annotations/title"))
            .and_then(Value::as_str)
    }

    /// An annotation hint (`readOnlyHint`…), if the server set it.
    pub fn hint(&self, name: &str) -> Option<bool> {
        self.definition
            .get("annotations")
            .and_then(|a| a.get(name))
            .and_then(Value::as_bool)
    }

    /// A prompt's `arguments` that have a string `name`, in order.
    pub fn prompt_arguments(&self) -> Vec<&Value> {
        self.definition
            .get("arguments")
            .and_then(Value::as_array)
            .map(|args| {
                args.iter()
                    .filter(|a| a.get("name").and_then(Value::as_str).is_some())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// A resource template's `uriTemplate`.
    pub fn uri_template(&self) -> Option<&str> {
        self.definition.get("uriTemplate").and_then(Value::as_str)
    }
}

impl ServerLock {
    /// Builds a server entry from a raw `tools/list`, sorting tools by name.
    ///
    /// # Errors
    ///
    /// A tool without a string `name`, a name listed twice, or a value
    /// nested deeper than a lockfile may be ([`MAX_DEPTH`]).
    pub fn new(
        server: &str,
        protocol_version: String,
        server_info: Value,
        tools: Vec<Value>,
    ) -> Result<ServerLock> {
        let too_deep = |what: String| LockError::TooDeep {
            server: server.to_owned(),
            what,
        };
        if value_depth(&server_info) + depth::INFO_ENVELOPE > MAX_DEPTH {
            depth::drop_deep(server_info);
            tools.into_iter().for_each(depth::drop_deep);
            return Err(too_deep("server_info".into()));
        }
        Ok(ServerLock {
            protocol_version,
            server_info,
            tools: lock_entries(server, EntryKind::Tool, tools)?,
            enabled_tools: None,
            disabled_tools: Vec::new(),
            prompts: Vec::new(),
            resource_templates: Vec::new(),
            completions: false,
            enabled_prompts: None,
            disabled_prompts: Vec::new(),
            enabled_resource_templates: None,
            disabled_resource_templates: Vec::new(),
        })
    }

    /// Adds the server's raw `prompts/list` (all pages), sorted by name.
    ///
    /// # Errors
    ///
    /// As [`ServerLock::new`] for tools: a prompt without a string `name`,
    /// a name listed twice, or a value nested too deep.
    pub fn with_prompts(mut self, server: &str, prompts: Vec<Value>) -> Result<ServerLock> {
        self.prompts = lock_entries(server, EntryKind::Prompt, prompts)?;
        Ok(self)
    }

    /// Adds the server's raw `resources/templates/list` (all pages), sorted
    /// by name.
    ///
    /// # Errors
    ///
    /// As [`ServerLock::with_prompts`].
    pub fn with_resource_templates(
        mut self,
        server: &str,
        templates: Vec<Value>,
    ) -> Result<ServerLock> {
        self.resource_templates = lock_entries(server, EntryKind::ResourceTemplate, templates)?;
        Ok(self)
    }

    /// Records the config's filters, so that a changed filter is caught as a
    /// stale lockfile.
    pub fn with_filters(mut self, config: &ServerConfig) -> ServerLock {
        self.enabled_tools = config.enabled_tools.clone();
        self.disabled_tools = config.disabled_tools.clone();
        self.enabled_prompts = config.enabled_prompts.clone();
        self.disabled_prompts = config.disabled_prompts.clone();
        self.enabled_resource_templates = config.enabled_resource_templates.clone();
        self.disabled_resource_templates = config.disabled_resource_templates.clone();
        self
    }

    /// The entries of one kind.
    pub fn entries(&self, kind: EntryKind) -> &[LockedEntry] {
        match kind {
            EntryKind::Tool => &self.tools,
            EntryKind::Prompt => &self.prompts,
            EntryKind::ResourceTemplate => &self.resource_templates,
        }
    }

    /// Why this entry no longer matches the server's config, if it doesn't.
    pub fn stale_reason(&self, config: &ServerConfig) -> Option<StaleReason> {
        let changed = |kind| Some(StaleReason::FiltersChanged { kind });
        if self.enabled_tools != config.enabled_tools
            || self.disabled_tools != config.disabled_tools
        {
            return changed(EntryKind::Tool);
        }
        if self.enabled_prompts != config.enabled_prompts
            || self.disabled_prompts != config.disabled_prompts
        {
            return changed(EntryKind::Prompt);
        }
        if self.enabled_resource_templates != config.enabled_resource_templates
            || self.disabled_resource_templates != config.disabled_resource_templates
        {
            return changed(EntryKind::ResourceTemplate);
        }
        let filtered = |kind: EntryKind, allows: &dyn Fn(&str) -> bool| {
            self.entries(kind)
                .iter()
                .find(|e| !allows(&e.name))
                .map(|e| StaleReason::FilteredOut {
                    kind,
                    name: e.name.clone(),
                })
        };
        filtered(EntryKind::Tool, &|n| config.allows_tool(n))
            .or_else(|| filtered(EntryKind::Prompt, &|n| config.allows_prompt(n)))
            .or_else(|| {
                filtered(EntryKind::ResourceTemplate, &|n| {
                    config.allows_resource_template(n)
                })
            })
    }
}

impl Lockfile {
    /// An empty lockfile.
    pub fn new() -> Lockfile {
        Lockfile {
            lockfile_version: LOCKFILE_VERSION,
            servers: BTreeMap::new(),
        }
    }

    /// Checks that the lockfile matches the config for `servers` (all
    /// configured servers when `None`): every server locked, with the same
    /// filters, and no locked server missing from the config.
    ///
    /// # Errors
    ///
    /// [`LockError::Stale`], naming the first server that differs.
    pub fn check_config(
        &self,
        config: &Config,
        servers: Option<&[String]>,
        path: &Path,
    ) -> Result<()> {
        let stale = |server: &str, reason: StaleReason| LockError::Stale {
            server: server.to_owned(),
            path: path.to_owned(),
            reason,
        };
        let names: Vec<&String> = match servers {
            Some(names) => names.iter().collect(),
            None => config.servers.keys().collect(),
        };
        for name in names {
            let Some(server) = config.servers.get(name) else {
                continue;
            };
            let Some(locked) = self.servers.get(name) else {
                return Err(stale(name, StaleReason::NotLocked));
            };
            if let Some(reason) = locked.stale_reason(server) {
                return Err(stale(name, reason));
            }
        }
        if servers.is_none() {
            if let Some(name) = self
                .servers
                .keys()
                .find(|n| !config.servers.contains_key(*n))
            {
                return Err(LockError::Unconfigured {
                    server: name.clone(),
                    path: path.to_owned(),
                });
            }
        }
        Ok(())
    }

    /// Reads and checks the lockfile at exactly `path` (see
    /// [`find_lockfile`] to look for one).
    ///
    /// # Errors
    ///
    /// A missing or unreadable file, or one [`Lockfile::parse`] rejects.
    pub fn read(path: impl AsRef<Path>) -> Result<Lockfile> {
        let path = path.as_ref();
        let text = read_text(path)?;
        Lockfile::parse(&text, path).map_err(|e| classify_unreadable(e, &text, path))
    }

    /// Reads the lockfile `mcpbind lock` is about to update: an empty one
    /// when there is none yet (or the file is empty), else
    /// [`Lockfile::read`]. Whatever can't be read is an error, never a
    /// fresh start: the caller must not overwrite what it could not read.
    ///
    /// # Errors
    ///
    /// As [`Lockfile::read`]: notably [`LockError::NotALockfile`] for a
    /// file that isn't one (`mcpbind.toml`, `Cargo.toml`),
    /// [`LockError::Conflict`] for one with git conflict markers and
    /// [`LockError::Version`] for a newer format.
    pub fn read_for_update(path: impl AsRef<Path>) -> Result<Lockfile> {
        let path = path.as_ref();
        let text = match read_text(path) {
            Err(LockError::Missing { .. }) => return Ok(Lockfile::new()),
            text => text?,
        };
        if text.trim_start_matches('\u{feff}').trim().is_empty() {
            return Ok(Lockfile::new());
        }
        Lockfile::parse(&text, path).map_err(|e| classify_unreadable(e, &text, path))
    }

    /// Parses and checks lockfile text (after a UTF-8 byte order mark, if
    /// it starts with one); `path` is used in errors.
    ///
    /// # Errors
    ///
    /// Text that isn't JSON or nests deeper than [`MAX_DEPTH`], another
    /// `lockfile_version`, an invalid server name, a tool listed twice, or a
    /// definition that doesn't match its name or digest. Each error names
    /// the file and line.
    pub fn parse(text: &str, path: &Path) -> Result<Lockfile> {
        // A UTF-8 byte order mark, as some Windows editors save files.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let invalid = |line: usize, message: String| LockError::Invalid {
            path: path.to_owned(),
            line,
            message,
        };
        let (depth, too_deep) = depth::text_depth(text.as_bytes(), MAX_DEPTH);
        if let Some(line) = too_deep {
            return Err(invalid(
                line,
                format!("JSON nested deeper than {MAX_DEPTH} levels"),
            ));
        }
        on_deep_stack(depth, || {
            let parsed = from_str_deep::<Lockfile>(text, depth);
            let lockfile = match parsed {
                Ok(lockfile) if lockfile.lockfile_version == LOCKFILE_VERSION => lockfile,
                // Another version, or a shape this one doesn't read: read as
                // any JSON, the text says which (the version first, as a
                // newer format may well have another shape).
                parsed => {
                    let value: Value =
                        from_str_deep(text, depth).map_err(|e| invalid(e.line(), e.to_string()))?;
                    check_version(&value, text, path)?;
                    parsed.map_err(|e| invalid(e.line(), e.to_string()))?
                }
            };
            check_servers(&lockfile, depth, text, path)?;
            Ok(lockfile)
        })
    }

    /// The canonical text: sorted keys, two-space indent, trailing newline.
    ///
    /// # Errors
    ///
    /// [`LockError::TooDeep`] for a value nested deeper than
    /// [`MAX_DEPTH`] (which [`ServerLock::new`] never makes).
    ///
    /// # Panics
    ///
    /// Never, in fact: a lockfile's keys are strings, so serde_json always
    /// serialises it (the one `expect` says so).
    pub fn to_json(&self) -> Result<String> {
        let mut depth = 2;
        for (name, server) in &self.servers {
            let too_deep = |what: String| LockError::TooDeep {
                server: name.clone(),
                what,
            };
            let info = value_depth(&server.server_info) + depth::INFO_ENVELOPE;
            if info > MAX_DEPTH {
                return Err(too_deep("server_info".into()));
            }
            depth = depth.max(info);
            for kind in [
                EntryKind::Tool,
                EntryKind::Prompt,
                EntryKind::ResourceTemplate,
            ] {
                for entry in server.entries(kind) {
                    let entry_depth = value_depth(&entry.definition) + depth::TOOL_ENVELOPE;
                    if entry_depth > MAX_DEPTH {
                        return Err(too_deep(format!("{} `{}`", kind.noun(), entry.name)));
                    }
                    depth = depth.max(entry_depth);
                }
            }
        }
        let mut text = on_deep_stack(depth, || serde_json::to_string_pretty(&Sorted(self)))
            .expect("a lockfile always serializes: its keys are strings");
        text.push('\n');
        Ok(text)
    }

    /// Writes the lockfile unless the file already holds the same bytes.
    /// Returns whether it wrote.
    ///
    /// # Errors
    ///
    /// [`LockError::TooDeep`] (see [`Lockfile::to_json`]), or the file
    /// could not be written.
    pub fn write(&self, path: impl AsRef<Path>) -> Result<bool> {
        let path = path.as_ref();
        let text = self.to_json()?;
        crate::write::write_file_if_changed(path, text.as_bytes()).map_err(|source| {
            LockError::Write {
                path: path.to_owned(),
                source,
            }
        })
    }
}

/// The text of the lockfile at `path`: a regular file (a FIFO or device
/// is refused unread) of at most [`MAX_LOCKFILE_BYTES`], in UTF-8.
fn read_text(path: &Path) -> Result<String> {
    crate::write::read_regular(path, MAX_LOCKFILE_BYTES)
        .and_then(|bytes| {
            String::from_utf8(bytes)
                .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
        })
        .map_err(|source| {
            if source.kind() == std::io::ErrorKind::NotFound {
                LockError::Missing {
                    path: path.to_owned(),
                    looked: vec![path.to_owned()],
                }
            } else {
                LockError::Read {
                    path: path.to_owned(),
                    source,
                }
            }
        })
}

/// Why a lockfile could not be parsed, said better when the text shows it:
/// git conflict markers, or a file that isn't a lockfile at all.
fn classify_unreadable(err: LockError, text: &str, path: &Path) -> LockError {
    if let Some(line) = text.lines().position(|l| {
        l.starts_with("<<<<<<< ") || l.starts_with(">>>>>>> ") || l == "<<<<<<<" || l == ">>>>>>>"
    }) {
        return LockError::Conflict {
            path: path.to_owned(),
            line: line + 1,
        };
    }
    let ours = text.trim_start().starts_with('{') && text.contains("\"lockfile_version\"");
    match err {
        LockError::Invalid { .. } if !ours => LockError::NotALockfile {
            path: path.to_owned(),
        },
        err => err,
    }
}

/// Parses a locked definition kept as JSON text (a generated `ToolMeta`'s),
/// of any depth the lockfile allows; `null` if it isn't JSON.
#[doc(hidden)]
pub fn parse_definition(text: &str) -> Value {
    match depth::text_depth(text.as_bytes(), MAX_DEPTH) {
        (depth, None) => from_str_deep(text, depth).unwrap_or(Value::Null),
        (_, Some(_)) => Value::Null,
    }
}

/// Locks one raw list (a tool, prompt or template per value), sorted by
/// name.
///
/// # Errors
///
/// An entry without a string `name`, one nested deeper than a lockfile may
/// be, or a name listed twice.
fn lock_entries(server: &str, kind: EntryKind, values: Vec<Value>) -> Result<Vec<LockedEntry>> {
    let noun = kind.noun();
    let mut locked = Vec::with_capacity(values.len());
    let mut values = values.into_iter().enumerate();
    while let Some((index, value)) = values.next() {
        let name = value.get("name").and_then(Value::as_str).map(str::to_owned);
        let error = match name {
            None => Some(LockError::Server {
                server: server.to_owned(),
                message: format!("{noun} #{index} of {} has no string `name`", kind.method()),
            }),
            Some(name) if value_depth(&value) + depth::TOOL_ENVELOPE > MAX_DEPTH => {
                Some(LockError::TooDeep {
                    server: server.to_owned(),
                    what: format!("{noun} `{name}`"),
                })
            }
            Some(_) => None,
        };
        if let Some(error) = error {
            depth::drop_deep(value);
            values.for_each(|(_, value)| depth::drop_deep(value));
            return Err(error);
        }
        locked.extend(LockedEntry::new(value));
    }
    locked.sort_by(|a, b| a.name.cmp(&b.name));
    if let Some(dup) = locked.windows(2).find(|w| w[0].name == w[1].name) {
        return Err(LockError::Server {
            server: server.to_owned(),
            message: format!("{} lists {noun} `{}` twice", kind.method(), dup[0].name),
        });
    }
    Ok(locked)
}

fn check_version(value: &Value, text: &str, path: &Path) -> Result<()> {
    match value.get("lockfile_version") {
        Some(Value::Number(n)) if n.as_u64() == Some(LOCKFILE_VERSION) => Ok(()),
        Some(Value::Number(n)) if n.as_u64().is_some_and(|v| v > LOCKFILE_VERSION) => {
            Err(LockError::Version {
                path: path.to_owned(),
                found: n.to_string(),
            })
        }
        other => Err(LockError::Invalid {
            path: path.to_owned(),
            line: line_of(text, 0, "\"lockfile_version\"", 0).unwrap_or(1),
            message: format!(
                "`lockfile_version` must be {LOCKFILE_VERSION}, found {}",
                other.map_or("nothing".to_owned(), Value::to_string)
            ),
        }),
    }
}

/// Checks every server's entry ([`check_server`]); a large lockfile on
/// several threads (hashing every definition is most of reading it). The
/// error reported is the first in the file's order either way.
fn check_servers(lockfile: &Lockfile, depth: usize, text: &str, path: &Path) -> Result<()> {
    let servers: Vec<_> = lockfile.servers.iter().collect();
    let entries: usize = servers.iter().map(|(_, s)| s.tools.len()).sum();
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(servers.len())
        .min(entries / 256 + 1);
    let check = |chunk: &[(&String, &ServerLock)]| {
        chunk
            .iter()
            .try_for_each(|(server, entry)| check_server(server, entry, text, path))
    };
    if threads <= 1 {
        return check(&servers);
    }
    // Contiguous chunks of about the same number of tools.
    let per_thread = entries.div_ceil(threads);
    let mut chunks = Vec::with_capacity(threads);
    let (mut start, mut count) = (0, 0);
    for (i, (_, server)) in servers.iter().enumerate() {
        count += server.tools.len();
        if count >= per_thread {
            chunks.push(&servers[start..=i]);
            (start, count) = (i + 1, 0);
        }
    }
    chunks.push(&servers[start..]);
    let check = &check;
    std::thread::scope(|scope| {
        let workers: Vec<_> = chunks
            .into_iter()
            .map(|chunk| {
                std::thread::Builder::new()
                    .spawn_scoped(scope, move || on_deep_stack(depth, || check(chunk)))
                    .map_err(|_| chunk)
            })
            .collect();
        workers.into_iter().try_for_each(|worker| match worker {
            Ok(handle) => handle
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            // No thread to be had: checked on this one.
            Err(chunk) => check(chunk),
        })
    })
}

/// Checks one server's entry: its name, and each tool's name, digest and
/// uniqueness. Lines are found by searching the text from the server's key.
fn check_server(server: &str, entry: &ServerLock, text: &str, path: &Path) -> Result<()> {
    if !is_valid_server_name(server) {
        return Err(LockError::Invalid {
            path: path.to_owned(),
            line: line_of(text, 0, &format!("\"{server}\""), 0).unwrap_or(1),
            message: format!("invalid server name `{server}`"),
        });
    }
    for kind in [
        EntryKind::Tool,
        EntryKind::Prompt,
        EntryKind::ResourceTemplate,
    ] {
        check_entries(server, kind, entry.entries(kind), text, path)?;
    }
    Ok(())
}

/// Checks one list of a server's entry: each entry's name, digest and
/// uniqueness. Lines are found by searching the text from the server's key.
fn check_entries(
    server: &str,
    kind: EntryKind,
    entries: &[LockedEntry],
    text: &str,
    path: &Path,
) -> Result<()> {
    let noun = kind.noun();
    let mut seen = std::collections::HashSet::new();
    for (index, tool) in entries.iter().enumerate() {
        // The line of this entry's digest: which occurrence of it in the
        // server's entry is this one's. Only searched for on an error.
        let line = || {
            let start = text.find(&format!("\"{server}\":")).unwrap_or(0);
            let nth = entries[..index]
                .iter()
                .filter(|t| t.sha256 == tool.sha256)
                .count();
            line_of(text, start, &tool.sha256, nth).unwrap_or(1)
        };
        if tool.definition.get("name").and_then(Value::as_str) != Some(&tool.name) {
            return Err(LockError::Invalid {
                path: path.to_owned(),
                line: line(),
                message: format!(
                    "server `{server}`: {noun} `{}` does not match the name in its definition",
                    tool.name
                ),
            });
        }
        let hash_ok = sha256_hex(&tool.definition) == tool.sha256;
        let first = seen.insert(tool.name.as_str());
        match (kind, hash_ok, first) {
            (_, true, true) => {}
            (EntryKind::Tool, false, _) => {
                return Err(LockError::Hash {
                    path: path.to_owned(),
                    line: line(),
                    server: server.to_owned(),
                    tool: tool.name.clone(),
                })
            }
            (EntryKind::Tool, true, false) => {
                return Err(LockError::DuplicateTool {
                    path: path.to_owned(),
                    line: line(),
                    server: server.to_owned(),
                    tool: tool.name.clone(),
                })
            }
            (_, false, _) => {
                return Err(LockError::Invalid {
                    path: path.to_owned(),
                    line: line(),
                    message: format!(
                        "server `{server}`, {noun} `{}`: sha256 does not match the definition",
                        tool.name
                    ),
                })
            }
            (_, true, false) => {
                return Err(LockError::Invalid {
                    path: path.to_owned(),
                    line: line(),
                    message: format!("server `{server}` lists {noun} `{}` twice", tool.name),
                })
            }
        }
    }
    Ok(())
}

/// The 1-based line of the `nth` (0-based) occurrence of `needle` at or
/// after byte `start`.
fn line_of(text: &str, start: usize, needle: &str, nth: usize) -> Option<usize> {
    let (at, _) = text[start..].match_indices(needle).nth(nth)?;
    Some(text[..start + at].matches('\n').count() + 1)
}

/// Serializes with object keys in sorted order, whatever order
/// `serde_json::Map` keeps (`preserve_order` may be on in the build).
struct Sorted<'a, T: ?Sized>(&'a T);

impl Serialize for Sorted<'_, Lockfile> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match serde_json::to_value(self.0) {
            Ok(value) => Sorted(&value).serialize(s),
            Err(e) => Err(serde::ser::Error::custom(e)),
        }
    }
}

impl Serialize for Sorted<'_, Value> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self.0 {
            Value::Object(map) => {
                let mut entries: Vec<_> = map.iter().collect();
                entries.sort_by(|a, b| a.0.cmp(b.0));
                let mut out = s.serialize_map(Some(entries.len()))?;
                for (k, v) in entries {
                    out.serialize_entry(k, &Sorted(v))?;
                }
                out.end()
            }
            Value::Array(items) => {
                let mut out = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    out.serialize_element(&Sorted(item))?;
                }
                out.end()
            }
            other => other.serialize(s),
        }
    }
}

#[cfg(test)]
mod tests;

/// The generator's real-world corpus: the `tools/list` of 66 public MCP
/// servers, locked (`codegen/tests/corpus/servers.lock`), for tests that
/// run over real schemas.
#[cfg(test)]
pub(crate) fn corpus() -> Lockfile {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../codegen/tests/corpus/servers.lock"
    );
    Lockfile::read(path).unwrap()
}
