//! Live snapshots: connect to configured servers and lock their tools.
//!
//! Behind the `snapshot` feature, so that a build script that only reads a
//! lockfile doesn't compile an async HTTP stack.

use serde_json::Value;

use mcpbind_model::config::{Config, ServerConfig};
use mcpbind_model::lock::{Lockfile, ServerLock};

use crate::Result;

/// Connects to one server, lists all its tools (raw, every page), and its
/// prompts and resource templates when it declares them, keeps those that
/// pass the config's filters, and returns the locked entry. A malformed entry
/// is left out (the others are locked) and reported as a `tracing` warning;
/// [`refresh`] returns those lines instead.
///
/// # Errors
///
/// The client's error ([`Error::Runtime`](crate::Error)) of connecting to
/// the server or listing its tools, prompts or templates, and
/// [`Error::Lock`](crate::Error) for a listing too deep to lock.
pub async fn snapshot_server(name: &str, config: &ServerConfig) -> Result<ServerLock> {
    let (lock, skipped) = snapshot(name, config, None).await?;
    for line in skipped {
        tracing::warn!(server = name, "skipped {line}");
    }
    Ok(lock)
}

/// [`snapshot_server`], with one line per malformed tool it skipped. A
/// server the lockfile records at protocol version `locked` is connected
/// the way that version says.
async fn snapshot(
    name: &str,
    config: &ServerConfig,
    locked: Option<&str>,
) -> Result<(ServerLock, Vec<String>)> {
    let client = crate::Client::connect_server_as_locked(name, config.clone(), locked).await?;
    let info = client.server_info().await?;
    let mut skipped = Vec::new();
    let tools = kept(&mut skipped, client.list_tools_checked().await?, |n| {
        config.allows_tool(n)
    });
    let prompts = kept(&mut skipped, client.list_prompts_checked().await?, |n| {
        config.allows_prompt(n)
    });
    let templates = kept(
        &mut skipped,
        client.list_resource_templates_checked().await?,
        |n| config.allows_resource_template(n),
    );
    let server_info = info
        .server_info
        .as_ref()
        .and_then(|i| serde_json::to_value(i).ok())
        .unwrap_or_else(|| serde_json::json!({}));
    let mut lock = ServerLock::new(name, info.protocol_version.to_string(), server_info, tools)?
        .with_prompts(name, prompts)?
        .with_resource_templates(name, templates)?
        .with_filters(config);
    // Completion is of prompt and template arguments: a server without
    // either keeps its entry as it was.
    lock.completions = info.capabilities.completions.is_some()
        && !(lock.prompts.is_empty() && lock.resource_templates.is_empty());
    client.close().await;
    Ok((lock, skipped))
}

/// The entries of a checked list that pass a filter. A malformed entry is
/// left out of the lock (its line added to `skipped`); the others are locked.
fn kept(
    skipped: &mut Vec<String>,
    (entries, malformed): (Vec<Value>, Vec<String>),
    allows: impl Fn(&str) -> bool,
) -> Vec<Value> {
    skipped.extend(malformed);
    entries
        .into_iter()
        .filter(|entry| {
            entry
                .get("name")
                .and_then(Value::as_str)
                .is_none_or(&allows)
        })
        .collect()
}

/// Snapshots the named servers of `config` concurrently, returning each
/// server's outcome in name order (skipped malformed entries are `tracing`
/// warnings, as in [`snapshot_server`]). A server that `lock` holds is
/// connected the way its protocol version there says (what `mcpbind
/// check` compares), one it does not hold at the newest version it
/// speaks.
pub async fn snapshot_servers(
    config: &Config,
    lock: &Lockfile,
    names: &[String],
) -> Vec<(String, Result<ServerLock>)> {
    snapshot_all(config, lock, names)
        .await
        .into_iter()
        .map(|(name, result)| {
            let result = result.map(|(lock, skipped)| {
                for line in skipped {
                    tracing::warn!(server = name.as_str(), "skipped {line}");
                }
                lock
            });
            (name, result)
        })
        .collect()
}

/// [`snapshot`] of the named servers of `config`, concurrently, in name
/// order, each as `lock` records it; names not in the config are left out.
async fn snapshot_all(
    config: &Config,
    lock: &Lockfile,
    names: &[String],
) -> Vec<(String, Result<(ServerLock, Vec<String>)>)> {
    let mut tasks = tokio::task::JoinSet::new();
    for name in names {
        let Some(server) = config.servers.get(name).cloned() else {
            continue;
        };
        let name = name.clone();
        let locked = lock.servers.get(&name).map(|s| s.protocol_version.clone());
        tasks.spawn(async move {
            let result = snapshot(&name, &server, locked.as_deref()).await;
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
    /// One line per malformed tool, prompt or template left out of a locked server:
    /// "server `s`: skipped tool #3 (`x`): ...".
    pub skipped: Vec<String>,
}

/// Re-snapshots `names` (all configured servers when empty) into `lock`,
/// dropping servers that are no longer configured when all are locked. A
/// server `lock` already holds is connected the way its protocol version
/// there says, so that its entry changes only when the server did.
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
    // Each server as the lock records it, before its entry is replaced.
    let results = snapshot_all(config, lock, &names).await;
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
