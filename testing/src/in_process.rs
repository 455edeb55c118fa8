//! A generated client on a double in the same process: the client's end
//! of a `tokio::io::duplex` stream, and a generated `Server<H>` (any
//! [`ToolServer`]) served on the other end by `mcpbind-server`, a new
//! server task per connection.
//!
//! Nothing of the client is mocked: the handshake at the locked protocol
//! version, the pins, validation, events, timeouts, retries and approvals
//! all run as over stdio (the client's [`Client::in_process`]); only the
//! process is gone.

use std::future::{Future, IntoFuture};
use std::pin::Pin;
use std::sync::Arc;

use crate::{Cassette, Recorder, Recording, Replay};
use mcpbind_client::elicit::ClientHooks;
use mcpbind_client::{Client, Result};
use mcpbind_model::config::{Config, ConfigError, ServerConfig};
use mcpbind_model::handler::ToolServer;
use mcpbind_model::handler::{BoxFuture, ServeResult};
use mcpbind_model::{PromptMeta, ResourceTemplateMeta, ToolMeta};
use serde_json::{Map, Value};

/// The in-memory stream's buffer, each way: a large result passes in a few
/// turns of the runtime.
const DUPLEX_BYTES: usize = 256 * 1024;

/// A generated client on `server` in this process, ready to connect: a
/// generated module's `Client::in_process(Server(handler))` (feature
/// `testing` of `mcpbind`) builds it, [`InProcess::new`] from the parts.
///
/// ```no_run
/// # mcpbind::mcp_tools!(lockfile = "../mcpbind/mcpbind.lock", servers = [demo]);
/// struct MyDouble;
/// impl demo::Handler for MyDouble {
///     async fn add(
///         &self,
///         input: demo::types::AddInput,
///     ) -> mcpbind::HandlerResult<demo::types::AddOutput> {
///         Ok(demo::types::AddOutput { sum: input.a + input.b }.into())
///     }
/// }
/// # async fn run() -> mcpbind::Result<()> {
/// let demo = demo::Client::in_process(demo::Server(MyDouble)).await?;
/// let sum = demo.add(demo::types::AddInput::new(2, 40)).await?;
/// assert_eq!(sum.output.sum, 42);
/// # Ok(()) }
/// # fn main() {}
/// ```
///
/// `.await` connects and checks the pins as the generated `connect` does
/// (the client's locked tools against what the double lists, under the
/// server's `pin_policy`); [`InProcess::config`] and [`InProcess::hooks`]
/// set what `connect` would read from `mcpbind.toml` and the program.
pub struct InProcess<S, C> {
    name: &'static str,
    protocol_version: &'static str,
    tools: &'static [ToolMeta],
    server: Arc<S>,
    wrap: fn(Client) -> C,
    config: Option<ServerConfig>,
    hooks: ClientHooks,
}

impl<S: ToolServer, C> InProcess<S, C> {
    /// A client named `name` (its `[servers.NAME]`), locked at
    /// `protocol_version` with the pins `tools`, on `server`; `wrap` makes
    /// the typed client of the untyped one (a generated
    /// `Client::from_client`).
    pub fn new(
        name: &'static str,
        protocol_version: &'static str,
        tools: &'static [ToolMeta],
        server: S,
        wrap: fn(Client) -> C,
    ) -> Self {
        InProcess {
            name,
            protocol_version,
            tools,
            server: Arc::new(server),
            wrap,
            config: None,
            hooks: ClientHooks::default(),
        }
    }

    /// The server's settings (timeouts, `pin_policy`, validation,
    /// retries…), as `[servers.NAME]` would give them; its transport is
    /// not used. By default, those of a server with no keys but its
    /// command.
    #[must_use]
    pub fn config(mut self, config: ServerConfig) -> Self {
        self.config = Some(config);
        self
    }

    /// What the client answers the double's requests with (elicitation,
    /// sampling, roots).
    #[must_use]
    pub fn hooks(mut self, hooks: ClientHooks) -> Self {
        self.hooks = hooks;
        self
    }

    /// The untyped client, not connected yet (it connects on its first
    /// call, and again after its connection was lost, each time to a new
    /// server task over the same double).
    ///
    /// # Errors
    ///
    /// [`ConfigError`] when the client's name is not a server name.
    pub fn client(self) -> std::result::Result<Client, ConfigError> {
        let config = match self.config {
            Some(config) => config,
            None => default_config(self.name)?,
        };
        let server = self.server;
        let connect = move || {
            let (ours, theirs) = tokio::io::duplex(DUPLEX_BYTES);
            let served = Served(Arc::clone(&server));
            tokio::spawn(async move {
                let (read, write) = tokio::io::split(theirs);
                // The client hung up, or sent what is no MCP: the double's
                // connection ends, as a process's would.
                let _ = mcpbind_server::serve_io(served, read, write).await;
            });
            ours
        };
        Ok(Client::in_process(
            self.name,
            config,
            self.protocol_version,
            self.hooks,
            connect,
        ))
    }

    /// Connects, then checks the pins as a generated client's `connect`
    /// does: the client's locked tools, and the prompts and resource
    /// templates the double serves.
    ///
    /// # Errors
    ///
    /// Those of connecting ([`Error::Connect`](mcpbind_client::Error),
    /// [`Error::ConnectTimeout`](mcpbind_client::Error)), and
    /// [`Error::Drift`](mcpbind_client::Error) when a pinned entry differs
    /// under `pin_policy = "refuse"`; [`Error::Config`](mcpbind_client::Error)
    /// for a name that is no server name.
    pub async fn connect(self) -> Result<C> {
        let (tools, wrap, server) = (self.tools, self.wrap, Arc::clone(&self.server));
        let client = self.client()?;
        client.check_pins(tools).await?;
        let prompts: &[PromptMeta] = server.prompts();
        if !prompts.is_empty() {
            client.check_prompt_pins(prompts).await?;
        }
        let templates: &[ResourceTemplateMeta] = server.resource_templates();
        if !templates.is_empty() {
            client.check_resource_template_pins(templates).await?;
        }
        Ok(wrap(client))
    }

    /// The same client on a double that answers from `cassette` what
    /// `server` would (its locked tools, prompts and templates still
    /// listed from `server`): see [`Replay`].
    pub fn replay(self, cassette: &Cassette) -> InProcess<Replay<S>, C> {
        let (name, protocol) = (self.name, self.protocol_version);
        self.map(|server| Replay::new(server, name, protocol, cassette))
    }

    /// The same client on a double that passes each call to `live` (a
    /// connection to the real server) and records it in `recorder`: see
    /// [`Recording`].
    pub fn record(self, recorder: &Recorder, live: Client) -> InProcess<Recording<S>, C> {
        let protocol = self.protocol_version;
        self.map(|server| Recording::new(server, protocol, live, recorder))
    }

    fn map<T>(self, f: impl FnOnce(S) -> T) -> InProcess<T, C> {
        let server = Arc::into_inner(self.server).expect("an InProcess is never shared");
        InProcess {
            name: self.name,
            protocol_version: self.protocol_version,
            tools: self.tools,
            server: Arc::new(f(server)),
            wrap: self.wrap,
            config: self.config,
            hooks: self.hooks,
        }
    }
}

impl<S: ToolServer, C: Send + 'static> IntoFuture for InProcess<S, C> {
    type Output = Result<C>;
    type IntoFuture = Pin<Box<dyn Future<Output = Result<C>> + Send>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(self.connect())
    }
}

/// A server with no keys but a command that never runs.
fn default_config(name: &str) -> std::result::Result<ServerConfig, ConfigError> {
    let mut config = Config::new().server(name, ServerConfig::stdio("(in-process double)"))?;
    Ok(config
        .servers
        .remove(name)
        .expect("the server was just added"))
}

/// One double shared by every connection made to it.
struct Served<S>(Arc<S>);

impl<S: ToolServer> ToolServer for Served<S> {
    crate::listing::listed_by!(0);

    fn call_tool<'a>(
        &'a self,
        name: &'a str,
        arguments: Map<String, Value>,
    ) -> BoxFuture<'a, Option<ServeResult>> {
        self.0.call_tool(name, arguments)
    }
    fn get_prompt<'a>(
        &'a self,
        name: &'a str,
        arguments: Map<String, Value>,
    ) -> BoxFuture<'a, Option<ServeResult>> {
        self.0.get_prompt(name, arguments)
    }
    fn read_resource<'a>(&'a self, uri: &'a str) -> BoxFuture<'a, Option<ServeResult>> {
        self.0.read_resource(uri)
    }
}
