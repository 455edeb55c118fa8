//! Serving a [`ToolServer`] over stdio with rmcp.
//!
//! rmcp's `Tool` model drops fields it doesn't know (`execution`, vendor
//! extensions), so the writer below puts each locked definition back,
//! verbatim, into outgoing `tools/list` responses: a double lists byte for
//! byte what the real server listed.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite};

use crate::handler::ToolServer;

struct Adapter<S> {
    server: Arc<S>,
    tools: Vec<Tool>,
    info: Implementation,
}

impl<S: ToolServer> ServerHandler for Adapter<S> {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(self.info.clone())
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
            Some(Err(message)) => Err(ErrorData::invalid_params(message, None)),
            Some(Ok(result)) => serde_json::from_value::<CallToolResult>(result)
                .map(CallToolResponse::Complete)
                .map_err(|e| ErrorData::internal_error(e.to_string(), None)),
        }
    }
}

/// Serves `server` on the given reader and writer (stdin/stdout for a real
/// process) until the client disconnects.
pub async fn serve_io<S, R, W>(server: S, reader: R, writer: W) -> std::io::Result<()>
where
    S: ToolServer,
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let raw: Vec<Value> = server
        .tools()
        .iter()
        .filter_map(|meta| serde_json::from_str(meta.definition).ok())
        .collect();
    let tools = raw
        .iter()
        .filter_map(|d| serde_json::from_value::<Tool>(d.clone()).ok())
        .collect();
    let info = serde_json::from_str(server.server_info())
        .unwrap_or_else(|_| Implementation::new("mcpbind-double", env!("CARGO_PKG_VERSION")));
    let by_name = raw
        .into_iter()
        .filter_map(|d| Some((d.get("name")?.as_str()?.to_owned(), d)))
        .collect();
    let adapter = Adapter {
        server: Arc::new(server),
        tools,
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
pub async fn serve_stdio<S: ToolServer>(server: S) -> std::io::Result<()> {
    serve_io(server, tokio::io::stdin(), tokio::io::stdout()).await
}

/// A line writer that swaps rmcp's model of each listed tool for its locked
/// definition.
struct VerbatimTools<W> {
    inner: W,
    by_name: Arc<HashMap<String, Value>>,
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
        let Some(Value::Array(tools)) = msg.get_mut("result").and_then(|r| r.get_mut("tools"))
        else {
            return None;
        };
        for tool in tools.iter_mut() {
            if let Some(raw) = tool
                .get("name")
                .and_then(Value::as_str)
                .and_then(|n| self.by_name.get(n))
            {
                *tool = raw.clone();
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
