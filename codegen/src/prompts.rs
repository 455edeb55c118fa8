//! A server's prompts: the `prompts` module (an arguments struct per
//! prompt implementing `::mcpbind::Prompt`, and `Prompts`, a typed method
//! per prompt), and the `Handler` side (a method per prompt and the
//! `get_prompt` dispatch).
//!
//! Prompt arguments are strings in MCP: a required argument is a `String`
//! field, so leaving it out is a compile error; an optional one is an
//! `Option<String>` left off the wire when unset.

use std::collections::BTreeSet;

use proc_macro2::{Ident, TokenStream};
use quote::quote;
use serde_json::Value;

use crate::docs::{doc_attrs, request_errors};
use crate::naming::{ToolName, ToolNames};
use crate::tool::ident;
use mcpbind_model::lock::LockedPrompt;

/// One prompt argument.
struct Argument<'a> {
    wire: &'a str,
    field: Ident,
    description: Option<&'a str>,
    required: bool,
}

/// Everything the generator needs to emit one prompt.
pub(crate) struct PromptMethod<'a> {
    prompt: &'a LockedPrompt,
    /// The arguments struct (`{Prompt}Arguments`), which is also the
    /// `::mcpbind::Prompt` implementor.
    args: Ident,
    /// The method on `Prompts`.
    method: Ident,
    /// The completion method on `Prompts`, when the server completes.
    complete: Option<(Ident, Ident)>,
    /// The `Handler` method.
    handler: Ident,
    arguments: Vec<Argument<'a>>,
}

/// The prompts of one server, named.
pub(crate) struct ServerPrompts<'a> {
    server: &'a str,
    prompts: Vec<PromptMethod<'a>>,
}

impl<'a> ServerPrompts<'a> {
    /// Names a server's prompts. `handler_names` are the `Handler` method
    /// names (one per prompt, in order), settled against the tools' by the
    /// caller; `completions` says whether the server completes arguments.
    pub(crate) fn new(
        server: &'a str,
        prompts: &'a [LockedPrompt],
        handler_names: Vec<String>,
        completions: bool,
    ) -> Self {
        // Method names on `Prompts`: one per prompt and one per completion,
        // settled together.
        let mut wire: Vec<String> = prompts.iter().map(|p| p.name.clone()).collect();
        if completions {
            wire.extend(prompts.iter().map(|p| format!("complete-{}", p.name)));
        }
        let methods = unique(ToolNames::new(wire.iter().map(String::as_str), &[]).names);
        let count = prompts.len();
        let prompts = prompts
            .iter()
            .zip(handler_names)
            .enumerate()
            .map(|(i, (prompt, handler))| {
                let arguments = arguments(prompt);
                let marker = &methods[i].marker;
                let complete = (completions && !arguments.is_empty()).then(|| {
                    (
                        ident(&methods[count + i].method),
                        ident(&format!("{marker}Argument")),
                    )
                });
                PromptMethod {
                    prompt,
                    args: ident(&format!("{marker}Arguments")),
                    method: ident(&methods[i].method),
                    complete,
                    handler: ident(&handler),
                    arguments,
                }
            })
            .collect();
        ServerPrompts { server, prompts }
    }

    /// The `prompts` module and the `PROMPTS` constant.
    pub(crate) fn module_tokens(&self) -> TokenStream {
        let items = self.prompts.iter().map(|p| p.items_tokens(self.server));
        let methods = self.prompts.iter().map(PromptMethod::method_tokens);
        let metas = self.prompts.iter().map(|p| {
            let args = &p.args;
            quote!(<prompts::#args as ::mcpbind::Prompt>::META)
        });
        quote! {
            /// The server's prompts: an arguments struct per prompt (it
            /// implements [`::mcpbind::Prompt`] with the locked metadata),
            /// and [`Prompts`], one typed method per prompt.
            // A server may be named `prompts` too.
            #[allow(clippy::module_inception)]
            pub mod prompts {
                #(#items)*

                /// One method per prompt, returning its messages; from
                /// [`super::Client::prompts`].
                #[::mcpbind::__private::client]
                #[derive(Debug, Clone, Copy)]
                pub struct Prompts<'a>(pub(super) &'a ::mcpbind::Client);

                #[::mcpbind::__private::client]
                impl Prompts<'_> {
                    #(#methods)*
                }
            }

            /// The locked metadata of every prompt, in lockfile order.
            pub const PROMPTS: &[::mcpbind::PromptMeta] = &[#(#metas),*];
        }
    }

    /// The `Client::prompts` accessor.
    pub(crate) fn client_tokens(&self) -> TokenStream {
        quote! {
            /// The server's prompts, as typed methods.
            pub fn prompts(&self) -> prompts::Prompts<'_> {
                prompts::Prompts(&self.inner)
            }
        }
    }

    /// The `Handler` methods.
    pub(crate) fn handler_tokens(&self) -> impl Iterator<Item = TokenStream> + '_ {
        self.prompts.iter().map(PromptMethod::handler_tokens)
    }

    /// The `ToolServer` methods of `Server<H>` for prompts.
    pub(crate) fn server_tokens(&self, completions: bool) -> TokenStream {
        let arms = self.prompts.iter().map(|p| {
            let name = p.prompt.name.as_str();
            let args = &p.args;
            let handler = &p.handler;
            quote! {
                #name => ::std::option::Option::Some(
                    ::mcpbind::__private::dispatch_prompt::<prompts::#args, _, _, _>(
                        arguments,
                        |arguments| self.0.#handler(arguments),
                    )
                    .await,
                ),
            }
        });
        let completions = completions.then(|| {
            quote! {
                fn completions(&self) -> bool {
                    true
                }
            }
        });
        quote! {
            fn prompts(&self) -> &'static [::mcpbind::PromptMeta] {
                PROMPTS
            }

            #completions

            fn get_prompt<'a>(
                &'a self,
                name: &'a str,
                arguments: ::mcpbind::__private::serde_json::Map<
                    ::std::string::String,
                    ::mcpbind::__private::serde_json::Value,
                >,
            ) -> ::mcpbind::__private::BoxFuture<
                'a,
                ::std::option::Option<::mcpbind::__private::ServeResult>,
            > {
                ::std::boxed::Box::pin(async move {
                    match name {
                        #(#arms)*
                        _ => {
                            let _ = arguments;
                            ::std::option::Option::None
                        }
                    }
                })
            }
        }
    }
}

/// A prompt's arguments, with field names settled (sanitized, collisions
/// suffixed).
fn arguments(prompt: &LockedPrompt) -> Vec<Argument<'_>> {
    let raw = prompt.prompt_arguments();
    let wire: Vec<&str> = raw
        .iter()
        .filter_map(|a| a.get("name").and_then(Value::as_str))
        .collect();
    let fields = ToolNames::new(wire.iter().copied(), &[]).names;
    raw.iter()
        .zip(wire)
        .zip(fields)
        .map(|((arg, wire), names)| Argument {
            wire,
            field: ident(&names.method),
            description: arg.get("description").and_then(Value::as_str),
            required: arg.get("required").and_then(Value::as_bool) == Some(true),
        })
        .collect()
}

impl PromptMethod<'_> {
    /// The prompt's documentation: title, description, its wire name.
    fn docs(&self) -> String {
        let prompt = self.prompt;
        let mut doc = String::new();
        if let Some(title) = prompt.title() {
            let title = title.split(['\r', '\n']).collect::<Vec<_>>().join(" ");
            doc.push_str(&format!("**{}**\n\n", title.trim()));
        }
        match prompt.description() {
            Some(d) if !d.trim().is_empty() => doc.push_str(d.trim()),
            _ => doc.push_str(&format!(
                "Gets the `{}` prompt.",
                prompt.name.escape_default()
            )),
        }
        doc.push_str(&format!("\n\nPrompt `{}`.", prompt.name.escape_default()));
        doc
    }

    /// The arguments struct, its constructor and setters, its `Prompt`
    /// impl, and the completion argument enum.
    fn items_tokens(&self, server: &str) -> TokenStream {
        let args = &self.args;
        let docs = doc_attrs(&format!(
            "The arguments of prompt `{}` (strings, as in MCP).\n\n{}",
            self.prompt.name.escape_default(),
            self.docs()
        ));
        let fields = self.arguments.iter().map(|a| {
            let field = &a.field;
            let docs = doc_attrs(&match a.description {
                Some(d) if !d.trim().is_empty() => d.trim().to_owned(),
                _ => format!("Argument `{}`.", a.wire.escape_default()),
            });
            let rename = (field != a.wire).then(|| {
                let wire = a.wire;
                quote!(#[serde(rename = #wire)])
            });
            if a.required {
                quote!(#docs #rename pub #field: ::std::string::String,)
            } else {
                quote! {
                    #docs
                    #rename
                    #[serde(default, skip_serializing_if = "::std::option::Option::is_none")]
                    pub #field: ::std::option::Option<::std::string::String>,
                }
            }
        });
        let derive_default = self
            .arguments
            .iter()
            .all(|a| !a.required)
            .then(|| quote!(Default,));
        let constructor = self.constructor_tokens();
        let meta = self.meta_tokens(server);
        let completion_enum = self.completion_enum_tokens();
        quote! {
            #docs
            #[derive(Debug, Clone, #derive_default PartialEq, Eq, Hash,
                ::mcpbind::__private::serde::Serialize, ::mcpbind::__private::serde::Deserialize)]
            #[serde(crate = "::mcpbind::__private::serde")]
            pub struct #args {
                #(#fields)*
            }

            #constructor

            impl ::mcpbind::Prompt for #args {
                type Arguments = Self;
                const META: ::mcpbind::PromptMeta = #meta;
            }

            #completion_enum
        }
    }

    /// `new` (the required arguments, in the server's order) and a `with_*`
    /// setter per optional argument.
    fn constructor_tokens(&self) -> TokenStream {
        let args = &self.args;
        let required: Vec<&Ident> = self
            .arguments
            .iter()
            .filter(|a| a.required)
            .map(|a| &a.field)
            .collect();
        let inits = self.arguments.iter().map(|a| {
            let field = &a.field;
            if a.required {
                quote!(#field: #field.into(),)
            } else {
                quote!(#field: ::std::option::Option::None,)
            }
        });
        let setters = self.arguments.iter().filter(|a| !a.required).map(|a| {
            let field = &a.field;
            let setter = ident(&format!("with_{field}"));
            let doc = doc_attrs(&format!(
                "Sets the optional argument `{}`.",
                a.wire.escape_default()
            ));
            quote! {
                #doc
                pub fn #setter(mut self, value: impl ::std::convert::Into<::std::string::String>) -> Self {
                    self.#field = ::std::option::Option::Some(value.into());
                    self
                }
            }
        });
        quote! {
            impl #args {
                /// The required arguments; the optional ones start unset.
                pub fn new(#(#required: impl ::std::convert::Into<::std::string::String>),*) -> Self {
                    Self { #(#inits)* }
                }

                #(#setters)*
            }
        }
    }

    fn meta_tokens(&self, server: &str) -> TokenStream {
        let prompt = self.prompt;
        let name = prompt.name.as_str();
        let title = opt_str(prompt.title());
        let description = opt_str(prompt.description());
        let arguments = self.arguments.iter().map(|a| {
            let wire = a.wire;
            let description = opt_str(a.description);
            let required = a.required;
            quote!(::mcpbind::PromptArgumentMeta::new(#wire, #description, #required))
        });
        let sha = prompt.sha256.as_str();
        let definition = mcpbind_model::hash::canonical_json(&prompt.definition);
        quote! {
            ::mcpbind::PromptMeta::new(
                #server,
                #name,
                #title,
                #description,
                &[#(#arguments),*],
                #sha,
                #definition,
            )
        }
    }

    /// The enum of the prompt's argument names, for completion.
    fn completion_enum_tokens(&self) -> Option<TokenStream> {
        let (_, enum_name) = self.complete.as_ref()?;
        let wire: Vec<&str> = self.arguments.iter().map(|a| a.wire).collect();
        let variants: Vec<Ident> = ToolNames::new(wire.iter().copied(), &[])
            .names
            .iter()
            .map(|n| ident(&n.marker))
            .collect();
        let docs = wire
            .iter()
            .map(|w| doc_attrs(&format!("Argument `{}`.", w.escape_default())));
        let doc = doc_attrs(&format!(
            "An argument of prompt `{}`, to complete.",
            self.prompt.name.escape_default()
        ));
        Some(quote! {
            #doc
            #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
            pub enum #enum_name {
                #( #docs #variants, )*
            }

            impl #enum_name {
                /// The argument's name on the wire.
                pub const fn name(self) -> &'static str {
                    match self {
                        #( Self::#variants => #wire, )*
                    }
                }
            }
        })
    }

    /// The typed method on `Prompts`, and the completion method.
    fn method_tokens(&self) -> TokenStream {
        let docs = doc_attrs(&self.docs());
        let errors = doc_attrs(&format!("\n{}", request_errors("get_prompt")));
        let method = &self.method;
        let args = &self.args;
        let complete = self.complete.as_ref().map(|(complete, enum_name)| {
            let name = self.prompt.name.as_str();
            let doc = doc_attrs(&format!(
                "Asks the server to complete an argument of prompt `{}` (`completion/complete`), given what was typed so far (`value`) and the arguments already chosen (`context`, by wire name).\n\n{}",
                name.escape_default(),
                request_errors("complete")
            ));
            quote! {
                #doc
                pub async fn #complete(
                    &self,
                    argument: #enum_name,
                    value: &str,
                    context: &[(&str, &str)],
                ) -> ::mcpbind::Result<::mcpbind::protocol::CompletionInfo> {
                    self.0
                        .complete(::mcpbind::protocol::Reference::for_prompt(#name), argument.name(), value, context)
                        .await
                }
            }
        });
        quote! {
            #docs
            #errors
            pub async fn #method(
                &self,
                arguments: #args,
            ) -> ::mcpbind::Result<::mcpbind::protocol::GetPromptResult> {
                self.0.get_prompt::<#args>(&arguments).await
            }

            #complete
        }
    }

    /// The `Handler` method, whose default answers "not implemented".
    fn handler_tokens(&self) -> TokenStream {
        let docs = doc_attrs(&format!(
            "Answers `prompts/get` for prompt `{}` (see [`prompts::{}`]).",
            self.prompt.name.escape_default(),
            self.args
        ));
        let handler = &self.handler;
        let args = &self.args;
        let name = self.prompt.name.as_str();
        quote! {
            #docs
            fn #handler(
                &self,
                arguments: prompts::#args,
            ) -> impl ::std::future::Future<
                Output = ::std::result::Result<::mcpbind::protocol::GetPromptResult, ::mcpbind::ToolFailure>,
            > + ::std::marker::Send {
                let _ = arguments;
                async { ::std::result::Result::Err(::mcpbind::__private::prompt_unimplemented(#name)) }
            }
        }
    }
}

/// Names that are still equal after [`ToolNames`] (its hash suffix comes
/// from the wire name, and a made-up name like `complete-{prompt}` can equal
/// another prompt's real name) get `_2`, `_3`… in order, so that no two
/// items share a name.
pub(crate) fn unique(mut names: Vec<ToolName>) -> Vec<ToolName> {
    let (mut methods, mut markers) = (BTreeSet::new(), BTreeSet::new());
    for name in &mut names {
        let (method, marker) = (name.method.clone(), name.marker.clone());
        let mut n = 1;
        while methods.contains(&name.method) || markers.contains(&name.marker) {
            n += 1;
            name.method = format!("{method}_{n}");
            name.marker = format!("{marker}{n}");
        }
        methods.insert(name.method.clone());
        markers.insert(name.marker.clone());
    }
    names
}

pub(crate) fn opt_str(s: Option<&str>) -> TokenStream {
    match s {
        Some(s) => quote!(::std::option::Option::Some(#s)),
        None => quote!(::std::option::Option::None),
    }
}
