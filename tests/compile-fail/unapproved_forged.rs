// An approval comes only from the approval policy: it has no public
// constructor, and is neither `Default` nor `Deserialize`.
use mcpbind_tests::enforced::demo;

async fn _call(client: &demo::Client) {
    let forged: mcpbind::Approved<demo::tools::DeleteItem> = Default::default();
    let _ = client
        .delete_item(demo::types::DeleteItemInput::new("42"), forged)
        .await;
}

fn main() {}
