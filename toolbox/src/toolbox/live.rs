//! Unlocked tools (opt-in, with
//! [`Toolbox::add_unlocked`](super::Toolbox::add_unlocked)): a server that
//! is not in the lockfile (chosen at run time) joins the toolbox with the
//! tools its live `tools/list` gives.
//!
//! Nothing about them was reviewed or compiled: each call's arguments are
//! checked against the input schema the server listed (compiled when the
//! tool was added: a tool whose schema can't be compiled is left out, with
//! a warning), and its structured content against its output schema. They
//! are labelled unlocked wherever a tool is shown: the inventory, its
//! [`ToolFacts`](super::ToolFacts), [`Definitions::unlocked`](super::Definitions::unlocked)
//! and [`ToolInvoked::unlocked`](mcpbind_client::events::ToolInvoked::unlocked).
//!
//! When the server says its tools changed (`notifications/tools/list_changed`),
//! they are listed again in the background: a tool whose definition
//! changed (or that went away) is held back, since its definition here is
//! stale, until [`Toolbox::refresh_unlocked`](super::Toolbox::refresh_unlocked)
//! lists them anew. A call made before that listing is back lists them
//! itself: a call is never checked against a definition the server
//! changed.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use rmcp::model::CallToolResult;
use serde_json::Value;

use super::{
    model_name, object_arguments, providers, CallError, ServerSlot, SlotKind, ToolCall, ToolSlot,
    Toolbox, ToolboxError,
};
use mcpbind_client::events::Outcome;
use mcpbind_client::internal::{self, CallScope};
use mcpbind_client::notices::ListKind;
use mcpbind_client::{CallOptions, Client, Error, ServerSecrets, ToolResult};
use mcpbind_model::TaskSupport;

/// A tool listed live: what the toolbox shows of it and checks its calls
/// against.
pub(crate) struct LiveTool {
    /// The wire name (interned: a [`ToolCall`]'s target names it for the
    /// process's life).
    pub(crate) name: &'static str,
    pub(crate) description: Option<String>,
    /// The input schema as listed.
    schema: Value,
    /// The same, compiled.
    input: crate::validate::Compiled,
    /// The output schema as listed, compiled (`None`: none, or it could not
    /// be compiled).
    output: Option<crate::validate::Compiled>,
    /// Annotations, MCP defaults applied.
    pub(crate) read_only: bool,
    pub(crate) destructive: bool,
    pub(crate) idempotent: bool,
    pub(crate) open_world: bool,
    task: TaskSupport,
    /// The digest of its definition as listed.
    sha256: String,
    /// How many tool list changes the server had announced when it was
    /// listed: once that moves, the definition may be stale.
    listed_at: u64,
}

impl std::fmt::Debug for LiveTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiveTool")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl LiveTool {
    /// Whether a later listing of the server's tools shows this one changed
    /// or gone (what is known now, without asking the server).
    pub(crate) fn is_stale(&self, client: &Client) -> bool {
        if internal::list_changes(client, ListKind::Tools) == self.listed_at {
            return false;
        }
        match internal::latest_live_tools(client) {
            Some((at, digests)) if at > self.listed_at => {
                digests.get(self.name) != Some(&self.sha256)
            }
            // Not listed since the change: a call lists them first.
            _ => false,
        }
    }

    /// Whether the server changed this tool since it was listed, listing
    /// the tools again when no listing since the last change is known.
    pub(crate) async fn changed(&self, client: &Client) -> Result<bool, Error> {
        let now = internal::list_changes(client, ListKind::Tools);
        if now == self.listed_at {
            return Ok(false);
        }
        let (_, digests) = match internal::latest_live_tools(client) {
            Some(latest) if latest.0 == now => latest,
            _ => internal::list_live_tools(client).await?,
        };
        Ok(digests.get(self.name) != Some(&self.sha256))
    }
}

/// The most bytes of live tool names a process keeps (each distinct name
/// once, for the process's life: a [`ToolCall`] names its tool by a
/// `&'static str`).
const MAX_INTERNED_BYTES: usize = 1 << 20;

/// A live tool's name as a `&'static str`, kept once per distinct name;
/// `None` past [`MAX_INTERNED_BYTES`].
fn intern(name: &str) -> Option<&'static str> {
    static NAMES: OnceLock<Mutex<(HashSet<&'static str>, usize)>> = OnceLock::new();
    let mut names = NAMES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(found) = names.0.get(name) {
        return Some(found);
    }
    if names.1 + name.len() > MAX_INTERNED_BYTES {
        return None;
    }
    let leaked: &'static str = Box::leak(name.to_owned().into_boxed_str());
    names.0.insert(leaked);
    names.1 += name.len();
    Some(leaked)
}

/// A tool of a live listing, or why it is left out (naming the tool).
fn live_tool(server: &str, definition: &Value, listed_at: u64) -> Result<LiveTool, String> {
    let name = definition
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let left_out =
        |why: String| format!("unlocked tool `{name}` of server `{server}` is left out: {why}");
    let schema = definition
        .get("inputSchema")
        .cloned()
        .unwrap_or_else(|| serde_json::json!({"type": "object"}));
    let input = crate::validate::compile(&schema)
        .map_err(|e| left_out(format!("its inputSchema can't be checked ({e})")))?;
    let output = match definition.get("outputSchema") {
        None | Some(Value::Null) => None,
        Some(schema) => match crate::validate::compile(schema) {
            Ok(v) => Some(v),
            Err(e) => {
                tracing::warn!(server, tool = name, error = %e, "an unlocked tool's outputSchema can't be compiled; its structured content is not checked");
                None
            }
        },
    };
    let name = intern(name).ok_or_else(|| {
        left_out(format!(
            "the process has seen over {MAX_INTERNED_BYTES} bytes of live tool names"
        ))
    })?;
    let hint = |key: &str, default: bool| {
        definition
            .pointer(&format!("/annotations/{key}"))
            .and_then(Value::as_bool)
            .unwrap_or(default)
    };
    Ok(LiveTool {
        name,
        description: definition
            .get("description")
            .and_then(Value::as_str)
            .map(str::to_owned),
        schema,
        input,
        output,
        read_only: hint("readOnlyHint", false),
        destructive: hint("destructiveHint", true),
        idempotent: hint("idempotentHint", false),
        open_world: hint("openWorldHint", true),
        task: TaskSupport::of(definition),
        sha256: mcpbind_model::lock::LockedEntry::new(definition.clone())
            .map(|e| e.sha256)
            .unwrap_or_default(),
        listed_at,
    })
}

impl Toolbox {
    /// Opt-in: adds a server that is not in the lockfile, with the tools
    /// its live `tools/list` gives now (every page; the config's
    /// `enabled_tools`/`disabled_tools` apply, `tool_prefix` names them).
    ///
    /// Such tools are **unlocked**: nobody reviewed them and no code was
    /// generated for them. A call's arguments are checked against the
    /// input schema the server listed (a tool whose schema can't be
    /// compiled is left out and named in [`warnings`](Self::warnings)), its
    /// structured content against the listed output schema (under the
    /// server's `validate_output`); annotations decide retries and tasks as
    /// for a locked tool. They are labelled unlocked in the inventory,
    /// [`ToolFacts::unlocked`](super::ToolFacts::unlocked),
    /// [`Definitions::unlocked`](super::Definitions::unlocked) and
    /// [`ToolInvoked::unlocked`](mcpbind_client::events::ToolInvoked::unlocked), so that a
    /// host can hold them back or ask for approval. When the server says
    /// its tools changed, they are held back until
    /// [`refresh_unlocked`](Self::refresh_unlocked).
    ///
    /// A server already in the toolbox is kept once (a warning names it).
    ///
    /// ```no_run
    /// # async fn run(config: &mcpbind::Config) -> Result<(), Box<dyn std::error::Error>> {
    /// let mut tools = mcpbind::Toolbox::new();
    /// let client = mcpbind::Client::connect(config, "scratch").await?;
    /// tools.add_unlocked(client).await?;
    /// tools.hold_back_where(|t| t.unlocked && !t.read_only);
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// Listing the tools failed, or a tool's model-facing name collides
    /// with one already in the toolbox.
    pub async fn add_unlocked(
        &mut self,
        client: impl Into<Arc<Client>>,
    ) -> Result<&mut Self, ToolboxError> {
        let client = client.into();
        let name = client.server_name().to_owned();
        if self.added_before(&name) {
            return Ok(self);
        }
        let tools = self.list_live(&client).await?;
        self.insert_live(client, tools, None)?;
        Ok(self)
    }

    /// Lists an unlocked server's tools again (after the server said they
    /// changed: they are held back until then), keeping what was held
    /// back by name.
    ///
    /// # Errors
    ///
    /// The server is not in the toolbox or was not added unlocked, listing
    /// failed, or a new tool's name collides with another model-facing
    /// name (the old tools are kept then).
    pub async fn refresh_unlocked(&mut self, server: &str) -> Result<&mut Self, ToolboxError> {
        let index = self
            .servers
            .iter()
            .position(|s| s.name == server)
            .ok_or_else(|| ToolboxError::UnknownServer {
                server: server.to_owned(),
            })?;
        let slot = &self.servers[index];
        if slot
            .tools
            .iter()
            .any(|t| !matches!(t.kind, SlotKind::Live(_)))
        {
            return Err(ToolboxError::NotUnlocked {
                server: server.to_owned(),
            });
        }
        let client = Arc::clone(&slot.client);
        let tools = self.list_live(&client).await?;
        self.insert_live(client, tools, Some(index))?;
        Ok(self)
    }

    /// The server's live tools, filtered by its config; what is left out
    /// goes to the warnings.
    async fn list_live(&mut self, client: &Client) -> Result<Vec<Arc<LiveTool>>, ToolboxError> {
        let server = client.server_name();
        // Read before listing: a change announced meanwhile makes them stale.
        let listed_at = internal::list_changes(client, ListKind::Tools);
        let (listed, skipped) =
            client
                .list_tools_checked()
                .await
                .map_err(|e| ToolboxError::Listing {
                    server: server.to_owned(),
                    source: Box::new(e),
                })?;
        internal::note_live_tools(client, listed_at, &listed);
        self.warnings.extend(
            skipped
                .into_iter()
                .map(|line| format!("server `{server}`: {line}")),
        );
        let config = client.server_config();
        let mut tools = Vec::new();
        for definition in &listed {
            let name = definition.get("name").and_then(Value::as_str);
            if !name.is_some_and(|n| config.allows_tool(n)) {
                continue;
            }
            match live_tool(server, definition, listed_at) {
                Ok(tool) => tools.push(Arc::new(tool)),
                Err(warning) => {
                    tracing::warn!("{warning}");
                    self.warnings.push(warning);
                }
            }
        }
        Ok(tools)
    }

    /// Puts a server's live tools in the toolbox: as a new server, or in
    /// place of server `replace`'s (whose hold-backs are kept by name).
    pub(super) fn insert_live(
        &mut self,
        client: Arc<Client>,
        tools: Vec<Arc<LiveTool>>,
        replace: Option<usize>,
    ) -> Result<(), ToolboxError> {
        let name = client.server_name().to_owned();
        let config = client.server_config();
        let prefix = config.tool_prefix.clone().unwrap_or_else(|| name.clone());
        let server_index = replace.unwrap_or(self.servers.len());
        let held: HashSet<&str> = replace
            .map(|i| {
                self.servers[i]
                    .tools
                    .iter()
                    .filter(|t| t.held_back)
                    .map(ToolSlot::wire_name)
                    .collect()
            })
            .unwrap_or_default();
        let mut slots: Vec<ToolSlot> = Vec::new();
        for tool in tools {
            let model_name = model_name(&prefix, tool.name);
            let taken = self
                .index
                .get(&model_name)
                .filter(|(s, _)| *s != server_index)
                .map(|&(s, t)| {
                    let first = &self.servers[s];
                    (first.name.clone(), first.tools[t].wire_name().to_owned())
                })
                .or_else(|| {
                    slots
                        .iter()
                        .find(|s| s.model_name == model_name)
                        .map(|s| (name.clone(), s.wire_name().to_owned()))
                });
            if let Some((first_server, first_tool)) = taken {
                return Err(ToolboxError::NameCollision {
                    name: model_name,
                    first_server,
                    first_tool,
                    second_server: name,
                    second_tool: tool.name.to_owned(),
                });
            }
            // The schema the model sees: the listed one, its root made an
            // object schema as for a locked tool.
            let schema = providers::object_root(tool.schema.clone());
            slots.push(ToolSlot {
                held_back: held.contains(tool.name),
                kind: SlotKind::Live(tool),
                model_name,
                schema: Arc::new(schema),
            });
        }
        match replace {
            Some(i) => {
                self.index.retain(|_, (s, _)| *s != i);
                self.servers[i].tools = slots;
            }
            None => self.servers.push(ServerSlot {
                name,
                client,
                tools: slots,
                held_back: false,
            }),
        }
        for (t, slot) in self.servers[server_index].tools.iter().enumerate() {
            self.index
                .insert(slot.model_name.clone(), (server_index, t));
        }
        Ok(())
    }
}

/// A model's call of an unlocked tool: its arguments checked against the
/// listed input schema, sent with `call_raw`, the result checked against
/// the listed output schema.
pub(super) async fn call(
    server: &ServerSlot,
    slot: &ToolSlot,
    tool: &LiveTool,
    arguments: Result<Value, String>,
    start: Instant,
) -> ToolCall {
    let config = server.client.server_config();
    let finish = |outcome: Result<ToolResult<Value>, CallError>, shown: Value, attempts| {
        let event_outcome = match &outcome {
            Ok(_) => Outcome::Ok,
            Err(CallError::Call(e)) => internal::outcome_of(e),
            Err(e) => Outcome::Rejected {
                message: e.to_string(),
            },
        };
        internal::publish_toolbox_call(
            config,
            internal::unlocked_toolbox_call(
                server.name.clone(),
                tool.name.to_owned(),
                slot.model_name.clone(),
                shown,
                event_outcome,
                start.elapsed(),
                attempts,
            ),
        );
        ToolCall {
            name: slot.model_name.clone(),
            target: Some((server.name.clone(), tool.name)),
            outcome,
            duration: start.elapsed(),
            attempts,
        }
    };
    let mut arguments = match object_arguments(arguments) {
        Ok(map) => Value::Object(map),
        Err((reason, shown)) => return finish(Err(CallError::MalformedJson { reason }), shown, 0),
    };
    let problems = check_arguments(slot, tool, &mut arguments);
    if !problems.is_empty() {
        return finish(
            Err(CallError::Arguments {
                violations: problems,
            }),
            arguments,
            0,
        );
    }
    let Value::Object(map) = arguments.clone() else {
        return finish(
            Err(CallError::MalformedJson {
                reason: "not an object".into(),
            }),
            arguments,
            0,
        );
    };
    let (outcome, attempts) = send_call(server, slot, tool, map).await;
    finish(outcome, arguments, attempts)
}

/// The model's arguments un-aliased and completed (in place), then checked
/// against the listed input schema: the problems found (none: fine).
fn check_arguments(
    slot: &ToolSlot,
    tool: &LiveTool,
    arguments: &mut Value,
) -> Vec<crate::validate::Violation> {
    super::params::unalias(&slot.schema, arguments);
    let mut problems = super::dispatch::prepare(&slot.schema, arguments);
    if problems.is_empty() {
        problems = super::dispatch::explain(
            &slot.schema,
            crate::validate::violations_of(&tool.input, arguments),
        );
    }
    problems
}

/// Sends the call with `call_raw` (retried when the tool is read-only or
/// idempotent, as a task when it requires one) and checks its result
/// against the listed output schema: the outcome and the attempts made.
async fn send_call(
    server: &ServerSlot,
    slot: &ToolSlot,
    tool: &LiveTool,
    map: serde_json::Map<String, Value>,
) -> (Result<ToolResult<Value>, CallError>, u32) {
    let config = server.client.server_config();
    let mut options = CallOptions::default();
    options.retry_safe = tool.read_only || tool.idempotent;
    options.as_task = tool.task == TaskSupport::Required;
    let scope = Arc::new(CallScope {
        model_name: Some(slot.model_name.clone()),
        ..CallScope::default()
    });
    let result = internal::with_scope(
        Arc::clone(&scope),
        server.client.call_raw(tool.name, map, &options),
    )
    .await;
    let attempts = scope.attempts.load(std::sync::atomic::Ordering::Relaxed);
    let secrets = config.secrets();
    let outcome = match result {
        Ok(result) => checked(&server.name, tool, config.validate_output, result)
            .map_err(|e| CallError::Call(e.redacted(&secrets))),
        Err(e) => Err(CallError::Call(e)),
    };
    (outcome, attempts)
}

/// A live result: an `isError` one is [`Error::Tool`]; structured content
/// that breaks the listed output schema is [`Error::Output`].
fn checked(
    server: &str,
    tool: &LiveTool,
    validate_output: bool,
    result: CallToolResult,
) -> Result<ToolResult<Value>, Error> {
    if result.is_error == Some(true) {
        return Err(Error::Tool {
            server: server.to_owned(),
            tool: tool.name.to_owned(),
            message: mcpbind_client::internal::text_of(&result.content),
            result: Box::new(result),
        });
    }
    if let (true, Some(schema), Some(structured)) =
        (validate_output, &tool.output, &result.structured_content)
    {
        let violations = crate::validate::violations_of(schema, structured);
        if !violations.is_empty() {
            return Err(Error::Output {
                server: server.to_owned(),
                tool: tool.name.to_owned(),
                reason: format!(
                    "structuredContent does not match the outputSchema the server listed: {}",
                    crate::validate::join(&violations)
                ),
                violations,
                result: Box::new(result),
            });
        }
    }
    Ok(internal::tool_result(
        result.structured_content.clone().unwrap_or(Value::Null),
        result.content,
        result.structured_content,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_listed_tool_keeps_its_annotations_and_schemas() {
        let definition = json!({
            "name": "wipe", "description": "Wipes.",
            "inputSchema": {"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}}},
            "annotations": {"readOnlyHint": false, "idempotentHint": true},
            "execution": {"taskSupport": "required"}
        });
        let tool = live_tool("s", &definition, 3).unwrap();
        assert_eq!(tool.name, "wipe");
        assert!(tool.destructive && tool.idempotent && tool.open_world && !tool.read_only);
        assert_eq!(tool.task, TaskSupport::Required);
        let violations = crate::validate::violations_of(&tool.input, &json!({"n": 0}));
        assert_eq!(violations.len(), 1);
        assert_eq!(violations[0].keyword, "minimum");
        assert_eq!(
            violations[0].to_string(),
            "/n: 0 is less than the minimum of 1"
        );
        // The same name is kept once.
        assert!(std::ptr::eq(
            intern("wipe").unwrap(),
            live_tool("t", &definition, 0).unwrap().name
        ));
    }

    #[test]
    fn a_schema_that_cant_be_checked_leaves_the_tool_out() {
        let definition = json!({"name": "odd", "inputSchema": {"type": "nonsense"}});
        let error = live_tool("s", &definition, 0).unwrap_err();
        assert!(
            error.starts_with(
                "unlocked tool `odd` of server `s` is left out: its inputSchema can't be checked ("
            ),
            "{error}"
        );
    }
}
