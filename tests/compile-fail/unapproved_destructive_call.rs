// A tool that may modify things, bound with `annotations = "enforce"`,
// is not called without the approval of its input.
use mcpbind_tests::enforced::demo;

async fn _call(client: &demo::Client) {
    let _ = client
        .delete_item(demo::types::DeleteItemInput::new("42"))
        .await;
}

fn main() {}
