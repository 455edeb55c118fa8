//! The public API of `mcpbind`, listed: every item the facade
//! (`runtime/src/lib.rs`) makes public, with all features on (each line
//! says the feature it needs), compared with `tests/api/mcpbind.txt`. An
//! API change that does not update the listing fails here, so every change
//! of what `mcpbind` promises shows in review. `MCPBIND_BLESS=1` rewrites
//! the listing.
//!
//! The facade is walked with syn (no nightly rustdoc, no network): it is a
//! list of named re-exports, which is what this test checks stays true (a
//! glob re-export outside `__private` fails it).

use std::path::Path;

use crate::util::assert_golden;

#[test]
fn the_api_listing_is_current() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let source = std::fs::read_to_string(root.join("mcpbind/src/lib.rs")).unwrap();
    let file = syn::parse_file(&source).unwrap();
    let mut lines = Vec::new();
    walk(&file.items, "mcpbind", None, &mut lines);
    lines.sort();
    lines.dedup();
    let listing = format!(
        "# The public API of `mcpbind` (all features), one item a line: its path,\n\
         # what it is, and the feature it needs. Written by tests/tests/api.rs\n\
         # (`MCPBIND_BLESS=1` rewrites it): review a change here as an API change.\n{}\n",
        lines.join("\n")
    );
    assert_golden(&root.join("tests/api/mcpbind.txt"), &listing);
}

/// The feature an item's `#[cfg]` names, if any (`client`, `rig`, ...).
fn feature(attrs: &[syn::Attribute], outer: Option<&str>) -> Option<String> {
    for attr in attrs {
        if attr.path().is_ident("cfg") {
            let text = attr.meta.to_token_stream_string();
            return Some(text);
        }
    }
    outer.map(str::to_owned)
}

trait MetaText {
    fn to_token_stream_string(&self) -> String;
}

impl MetaText for syn::Meta {
    fn to_token_stream_string(&self) -> String {
        use quote::ToTokens;
        let text = match self {
            syn::Meta::List(list) => list.tokens.to_token_stream().to_string(),
            other => other.to_token_stream().to_string(),
        };
        text.replace(" = ", "=")
            .replace("\" ", "\"")
            .replace(" \"", "\"")
    }
}

fn is_public(vis: &syn::Visibility) -> bool {
    matches!(vis, syn::Visibility::Public(_))
}

fn is_hidden(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("doc")
            && matches!(&a.meta, syn::Meta::List(list) if list.tokens.to_string() == "hidden")
    })
}

fn line(path: &str, kind: &str, cfg: &Option<String>) -> String {
    match cfg {
        Some(cfg) => format!("{path} ({kind}) [{cfg}]"),
        None => format!("{path} ({kind})"),
    }
}

fn walk(items: &[syn::Item], prefix: &str, outer: Option<&str>, out: &mut Vec<String>) {
    for item in items {
        let (attrs, vis, kind, name) = match item {
            syn::Item::Use(u) => {
                if !is_public(&u.vis) || is_hidden(&u.attrs) {
                    continue;
                }
                let cfg = feature(&u.attrs, outer);
                uses(&u.tree, prefix, &cfg, out);
                continue;
            }
            syn::Item::Mod(m) => {
                if !is_public(&m.vis) || is_hidden(&m.attrs) {
                    continue;
                }
                let cfg = feature(&m.attrs, outer);
                let path = format!("{prefix}::{}", m.ident);
                out.push(line(&path, "mod", &cfg));
                if let Some((_, items)) = &m.content {
                    walk(items, &path, cfg.as_deref(), out);
                }
                continue;
            }
            syn::Item::Fn(f) => (&f.attrs, &f.vis, "fn", f.sig.ident.to_string()),
            syn::Item::Struct(s) => (&s.attrs, &s.vis, "struct", s.ident.to_string()),
            syn::Item::Enum(e) => (&e.attrs, &e.vis, "enum", e.ident.to_string()),
            syn::Item::Trait(t) => (&t.attrs, &t.vis, "trait", t.ident.to_string()),
            syn::Item::Const(c) => (&c.attrs, &c.vis, "const", c.ident.to_string()),
            syn::Item::Type(t) => (&t.attrs, &t.vis, "type", t.ident.to_string()),
            _ => continue,
        };
        if is_public(vis) && !is_hidden(attrs) {
            let cfg = feature(attrs, outer);
            out.push(line(&format!("{prefix}::{name}"), kind, &cfg));
        }
    }
}

/// The names a `pub use` tree makes public under `prefix`.
fn uses(tree: &syn::UseTree, prefix: &str, cfg: &Option<String>, out: &mut Vec<String>) {
    fn go(
        tree: &syn::UseTree,
        from: &str,
        prefix: &str,
        cfg: &Option<String>,
        out: &mut Vec<String>,
    ) {
        match tree {
            syn::UseTree::Path(p) => go(&p.tree, &format!("{from}::{}", p.ident), prefix, cfg, out),
            syn::UseTree::Name(n) => out.push(line(
                &format!("{prefix}::{}", n.ident),
                &format!("= {from}::{}", n.ident),
                cfg,
            )),
            syn::UseTree::Rename(r) => out.push(line(
                &format!("{prefix}::{}", r.rename),
                &format!("= {from}::{}", r.ident),
                cfg,
            )),
            syn::UseTree::Glob(_) => panic!(
                "`pub use {from}::*` under {prefix}: the facade re-exports items by name (a glob only in `__private`)"
            ),
            syn::UseTree::Group(g) => {
                for tree in &g.items {
                    go(tree, from, prefix, cfg, out);
                }
            }
        }
    }
    match tree {
        syn::UseTree::Path(p) => go(&p.tree, &p.ident.to_string(), prefix, cfg, out),
        other => go(other, "", prefix, cfg, out),
    }
}
