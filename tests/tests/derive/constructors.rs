//! `#[constructors(…)]`: `new` takes the named fields in the given order
//! (strings as `impl Into<String>`), the others start unset, and each of
//! them has a `with_*` setter.

use ::mcpbind::__private::{constructors, skip_serializing_none, Deserialize, Serialize};
use serde_json::json;

#[skip_serializing_none]
#[constructors(query, r#type, count)]
#[derive(Deserialize, Serialize, Clone, Debug, PartialEq)]
pub struct SearchInput {
    pub count: u64,
    pub query: String,
    pub r#type: Option<String>,
    pub after: Option<String>,
    pub limit: Option<u64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
}

#[constructors()]
#[derive(Debug, PartialEq)]
pub struct AllOptional {
    pub a: Option<i64>,
}

#[test]
fn new_takes_the_required_fields_in_order_and_leaves_the_rest_unset() {
    let input = SearchInput::new("rust", Some("code".to_owned()), 3);
    assert_eq!(
        serde_json::to_value(&input).unwrap(),
        json!({"count": 3, "query": "rust", "type": "code"})
    );
    let input = SearchInput::new(String::from("rust"), None, 3)
        .with_after("cursor")
        .with_limit(10)
        .with_tags(vec!["a".into()]);
    assert_eq!(
        serde_json::to_value(&input).unwrap(),
        json!({"count": 3, "query": "rust", "after": "cursor", "limit": 10, "tags": ["a"]})
    );
    assert_eq!(AllOptional::new().with_a(1), AllOptional { a: Some(1) });
}
