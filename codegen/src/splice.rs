//! Per-tool code written as text, in the layout prettyplease gives it.
//!
//! Each tool adds four pieces of a fixed shape to its server's module: the
//! marker type with its metadata, the `Client` method, the `Handler` method
//! and the `Server<H>` dispatch arm. Made as tokens, parsed by syn and
//! printed by prettyplease, they took over a quarter of the generator's
//! time (a `build.rs` runs it unoptimized), and none of that work decides
//! anything: their layout depends only on the lengths of their names. So
//! `tool.rs` writes them as text, laid out as prettyplease lays them out,
//! and a piece with a line its shapes do not cover is formatted by
//! prettyplease alone, at its depth ([`Context::format`]).
//!
//! Where a server's module is formatted
//! ([`generate_text`](crate::Generator::generate_text)), each run of pieces
//! is a placeholder while the rest goes through syn and prettyplease, and
//! is written in afterwards ([`Splices::restore`]). Otherwise (the
//! `mcp_tools!` macro) the text is parsed into tokens in place.
//!
//! A placeholder is a line of its own: `__mcpbind_splice!(N);` (an item) or
//! `__mcpbind_splice_N => {}` (a match arm). Only a doc comment of the
//! server's could print such a line (a `/** */` block prints its lines as
//! written), so the text is restored only if every placeholder is found
//! exactly once; otherwise the caller formats the module again without
//! placeholders.

use std::cell::RefCell;
use std::str::FromStr;

use proc_macro2::TokenStream;

/// prettyplease's line width: a line of this many bytes still fits.
pub(crate) const MARGIN: usize = 89;

const ITEM: &str = "__mcpbind_splice!(";
const ARM: &str = "__mcpbind_splice_";

/// Where a run of pieces goes in a server's module (`pub mod server`, at
/// column 0), which decides its indentation and how a piece is formatted
/// on its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Context {
    /// Items of `mod tools`.
    ToolsModule,
    /// Methods of `impl Client`.
    ClientImpl,
    /// Methods of `trait Handler`.
    HandlerTrait,
    /// Arms of the `match` in `Server<H>::call_tool`.
    DispatchArms,
}

impl Context {
    /// The indentation of a piece's first line.
    pub(crate) fn indent(self) -> usize {
        match self {
            Context::DispatchArms => 16,
            _ => 8,
        }
    }

    /// What goes around a piece so that prettyplease formats it at its
    /// depth: the opening lines, then as many closing ones.
    fn wrapper(self) -> &'static [&'static str] {
        match self {
            Context::ToolsModule => &["mod a {", "mod b {"],
            Context::ClientImpl => &["mod a {", "impl A {"],
            Context::HandlerTrait => &["mod a {", "trait A {"],
            Context::DispatchArms => &["mod a {", "impl A {", "fn a() {", "match a {"],
        }
    }

    /// `text` (valid Rust in this context, in any layout) as prettyplease
    /// formats it here. `None` if it does not parse, which is a bug of the
    /// writer.
    pub(crate) fn format(self, text: &str) -> Option<String> {
        let wrapper = self.wrapper();
        let mut source = wrapper.join("\n");
        source.push('\n');
        source.push_str(text);
        source.push_str(&"}\n".repeat(wrapper.len()));
        let file: syn::File = syn::parse_str(&source).ok()?;
        let formatted = prettyplease::unparse(&file);
        let lines: Vec<&str> = formatted.lines().collect();
        let inner = lines.get(wrapper.len()..lines.len().checked_sub(wrapper.len())?)?;
        let mut out = String::with_capacity(text.len());
        for line in inner {
            out.push_str(line);
            out.push('\n');
        }
        Some(out)
    }

    /// The tokens of `text` (for a module that is not formatted).
    fn tokens(self, text: &str) -> TokenStream {
        // The writer's text is Rust by construction; were it not, the
        // module would fail to parse with this text in it.
        TokenStream::from_str(text).unwrap_or_else(|e| {
            let message = format!("mcpbind wrote invalid Rust ({e}): {text}");
            quote::quote!(::core::compile_error!(#message);)
        })
    }
}

/// The runs of one server's module, by placeholder number.
#[derive(Default)]
pub(crate) struct Splices {
    runs: RefCell<Vec<String>>,
}

impl Splices {
    /// A run of pieces written as text: with `splices`, a placeholder for
    /// it; without, its tokens.
    pub(crate) fn run(splices: Option<&Splices>, context: Context, text: String) -> TokenStream {
        let Some(splices) = splices else {
            return context.tokens(&text);
        };
        if text.is_empty() {
            return TokenStream::new();
        }
        let mut runs = splices.runs.borrow_mut();
        let n = runs.len();
        runs.push(text);
        let placeholder = match context {
            Context::DispatchArms => format!("{ARM}{n} => {{}}"),
            _ => format!("{ITEM}{n});"),
        };
        context.tokens(&placeholder)
    }

    /// The formatted module with every placeholder line replaced by its
    /// run; `None` if the placeholders are not each there once.
    pub(crate) fn restore(&self, text: &str) -> Option<String> {
        let runs = self.runs.borrow();
        if runs.is_empty() {
            return Some(text.to_owned());
        }
        let extra: usize = runs.iter().map(String::len).sum();
        let mut out = String::with_capacity(text.len() + extra);
        let mut seen = vec![false; runs.len()];
        for line in text.split_inclusive('\n') {
            match placeholder_number(line) {
                Some(n) if n < runs.len() && !std::mem::replace(&mut seen[n], true) => {
                    out.push_str(&runs[n]);
                }
                Some(_) => return None,
                None => out.push_str(line),
            }
        }
        seen.iter().all(|s| *s).then_some(out)
    }
}

/// The number of a placeholder line, in either form.
fn placeholder_number(line: &str) -> Option<usize> {
    let line = line.trim();
    let digits = if let Some(rest) = line.strip_prefix(ITEM) {
        rest.strip_suffix(");")?
    } else {
        line.strip_prefix(ARM)?.strip_suffix(" => {}")?
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_come_back_in_place_of_their_placeholders() {
        let splices = Splices::default();
        let item = Splices::run(
            Some(&splices),
            Context::ToolsModule,
            "        pub struct A;\n".to_owned(),
        );
        let arm = Splices::run(
            Some(&splices),
            Context::DispatchArms,
            "                \"a\" => 1,\n".to_owned(),
        );
        let module = quote::quote! {
            pub mod s {
                pub mod tools { #item }
                impl A {
                    fn f(name: &str) -> u8 { match name { #arm _ => 0 } }
                }
            }
        };
        let formatted = prettyplease::unparse(&syn::parse2(module).unwrap());
        let restored = splices.restore(&formatted).unwrap();
        assert!(restored.contains("\n        pub struct A;\n"), "{restored}");
        assert!(
            restored.contains("\n                \"a\" => 1,\n"),
            "{restored}"
        );
        assert!(!restored.contains("__mcpbind"), "{restored}");
        // The restored module is what prettyplease makes of it.
        let again = prettyplease::unparse(&syn::parse_str(&restored).unwrap());
        assert_eq!(again, restored);

        // A placeholder missing, or twice (a server's block comment
        // printing one): not restored.
        assert_eq!(splices.restore("pub mod s {}\n"), None);
        let forged = formatted.replace(
            "pub mod tools {",
            "/**\n        __mcpbind_splice!(0);\n*/\npub mod tools {",
        );
        assert_eq!(splices.restore(&forged), None);
    }

    #[test]
    fn a_piece_is_formatted_at_its_depth() {
        let arm = Context::DispatchArms
            .format("\"a\" => serve(A, args, |i| h.a(i)),\n")
            .unwrap();
        assert_eq!(
            arm,
            "                \"a\" => serve(A, args, |i| h.a(i)),\n"
        );
        let item = Context::ToolsModule.format("pub struct A;").unwrap();
        assert_eq!(item, "        pub struct A;\n");
        assert_eq!(Context::ClientImpl.format("fn ("), None);
    }
}
