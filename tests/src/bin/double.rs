//! A test double built from the generated `Handler` traits: it serves the
//! locked tools of the demo server or of server-everything over stdio, with
//! `add` implemented and everything else answering "not implemented"; for
//! server-everything also its locked prompts and resource templates, with
//! `args-prompt` and the dynamic text template implemented.
//!
//! Usage: `double demo` or `double everything`.

use mcpbind::protocol::{
    GetPromptResult, PromptMessage, ReadResourceResult, ResourceContents, Role,
};
use mcpbind::{HandlerResult, Reply, ToolFailure, UriVariables};
use mcpbind_tests::{demo, everything};

struct Demo;

impl demo::Handler for Demo {
    async fn add(&self, input: demo::types::AddInput) -> HandlerResult<demo::types::AddOutput> {
        Ok(demo::types::AddOutput {
            sum: input.a.wrapping_add(input.b),
        }
        .into())
    }

    async fn echo(&self, input: demo::types::EchoInput) -> HandlerResult<()> {
        let times = input.repeat.unwrap_or(1).clamp(0, 100) as usize;
        Ok(Reply::text(vec![input.message.as_str(); times].join(" ")))
    }
}

struct Everything;

impl everything::Handler for Everything {
    async fn prompt_args_prompt(
        &self,
        arguments: everything::prompts::ArgsPromptArguments,
    ) -> Result<GetPromptResult, ToolFailure> {
        let place = match &arguments.state {
            Some(state) => format!("{}, {state}", arguments.city),
            None => arguments.city,
        };
        Ok(GetPromptResult::new(vec![PromptMessage::new_text(
            Role::User,
            format!("What's weather in {place}?"),
        )]))
    }

    async fn read_dynamic_text_resource(
        &self,
        uri: String,
        variables: UriVariables,
    ) -> Result<ReadResourceResult, ToolFailure> {
        let id = variables.get("resourceId").cloned().unwrap_or_default();
        Ok(ReadResourceResult::new(vec![ResourceContents::text(
            format!("Resource {id} from the double"),
            uri,
        )]))
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    match std::env::args().nth(1).as_deref() {
        Some("demo") => mcpbind::serve_stdio(demo::Server(Demo)).await,
        Some("everything") => mcpbind::serve_stdio(everything::Server(Everything)).await,
        _ => {
            eprintln!("usage: double demo|everything");
            std::process::exit(2);
        }
    }
}
