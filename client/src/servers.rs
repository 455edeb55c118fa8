//! [`Servers`]: every configured server at once, as an agent host runs them.

use std::collections::BTreeMap;
use std::time::Duration;

use crate::client::{Client, Closed};
use crate::error::{Error, Result};
use mcpbind_model::config::Config;

/// A client per configured server, connected concurrently.
///
/// A server that is down does not stop the others: its connect error is
/// kept ([`Servers::errors`]) and its client stays usable (the next call
/// tries to connect again, under its circuit breaker).
#[derive(Debug)]
pub struct Servers {
    clients: BTreeMap<String, Client>,
    errors: BTreeMap<String, Error>,
}

/// Whether a server answers, from [`Servers::health`].
#[derive(Debug)]
#[non_exhaustive]
pub enum Health {
    /// It answered a `ping`.
    Up {
        /// How long the answer took.
        latency: Duration,
    },
    /// It could not be reached, or did not answer in time.
    Down {
        /// Why.
        error: Error,
    },
}

impl Health {
    /// Whether the server answered.
    pub fn is_up(&self) -> bool {
        matches!(self, Health::Up { .. })
    }
}

impl Servers {
    /// Connects to every server of `config` at the same time. Never fails as
    /// a whole: see [`Servers::errors`] for the servers that are down.
    pub async fn connect(config: &Config) -> Servers {
        let connects = config.servers.iter().map(|(name, server)| async move {
            let client = Client::lazy(name, server.clone());
            let outcome = client.live().await.map(drop);
            (name.clone(), client, outcome)
        });
        let mut servers = Servers {
            clients: BTreeMap::new(),
            errors: BTreeMap::new(),
        };
        for (name, client, outcome) in futures::future::join_all(connects).await {
            if let Err(error) = outcome {
                servers.errors.insert(name.clone(), error);
            }
            servers.clients.insert(name, client);
        }
        servers
    }

    /// The client of server `name` (also for a server that was down at
    /// connect: its calls try again).
    pub fn get(&self, name: &str) -> Option<&Client> {
        self.clients.get(name)
    }

    /// A handle on server `name`'s client, e.g. for a generated client's
    /// `from_client`.
    ///
    /// # Errors
    ///
    /// [`Error::UnknownServer`] when `name` is not one of the servers.
    pub fn client(&self, name: &str) -> Result<Client> {
        self.clients
            .get(name)
            .cloned()
            .ok_or_else(|| Error::UnknownServer {
                server: name.to_owned(),
            })
    }

    /// The servers' names, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.clients.keys().map(String::as_str)
    }

    /// The servers that could not be connected by [`Servers::connect`], with
    /// their errors.
    pub fn errors(&self) -> impl Iterator<Item = (&str, &Error)> {
        self.errors
            .iter()
            .map(|(name, error)| (name.as_str(), error))
    }

    /// Pings every server at the same time (connecting those that are not
    /// connected), each within its own timeout.
    pub async fn health(&self) -> BTreeMap<String, Health> {
        let pings = self.clients.iter().map(|(name, client)| async move {
            let health = match client.ping().await {
                Ok(latency) => Health::Up { latency },
                Err(error) => Health::Down { error },
            };
            (name.clone(), health)
        });
        futures::future::join_all(pings).await.into_iter().collect()
    }

    /// Shuts every connection down at the same time, within `deadline`
    /// ([`Client::shutdown`]).
    pub async fn shutdown(self, deadline: Duration) -> BTreeMap<String, Closed> {
        let closing = self
            .clients
            .iter()
            .map(|(name, client)| async move { (name.clone(), client.shutdown(deadline).await) });
        futures::future::join_all(closing)
            .await
            .into_iter()
            .collect()
    }
}
