//! The examples of RFC 6570 itself: section 1.2 (by level) and every
//! table of section 3.2, with the variables the RFC defines for them.

use super::*;

fn rfc_values(name: &str) -> Option<UriValue> {
    let s = |v: &str| Some(UriValue::String(v.to_owned()));
    let list = |v: &[&str]| Some(UriValue::from(v));
    match name {
        "count" => list(&["one", "two", "three"]),
        "dom" => list(&["example", "com"]),
        "dub" => s("me/too"),
        "hello" => s("Hello World!"),
        "half" => s("50%"),
        "var" => s("value"),
        "who" => s("fred"),
        "base" => s("http://example.com/home/"),
        "path" => s("/foo/bar"),
        "list" => list(&["red", "green", "blue"]),
        "keys" => Some(UriValue::map(&[
            ("semi", ";"),
            ("dot", "."),
            ("comma", ","),
        ])),
        "v" => s("6"),
        "x" => s("1024"),
        "y" => s("768"),
        "empty" => s(""),
        "empty_keys" => Some(UriValue::Map(Vec::new())),
        _ => None,
    }
}

fn check(cases: &[(&str, &str)]) {
    for (template, expected) in cases {
        let parsed = UriTemplate::parse(template).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(&parsed.expand(&rfc_values), expected, "template {template}");
    }
}

/// Section 1.2, level 1: simple string expansion.
#[test]
fn level_1() {
    check(&[("{var}", "value"), ("{hello}", "Hello%20World%21")]);
}

/// Section 1.2, level 2: reserved and fragment expansion.
#[test]
fn level_2() {
    check(&[
        ("{+var}", "value"),
        ("{+hello}", "Hello%20World!"),
        ("{+path}/here", "/foo/bar/here"),
        ("here?ref={+path}", "here?ref=/foo/bar"),
        ("X{#var}", "X#value"),
        ("X{#hello}", "X#Hello%20World!"),
    ]);
}

/// Section 1.2, level 3: several variables, and the label, path,
/// path-parameter and query operators.
#[test]
fn level_3() {
    check(&[
        ("map?{x,y}", "map?1024,768"),
        ("{x,hello,y}", "1024,Hello%20World%21,768"),
        ("{+x,hello,y}", "1024,Hello%20World!,768"),
        ("{+path,x}/here", "/foo/bar,1024/here"),
        ("{#x,hello,y}", "#1024,Hello%20World!,768"),
        ("{#path,x}/here", "#/foo/bar,1024/here"),
        ("X{.var}", "X.value"),
        ("X{.x,y}", "X.1024.768"),
        ("{/var}", "/value"),
        ("{/var,x}/here", "/value/1024/here"),
        ("{;x,y}", ";x=1024;y=768"),
        ("{;x,y,empty}", ";x=1024;y=768;empty"),
        ("{?x,y}", "?x=1024&y=768"),
        ("{?x,y,empty}", "?x=1024&y=768&empty="),
        ("?fixed=yes{&x}", "?fixed=yes&x=1024"),
        ("{&x,y,empty}", "&x=1024&y=768&empty="),
    ]);
}

/// Section 1.2, level 4: prefixes, lists and associative arrays, explode.
#[test]
fn level_4() {
    check(&[
        ("{var:3}", "val"),
        ("{var:30}", "value"),
        ("{list}", "red,green,blue"),
        ("{list*}", "red,green,blue"),
        ("{keys}", "semi,%3B,dot,.,comma,%2C"),
        ("{keys*}", "semi=%3B,dot=.,comma=%2C"),
        ("{+path:6}/here", "/foo/b/here"),
        ("{+list}", "red,green,blue"),
        ("{+list*}", "red,green,blue"),
        ("{+keys}", "semi,;,dot,.,comma,,"),
        ("{+keys*}", "semi=;,dot=.,comma=,"),
        ("{#path:6}/here", "#/foo/b/here"),
        ("{#list}", "#red,green,blue"),
        ("{#list*}", "#red,green,blue"),
        ("{#keys}", "#semi,;,dot,.,comma,,"),
        ("{#keys*}", "#semi=;,dot=.,comma=,"),
        ("X{.var:3}", "X.val"),
        ("X{.list}", "X.red,green,blue"),
        ("X{.list*}", "X.red.green.blue"),
        ("X{.keys}", "X.semi,%3B,dot,.,comma,%2C"),
        ("X{.keys*}", "X.semi=%3B.dot=..comma=%2C"),
        ("{/var:1,var}", "/v/value"),
        ("{/list}", "/red,green,blue"),
        ("{/list*}", "/red/green/blue"),
        ("{/list*,path:4}", "/red/green/blue/%2Ffoo"),
        ("{/keys}", "/semi,%3B,dot,.,comma,%2C"),
        ("{/keys*}", "/semi=%3B/dot=./comma=%2C"),
        ("{;hello:5}", ";hello=Hello"),
        ("{;list}", ";list=red,green,blue"),
        ("{;list*}", ";list=red;list=green;list=blue"),
        ("{;keys}", ";keys=semi,%3B,dot,.,comma,%2C"),
        ("{;keys*}", ";semi=%3B;dot=.;comma=%2C"),
        ("{?var:3}", "?var=val"),
        ("{?list}", "?list=red,green,blue"),
        ("{?list*}", "?list=red&list=green&list=blue"),
        ("{?keys}", "?keys=semi,%3B,dot,.,comma,%2C"),
        ("{?keys*}", "?semi=%3B&dot=.&comma=%2C"),
        ("{&var:3}", "&var=val"),
        ("{&list}", "&list=red,green,blue"),
        ("{&list*}", "&list=red&list=green&list=blue"),
        ("{&keys}", "&keys=semi,%3B,dot,.,comma,%2C"),
        ("{&keys*}", "&semi=%3B&dot=.&comma=%2C"),
    ]);
}

/// Section 3.2.1: variable expansion of a list under each operator.
#[test]
fn section_3_2_1_variable_expansion() {
    check(&[
        ("{count}", "one,two,three"),
        ("{count*}", "one,two,three"),
        ("{/count}", "/one,two,three"),
        ("{/count*}", "/one/two/three"),
        ("{;count}", ";count=one,two,three"),
        ("{;count*}", ";count=one;count=two;count=three"),
        ("{?count}", "?count=one,two,three"),
        ("{?count*}", "?count=one&count=two&count=three"),
        ("{&count*}", "&count=one&count=two&count=three"),
    ]);
}

/// Sections 3.2.2 to 3.2.4: simple, reserved and fragment expansion.
#[test]
fn sections_3_2_2_to_3_2_4() {
    check(&[
        ("{var}", "value"),
        ("{hello}", "Hello%20World%21"),
        ("{half}", "50%25"),
        ("O{empty}X", "OX"),
        ("O{undef}X", "OX"),
        ("{x,y}", "1024,768"),
        ("{x,hello,y}", "1024,Hello%20World%21,768"),
        ("?{x,empty}", "?1024,"),
        ("?{x,undef}", "?1024"),
        ("?{undef,y}", "?768"),
        ("{var:3}", "val"),
        ("{var:30}", "value"),
        ("{+var}", "value"),
        ("{+hello}", "Hello%20World!"),
        ("{+half}", "50%25"),
        ("{base}index", "http%3A%2F%2Fexample.com%2Fhome%2Findex"),
        ("{+base}index", "http://example.com/home/index"),
        ("O{+empty}X", "OX"),
        ("O{+undef}X", "OX"),
        ("{+path}/here", "/foo/bar/here"),
        ("here?ref={+path}", "here?ref=/foo/bar"),
        ("up{+path}{var}/here", "up/foo/barvalue/here"),
        ("{+x,hello,y}", "1024,Hello%20World!,768"),
        ("{+path,x}/here", "/foo/bar,1024/here"),
        ("{#var}", "#value"),
        ("{#hello}", "#Hello%20World!"),
        ("{#half}", "#50%25"),
        ("foo{#empty}", "foo#"),
        ("foo{#undef}", "foo"),
        ("{#x,hello,y}", "#1024,Hello%20World!,768"),
    ]);
}

/// Sections 3.2.5 to 3.2.9: label, path, path-parameter, query and query
/// continuation expansion.
#[test]
fn sections_3_2_5_to_3_2_9() {
    check(&[
        ("{.who}", ".fred"),
        ("{.who,who}", ".fred.fred"),
        ("{.half,who}", ".50%25.fred"),
        ("www{.dom*}", "www.example.com"),
        ("X{.var}", "X.value"),
        ("X{.empty}", "X."),
        ("X{.undef}", "X"),
        ("X{.empty_keys}", "X"),
        ("X{.empty_keys*}", "X"),
        ("{/who}", "/fred"),
        ("{/who,who}", "/fred/fred"),
        ("{/half,who}", "/50%25/fred"),
        ("{/who,dub}", "/fred/me%2Ftoo"),
        ("{/var}", "/value"),
        ("{/var,empty}", "/value/"),
        ("{/var,undef}", "/value"),
        ("{;who}", ";who=fred"),
        ("{;half}", ";half=50%25"),
        ("{;empty}", ";empty"),
        ("{;v,empty,who}", ";v=6;empty;who=fred"),
        ("{;v,bar,who}", ";v=6;who=fred"),
        ("{;x,y,undef}", ";x=1024;y=768"),
        ("{?who}", "?who=fred"),
        ("{?half}", "?half=50%25"),
        ("{?x,y,undef}", "?x=1024&y=768"),
        ("{&who}", "&who=fred"),
        ("{&half}", "&half=50%25"),
    ]);
}

/// Non-ASCII values are percent-encoded as UTF-8 (section 1.6), and a
/// prefix counts characters, not bytes (section 2.4.1).
#[test]
fn unicode_is_utf8_encoded_and_prefixes_count_characters() {
    let t = UriTemplate::parse("{x}{+x}{y:2}").unwrap();
    let out = t.expand_with(&[("x", "é".into()), ("y", "日本語".into())]);
    assert_eq!(out, "%C3%A9%C3%A9%E6%97%A5%E6%9C%AC");
}

#[test]
fn variables_are_listed_once_in_order() {
    let t = UriTemplate::parse("{/a,b*}{?c,a:2}").unwrap();
    let names: Vec<&str> = t.variables().iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names, ["a", "b", "c"]);
    assert!(t.is_exploded("b"));
    assert!(!t.is_exploded("a"));
}

#[test]
fn malformed_templates_are_errors_with_the_offset() {
    let err = |t: &str| UriTemplate::parse(t).unwrap_err().to_string();
    assert_eq!(
        err("a/{b"),
        "invalid URI template `a/{b` at byte 2: the expression is not closed"
    );
    assert_eq!(
        err("a}"),
        "invalid URI template `a}` at byte 1: `}` without `{`"
    );
    assert_eq!(
        err("x{}"),
        "invalid URI template `x{}` at byte 2: the expression is empty"
    );
    assert_eq!(
        err("{=a}"),
        "invalid URI template `{=a}` at byte 1: the operator `=` is reserved for future extensions"
    );
    assert_eq!(
        err("{a,b c}"),
        "invalid URI template `{a,b c}` at byte 3: `b c` is not a variable name"
    );
    assert_eq!(
        err("{a:0}"),
        "invalid URI template `{a:0}` at byte 3: the prefix `0` is not a number from 1 to 9999"
    );
    assert_eq!(
        err("{a..b}"),
        "invalid URI template `{a..b}` at byte 1: `a..b` is not a variable name"
    );
}

#[test]
fn uris_match_the_simple_templates_they_come_from() {
    let t = UriTemplate::parse("demo://resource/dynamic/text/{resourceId}").unwrap();
    let vars = t.match_uri("demo://resource/dynamic/text/42").unwrap();
    assert_eq!(vars["resourceId"], "42");
    assert!(t.match_uri("demo://resource/dynamic/blob/42").is_none());
    assert!(t.match_uri("demo://resource/dynamic/text/a/b").is_none());

    let t = UriTemplate::parse("file:///{+path}/{name}.txt").unwrap();
    let uri = t.expand_with(&[("path", "a/b c".into()), ("name", "x y".into())]);
    assert_eq!(uri, "file:///a/b%20c/x%20y.txt");
    let vars = t.match_uri(&uri).unwrap();
    assert_eq!(
        (vars["path"].as_str(), vars["name"].as_str()),
        ("a/b c", "x y")
    );

    assert!(UriTemplate::parse("x{?a,b}")
        .unwrap()
        .match_uri("x?c=1")
        .is_none());
}

#[test]
fn form_style_variables_are_optional() {
    let t = UriTemplate::parse("demo://{+base}/items/{id}{?lang,page}{&q}{;v}").unwrap();
    let optional: Vec<(&str, bool)> = t
        .variables()
        .iter()
        .map(|v| (v.name.as_str(), t.is_optional(&v.name)))
        .collect();
    assert_eq!(
        optional,
        [
            ("base", false),
            ("id", false),
            ("lang", true),
            ("page", true),
            ("q", true),
            ("v", true)
        ]
    );
    // Used both ways: needed.
    let t = UriTemplate::parse("demo://{id}{?id}").unwrap();
    assert!(!t.is_optional("id"));
}

/// Every operator matches back what it expanded (variables without a
/// modifier), a query's variables may be absent, and what the template
/// can't have given matches nothing.
#[test]
fn uris_match_every_operator() {
    let cases: [(&str, &[(&str, &str)]); 8] = [
        ("demo://{x,y}", &[("x", "a b"), ("y", "c")]),
        (
            "demo://{+path}{#frag}",
            &[("path", "a/b"), ("frag", "top/1")],
        ),
        ("demo://host{.ext}", &[("ext", "txt")]),
        ("demo://items{/id,sub}", &[("id", "7"), ("sub", "x y")]),
        ("demo://m{;lat,long}", &[("lat", "1.5"), ("long", "-2")]),
        (
            "demo://s/{id}{?q,page}",
            &[("id", "7"), ("q", "a&b=c"), ("page", "2")],
        ),
        ("demo://s/{id}{?q,page}", &[("id", "7"), ("page", "2")]),
        ("demo://s{?q}{&lang}", &[("lang", "en")]),
    ];
    for (template, values) in cases {
        let t = UriTemplate::parse(template).unwrap();
        let with: Vec<(&str, UriValue)> = values.iter().map(|(k, v)| (*k, (*v).into())).collect();
        let uri = t.expand_with(&with);
        let found = t
            .match_uri(&uri)
            .unwrap_or_else(|| panic!("{template}: {uri} not matched"));
        let expected: BTreeMap<String, String> = values
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        assert_eq!(found, expected, "{template}: {uri}");
    }
    let t = UriTemplate::parse("demo://s/{id}{?q,page}").unwrap();
    assert_eq!(
        t.match_uri("demo://s/7").unwrap(),
        BTreeMap::from([("id".to_owned(), "7".to_owned())])
    );
    // Unknown or reordered query keys, a second path segment, an explode.
    assert!(t.match_uri("demo://s/7?other=1").is_none());
    assert!(t.match_uri("demo://s/7?page=2&q=a").is_none());
    assert!(t.match_uri("demo://s/7/8").is_none());
    assert!(UriTemplate::parse("x{/list*}")
        .unwrap()
        .match_uri("x/a/b")
        .is_none());
}
