//! The agent toolbox: definitions for each provider checked against their
//! documented rules over the real schemas of `tests/mcpbind.lock`, and
//! dispatch against the real servers. One file per concern:
//!
//! - `definitions`: each provider's documented rules, over every locked tool;
//! - `names`: model-facing names, merging, holding back, filters, the
//!   inventory;
//! - `parameter_names`: names a provider refuses, and empty roots, from a
//!   live listing;
//! - `unlocked`: unlocked tools that change, and subscribed context;
//! - `installed`: what runs the pinned npm servers (dispatch, hooks and
//!   events, opt-ins, unlocked tools beside locked ones).

use mcpbind::{Config, ServerBuilder, ServerConfig, Toolbox, ToolboxError};
use mcpbind_tests::{demo, everything, filesystem, memory, time};
use serde_json::Value;

mod definitions;
mod installed;
mod names;
mod parameter_names;
mod unlocked;

/// A config whose servers are never started (for definitions and names).
fn offline_config() -> Config {
    offline_config_with(|_, server| server)
}

/// [`offline_config`], with what `extra` adds to each server (given its
/// name).
fn offline_config_with(extra: impl Fn(&str, ServerBuilder) -> ServerBuilder) -> Config {
    ["demo", "everything", "filesystem", "memory", "time"]
        .into_iter()
        .try_fold(Config::new(), |config, name| {
            config.server(name, extra(name, ServerConfig::stdio("never-run")))
        })
        .unwrap()
}

fn lazy(config: &Config, name: &str) -> mcpbind::Client {
    mcpbind::Client::lazy(name, config.servers[name].clone())
}

/// All five locked servers, not connected (clients connect on first call).
fn offline_toolbox(config: &Config) -> Result<Toolbox, ToolboxError> {
    let mut tools = Toolbox::new();
    tools.add(demo::Client::from_client(lazy(config, "demo")))?;
    tools.add(everything::Client::from_client(lazy(config, "everything")))?;
    tools.add(filesystem::Client::from_client(lazy(config, "filesystem")))?;
    tools.add(memory::Client::from_client(lazy(config, "memory")))?;
    tools.add(time::Client::from_client(lazy(config, "time")))?;
    Ok(tools)
}

/// The names in a list of definitions.
fn definition_names(definitions: &[Value]) -> Vec<String> {
    definitions
        .iter()
        .filter_map(|d| d["name"].as_str().or(d["function"]["name"].as_str()))
        .map(str::to_owned)
        .collect()
}
