//! What the client answers when a server asks it something: elicitation
//! (`elicitation/create`), sampling (`sampling/createMessage`) and roots
//! (`roots/list`).
//!
//! A [`ClientHooks`] holds one hook of each kind and is given to
//! [`Client::connect_with`](crate::Client::connect_with) or
//! [`Client::lazy_with`](crate::Client::lazy_with). Each capability is
//! declared in `initialize` only when its hook is there: servers such as
//! server-everything offer their eliciting or sampling tools only to clients
//! that declare the capability.
//!
//! By default ([`ClientHooks::default`]) elicitation is answered by
//! [`AcceptDefaults`] (form mode only), and sampling and roots are not
//! declared: a `sampling/createMessage` is refused as an unknown method and
//! `roots/list` answers no roots.
//!
//! ```
//! # async fn run(config: &mcpbind::Config) -> mcpbind::Result<()> {
//! use mcpbind::protocol::{ElicitRequestParams, ElicitResult, ElicitationAction};
//!
//! let hooks = mcpbind::ClientHooks::default().elicitation(|request: ElicitRequestParams| async move {
//!     match request {
//!         ElicitRequestParams::FormElicitationParams { .. } => ElicitResult::new(ElicitationAction::Accept)
//!             .with_content(serde_json::json!({ "name": "Ada" })),
//!         _ => ElicitResult::new(ElicitationAction::Decline),
//!     }
//! });
//! let client = mcpbind::Client::connect_with(config, "everything", hooks).await?;
//! # Ok(()) }
//! ```

// Sampling and roots are deprecated by SEP-2577 (rmcp marks their types so),
// but servers of the protocol versions before it still send them.
#![allow(deprecated)]

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use rmcp::model::{
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
    ElicitationAction, ElicitationSchema, JsonObject, ListRootsResult, Root,
};
use rmcp::ErrorData;
use serde_json::Value;

/// The future a hook returns.
pub type HookFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// Answers a server's `elicitation/create`.
///
/// A closure `Fn(ElicitRequestParams) -> impl Future<Output = ElicitResult>`
/// is one (form mode only); implement the trait to see the server's name or
/// to handle URL mode.
pub trait Elicitation: Send + Sync + 'static {
    /// Answers one request of server `server` (its name in the config).
    fn elicit(&self, server: &str, request: ElicitRequestParams) -> HookFuture<ElicitResult>;

    /// Whether URL-mode requests (open a URL, then accept) are handled; only
    /// then is URL mode declared in `initialize`. Form mode always is.
    fn supports_url(&self) -> bool {
        false
    }
}

impl<F, Fut> Elicitation for F
where
    F: Fn(ElicitRequestParams) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ElicitResult> + Send + 'static,
{
    fn elicit(&self, _server: &str, request: ElicitRequestParams) -> HookFuture<ElicitResult> {
        Box::pin(self(request))
    }
}

/// Answers a server's `sampling/createMessage` (an LLM completion the server
/// asks of the client). An error is sent back as the JSON-RPC error.
pub trait Sampling: Send + Sync + 'static {
    /// Answers one request of server `server`.
    fn create_message(
        &self,
        server: &str,
        request: CreateMessageRequestParams,
    ) -> HookFuture<Result<CreateMessageResult, ErrorData>>;
}

impl<F, Fut> Sampling for F
where
    F: Fn(CreateMessageRequestParams) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<CreateMessageResult, ErrorData>> + Send + 'static,
{
    fn create_message(
        &self,
        _server: &str,
        request: CreateMessageRequestParams,
    ) -> HookFuture<Result<CreateMessageResult, ErrorData>> {
        Box::pin(self(request))
    }
}

/// Answers a server's `roots/list`: the directories or files it may work in.
/// A fixed `Vec<Root>` is one.
pub trait Roots: Send + Sync + 'static {
    /// The roots shown to server `server`.
    fn list_roots(&self, server: &str) -> HookFuture<Vec<Root>>;
}

impl Roots for Vec<Root> {
    fn list_roots(&self, _server: &str) -> HookFuture<Vec<Root>> {
        Box::pin(std::future::ready(self.clone()))
    }
}

/// The default elicitation answer (SEP-1034): a form whose every field has
/// a `default` is accepted with those defaults; any other form, a form with
/// no field (a bare confirmation needs a person), and every URL-mode request
/// are declined.
#[derive(Debug, Clone, Copy, Default)]
pub struct AcceptDefaults;

impl Elicitation for AcceptDefaults {
    fn elicit(&self, _server: &str, request: ElicitRequestParams) -> HookFuture<ElicitResult> {
        let answer = match &request {
            ElicitRequestParams::FormElicitationParams {
                requested_schema, ..
            } => match schema_defaults(requested_schema) {
                Some(content) => ElicitResult::new(ElicitationAction::Accept)
                    .with_content(Value::Object(content)),
                None => ElicitResult::new(ElicitationAction::Decline),
            },
            _ => ElicitResult::new(ElicitationAction::Decline),
        };
        Box::pin(std::future::ready(answer))
    }
}

/// The `default` of every field of an elicitation form, or `None` when a
/// field has none or the form has no field.
pub fn schema_defaults(schema: &ElicitationSchema) -> Option<JsonObject> {
    if schema.properties.is_empty() {
        return None;
    }
    // Read from the JSON form: each primitive kind keeps its default in its
    // own typed field.
    let Ok(Value::Object(json)) = serde_json::to_value(schema) else {
        return None;
    };
    let properties = json.get("properties")?.as_object()?;
    properties
        .iter()
        .map(|(name, field)| Some((name.clone(), field.get("default")?.clone())))
        .collect()
}

/// How a client answers what servers ask of it. Cloning is cheap.
#[derive(Clone)]
#[non_exhaustive]
pub struct ClientHooks {
    /// Answers `elicitation/create`; `None`: elicitation is not declared
    /// (rmcp declines any request).
    pub elicitation: Option<Arc<dyn Elicitation>>,
    /// Answers `sampling/createMessage`; `None`: sampling is not declared.
    pub sampling: Option<Arc<dyn Sampling>>,
    /// Answers `roots/list`; `None`: roots are not declared (no roots).
    pub roots: Option<Arc<dyn Roots>>,
    /// Opens an authorization URL when an `auth = "oauth"` server asks for
    /// a new authorization while connected; `None`: such a request fails
    /// with [`Error::Auth`](crate::Error::Auth) (`mcpbind login`).
    #[cfg(feature = "auth")]
    pub browser: Option<Arc<dyn mcpbind_auth::Browser>>,
}

impl Default for ClientHooks {
    /// Elicitation by [`AcceptDefaults`]; no sampling, no roots.
    fn default() -> Self {
        ClientHooks {
            elicitation: Some(Arc::new(AcceptDefaults)),
            sampling: None,
            roots: None,
            #[cfg(feature = "auth")]
            browser: None,
        }
    }
}

impl ClientHooks {
    /// No hook at all: nothing is declared in `initialize`.
    pub fn none() -> Self {
        ClientHooks {
            elicitation: None,
            sampling: None,
            roots: None,
            #[cfg(feature = "auth")]
            browser: None,
        }
    }

    /// Answers elicitation with `hook`.
    pub fn elicitation(mut self, hook: impl Elicitation) -> Self {
        self.elicitation = Some(Arc::new(hook));
        self
    }

    /// Answers sampling with `hook`.
    pub fn sampling(mut self, hook: impl Sampling) -> Self {
        self.sampling = Some(Arc::new(hook));
        self
    }

    /// Answers `roots/list` with `hook`.
    pub fn roots(mut self, hook: impl Roots) -> Self {
        self.roots = Some(Arc::new(hook));
        self
    }

    /// Authorizes `auth = "oauth"` servers through `hook` (a browser)
    /// whenever they ask while connected: no token yet, a scope the token
    /// lacks (step-up), an authorization server that changed.
    #[cfg(feature = "auth")]
    pub fn browser(mut self, hook: impl mcpbind_auth::Browser) -> Self {
        self.browser = Some(Arc::new(hook));
        self
    }

    /// The answer to a `roots/list`.
    pub(crate) async fn list_roots(&self, server: &str) -> ListRootsResult {
        match &self.roots {
            Some(hook) => ListRootsResult::new(hook.list_roots(server).await),
            None => ListRootsResult::default(),
        }
    }
}

impl std::fmt::Debug for ClientHooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut f = f.debug_struct("ClientHooks");
        f.field("elicitation", &self.elicitation.is_some())
            .field("sampling", &self.sampling.is_some())
            .field("roots", &self.roots.is_some());
        #[cfg(feature = "auth")]
        f.field("browser", &self.browser.is_some());
        f.finish()
    }
}
