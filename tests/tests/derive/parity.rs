//! mcpbind's lean `Deserialize` against serde_derive's, side by side: each
//! shape is declared twice (`lean::X` with this derive, `serde_derived::X`
//! with serde's), and every input gives the same value, or an error in both
//! with the same message (missing, unknown and invalid fields, unknown
//! variants).

use serde_json::{json, Value};

macro_rules! twins {
    ($($item:item)*) => {
        mod lean {
            #![allow(dead_code)]
            #[allow(unused_imports)]
            use ::mcpbind::__private::{serde, Deserialize, Serialize};
            $($item)*
        }
        mod serde_derived {
            #![allow(dead_code)]
            #[allow(unused_imports)]
            use ::mcpbind::__private::serde::{self, Deserialize, Serialize};
            $($item)*
        }
    };
}

twins! {
    #[derive(Deserialize, Serialize, Debug, PartialEq)]
    #[serde(crate = "::mcpbind::__private::serde")]
    pub struct Plain {
        pub name: String,
        #[serde(rename = "maxResults", skip_serializing_if = "Option::is_none")]
        pub max_results: Option<u64>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        pub tags: Vec<String>,
        #[serde(default = "seven")]
        pub seven: i64,
        #[serde(deserialize_with = "Option::deserialize")]
        pub nullable_but_required: Option<String>,
        pub r#type: Option<Kind>,
        pub nested: Option<Box<Plain>>,
        pub any: Option<serde_json::Value>,
    }

    pub fn seven() -> i64 {
        7
    }

    #[derive(Deserialize, Serialize, Debug, PartialEq)]
    #[serde(crate = "::mcpbind::__private::serde", deny_unknown_fields)]
    pub struct Strict {
        pub a: i64,
        #[serde(rename = "b-b")]
        pub b: Option<bool>,
    }

    #[derive(Deserialize, Serialize, Debug, PartialEq)]
    #[serde(crate = "::mcpbind::__private::serde")]
    pub struct Open {
        pub a: i64,
        #[serde(flatten)]
        pub extra: serde_json::Map<String, serde_json::Value>,
    }

    #[derive(Deserialize, Serialize, Debug, PartialEq, Clone, Copy)]
    #[serde(crate = "::mcpbind::__private::serde")]
    pub enum Kind {
        #[serde(rename = "file")]
        File,
        #[serde(rename = "dir")]
        Dir,
        Link,
    }

    #[derive(Deserialize, Serialize, Debug, PartialEq, Default)]
    #[serde(crate = "::mcpbind::__private::serde")]
    pub struct Empty {}

    // A struct and an enum under each of serde's `rename_all` rules.
    macro_rules! renamed {
        ($($fields:ident, $variants:ident: $rule:literal;)*) => {$(
            #[derive(Deserialize, Serialize, Debug, PartialEq)]
            #[serde(crate = "::mcpbind::__private::serde", rename_all = $rule)]
            pub struct $fields {
                pub one: i64,
                pub two_words: Option<i64>,
                pub r#type: Option<i64>,
                pub a_b2_c: Option<i64>,
                pub trailing_: Option<i64>,
                #[serde(rename = "kept")]
                pub renamed_anyway: Option<i64>,
            }

            #[derive(Deserialize, Serialize, Debug, PartialEq, Clone, Copy)]
            #[serde(crate = "::mcpbind::__private::serde", rename_all = $rule)]
            pub enum $variants {
                One,
                TwoWords,
                ABc,
                X2x,
                #[serde(rename = "kept")]
                RenamedAnyway,
            }
        )*};
    }

    renamed! {
        Fields0, Variants0: "lowercase";
        Fields1, Variants1: "UPPERCASE";
        Fields2, Variants2: "PascalCase";
        Fields3, Variants3: "camelCase";
        Fields4, Variants4: "snake_case";
        Fields5, Variants5: "SCREAMING_SNAKE_CASE";
        Fields6, Variants6: "kebab-case";
        Fields7, Variants7: "SCREAMING-KEBAB-CASE";
    }
}

/// Both derives on `input`, from a `Value` (how results and toolbox
/// arguments arrive) and from text: the same value, or errors with the same
/// message (or, with `same_message` false, errors in both).
fn check<L, S>(input: Value, same_message: bool)
where
    L: serde::de::DeserializeOwned + serde::Serialize + std::fmt::Debug,
    S: serde::de::DeserializeOwned + serde::Serialize + std::fmt::Debug,
{
    let text = input.to_string();
    let as_json = |v: &dyn erased::Ser| v.json();
    let from_value = (
        serde_json::from_value::<L>(input.clone()).map(|v| as_json(&v)),
        serde_json::from_value::<S>(input).map(|v| as_json(&v)),
    );
    let from_text = (
        serde_json::from_str::<L>(&text).map(|v| as_json(&v)),
        serde_json::from_str::<S>(&text).map(|v| as_json(&v)),
    );
    for (lean, serde) in [from_value, from_text] {
        match (lean, serde) {
            (Ok(lean), Ok(serde)) => assert_eq!(lean, serde, "{text}"),
            (Err(lean), Err(serde)) if same_message => {
                let strip = |e: serde_json::Error| {
                    let e = e.to_string();
                    e.split(" at line ").next().unwrap_or_default().to_owned()
                };
                assert_eq!(strip(lean), strip(serde), "{text}");
            }
            (Err(_), Err(_)) => {}
            (lean, serde) => panic!("{text}: lean {lean:?}, serde {serde:?}"),
        }
    }
}

mod erased {
    pub trait Ser {
        fn json(&self) -> serde_json::Value;
    }
    /// The JSON text, as a string `Value` (so that the order of the
    /// written fields is compared too).
    impl<T: serde::Serialize> Ser for T {
        fn json(&self) -> serde_json::Value {
            serde_json::Value::String(serde_json::to_string(self).expect("serializes"))
        }
    }
}

#[test]
fn structs_read_as_serde_derive_reads_them() {
    let ok = [
        json!({"name": "a", "nullable_but_required": null}),
        json!({"name": "a", "nullable_but_required": "x", "maxResults": 3, "tags": ["t"],
               "seven": 8, "type": "dir", "unknown": {"ignored": true},
               "nested": {"name": "b", "nullable_but_required": null, "type": null}}),
        json!({"name": "a", "nullable_but_required": null, "maxResults": null, "any": null}),
        json!({"name": "a", "nullable_but_required": null, "any": [1, {"b": 2}]}),
    ];
    let missing = [
        json!({"nullable_but_required": null}),
        json!({"name": "a"}),
        json!({"name": "a", "nullable_but_required": null, "nested": {"name": "b"}}),
    ];
    let invalid = [
        json!({"name": 1, "nullable_but_required": null}),
        json!({"name": "a", "nullable_but_required": null, "maxResults": -1}),
        json!({"name": "a", "nullable_but_required": null, "type": "socket"}),
        json!({"name": "a", "nullable_but_required": 5}),
    ];
    for input in ok.into_iter().chain(missing).chain(invalid) {
        check::<lean::Plain, serde_derived::Plain>(input, true);
    }
    // Not an object: both refuse.
    for input in [json!("a"), json!(null), json!(3), json!(["a", null])] {
        check::<lean::Plain, serde_derived::Plain>(input, false);
    }
}

#[test]
fn deny_unknown_fields_and_flatten_match() {
    for input in [
        json!({"a": 1}),
        json!({"a": 1, "b-b": true}),
        json!({"a": 1, "b": true}),
        json!({"a": 1, "c": 2}),
        json!({}),
    ] {
        check::<lean::Strict, serde_derived::Strict>(input, true);
    }
    for input in [
        json!({"a": 1}),
        json!({"a": 1, "z": [1], "b": {"c": null}, "m": "x"}),
        json!({"z": 1}),
    ] {
        check::<lean::Open, serde_derived::Open>(input, true);
    }
    // The flattened map keeps the fields' order.
    let open: lean::Open = serde_json::from_str(r#"{"z": 1, "a": 1, "b": 2, "y": 3}"#).unwrap();
    assert_eq!(open.extra.keys().collect::<Vec<_>>(), ["z", "b", "y"]);
}

#[test]
fn unit_enums_and_empty_structs_match() {
    for input in [
        json!("file"),
        json!("dir"),
        json!("Link"),
        json!("File"),
        json!("link"),
        json!(""),
    ] {
        check::<lean::Kind, serde_derived::Kind>(input, true);
    }
    for input in [json!(1), json!(null)] {
        check::<lean::Kind, serde_derived::Kind>(input, false);
    }
    // serde_derive also reads a unit variant from `{"file": null}` (its
    // externally tagged form); the schema's `enum` allows only the string.
    assert!(serde_json::from_value::<lean::Kind>(json!({"file": null})).is_err());
    for input in [json!({}), json!({"x": 1})] {
        check::<lean::Empty, serde_derived::Empty>(input, true);
    }
}

/// Every `rename_all` rule names fields and variants as serde's does: each
/// type reads what it writes, and both derives agree on every name any rule
/// gives.
#[test]
fn rename_all_rules_match() {
    let names = [
        "one",
        "One",
        "ONE",
        "two_words",
        "twoWords",
        "TwoWords",
        "TWO_WORDS",
        "two-words",
        "TWO-WORDS",
        "twowords",
        "TWOWORDS",
        "type",
        "Type",
        "TYPE",
        "a_b2_c",
        "aB2C",
        "AB2C",
        "A_B2_C",
        "a-b2-c",
        "A-B2-C",
        "ab2c",
        "kept",
        "renamed_anyway",
        "a_bc",
        "abc",
        "ABc",
        "aBc",
        "A_BC",
        "a-bc",
        "A-BC",
        "x2x",
        "X2x",
        "X2X",
        "renamed-anyway",
        "RenamedAnyway",
    ];
    macro_rules! each {
        ($($fields:ident, $variants:ident;)*) => {$(
            for name in names {
                check::<lean::$variants, serde_derived::$variants>(json!(name), true);
                for other in [json!(1), json!(null)] {
                    check::<lean::$fields, serde_derived::$fields>(
                        json!({"one": 1, "ONE": 1, "One": 1, name: other}),
                        true,
                    );
                }
            }
            let all = json!({"one": 1, "ONE": 2, "One": 3});
            let mut input = all.as_object().unwrap().clone();
            for (i, name) in names.iter().enumerate() {
                input.insert((*name).into(), json!(i));
            }
            check::<lean::$fields, serde_derived::$fields>(Value::Object(input), true);
        )*};
    }
    each! {
        Fields0, Variants0; Fields1, Variants1; Fields2, Variants2; Fields3, Variants3;
        Fields4, Variants4; Fields5, Variants5; Fields6, Variants6; Fields7, Variants7;
    }
}
