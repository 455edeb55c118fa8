use mcpbind_tests::demo;

async fn _call(client: &demo::Client) {
    let _ = client.add(demo::types::AddInput { a: "2", b: 40 }).await;
}

fn main() {}
