//! Per-tool IR ([`ToolMethod`]) and its emission: the marker type with its
//! metadata, and the client method.

use proc_macro2::{Ident, Span};

use crate::splice::{Context, MARGIN};
use mcpbind_model::lock::LockedTool;

/// Everything the generator needs to emit one tool.
#[derive(Debug)]
pub(crate) struct ToolMethod<'a> {
    pub(crate) tool: &'a LockedTool,
    /// `snake_case` method name.
    pub(crate) method: String,
    /// `PascalCase` marker type name (in `tools`).
    pub(crate) marker: String,
    /// The input type (`types::…`).
    pub(crate) input: String,
    /// The output type (`types::…`), if the tool has an `outputSchema`.
    pub(crate) output: Option<String>,
    /// Its calls need an approval: the server's `annotations` are
    /// `enforce`, and the tool [may modify](needs_approval) things.
    pub(crate) approval: bool,
    /// Its input type enforces its whole input schema
    /// ([`crate::enforced`]): a typed call's arguments need no check.
    pub(crate) input_enforced: bool,
}

/// Whether a tool may modify things ([`mcpbind_model::may_modify`]), by
/// its locked annotations with the MCP defaults applied.
pub(crate) fn needs_approval(tool: &LockedTool) -> bool {
    mcpbind_model::may_modify(
        tool.hint("readOnlyHint") == Some(true),
        tool.hint("destructiveHint") != Some(false),
    )
}

pub(crate) fn ident(name: &str) -> Ident {
    Ident::new(name, Span::call_site())
}

use crate::naming::str_repr;

impl ToolMethod<'_> {
    /// The tool's documentation: title, description, annotations.
    /// The docs of the marker type and the `Handler` method: the title or
    /// the description's first line, and where the whole description is (it
    /// is written once, on the `Client` method, rather than three times).
    fn summary_docs(&self) -> String {
        let tool = self.tool;
        let first_line = tool
            .description()
            .and_then(|d| d.lines().map(str::trim_end).find(|l| !l.trim().is_empty()))
            // A code fence or block must not be cut in half.
            .filter(|l| {
                !l.starts_with("    ")
                    && !l.trim_start().starts_with("```")
                    && !l.trim_start().starts_with("~~~")
            });
        // One paragraph (one line of code): the summary rustdoc lists.
        let name = tool.name.escape_default();
        let place = format!(
            "tool `{name}`, described in full on `Client::{}`",
            self.method
        );
        match (tool.title(), first_line) {
            (Some(title), _) => {
                let title = title
                    .split(['\r', '\n'])
                    .filter(|l| !l.is_empty())
                    .collect::<Vec<_>>()
                    .join(" ");
                format!("**{title}** ({place}).")
            }
            (None, Some(line)) => format!("{} ({place}).", line.trim().trim_end_matches('.')),
            (None, None) => {
                let mut doc = place;
                doc[..1].make_ascii_uppercase();
                doc + "."
            }
        }
    }

    /// The `Client` method's docs: the title (or the tool's name) with the
    /// annotations, then the whole description. Without a title, a
    /// description whose first line is plain text goes on the same line
    /// (`Tool `x` (read-only): Adds…`), which rustdoc reads as one paragraph.
    fn docs(&self) -> String {
        let tool = self.tool;
        let name = tool.name.escape_default();
        let hints = self.hints();
        let description = tool.description().map(str::trim).filter(|d| !d.is_empty());
        if let Some(title) = tool.title() {
            let title = title
                .split(['\r', '\n'])
                .filter(|l| !l.is_empty())
                .collect::<Vec<_>>()
                .join(" ");
            let description = description.map(str::to_owned);
            let description = description.unwrap_or_else(|| format!("Calls the `{name}` tool."));
            let hints: String = hints.iter().map(|h| format!(", {h}")).collect();
            return format!("**{title}** (tool `{name}`{hints})\n\n{description}");
        }
        let hints = if hints.is_empty() {
            String::new()
        } else {
            format!(" ({})", hints.join(", "))
        };
        match description {
            Some(d) if starts_plain(d) => format!("Tool `{name}`{hints}: {d}"),
            Some(d) => format!("Tool `{name}`{hints}.\n\n{d}"),
            None => format!("Calls the `{name}` tool{hints}."),
        }
    }

    /// The tool's annotations, in words (`read-only`, `idempotent`…).
    fn hints(&self) -> Vec<&'static str> {
        let tool = self.tool;
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
        // `execution.taskSupport`: the method creates, polls and reads a task.
        match mcpbind_model::TaskSupport::of(&tool.definition) {
            mcpbind_model::TaskSupport::Required => hints.push("runs as a task"),
            mcpbind_model::TaskSupport::Optional => {
                hints.push("runs as a task with `CallOptions::run_as_task`")
            }
            _ => {}
        }
        hints
    }

    /// The marker type and its `::mcpbind::Tool` impl, in `mod tools`.
    pub(crate) fn marker(&self, server: &str) -> Lines {
        let marker = &self.marker;
        let output = match &self.output {
            Some(o) => format!("super::{o}"),
            None => "()".to_owned(),
        };
        let mut out = Lines::new(Context::ToolsModule);
        let i = out.indent;
        out.docs(i, &self.summary_docs());
        out.line(
            i,
            &["#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]"],
        );
        out.line(i, &["pub struct ", marker, ";"]);
        out.line(i, &["impl ::mcpbind::Tool for ", marker, " {"]);
        out.line(i + 4, &["type Input = super::", &self.input, ";"]);
        out.line(i + 4, &["type Output = ", &output, ";"]);
        self.meta(server, &mut out);
        if self.approval {
            out.line(i + 4, &["const NEEDS_APPROVAL: bool = true;"]);
        }
        if self.input_enforced {
            out.line(i + 4, &["const INPUT_ENFORCES_SCHEMA: bool = true;"]);
        }
        out.line(i, &["}"]);
        out
    }

    /// The marker's `const META`: the definition, where its texts and
    /// schemas are in it, and the annotations.
    fn meta(&self, server: &str, out: &mut Lines) {
        let tool = self.tool;
        let definition = mcpbind_model::hash::canonical_json(&tool.definition);
        let title = text_span(
            &definition,
            tool.title(),
            &[&["title"], &["annotations", "title"]],
        );
        let description = text_span(&definition, tool.description(), &[&["description"]]);
        let spans = [
            title.unwrap_or_default(),
            description.unwrap_or_default(),
            top_level_range(&definition, "inputSchema").unwrap_or_default(),
            top_level_range(&definition, "outputSchema").unwrap_or_default(),
        ]
        .map(|(start, end)| format!("({start}, {end})"))
        .join(", ");
        let hints = [
            tool.hint("readOnlyHint").unwrap_or(false),
            tool.hint("destructiveHint").unwrap_or(true),
            tool.hint("idempotentHint").unwrap_or(false),
            tool.hint("openWorldHint").unwrap_or(true),
        ]
        .map(|h| h.to_string())
        .join(", ");
        // A text whose JSON has escapes is no slice of the definition.
        let escaped = (title.is_none() && tool.title().is_some())
            || (description.is_none() && tool.description().is_some());
        let constructor = if escaped { "with_texts" } else { "new" };
        let args = [
            str_repr(server),
            str_repr(&tool.name),
            str_repr(&definition),
        ];

        let i = out.indent + 4;
        let call = [
            "const META: ::mcpbind::ToolMeta = ::mcpbind::ToolMeta::",
            constructor,
            "(",
        ];
        // The arguments go one to a line: they never fit on one.
        out.breaks(
            i,
            &call,
            &[&args.join(", "), ", [", &spans, "], [", &hints, "]);"],
        );
        out.line(i, &call);
        for arg in &args {
            out.literal(i + 4, &[arg, ","]);
        }
        out.line(i + 4, &["[", &spans, "],"]);
        out.line(i + 4, &["[", &hints, "],"]);
        if escaped {
            for text in [tool.title(), tool.description()] {
                match text {
                    None => out.line(i + 4, &["::std::option::Option::None,"]),
                    Some(text) => {
                        let text = str_repr(text);
                        let some = "::std::option::Option::Some(";
                        if out.fits(i + 4, &[some, &text, "),"]) {
                            out.line(i + 4, &[some, &text, "),"]);
                        } else {
                            out.line(i + 4, &[some]);
                            out.literal(i + 8, &[&text, ","]);
                            out.line(i + 4, &["),"]);
                        }
                    }
                }
            }
        }
        out.line(i, &[");"]);
    }

    /// The typed client method.
    pub(crate) fn method(&self) -> Lines {
        if self.approval {
            return self.approved_method();
        }
        let output = self.output.as_deref().unwrap_or("()");
        let mut out = Lines::new(Context::ClientImpl);
        let i = out.indent;
        out.docs(i, &self.docs());
        out.signature(
            ["pub fn ", &self.method, "("],
            &self.input,
            ") -> impl ::mcpbind::CallFuture<",
            &[output],
            "> + '_ {",
        );
        // Too long for a line, prettyplease breaks the turbofish: the piece
        // then goes through it.
        let call = [
            "::mcpbind::__private::call_owned::<tools::",
            &self.marker,
            ">(&self.inner, input)",
        ];
        out.line(i + 4, &call);
        out.line(i, &["}"]);
        out
    }
}

impl ToolMethod<'_> {
    /// The typed client method of a tool that needs approval: it takes the
    /// `::mcpbind::Approved` of its input. Written roughly and laid out by
    /// prettyplease (only servers with `annotations = "enforce"` have
    /// these).
    fn approved_method(&self) -> Lines {
        let output = self.output.as_deref().unwrap_or("()");
        let marker = &self.marker;
        let mut out = Lines::new(Context::ClientImpl);
        let i = out.indent;
        let docs = format!(
            "{}\n\nNeeds an approval (`annotations = \"enforce\"`: the tool may modify things, by its annotations): `approvals.approve(tools::{marker}, &input)` gives the `approved` argument, for this input only.",
            self.docs()
        );
        out.docs(i, &docs);
        out.literal(i, &["pub fn ", &self.method, "("]);
        out.literal(i + 4, &["&self,"]);
        out.literal(i + 4, &["input: ", &self.input, ","]);
        out.literal(
            i + 4,
            &["approved: ::mcpbind::Approved<tools::", marker, ">,"],
        );
        out.literal(i, &[") -> impl ::mcpbind::CallFuture<", output, "> + '_ {"]);
        let call = [
            "::mcpbind::__private::call_approved::<tools::",
            marker,
            ">(&self.inner, input, approved)",
        ];
        out.literal(i + 4, &call);
        out.literal(i, &["}"]);
        out.laid_out = false;
        out
    }

    /// The `Handler` trait method, whose default answers "not implemented".
    pub(crate) fn handler(&self) -> Lines {
        let output = self.output.as_deref().unwrap_or("()");
        let name = str_repr(&self.tool.name);
        let mut out = Lines::new(Context::HandlerTrait);
        let i = out.indent;
        out.docs(i, &self.summary_docs());
        out.signature(
            ["fn ", &self.method, "("],
            &self.input,
            ") -> impl Future<",
            &["Output = HandlerResult<", output, ">"],
            "> + Send {",
        );
        out.call(
            i + 4,
            "::mcpbind::__private::unimplemented",
            &[&name, "input"],
        );
        out.line(i, &["}"]);
        out
    }

    /// The `Server<H>` dispatch arm.
    pub(crate) fn dispatch_arm(&self) -> Lines {
        let name = str_repr(&self.tool.name);
        let (marker, method) = (&self.marker, &self.method);
        let closure = format!("|i| h.{method}(i)");
        let serve = ["serve(", marker, ", args, ", &closure, ")"];
        let mut out = Lines::new(Context::DispatchArms);
        let i = out.indent;
        let arrow = [name.as_str(), " => "];
        // The comma after an arm may pass the width.
        if out.fits(i, &[&arrow[..], &serve].concat()) {
            out.literal(i, &[&arrow[..], &serve, &[","]].concat());
        } else {
            // Too long for a line: prettyplease puts the call in a block.
            out.line(i, &[&arrow[..], &["{"]].concat());
            out.call(i + 4, "serve", &[marker, "args", &closure]);
            out.line(i, &["}"]);
        }
        out
    }
}

/// A piece of code written line by line in prettyplease's layout, and
/// whether it kept to the shapes written here: a line that may break but
/// does not fit sends the piece through prettyplease
/// ([`Context::format`]).
pub(crate) struct Lines {
    context: Context,
    indent: usize,
    text: String,
    laid_out: bool,
}

impl Lines {
    fn new(context: Context) -> Lines {
        Lines {
            context,
            indent: context.indent(),
            text: String::with_capacity(1024),
            laid_out: true,
        }
    }

    /// Whether a line of `parts` at `indent` fits the width.
    fn fits(&self, indent: usize, parts: &[&str]) -> bool {
        indent + parts.iter().map(|p| p.len()).sum::<usize>() <= MARGIN
    }

    /// A line that prettyplease would break if it did not fit.
    fn line(&mut self, indent: usize, parts: &[&str]) {
        self.laid_out &= self.fits(indent, parts);
        self.literal(indent, parts);
    }

    /// A line as long as its string literal makes it (nothing in it can
    /// break).
    fn literal(&mut self, indent: usize, parts: &[&str]) {
        self.text.extend(std::iter::repeat_n(' ', indent));
        self.text.extend(parts.iter().copied());
        self.text.push('\n');
    }

    /// Records that `head` followed by `rest` must not fit on one line
    /// (the shape written breaks it).
    fn breaks(&mut self, indent: usize, head: &[&str], rest: &[&str]) {
        self.laid_out &= !self.fits(indent, &[head, rest].concat());
    }

    /// `f(args…)`: on one line if it fits, else one argument to a line.
    fn call(&mut self, indent: usize, f: &str, args: &[&str]) {
        let joined = args.join(", ");
        if self.fits(indent, &[f, "(", &joined, ")"]) {
            return self.line(indent, &[f, "(", &joined, ")"]);
        }
        self.line(indent, &[f, "("]);
        for arg in args {
            self.line(indent + 4, &[arg, ","]);
        }
        self.line(indent, &[")"]);
    }

    /// `///` lines, as prettyplease prints `#[doc]`s of one line each.
    fn docs(&mut self, indent: usize, text: &str) {
        for line in crate::docs::doc_text(text).lines() {
            let line = format!(" {line}");
            self.literal(indent, &["///", line.trim_end_matches(' ')]);
        }
    }

    /// A signature `head&self, input: T) -> R<A> …` (`open` is `) -> R<`,
    /// `args` are `A`, `close` is `> … {`): on one line if it fits; else one
    /// parameter to a line and the return type on one line, or with its
    /// generic arguments on a line of their own.
    fn signature(&mut self, head: [&str; 3], input: &str, open: &str, args: &[&str], close: &str) {
        let i = self.indent;
        let params = ["&self, input: ", input];
        let one_line = [&head[..], &params, &[open], args, &[close]].concat();
        if self.fits(i, &one_line) {
            return self.line(i, &one_line);
        }
        self.line(i, &head);
        self.line(i + 4, &["&self,"]);
        self.line(i + 4, &["input: ", input, ","]);
        let ret = [&[open], args, &[close]].concat();
        if self.fits(i, &ret) {
            self.line(i, &ret);
        } else {
            self.line(i, &[open]);
            self.line(i + 4, &[args, &[","]].concat());
            self.line(i, &[close]);
        }
    }

    /// The text, through prettyplease if it left the shapes written here.
    pub(crate) fn finish(self) -> String {
        if self.laid_out {
            return self.text;
        }
        self.context.format(&self.text).unwrap_or(self.text)
    }
}

/// Whether Markdown text starts with a line of plain text, which may follow
/// other text in the same paragraph (not a heading, list, quote, code,
/// table, HTML or rule, which would change).
fn starts_plain(text: &str) -> bool {
    let first = text.lines().next().unwrap_or_default();
    let Some(c) = first.chars().next() else {
        return false;
    };
    let list_number = first
        .split_once(['.', ')'])
        .is_some_and(|(n, rest)| n.bytes().all(|b| b.is_ascii_digit()) && rest.starts_with(' '));
    (c.is_alphanumeric() || matches!(c, '`' | '(' | '"' | '\'' | '*'))
        && !first.starts_with("* ")
        && !first.starts_with("```")
        && !list_number
}

/// The byte range of `text` inside its quotes in the canonical `definition`,
/// at the first of `paths` (keys of nested objects) that holds a string, if
/// the JSON there is `text` itself (no escapes).
fn text_span(definition: &str, text: Option<&str>, paths: &[&[&str]]) -> Option<(usize, usize)> {
    let text = text?;
    paths.iter().find_map(|path| {
        let (mut start, mut end) = (0, definition.len());
        for key in *path {
            let (s, e) = top_level_range(&definition[start..end], key)?;
            (start, end) = (start + s, start + e);
        }
        let quoted = &definition[start..end];
        let inner = quoted.strip_prefix('"')?.strip_suffix('"')?;
        (inner == text).then_some((start + 1, end - 1))
    })
}

/// The byte range of the value of top-level `key` in canonical JSON text
/// (an object with no whitespace), found by scanning, so that a `key` inside
/// a string or a nested object is never taken for it.
pub(crate) fn top_level_range(json: &str, key: &str) -> Option<(usize, usize)> {
    let wanted = format!("\"{key}\":");
    let bytes = json.as_bytes();
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    let mut value_start = None;
    for (i, &b) in bytes.iter().enumerate() {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => {
                // A key of the top-level object starts right after `{` or `,`.
                let after_separator = i > 0 && matches!(bytes[i - 1], b'{' | b',');
                if depth == 1 && after_separator && json[i..].starts_with(&wanted) {
                    value_start = Some(i + wanted.len());
                }
                in_string = true;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                match (value_start, depth) {
                    (Some(start), 1) if i >= start && matches!(bytes[start], b'{' | b'[') => {
                        return Some((start, i + 1));
                    }
                    // A scalar that is the last value ends at the closing `}`.
                    (Some(start), 0) if i > start => return Some((start, i)),
                    _ => {}
                }
            }
            _ => {}
        }
        if let Some(start) = value_start {
            // A scalar value ends at the next `,` or `}` of the top level.
            if depth == 1 && i > start && matches!(b, b',') && !matches!(bytes[start], b'{' | b'[')
            {
                return Some((start, i));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every piece written as text is what prettyplease makes of it, for
    /// names of every length around the width's edges: a layout depends on
    /// nothing else. Pieces the writer sends through prettyplease (a line
    /// too long for its shapes) are counted, so that the test cannot pass
    /// by sending everything there.
    #[test]
    fn pieces_are_laid_out_as_prettyplease_lays_them_out() {
        let (mut laid_out, mut total) = (0, 0);
        let mut seed = 7u64;
        let mut next = |below: usize| {
            // A fixed sequence (xorshift): the same cases every run.
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % below as u64) as usize + 1
        };
        for _ in 0..300 {
            let (m, x, n) = (next(40), next(55), next(40));
            let output = (next(4) > 1).then(|| format!("types::{}", "O".repeat(next(55))));
            let text = |len: usize| "t\"é".chars().cycle().take(len).collect::<String>();
            let mut definition = serde_json::json!({
                "name": "n".repeat(n),
                "inputSchema": {"type": "object", "description": "d".repeat(next(4) * 10usize.pow(next(5) as u32))},
            });
            match next(4) {
                1 => definition["title"] = text(next(90)).into(),
                2 => definition["description"] = text(next(90)).into(),
                3 => {
                    definition["annotations"] =
                        serde_json::json!({"title": "Plain", "readOnlyHint": true})
                }
                _ => {}
            }
            let tool = LockedTool::new(definition).unwrap();
            let piece = ToolMethod {
                tool: &tool,
                method: "m".repeat(m),
                marker: "M".repeat(m + 2),
                input: format!("types::{}", "I".repeat(x)),
                output,
                approval: false,
                input_enforced: false,
            };
            for lines in [
                piece.marker(&"s".repeat(next(20))),
                piece.method(),
                piece.handler(),
                piece.dispatch_arm(),
            ] {
                total += 1;
                let formatted = lines.context.format(&lines.text).unwrap();
                if lines.laid_out {
                    laid_out += 1;
                    assert_eq!(lines.text, formatted, "{:?}", lines.context);
                }
                assert_eq!(lines.finish(), formatted);
            }
        }
        assert!(laid_out * 3 > total * 2, "{laid_out} of {total} laid out");
    }

    #[test]
    fn str_literal_is_literal_string() {
        let mut all: String = (0..0x3100).filter_map(char::from_u32).collect();
        all.push_str("\u{1F600}\u{E0001}\u{FEFF}\u{10FFFF}");
        let cases = [
            "",
            "plain",
            "q\"uote 'single' back\\slash",
            "nul\0 then\u{0}7 and \u{0}8 end\u{0}",
            "line\nbreak\r\ttab\u{7f}\u{1}",
            "e\u{301} \u{200B}\u{202E} 日本",
            &all,
        ];
        for case in cases {
            assert_eq!(
                crate::naming::str_literal(case).to_string(),
                proc_macro2::Literal::string(case).to_string(),
                "{case:?}"
            );
        }
    }

    #[test]
    fn finds_top_level_values_only() {
        let json = r#"{"a":"\"inputSchema\":1","b":{"inputSchema":{"x":1}},"inputSchema":{"type":"object","p":[1,{"q":"}"}]},"z":2}"#;
        let (s, e) = top_level_range(json, "inputSchema").unwrap();
        assert_eq!(&json[s..e], r#"{"type":"object","p":[1,{"q":"}"}]}"#);
        assert_eq!(top_level_range(json, "outputSchema"), None);
        let (s, e) = top_level_range(r#"{"a":{},"outputSchema":[]}"#, "outputSchema").unwrap();
        assert_eq!(&r#"{"a":{},"outputSchema":[]}"#[s..e], "[]");
        let json = r#"{"a":{"title":"no"},"title":"Yes"}"#;
        let (s, e) = top_level_range(json, "title").unwrap();
        assert_eq!(&json[s..e], r#""Yes""#);
        let (s, e) = top_level_range(json, "a").unwrap();
        assert_eq!(&json[s..e], r#"{"title":"no"}"#);
    }
}
