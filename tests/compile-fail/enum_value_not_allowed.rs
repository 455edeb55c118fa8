use mcpbind_tests::demo;

async fn _call(client: &demo::Client) {
    let _ = client
        .set_mode(demo::types::SetModeInput { mode: demo::types::Mode::Turbo })
        .await;
}

fn main() {}
