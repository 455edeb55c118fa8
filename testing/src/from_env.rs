//! `MCPBIND_RECORD=path` (feature `record`): a program records each tool
//! call, prompt and resource read it makes, in the cassette at `path`,
//! however it connects: a generated client's `connect`, an untyped
//! `Client::connect` (or `connect_server`, `lazy`, `Servers`), a
//! `Toolbox`'s servers. The crate installs a tap into the client crate
//! before `main` (`mcpbind_client::internal::TAP`, the client's
//! `record-tap` feature), so the client crate has no recording code of
//! its own, and a build without the feature cannot be made to record by
//! its environment.
//!
//! The tap sits on the live client itself: a call emits its one event,
//! and its progress reaches the caller, as in any other build.
//!
//! Each entry is stored with its locked hash: a generated client's
//! `connect` gives its module's locked listing ([`recorded`]); for a
//! server connected without one, the hashes of the definitions the server
//! lists (as `mcpbind lock` computes them), listed once.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use mcpbind_client::internal::{Heard, TAP};
use mcpbind_client::{Client, Error, ServerSecrets as _};
use mcpbind_model::hash::sha256_hex;
use mcpbind_model::{PromptMeta, ResourceTemplateMeta, ToolMeta};
use serde_json::Value;

use crate::cassette::{canonical_arguments, Cassette};
use crate::record::{exchange_of, json, Entry};
use crate::Recorder;

#[ctor::ctor]
fn install() {
    let _ = TAP.set(|client, heard| Box::pin(tap(client, heard)));
}

/// The recorder `MCPBIND_RECORD` names, read once.
fn recorder() -> Option<&'static Recorder> {
    static RECORDER: OnceLock<Option<Recorder>> = OnceLock::new();
    RECORDER.get_or_init(Recorder::from_env).as_ref()
}

/// A server's listing, by server name: a generated module's (locked), or
/// what the server listed.
fn listings() -> &'static Mutex<HashMap<String, Arc<Listing>>> {
    static LISTINGS: OnceLock<Mutex<HashMap<String, Arc<Listing>>>> = OnceLock::new();
    LISTINGS.get_or_init(Mutex::default)
}

/// The hashes a server's entries are stored with, and its protocol.
#[derive(Default)]
struct Listing {
    protocol: String,
    tools: HashMap<String, String>,
    prompts: HashMap<String, String>,
    /// Each template's name, URI template and hash.
    templates: Vec<(String, String, String)>,
}

async fn tap(client: &Client, heard: Heard<'_>) -> mcpbind_client::Result<()> {
    let Some(recorder) = recorder() else {
        return Ok(());
    };
    if let Heard::Connect = heard {
        return usable(recorder).map_err(|why| Error::Connect {
            server: client.server_name().to_owned(),
            reason: why,
            stderr: None,
            cause: None,
        });
    }
    let listing = listing_of(client).await;
    let secrets = client.server_config().labelled_secrets();
    let hash = |hashes: &HashMap<String, String>, name: &str| {
        hashes.get(name).cloned().unwrap_or_default()
    };
    let (entry, arguments, answer) = match heard {
        Heard::Connect => return Ok(()),
        Heard::Tool(name, arguments, answer) => {
            let sha256 = hash(&listing.tools, name);
            let arguments = canonical_arguments(&arguments);
            (Kept::Tool(name, sha256), Some(arguments), json(answer))
        }
        Heard::Prompt(name, arguments, answer) => {
            let sha256 = hash(&listing.prompts, name);
            let arguments = canonical_arguments(&arguments);
            (Kept::Prompt(name, sha256), Some(arguments), json(answer))
        }
        Heard::Resource(uri, answer) => (Kept::Resource(uri), None, json(answer)),
    };
    let exchange = exchange_of(arguments, &answer, &secrets);
    let entry = match &entry {
        Kept::Tool(name, sha256) => Entry::Tool(name, sha256),
        Kept::Prompt(name, sha256) => Entry::Prompt(name, sha256),
        Kept::Resource(uri) => Entry::Resource(uri, template_of(&listing, uri)),
    };
    recorder.note(client.server_name(), &listing.protocol, entry, exchange);
    Ok(())
}

/// An [`Entry`]'s owned parts.
enum Kept<'a> {
    Tool(&'a str, String),
    Prompt(&'a str, String),
    Resource(&'a str),
}

/// The listed template `uri` matches, as its name and hash.
fn template_of<'a>(listing: &'a Listing, uri: &str) -> Option<(&'a str, &'a str)> {
    use mcpbind_model::uri_template::UriTemplate;
    listing
        .templates
        .iter()
        .find(|(_, template, _)| {
            UriTemplate::parse(template).is_ok_and(|t| t.match_uri(uri).is_some())
        })
        .map(|(name, _, sha256)| (name.as_str(), sha256.as_str()))
}

/// Whether the cassette can be recorded to: it reads as one (or is not
/// there yet) in a directory that is. Else why not, with the fix.
fn usable(recorder: &Recorder) -> Result<(), String> {
    let file = recorder.path();
    let fix = "fix or remove the file, or set MCPBIND_RECORD to another path \
               (unset it to run unrecorded)";
    if let Err(e) = Cassette::read(file) {
        return Err(format!("recording under MCPBIND_RECORD: {e}; {fix}"));
    }
    let dir = match file.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => std::path::Path::new("."),
    };
    if !dir.is_dir() {
        return Err(format!(
            "recording under MCPBIND_RECORD: cannot write cassette {}: directory {} \
             does not exist; create it, or {fix}",
            file.display(),
            dir.display()
        ));
    }
    Ok(())
}

/// `client`'s listing: the locked one its generated module gave, or the
/// one its server lists (listed once per server).
async fn listing_of(client: &Client) -> Arc<Listing> {
    let name = client.server_name();
    if let Some(listing) = lock(listings()).get(name) {
        return Arc::clone(listing);
    }
    let listing = Arc::new(listed(client).await);
    let mut listings = lock(listings());
    Arc::clone(listings.entry(name.to_owned()).or_insert(listing))
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// What the server lists, hashed as `mcpbind lock` hashes it (a list
/// the server does not give is empty).
async fn listed(client: &Client) -> Listing {
    let protocol = match client.server_info().await {
        Ok(info) => info.protocol_version.to_string(),
        Err(_) => String::new(),
    };
    let tools = client.list_tools_raw().await.unwrap_or_default();
    let prompts = client.list_prompts_checked().await.unwrap_or_default().0;
    let templates = client.list_resource_templates_checked().await;
    let field = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_owned);
    let hashed = |list: &[Value]| -> HashMap<String, String> {
        let named = list
            .iter()
            .filter_map(|v| Some((field(v, "name")?, sha256_hex(v))));
        named.collect()
    };
    Listing {
        protocol,
        tools: hashed(&tools),
        prompts: hashed(&prompts),
        templates: templates
            .unwrap_or_default()
            .0
            .iter()
            .filter_map(|v| Some((field(v, "name")?, field(v, "uriTemplate")?, sha256_hex(v))))
            .collect(),
    }
}

/// What a generated client's `connect` gives back: `live` itself. When
/// `MCPBIND_RECORD` names a file, its module's locked listing (`protocol`,
/// `tools`, `prompts`, `templates`) is what `live`'s entries are recorded
/// with, the calls being recorded by the tap as every client's are.
pub async fn recorded(
    live: Client,
    protocol: &'static str,
    tools: &'static [ToolMeta],
    prompts: &'static [PromptMeta],
    templates: &'static [ResourceTemplateMeta],
) -> Client {
    if recorder().is_some() {
        let listing = Listing {
            protocol: protocol.to_owned(),
            tools: tools
                .iter()
                .map(|t| (t.name.to_owned(), t.sha256()))
                .collect(),
            prompts: prompts
                .iter()
                .map(|p| (p.name.to_owned(), p.sha256.to_owned()))
                .collect(),
            templates: templates
                .iter()
                .map(|t| (t.name.into(), t.uri_template.into(), t.sha256.into()))
                .collect(),
        };
        let name = live.server_name().to_owned();
        lock(listings()).insert(name, Arc::new(listing));
    }
    live
}
