use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use rmcp::ServiceExt;
use serde::Deserialize;

#[derive(Deserialize, Debug)]
struct Sum {
    #[allow(dead_code)]
    sum: f64,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let cmd = tokio::process::Command::new("mcpbind-demo-server");
    let client = ().serve(TokioChildProcess::new(cmd)?).await?;
    let tools = client.list_tools(Default::default()).await?;
    println!("{} tools", tools.tools.len());
    let args = serde_json::json!({"a": 1, "b": 2});
    let result = client
        .call_tool(CallToolRequestParams::new("add").with_arguments(args.as_object().unwrap().clone()))
        .await?;
    if let Some(v) = result.structured_content {
        let sum: Sum = serde_json::from_value(v)?;
        println!("{sum:?}");
    }
    client.cancel().await?;
    Ok(())
}
