// The approval of one tool is not the approval of another.
use mcpbind_tests::enforced::demo;

async fn _call(client: &demo::Client, policy: &mcpbind::Approvals) -> mcpbind::Result<()> {
    let mode = demo::types::SetModeInput {
        mode: demo::types::Mode::X2x,
    };
    let ok = policy.approve(demo::tools::SetMode, &mode).await?;
    client
        .delete_item(demo::types::DeleteItemInput::new("42"), ok)
        .await?;
    Ok(())
}

fn main() {}
