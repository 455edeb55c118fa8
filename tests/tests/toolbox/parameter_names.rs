//! Parameter names a provider refuses, and empty roots, from a real
//! listing: `tests/servers/misbehave.py` (Python's standard library only,
//! nothing installed), its tools added unlocked.

use std::sync::{Arc, Mutex};

use mcpbind::{CallError, Config, HookCall, OpenAiShape, ServerConfig, ToolHook, Toolbox};
use serde_json::{json, Value};

use crate::util;

/// `tests/servers/misbehave.py names` as server `names`, its tools added
/// from its live listing (no lockfile holds it): `login` has parameters
/// Gemini refuses (`auth-method`, a nested `retry-count`) and answers with
/// the arguments it got; `ping`'s input schema is `{}`, `noop`'s
/// `{"type": "object"}`.
async fn names_toolbox() -> Toolbox {
    let script = util::tests_dir().join("servers/misbehave.py");
    let names = ServerConfig::stdio("python3").args([script.display().to_string(), "names".into()]);
    let config = Config::new().server("names", names).unwrap();
    let client = mcpbind::Client::connect(&config, "names").await.unwrap();
    let mut tools = Toolbox::new();
    tools.add_unlocked(client).await.unwrap();
    assert!(tools.warnings().is_empty(), "{:?}", tools.warnings());
    tools
}

/// The arguments each call's hooks saw.
struct SeenArguments(Arc<Mutex<Vec<Value>>>);

impl ToolHook for SeenArguments {
    fn before(&self, call: &HookCall<'_>) {
        self.0.lock().unwrap().push(call.arguments.clone());
    }
}

/// The next event of a call of `login` on server `names`. The bus is the
/// process's: other tests' events pass by, among them those of
/// [`empty_roots_follow_one_rule_per_provider`], whose server is `names`
/// too (its `ping` and `noop`); only the test that reads this calls
/// `login`.
async fn next_login_event(events: &mut mcpbind::EventReceiver) -> Arc<mcpbind::ToolInvoked> {
    loop {
        let event = events.recv().await.unwrap();
        if (event.server.as_str(), event.tool.as_str()) == ("names", "login") {
            return event;
        }
    }
}

/// What the approval and the hooks of [`review_login`] saw: the arguments
/// of each call.
struct Seen {
    reviewed: Arc<Mutex<Vec<Value>>>,
    hooked: Arc<Mutex<Vec<Value>>>,
}

/// An approval written against the server's names (`auth-method`,
/// `retry-count`): a password login is amended to a token one, a token
/// login approved, anything else refused; and a hook. Both record the
/// arguments they saw.
fn review_login(tools: &mut Toolbox) -> Seen {
    let reviewed = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&reviewed);
    tools.with_approval(move |call: mcpbind::CallRequest| {
        log.lock().unwrap().push(call.arguments.clone());
        async move {
            match call.arguments["auth-method"].as_str() {
                // Written against the server's names, and sent as written.
                Some("password") => mcpbind::Verdict::Amend {
                    arguments: json!({"auth-method": "token", "user": call.arguments["user"],
                        "options": {"retry-count": 1}}),
                },
                Some("token") => mcpbind::Verdict::Approve,
                _ => mcpbind::Verdict::refuse("auth-method must be password or token"),
            }
        }
    });
    let hooked = Arc::new(Mutex::new(Vec::new()));
    tools.with_hook(SeenArguments(Arc::clone(&hooked)));
    Seen { reviewed, hooked }
}

/// A model on Gemini calls with the aliases its declaration gave; the
/// approval, its amend, the hooks, the events and the server all see the
/// server's names.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn approvals_amends_and_hooks_see_the_server_names_of_a_gemini_call() {
    let mut tools = names_toolbox().await;
    let gemini = tools.gemini_declarations();
    let login = gemini
        .tools
        .iter()
        .find(|d| d["name"] == "names_login")
        .unwrap();
    let parameters = &login["parameters"];
    assert!(
        parameters["properties"].get("auth-method").is_none(),
        "{login}"
    );
    assert_eq!(parameters["required"], json!(["auth_method"]), "{login}");
    let options = &parameters["properties"]["options"]["properties"];
    assert!(options.get("retry_count").is_some(), "{login}");

    let seen = review_login(&mut tools);
    let mut events = mcpbind::subscribe_events();

    let call = tools
        .call(
            "names_login",
            r#"{"auth_method": "password", "user": "ada", "options": {"retry_count": 3}}"#,
        )
        .await;
    let amended = json!({"auth-method": "token", "user": "ada", "options": {"retry-count": 1}});
    let received: Value = serde_json::from_str(&call.for_model().text).unwrap();
    assert_eq!(received, amended, "what the server got");
    assert_eq!(next_login_event(&mut events).await.arguments, amended);

    // Approved as the model wrote it: the server's names reach the server.
    let call = tools
        .call_value("names_login", json!({"auth_method": "token"}))
        .await;
    let received: Value = serde_json::from_str(&call.for_model().text).unwrap();
    assert_eq!(received, json!({"auth-method": "token"}));
    next_login_event(&mut events).await;

    // Refused: never sent; the event records the server's names too.
    let refused = tools
        .call_value("names_login", json!({"auth_method": "sso", "user": "eve"}))
        .await;
    assert!(
        matches!(refused.outcome, Err(CallError::Refused { .. })),
        "{:?}",
        refused.outcome
    );
    let event = next_login_event(&mut events).await;
    assert_eq!(
        event.arguments,
        json!({"auth-method": "sso", "user": "eve"})
    );

    assert_eq!(
        *seen.reviewed.lock().unwrap(),
        [
            json!({"auth-method": "password", "user": "ada", "options": {"retry-count": 3}}),
            json!({"auth-method": "token"}),
            json!({"auth-method": "sso", "user": "eve"}),
        ]
    );
    assert_eq!(
        *seen.hooked.lock().unwrap(),
        [amended, json!({"auth-method": "token"})],
        "hooks run around approved calls only"
    );
}

/// A tool without parameters, whether its root is `{}` or `{"type":
/// "object"}`, is declared by one rule per provider (README, "Every tool
/// for every provider"): the empty object schema for OpenAI (strict too)
/// and Anthropic, no `parameters` for Gemini; and it can be called.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn empty_roots_follow_one_rule_per_provider() {
    let tools = names_toolbox().await;
    let empty = json!({"type": "object", "properties": {}});
    let find = |tools: &[Value], name: &str| -> Value {
        tools
            .iter()
            .find(|t| t["name"] == name || t["function"]["name"] == name)
            .unwrap_or_else(|| panic!("no {name}"))
            .clone()
    };
    let chat = tools
        .openai_tools(OpenAiShape::ChatCompletions, false)
        .tools;
    let responses = tools.openai_tools(OpenAiShape::Responses, false).tools;
    let strict = tools.openai_tools(OpenAiShape::Responses, true);
    let anthropic = tools.anthropic_tools().tools;
    let gemini = tools.gemini_declarations();
    assert!(gemini.refusals.is_empty(), "{:?}", gemini.refusals);
    for name in ["names_ping", "names_noop"] {
        assert_eq!(find(&chat, name)["function"]["parameters"], empty, "{name}");
        assert_eq!(find(&responses, name)["parameters"], empty, "{name}");
        let strict_tool = find(&strict.tools, name);
        assert_eq!(strict_tool["strict"], true, "{name}");
        assert_eq!(strict_tool["parameters"]["properties"], json!({}), "{name}");
        assert_eq!(strict_tool["parameters"]["type"], "object", "{name}");
        assert_eq!(find(&anthropic, name)["input_schema"], empty, "{name}");
        let declaration = find(&gemini.tools, name);
        assert_eq!(
            declaration,
            json!({"name": name, "description": "No parameters."}),
            "{name}"
        );
        let call = tools.call(name, "").await;
        assert!(call.outcome.is_ok(), "{name}: {:?}", call.outcome);
    }
}
