//! Per-tool IR ([`ToolMethod`]) and its emission: the marker type with its
//! metadata, and the client method.

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

use crate::lock::LockedTool;
use crate::util::doc_text;

/// Everything the generator needs to emit one tool.
#[derive(Debug)]
pub(crate) struct ToolMethod<'a> {
    pub(crate) tool: &'a LockedTool,
    /// `snake_case` method name.
    pub(crate) method: Ident,
    /// `PascalCase` marker type name (in `tools`).
    pub(crate) marker: Ident,
    /// The input type (`types::…`).
    pub(crate) input: TokenStream,
    /// The output type (`types::…`), if the tool has an `outputSchema`.
    pub(crate) output: Option<TokenStream>,
}

pub(crate) fn ident(name: &str) -> Ident {
    Ident::new(name, Span::call_site())
}

/// `#[doc = "…"]` lines, made safe for rustdoc.
pub(crate) fn doc_attrs(text: &str) -> TokenStream {
    let text = doc_text(text);
    let lines = text.lines().map(|l| format!(" {l}"));
    quote! { #( #[doc = #lines] )* }
}

impl ToolMethod<'_> {
    /// The tool's documentation: title, description, annotations.
    fn docs(&self) -> String {
        let tool = self.tool;
        let mut doc = String::new();
        if let Some(title) = tool.title() {
            let title = title
                .split(['\r', '\n'])
                .filter(|l| !l.is_empty())
                .collect::<Vec<_>>()
                .join(" ");
            doc.push_str(&format!("**{title}**\n\n"));
        }
        match tool.description() {
            Some(d) if !d.trim().is_empty() => doc.push_str(d.trim()),
            _ => doc.push_str(&format!("Calls the `{}` tool.", tool.name.escape_default())),
        }
        let mut hints = Vec::new();
        if tool.hint("readOnlyHint") == Some(true) {
            hints.push("read-only");
        }
        if tool.hint("destructiveHint") == Some(true) && tool.hint("readOnlyHint") != Some(true) {
            hints.push("destructive");
        }
        if tool.hint("idempotentHint") == Some(true) {
            hints.push("idempotent");
        }
        if tool.hint("openWorldHint") == Some(false) {
            hints.push("closed-world");
        }
        doc.push_str(&format!(
            "\n\nTool `{}`{}.",
            tool.name.escape_default(),
            if hints.is_empty() {
                String::new()
            } else {
                format!(" ({})", hints.join(", "))
            }
        ));
        doc
    }

    /// The marker type and its `::mcpbind::Tool` impl, in `mod tools`.
    pub(crate) fn marker_tokens(&self, server: &str) -> TokenStream {
        let tool = self.tool;
        let marker = &self.marker;
        let docs = doc_attrs(&self.docs());
        let input = &self.input;
        let output = match &self.output {
            Some(o) => quote!(super::#o),
            None => quote!(()),
        };
        let name = tool.name.as_str();
        let title = opt_str(tool.title());
        let description = opt_str(tool.description());
        let input_schema = tool
            .input_schema()
            .map(mcpbind_core::hash::canonical_json)
            .unwrap_or_else(|| "{}".to_owned());
        let output_schema = opt_str(
            tool.output_schema()
                .map(mcpbind_core::hash::canonical_json)
                .as_deref(),
        );
        let read_only = tool.hint("readOnlyHint").unwrap_or(false);
        let destructive = tool.hint("destructiveHint").unwrap_or(true);
        let idempotent = tool.hint("idempotentHint").unwrap_or(false);
        let open_world = tool.hint("openWorldHint").unwrap_or(true);
        let sha = tool.sha256.as_str();
        let definition = mcpbind_core::hash::canonical_json(&tool.definition);
        quote! {
            #docs
            #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
            pub struct #marker;

            impl ::mcpbind::Tool for #marker {
                type Input = super::#input;
                type Output = #output;
                const META: ::mcpbind::ToolMeta = ::mcpbind::ToolMeta::new(
                    #server,
                    #name,
                    #title,
                    #description,
                    #input_schema,
                    #output_schema,
                    [#read_only, #destructive, #idempotent, #open_world],
                    #sha,
                    #definition,
                );
            }
        }
    }

    /// The typed client method.
    pub(crate) fn method_tokens(&self) -> TokenStream {
        let docs = doc_attrs(&self.docs());
        let method = &self.method;
        let marker = &self.marker;
        let input = &self.input;
        let output = match &self.output {
            Some(o) => quote!(#o),
            None => quote!(()),
        };
        quote! {
            #docs
            pub async fn #method(
                &self,
                input: #input,
            ) -> ::mcpbind::Result<::mcpbind::ToolResult<#output>> {
                self.inner.call::<tools::#marker>(&input).await
            }
        }
    }
}

impl ToolMethod<'_> {
    fn output_type(&self) -> TokenStream {
        match &self.output {
            Some(o) => quote!(#o),
            None => quote!(()),
        }
    }

    /// The `Handler` trait method, whose default answers "not implemented".
    pub(crate) fn handler_tokens(&self) -> TokenStream {
        let docs = doc_attrs(&self.docs());
        let method = &self.method;
        let input = &self.input;
        let output = self.output_type();
        let name = self.tool.name.as_str();
        quote! {
            #docs
            fn #method(
                &self,
                input: #input,
            ) -> impl ::std::future::Future<Output = ::mcpbind::HandlerResult<#output>> + ::std::marker::Send {
                let _ = input;
                async { ::std::result::Result::Err(::mcpbind::ToolFailure::unimplemented(#name)) }
            }
        }
    }

    /// The `Server<H>` dispatch arm.
    pub(crate) fn dispatch_tokens(&self) -> TokenStream {
        let method = &self.method;
        let marker = &self.marker;
        let name = self.tool.name.as_str();
        quote! {
            #name => ::std::option::Option::Some(
                ::mcpbind::__private::dispatch::<tools::#marker, _, _>(arguments, |input| self.0.#method(input)).await,
            ),
        }
    }

    /// The marker's path, for the list of definitions.
    pub(crate) fn definition_tokens(&self) -> TokenStream {
        let marker = &self.marker;
        quote!(<tools::#marker as ::mcpbind::Tool>::META.definition)
    }
}

fn opt_str(s: Option<&str>) -> TokenStream {
    match s {
        Some(s) => quote!(::std::option::Option::Some(#s)),
        None => quote!(::std::option::Option::None),
    }
}
