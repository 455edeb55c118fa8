use mcpbind_tests::demo;

async fn _call(client: &demo::Client) {
    let _ = client.add(demo::types::AddInput { a: 1, bb: 2 }).await;
}

fn main() {}
