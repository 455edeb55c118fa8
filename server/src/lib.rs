#![cfg_attr(docsrs, feature(doc_cfg))]
//! Serving a [`ToolServer`] over stdio with rmcp.
//!
//! rmcp's `Tool` model drops fields it doesn't know (`execution`, vendor
//! extensions), so the writer below puts each locked definition back,
//! verbatim, into outgoing `tools/list` responses (and `prompts/list`,
//! `resources/templates/list`): a double lists byte for byte what the real
//! server listed.
#![deny(missing_docs)]

/// rmcp's protocol types a generated `Handler` answers prompts and
/// resource reads with (`mcpbind::protocol` in a build with `server` and no
/// client feature; a client feature re-exports these and more).
pub mod protocol {
    pub use rmcp::model::{
        GetPromptResult, PromptMessage, ReadResourceResult, ResourceContents, Role,
    };
}

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CompleteRequestParams, CompleteResult,
    GetPromptRequestParams, GetPromptResponse, GetPromptResult, Implementation, ListPromptsResult,
    ListResourceTemplatesResult, ListToolsResult, PaginatedRequestParams, Prompt,
    PromptsCapability, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult,
    ResourceTemplate, ResourcesCapability, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite};

use mcpbind_model::handler::{ServeError, ToolServer};

struct Adapter<S> {
    server: Arc<S>,
    tools: Vec<Tool>,
    prompts: Vec<Prompt>,
    templates: Vec<ResourceTemplate>,
    info: Implementation,
}

impl<S: ToolServer> ServerHandler for Adapter<S> {
    fn get_info(&self) -> ServerConfig {
        let mut capabilities = ServerCapabilities::builder().enable_tools().build();
        if !self.prompts.is_empty() {
            capabilities.prompts = Some(PromptsCapability::default());
        }
        if !self.templates.is_empty() {
            capabilities.resources = Some(ResourcesCapability::default());
        }
        if self.server.completions() {
            capabilities.completions = Some(Default::default());
        }
        ServerConfig::new(capabilities).with_server_info(self.info.clone())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(ListPromptsResult::with_all_items(self.prompts.clone()))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let arguments = request.arguments.unwrap_or_default();
        match self.server.get_prompt(&request.name, arguments).await {
            None => Err(ErrorData::invalid_params(
                format!("prompt `{}` not found", request.name),
                None,
            )),
            Some(Err(error)) => Err(error_data(error)),
            Some(Ok(result)) => serde_json::from_value::<GetPromptResult>(result)
                .map(GetPromptResponse::Complete)
                .map_err(|e| ErrorData::internal_error(e.to_string(), None)),
        }
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(ListResourceTemplatesResult::with_all_items(
            self.templates.clone(),
        ))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        match self.server.read_resource(&request.uri).await {
            None => Err(ErrorData::resource_not_found(
                format!("no resource template matches `{}`", request.uri),
                None,
            )),
            Some(Err(error)) => Err(error_data(error)),
            Some(Ok(result)) => serde_json::from_value::<ReadResourceResult>(result)
                .map(ReadResourceResponse::Complete)
                .map_err(|e| ErrorData::internal_error(e.to_string(), None)),
        }
    }

    async fn complete(
        &self,
        _request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        // A double offers no completions of its own.
        Ok(CompleteResult::default())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.clone()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = request.arguments.unwrap_or_default();
        match self.server.call_tool(&request.name, arguments).await {
            None => Err(ErrorData::invalid_params(
                format!("tool `{}` not found", request.name),
                None,
            )),
            Some(Err(error)) => Err(error_data(error)),
            Some(Ok(result)) => serde_json::from_value::<CallToolResult>(result)
                .map(CallToolResponse::Complete)
                .map_err(|e| ErrorData::internal_error(e.to_string(), None)),
        }
    }
}

/// The JSON-RPC error of a [`ServeError`]: arguments that don't fit are
/// the client's (invalid params), the rest the handler's (internal).
fn error_data(error: ServeError) -> ErrorData {
    match error {
        ServeError::Arguments { .. } => ErrorData::invalid_params(error.to_string(), None),
        _ => ErrorData::internal_error(error.to_string(), None),
    }
}

/// Serves `server` on the given reader and writer (stdin/stdout for a real
/// process) until the client disconnects.
///
/// # Errors
///
/// An I/O error of `reader` or `writer`, or an MCP handshake that fails.
pub async fn serve_io<S, R, W>(server: S, reader: R, writer: W) -> std::io::Result<()>
where
    S: ToolServer,
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let parse = |definition: &str| serde_json::from_str::<Value>(definition).ok();
    let raw: Vec<Value> = server
        .tools()
        .iter()
        .filter_map(|meta| parse(meta.definition))
        .collect();
    let tools = raw
        .iter()
        .filter_map(|d| serde_json::from_value::<Tool>(d.clone()).ok())
        .collect();
    let raw_prompts: Vec<Value> = server
        .prompts()
        .iter()
        .filter_map(|meta| parse(meta.definition))
        .collect();
    let prompts = raw_prompts
        .iter()
        .filter_map(|d| serde_json::from_value::<Prompt>(d.clone()).ok())
        .collect();
    let raw_templates: Vec<Value> = server
        .resource_templates()
        .iter()
        .filter_map(|meta| parse(meta.definition))
        .collect();
    let templates = raw_templates
        .iter()
        .filter_map(|d| serde_json::from_value::<ResourceTemplate>(d.clone()).ok())
        .collect();
    let info = serde_json::from_str(server.server_info())
        .unwrap_or_else(|_| Implementation::new("mcpbind-double", env!("CARGO_PKG_VERSION")));
    let by_name = |list: Vec<Value>| {
        list.into_iter()
            .filter_map(|d| Some((d.get("name")?.as_str()?.to_owned(), d)))
            .collect::<HashMap<_, _>>()
    };
    let by_name = HashMap::from([
        ("tools", by_name(raw)),
        ("prompts", by_name(raw_prompts)),
        ("resourceTemplates", by_name(raw_templates)),
    ]);
    let adapter = Adapter {
        server: Arc::new(server),
        tools,
        prompts,
        templates,
        info,
    };
    let writer = VerbatimTools {
        inner: writer,
        by_name: Arc::new(by_name),
        line: Vec::new(),
        pending: Vec::new(),
    };
    let running = adapter
        .serve((reader, writer))
        .await
        .map_err(std::io::Error::other)?;
    running.waiting().await.map_err(std::io::Error::other)?;
    Ok(())
}

/// Serves `server` over this process's stdin and stdout.
///
/// # Errors
///
/// Those of [`serve_io`] on stdin and stdout.
pub async fn serve_stdio<S: ToolServer>(server: S) -> std::io::Result<()> {
    serve_io(server, tokio::io::stdin(), tokio::io::stdout()).await
}

/// A line writer that swaps rmcp's model of each listed tool, prompt and
/// resource template for its locked definition.
struct VerbatimTools<W> {
    inner: W,
    /// The locked definitions by list key (`tools`…), then by name.
    by_name: Arc<HashMap<&'static str, HashMap<String, Value>>>,
    /// The line being written.
    line: Vec<u8>,
    /// Bytes ready for `inner`.
    pending: Vec<u8>,
}

impl<W> VerbatimTools<W> {
    /// The line (without its newline) as it should go out, newline included.
    fn rewrite(&self, line: &[u8]) -> Vec<u8> {
        let mut out = self.rewrite_tools(line).unwrap_or_else(|| line.to_vec());
        out.push(b'\n');
        out
    }

    fn rewrite_tools(&self, line: &[u8]) -> Option<Vec<u8>> {
        let Ok(Value::Object(mut msg)) = serde_json::from_slice::<Value>(line) else {
            return None;
        };
        let result = msg.get_mut("result")?;
        let (key, locked) = self
            .by_name
            .iter()
            .find(|(key, _)| result.get(**key).is_some())?;
        let Some(Value::Array(entries)) = result.get_mut(*key) else {
            return None;
        };
        for entry in entries.iter_mut() {
            if let Some(raw) = entry
                .get("name")
                .and_then(Value::as_str)
                .and_then(|n| locked.get(n))
            {
                *entry = raw.clone();
            }
        }
        serde_json::to_vec(&msg).ok()
    }

    fn flush_pending(&mut self, cx: &mut Context<'_>) -> Poll<std::io::Result<()>>
    where
        W: AsyncWrite + Unpin,
    {
        while !self.pending.is_empty() {
            match Pin::new(&mut self.inner).poll_write(cx, &self.pending) {
                Poll::Ready(Ok(0)) => {
                    return Poll::Ready(Err(std::io::ErrorKind::WriteZero.into()))
                }
                Poll::Ready(Ok(n)) => {
                    self.pending.drain(..n);
                }
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending => return Poll::Pending,
            }
        }
        Poll::Ready(Ok(()))
    }
}

impl<W: AsyncWrite + Unpin> AsyncWrite for VerbatimTools<W> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        if self.flush_pending(cx)?.is_pending() {
            return Poll::Pending;
        }
        self.line.extend_from_slice(buf);
        while let Some(end) = self.line.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = self.line.drain(..=end).collect();
            let rewritten = self.rewrite(&line[..line.len() - 1]);
            self.pending.extend_from_slice(&rewritten);
        }
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        if self.flush_pending(cx)?.is_pending() {
            return Poll::Pending;
        }
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        if self.flush_pending(cx)?.is_pending() {
            return Poll::Pending;
        }
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}
