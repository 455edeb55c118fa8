//! [`Toolbox`]: the locked, generated tools of one or more servers, handed to
//! a model.
//!
//! A model sees each tool under a model-facing name (`{prefix}_{tool}`, see
//! [`model_name`]) with a definition derived from the lockfile (OpenAI,
//! Anthropic, Gemini); each call it makes is resolved back to its server and
//! tool, its arguments are checked against the locked schema, and it runs
//! through the same typed path as a generated client's method
//! (`Client::call::<T>`): same params type, validation, timeout and errors.
//!
//! Generated code gives the toolbox what it needs through [`BoundServer`]:
//! each server's generated `Client` lists one [`ToolEntry`] per tool.
//!
//! Four opt-ins go beyond locked tools: a server's resource templates as
//! read tools ([`Toolbox::add_resource_templates`], `templates.rs`), prompts
//! rendered into a system prompt ([`Toolbox::system_prompt`], `prompts.rs`),
//! concrete resources rendered within a budget
//! ([`Toolbox::resource_context`], `resources.rs`), and the live tools of a
//! server the lockfile doesn't hold, labelled unlocked
//! ([`Toolbox::add_unlocked`], `live.rs`).

mod content;
mod dispatch;
mod hooks;
mod inventory;
mod live;
mod names;
mod params;
mod prompts;
mod providers;
mod resources;
#[cfg(feature = "rig")]
mod rig;
mod select;
#[cfg(feature = "skills")]
mod skills;
mod templates;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use serde_json::Value;

use mcpbind_client::internal::{self, CallScope};
use mcpbind_client::Client;
use mcpbind_model::{ResourceTemplateMeta, Tool, ToolMeta};

pub use content::{ContentKind, ContentNote, ContentOptions, Placement, Provider, ProviderResult};
pub use dispatch::{CallError, ModelResult, ToolCall};
pub use hooks::{HookCall, ToolHook};
pub use inventory::{ServerInventory, ToolInventory};
use mcpbind_client::{Approval, Approvals};
pub use names::{is_legal as is_legal_tool_name, model_name, MAX_NAME_LEN};
pub use prompts::PromptRequest;
pub use providers::{
    Definitions, DescriptionPolicy, LimitExceeded, OpenAiShape, Refusal, RequestLimit,
};
pub use select::ToolFacts;
#[cfg(feature = "skills")]
pub use skills::{skill_catalog, SkillEntry};

use dispatch::CallFn;
use providers::ToolView;
use templates::TemplateTool;

/// What a toolbox needs of one generated tool: its locked metadata and its
/// typed call. Generated code builds one per tool with
/// [`ToolEntry::of`].
#[derive(Clone, Copy)]
pub struct ToolEntry {
    meta: ToolMeta,
    call: CallFn,
    /// [`Tool::NEEDS_APPROVAL`]: bound with `annotations = "enforce"`, and
    /// the tool may modify things.
    needs_approval: bool,
}

impl std::fmt::Debug for ToolEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolEntry")
            .field("server", &self.meta.server)
            .field("tool", &self.meta.name)
            .finish_non_exhaustive()
    }
}

impl ToolEntry {
    /// The entry of tool `T` (a generated marker type).
    pub const fn of<T>() -> ToolEntry
    where
        T: Tool,
        T::Input: Sync,
    {
        ToolEntry {
            meta: T::META,
            call: dispatch::call_typed::<T>,
            needs_approval: T::NEEDS_APPROVAL,
        }
    }

    /// The tool's locked metadata.
    pub fn meta(&self) -> &ToolMeta {
        &self.meta
    }
}

/// A generated client a [`Toolbox`] can hold: implemented by every
/// generated server module's `Client`.
pub trait BoundServer {
    /// One entry per locked tool, in lockfile order.
    const ENTRIES: &'static [ToolEntry];

    /// The `annotations` mode the bindings were generated under (`None`:
    /// bindings older than this record). [`Toolbox::add`] refuses a client
    /// whose config says another.
    const ANNOTATIONS: Option<mcpbind_model::config::Annotations> = None;

    /// The untyped client underneath.
    fn into_client(self) -> Client;
}

/// Errors of building a toolbox.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ToolboxError {
    /// Two tools would get the same model-facing name.
    #[error("model-facing name `{name}` is taken twice: by tool `{first_tool}` of server `{first_server}` and by tool `{second_tool}` of server `{second_server}`")]
    NameCollision {
        /// The name.
        name: String,
        /// The server that has it first.
        first_server: String,
        /// Its tool.
        first_tool: String,
        /// The server that wants it too.
        second_server: String,
        /// Its tool.
        second_tool: String,
    },
    /// No server of the toolbox has this name.
    #[error("the toolbox has no server `{server}`")]
    UnknownServer {
        /// The name asked for.
        server: String,
    },
    /// No tool of the toolbox has this model-facing name.
    #[error("the toolbox has no tool `{name}`")]
    UnknownTool {
        /// The name asked for.
        name: String,
    },
    /// A locked resource template is not RFC 6570 (the lockfile was
    /// edited: `mcpbind lock` only locks templates that parse).
    #[error("resource template `{template}` of server `{server}` can't be a read tool: {reason}")]
    InvalidTemplate {
        /// The server.
        server: String,
        /// The template's name.
        template: String,
        /// Why its `uriTemplate` doesn't parse.
        reason: String,
    },
    /// An unlocked server's tools could not be listed.
    #[error("the tools of server `{server}` could not be listed")]
    Listing {
        /// The server.
        server: String,
        /// Why (boxed: the error is large).
        #[source]
        source: Box<mcpbind_client::Error>,
    },
    /// [`Toolbox::refresh_unlocked`] of a server added with its locked
    /// tools.
    #[error("server `{server}` was not added unlocked: its tools are the locked ones")]
    NotUnlocked {
        /// The server.
        server: String,
    },
    /// A server's resources could not be listed or read.
    #[error("{} of server `{server}` could not be read", uri.as_deref().map_or("the resources".to_owned(), |u| format!("resource `{u}`")))]
    Resource {
        /// The server.
        server: String,
        /// The resource, when reading it failed (`None`: listing failed).
        uri: Option<String>,
        /// Why (boxed: the error is large).
        #[source]
        source: Box<mcpbind_client::Error>,
    },
    /// A resource could not be subscribed to.
    #[error("resource `{uri}` of server `{server}` could not be subscribed to")]
    Subscribe {
        /// The server.
        server: String,
        /// The resource.
        uri: String,
        /// Why (boxed: the error is large).
        #[source]
        source: Box<mcpbind_client::Error>,
    },
    /// Bindings generated under one `annotations` mode, added with a
    /// client whose config says another (as a generated client's `connect`
    /// refuses it: [`Error::AnnotationsMismatch`](mcpbind_client::Error::AnnotationsMismatch)).
    #[error("{}", mcpbind_client::internal::annotations_mismatch(server, *bindings, *config))]
    AnnotationsMismatch {
        /// The server.
        server: String,
        /// The mode the bindings were generated under.
        bindings: mcpbind_model::config::Annotations,
        /// The mode of the client's config.
        config: mcpbind_model::config::Annotations,
    },
    /// A prompt for the system prompt could not be got.
    #[error("prompt `{prompt}` of server `{server}` could not be rendered")]
    Prompt {
        /// The server.
        server: String,
        /// The prompt's name.
        prompt: String,
        /// Why (boxed: the error is large).
        #[source]
        source: Box<mcpbind_client::Error>,
    },
}

impl ToolboxError {
    /// What the user can do about it, when that is known (this error's own:
    /// `mcpbind::help` looks through its source, a runtime
    /// [`Error`](mcpbind_client::Error), too).
    pub fn help(&self) -> Option<String> {
        match self {
            ToolboxError::NameCollision { .. } => Some(
                "set a different `tool_prefix` for one of the servers in mcpbind.toml".to_owned(),
            ),
            ToolboxError::AnnotationsMismatch { server, config, .. } => Some(
                mcpbind_client::internal::annotations_mismatch_help(server, *config),
            ),
            _ => None,
        }
    }
}

impl mcpbind_model::Help for ToolboxError {
    fn help(&self) -> Option<String> {
        ToolboxError::help(self)
    }
}

#[derive(Clone)]
struct ServerSlot {
    name: String,
    client: Arc<Client>,
    tools: Vec<ToolSlot>,
    held_back: bool,
}

impl ServerSlot {
    /// Whether `tool` is held back: by the caller (itself or its server), or
    /// because it changed on the server while connected and the server's
    /// `pin_policy` refuses it (its definition here would be stale).
    fn holds_back(&self, tool: &ToolSlot) -> bool {
        self.held_back
            || tool.held_back
            || match &tool.kind {
                SlotKind::Tool(_) => self.client.is_refused(tool.wire_name()),
                SlotKind::Live(live) => live.is_stale(&self.client),
                SlotKind::Template(template) => internal::refuse_drifted_in(
                    &self.client,
                    mcpbind_client::notices::ListKind::Resources,
                    template.meta.name,
                )
                .is_err(),
            }
    }
}

#[derive(Clone)]
struct ToolSlot {
    kind: SlotKind,
    model_name: String,
    schema: Arc<Value>,
    held_back: bool,
}

/// What a model-facing tool runs.
#[derive(Clone)]
enum SlotKind {
    /// A generated, typed tool.
    Tool(ToolEntry),
    /// A resource template read (opt-in).
    Template(Arc<TemplateTool>),
    /// A tool of an unlocked server's live listing (opt-in).
    Live(Arc<live::LiveTool>),
}

impl ToolSlot {
    /// The tool's or the template's name on the wire.
    fn wire_name(&self) -> &'static str {
        match &self.kind {
            SlotKind::Tool(entry) => entry.meta.name,
            SlotKind::Template(template) => template.meta.name,
            SlotKind::Live(live) => live.name,
        }
    }

    /// What the model reads about it.
    fn description(&self) -> Option<&str> {
        match &self.kind {
            SlotKind::Tool(entry) => entry.meta.description,
            SlotKind::Template(template) => Some(&template.description),
            SlotKind::Live(live) => live.description.as_deref(),
        }
    }

    fn is_unlocked(&self) -> bool {
        matches!(self.kind, SlotKind::Live(_))
    }
}

/// The tools of one or more connected servers, as a model sees them.
///
/// ```
/// # mcpbind::mcp_tools!(lockfile = "../mcpbind/mcpbind.lock", servers = [demo]);
/// # async fn run(config: &mcpbind::Config) -> Result<(), Box<dyn std::error::Error>> {
/// let mut tools = mcpbind::Toolbox::new();
/// tools.add(demo::Client::connect(config).await?)?;
/// let definitions = tools.anthropic_tools().tools; // send with the request
/// let call = tools.call("demo_add", r#"{"a": 2, "b": 3}"#).await;
/// let reply = call.for_model(); // back to the model
/// # Ok(()) }
/// # fn main() {}
/// ```
#[derive(Clone, Default)]
pub struct Toolbox {
    servers: Vec<ServerSlot>,
    index: HashMap<String, (usize, usize)>,
    description: DescriptionPolicy,
    hooks: Vec<Arc<dyn ToolHook>>,
    approvals: Approvals,
    warnings: Vec<String>,
}

impl std::fmt::Debug for Toolbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Toolbox")
            .field("servers", &self.server_names())
            .field("tools", &self.tool_count())
            .finish_non_exhaustive()
    }
}

impl Toolbox {
    /// An empty toolbox.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a connected generated client's server and its tools.
    ///
    /// # Errors
    ///
    /// [`ToolboxError::NameCollision`] when a tool's model-facing name is
    /// already taken; [`ToolboxError::AnnotationsMismatch`] when the
    /// bindings were generated under another `annotations` mode than the
    /// client's config says.
    pub fn add<S: BoundServer>(&mut self, server: S) -> Result<&mut Self, ToolboxError> {
        let client = server.into_client();
        if let Some(bindings) = S::ANNOTATIONS {
            let config = client.server_config().annotations;
            if config != bindings {
                return Err(ToolboxError::AnnotationsMismatch {
                    server: client.server_name().to_owned(),
                    bindings,
                    config,
                });
            }
        }
        self.add_client(Arc::new(client), S::ENTRIES)
    }

    /// Whether a server of this name is in the toolbox already; if so, a
    /// warning says the first one is kept.
    pub(crate) fn added_before(&mut self, name: &str) -> bool {
        if !self.servers.iter().any(|s| s.name == name) {
            return false;
        }
        let warning = format!("server `{name}` was added twice; the first one is kept");
        tracing::warn!("{warning}");
        self.warnings.push(warning);
        true
    }

    /// Adds a server from an untyped client and the entries of its generated
    /// module (`<server::Client as BoundServer>::ENTRIES`, or a subset). The config's
    /// `enabled_tools`/`disabled_tools` apply; `tool_prefix` names the tools.
    ///
    /// A server already in the toolbox is kept once: the first one wins and
    /// [`warnings`](Self::warnings) names the duplicate.
    ///
    /// # Errors
    ///
    /// [`ToolboxError::NameCollision`] when a tool's model-facing name is
    /// already taken.
    pub fn add_client(
        &mut self,
        client: Arc<Client>,
        entries: &[ToolEntry],
    ) -> Result<&mut Self, ToolboxError> {
        let name = client.server_name().to_owned();
        if self.added_before(&name) {
            return Ok(self);
        }
        let config = client.server_config();
        let prefix = config.tool_prefix.clone().unwrap_or_else(|| name.clone());
        let mut tools = Vec::new();
        let mut added = HashMap::new();
        for entry in entries.iter().filter(|e| config.allows_tool(e.meta.name)) {
            let model_name = model_name(&prefix, entry.meta.name);
            let taken = self.index.get(&model_name).map(|&(s, t)| {
                let server = &self.servers[s];
                (server.name.clone(), server.tools[t].wire_name().to_owned())
            });
            let taken = taken.or_else(|| {
                added
                    .get(&model_name)
                    .map(|&t: &usize| (name.clone(), entries_name(&tools, t)))
            });
            if let Some((first_server, first_tool)) = taken {
                return Err(ToolboxError::NameCollision {
                    name: model_name,
                    first_server,
                    first_tool,
                    second_server: name,
                    second_tool: entry.meta.name.to_owned(),
                });
            }
            added.insert(model_name.clone(), tools.len());
            let schema = providers::object_root(
                serde_json::from_str(entry.meta.input_schema)
                    .unwrap_or_else(|_| serde_json::json!({"type": "object"})),
            );
            tools.push(ToolSlot {
                kind: SlotKind::Tool(*entry),
                model_name,
                schema: Arc::new(schema),
                held_back: false,
            });
        }
        let server_index = self.servers.len();
        for (model_name, tool_index) in added {
            self.index.insert(model_name, (server_index, tool_index));
        }
        self.servers.push(ServerSlot {
            name,
            client,
            tools,
            held_back: false,
        });
        Ok(self)
    }

    /// Adds every server of `other` (its hold-backs kept), skipping servers
    /// already here (first wins, with a warning). Hooks and the description
    /// policy of `self` stay.
    ///
    /// # Errors
    ///
    /// [`ToolboxError::NameCollision`] when a tool of `other` has a model-
    /// facing name already taken here.
    pub fn merge(&mut self, other: Toolbox) -> Result<&mut Self, ToolboxError> {
        for server in other.servers {
            if server.tools.iter().any(ToolSlot::is_unlocked) {
                self.merge_unlocked(server)?;
                continue;
            }
            let entries: Vec<ToolEntry> = server
                .tools
                .iter()
                .filter_map(|t| match &t.kind {
                    SlotKind::Tool(entry) => Some(*entry),
                    SlotKind::Template(_) | SlotKind::Live(_) => None,
                })
                .collect();
            let templates: Vec<ResourceTemplateMeta> = server
                .tools
                .iter()
                .filter_map(|t| match &t.kind {
                    SlotKind::Template(template) => Some(template.meta),
                    SlotKind::Tool(_) | SlotKind::Live(_) => None,
                })
                .collect();
            let before = self.servers.len();
            self.add_client(Arc::clone(&server.client), &entries)?;
            if self.servers.len() > before {
                // Templates come after the tools, in the same order.
                self.add_resource_templates(&templates)?;
                if let Some(added) = self.servers.last_mut() {
                    added.held_back = server.held_back;
                    for (slot, theirs) in added.tools.iter_mut().zip(&server.tools) {
                        slot.held_back = theirs.held_back;
                    }
                }
            }
        }
        self.warnings.extend(other.warnings);
        Ok(self)
    }

    /// [`merge`](Self::merge) of an unlocked server (first wins, with a
    /// warning; its hold-backs kept).
    fn merge_unlocked(&mut self, server: ServerSlot) -> Result<(), ToolboxError> {
        if self.servers.iter().any(|s| s.name == server.name) {
            let warning = format!(
                "server `{}` was added twice; the first one is kept",
                server.name
            );
            tracing::warn!("{warning}");
            self.warnings.push(warning);
            return Ok(());
        }
        let tools = server
            .tools
            .iter()
            .filter_map(|t| match &t.kind {
                SlotKind::Live(live) => Some(Arc::clone(live)),
                _ => None,
            })
            .collect();
        self.insert_live(Arc::clone(&server.client), tools, None)?;
        if let Some(added) = self.servers.last_mut() {
            added.held_back = server.held_back;
            for (slot, theirs) in added.tools.iter_mut().zip(&server.tools) {
                slot.held_back = theirs.held_back;
            }
        }
        Ok(())
    }

    /// Sets how much of each description the definitions carry.
    pub fn with_description_policy(&mut self, policy: DescriptionPolicy) -> &mut Self {
        self.description = policy;
        self
    }

    /// Adds a hook run around every dispatched call.
    pub fn with_hook(&mut self, hook: impl ToolHook + 'static) -> &mut Self {
        self.hooks.push(Arc::new(hook));
        self
    }

    /// Adds an approval run before every dispatched call (see [`Approval`]).
    pub fn with_approval(&mut self, approval: impl Approval + 'static) -> &mut Self {
        self.approvals.with_approval(approval);
        self
    }

    /// Adds every approval of a policy, run before every dispatched call
    /// after those already added.
    pub fn with_approvals(&mut self, policy: &Approvals) -> &mut Self {
        self.approvals.extend(policy);
        self
    }

    /// The toolbox's approval policy: what it runs before a model's calls,
    /// and what gives the program's own calls of tools bound with
    /// `annotations = "enforce"` their [`Approved`](mcpbind_client::Approved)
    /// (one policy for both). A tool bound so is refused to the model when
    /// the policy has no approval.
    pub fn approvals(&self) -> &Approvals {
        &self.approvals
    }

    /// What building the toolbox warned about (duplicate servers).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    fn server_mut(&mut self, server: &str) -> Result<&mut ServerSlot, ToolboxError> {
        self.servers
            .iter_mut()
            .find(|s| s.name == server)
            .ok_or_else(|| ToolboxError::UnknownServer {
                server: server.to_owned(),
            })
    }

    fn tool_mut(&mut self, name: &str) -> Result<&mut ToolSlot, ToolboxError> {
        let &(s, t) = self
            .index
            .get(name)
            .ok_or_else(|| ToolboxError::UnknownTool {
                name: name.to_owned(),
            })?;
        Ok(&mut self.servers[s].tools[t])
    }

    /// Holds back a whole server: its tools leave the definitions and the
    /// inventory lists it as held back, until [`enable_server`](Self::enable_server).
    ///
    /// # Errors
    ///
    /// [`ToolboxError::UnknownServer`] when no tool of the toolbox is from
    /// `server`.
    pub fn hold_back_server(&mut self, server: &str) -> Result<&mut Self, ToolboxError> {
        self.server_mut(server)?.held_back = true;
        Ok(self)
    }

    /// Makes a held-back server's tools available again.
    ///
    /// # Errors
    ///
    /// [`ToolboxError::UnknownServer`] when no tool of the toolbox is from
    /// `server`.
    pub fn enable_server(&mut self, server: &str) -> Result<&mut Self, ToolboxError> {
        self.server_mut(server)?.held_back = false;
        Ok(self)
    }

    /// Holds back one tool (by model-facing name).
    ///
    /// # Errors
    ///
    /// [`ToolboxError::UnknownTool`] when the toolbox has no tool `name`.
    pub fn hold_back_tool(&mut self, name: &str) -> Result<&mut Self, ToolboxError> {
        self.tool_mut(name)?.held_back = true;
        Ok(self)
    }

    /// Makes a held-back tool available again.
    ///
    /// # Errors
    ///
    /// [`ToolboxError::UnknownTool`] when the toolbox has no tool `name`.
    pub fn enable_tool(&mut self, name: &str) -> Result<&mut Self, ToolboxError> {
        self.tool_mut(name)?.held_back = false;
        Ok(self)
    }

    /// The model-facing names of the tools held back (by themselves or with
    /// their server).
    pub fn held_back(&self) -> Vec<&str> {
        self.servers
            .iter()
            .flat_map(|s| {
                s.tools
                    .iter()
                    .filter(move |t| s.holds_back(t))
                    .map(|t| t.model_name.as_str())
            })
            .collect()
    }

    fn available(&self) -> impl Iterator<Item = (&ServerSlot, &ToolSlot)> {
        self.servers.iter().filter(|s| !s.held_back).flat_map(|s| {
            s.tools
                .iter()
                .filter(|t| !s.holds_back(t))
                .map(move |t| (s, t))
        })
    }

    /// The model-facing names of the tools the model can call now.
    pub fn names(&self) -> Vec<&str> {
        self.available()
            .map(|(_, t)| t.model_name.as_str())
            .collect()
    }

    /// The server and wire name behind a model-facing name (held back or not).
    pub fn resolve(&self, name: &str) -> Option<(&str, &'static str)> {
        let &(s, t) = self.index.get(name)?;
        let server = &self.servers[s];
        Some((server.name.as_str(), server.tools[t].wire_name()))
    }

    /// The names of the servers, in the order they were added.
    pub fn server_names(&self) -> Vec<&str> {
        self.servers.iter().map(|s| s.name.as_str()).collect()
    }

    /// How many tools the model can call now.
    pub fn tool_count(&self) -> usize {
        self.available().count()
    }

    /// Per server: the tools the model can call now and what is held back.
    pub fn tools_by_server(&self) -> Vec<ServerInventory> {
        self.servers
            .iter()
            .map(|s| ServerInventory {
                server: s.name.clone(),
                held_back: s.held_back,
                unlocked: s.tools.iter().any(ToolSlot::is_unlocked),
                tools: s
                    .tools
                    .iter()
                    .filter(|t| !s.holds_back(t))
                    .map(|t| ToolInventory {
                        name: t.model_name.clone(),
                        tool: t.wire_name().to_owned(),
                        summary: inventory::summary_of(t.description()),
                        unlocked: t.is_unlocked(),
                    })
                    .collect(),
                held_back_tools: s
                    .tools
                    .iter()
                    .filter(|t| s.holds_back(t))
                    .map(|t| t.model_name.clone())
                    .collect(),
            })
            .collect()
    }

    /// The tool inventory as Markdown, for a system prompt.
    pub fn render_markdown(&self) -> String {
        inventory::render_markdown(&self.tools_by_server())
    }

    /// `definitions` with [`Definitions::unlocked`] filled in: the unlocked
    /// tools among those they hold.
    fn label_unlocked(&self, mut definitions: Definitions, left_out: bool) -> Definitions {
        let refused: Vec<&str> = if left_out {
            definitions
                .refusals
                .iter()
                .map(|r| r.name.as_str())
                .collect()
        } else {
            Vec::new()
        };
        definitions.unlocked = self
            .available()
            .filter(|(_, t)| t.is_unlocked() && !refused.contains(&t.model_name.as_str()))
            .map(|(_, t)| t.model_name.clone())
            .collect();
        definitions
    }

    fn views(&self) -> impl Iterator<Item = ToolView<'_>> {
        self.available().map(|(_, t)| ToolView {
            name: &t.model_name,
            description: self.description.apply(t.description().unwrap_or_default()),
            schema: &t.schema,
        })
    }

    /// OpenAI definitions. With `strict`, each tool whose schema strict
    /// mode can express is marked `"strict": true` (its schema rewritten to
    /// the strict subset); the others stay non-strict and are listed in
    /// [`Definitions::refusals`] with the reason.
    pub fn openai_tools(&self, shape: OpenAiShape, strict: bool) -> Definitions {
        let mut out = Definitions::default();
        for view in self.views() {
            let strict_schema = if strict {
                match providers::openai::strict_schema(view.schema) {
                    Ok(schema) => Some(schema),
                    Err(reason) => {
                        out.refusals.push(Refusal {
                            name: view.name.to_owned(),
                            reason,
                        });
                        None
                    }
                }
            } else {
                None
            };
            out.tools
                .push(providers::openai::definition(&view, shape, strict_schema));
        }
        self.label_unlocked(out.check(RequestLimit::OpenAiFunctions), false)
    }

    /// Anthropic definitions (`tools` of the Messages API).
    pub fn anthropic_tools(&self) -> Definitions {
        let definitions = Definitions {
            tools: self
                .views()
                .map(|v| providers::anthropic::definition(&v))
                .collect(),
            ..Definitions::default()
        };
        self.label_unlocked(definitions, false)
    }

    /// Gemini function declarations (`tools: [{"functionDeclarations": …}]`),
    /// schemas reduced to Gemini's subset. A tool that can't be declared is
    /// left out and listed in [`Definitions::refusals`].
    pub fn gemini_declarations(&self) -> Definitions {
        let mut out = Definitions::default();
        for view in self.views() {
            match providers::gemini::declaration(&view) {
                Ok(d) => out.tools.push(d),
                Err(reason) => out.refusals.push(Refusal {
                    name: view.name.to_owned(),
                    reason,
                }),
            }
        }
        self.label_unlocked(out.check(RequestLimit::GeminiFunctionDeclarations), true)
    }

    /// Dispatches a model's call: `arguments` is the JSON text the model
    /// wrote (empty means `{}`).
    pub async fn call(&self, name: &str, arguments: &str) -> ToolCall {
        let parsed = if arguments.trim().is_empty() {
            Ok(Value::Object(Default::default()))
        } else {
            serde_json::from_str::<Value>(arguments).map_err(|e| e.to_string())
        };
        self.dispatch(name, parsed).await
    }

    /// Dispatches a model's call whose arguments are already JSON.
    pub async fn call_value(&self, name: &str, arguments: Value) -> ToolCall {
        self.dispatch(name, Ok(arguments)).await
    }

    async fn dispatch(&self, name: &str, arguments: Result<Value, String>) -> ToolCall {
        let start = Instant::now();
        let found = self.index.get(name).map(|&(s, t)| {
            let server = &self.servers[s];
            (server, &server.tools[t])
        });
        if let Some((
            server,
            ToolSlot {
                kind: SlotKind::Live(live),
                held_back: false,
                ..
            },
        )) = found
        {
            let error = match live.changed(&server.client).await {
                Ok(false) => None,
                Ok(true) => Some(CallError::Stale {
                    name: name.to_owned(),
                    server: server.name.clone(),
                }),
                Err(e) => Some(CallError::Call(e)),
            };
            if let Some(error) = error.filter(|_| !server.held_back) {
                return ToolCall {
                    name: name.to_owned(),
                    target: Some((server.name.clone(), live.name)),
                    outcome: Err(error),
                    duration: start.elapsed(),
                    attempts: 0,
                };
            }
        }
        let Some((server, tool)) = found.filter(|(s, t)| !s.holds_back(t)) else {
            return ToolCall {
                name: name.to_owned(),
                target: found.map(|(s, t)| (s.name.clone(), t.wire_name())),
                outcome: Err(CallError::UnknownTool {
                    name: name.to_owned(),
                    held_back: found.is_some(),
                }),
                duration: start.elapsed(),
                attempts: 0,
            };
        };
        let arguments = match self.approve(name, server, tool, arguments).await {
            Ok(arguments) => arguments,
            Err((reason, arguments)) => return refused(server, tool, reason, arguments, start),
        };
        if self.hooks.is_empty() {
            return self.run(server, tool, arguments, start).await;
        }
        let shown = arguments.clone().unwrap_or(Value::Null);
        let hook_call = HookCall {
            name,
            server: &server.name,
            tool: tool.wire_name(),
            arguments: &shown,
        };
        for hook in &self.hooks {
            hook.before(&hook_call);
        }
        let call = self.run(server, tool, arguments, start).await;
        for hook in self.hooks.iter().rev() {
            hook.after(&hook_call, &call);
        }
        call
    }

    /// Maps a provider's aliases back (Gemini's `auth_method` for
    /// `auth-method`, see `params.rs`), then runs the approvals in order:
    /// the arguments to send (amended or not), with the server's parameter
    /// names, or the first refusal's reason. So approvals, amends, hooks
    /// and events see the names the server listed, whatever the provider.
    /// Arguments that aren't JSON go on unreviewed: they are rejected
    /// before anything is sent.
    async fn approve(
        &self,
        name: &str,
        server: &ServerSlot,
        tool: &ToolSlot,
        arguments: Result<Value, String>,
    ) -> Result<Result<Value, String>, (String, Value)> {
        let Ok(mut value) = arguments else {
            return Ok(arguments);
        };
        params::unalias(&tool.schema, &mut value);
        let needs_approval = match &tool.kind {
            SlotKind::Tool(entry) => entry.needs_approval,
            // An unlocked tool has no bindings to say so: its server's
            // config does, and the tool's live annotations (unreviewed).
            SlotKind::Live(live) => {
                server.client.server_config().annotations
                    == mcpbind_model::config::Annotations::Enforce
                    && mcpbind_model::may_modify(live.read_only, live.destructive)
            }
            SlotKind::Template(_) => false,
        };
        if self.approvals.is_empty() && !needs_approval {
            return Ok(Ok(value));
        }
        let facts = select::facts(&server.name, tool);
        let mut request =
            mcpbind_client::internal::toolbox_request(&server.name, facts.tool, value);
        request.name = name.to_owned();
        request.read_only = facts.read_only;
        request.destructive = facts.destructive;
        request.idempotent = facts.idempotent;
        request.open_world = facts.open_world;
        request.unlocked = facts.unlocked;
        internal::review(&self.approvals, request).await.map(Ok)
    }

    async fn run(
        &self,
        server: &ServerSlot,
        tool: &ToolSlot,
        arguments: Result<Value, String>,
        start: Instant,
    ) -> ToolCall {
        let entry = match &tool.kind {
            SlotKind::Tool(entry) => entry,
            SlotKind::Template(template) => {
                return templates::call(server, tool, template, arguments, start).await
            }
            SlotKind::Live(live) => return live::call(server, tool, live, arguments, start).await,
        };
        let meta = &entry.meta;
        let finish = |outcome, attempts| ToolCall {
            name: tool.model_name.clone(),
            target: Some((server.name.clone(), meta.name)),
            outcome,
            duration: start.elapsed(),
            attempts,
        };
        let rejected = |error: CallError, arguments: Value| {
            internal::publish_rejected(
                server.client.server_config(),
                &server.name,
                meta,
                &tool.model_name,
                arguments,
                error.to_string(),
                start.elapsed(),
            );
            finish(Err(error), 0)
        };
        let mut arguments = match object_arguments(arguments) {
            Ok(map) => Value::Object(map),
            Err((reason, shown)) => return rejected(CallError::MalformedJson { reason }, shown),
        };
        // Mapped back before the approvals already; again for an amend
        // written with a provider's aliases.
        params::unalias(&tool.schema, &mut arguments);
        let mut problems = dispatch::prepare(&tool.schema, &mut arguments);
        if problems.is_empty() {
            let violations = crate::validate::violations_or(meta.input_schema, &arguments, |why| {
                tracing::warn!(server = meta.server, tool = meta.name, "the locked inputSchema can't be checked ({why}): a model's arguments are sent unchecked, and only the server checks them");
            });
            problems = dispatch::explain(&tool.schema, violations);
        }
        if !problems.is_empty() {
            return rejected(
                CallError::Arguments {
                    violations: problems,
                },
                arguments,
            );
        }
        let Value::Object(map) = arguments else {
            return finish(
                Err(CallError::MalformedJson {
                    reason: "not an object".into(),
                }),
                0,
            );
        };
        let scope = Arc::new(CallScope {
            model_name: Some(tool.model_name.clone()),
            ..CallScope::default()
        });
        let outcome =
            internal::with_scope(Arc::clone(&scope), (entry.call)(&server.client, map)).await;
        let attempts = scope.attempts.load(std::sync::atomic::Ordering::Relaxed);
        finish(outcome, attempts)
    }
}

/// A call an approval refused: never sent; the model reads the reason.
fn refused(
    server: &ServerSlot,
    tool: &ToolSlot,
    reason: String,
    arguments: Value,
    start: Instant,
) -> ToolCall {
    let error = CallError::Refused { reason };
    match &tool.kind {
        SlotKind::Tool(entry) => internal::publish_rejected(
            server.client.server_config(),
            &server.name,
            &entry.meta,
            &tool.model_name,
            arguments,
            error.to_string(),
            start.elapsed(),
        ),
        SlotKind::Live(live) => internal::publish_toolbox_call(
            server.client.server_config(),
            internal::unlocked_toolbox_call(
                server.name.clone(),
                live.name.to_owned(),
                tool.model_name.clone(),
                arguments,
                mcpbind_client::events::Outcome::Rejected {
                    message: error.to_string(),
                },
                start.elapsed(),
                0,
            ),
        ),
        SlotKind::Template(_) => {}
    }
    ToolCall {
        name: tool.model_name.clone(),
        target: Some((server.name.clone(), tool.wire_name())),
        outcome: Err(error),
        duration: start.elapsed(),
        attempts: 0,
    }
}

fn entries_name(tools: &[ToolSlot], index: usize) -> String {
    tools[index].wire_name().to_owned()
}

/// A model's arguments as a JSON object (`null` is `{}`), or why not
/// (for [`CallError::MalformedJson`]) and what it gave.
fn object_arguments(
    arguments: Result<Value, String>,
) -> Result<serde_json::Map<String, Value>, (String, Value)> {
    match arguments {
        Ok(Value::Null) => Ok(Default::default()),
        Ok(Value::Object(map)) => Ok(map),
        Ok(other) => {
            let reason = format!("expected an object like {{\"name\": value}}, got {other}");
            Err((reason, other))
        }
        Err(reason) => Err((reason, Value::Null)),
    }
}
