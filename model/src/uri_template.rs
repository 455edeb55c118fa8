//! RFC 6570 URI templates: parsing and expansion, all four levels.
//!
//! MCP resource templates (`resources/templates/list`) are RFC 6570
//! templates. The generated `resources` module calls [`UriTemplate::expand`]
//! with the caller's values, so the URI read is exactly the one the RFC's
//! algorithm (section 3) gives: every operator (`{var}`, `{+var}`,
//! `{#var}`, `{.var}`, `{/var}`, `{;var}`, `{?a,b}`, `{&c}`), prefix
//! modifiers (`{var:3}`) and explode (`{list*}`), with lists and
//! associative arrays.
//!
//! Written here rather than taken from a crate: the crates that do this
//! (`uritemplate-next`, `iri-string`'s templates) would add a dependency to
//! every program that depends on `mcpbind` for some 300 lines, and the
//! lockfile reader needs only the parser (to list a template's variables),
//! with errors that name the template and the byte offset.

use std::collections::BTreeMap;
use std::fmt::Write as _;

/// A value for a template variable (RFC 6570 section 2.3): a string, a
/// list, an associative array, or undefined (the variable is left out).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum UriValue {
    /// Undefined: expressions skip the variable.
    #[default]
    Undefined,
    /// A string value.
    String(String),
    /// A list of values (an empty list is undefined).
    List(Vec<String>),
    /// An associative array, in order (an empty one is undefined).
    Map(Vec<(String, String)>),
}

impl UriValue {
    /// An associative array of these pairs, in order.
    pub fn map<K: AsRef<str>, V: AsRef<str>>(pairs: &[(K, V)]) -> UriValue {
        UriValue::Map(
            pairs
                .iter()
                .map(|(k, v)| (k.as_ref().to_owned(), v.as_ref().to_owned()))
                .collect(),
        )
    }

    fn is_defined(&self) -> bool {
        match self {
            UriValue::Undefined => false,
            UriValue::String(_) => true,
            UriValue::List(items) => !items.is_empty(),
            UriValue::Map(pairs) => !pairs.is_empty(),
        }
    }
}

impl From<&str> for UriValue {
    fn from(s: &str) -> Self {
        UriValue::String(s.to_owned())
    }
}

impl From<String> for UriValue {
    fn from(s: String) -> Self {
        UriValue::String(s)
    }
}

impl From<&String> for UriValue {
    fn from(s: &String) -> Self {
        UriValue::String(s.clone())
    }
}

impl<T: Into<UriValue>> From<Option<T>> for UriValue {
    fn from(value: Option<T>) -> Self {
        value.map_or(UriValue::Undefined, Into::into)
    }
}

impl<S: AsRef<str>> From<Vec<S>> for UriValue {
    fn from(items: Vec<S>) -> Self {
        UriValue::List(items.iter().map(|s| s.as_ref().to_owned()).collect())
    }
}

impl<S: AsRef<str>> From<&[S]> for UriValue {
    fn from(items: &[S]) -> Self {
        UriValue::List(items.iter().map(|s| s.as_ref().to_owned()).collect())
    }
}

impl<S: AsRef<str>, const N: usize> From<[S; N]> for UriValue {
    fn from(items: [S; N]) -> Self {
        UriValue::List(items.iter().map(|s| s.as_ref().to_owned()).collect())
    }
}

impl<K: AsRef<str>, V: AsRef<str>> From<BTreeMap<K, V>> for UriValue {
    fn from(map: BTreeMap<K, V>) -> Self {
        UriValue::Map(
            map.iter()
                .map(|(k, v)| (k.as_ref().to_owned(), v.as_ref().to_owned()))
                .collect(),
        )
    }
}

/// A template that is not RFC 6570, with where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid URI template `{template}` at byte {offset}: {reason}")]
pub struct UriTemplateError {
    /// The template.
    pub template: String,
    /// The byte offset of the problem.
    pub offset: usize,
    /// What is wrong.
    pub reason: String,
}

/// One variable of an expression: its name and modifier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VarSpec {
    /// The variable's name as written (`%XX` escapes kept).
    pub name: String,
    /// `{var:N}`: at most N characters of a string value.
    pub prefix: Option<usize>,
    /// `{var*}`: lists and associative arrays are exploded.
    pub explode: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    Expression {
        operator: Operator,
        vars: Vec<VarSpec>,
    },
}

/// The operators of RFC 6570 section 3.2.1 (Table in Appendix A).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Operator {
    Simple,
    Reserved,
    Fragment,
    Label,
    Path,
    PathParam,
    Query,
    QueryCont,
}

impl Operator {
    fn from_char(c: char) -> Option<Operator> {
        Some(match c {
            '+' => Operator::Reserved,
            '#' => Operator::Fragment,
            '.' => Operator::Label,
            '/' => Operator::Path,
            ';' => Operator::PathParam,
            '?' => Operator::Query,
            '&' => Operator::QueryCont,
            _ => return None,
        })
    }

    /// `first`, `sep`, `named`, `ifemp`, `allow` (reserved or not).
    fn spec(self) -> (&'static str, &'static str, bool, &'static str, bool) {
        match self {
            Operator::Simple => ("", ",", false, "", false),
            Operator::Reserved => ("", ",", false, "", true),
            Operator::Fragment => ("#", ",", false, "", true),
            Operator::Label => (".", ".", false, "", false),
            Operator::Path => ("/", "/", false, "", false),
            Operator::PathParam => (";", ";", true, "", false),
            Operator::Query => ("?", "&", true, "=", false),
            Operator::QueryCont => ("&", "&", true, "=", false),
        }
    }
}

/// A parsed RFC 6570 URI template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UriTemplate {
    template: String,
    parts: Vec<Part>,
}

impl UriTemplate {
    /// Parses a template.
    ///
    /// # Errors
    ///
    /// An unclosed or empty expression, a reserved operator (`=`, `,`, `!`,
    /// `@`, `|`), a bad variable name or prefix, or a character a template
    /// may not hold, with its byte offset.
    pub fn parse(template: &str) -> Result<UriTemplate, UriTemplateError> {
        let error = |offset: usize, reason: String| UriTemplateError {
            template: template.to_owned(),
            offset,
            reason,
        };
        let mut parts = Vec::new();
        let mut literal = String::new();
        let mut rest = template.char_indices().peekable();
        while let Some((at, c)) = rest.next() {
            match c {
                '{' => {
                    let close = template[at..]
                        .find('}')
                        .map(|i| at + i)
                        .ok_or_else(|| error(at, "the expression is not closed".into()))?;
                    if !literal.is_empty() {
                        parts.push(Part::Literal(std::mem::take(&mut literal)));
                    }
                    parts.push(parse_expression(&template[at + 1..close], at + 1, &error)?);
                    while rest.peek().is_some_and(|(i, _)| *i <= close) {
                        rest.next();
                    }
                }
                '}' => return Err(error(at, "`}` without `{`".into())),
                c if c.is_control() || c == ' ' || c == '"' || c == '\'' => {
                    return Err(error(at, format!("{c:?} may not appear in a template")))
                }
                c => literal.push(c),
            }
        }
        if !literal.is_empty() {
            parts.push(Part::Literal(literal));
        }
        Ok(UriTemplate {
            template: template.to_owned(),
            parts,
        })
    }

    /// The template as written.
    pub fn as_str(&self) -> &str {
        &self.template
    }

    /// Each variable once, in the order of first use, with its first
    /// modifier.
    pub fn variables(&self) -> Vec<&VarSpec> {
        let mut seen = Vec::<&VarSpec>::new();
        for part in &self.parts {
            if let Part::Expression { vars, .. } = part {
                for var in vars {
                    if !seen.iter().any(|v| v.name == var.name) {
                        seen.push(var);
                    }
                }
            }
        }
        seen
    }

    /// Whether some use of `name` is exploded (`{name*}`): it then takes a
    /// list or an associative array.
    pub fn is_exploded(&self, name: &str) -> bool {
        self.parts.iter().any(|p| match p {
            Part::Expression { vars, .. } => vars.iter().any(|v| v.name == name && v.explode),
            Part::Literal(_) => false,
        })
    }

    /// Whether `name` may be left undefined: every use of it is form-style
    /// (`{?name}`, `{&name}`, `{;name}`), where an undefined variable drops
    /// its whole `name=value` pair. A variable of a path-like expression
    /// (`{name}`, `{+name}`, `{#name}`, `{.name}`, `{/name}`) is needed:
    /// without it the URI loses a segment of the template's shape.
    pub fn is_optional(&self, name: &str) -> bool {
        self.parts.iter().all(|p| match p {
            Part::Expression { operator, vars } => {
                !vars.iter().any(|v| v.name == name)
                    || matches!(
                        operator,
                        Operator::Query | Operator::QueryCont | Operator::PathParam
                    )
            }
            Part::Literal(_) => true,
        })
    }

    /// Expands the template with `values` (a variable missing from them is
    /// undefined), as RFC 6570 section 3 says.
    pub fn expand(&self, values: &dyn Fn(&str) -> Option<UriValue>) -> String {
        let mut out = String::new();
        for part in &self.parts {
            match part {
                Part::Literal(text) => encode(&mut out, text, true),
                Part::Expression { operator, vars } => {
                    expand_expression(&mut out, *operator, vars, values)
                }
            }
        }
        out
    }

    /// The variables of a URI this template expands to, for a server that
    /// reads the resource: `None` when it doesn't match.
    ///
    /// Matching inverts every operator for variables without a modifier
    /// (no `{var*}`, no `{var:3}`; a template with one matches nothing):
    /// `{var}`, `{+var}`, `{#var}`, `{.var}`, `{/var}` and `{;var}` (with
    /// `name=value`), several variables per expression (`{x,y}`), each of
    /// them present; and form-style queries (`{?a,b}`, `{&c}`) at the end
    /// of the template, where each variable may be absent but keeps the
    /// template's order. A `{var}`-like value is one that the operator could
    /// have given (unreserved characters and `%XX`), a `{+var}` or `{#var}`
    /// value anything; values are percent-decoded.
    pub fn match_uri(&self, uri: &str) -> Option<BTreeMap<String, String>> {
        let mut pieces = Vec::new();
        let mut forms = Vec::new();
        for part in &self.parts {
            match part {
                Part::Literal(text) => {
                    let mut encoded = String::new();
                    encode(&mut encoded, text, true);
                    pieces.push(Piece::Literal(encoded));
                }
                Part::Expression { vars, .. }
                    if vars.iter().any(|v| v.explode || v.prefix.is_some()) =>
                {
                    return None
                }
                Part::Expression { operator, vars }
                    if matches!(operator, Operator::Query | Operator::QueryCont) =>
                {
                    let (first, ..) = operator.spec();
                    forms.push((first, vars.iter().map(|v| v.name.as_str()).collect()));
                }
                // A path-like expression after a query: not matched.
                Part::Expression { .. } if !forms.is_empty() => return None,
                Part::Expression { operator, vars } => {
                    expression_pieces(*operator, vars, &mut pieces)
                }
            }
        }
        // Backtracking is bounded by the URI's length: a URI no server
        // would mint is not matched.
        if uri.len() > MAX_MATCHED_URI {
            return None;
        }
        let mut found = BTreeMap::new();
        match_pieces(&pieces, &forms, uri, &mut found).then_some(found)
    }

    /// [`UriTemplate::expand`] with values by name.
    pub fn expand_with(&self, values: &[(&str, UriValue)]) -> String {
        self.expand(&|name| {
            values
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.clone())
        })
    }
}

/// The longest URI [`UriTemplate::match_uri`] matches.
const MAX_MATCHED_URI: usize = 8 * 1024;

/// A template part, for matching.
enum Piece<'a> {
    Literal(String),
    /// A variable, and whether it may hold reserved characters.
    Var(&'a str, bool),
}

/// A form-style expression (`{?a,b}`, `{&c}`): its first character and
/// its variables, in order.
type Form<'a> = (&'static str, Vec<&'a str>);

/// The pieces of a path-like expression whose variables are all present:
/// the operator's first string, then each variable (`name=` first for
/// `{;name}`) separated by the operator's separator.
fn expression_pieces<'a>(operator: Operator, vars: &'a [VarSpec], pieces: &mut Vec<Piece<'a>>) {
    let (first, sep, named, _, allow) = operator.spec();
    for (i, var) in vars.iter().enumerate() {
        let mut literal = if i == 0 { first } else { sep }.to_owned();
        if named {
            encode(&mut literal, &var.name, true);
            literal.push('=');
        }
        if !literal.is_empty() {
            pieces.push(Piece::Literal(literal));
        }
        pieces.push(Piece::Var(&var.name, allow));
    }
}

/// Matches the query of a URI (what is left after the path-like pieces)
/// against the template's trailing form-style expressions: each
/// expression's pairs come after its first character (`?` or `&`), joined
/// by `&`, in the template's order; an expression whose variables are all
/// undefined is absent.
fn match_forms(forms: &[Form<'_>], mut rest: &str, found: &mut BTreeMap<String, String>) -> bool {
    // Kept apart until the whole query matched (the caller backtracks).
    let mut values = BTreeMap::new();
    for (first, vars) in forms {
        let Some(mut cursor) = rest.strip_prefix(first) else {
            continue;
        };
        let mut remaining = vars.as_slice();
        let mut consumed = false;
        loop {
            let (pair, after) = cursor.split_at(cursor.find('&').unwrap_or(cursor.len()));
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            let Some(at) = remaining.iter().position(|v| *v == key) else {
                break;
            };
            let Some(value) = value_fits(value, false)
                .then(|| percent_decode(value))
                .flatten()
            else {
                return false;
            };
            values.insert(key.to_owned(), value);
            remaining = &remaining[at + 1..];
            consumed = true;
            rest = after;
            match after.strip_prefix('&') {
                Some(next) => cursor = next,
                None => break,
            }
        }
        if !consumed {
            // The character starts a later expression (all of this one's
            // variables undefined).
            continue;
        }
    }
    if !rest.is_empty() {
        return false;
    }
    found.extend(values);
    true
}

/// Matches `uri` against `pieces`, trying each place a variable may end
/// (backtracking is bounded by the template's few parts).
fn match_pieces(
    pieces: &[Piece<'_>],
    forms: &[Form<'_>],
    uri: &str,
    found: &mut BTreeMap<String, String>,
) -> bool {
    match pieces.split_first() {
        None => match_forms(forms, uri, found),
        Some((Piece::Literal(text), rest)) => uri
            .strip_prefix(text.as_str())
            .is_some_and(|tail| match_pieces(rest, forms, tail, found)),
        Some((Piece::Var(name, reserved), rest)) => {
            // Where the variable may end: where the next literal starts (or
            // the end of the URI when it is last).
            let ends: Vec<usize> = match rest.first() {
                // Last before a query: up to the first place a query may
                // start, else to the end.
                None if !forms.is_empty() => uri
                    .match_indices(|c| forms.iter().any(|(first, _)| first.starts_with(c)))
                    .map(|(i, _)| i)
                    .chain([uri.len()])
                    .collect(),
                None => vec![uri.len()],
                Some(Piece::Literal(next)) => {
                    let mut ends: Vec<usize> =
                        uri.match_indices(next.as_str()).map(|(i, _)| i).collect();
                    ends.reverse();
                    ends
                }
                // Two variables in a row: any split (rare; the URI is short).
                Some(Piece::Var(..)) => (0..=uri.len())
                    .rev()
                    .filter(|&i| uri.is_char_boundary(i))
                    .collect(),
            };
            for end in ends {
                let value = &uri[..end];
                if !value_fits(value, *reserved) {
                    continue;
                }
                if match_pieces(rest, forms, &uri[end..], found) {
                    if let Some(decoded) = percent_decode(value) {
                        found.insert((*name).to_owned(), decoded);
                        return true;
                    }
                }
            }
            false
        }
    }
}

/// Whether `{var}` (or `{+var}` when `reserved`) could have given `value`.
fn value_fits(value: &str, reserved: bool) -> bool {
    reserved
        || value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._~%".contains(&b))
}

fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

fn parse_expression(
    body: &str,
    offset: usize,
    error: &dyn Fn(usize, String) -> UriTemplateError,
) -> Result<Part, UriTemplateError> {
    let mut chars = body.chars();
    let (operator, list, list_offset) = match chars.next() {
        None => return Err(error(offset, "the expression is empty".into())),
        Some(c @ ('=' | ',' | '!' | '@' | '|')) => {
            return Err(error(
                offset,
                format!("the operator `{c}` is reserved for future extensions"),
            ))
        }
        Some(c) => match Operator::from_char(c) {
            Some(op) => (op, &body[1..], offset + 1),
            None => (Operator::Simple, body, offset),
        },
    };
    let mut vars = Vec::new();
    let mut at = list_offset;
    for spec in list.split(',') {
        vars.push(parse_varspec(spec, at, error)?);
        at += spec.len() + 1;
    }
    Ok(Part::Expression { operator, vars })
}

fn parse_varspec(
    spec: &str,
    offset: usize,
    error: &dyn Fn(usize, String) -> UriTemplateError,
) -> Result<VarSpec, UriTemplateError> {
    let (name, explode, prefix) = if let Some(name) = spec.strip_suffix('*') {
        (name, true, None)
    } else if let Some((name, digits)) = spec.split_once(':') {
        let ok = !digits.is_empty()
            && digits.len() <= 4
            && !digits.starts_with('0')
            && digits.bytes().all(|b| b.is_ascii_digit());
        if !ok {
            return Err(error(
                offset + name.len() + 1,
                format!("the prefix `{digits}` is not a number from 1 to 9999"),
            ));
        }
        (name, false, digits.parse().ok())
    } else {
        (spec, false, None)
    };
    if !valid_varname(name) {
        return Err(error(offset, format!("`{name}` is not a variable name")));
    }
    Ok(VarSpec {
        name: name.to_owned(),
        prefix,
        explode,
    })
}

/// `varname = varchar *( ["."] varchar )`, `varchar = ALPHA / DIGIT / "_" /
/// pct-encoded`.
fn valid_varname(name: &str) -> bool {
    let bytes = name.as_bytes();
    if bytes.is_empty() || bytes[0] == b'.' || bytes[bytes.len() - 1] == b'.' {
        return false;
    }
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'.' if bytes[i - 1] == b'.' => return false,
            b'%' => {
                let hex = |j: usize| bytes.get(j).is_some_and(u8::is_ascii_hexdigit);
                if !(hex(i + 1) && hex(i + 2)) {
                    return false;
                }
                i += 2;
            }
            b if b.is_ascii_alphanumeric() || b == b'_' || b == b'.' => {}
            _ => return false,
        }
        i += 1;
    }
    true
}

fn expand_expression(
    out: &mut String,
    operator: Operator,
    vars: &[VarSpec],
    values: &dyn Fn(&str) -> Option<UriValue>,
) {
    let (first, sep, ..) = operator.spec();
    let mut wrote_any = false;
    for var in vars {
        let value = values(&var.name).unwrap_or_default();
        if !value.is_defined() {
            continue;
        }
        out.push_str(if wrote_any { sep } else { first });
        wrote_any = true;
        match &value {
            UriValue::Undefined => {}
            UriValue::String(s) => expand_string(out, operator, var, s),
            UriValue::List(items) => expand_list(out, operator, var, items),
            UriValue::Map(pairs) => expand_map(out, operator, var, pairs),
        }
    }
}

/// Appends a string variable's expansion (cut to its prefix, if any).
fn expand_string(out: &mut String, operator: Operator, var: &VarSpec, s: &str) {
    let (_, _, named, ifemp, allow) = operator.spec();
    if named {
        out.push_str(&var.name);
        if s.is_empty() {
            out.push_str(ifemp);
            return;
        }
        out.push('=');
    }
    let s = match var.prefix {
        Some(n) => s.chars().take(n).collect::<String>(),
        None => s.to_owned(),
    };
    encode(out, &s, allow);
}

/// Appends a list variable's expansion: its items joined by commas, or
/// each one on its own when the variable is exploded.
fn expand_list(out: &mut String, operator: Operator, var: &VarSpec, items: &[String]) {
    let (_, sep, named, ifemp, allow) = operator.spec();
    if !var.explode {
        if named {
            out.push_str(&var.name);
            out.push('=');
        }
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            encode(out, item, allow);
        }
        return;
    }
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(sep);
        }
        if named {
            out.push_str(&var.name);
            if item.is_empty() {
                out.push_str(ifemp);
                continue;
            }
            out.push('=');
        }
        encode(out, item, allow);
    }
}

/// Appends an associative array's expansion: keys and values joined by
/// commas, or each pair as `key=value` when the variable is exploded.
fn expand_map(out: &mut String, operator: Operator, var: &VarSpec, pairs: &[(String, String)]) {
    let (_, sep, named, ifemp, allow) = operator.spec();
    if !var.explode {
        if named {
            out.push_str(&var.name);
            out.push('=');
        }
        for (i, (k, v)) in pairs.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            encode(out, k, allow);
            out.push(',');
            encode(out, v, allow);
        }
        return;
    }
    for (i, (k, v)) in pairs.iter().enumerate() {
        if i > 0 {
            out.push_str(sep);
        }
        encode(out, k, allow);
        if named && v.is_empty() {
            out.push_str(ifemp);
            continue;
        }
        out.push('=');
        encode(out, v, allow);
    }
}

/// Appends `text` percent-encoded: unreserved characters as they are, and
/// with `allow_reserved` also reserved characters and existing `%XX`
/// triplets (RFC 6570 section 3.2.1; literals use the same rule).
fn encode(out: &mut String, text: &str, allow_reserved: bool) {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let unreserved = b.is_ascii_alphanumeric() || b"-._~".contains(&b);
        let reserved = b":/?#[]@!$&'()*+,;=".contains(&b);
        let triplet = b == b'%'
            && bytes.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
            && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit);
        if unreserved || (allow_reserved && (reserved || triplet)) {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
        i += 1;
    }
}

#[cfg(test)]
mod tests;
