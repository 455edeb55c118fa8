//! Live snapshots: connect to configured servers and lock their tools.
//!
//! Behind the `snapshot` feature, so that a build script that only reads a
//! lockfile doesn't compile an async HTTP stack.

use mcpbind_core::{Config, ServerConfig};
use serde_json::Value;

use crate::{Lockfile, Result, ServerLock};

/// Connects to one server, lists all its tools (raw, every page), keeps those
/// that pass `enabled_tools`/`disabled_tools`, and returns the locked entry.
/// A malformed tool is left out (the others are locked) and reported as a
/// `tracing` warning; [`refresh`] returns those lines instead.
pub async fn snapshot_server(name: &str, config: &ServerConfig) -> Result<ServerLock> {
    let (lock, skipped) = snapshot(name, config).await?;
    for line in skipped {
        tracing::warn!(server = name, "skipped {line}");
    }
    Ok(lock)
}

/// [`snapshot_server`], with one line per malformed tool it skipped.
async fn snapshot(name: &str, config: &ServerConfig) -> Result<(ServerLock, Vec<String>)> {
    let client = mcpbind_core::Client::connect_server(name, config.clone()).await?;
    let info = client.server_info().await?;
    let (tools, skipped) = client.list_tools_checked().await?;
    let tools: Vec<Value> = tools
        .into_iter()
        .filter(|tool| {
            tool.get("name")
                .and_then(Value::as_str)
                .is_none_or(|n| config.allows_tool(n))
        })
        .collect();
    let server_info = info
        .server_info
        .as_ref()
        .and_then(|i| serde_json::to_value(i).ok())
        .unwrap_or_else(|| serde_json::json!({}));
    let mut lock = ServerLock::new(name, info.protocol_version.to_string(), server_info, tools)?;
    lock.enabled_tools = config.enabled_tools.clone();
    lock.disabled_tools = config.disabled_tools.clone();
    client.close().await;
    Ok((lock, skipped))
}

/// Snapshots the named servers of `config` concurrently, returning each
/// server's outcome in name order.
pub async fn snapshot_servers(
    config: &Config,
    names: &[String],
) -> Vec<(String, Result<ServerLock>)> {
    let mut tasks = tokio::task::JoinSet::new();
    for name in names {
        let Some(server) = config.servers.get(name).cloned() else {
            continue;
        };
        let name = name.clone();
        tasks.spawn(async move {
            let result = snapshot_server(&name, &server).await;
            (name, result)
        });
    }
    let mut results = Vec::new();
    while let Some(joined) = tasks.join_next().await {
        if let Ok(result) = joined {
            results.push(result);
        }
    }
    results.sort_by(|a, b| a.0.cmp(&b.0));
    results
}

/// What [`refresh`] did not lock.
#[derive(Debug, Default)]
pub struct Refreshed {
    /// The servers that failed, with their errors (their entries are kept).
    pub failures: Vec<(String, crate::Error)>,
    /// One line per malformed tool left out of a locked server:
    /// "server `s`: skipped tool #3 (`x`): ...".
    pub skipped: Vec<String>,
}

/// Re-snapshots `names` (all configured servers when empty) into `lock`,
/// dropping servers that are no longer configured when all are locked.
pub async fn refresh(config: &Config, lock: &mut Lockfile, names: &[String]) -> Refreshed {
    let all = names.is_empty();
    let names: Vec<String> = if all {
        config.servers.keys().cloned().collect()
    } else {
        names.to_vec()
    };
    if all {
        lock.servers
            .retain(|name, _| config.servers.contains_key(name));
    }
    let mut tasks = tokio::task::JoinSet::new();
    for name in names {
        let Some(server) = config.servers.get(&name).cloned() else {
            continue;
        };
        tasks.spawn(async move {
            let result = snapshot(&name, &server).await;
            (name, result)
        });
    }
    let mut results = Vec::new();
    while let Some(joined) = tasks.join_next().await {
        if let Ok(result) = joined {
            results.push(result);
        }
    }
    results.sort_by(|a, b| a.0.cmp(&b.0));
    let mut refreshed = Refreshed::default();
    for (name, result) in results {
        match result {
            Ok((server, skipped)) => {
                refreshed.skipped.extend(
                    skipped
                        .into_iter()
                        .map(|line| format!("server `{name}`: skipped {line}")),
                );
                lock.servers.insert(name, server);
            }
            Err(e) => refreshed.failures.push((name, e)),
        }
    }
    refreshed
}
