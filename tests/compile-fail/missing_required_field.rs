use mcpbind_tests::demo;

async fn _call(client: &demo::Client) {
    let _ = client
        .create_order(demo::types::CreateOrderInput {
            customer: demo::types::Customer { name: "Ada".into(), email: None },
            note: None,
        })
        .await;
}

fn main() {}
