use mcpbind_tests::demo;

async fn _call(client: &demo::Client) {
    let _ = client.multiply(demo::types::AddInput { a: 2, b: 3 }).await;
}

fn main() {}
