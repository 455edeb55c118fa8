//! Prompts, resources and completions: getting a prompt (by name or typed),
//! reading a resource (by URI or through a locked template), and asking the
//! server to complete an argument. Each is one request
//! (`Client::request`); prompts and templates refused for drift are not
//! asked for.

use rmcp::model::{
    ArgumentInfo, ClientRequest, CompleteRequest, CompleteRequestParams, CompletionContext,
    CompletionInfo, GetPromptRequest, GetPromptRequestParams, GetPromptResult, ReadResourceRequest,
    ReadResourceRequestParams, ReadResourceResult, Reference, ServerResult,
};
use rmcp::ServiceError;
use serde_json::{Map, Value};

use super::Client;
use crate::error::{Error, Result};
use mcpbind_model::uri_template::UriValue;
use mcpbind_model::{Prompt, ResourceTemplateMeta};

impl Client {
    /// Gets a prompt (`prompts/get`) with string arguments by name.
    ///
    /// # Errors
    ///
    /// Those of connecting, and a failed request: [`Error::Closed`] when the
    /// connection is lost, [`Error::Timeout`] or [`Error::TimeLimit`] when the
    /// server does not answer in time, [`Error::Service`] for an error the
    /// server answers with.
    pub async fn get_prompt_raw(
        &self,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Result<GetPromptResult> {
        self.refuse_drifted_in(crate::notices::ListKind::Prompts, name)?;
        let method = format!("prompts/get {name}");
        #[cfg(feature = "record-tap")]
        let sent = arguments.clone();
        let params = GetPromptRequestParams::new(name).with_arguments(arguments);
        let request = ClientRequest::GetPromptRequest(GetPromptRequest::new(params));
        let result = match self.request(request, &method).await {
            Ok(ServerResult::GetPromptResult(result)) => Ok(result),
            Ok(_) => Err(self.service_error(&method, ServiceError::UnexpectedResponse)),
            Err(e) => Err(e),
        };
        #[cfg(feature = "record-tap")]
        let _ =
            crate::internal::tap(self, crate::internal::Heard::Prompt(name, sent, &result)).await;
        result
    }

    /// Gets a typed prompt: its arguments struct becomes the string
    /// arguments of `prompts/get`, and the result is the prompt's messages.
    ///
    /// # Errors
    ///
    /// Those of [`Client::get_prompt_raw`], and [`Error::Arguments`] when the
    /// arguments do not serialise.
    pub async fn get_prompt<P: Prompt>(&self, arguments: &P::Arguments) -> Result<GetPromptResult> {
        let name = P::META.name;
        let arguments = match serde_json::to_value(arguments) {
            Ok(Value::Object(map)) => map,
            Ok(Value::Null) => Map::new(),
            Ok(other) => {
                return Err(Error::Arguments {
                    server: self.name.clone(),
                    tool: name.to_owned(),
                    reason: format!("prompt arguments must be a JSON object, got {other}"),
                    violations: Vec::new(),
                })
            }
            Err(e) => {
                return Err(Error::Arguments {
                    server: self.name.clone(),
                    tool: name.to_owned(),
                    reason: e.to_string(),
                    violations: Vec::new(),
                })
            }
        };
        self.get_prompt_raw(name, arguments).await
    }

    /// Reads a resource (`resources/read`): its text and blob contents.
    ///
    /// # Errors
    ///
    /// Those of connecting, and a failed request: [`Error::Closed`] when the
    /// connection is lost, [`Error::Timeout`] or [`Error::TimeLimit`] when the
    /// server does not answer in time, [`Error::Service`] for an error the
    /// server answers with.
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult> {
        let method = "resources/read";
        let params = ReadResourceRequestParams::new(uri);
        let request = ClientRequest::ReadResourceRequest(ReadResourceRequest::new(params));
        let result = match self.request(request, method).await {
            Ok(ServerResult::ReadResourceResult(result)) => Ok(result),
            Ok(_) => Err(self.service_error(method, ServiceError::UnexpectedResponse)),
            Err(e) => Err(e),
        };
        #[cfg(feature = "record-tap")]
        let _ = crate::internal::tap(self, crate::internal::Heard::Resource(uri, &result)).await;
        result
    }

    /// Expands a locked resource template with these variable values (RFC
    /// 6570) and reads the resource at the URI it gives.
    ///
    /// # Errors
    ///
    /// [`Error::Arguments`] when the variables do not fit the template, then
    /// those of [`Client::read_resource`].
    pub async fn read_template(
        &self,
        template: &ResourceTemplateMeta,
        values: &[(&str, UriValue)],
    ) -> Result<ReadResourceResult> {
        self.refuse_drifted_in(crate::notices::ListKind::Resources, template.name)?;
        let uri = template.expand(values).map_err(|e| Error::Invalid {
            server: self.name.clone(),
            method: "resources/read".to_owned(),
            reason: e.to_string(),
        })?;
        self.read_resource(&uri).await
    }

    /// Asks the server to complete an argument (`completion/complete`) of a
    /// prompt ([`Reference::for_prompt`]) or resource template
    /// ([`Reference::for_resource`]), given what was typed so far and the
    /// arguments already chosen.
    ///
    /// # Errors
    ///
    /// Those of connecting, and a failed request: [`Error::Closed`] when the
    /// connection is lost, [`Error::Timeout`] or [`Error::TimeLimit`] when the
    /// server does not answer in time, [`Error::Service`] for an error the
    /// server answers with.
    pub async fn complete(
        &self,
        reference: Reference,
        argument: &str,
        value: &str,
        context: &[(&str, &str)],
    ) -> Result<CompletionInfo> {
        let method = "completion/complete";
        let mut params = CompleteRequestParams::new(reference, ArgumentInfo::new(argument, value));
        if !context.is_empty() {
            let arguments = context
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect();
            params = params.with_context(CompletionContext::with_arguments(arguments));
        }
        let request = ClientRequest::CompleteRequest(CompleteRequest::new(params));
        match self.request(request, method).await? {
            ServerResult::CompleteResult(result) => Ok(result.completion),
            _ => Err(self.service_error(method, ServiceError::UnexpectedResponse)),
        }
    }
}
