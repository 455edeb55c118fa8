#![cfg_attr(docsrs, feature(doc_cfg))]
//! The `mcp_tools!` macro of mcpbind.
//!
//! This crate is semver exempt: use the macro through `mcpbind::mcp_tools!`.
//! It only parses its arguments and calls `mcpbind_codegen::Generator`, the
//! engine the `build.rs` helper and `mcpbind generate` use too, so all three
//! produce the same code for the same lockfile.
#![deny(missing_docs)]

use std::path::Path;

use mcpbind_model::lock::{
    config_beside, find_lockfile, LockError, Lockfile, LOCKFILE_ENV, LOCKFILE_NAME,
};
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{bracketed, LitBool, LitStr, Token};

/// Generates typed bindings from an `mcpbind.lock` at compile time.
///
/// ```
/// mod every_server {
///     mcpbind::mcp_tools!();
/// }
/// mod from_a_path {
///     mcpbind::mcp_tools!("mcpbind.lock");
/// }
/// mod some_servers {
///     mcpbind::mcp_tools!(lockfile = "mcpbind.lock", servers = [everything, memory]);
/// }
/// # fn main() {}
/// ```
///
/// - `lockfile`: the lockfile (default `mcpbind.lock`), looked for as
///   everywhere in mcpbind: `MCPBIND_LOCKFILE` if set, else this path in the
///   crate's directory (`CARGO_MANIFEST_DIR`), else at the workspace root.
/// - `servers`: bind only these servers (identifiers or string literals for
///   names that aren't identifiers, such as `"my-server"`).
/// - `config`: the server config (relative to `CARGO_MANIFEST_DIR`), as
///   the build.rs helper's `.config(…)`; by default the `mcpbind.toml`
///   beside the lockfile, when there is one. The lockfile must match it,
///   and each server's `annotations` key decides whether its tools'
///   annotations are enforced (`"enforce"`: a tool that may modify things
///   takes an `mcpbind::Approved` beside its input). `config = false`
///   reads none: the bindings are advise-mode, and connecting them with a
///   config that says `"enforce"` is refused.
///
/// The macro never touches the network; editing the lockfile or the config
/// it read (or changing `MCPBIND_LOCKFILE`) recompiles the crate. A config
/// created beside the lockfile after the macro ran is not noticed until
/// the crate recompiles: a generated client's `connect` (and
/// `Toolbox::add`) refuses a config whose `annotations` mode differs from
/// the one its bindings were generated under. A schema the generator had to
/// loosen is reported as a compiler warning at the macro call, naming the
/// server, tool and JSON pointer (through the `deprecated` lint, the only
/// warning a macro can raise on stable Rust: `#[allow(deprecated)]` on the
/// enclosing module silences it).
#[proc_macro]
pub fn mcp_tools(item: proc_macro::TokenStream) -> proc_macro::TokenStream {
    match do_mcp_tools(item.into()) {
        Ok(tokens) => tokens.into(),
        Err(err) => err.to_compile_error().into(),
    }
}

/// The macro's arguments.
struct MacroArgs {
    lockfile: Option<LitStr>,
    servers: Option<Vec<(String, Span)>>,
    config: Option<ConfigArg>,
}

/// `config = "…"`, or `config = false`.
enum ConfigArg {
    Path(LitStr),
    None,
}

impl Parse for ConfigArg {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        if input.peek(LitBool) {
            let off: LitBool = input.parse()?;
            if off.value {
                return Err(syn::Error::new(
                    off.span(),
                    "expected a path or `false`: `config = true` is the default (the mcpbind.toml beside the lockfile)",
                ));
            }
            return Ok(ConfigArg::None);
        }
        Ok(ConfigArg::Path(input.parse()?))
    }
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
                lockfile: Some(lockfile),
                servers: None,
                config: None,
            });
        }
        let mut lockfile = None;
        let mut servers = None;
        let mut config = None;
        while !input.is_empty() {
            let key: syn::Ident = input.parse()?;
            let _: Token![=] = input.parse()?;
            match key.to_string().as_str() {
                "lockfile" => lockfile = Some(input.parse::<LitStr>()?),
                "config" => config = Some(input.parse::<ConfigArg>()?),
                "servers" => {
                    let content;
                    bracketed!(content in input);
                    let names = Punctuated::<ServerName, Token![,]>::parse_terminated(&content)?;
                    servers = Some(names.into_iter().map(|n| (n.0, n.1)).collect());
                }
                other => {
                    return Err(syn::Error::new(
                        key.span(),
                        format!(
                        "unknown argument `{other}`, expected `lockfile`, `servers` or `config`"
                    ),
                    ))
                }
            }
            if !input.is_empty() {
                let _: Token![,] = input.parse()?;
            }
        }
        Ok(MacroArgs {
            lockfile,
            servers,
            config,
        })
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
    let (requested, span) = match &args.lockfile {
        Some(lit) => (lit.value(), lit.span()),
        None => (LOCKFILE_NAME.to_owned(), Span::call_site()),
    };
    let error = |phrase: String, help: Option<String>| {
        let help = help.map(|h| format!("\nhelp: {h}")).unwrap_or_default();
        syn::Error::new(span, format!("{phrase}{help}"))
    };
    let dir = std::env::var_os("CARGO_MANIFEST_DIR").ok_or_else(|| {
        error(
            "CARGO_MANIFEST_DIR is not set (is this crate built by cargo?)".into(),
            None,
        )
    })?;
    // Paths in the crate are shown from `$CARGO_MANIFEST_DIR`: shorter, and
    // the same on every machine.
    let crate_prefix = format!("{}/", Path::new(&dir).display());
    let lock_error = |e: LockError| {
        let phrase = e.to_string().replace(&crate_prefix, "$CARGO_MANIFEST_DIR/");
        error(phrase, e.help())
    };
    let path = find_lockfile(Path::new(&requested), Path::new(&dir)).map_err(lock_error)?;
    let lockfile = Lockfile::read(&path).map_err(lock_error)?;

    let mut settings = mcpbind_codegen::GenerationSettings::new();
    if let Some(servers) = &args.servers {
        check_servers(servers, &lockfile, &requested)?;
        settings.with_servers(servers.iter().map(|(n, _)| n.clone()));
    }
    // The config named, else the one beside the lockfile, if any.
    let config_path = match &args.config {
        Some(ConfigArg::Path(lit)) => Some((Path::new(&dir).join(lit.value()), lit.span())),
        Some(ConfigArg::None) => None,
        None => Some((config_beside(&path), span)).filter(|(c, _)| std::fs::metadata(c).is_ok()),
    };
    let config = match config_path {
        Some((config_path, span)) => Some(read_config(
            config_path,
            span,
            &crate_prefix,
            &lockfile,
            &args,
            &path,
        )?),
        None => None,
    };
    if let Some((config, _)) = &config {
        settings.with_config(config);
    }
    let mut generator = mcpbind_codegen::Generator::new(&settings);
    let tokens = generator
        .generate_tokens(&lockfile, &path)
        .map_err(|e| error(format!("generation error for {requested}: {e}"), e.help()))?;
    let warnings = warning_tokens(generator.warnings(), span);

    let trackers = rebuild_trackers(&path, config.as_ref().map(|(_, c)| c.as_path()));
    Ok(quote! {
        #tokens
        #warnings
        #trackers
    })
}

/// Each server `servers = [...]` names is in the lockfile, or the error
/// at its name says how to lock it.
fn check_servers(
    servers: &[(String, Span)],
    lockfile: &Lockfile,
    requested: &str,
) -> syn::Result<()> {
    for (name, span) in servers {
        if !lockfile.servers.contains_key(name) {
            return Err(syn::Error::new(
                *span,
                format!(
                    "server `{name}` is not in {requested}\nhelp: run `mcpbind lock {name}` and commit the lockfile"
                ),
            ));
        }
    }
    Ok(())
}

/// What forces a rebuild when the lockfile (`path`), the config or the
/// variable that picks the lockfile changes.
fn rebuild_trackers(path: &Path, config_path: Option<&Path>) -> TokenStream {
    let path_str = path.to_string_lossy().into_owned();
    let config_tracker = config_path.map(|config_path| {
        let config_str = config_path.to_string_lossy().into_owned();
        quote!(
            const _: &[u8] = ::std::include_bytes!(#config_str);
        )
    });
    quote! {
        const _: (&[u8], ::std::option::Option<&str>) = (
            ::std::include_bytes!(#path_str),
            ::std::option_env!(#LOCKFILE_ENV),
        );
        #config_tracker
    }
}

/// The config at `path` (`config = "…"`, or the one beside the lockfile;
/// errors at `span`), checked against the lockfile as the build.rs helper
/// checks it.
fn read_config(
    path: std::path::PathBuf,
    span: Span,
    crate_prefix: &str,
    lockfile: &Lockfile,
    args: &MacroArgs,
    lock_path: &Path,
) -> syn::Result<(mcpbind_model::config::Config, std::path::PathBuf)> {
    let error = |phrase: String, help: Option<String>| {
        let phrase = phrase.replace(crate_prefix, "$CARGO_MANIFEST_DIR/");
        let help = help.map(|h| format!("\nhelp: {h}")).unwrap_or_default();
        syn::Error::new(span, format!("{phrase}{help}"))
    };
    let config = mcpbind_model::config::Config::load(&path).map_err(|e| {
        let mut phrase = e.to_string();
        let mut source = std::error::Error::source(&e);
        while let Some(cause) = source {
            phrase.push_str(&format!(": {cause}"));
            source = cause.source();
        }
        error(phrase, None)
    })?;
    let servers: Option<Vec<String>> = args
        .servers
        .as_ref()
        .map(|s| s.iter().map(|(n, _)| n.clone()).collect());
    lockfile
        .check_config(&config, servers.as_deref(), lock_path)
        .map_err(|e| error(e.to_string(), e.help()))?;
    Ok((config, path))
}

/// One compiler warning per loosened schema, at the macro call. Stable Rust
/// lets a macro warn only through a lint, so each is the use of a
/// `#[deprecated]` constant whose note is the warning; the server's text
/// goes only into that string literal, never into code.
fn warning_tokens(warnings: &[mcpbind_codegen::Warning], span: Span) -> TokenStream {
    let items = warnings.iter().map(|warning| {
        let note = LitStr::new(&format!("mcpbind: {warning}"), span);
        quote_spanned! {span=>
            const _: () = {
                #[deprecated(note = #note)]
                #[allow(non_upper_case_globals)]
                const mcpbind_schema_warning: () = ();
                mcpbind_schema_warning
            };
        }
    });
    quote!(#(#items)*)
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
        // Drop the rebuild tracker, which only the macro needs (the demo
        // and everything servers need no warnings).
        assert!(matches!(from_macro.items.pop(), Some(syn::Item::Const(_))));
        assert!(!matches!(
            from_macro.items.last(),
            Some(syn::Item::Const(_))
        ));

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
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .unwrap()
            .display()
            .to_string();
        assert_eq!(
            err.to_string(),
            format!("no/such.lock not found (looked at $CARGO_MANIFEST_DIR/no/such.lock, {root}/no/such.lock)\nhelp: run `mcpbind lock` to snapshot the servers of mcpbind.toml, and commit such.lock")
        );
        let lock = lockfile();
        let err = do_mcp_tools(quote!(lockfile = #lock, servers = [nope])).unwrap_err();
        assert!(
            err.to_string().starts_with("server `nope` is not in"),
            "{err}"
        );
        let err = do_mcp_tools(quote!(lockfile = #lock, colour = "x")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown argument `colour`, expected `lockfile`, `servers` or `config`"
        );
        // The default is `mcpbind.lock` in the crate's directory (this
        // crate has one, for its doc example), which the bindings then
        // depend on.
        let tokens = do_mcp_tools(quote!()).unwrap().to_string();
        let default = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("mcpbind.lock");
        assert!(
            tokens.contains(&format!("{:?}", default.display().to_string())),
            "the default lockfile is not {}",
            default.display()
        );
    }

    /// A loosened schema becomes one `#[deprecated]` warning at the call,
    /// and a server's text stays inside the note's string literal.
    #[test]
    fn warnings_are_string_literals_at_the_call() {
        let evil = "evil\"] fn injected() {} #[doc = \"";
        let tool = serde_json::json!({
            "name": evil,
            "inputSchema": {"type": "object", "properties": {"m": {"$ref": "https://example.com/m.json"}}},
        });
        let server = mcpbind_model::lock::ServerLock::new(
            "demo",
            "2025-06-18".into(),
            serde_json::json!({}),
            vec![tool],
        )
        .unwrap();
        let mut lock = Lockfile::new();
        lock.servers.insert("demo".into(), server);
        let dir = std::env::temp_dir().join(format!("mcpbind-macro-{}", std::process::id()));
        let path = dir.join("mcpbind.lock");
        lock.write(&path).unwrap();
        let path = path.display().to_string();

        let file: syn::File = syn::parse2(do_mcp_tools(quote!(#path)).unwrap()).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        let notes: Vec<String> = file
            .items
            .iter()
            .filter_map(|item| match item {
                syn::Item::Const(c) => match &*c.expr {
                    syn::Expr::Block(b) => Some(&b.block.stmts),
                    _ => None,
                },
                _ => None,
            })
            .filter_map(|stmts| match stmts.first() {
                Some(syn::Stmt::Item(syn::Item::Const(c))) => Some(&c.attrs),
                _ => None,
            })
            .flat_map(|attrs| attrs.iter().filter(|a| a.path().is_ident("deprecated")))
            .map(|a| {
                let mut note = None;
                a.parse_nested_meta(|m| {
                    note = Some(m.value()?.parse::<LitStr>()?.value());
                    Ok(())
                })
                .unwrap();
                note.unwrap()
            })
            .collect();
        assert_eq!(notes.len(), 1, "{notes:?}");
        let expected = format!(
            "mcpbind: server `demo`, tool `{evil}`, at /inputSchema/properties/m/$ref: cannot resolve $ref"
        );
        assert!(notes[0].starts_with(&expected), "{notes:?}");
    }
}
