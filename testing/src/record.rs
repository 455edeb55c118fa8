//! Recording: a double that passes each call to the real server and
//! writes it down. [`Recording`] stands between a generated client (on
//! [`InProcess`](crate::InProcess)) and a live [`Client`]; [`Recorder`]
//! keeps what it heard and writes the cassette.
//!
//! What reaches the cassette has every `${VAR}` secret of the live
//! server's config replaced by its label (`${VAR}`), as events show them.
//! Two recorders of one file take turns: [`Recorder::save`] holds
//! `FILE.lock` (created exclusively) while it reads the file, merges its
//! calls in and writes it back, and refuses, naming the lock, when another
//! holds it; no call is lost to a last-writer-wins rename.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use mcpbind_client::{CallOptions, Client, ServerSecrets};
use mcpbind_model::handler::{BoxFuture, ServeError, ServeResult};
use mcpbind_model::handler::{ToolFailure, ToolServer};
use mcpbind_model::uri_template::UriTemplate;
use mcpbind_model::{PromptMeta, ResourceTemplateMeta, ToolMeta};
use serde_json::{Map, Value};

use crate::cassette::{canonical_arguments, Cassette, CassetteError, Exchange};

/// What a recording heard, to be written to one cassette file.
#[derive(Clone)]
pub struct Recorder {
    path: PathBuf,
    heard: Arc<Mutex<Cassette>>,
    /// Saves after each exchange (a program recording under
    /// `MCPBIND_RECORD`, which never calls [`Recorder::save`]).
    autosave: bool,
}

impl Recorder {
    /// A recorder writing to `path` (merged into what is there).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Recorder {
            path: path.into(),
            heard: Arc::default(),
            autosave: false,
        }
    }

    /// A recorder writing to the file `MCPBIND_RECORD` names, if it is set
    /// (feature `record`: a build without it cannot be made to record by
    /// its environment). It saves after each call (merged into the file,
    /// under its lock); a call heard while another recorder holds the
    /// file is saved with the next.
    #[cfg(feature = "record")]
    pub fn from_env() -> Option<Self> {
        let path = std::env::var_os("MCPBIND_RECORD")?;
        (!path.is_empty()).then(|| Recorder {
            autosave: true,
            ..Recorder::new(path)
        })
    }

    /// The cassette file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What was heard and not saved yet.
    pub fn heard(&self) -> Cassette {
        self.lock().clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Cassette> {
        self.heard.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Writes what was heard into the file: under `FILE.lock`, reads it,
    /// adds these calls, writes it back. What was saved is forgotten.
    ///
    /// # Errors
    ///
    /// [`CassetteError::Busy`] while another recorder saves the file;
    /// those of reading it ([`Cassette::read`]) and of writing it.
    pub fn save(&self) -> Result<(), CassetteError> {
        let lock = PathBuf::from(format!("{}.lock", self.path.display()));
        let io = |action, source| CassetteError::Io {
            action,
            file: self.path.clone(),
            source,
        };
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&lock)
        {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                return Err(CassetteError::Busy {
                    file: self.path.clone(),
                    lock,
                })
            }
            Err(e) => return Err(io("write", e)),
        }
        let saved = (|| {
            let mut cassette = Cassette::read(&self.path)?;
            let heard = std::mem::take(&mut *self.lock());
            cassette.merge(heard);
            let temp = PathBuf::from(format!("{}.tmp", self.path.display()));
            std::fs::write(&temp, cassette.to_text()).map_err(|e| io("write", e))?;
            std::fs::rename(&temp, &self.path).map_err(|e| io("write", e))
        })();
        let _ = std::fs::remove_file(&lock);
        saved
    }

    /// Records one tool call made elsewhere (`mcpbind call --record`):
    /// server `server` at `protocol`, tool `tool` whose definition hashes
    /// to `sha256`, its arguments and its answer (a `CallToolResult` as
    /// JSON, or the error's text), each `secrets` value replaced by its
    /// label.
    #[allow(clippy::too_many_arguments)]
    pub fn record_call(
        &self,
        server: &str,
        protocol: &str,
        tool: &str,
        sha256: &str,
        arguments: &Map<String, Value>,
        answer: Result<Value, String>,
        secrets: &[(String, String)],
    ) {
        let mut exchange = Exchange {
            arguments: Some(canonical_arguments(arguments)),
            result: answer.as_ref().ok().cloned(),
            error: answer.err(),
        };
        if let Some(v) = exchange.arguments.as_mut() {
            redact_value(v, secrets);
        }
        if let Some(v) = exchange.result.as_mut() {
            redact_value(v, secrets);
        }
        if let Some(e) = exchange.error.as_mut() {
            let mut text = Value::String(std::mem::take(e));
            redact_value(&mut text, secrets);
            *e = text.as_str().unwrap_or_default().to_owned();
        }
        let mut heard = self.lock();
        let tape = heard.servers.entry(server.to_owned()).or_default();
        tape.protocol_version = protocol.to_owned();
        let entry = tape.tools.entry(tool.to_owned()).or_default();
        entry.sha256 = sha256.to_owned();
        entry.calls.push(exchange);
    }

    /// Adds one exchange of server `server` (and saves, when it
    /// autosaves).
    fn note(&self, server: &str, protocol: &str, entry: Entry<'_>, exchange: Exchange) {
        self.add(server, protocol, entry, exchange);
        if self.autosave {
            // Busy: what was heard stays, for the next save.
            let _ = self.save();
        }
    }

    fn add(&self, server: &str, protocol: &str, entry: Entry<'_>, exchange: Exchange) {
        let mut heard = self.lock();
        let tape = heard.servers.entry(server.to_owned()).or_default();
        tape.protocol_version = protocol.to_owned();
        match entry {
            Entry::Tool(meta) => {
                let tool = tape.tools.entry(meta.name.to_owned()).or_default();
                tool.sha256 = meta.sha256();
                tool.calls.push(exchange);
            }
            Entry::Prompt(meta) => {
                let prompt = tape.prompts.entry(meta.name.to_owned()).or_default();
                prompt.sha256 = meta.sha256.to_owned();
                prompt.calls.push(exchange);
            }
            Entry::Resource(uri, template) => {
                let resource = tape.resources.entry(uri.to_owned()).or_default();
                resource.template = template.map(|t| t.name.to_owned());
                resource.sha256 = template.map(|t| t.sha256.to_owned());
                resource.reads.push(exchange);
            }
        }
    }
}

/// What an exchange is a call of: a locked tool or prompt, or a read of
/// a URI (and the locked template it matches, if one does).
enum Entry<'a> {
    Tool(&'a ToolMeta),
    Prompt(&'a PromptMeta),
    Resource(&'a str, Option<&'a ResourceTemplateMeta>),
}

/// A double that passes each call to a live server and records it:
/// `shape` (a generated `Server`) says what is listed, `live` answers.
pub struct Recording<S> {
    shape: S,
    protocol: String,
    live: Client,
    secrets: Vec<(String, String)>,
    recorder: Recorder,
}

impl<S: ToolServer> Recording<S> {
    /// Records `live`'s answers, for the client locked at `protocol`, in
    /// `recorder`.
    pub fn new(shape: S, protocol: &str, live: Client, recorder: &Recorder) -> Self {
        let secrets = live.server_config().labelled_secrets();
        Recording {
            shape,
            protocol: protocol.to_owned(),
            live,
            secrets,
            recorder: recorder.clone(),
        }
    }

    /// `value` with each secret replaced by its label, in every string.
    fn redact(&self, mut value: Value) -> Value {
        redact_value(&mut value, &self.secrets);
        value
    }

    /// Records `answer` and passes it on (unredacted: the caller is the
    /// program that had the secret).
    fn keep(
        &self,
        entry: Entry<'_>,
        arguments: Option<Value>,
        answer: Result<Value, String>,
    ) -> ServeResult {
        let exchange = Exchange {
            arguments: arguments.map(|a| self.redact(a)),
            result: answer.as_ref().ok().map(|r| self.redact(r.clone())),
            error: answer.as_ref().err().map(|e| {
                let mut text = Value::String(e.clone());
                redact_value(&mut text, &self.secrets);
                text.as_str().unwrap_or_default().to_owned()
            }),
        };
        let server = self.live.server_name().to_owned();
        self.recorder.note(&server, &self.protocol, entry, exchange);
        answer.map_err(|e| ServeError::Failed(ToolFailure(e)))
    }
}

/// Replaces each secret by its label in every string of `value`.
fn redact_value(value: &mut Value, secrets: &[(String, String)]) {
    match value {
        Value::String(s) => {
            for (secret, label) in secrets {
                if !secret.is_empty() && s.contains(secret.as_str()) {
                    *s = s.replace(secret.as_str(), label);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| redact_value(v, secrets)),
        Value::Object(map) => map.values_mut().for_each(|v| redact_value(v, secrets)),
        _ => {}
    }
}

fn json<T: serde::Serialize>(value: mcpbind_client::Result<T>) -> Result<Value, String> {
    value
        .map_err(|e| e.to_string())
        .and_then(|v| serde_json::to_value(v).map_err(|e| e.to_string()))
}

impl<S: ToolServer> ToolServer for Recording<S> {
    crate::listing::listed_by!(shape);

    fn call_tool<'a>(
        &'a self,
        name: &'a str,
        arguments: Map<String, Value>,
    ) -> BoxFuture<'a, Option<ServeResult>> {
        Box::pin(async move {
            let meta = self.shape.tools().iter().find(|t| t.name == name)?;
            let canonical = canonical_arguments(&arguments);
            let options = CallOptions::default();
            let answer = json(self.live.call_raw(name, arguments, &options).await);
            Some(self.keep(Entry::Tool(meta), Some(canonical), answer))
        })
    }
    fn get_prompt<'a>(
        &'a self,
        name: &'a str,
        arguments: Map<String, Value>,
    ) -> BoxFuture<'a, Option<ServeResult>> {
        Box::pin(async move {
            let meta = self.shape.prompts().iter().find(|p| p.name == name)?;
            let canonical = canonical_arguments(&arguments);
            let answer = json(self.live.get_prompt_raw(name, arguments).await);
            Some(self.keep(Entry::Prompt(meta), Some(canonical), answer))
        })
    }
    fn read_resource<'a>(&'a self, uri: &'a str) -> BoxFuture<'a, Option<ServeResult>> {
        Box::pin(async move {
            let template = self.shape.resource_templates().iter().find(|t| {
                UriTemplate::parse(t.uri_template).is_ok_and(|t| t.match_uri(uri).is_some())
            });
            let answer = json(self.live.read_resource(uri).await);
            Some(self.keep(Entry::Resource(uri, template), None, answer))
        })
    }
}
