//! What a double lists is its shape's: the locked tools, prompts and
//! templates of a generated `Server` (or whatever it wraps). The doubles
//! of this crate answer calls their own way and list through this macro.

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

pub(crate) use listed_by;
