//! The typed-prompt and resource-template contract between generated code
//! and the runtime: what a generated `prompts` or `resources` module knows
//! of each locked prompt and template.

use crate::uri_template::{UriTemplate, UriValue};

/// Static facts about one locked prompt, generated from `mcpbind.lock`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct PromptMeta {
    /// The server's name in the config.
    pub server: &'static str,
    /// The prompt's name on the wire.
    pub name: &'static str,
    /// The prompt's `title`, if it has one.
    pub title: Option<&'static str>,
    /// The prompt's `description`, if it has one.
    pub description: Option<&'static str>,
    /// Its arguments, in the server's order.
    pub arguments: &'static [PromptArgumentMeta],
    /// The sha256 of the prompt's canonical definition, as locked.
    pub sha256: &'static str,
    /// The whole locked definition, as canonical JSON text.
    pub definition: &'static str,
}

impl PromptMeta {
    /// Generated code's constructor.
    #[doc(hidden)]
    pub const fn new(
        server: &'static str,
        name: &'static str,
        title: Option<&'static str>,
        description: Option<&'static str>,
        arguments: &'static [PromptArgumentMeta],
        sha256: &'static str,
        definition: &'static str,
    ) -> Self {
        PromptMeta {
            server,
            name,
            title,
            description,
            arguments,
            sha256,
            definition,
        }
    }
}

/// One argument of a locked prompt (prompt arguments are strings in MCP).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct PromptArgumentMeta {
    /// The argument's name on the wire.
    pub name: &'static str,
    /// Its `description`, if it has one.
    pub description: Option<&'static str>,
    /// Whether the prompt needs it (`required: true`).
    pub required: bool,
}

impl PromptArgumentMeta {
    /// Generated code's constructor.
    #[doc(hidden)]
    pub const fn new(
        name: &'static str,
        description: Option<&'static str>,
        required: bool,
    ) -> Self {
        PromptArgumentMeta {
            name,
            description,
            required,
        }
    }
}

/// A prompt with typed arguments. Generated code implements it for one
/// marker type per locked prompt.
pub trait Prompt {
    /// The arguments struct: required arguments are plain fields, optional
    /// ones `Option`s left off the wire when unset.
    type Arguments: serde::Serialize + Send + Sync;
    /// The locked metadata.
    const META: PromptMeta;
}

/// Static facts about one locked resource template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ResourceTemplateMeta {
    /// The server's name in the config.
    pub server: &'static str,
    /// The template's `name`.
    pub name: &'static str,
    /// Its RFC 6570 `uriTemplate`.
    pub uri_template: &'static str,
    /// Its `title`, if it has one.
    pub title: Option<&'static str>,
    /// Its `description`, if it has one.
    pub description: Option<&'static str>,
    /// Its `mimeType`, if it has one.
    pub mime_type: Option<&'static str>,
    /// The sha256 of the template's canonical definition, as locked.
    pub sha256: &'static str,
    /// The whole locked definition, as canonical JSON text.
    pub definition: &'static str,
}

impl ResourceTemplateMeta {
    /// Generated code's constructor.
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    pub const fn new(
        server: &'static str,
        name: &'static str,
        uri_template: &'static str,
        title: Option<&'static str>,
        description: Option<&'static str>,
        mime_type: Option<&'static str>,
        sha256: &'static str,
        definition: &'static str,
    ) -> Self {
        ResourceTemplateMeta {
            server,
            name,
            uri_template,
            title,
            description,
            mime_type,
            sha256,
            definition,
        }
    }

    /// The URI for these variable values, expanded as RFC 6570 says. A
    /// variable not given is undefined.
    ///
    /// # Errors
    ///
    /// The locked template is not RFC 6570 (the lockfile was edited: `mcpbind
    /// lock` only locks templates that parse).
    pub fn expand(
        &self,
        values: &[(&str, UriValue)],
    ) -> Result<String, crate::uri_template::UriTemplateError> {
        Ok(UriTemplate::parse(self.uri_template)?.expand_with(values))
    }

    /// [`ResourceTemplateMeta::expand`] for generated code, whose templates
    /// the generator parsed already (it refuses one that doesn't parse);
    /// were it to fail all the same, the template text is returned, and the
    /// server answers that no such resource exists.
    pub fn uri(&self, values: &[(&str, UriValue)]) -> String {
        self.expand(values)
            .unwrap_or_else(|_| self.uri_template.to_owned())
    }
}
