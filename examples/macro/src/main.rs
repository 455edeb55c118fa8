//! Typed calls to the bundled demo server through bindings that the
//! `mcp_tools!` macro generates from `mcpbind.lock` at compile time.

mcpbind::mcp_tools!("mcpbind.lock");

use demo::types::{EchoInput, SearchInput, TagCountsInput};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let config = mcpbind::Config::load(concat!(env!("CARGO_MANIFEST_DIR"), "/mcpbind.toml"))?;
    let demo = demo::Client::connect(&config).await?;

    let echo = demo
        .echo(EchoInput {
            message: "typed".into(),
            repeat: Some(2),
        })
        .await?;
    println!("echo      -> {}", echo.text());

    let search = demo
        .search(SearchInput {
            query: "rust mcp".into(),
            limit: Some(5),
            after: None,
        })
        .await?;
    println!("search    -> {}", search.text());

    let counts = demo
        .tag_counts(TagCountsInput {
            counts: [("bug".to_owned(), 3), ("feature".to_owned(), 4)].into(),
            labels: None,
        })
        .await?;
    println!(
        "tag_counts -> total {} over {:?}",
        counts.output.total, counts.output.keys
    );
    Ok(())
}
