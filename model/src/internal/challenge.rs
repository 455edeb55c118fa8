//! `WWW-Authenticate` challenges (RFC 9110 §11.6.1) read as data: each
//! challenge's scheme and its parameters (`name=token` or
//! `name="quoted string"`, escapes undone), never by searching the text, so
//! that `error_description="… scope=x"` is not a scope and `x_error=…` is
//! not an error.

/// The scopes (space-separated, as given) of a `WWW-Authenticate` value's
/// challenge that says `error="insufficient_scope"`; `None` when none does.
pub fn insufficient_scope(header: &str) -> Option<String> {
    parse(header)
        .iter()
        .find(|c| c.param("error") == Some("insufficient_scope"))
        .map(|c| c.param("scope").unwrap_or_default().to_owned())
}

/// Parameter `name` of the first challenge of a `WWW-Authenticate` value
/// that has it (read as data).
pub fn challenge_param(header: &str, name: &str) -> Option<String> {
    parse(header)
        .iter()
        .find_map(|c| c.param(name).map(str::to_owned))
}

/// One challenge: its scheme (`Bearer`, `DPoP`) and parameters in order.
#[derive(Debug, PartialEq)]
pub struct Challenge {
    pub scheme: String,
    params: Vec<(String, String)>,
}

impl Challenge {
    /// The value of parameter `name` (case-insensitive, the first one).
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

/// The challenges of a `WWW-Authenticate` value. What does not parse ends
/// the list: the challenges before it are kept.
pub fn parse(header: &str) -> Vec<Challenge> {
    let mut challenges: Vec<Challenge> = Vec::new();
    let mut rest = header;
    loop {
        rest = rest.trim_start_matches([' ', '\t', ',']);
        let end = rest.find(|c: char| !is_tchar(c)).unwrap_or(rest.len());
        if end == 0 {
            return challenges;
        }
        let (token, after) = rest.split_at(end);
        let after_ows = after.trim_start_matches([' ', '\t']);
        match after_ows.strip_prefix('=') {
            // token68 (`Basic dXNlcg==`): padding, then a comma or the end.
            Some(more)
                if more.starts_with('=')
                    || more.trim().is_empty()
                    || more.trim_start().starts_with(',') =>
            {
                rest = more.trim_start_matches('=');
            }
            Some(value) => {
                let value = value.trim_start_matches([' ', '\t']);
                let Some((value, after)) = param_value(value) else {
                    return challenges;
                };
                let Some(challenge) = challenges.last_mut() else {
                    return challenges;
                };
                challenge.params.push((token.to_owned(), value));
                rest = after;
            }
            None => {
                challenges.push(Challenge {
                    scheme: token.to_owned(),
                    params: Vec::new(),
                });
                rest = after;
            }
        }
    }
}

/// A parameter's value (a token, or a quoted string unescaped) and what
/// follows it.
fn param_value(text: &str) -> Option<(String, &str)> {
    let Some(quoted) = text.strip_prefix('"') else {
        let end = text.find(|c: char| !is_tchar(c)).unwrap_or(text.len());
        if end == 0 {
            return None;
        }
        return Some((text[..end].to_owned(), &text[end..]));
    };
    let mut value = String::new();
    let mut chars = quoted.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Some((value, &quoted[i + 1..])),
            '\\' => value.push(chars.next()?.1),
            c => value.push(c),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_parameters_as_data() {
        let header = r#"Bearer error="insufficient_scope", scope="files:read files:write", resource_metadata="https://h/.well-known/x", error_description="needs \"scope=admin\"""#;
        let challenges = parse(header);
        assert_eq!(challenges.len(), 1);
        let bearer = &challenges[0];
        assert_eq!(bearer.scheme, "Bearer");
        assert_eq!(bearer.param("ERROR"), Some("insufficient_scope"));
        assert_eq!(bearer.param("scope"), Some("files:read files:write"));
        assert_eq!(
            bearer.param("error_description"),
            Some(r#"needs "scope=admin""#)
        );
    }

    #[test]
    fn a_parameter_named_like_another_is_not_it() {
        let challenges =
            parse(r#"Bearer x_error="insufficient_scope", error_description="scope=admin""#);
        assert_eq!(challenges[0].param("error"), None);
        assert_eq!(challenges[0].param("scope"), None);
    }

    #[test]
    fn several_challenges_and_token68() {
        let challenges = parse(
            r#"Basic dXNlcjpwYXNz==, DPoP error=use_dpop_nonce, algs="ES256", Bearer realm="mcp""#,
        );
        let schemes: Vec<_> = challenges.iter().map(|c| c.scheme.as_str()).collect();
        assert_eq!(schemes, ["Basic", "DPoP", "Bearer"]);
        assert_eq!(challenges[1].param("error"), Some("use_dpop_nonce"));
        assert_eq!(challenges[1].param("algs"), Some("ES256"));
        assert_eq!(challenges[2].param("realm"), Some("mcp"));
    }

    #[test]
    fn malformed_input_keeps_what_parsed_and_never_panics() {
        assert_eq!(parse(""), []);
        assert_eq!(parse("=x"), []);
        let open = parse(r#"Bearer scope="never closed"#);
        assert_eq!(open[0].param("scope"), None);
        for text in [
            "Bearer ,,,",
            "Bearer a=",
            "\"",
            "Bearer a=\"\\",
            "é=ü",
            "Bearer scope=\u{1F600}",
        ] {
            let _ = parse(text);
        }
    }
}
