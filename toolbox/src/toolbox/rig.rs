//! The rig-core adapter (cargo feature `rig`): a toolbox's tools as rig's
//! dynamic tools (`rig_core::tool::DynamicTool`: a definition plus a
//! callback over JSON arguments), so that a rig agent calls locked, typed
//! MCP tools through the toolbox's dispatch (checks, typed call, events,
//! hooks).

use std::sync::Arc;

use rig_core::completion::message::ToolName;
use rig_core::tool::{DynamicTool, ToolExecutionError, ToolOutput};
use serde_json::Value;

use super::{CallError, Toolbox};
use crate::error::Error;

impl Toolbox {
    /// One rig dynamic tool per tool the model can call now. Each holds a
    /// clone of the toolbox (clients are shared, not reconnected).
    pub fn rig_tools(&self) -> Vec<DynamicTool> {
        let shared = Arc::new(self.clone());
        self.anthropic_tools()
            .tools
            .into_iter()
            .filter_map(|definition| {
                let name = definition.get("name")?.as_str()?.to_owned();
                let description = definition
                    .get("description")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned();
                let parameters = definition.get("input_schema")?.clone();
                let toolbox = Arc::clone(&shared);
                let tool_name = ToolName::new(name.clone()).ok()?;
                Some(DynamicTool::new(
                    tool_name,
                    description,
                    parameters,
                    move |arguments: Value| {
                        let toolbox = Arc::clone(&toolbox);
                        let name = name.clone();
                        Box::pin(async move { run(&toolbox, &name, arguments).await })
                    },
                ))
            })
            .collect()
    }
}

async fn run(
    toolbox: &Toolbox,
    name: &str,
    arguments: Value,
) -> Result<ToolOutput, ToolExecutionError> {
    let call = toolbox.call_value(name, arguments).await;
    let reply = call.for_model();
    match &call.outcome {
        Ok(_) => Ok(ToolOutput::text(reply.text)),
        Err(CallError::Arguments { .. } | CallError::MalformedJson { .. }) => {
            Err(ToolExecutionError::invalid_args(reply.text))
        }
        Err(CallError::UnknownTool { .. }) => Err(ToolExecutionError::not_found(reply.text)),
        Err(CallError::Call(Error::Timeout { .. })) => Err(ToolExecutionError::timeout(reply.text)),
        Err(_) => Err(ToolExecutionError::other(reply.text)),
    }
}
