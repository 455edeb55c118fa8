//! `MCPBIND_RECORD=path` (feature `record`): a program that connects as
//! usual (a generated client's `connect`) records each call it makes in
//! the cassette at `path`. The live connection is put behind a
//! [`Recording`] double served in-process, so the client crate has no
//! recording code of its own, and a build without the feature cannot be
//! made to record by its environment.

use mcpbind_client::Client;
use mcpbind_model::handler::{BoxFuture, ServeResult, ToolServer};
use mcpbind_model::{PromptMeta, ResourceTemplateMeta, ToolMeta};
use serde_json::{Map, Value};

use crate::{InProcess, Recorder, Recording};

/// What a generated client's `connect` gives back: `live` itself, or,
/// when `MCPBIND_RECORD` names a file, a client whose calls pass through
/// a recorder to `live` and are saved to that file as they are made.
/// `protocol`, `tools`, `prompts` and `templates` are the generated
/// module's locked ones.
pub async fn recorded(
    live: Client,
    protocol: &'static str,
    tools: &'static [ToolMeta],
    prompts: &'static [PromptMeta],
    templates: &'static [ResourceTemplateMeta],
) -> Client {
    let Some(recorder) = Recorder::from_env() else {
        return live;
    };
    let info = match live.server_info().await {
        Ok(info) => serde_json::to_string(&info.server_info).unwrap_or_default(),
        Err(_) => String::new(),
    };
    let listed = Listed {
        info: Box::leak(info.into_boxed_str()),
        tools,
        prompts,
        templates,
    };
    // One name per connection made while recording: leaked, as a
    // generated client's `SERVER` is static.
    let name: &'static str = Box::leak(live.server_name().to_owned().into_boxed_str());
    let config = live.server_config().clone();
    let recording = Recording::new(listed, protocol, live.clone(), &recorder);
    InProcess::new(name, protocol, tools, recording, |client| client)
        .config(config)
        .client()
        .unwrap_or(live)
}

/// The locked listing of a generated module, answering nothing itself
/// (the [`Recording`] around it answers).
struct Listed {
    info: &'static str,
    tools: &'static [ToolMeta],
    prompts: &'static [PromptMeta],
    templates: &'static [ResourceTemplateMeta],
}

impl ToolServer for Listed {
    fn server_info(&self) -> &'static str {
        self.info
    }
    fn tools(&self) -> &'static [ToolMeta] {
        self.tools
    }
    fn prompts(&self) -> &'static [PromptMeta] {
        self.prompts
    }
    fn resource_templates(&self) -> &'static [ResourceTemplateMeta] {
        self.templates
    }
    fn call_tool<'a>(
        &'a self,
        _name: &'a str,
        _arguments: Map<String, Value>,
    ) -> BoxFuture<'a, Option<ServeResult>> {
        Box::pin(std::future::ready(None))
    }
}
