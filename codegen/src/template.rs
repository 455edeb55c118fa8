//! The template of one server's module: `types`, `tools`, `TOOLS`, the
//! typed `Client`, the `Handler` trait and its `Server<H>` adapter; and,
//! for a server with them, `prompts`/`PROMPTS` and
//! `resources`/`RESOURCE_TEMPLATES` (see `prompts.rs`, `resources.rs`).

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use crate::prompts::ServerPrompts;
use crate::resources::ServerTemplates;
use crate::splice::{Context, Splices};
use crate::tool::{ident, Lines, ToolMethod};

/// What goes into one server's module.
pub(crate) struct ServerModule<'a> {
    /// The server's name in `mcpbind.toml`.
    pub(crate) name: &'a str,
    /// The module's identifier.
    pub(crate) module: Ident,
    /// Its doc attributes (from `serverInfo`).
    pub(crate) docs: TokenStream,
    /// `serverInfo`, as canonical JSON text.
    pub(crate) server_info: String,
    /// The protocol version it was locked with: it chooses the handshake.
    pub(crate) protocol_version: &'a str,
    /// The `annotations` mode it is generated under: recorded, and
    /// checked against the config at connect.
    pub(crate) annotations: mcpbind_model::config::Annotations,
    /// The contents of `mod types`.
    pub(crate) types: TokenStream,
    /// Items that go beside the types (`From<String>` and `From<&str>` for
    /// unions with one string branch: `ctor::string_froms`).
    pub(crate) impls: TokenStream,
    pub(crate) tools: Vec<ToolMethod<'a>>,
    /// Its prompts, if it has any.
    pub(crate) prompts: Option<ServerPrompts<'a>>,
    /// Its resource templates, if it has any.
    pub(crate) templates: Option<ServerTemplates<'a>>,
    /// Whether it answers `completion/complete`.
    pub(crate) completions: bool,
    /// Where the per-tool code goes while the module is formatted, if it
    /// is.
    pub(crate) splices: Option<&'a Splices>,
}

/// Method names every generated client has; tools get other names.
pub(crate) const CLIENT_RESERVED: &[&str] = &[
    "clone",
    "connect",
    "from_client",
    "in_process",
    "inner",
    "new",
    "prompts",
    "resources",
    "with_timeout",
];

impl<'a> ServerModule<'a> {
    pub(crate) fn tokens(&self) -> TokenStream {
        let ServerModule {
            module,
            docs,
            types,
            impls,
            ..
        } = self;
        let markers = self.run(Context::ToolsModule, |t| t.marker(self.name));
        let markers_idents: Vec<_> = self.tools.iter().map(|t| ident(&t.marker)).collect();
        let metas = markers_idents
            .iter()
            .map(|marker| quote!(<tools::#marker as ::mcpbind::Tool>::META));
        let client = self.client();
        let bound_server = crate::toolbox::bound_server_tokens(&markers_idents);
        let in_process = crate::in_process::in_process_tokens();
        let handler = self.handler();
        let prompts = self.prompts.as_ref().map(ServerPrompts::module_tokens);
        let templates = self.templates.as_ref().map(ServerTemplates::module_tokens);
        quote! {
            #docs
            // Descriptions are the server's Markdown, not rustdoc: `[FILE]` is
            // no intra-doc link, `<path>` no HTML tag. Constructors take every
            // required field (`new` of a struct with a required field can't
            // be `Default`).
            #[allow(
                clippy::too_many_arguments,
                clippy::new_without_default,
                rustdoc::broken_intra_doc_links,
                rustdoc::private_intra_doc_links,
                rustdoc::invalid_html_tags,
                rustdoc::bare_urls,
                rustdoc::invalid_codeblock_attributes,
                rustdoc::invalid_rust_codeblocks,
                rustdoc::redundant_explicit_links,
                rustdoc::unescaped_backticks
            )]
            pub mod #module {
                // For the `Handler` methods' `impl Future<Output =
                // HandlerResult<…>>` (a server without tools has none).
                #[allow(unused_imports)]
                use ::{mcpbind::HandlerResult, std::future::Future};

                /// Types of the tools' arguments and structured outputs.
                #[allow(clippy::all, clippy::pedantic, missing_docs, unused_imports, dead_code)]
                pub mod types {
                    #types
                }

                #impls

                /// One marker type per tool, implementing [`::mcpbind::Tool`] with
                /// the locked metadata.
                pub mod tools {
                    #markers
                }

                /// The locked metadata of every tool, in lockfile order.
                pub const TOOLS: &[::mcpbind::ToolMeta] = &[#(#metas),*];

                #prompts
                #templates

                #client
                #bound_server
                #in_process
                #handler
            }
        }
    }

    /// One piece per tool, written as text (see `splice`): a placeholder
    /// while the module is formatted, else its tokens.
    fn run(&self, context: Context, piece: impl Fn(&ToolMethod<'a>) -> Lines) -> TokenStream {
        let text: String = self.tools.iter().map(|t| piece(t).finish()).collect();
        Splices::run(self.splices, context, text)
    }

    fn client(&self) -> TokenStream {
        let (name, protocol_version) = (self.name, self.protocol_version);
        let annotations = annotations_tokens(self.annotations);
        let methods = self.run(Context::ClientImpl, ToolMethod::method);
        let prompts = self.prompts.as_ref().map(ServerPrompts::client_tokens);
        let templates = self.templates.as_ref().map(ServerTemplates::client_tokens);
        let connect = self.connect();
        quote! {
            /// A typed client: one async method per tool. Clones share the
            /// connection.
            #[::mcpbind::__private::client]
            #[derive(Debug, Clone)]
            pub struct Client {
                inner: ::mcpbind::Client,
            }

            // Method names are the server's tool names (`from_x`, `into_y`).
            #[::mcpbind::__private::client]
            #[allow(clippy::wrong_self_convention, clippy::should_implement_trait)]
            impl Client {
                /// The server's name in `mcpbind.toml`.
                pub const SERVER: &'static str = #name;

                /// The protocol version it was locked with: on stdio and SSE,
                /// 2026-07-28 connects with `server/discover` first, an older
                /// one with `initialize`.
                pub const PROTOCOL_VERSION: &'static str = #protocol_version;

                /// The `annotations` mode these bindings were generated under:
                /// [`connect`](Self::connect) refuses a config whose server
                /// says another.
                pub const ANNOTATIONS: ::mcpbind::Annotations = #annotations;

                #connect

                /// Wraps an untyped client.
                pub fn from_client(inner: ::mcpbind::Client) -> Self {
                    Self { inner }
                }

                /// The untyped client underneath.
                pub fn inner(&self) -> &::mcpbind::Client {
                    &self.inner
                }

                /// A view of this client whose calls time out after `timeout`
                /// instead of the server's `timeout`; it shares the connection.
                pub fn with_timeout(&self, timeout: ::std::time::Duration) -> Self {
                    Self {
                        inner: self.inner.with_timeout(timeout),
                    }
                }

                #prompts
                #templates
                #methods
            }
        }
    }

    /// The client's `connect`: the mode and the pins checked, the
    /// connection recorded under `MCPBIND_RECORD` (feature `record`).
    fn connect(&self) -> TokenStream {
        // The prompts and templates locked, pinned as the tools are.
        let pin_prompts = self
            .prompts
            .as_ref()
            .map(|_| quote!(inner.check_prompt_pins(PROMPTS).await?;));
        let pin_templates = self
            .templates
            .as_ref()
            .map(|_| quote!(inner.check_resource_template_pins(RESOURCE_TEMPLATES).await?;));
        let connect_doc = connect_doc(pin_prompts.is_some() || pin_templates.is_some());
        let recorded =
            crate::in_process::recorded_tokens(self.prompts.is_some(), self.templates.is_some());
        quote! {
            #(#[doc = #connect_doc])*
            pub async fn connect(config: &::mcpbind::Config) -> ::mcpbind::Result<Self> {
                ::mcpbind::__private::check_bindings(config, Self::SERVER, Self::ANNOTATIONS)?;
                let inner =
                    ::mcpbind::Client::connect_locked(config, Self::SERVER, Self::PROTOCOL_VERSION)
                        .await?;
                inner.check_pins(TOOLS).await?;
                #pin_prompts
                #pin_templates
                #recorded
                ::std::result::Result::Ok(Self { inner })
            }
        }
    }

    fn handler(&self) -> TokenStream {
        let server_info = &self.server_info;
        let handler_methods = self.run(Context::HandlerTrait, ToolMethod::handler);
        let dispatch_arms = self.run(Context::DispatchArms, ToolMethod::dispatch_arm);
        // The markers, named bare so that an arm fits on a line.
        let dispatch_scope = (!self.tools.is_empty()).then(|| {
            quote! {
                use self::tools::*;
                let h = &self.0;
            }
        });
        let prompt_methods = self.prompts.iter().flat_map(ServerPrompts::handler_tokens);
        let template_methods = self
            .templates
            .iter()
            .flat_map(ServerTemplates::handler_tokens);
        let prompt_server = self
            .prompts
            .as_ref()
            .map(|p| p.server_tokens(self.completions));
        let template_server = self.templates.as_ref().map(ServerTemplates::server_tokens);
        quote! {
            /// The server's tools as Rust methods: implement the ones a test
            /// double or proxy needs (the others answer "not implemented"),
            /// then serve it with `mcpbind::serve_stdio(Server(handler))`.
            #[allow(clippy::wrong_self_convention, clippy::should_implement_trait)]
            pub trait Handler: ::std::marker::Send + ::std::marker::Sync + 'static {
                #handler_methods
                #(#prompt_methods)*
                #(#template_methods)*
            }

            /// Serves a [`Handler`] with the locked tool definitions, so that it
            /// lists exactly the tools of the real server.
            #[derive(Debug, Clone, Default)]
            pub struct Server<H>(pub H);

            impl<H: Handler> ::mcpbind::ToolServer for Server<H> {
                fn server_info(&self) -> &'static str {
                    #server_info
                }

                fn tools(&self) -> &'static [::mcpbind::ToolMeta] {
                    TOOLS
                }

                #prompt_server
                #template_server

                fn call_tool<'a>(
                    &'a self,
                    name: &'a str,
                    args: ::mcpbind::__private::serde_json::Map<String, ::mcpbind::__private::serde_json::Value>,
                ) -> ::mcpbind::__private::BoxFuture<'a, ::std::option::Option<::mcpbind::__private::ServeResult>> {
                    use ::mcpbind::__private::serve;
                    #dispatch_scope
                    match name {
                        #dispatch_arms
                        _ => ::mcpbind::__private::no_such_tool(),
                    }
                }
            }
        }
    }
}

/// The doc lines of a client's `connect`: what it compares with the lock
/// (`more`: prompts or resource templates too, besides the tools).
fn connect_doc(more: bool) -> Vec<&'static str> {
    let mut doc: Vec<&'static str> = if more {
        vec![
            " Connects to this server as configured in `config`, then",
            " compares its live tools, prompts and resource templates with",
            " the locked ones under the server's `pin_policy` (`warn` by",
            " default; `refuse` fails here when one changed since it was",
            " locked).",
        ]
    } else {
        vec![
            " Connects to this server as configured in `config`, then",
            " compares its live tools with the locked ones under the",
            " server's `pin_policy` (`warn` by default; `refuse` fails",
            " here when a tool changed since it was locked).",
        ]
    };
    doc.extend(CONNECT_ERRORS);
    doc
}

/// The `# Errors` section of the client's `connect` (clippy's
/// `missing_errors_doc`, which a user's pedantic run turns on).
const CONNECT_ERRORS: &[&str] = &[
    "",
    " # Errors",
    "",
    " [`mcpbind::Error::AnnotationsMismatch`] when the config's server",
    " says another `annotations` mode than [`ANNOTATIONS`](Self::ANNOTATIONS),",
    " before anything starts; those of",
    " [`mcpbind::Client::connect_locked`] (the server is not in the",
    " config, or could not be started or reached, or its handshake",
    " failed); [`mcpbind::Error::Drift`] when what is locked changed",
    " and the `pin_policy` is `refuse`, or the errors of listing it.",
];

/// The path of an `annotations` mode, as generated code names it.
pub(crate) fn annotations_tokens(annotations: mcpbind_model::config::Annotations) -> TokenStream {
    match annotations {
        mcpbind_model::config::Annotations::Enforce => quote!(::mcpbind::Annotations::Enforce),
        _ => quote!(::mcpbind::Annotations::Advise),
    }
}
