//! The `mcp_tools!` macro of mcpbind.
//!
//! This crate is semver exempt: use the macro through `mcpbind::mcp_tools!`.
//! It only parses its arguments and calls `mcpbind_codegen::Generator`, the
//! engine the `build.rs` helper and `mcpbind generate` use too, so all three
//! produce the same code for the same lockfile.
#![deny(missing_docs)]

use std::path::PathBuf;

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{bracketed, LitStr, Token};

/// Generates typed bindings from an `mcpbind.lock` at compile time.
///
/// ```ignore
/// mcpbind::mcp_tools!("mcpbind.lock");
/// mcpbind::mcp_tools!(lockfile = "mcpbind.lock", servers = [everything, memory]);
/// ```
///
/// - `lockfile`: the lockfile, relative to the crate's `CARGO_MANIFEST_DIR`.
/// - `servers`: bind only these servers (identifiers or string literals for
///   names that aren't identifiers, such as `"my-server"`).
///
/// The macro never touches the network; editing the lockfile recompiles the
/// crate.
#[proc_macro]
pub fn mcp_tools(item: proc_macro::TokenStream) -> proc_macro::TokenStream {
    match do_mcp_tools(item.into()) {
        Ok(tokens) => tokens.into(),
        Err(err) => err.to_compile_error().into(),
    }
}

/// The macro's arguments.
struct MacroArgs {
    lockfile: LitStr,
    servers: Option<Vec<(String, Span)>>,
}

impl Parse for MacroArgs {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        if input.peek(LitStr) {
            let lockfile: LitStr = input.parse()?;
            let _: Option<Token![,]> = input.parse()?;
            if !input.is_empty() {
                return Err(input.error("expected nothing after the lockfile path; to pick servers write `lockfile = \"…\", servers = [...]`"));
            }
            return Ok(MacroArgs {
                lockfile,
                servers: None,
            });
        }
        let mut lockfile = None;
        let mut servers = None;
        while !input.is_empty() {
            let key: syn::Ident = input.parse()?;
            let _: Token![=] = input.parse()?;
            match key.to_string().as_str() {
                "lockfile" => lockfile = Some(input.parse::<LitStr>()?),
                "servers" => {
                    let content;
                    bracketed!(content in input);
                    let names = Punctuated::<ServerName, Token![,]>::parse_terminated(&content)?;
                    servers = Some(names.into_iter().map(|n| (n.0, n.1)).collect());
                }
                other => {
                    return Err(syn::Error::new(
                        key.span(),
                        format!("unknown argument `{other}`, expected `lockfile` or `servers`"),
                    ))
                }
            }
            if !input.is_empty() {
                let _: Token![,] = input.parse()?;
            }
        }
        let lockfile = lockfile.ok_or_else(|| {
            syn::Error::new(
                Span::call_site(),
                "missing the lockfile: write `mcp_tools!(\"mcpbind.lock\")`",
            )
        })?;
        Ok(MacroArgs { lockfile, servers })
    }
}

struct ServerName(String, Span);

impl Parse for ServerName {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        if input.peek(LitStr) {
            let lit: LitStr = input.parse()?;
            Ok(ServerName(lit.value(), lit.span()))
        } else {
            let ident: syn::Ident = input.call(syn::ext::IdentExt::parse_any)?;
            Ok(ServerName(ident.to_string(), ident.span()))
        }
    }
}

fn do_mcp_tools(item: TokenStream) -> syn::Result<TokenStream> {
    let args: MacroArgs = syn::parse2(item)?;
    let dir = std::env::var_os("CARGO_MANIFEST_DIR").ok_or_else(|| {
        syn::Error::new(
            args.lockfile.span(),
            "CARGO_MANIFEST_DIR is not set (is this crate built by cargo?)",
        )
    })?;
    let path = PathBuf::from(dir).join(args.lockfile.value());
    let lockfile = mcpbind_codegen::Lockfile::read(&path).map_err(|e| {
        let message = match e {
            // Name the file as the user wrote it; the absolute path is noise.
            mcpbind_codegen::Error::LockMissing { .. } => format!(
                "{} not found (paths are relative to the crate's Cargo.toml)\nhelp: run `mcpbind lock` to snapshot the servers of mcpbind.toml, and commit the lockfile",
                args.lockfile.value()
            ),
            other => other.to_string(),
        };
        syn::Error::new(args.lockfile.span(), message)
    })?;

    let mut settings = mcpbind_codegen::GenerationSettings::new();
    if let Some(servers) = &args.servers {
        for (name, span) in servers {
            if !lockfile.servers.contains_key(name) {
                return Err(syn::Error::new(
                    *span,
                    format!(
                        "server `{name}` is not in {}\nhelp: run `mcpbind lock {name}` and commit the lockfile",
                        args.lockfile.value()
                    ),
                ));
            }
        }
        settings.with_servers(servers.iter().map(|(n, _)| n.clone()));
    }
    let tokens = mcpbind_codegen::Generator::new(&settings)
        .generate_tokens(&lockfile, &path)
        .map_err(|e| {
            syn::Error::new(
                args.lockfile.span(),
                format!("generation error for {}: {e}", args.lockfile.value()),
            )
        })?;

    // Force a rebuild when the lockfile is modified.
    let path_str = path.to_string_lossy().into_owned();
    Ok(quote! {
        #tokens
        const _: &[u8] = ::std::include_bytes!(#path_str);
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lockfile() -> String {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/mcpbind.lock").to_owned()
    }

    /// The macro and the build.rs helper give the same code.
    #[test]
    fn same_output_as_the_builder() {
        let lock = lockfile();
        let from_macro =
            do_mcp_tools(quote!(lockfile = #lock, servers = [demo, "everything"])).unwrap();
        let from_macro: syn::File = syn::parse2(from_macro).unwrap();
        let mut from_macro = from_macro;
        // Drop the rebuild tracker, which only the macro needs.
        assert!(matches!(from_macro.items.pop(), Some(syn::Item::Const(_))));

        let text = mcpbind_codegen::Builder::new()
            .servers(["demo", "everything"])
            .generate_string(std::path::Path::new(&lock))
            .unwrap();
        let from_builder = syn::parse_file(&text).unwrap();
        assert_eq!(
            prettyplease::unparse(&from_macro),
            prettyplease::unparse(&from_builder)
        );
    }

    #[test]
    fn errors_name_their_cause() {
        let err = do_mcp_tools(quote!("no/such.lock")).unwrap_err();
        assert!(
            err.to_string().starts_with(
                "no/such.lock not found (paths are relative to the crate's Cargo.toml)"
            ),
            "{err}"
        );
        assert!(err.to_string().contains("run `mcpbind lock`"), "{err}");
        let lock = lockfile();
        let err = do_mcp_tools(quote!(lockfile = #lock, servers = [nope])).unwrap_err();
        assert!(
            err.to_string().starts_with("server `nope` is not in"),
            "{err}"
        );
        let err = do_mcp_tools(quote!(lockfile = #lock, colour = "x")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown argument `colour`, expected `lockfile` or `servers`"
        );
        let err = do_mcp_tools(quote!()).unwrap_err();
        assert!(err.to_string().starts_with("missing the lockfile"), "{err}");
    }
}
