//! What a double lists is its shape's: the locked tools, prompts and
//! templates of a generated `Server` (or whatever it wraps). The doubles
//! of this crate answer calls their own way, through one method
//! (`answer`, given an [`Asked`]), and list through this macro.

use serde_json::{Map, Value};

/// What a double was asked, with the arguments canonical (the form a
/// cassette matches on) beside the arguments as sent.
pub(crate) enum Asked<'a> {
    /// `tools/call` of `name`.
    Tool(&'a str, Value, Map<String, Value>),
    /// `prompts/get` of `name`.
    Prompt(&'a str, Value, Map<String, Value>),
    /// `resources/read` of a URI.
    Resource(&'a str),
}

/// The listing methods of a `ToolServer` impl, passed to the value at
/// `self.$($field)+` (`shape`, `0`).
macro_rules! listed_by {
    ($($field:tt)+) => {
        fn server_info(&self) -> &'static str {
            self.$($field)+.server_info()
        }
        fn tools(&self) -> &'static [mcpbind_model::ToolMeta] {
            self.$($field)+.tools()
        }
        fn prompts(&self) -> &'static [mcpbind_model::PromptMeta] {
            self.$($field)+.prompts()
        }
        fn resource_templates(&self) -> &'static [mcpbind_model::ResourceTemplateMeta] {
            self.$($field)+.resource_templates()
        }
        fn completions(&self) -> bool {
            self.$($field)+.completions()
        }
    };
}

/// The three `ToolServer` methods that answer, each passed to
/// `self.answer(Asked)` (a `BoxFuture<Option<ServeResult>>`): the one
/// dispatch of the recording and the replaying doubles.
macro_rules! answered {
    () => {
        fn call_tool<'a>(
            &'a self,
            name: &'a str,
            arguments: serde_json::Map<String, serde_json::Value>,
        ) -> mcpbind_model::handler::BoxFuture<'a, Option<mcpbind_model::handler::ServeResult>> {
            let canonical = $crate::cassette::canonical_arguments(&arguments);
            self.answer($crate::listing::Asked::Tool(name, canonical, arguments))
        }
        fn get_prompt<'a>(
            &'a self,
            name: &'a str,
            arguments: serde_json::Map<String, serde_json::Value>,
        ) -> mcpbind_model::handler::BoxFuture<'a, Option<mcpbind_model::handler::ServeResult>> {
            let canonical = $crate::cassette::canonical_arguments(&arguments);
            self.answer($crate::listing::Asked::Prompt(name, canonical, arguments))
        }
        fn read_resource<'a>(
            &'a self,
            uri: &'a str,
        ) -> mcpbind_model::handler::BoxFuture<'a, Option<mcpbind_model::handler::ServeResult>> {
            self.answer($crate::listing::Asked::Resource(uri))
        }
    };
}

pub(crate) use {answered, listed_by};
