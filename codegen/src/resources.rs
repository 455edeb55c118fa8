//! A server's resource templates: the `resources` module (a function per
//! template giving its URI, expanded as RFC 6570 says, and `Resources`, a
//! method per template that reads it), and the `Handler` side (a method per
//! template and the `resources/read` dispatch).

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use crate::docs::{doc_attrs, request_errors};
use crate::naming::ToolNames;
use crate::prompts::{opt_str, unique};
use crate::tool::ident;
use mcpbind_model::lock::LockedResourceTemplate;

/// Everything the generator needs to emit one template.
struct TemplateMethod<'a> {
    template: &'a LockedResourceTemplate,
    uri_template: &'a str,
    /// The method on `Resources`.
    method: Ident,
    /// The URI function in `resources`.
    uri_fn: Ident,
    /// The `Handler` method.
    handler: Ident,
    /// The variables: wire name, parameter, exploded.
    variables: Vec<(String, Ident, bool)>,
}

/// The resource templates of one server, named.
pub(crate) struct ServerTemplates<'a> {
    server: &'a str,
    templates: Vec<TemplateMethod<'a>>,
}

impl<'a> ServerTemplates<'a> {
    /// Names a server's templates; `handler_names` are their `Handler`
    /// method names, settled against the tools' by the caller.
    ///
    /// # Errors
    ///
    /// A template without a `uriTemplate`, or one that isn't RFC 6570 (the
    /// lockfile was edited: `mcpbind lock` skips such templates).
    pub(crate) fn new(
        server: &'a str,
        templates: &'a [LockedResourceTemplate],
        handler_names: Vec<String>,
    ) -> crate::Result<Self> {
        let mut wire: Vec<String> = templates.iter().map(|t| t.name.clone()).collect();
        wire.extend(templates.iter().map(|t| format!("{}-uri", t.name)));
        // `list` is the method listing concrete resources.
        let names = unique(ToolNames::new(wire.iter().map(String::as_str), &["list"]).names);
        let count = templates.len();
        let mut out = Vec::with_capacity(count);
        for (i, (template, handler)) in templates.iter().zip(handler_names).enumerate() {
            let invalid = |message: String| crate::Error::Internal {
                server: server.to_owned(),
                message: format!("resource template `{}`: {message}", template.name),
            };
            let uri_template = template
                .uri_template()
                .ok_or_else(|| invalid("it has no string `uriTemplate`".to_owned()))?;
            let parsed = mcpbind_model::uri_template::UriTemplate::parse(uri_template)
                .map_err(|e| invalid(e.to_string()))?;
            let vars = parsed.variables();
            let params = ToolNames::new(vars.iter().map(|v| v.name.as_str()), &[]).names;
            let variables = vars
                .iter()
                .zip(params)
                .map(|(v, p)| {
                    (
                        v.name.clone(),
                        ident(&p.method),
                        parsed.is_exploded(&v.name),
                    )
                })
                .collect();
            out.push(TemplateMethod {
                template,
                uri_template,
                method: ident(&names[i].method),
                uri_fn: ident(&names[count + i].method),
                handler: ident(&handler),
                variables,
            });
        }
        Ok(ServerTemplates {
            server,
            templates: out,
        })
    }

    /// The `resources` module and the `RESOURCE_TEMPLATES` constant.
    pub(crate) fn module_tokens(&self) -> TokenStream {
        let metas = self.templates.iter().map(|t| t.meta_tokens(self.server));
        let fns = self
            .templates
            .iter()
            .enumerate()
            .map(|(i, t)| t.uri_fn_tokens(i));
        let methods = self.templates.iter().map(TemplateMethod::method_tokens);
        quote! {
            /// The server's resource templates: a function per template that
            /// gives its URI (RFC 6570 expansion of the template's variables),
            /// and [`Resources`], a method per template that reads it.
            // A server may be named `resources` too.
            #[allow(clippy::module_inception)]
            pub mod resources {
                #(#fns)*

                /// One method per resource template, reading the resource
                /// (`resources/read`: text and blob contents); from
                /// [`super::Client::resources`].
                #[::mcpbind::__private::client]
                #[derive(Debug, Clone, Copy)]
                pub struct Resources<'a>(pub(super) &'a ::mcpbind::Client);

                #[::mcpbind::__private::client]
                impl Resources<'_> {
                    #(#methods)*

                    /// Lists the server's concrete resources (`resources/list`,
                    /// every page); they are data, not locked.
                    ///
                    /// # Errors
                    ///
                    /// Those of [`mcpbind::Client::list_resources`]: the
                    /// connection was lost, the server did not answer in time
                    /// or answered with an error, or its pages did not end.
                    pub async fn list(&self) -> ::mcpbind::Result<::std::vec::Vec<::mcpbind::protocol::Resource>> {
                        self.0.list_resources().await
                    }
                }
            }

            /// The locked metadata of every resource template, in lockfile order.
            pub const RESOURCE_TEMPLATES: &[::mcpbind::ResourceTemplateMeta] = &[#(#metas),*];
        }
    }

    /// The `Client::resources` accessor.
    pub(crate) fn client_tokens(&self) -> TokenStream {
        quote! {
            /// The server's resource templates, as typed reads.
            pub fn resources(&self) -> resources::Resources<'_> {
                resources::Resources(&self.inner)
            }
        }
    }

    /// The `Handler` methods.
    pub(crate) fn handler_tokens(&self) -> impl Iterator<Item = TokenStream> + '_ {
        self.templates.iter().map(TemplateMethod::handler_tokens)
    }

    /// The `ToolServer` methods of `Server<H>` for templates: the first
    /// template the URI matches is read.
    pub(crate) fn server_tokens(&self) -> TokenStream {
        let tries = self.templates.iter().enumerate().map(|(i, t)| {
            let i = proc_macro2::Literal::usize_unsuffixed(i);
            let handler = &t.handler;
            quote! {
                if let ::std::option::Option::Some(result) = ::mcpbind::__private::dispatch_template(
                    &RESOURCE_TEMPLATES[#i],
                    uri,
                    |uri, variables| self.0.#handler(uri, variables),
                )
                .await
                {
                    return ::std::option::Option::Some(result);
                }
            }
        });
        quote! {
            fn resource_templates(&self) -> &'static [::mcpbind::ResourceTemplateMeta] {
                RESOURCE_TEMPLATES
            }

            fn read_resource<'a>(
                &'a self,
                uri: &'a str,
            ) -> ::mcpbind::__private::BoxFuture<
                'a,
                ::std::option::Option<::mcpbind::__private::ServeResult>,
            > {
                ::std::boxed::Box::pin(async move {
                    #(#tries)*
                    ::std::option::Option::None
                })
            }
        }
    }
}

impl TemplateMethod<'_> {
    fn docs(&self) -> String {
        let template = self.template;
        let mut doc = String::new();
        if let Some(title) = template.title() {
            let title = title.split(['\r', '\n']).collect::<Vec<_>>().join(" ");
            doc.push_str(&format!("**{}**\n\n", title.trim()));
        }
        if let Some(d) = template.description().filter(|d| !d.trim().is_empty()) {
            doc.push_str(d.trim());
            doc.push_str("\n\n");
        }
        doc.push_str(&format!(
            "Resource template `{}`: `{}`",
            template.name.escape_default(),
            self.uri_template.escape_default()
        ));
        if let Some(mime) = template
            .definition
            .get("mimeType")
            .and_then(serde_json::Value::as_str)
        {
            doc.push_str(&format!(" ({})", mime.escape_default()));
        }
        doc.push('.');
        doc
    }

    fn params(&self) -> Vec<TokenStream> {
        self.variables
            .iter()
            .map(|(_, param, _)| quote!(#param: impl ::std::convert::Into<::mcpbind::UriValue>))
            .collect()
    }

    fn params_doc(&self) -> String {
        let vars: Vec<String> = self
            .variables
            .iter()
            .map(|(wire, param, exploded)| {
                let kind = if *exploded {
                    "a list or an associative array (exploded)"
                } else {
                    "a string, a list or an associative array"
                };
                format!("- `{param}`: `{{{}}}`, {kind}", wire.escape_default())
            })
            .collect();
        if vars.is_empty() {
            return String::new();
        }
        format!(
            "\n\nVariables (`mcpbind::UriValue::Undefined`, or an `Option` that is `None`, leaves one out):\n\n{}",
            vars.join("\n")
        )
    }

    fn meta_tokens(&self, server: &str) -> TokenStream {
        let template = self.template;
        let name = template.name.as_str();
        let uri = self.uri_template;
        let title = opt_str(template.title());
        let description = opt_str(template.description());
        let mime = opt_str(
            template
                .definition
                .get("mimeType")
                .and_then(serde_json::Value::as_str),
        );
        let sha = template.sha256.as_str();
        let definition = mcpbind_model::hash::canonical_json(&template.definition);
        quote! {
            ::mcpbind::ResourceTemplateMeta::new(
                #server,
                #name,
                #uri,
                #title,
                #description,
                #mime,
                #sha,
                #definition,
            )
        }
    }

    /// The function that expands the template.
    fn uri_fn_tokens(&self, index: usize) -> TokenStream {
        let docs = doc_attrs(&format!(
            "The URI of resource template `{}` for these values, expanded as RFC 6570 says.\n\n{}{}",
            self.template.name.escape_default(),
            self.docs(),
            self.params_doc()
        ));
        let uri_fn = &self.uri_fn;
        let index = proc_macro2::Literal::usize_unsuffixed(index);
        let params = self.params();
        let values = self
            .variables
            .iter()
            .map(|(wire, param, _)| quote!((#wire, #param.into())));
        quote! {
            #docs
            pub fn #uri_fn(#(#params),*) -> ::std::string::String {
                super::RESOURCE_TEMPLATES[#index].uri(&[#(#values),*])
            }
        }
    }

    /// The method on `Resources` that reads the resource.
    fn method_tokens(&self) -> TokenStream {
        let docs = doc_attrs(&format!(
            "Reads the resource at the URI [`{}`] gives for these values.\n\n{}",
            self.uri_fn,
            self.docs(),
        ));
        let errors = doc_attrs(&format!("\n{}", request_errors("read_resource")));
        let method = &self.method;
        let uri_fn = &self.uri_fn;
        let params = self.params();
        let args = self.variables.iter().map(|(_, param, _)| param);
        quote! {
            #docs
            #errors
            pub async fn #method(
                &self,
                #(#params),*
            ) -> ::mcpbind::Result<::mcpbind::protocol::ReadResourceResult> {
                self.0.read_resource(&#uri_fn(#(#args),*)).await
            }
        }
    }

    /// The `Handler` method, whose default answers "not implemented".
    fn handler_tokens(&self) -> TokenStream {
        let docs = doc_attrs(&format!(
            "Reads a resource of template `{}` (`{}`): `variables` are the values the URI gave.",
            self.template.name.escape_default(),
            self.uri_template.escape_default()
        ));
        let handler = &self.handler;
        let name = self.template.name.as_str();
        quote! {
            #docs
            fn #handler(
                &self,
                uri: ::std::string::String,
                variables: ::mcpbind::UriVariables,
            ) -> impl ::std::future::Future<
                Output = ::std::result::Result<::mcpbind::protocol::ReadResourceResult, ::mcpbind::ToolFailure>,
            > + ::std::marker::Send {
                let _ = (uri, variables);
                async { ::std::result::Result::Err(::mcpbind::__private::template_unimplemented(#name)) }
            }
        }
    }
}
