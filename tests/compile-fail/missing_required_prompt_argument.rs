use mcpbind_tests::everything;

async fn _prompt(client: &everything::Client) {
    let _ = client
        .prompts()
        .args_prompt(everything::prompts::ArgsPromptArguments { state: None })
        .await;
}

fn main() {}
