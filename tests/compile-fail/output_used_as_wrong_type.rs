use mcpbind_tests::demo;

async fn _call(client: &demo::Client) -> mcpbind::Result<()> {
    let sum = client.add(demo::types::AddInput { a: 2, b: 3 }).await?;
    let _text: String = sum.output.sum;
    Ok(())
}

fn main() {}
