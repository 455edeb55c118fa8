//! The rules for prompts and resource templates, judged by what the
//! generated code does with them.
//!
//! A prompt's arguments are its params (strings in MCP): the generated
//! arguments struct has a field per argument, `new` takes the required ones
//! in the server's order and `with_*` sets the others. So the param rules of
//! tools apply, with the same rule ids (`required-param-added`,
//! `param-made-required`…), plus one for the order of required arguments.
//!
//! A resource template's variables are the parameters of its generated URI
//! function and read method, in order of first use; its `uriTemplate` is
//! expanded by the client. So a variable added, removed (or renamed: both)
//! or moved changes every call's signature or meaning, and a template whose
//! expansion of the same values changed makes code built against the old
//! lock read URIs the server may no longer serve.

use serde_json::Value;

use super::escape;
use super::finding::{Class, Finding, Message};
use super::schema::compare_stack;
use super::shared::{classify_texts, classify_unexplained};
use mcpbind_model::internal::on_deep_stack;
use mcpbind_model::uri_template::{UriTemplate, UriValue};

/// Classifies the changes between two versions of one prompt (the
/// `prompts/list` entry). The findings' `entry` is left for the caller.
pub fn classify_prompt(old: &Value, new: &Value) -> Vec<Finding> {
    on_deep_stack(compare_stack(old, new), || classify_prompt_impl(old, new))
}

fn classify_prompt_impl(old: &Value, new: &Value) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut examined: Vec<String> = vec!["/name".into()];
    classify_texts("", old, new, &mut out, &mut examined);
    let arguments = |v: &Value| match v.get("arguments") {
        None | Some(Value::Null) => Some(Vec::new()),
        Some(Value::Array(items)) => Some(items.clone()),
        Some(_) => None,
    };
    // Arguments that aren't a list are left to the catch-all.
    if let (Some(o), Some(n)) = (arguments(old), arguments(new)) {
        examined.push("/arguments".into());
        classify_arguments(&o, &n, &mut out);
    }
    classify_unexplained(old, new, examined, &mut out);
    out
}

/// One argument of a prompt: its place in the list and its object.
struct Argument<'a> {
    index: usize,
    name: &'a str,
    value: &'a Value,
}

impl Argument<'_> {
    fn required(&self) -> bool {
        self.value.get("required").and_then(Value::as_bool) == Some(true)
    }

    fn pointer(&self) -> String {
        format!("/arguments/{}", self.index)
    }
}

/// The arguments with a string `name`, in order.
fn named(arguments: &[Value]) -> Vec<Argument<'_>> {
    arguments
        .iter()
        .enumerate()
        .filter_map(|(index, value)| {
            let name = value.get("name")?.as_str()?;
            Some(Argument { index, name, value })
        })
        .collect()
}

/// The argument rules. A removed argument is breaking like a removed tool
/// param: the generated struct loses its field (or `new` a parameter), so
/// code that set it no longer compiles, and a server that checks its
/// arguments would reject it anyway.
fn classify_arguments(old: &[Value], new: &[Value], out: &mut Vec<Finding>) {
    let (old, new) = (named(old), named(new));
    let find = |list: &[Argument<'_>], name: &str| list.iter().position(|a| a.name == name);
    for arg in &old {
        if find(&new, arg.name).is_none() {
            out.push(Finding::new(
                Class::Breaking,
                "param-removed",
                &arg.pointer(),
                Message::text("argument ").code(arg.name).then(" removed"),
                Some(arg.value),
                None,
            ));
        }
    }
    for arg in &new {
        let Some(before) = find(&old, arg.name).map(|i| &old[i]) else {
            let (class, rule, what) = match arg.required() {
                true => (
                    Class::Breaking,
                    "required-param-added",
                    "required argument ",
                ),
                false => (
                    Class::Compatible,
                    "optional-param-added",
                    "optional argument ",
                ),
            };
            out.push(Finding::new(
                class,
                rule,
                &arg.pointer(),
                Message::text(what).code(arg.name).then(" added"),
                None,
                Some(arg.value),
            ));
            continue;
        };
        classify_argument(before, arg, out);
    }
    classify_required_order(&old, &new, out);
}

/// One argument in both versions: required or not, its texts, and any
/// other key (for review).
fn classify_argument(old: &Argument<'_>, new: &Argument<'_>, out: &mut Vec<Finding>) {
    let base = new.pointer();
    if old.required() != new.required() {
        let (class, rule, word) = match new.required() {
            true => (Class::Breaking, "param-made-required", " made required"),
            false => (Class::Compatible, "param-made-optional", " made optional"),
        };
        out.push(Finding::new(
            class,
            rule,
            &format!("{base}/required"),
            Message::text("argument ").code(new.name).then(word),
            old.value.get("required"),
            new.value.get("required"),
        ));
    }
    let mut texts = Vec::new();
    classify_texts(&base, old.value, new.value, &mut texts, &mut Vec::new());
    for mut finding in texts {
        finding.message = Message::text("argument ")
            .code(new.name)
            .then(" ")
            .join(finding.message);
        out.push(finding);
    }
    let keys = |v: &Value| v.as_object().map(|m| m.keys().cloned().collect::<Vec<_>>());
    let mut others: Vec<String> = keys(old.value)
        .unwrap_or_default()
        .into_iter()
        .chain(keys(new.value).unwrap_or_default())
        .filter(|k| !["name", "required", "description", "title"].contains(&k.as_str()))
        .collect();
    others.sort();
    others.dedup();
    for key in others {
        let (o, n) = (old.value.get(&key), new.value.get(&key));
        if o != n {
            out.push(Finding::new(
                Class::Review,
                "other-changed",
                &format!("{base}/{}", escape(&key)),
                Message::text("argument ")
                    .code(new.name)
                    .then(" ")
                    .code(key.as_str())
                    .then(" changed"),
                o,
                n,
            ));
        }
    }
}

/// `new` takes the required arguments in the server's order, all strings:
/// two required arguments that swap places would silently swap the values
/// of every existing call.
fn classify_required_order(old: &[Argument<'_>], new: &[Argument<'_>], out: &mut Vec<Finding>) {
    let kept = |list: &[Argument<'_>], other: &[Argument<'_>]| -> Vec<String> {
        list.iter()
            .filter(|a| a.required() && other.iter().any(|b| b.name == a.name && b.required()))
            .map(|a| a.name.to_owned())
            .collect()
    };
    let (before, after) = (kept(old, new), kept(new, old));
    if before == after {
        return;
    }
    let list = |names: &[String]| Value::Array(names.iter().cloned().map(Value::String).collect());
    out.push(Finding::new(
        Class::Breaking,
        "required-params-reordered",
        "/arguments",
        Message::text("required arguments reordered: ")
            .code(before.join(", "))
            .then(" → ")
            .code(after.join(", "))
            .then(" (`new` takes them in this order)"),
        Some(&list(&before)),
        Some(&list(&after)),
    ));
}

/// Classifies the changes between two versions of one resource template
/// (the `resources/templates/list` entry). The findings' `entry` is left
/// for the caller.
pub fn classify_resource_template(old: &Value, new: &Value) -> Vec<Finding> {
    on_deep_stack(compare_stack(old, new), || {
        classify_resource_template_impl(old, new)
    })
}

fn classify_resource_template_impl(old: &Value, new: &Value) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut examined: Vec<String> = vec!["/name".into(), "/mimeType".into()];
    classify_texts("", old, new, &mut out, &mut examined);
    let (o, n) = (old.get("mimeType"), new.get("mimeType"));
    if o != n {
        out.push(Finding::new(
            Class::Review,
            "mime-type-changed",
            "/mimeType",
            Message::text("MIME type changed: ")
                .code(text_of(o))
                .then(" → ")
                .code(text_of(n)),
            o,
            n,
        ));
    }
    let text = |v: &Value| {
        v.get("uriTemplate")
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    if let (Some(o), Some(n)) = (text(old), text(new)) {
        examined.push("/uriTemplate".into());
        classify_uri_template(&o, &n, &mut out);
    }
    classify_unexplained(old, new, examined, &mut out);
    out
}

/// A string as it is, another value as JSON, nothing as `(none)`.
fn text_of(value: Option<&Value>) -> String {
    match value {
        None => "(none)".into(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => super::schema::short(other),
    }
}

/// A `uriTemplate` changed: breaking when a variable was added, removed
/// (renamed is both) or moved (they are the generated functions'
/// parameters, in order), or when the same values expand to another URI
/// (code built against the old lock reads URIs the server may not serve);
/// for review otherwise (the text changed, the URIs didn't).
fn classify_uri_template(old: &str, new: &str, out: &mut Vec<Finding>) {
    if old == new {
        return;
    }
    let (o, n) = (Value::String(old.to_owned()), Value::String(new.to_owned()));
    let mut push = |class: Class, rule: &'static str, message: Message| {
        out.push(Finding::new(
            class,
            rule,
            "/uriTemplate",
            message,
            Some(&o),
            Some(&n),
        ));
    };
    let (Ok(before), Ok(after)) = (UriTemplate::parse(old), UriTemplate::parse(new)) else {
        // The lock skips templates that aren't RFC 6570; an edited one is
        // for a human.
        push(
            Class::Review,
            "uri-template-changed",
            Message::text("URI template changed (not RFC 6570): ")
                .code(old)
                .then(" → ")
                .code(new),
        );
        return;
    };
    let names =
        |t: &UriTemplate| -> Vec<String> { t.variables().iter().map(|v| v.name.clone()).collect() };
    let (was, is) = (names(&before), names(&after));
    let (changes, reordered) = compare_template_variables(&was, &is);
    let breaking = !changes.is_empty();
    for (rule, message) in changes {
        push(Class::Breaking, rule, message);
    }
    let shared: Vec<String> = was.iter().filter(|v| is.contains(v)).cloned().collect();
    if !reordered && !expands_alike(&before, &after, &shared) {
        push(
            Class::Breaking,
            "template-expansion-changed",
            Message::text("URI template changed: ")
                .code(old)
                .then(" → ")
                .code(new)
                .then(" (the same values give another URI)"),
        );
    } else if !breaking {
        push(
            Class::Review,
            "uri-template-changed",
            Message::text("URI template rewritten: ")
                .code(old)
                .then(" → ")
                .code(new)
                .then(" (the same values give the same URIs)"),
        );
    }
}

/// The breaking changes between a template's variables `was` and `is`
/// (removed, added, then reordered), each as its rule and message, and
/// whether they were reordered.
fn compare_template_variables(
    was: &[String],
    is: &[String],
) -> (Vec<(&'static str, Message)>, bool) {
    let mut changes = Vec::new();
    for name in was.iter().filter(|v| !is.contains(v)) {
        changes.push((
            "template-variable-removed",
            Message::text("variable ")
                .code(name.as_str())
                .then(" removed (the URI function loses a parameter)"),
        ));
    }
    for name in is.iter().filter(|v| !was.contains(v)) {
        changes.push((
            "template-variable-added",
            Message::text("variable ")
                .code(name.as_str())
                .then(" added (the URI function gains a parameter)"),
        ));
    }
    let common = |list: &[String], other: &[String]| -> Vec<String> {
        list.iter().filter(|v| other.contains(v)).cloned().collect()
    };
    // Reordered variables expand differently too: said once.
    let reordered = common(was, is) != common(is, was);
    if reordered {
        changes.push((
            "template-variables-reordered",
            Message::text("variables reordered: ")
                .code(was.join(", "))
                .then(" → ")
                .code(is.join(", "))
                .then(" (the URI function's parameters, in this order)"),
        ));
    }
    (changes, reordered)
}

/// Whether both templates expand the `shared` variables (the others left
/// undefined) to the same URIs, for sample strings (with reserved and
/// non-ASCII characters, longer than a prefix modifier cuts), lists and
/// associative arrays: what tells operators, prefixes, explode and
/// literals apart.
fn expands_alike(old: &UriTemplate, new: &UriTemplate, shared: &[String]) -> bool {
    let samples: [fn(usize) -> UriValue; 3] = [
        |i| UriValue::String(format!("v{i}/a b?c=d&e#f,ü%2F{}", "x".repeat(40))),
        |i| UriValue::List(vec![format!("v{i}/a"), "b c".into(), "d,e".into()]),
        |i| UriValue::map(&[(format!("k{i}/a"), "b c"), ("d".into(), "e,f")]),
    ];
    samples.iter().all(|sample| {
        let values = |name: &str| shared.iter().position(|v| v == name).map(sample);
        old.expand(&values) == new.expand(&values)
    })
}
