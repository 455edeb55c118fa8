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
use mcpbind_model::ResourceTemplateMeta;
use serde_json::{Map, Value};

use crate::cassette::{canonical_arguments, Cassette, CassetteError, Exchange};
use crate::listing::Asked;

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
        let exchange = exchange_of(Some(canonical_arguments(arguments)), &answer, secrets);
        self.add(server, protocol, Entry::Tool(tool, sha256), exchange);
    }

    /// Adds one exchange of server `server` (and saves, when it
    /// autosaves).
    pub(crate) fn note(&self, server: &str, protocol: &str, entry: Entry<'_>, exchange: Exchange) {
        self.add(server, protocol, entry, exchange);
        if self.autosave {
            match self.save() {
                // Busy: what was heard stays, for the next save.
                Ok(()) | Err(CassetteError::Busy { .. }) => {}
                // Not the call's error: the call itself went as it went.
                // Said, so that a recording that stops is not silent.
                Err(e) => {
                    tracing::warn!(file = %self.path.display(), "recording under MCPBIND_RECORD: {e}")
                }
            }
        }
    }

    fn add(&self, server: &str, protocol: &str, entry: Entry<'_>, exchange: Exchange) {
        let mut heard = self.lock();
        let tape = heard.servers.entry(server.to_owned()).or_default();
        tape.protocol_version = protocol.to_owned();
        match entry {
            Entry::Tool(name, sha256) => {
                let tool = tape.tools.entry(name.to_owned()).or_default();
                sha256.clone_into(&mut tool.sha256);
                tool.calls.push(exchange);
            }
            Entry::Prompt(name, sha256) => {
                let prompt = tape.prompts.entry(name.to_owned()).or_default();
                sha256.clone_into(&mut prompt.sha256);
                prompt.calls.push(exchange);
            }
            Entry::Resource(uri, template) => {
                let resource = tape.resources.entry(uri.to_owned()).or_default();
                resource.template = template.map(|(name, _)| name.to_owned());
                resource.sha256 = template.map(|(_, sha256)| sha256.to_owned());
                resource.reads.push(exchange);
            }
        }
    }
}

/// What an exchange is a call of, with its locked hash: a tool or a
/// prompt, or a read of a URI (and the name and hash of the template it
/// matches, if one does).
pub(crate) enum Entry<'a> {
    Tool(&'a str, &'a str),
    Prompt(&'a str, &'a str),
    Resource(&'a str, Option<(&'a str, &'a str)>),
}

/// An exchange as a cassette keeps it: every `secrets` value in the
/// arguments, the result and the error replaced by its label.
pub(crate) fn exchange_of(
    arguments: Option<Value>,
    answer: &Result<Value, String>,
    secrets: &[(String, String)],
) -> Exchange {
    let mut exchange = Exchange {
        arguments,
        result: answer.as_ref().ok().cloned(),
        error: None,
    };
    if let Some(v) = exchange.arguments.as_mut() {
        redact_value(v, secrets);
    }
    if let Some(v) = exchange.result.as_mut() {
        redact_value(v, secrets);
    }
    if let Err(e) = answer {
        let mut text = Value::String(e.clone());
        redact_value(&mut text, secrets);
        exchange.error = text.as_str().map(str::to_owned);
    }
    exchange
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

    /// Records `answer` and passes it on (unredacted: the caller is the
    /// program that had the secret).
    fn keep(
        &self,
        entry: Entry<'_>,
        arguments: Option<Value>,
        answer: Result<Value, String>,
    ) -> ServeResult {
        let exchange = exchange_of(arguments, &answer, &self.secrets);
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

/// An answer as JSON, or its error's text.
pub(crate) fn json<T: serde::Serialize>(
    value: &mcpbind_client::Result<T>,
) -> Result<Value, String> {
    match value {
        Ok(v) => serde_json::to_value(v).map_err(|e| e.to_string()),
        Err(e) => Err(e.to_string()),
    }
}

impl<S: ToolServer> ToolServer for Recording<S> {
    crate::listing::listed_by!(shape);
    crate::listing::answered!();
}

impl<S: ToolServer> Recording<S> {
    fn answer<'a>(&'a self, asked: Asked<'a>) -> BoxFuture<'a, Option<ServeResult>> {
        Box::pin(async move {
            let live = &self.live;
            Some(match asked {
                Asked::Tool(name, canonical, arguments) => {
                    let meta = self.shape.tools().iter().find(|t| t.name == name)?;
                    let options = CallOptions::default();
                    let answer = json(&live.call_raw(name, arguments, &options).await);
                    let sha256 = meta.sha256();
                    self.keep(Entry::Tool(name, &sha256), Some(canonical), answer)
                }
                Asked::Prompt(name, canonical, arguments) => {
                    let meta = self.shape.prompts().iter().find(|p| p.name == name)?;
                    let answer = json(&live.get_prompt_raw(name, arguments).await);
                    self.keep(Entry::Prompt(name, meta.sha256), Some(canonical), answer)
                }
                Asked::Resource(uri) => {
                    let template = template_of(self.shape.resource_templates(), uri);
                    let answer = json(&live.read_resource(uri).await);
                    let template = template.map(|t| (t.name, t.sha256));
                    self.keep(Entry::Resource(uri, template), None, answer)
                }
            })
        })
    }
}

/// The locked template `uri` matches, if one does.
pub(crate) fn template_of<'a>(
    templates: &'a [ResourceTemplateMeta],
    uri: &str,
) -> Option<&'a ResourceTemplateMeta> {
    templates
        .iter()
        .find(|t| UriTemplate::parse(t.uri_template).is_ok_and(|t| t.match_uri(uri).is_some()))
}
