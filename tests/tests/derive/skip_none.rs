//! `#[skip_serializing_none]`: unset optional fields are left out, set ones
//! and every other field are written, and a field's own
//! `skip_serializing_if` is kept.

use ::mcpbind::__private::{skip_serializing_none, Deserialize, Serialize};
use serde_json::json;

#[skip_serializing_none]
#[derive(Deserialize, Serialize, Debug, PartialEq, Default)]
#[serde(rename_all = "camelCase")]
pub struct Query {
    pub text: String,
    pub page_size: Option<u64>,
    pub after: ::std::option::Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub tags: Vec<String>,
    #[serde(skip_serializing_if = "is_zero", default)]
    pub zero_skipped: Option<u64>,
}

fn is_zero(value: &Option<u64>) -> bool {
    *value == Some(0)
}

#[test]
fn unset_options_are_left_out() {
    let unset = Query::default();
    assert_eq!(
        serde_json::to_value(&unset).unwrap(),
        json!({"text": "", "zeroSkipped": null})
    );
    let set = Query {
        text: "q".into(),
        page_size: Some(3),
        after: Some("c".into()),
        tags: vec!["t".into()],
        zero_skipped: Some(0),
    };
    let value = serde_json::to_value(&set).unwrap();
    assert_eq!(
        value,
        json!({"text": "q", "pageSize": 3, "after": "c", "tags": ["t"]})
    );
    let back: Query = serde_json::from_value(value).unwrap();
    assert_eq!(back.page_size, Some(3));
}
