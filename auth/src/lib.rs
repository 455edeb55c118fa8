#![cfg_attr(docsrs, feature(doc_cfg))]
//! OAuth for Streamable HTTP servers (the MCP authorization spec), over
//! rmcp's `auth` module: `auth = "oauth"` (the authorization-code flow with
//! PKCE, run once by [`login`]) and `auth = "client_credentials"`.
//!
//! Tokens are stored per user, outside the project: one file per server URL
//! in [`credentials_dir`], mode 0600. They never reach `mcpbind.lock`,
//! `mcpbind.toml`, generated code, errors or logs. rmcp refreshes a token
//! that is about to expire (and saves the new one) before a request, and
//! once more when the server rejects one with 401.
//!
//! With an authorization server that offers DPoP, tokens are bound to a key
//! pair stored with them (RFC 9449, `auth/dpop.rs`): token requests and requests to the
//! server carry proofs, and the token goes out as `Authorization: DPoP`.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use rmcp::transport::auth::{
    AuthError, AuthorizationManager, AuthorizationRequest, CredentialRefreshGuard, CredentialStore,
    OAuthClientConfig, OAuthState, StoredCredentials,
};
use serde::{Deserialize, Serialize};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use mcpbind_model::config::{AuthConfig, ServerConfig, TransportConfig};

mod client;
mod dpop;
mod error;
mod grant;
mod post;

use client::Manager;
pub use client::OAuthClient;
use dpop::{Dpop, DpopKey};
pub use dpop::{Nonces, DPOP as DPOP_HEADER};
pub use error::{Error, Result};

use mcpbind_model::redact;

/// What the workspace's own crates use of this crate's insides
/// (`mcpbind-client`'s Streamable HTTP transport; ARCHITECTURE.md lists each
/// crate's). Not part of the public API, and exempt from semver.
#[doc(hidden)]
pub mod internal {
    pub use crate::post::{post, Answers, Events, Post};
}

/// The seam between this crate and the client's (`mcpbind-client`, which
/// depends on this one): how a server's config values are expanded, each
/// `${VAR}`'s value (and a URL's password) remembered as a secret that no
/// error shows. The client's expander implements it, so that OAuth and
/// the connection hide the same secrets.
pub trait Expand {
    /// `value` with its `${VAR}`s expanded.
    ///
    /// # Errors
    ///
    /// [`ConfigError::MissingVar`](mcpbind_model::config::ConfigError::MissingVar)
    /// for a `${VAR}` that is not set, and
    /// [`ConfigError::MissingInput`](mcpbind_model::config::ConfigError::MissingInput)
    /// for a VS Code input without a value.
    fn expand(
        &mut self,
        value: &str,
    ) -> std::result::Result<String, mcpbind_model::config::ConfigError>;
    /// [`Expand::expand`] for a URL, whose password is a secret too.
    ///
    /// # Errors
    ///
    /// As [`Expand::expand`].
    fn expand_url(
        &mut self,
        value: &str,
    ) -> std::result::Result<String, mcpbind_model::config::ConfigError>;
    /// The secrets met, as text to redact (longest first).
    fn finish(self: Box<Self>) -> Arc<[String]>;
}

/// Makes the [`Expand`] of one server (by name).
pub type Expanders = for<'a> fn(&'a str) -> Box<dyn Expand + 'a>;

/// How long [`login`] waits for the browser to come back.
const LOGIN_TIMEOUT: Duration = Duration::from_secs(300);

/// The largest callback request the loopback listener reads.
const MAX_CALLBACK_BYTES: usize = 16 * 1024;

/// Where tokens are stored: `$MCPBIND_CREDENTIALS_DIR`, else
/// `$XDG_CONFIG_HOME/mcpbind/credentials`, else
/// `~/.config/mcpbind/credentials` (`%APPDATA%\mcpbind\credentials` on
/// Windows).
pub fn credentials_dir() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(dir) = var("MCPBIND_CREDENTIALS_DIR") {
        return Some(PathBuf::from(dir));
    }
    let config = var("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| var("APPDATA").map(PathBuf::from))
        .or_else(|| var("HOME").map(|home| PathBuf::from(home).join(".config")))?;
    Some(config.join("mcpbind").join("credentials"))
}

/// The token file of one server: named after the server and a digest of its
/// URL, so that a changed URL never gets the old origin's tokens.
fn credentials_path(server: &str, url: &str) -> Result<PathBuf> {
    let dir = credentials_dir().ok_or_else(|| Error::Auth {
        server: server.to_owned(),
        reason: "no directory to store tokens in: set HOME or MCPBIND_CREDENTIALS_DIR".into(),
        login: false,
    })?;
    let digest = mcpbind_model::hash::sha256_hex(&serde_json::Value::String(url.to_owned()));
    Ok(dir.join(format!("{server}-{}.json", &digest[..16])))
}

/// What a token file holds.
#[derive(Serialize, Deserialize)]
struct TokenFile {
    /// The server URL the tokens were issued for.
    url: String,
    credentials: StoredCredentials,
    /// The DPoP key pair the tokens are bound to ([`dpop`]), as
    /// [`DpopKey::to_stored`] writes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    dpop_key: Option<String>,
}

/// rmcp's credential store, as a file of mode 0600.
struct FileStore {
    server: String,
    url: String,
    path: PathBuf,
    /// The DPoP key written with the tokens (their binding survives a
    /// refresh's save).
    dpop_key: Option<String>,
}

impl FileStore {
    fn new(server: &str, url: &str) -> Result<FileStore> {
        Ok(FileStore {
            server: server.to_owned(),
            url: url.to_owned(),
            path: credentials_path(server, url)?,
            dpop_key: None,
        })
    }

    fn with_dpop_key(mut self, key: String) -> FileStore {
        self.dpop_key = Some(key);
        self
    }

    /// The DPoP key stored with this server's tokens, if any.
    fn stored_dpop_key(&self) -> Option<String> {
        let text = std::fs::read(&self.path).ok()?;
        let file = serde_json::from_slice::<TokenFile>(&text).ok()?;
        file.dpop_key.filter(|_| file.url == self.url)
    }

    fn io_error(&self, what: &str, e: std::io::Error) -> AuthError {
        AuthError::CredentialStoreError(format!(
            "cannot {what} {} (tokens of server `{}`): {e}",
            self.path.display(),
            self.server
        ))
    }

    /// Atomically, mode 0600 from creation, never through a symlink or a
    /// leftover temporary file (`mcpbind_model::write::write_private`).
    fn write(&self, text: &[u8]) -> std::io::Result<()> {
        let dir = self.path.parent().unwrap_or(std::path::Path::new("."));
        create_private_dir(dir)?;
        mcpbind_model::write::write_private(&self.path, text)
    }

    /// Fails unless the token file can be written: its directory exists
    /// (or can be created) and is a directory. Checked before a login's
    /// browser flow, so that a misplaced file fails first, not after.
    fn check_writable(&self) -> Result<()> {
        let dir = self.path.parent().unwrap_or(std::path::Path::new("."));
        let problem = match create_private_dir(dir) {
            Err(e) => Some(not_a_directory(dir).unwrap_or_else(|| e.to_string())),
            Ok(()) if !dir.is_dir() => Some("it is not a directory".to_owned()),
            Ok(()) => std::fs::symlink_metadata(&self.path)
                .ok()
                .filter(|m| m.is_dir())
                .map(|_| format!("{} is a directory", self.path.display())),
        };
        match problem {
            None => Ok(()),
            Some(problem) => Err(Error::Auth {
                server: self.server.clone(),
                reason: format!("cannot store tokens in {}: {problem}", dir.display()),
                login: false,
            }),
        }
    }
}

/// What is not a directory along `dir`: `dir` itself (`it`), or the
/// first of its parents that exists.
fn not_a_directory(dir: &std::path::Path) -> Option<String> {
    let there = dir.ancestors().find(|a| a.symlink_metadata().is_ok())?;
    if there.is_dir() {
        return None;
    }
    Some(if there == dir {
        "it is not a directory".to_owned()
    } else {
        format!("{} is not a directory", there.display())
    })
}

fn create_private_dir(dir: &std::path::Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

#[async_trait::async_trait]
impl CredentialStore for FileStore {
    async fn load(&self) -> std::result::Result<Option<StoredCredentials>, AuthError> {
        let text = match std::fs::read(&self.path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(self.io_error("read", e)),
        };
        // A file from another URL (or damaged) holds no usable tokens.
        match serde_json::from_slice::<TokenFile>(&text) {
            Ok(file) if file.url == self.url => Ok(Some(file.credentials)),
            _ => Ok(None),
        }
    }

    async fn save(&self, credentials: StoredCredentials) -> std::result::Result<(), AuthError> {
        let file = TokenFile {
            url: self.url.clone(),
            credentials,
            dpop_key: self.dpop_key.clone(),
        };
        let text = serde_json::to_vec_pretty(&file)
            .map_err(|e| AuthError::CredentialStoreError(e.to_string()))?;
        self.write(&text).map_err(|e| self.io_error("write", e))
    }

    /// One refresh at a time per token file in this process: concurrent
    /// requests (the POST and the GET stream) would otherwise spend the
    /// same refresh token twice, and a server that rotates them refuses
    /// the second.
    async fn acquire_refresh_guard(
        &self,
    ) -> std::result::Result<Option<CredentialRefreshGuard>, AuthError> {
        static LOCKS: std::sync::OnceLock<
            std::sync::Mutex<HashMap<PathBuf, Arc<tokio::sync::Mutex<()>>>>,
        > = std::sync::OnceLock::new();
        let lock = {
            let mut locks = LOCKS
                .get_or_init(Default::default)
                .lock()
                .map_err(|_| AuthError::CredentialStoreError("a refresh panicked".into()))?;
            Arc::clone(locks.entry(self.path.clone()).or_default())
        };
        Ok(Some(CredentialRefreshGuard::new(lock.lock_owned().await)))
    }

    async fn clear(&self) -> std::result::Result<(), AuthError> {
        match std::fs::remove_file(&self.path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(self.io_error("remove", e)),
        }
    }
}

/// A server's URL and OAuth settings with `${VAR}`s expanded, and the
/// secrets they held.
struct Target<'a> {
    server: &'a str,
    url: String,
    auth: &'a AuthConfig,
    client_secret: Option<String>,
    /// The enterprise ID token (`auth = "enterprise"`).
    id_token: Option<String>,
    secrets: Arc<[String]>,
}

impl<'a> Target<'a> {
    fn of(server: &'a str, config: &'a ServerConfig, expanders: Expanders) -> Result<Target<'a>> {
        let TransportConfig::StreamableHttp { url, .. } = &config.transport else {
            return Err(not_oauth(server));
        };
        let auth = config.auth.as_ref().ok_or_else(|| not_oauth(server))?;
        let mut expander = expanders(server);
        let url = expander.expand_url(url)?;
        let client_secret = auth.secret().map(|s| expander.expand(s)).transpose()?;
        let id_token = auth.id_token().map(|s| expander.expand(s)).transpose()?;
        // Credentials are never shown, however they were written.
        let secrets: Vec<String> = expander
            .finish()
            .iter()
            .cloned()
            .chain(client_secret.iter().cloned())
            .chain(id_token.iter().cloned())
            .filter(|s| !s.is_empty())
            .collect();
        Ok(Target {
            server,
            url,
            auth,
            client_secret,
            id_token,
            secrets: secrets.into(),
        })
    }

    /// An error from rmcp's OAuth code, its text redacted.
    fn error(&self, what: &str, e: AuthError) -> Error {
        let login = matches!(
            e,
            AuthError::AuthorizationRequired | AuthError::TokenRefreshRejected(_)
        );
        Error::Auth {
            server: self.server.to_owned(),
            reason: redact(&format!("{what}: {e}"), &self.secrets),
            login,
        }
    }

    async fn manager(&self) -> Result<AuthorizationManager> {
        let mut manager = AuthorizationManager::new(self.url.as_str())
            .await
            .map_err(|e| self.error("invalid server URL", e))?;
        if let AuthConfig::OAuth { .. } = self.auth {
            manager.set_credential_store(FileStore::new(self.server, &self.url)?);
        }
        Ok(manager)
    }
}

impl Target<'_> {
    /// An [`Error::Auth`] about DPoP, its text redacted.
    fn dpop_error(&self, reason: String) -> Error {
        Error::Auth {
            server: self.server.to_owned(),
            reason: redact(&reason, &self.secrets),
            login: false,
        }
    }

    /// A manager whose OAuth requests carry DPoP proofs ([`dpop::DpopHttp`]),
    /// going only to the origins of the server, of `metadata` (discovered
    /// through rmcp's filtered client) and of the challenge's
    /// `resource_metadata`; its token file keeps the key.
    async fn dpop_manager(
        &self,
        metadata: &rmcp::transport::auth::AuthorizationMetadata,
        challenge: Option<&str>,
        dpop: &Arc<Dpop>,
    ) -> Result<AuthorizationManager> {
        let named = challenge
            .map(mcpbind_model::internal::challenge::parse)
            .unwrap_or_default()
            .iter()
            .filter_map(|c| c.param("resource_metadata").map(str::to_owned))
            .collect::<Vec<_>>();
        let allowed: Vec<String> = [
            Some(self.url.as_str()),
            metadata.issuer.as_deref(),
            Some(metadata.authorization_endpoint.as_str()),
            Some(metadata.token_endpoint.as_str()),
            metadata.registration_endpoint.as_deref(),
        ]
        .into_iter()
        .flatten()
        .chain(named.iter().map(String::as_str))
        .filter_map(dpop::origin)
        .collect();
        let http = dpop::DpopHttp::new(Arc::clone(dpop), allowed)
            .map_err(|reason| self.dpop_error(reason))?;
        let mut manager =
            AuthorizationManager::new_with_oauth_http_client(self.url.as_str(), Arc::new(http))
                .await
                .map_err(|e| self.error("invalid server URL", e))?;
        manager.set_credential_store(
            FileStore::new(self.server, &self.url)?.with_dpop_key(dpop.key.to_stored()),
        );
        Ok(manager)
    }

    /// For an authorization server whose metadata offers DPoP: the key to
    /// bind tokens to (the one stored with the server's tokens, else a new
    /// one). `None` when DPoP is not offered, or offered but this build
    /// cannot sign (no `jwt` feature) and the server does not require it
    /// (its challenge names no `Bearer` scheme).
    fn dpop_key(
        &self,
        metadata: &rmcp::transport::auth::AuthorizationMetadata,
        challenge: Option<&str>,
    ) -> Result<Option<DpopKey>> {
        if !dpop::offered(metadata) {
            return Ok(None);
        }
        let stored = FileStore::new(self.server, &self.url)?.stored_dpop_key();
        let key = match stored {
            Some(text) => DpopKey::from_stored(&text),
            None => DpopKey::generate(),
        };
        match key {
            Ok(key) => Ok(Some(key)),
            Err(reason) => {
                let challenges = challenge
                    .map(mcpbind_model::internal::challenge::parse)
                    .unwrap_or_default();
                let required = challenges
                    .iter()
                    .any(|c| c.scheme.eq_ignore_ascii_case("DPoP"))
                    && !challenges
                        .iter()
                        .any(|c| c.scheme.eq_ignore_ascii_case("Bearer"));
                if required {
                    return Err(self.dpop_error(reason));
                }
                tracing::debug!(server = %self.server, "not using DPoP: {reason}");
                Ok(None)
            }
        }
    }
}

fn not_oauth(server: &str) -> Error {
    Error::Auth {
        server: server.to_owned(),
        reason: "it has no `auth = \"oauth\"` (login is for Streamable HTTP servers with OAuth)"
            .into(),
        login: false,
    }
}

/// Opens an authorization URL for the user: a browser. A client with this
/// hook (`ClientHooks::browser`) authorizes
/// an `auth = "oauth"` server by itself whenever the server asks for it
/// while connected (no token yet, a scope it lacks, an authorization
/// server that changed); one without fails with [`Error::Auth`], whose
/// help says to run `mcpbind login`.
///
/// The flow completes when the browser comes back to mcpbind's loopback
/// redirect (`http://127.0.0.1:PORT/callback`), within five minutes.
///
/// ```
/// use mcpbind_auth::Browser;
///
/// let hook = |server: &str, url: &str| eprintln!("authorize `{server}` at {url}");
/// fn takes(_: impl Browser) {}
/// takes(hook);
/// ```
pub trait Browser: Send + Sync + 'static {
    /// Sends the user to `url` to approve an authorization for `server`.
    fn open(&self, server: &str, url: &str);
}

impl<F> Browser for F
where
    F: Fn(&str, &str) + Send + Sync + 'static,
{
    fn open(&self, server: &str, url: &str) {
        self(server, url)
    }
}

/// The authorization of one connection to an OAuth server: the manager its
/// requests take their token from, replaced by a new authorization when
/// the server asks for one ([`OAuthClient`]).
pub struct Session {
    server: String,
    config: ServerConfig,
    browser: Option<Arc<dyn Browser>>,
    /// The client's secrets, as a new authorization expands the config.
    expanders: Expanders,
    /// The current authorization's generation and manager, and the DPoP
    /// key its tokens are bound to.
    current: tokio::sync::RwLock<(u64, Manager, Option<Arc<Dpop>>)>,
    /// The servers' DPoP nonces, shared with the HTTP client that sees
    /// the resource server's answers.
    nonces: Arc<Nonces>,
    /// One new authorization at a time.
    authorizing: tokio::sync::Mutex<()>,
    /// The scopes asked for or granted so far (a step-up asks for these
    /// and the challenged ones).
    scopes: std::sync::Mutex<Vec<String>>,
    /// The scopes the current token was granted: a challenge for scopes
    /// that are all among them is not one a new authorization can meet.
    granted: std::sync::Mutex<Vec<String>>,
}

/// `scopes` with `more` appended, without repeats, in first-seen order.
fn union(scopes: &[String], more: &[String]) -> Vec<String> {
    let mut all: Vec<String> = Vec::with_capacity(scopes.len() + more.len());
    for scope in scopes.iter().chain(more) {
        if !all.contains(scope) {
            all.push(scope.clone());
        }
    }
    all
}

impl Session {
    /// The session a connection to `server` starts with: the stored tokens
    /// (`oauth`), or a fresh token from the client-credentials grant. With
    /// no stored token, requests go out without one; the server's 401 then
    /// starts an authorization through `browser`, or becomes
    /// [`Error::Auth`] with a `mcpbind login` hint.
    ///
    /// # Errors
    ///
    /// [`Error::Auth`] when the server is not a Streamable HTTP server with
    /// `auth`, its stored tokens cannot be read (`oauth`), or its grant
    /// fails (the others); [`Error::Config`] for a `${VAR}` in its URL or
    /// secrets that is not set.
    pub async fn connect(
        server: &str,
        config: &ServerConfig,
        browser: Option<Arc<dyn Browser>>,
        expanders: Expanders,
    ) -> Result<Session> {
        let target = Target::of(server, config, expanders)?;
        let configured = target.auth.scopes().to_vec();
        let nonces = Arc::new(Nonces::default());
        let (manager, dpop, held) = match target.auth {
            AuthConfig::OAuth { .. } => {
                let (manager, dpop) = target.stored_manager(&nonces).await?;
                let held = target.stored_scopes().await;
                (manager, dpop, held)
            }
            _ => {
                let (manager, held) = target.grant(&configured).await?;
                (manager, None, held)
            }
        };
        Ok(Session {
            server: server.to_owned(),
            config: config.clone(),
            browser,
            expanders,
            current: tokio::sync::RwLock::new((0, Arc::new(manager), dpop)),
            nonces,
            authorizing: tokio::sync::Mutex::new(()),
            scopes: std::sync::Mutex::new(union(&configured, &held)),
            granted: std::sync::Mutex::new(held),
        })
    }

    async fn current(&self) -> (u64, Manager) {
        let current = self.current.read().await;
        (current.0, Arc::clone(&current.1))
    }

    /// The DPoP key of the current authorization, if its tokens are bound.
    async fn dpop(&self) -> Option<Arc<Dpop>> {
        self.current.read().await.2.clone()
    }

    /// The servers' DPoP nonces.
    pub fn nonces(&self) -> Arc<Nonces> {
        Arc::clone(&self.nonces)
    }

    /// Authorizes anew after authorization `generation` was refused with
    /// `challenge` (a `WWW-Authenticate` value), adding `more_scopes` (a
    /// step-up) to those held. Whether a new authorization is in place (by
    /// this call or a concurrent one): the request may be sent again.
    async fn authorize(&self, generation: u64, challenge: &str, more_scopes: &[String]) -> bool {
        if self.browser.is_none() && matches!(self.config.auth, Some(AuthConfig::OAuth { .. })) {
            // Nothing to authorize with: the server's refusal is the error,
            // and its help says to run `mcpbind login`.
            return false;
        }
        let _one_at_a_time = self.authorizing.lock().await;
        if self.current.read().await.0 != generation {
            return true;
        }
        let granted = self.granted.lock().map(|g| g.clone()).unwrap_or_default();
        if !more_scopes.is_empty() && more_scopes.iter().all(|s| granted.contains(s)) {
            // The token has every scope challenged: the server refuses what
            // it asked for, and asking again would only loop.
            tracing::warn!(
                server = %self.server,
                "the server refuses a token that has the scopes it asks for ({}); not authorizing again",
                more_scopes.join(" ")
            );
            return false;
        }
        match self.new_authorization(challenge, more_scopes).await {
            Ok((manager, dpop)) => {
                let mut current = self.current.write().await;
                *current = (generation + 1, Arc::new(manager), dpop);
                true
            }
            Err(e) => {
                // Already redacted; the request fails with the server's
                // refusal, which says what to do.
                tracing::warn!(server = %self.server, "cannot authorize anew: {e}");
                false
            }
        }
    }

    async fn new_authorization(
        &self,
        challenge: &str,
        more_scopes: &[String],
    ) -> Result<(AuthorizationManager, Option<Arc<Dpop>>)> {
        let target = Target::of(&self.server, &self.config, self.expanders)?;
        let held = self.scopes.lock().map(|s| s.clone()).unwrap_or_default();
        // A first authorization asks for the configured scopes (none: those
        // the challenge names); a step-up for all held and challenged.
        let scopes = if more_scopes.is_empty() {
            target.auth.scopes().to_vec()
        } else {
            union(&held, more_scopes)
        };
        let (manager, dpop, granted) = match target.auth {
            AuthConfig::OAuth { .. } => {
                let Some(browser) = &self.browser else {
                    return Err(Error::Auth {
                        server: self.server.clone(),
                        reason: "authorizing takes a browser, and the client has no browser hook"
                            .into(),
                        login: true,
                    });
                };
                let challenge = Some(challenge.to_owned()).filter(|c| !c.is_empty());
                target
                    .authorize_in_browser(&scopes, challenge, &self.nonces, |url| {
                        browser.open(&self.server, url)
                    })
                    .await?;
                let (manager, dpop) = target.stored_manager(&self.nonces).await?;
                (manager, dpop, target.stored_scopes().await)
            }
            _ => {
                let (manager, granted) = target.grant(&scopes).await?;
                (manager, None, granted)
            }
        };
        if let Ok(mut held) = self.scopes.lock() {
            *held = union(&union(&held, &scopes), &granted);
        }
        if let Ok(mut current) = self.granted.lock() {
            *current = granted;
        }
        Ok((manager, dpop))
    }
}

impl Target<'_> {
    /// A manager with the stored tokens of an `oauth` server (none stored:
    /// requests go out without a token), and the DPoP key they are bound
    /// to, if stored with them.
    async fn stored_manager(
        &self,
        nonces: &Arc<Nonces>,
    ) -> Result<(AuthorizationManager, Option<Arc<Dpop>>)> {
        let AuthConfig::OAuth { client_id, .. } = self.auth else {
            return Err(not_oauth(self.server));
        };
        let mut manager = self.manager().await?;
        let mut dpop = None;
        if let Some(text) = FileStore::new(self.server, &self.url)?.stored_dpop_key() {
            // DPoP-bound tokens: discovered through rmcp's filtered client,
            // refreshed through one that adds proofs.
            let metadata = manager
                .resolve_metadata()
                .await
                .map_err(|e| self.error("cannot discover the authorization server", e))?
                .metadata;
            let key = DpopKey::from_stored(&text).map_err(|reason| self.dpop_error(reason))?;
            let bound = Arc::new(Dpop {
                key,
                nonces: Arc::clone(nonces),
            });
            manager = self.dpop_manager(&metadata, None, &bound).await?;
            manager.set_metadata(metadata);
            dpop = Some(bound);
        }
        let stored = manager
            .initialize_from_store()
            .await
            .map_err(|e| self.error("cannot use the stored tokens", e))?;
        // A confidential client refreshes with its secret.
        if let (true, Some(id), Some(secret)) = (stored, client_id, &self.client_secret) {
            let client = OAuthClientConfig::new(id.clone(), "http://127.0.0.1/callback")
                .with_client_secret(secret.clone());
            manager
                .configure_client(client)
                .map_err(|e| self.error("cannot configure the OAuth client", e))?;
        }
        // A token the authorization server issued as `Bearer` despite the
        // proof is presented as one (RFC 9449 §5); its refreshes still
        // carry proofs.
        if dpop.is_some() && !self.stored_token_is_dpop().await {
            dpop = None;
        }
        Ok((manager, dpop))
    }

    /// Whether the stored token's `token_type` is `DPoP` (or unknown).
    async fn stored_token_is_dpop(&self) -> bool {
        let Ok(store) = FileStore::new(self.server, &self.url) else {
            return true;
        };
        let Ok(Some(stored)) = store.load().await else {
            return true;
        };
        stored
            .token_response
            .and_then(|t| serde_json::to_value(&t).ok())
            .and_then(|v| {
                v["token_type"]
                    .as_str()
                    .map(|t| t.eq_ignore_ascii_case("dpop"))
            })
            .unwrap_or(true)
    }

    /// The scopes the stored token of an `oauth` server was granted.
    async fn stored_scopes(&self) -> Vec<String> {
        let Ok(store) = FileStore::new(self.server, &self.url) else {
            return Vec::new();
        };
        match store.load().await {
            Ok(Some(stored)) => stored.granted_scopes,
            _ => Vec::new(),
        }
    }

    /// The authorization-code flow with PKCE, for `scopes` (none: those
    /// the challenge or the metadata names): registers the client (a
    /// pre-registered `client_id`, a client ID metadata document, or
    /// dynamic registration), hands the authorization URL to `open`, waits
    /// on a loopback redirect for the code and stores the tokens.
    async fn authorize_in_browser(
        &self,
        scopes: &[String],
        challenge: Option<String>,
        nonces: &Arc<Nonces>,
        open: impl FnOnce(&str),
    ) -> Result<()> {
        let server = self.server;
        let AuthConfig::OAuth {
            client_id,
            redirect_port,
            client_metadata_url,
            ..
        } = self.auth
        else {
            return Err(Error::Auth {
                server: server.to_owned(),
                reason: "its `auth` is a grant that needs no login (a token is fetched at connect)"
                    .into(),
                login: false,
            });
        };
        let (listener, port) = self.bind_redirect(*redirect_port).await?;
        let redirect_uri = format!("http://127.0.0.1:{port}/callback");

        let request_challenge = challenge.clone();
        let request = self.build_authorization_request(
            &redirect_uri,
            scopes,
            challenge,
            client_id.as_ref(),
            client_metadata_url.as_ref(),
        );
        let manager = self
            .authorization_manager(request_challenge.as_deref(), nonces)
            .await?;
        let mut state = OAuthState::Unauthorized(manager);
        state
            .start_authorization(request)
            .await
            .map_err(|e| self.error("cannot start the authorization", e))?;
        let url = state
            .get_authorization_url()
            .await
            .map_err(|e| self.error("no authorization URL", e))?;
        open(&url);
        let callback = self
            .wait_for_redirect(&listener, port, &redirect_uri)
            .await?;
        // The exchange stores the tokens it got: a store that failed (a
        // full disk) is not a failed exchange.
        state
            .handle_callback_url(&callback)
            .await
            .map_err(|e| match e {
                AuthError::CredentialStoreError(_) => {
                    self.error("the server issued tokens, but storing them failed", e)
                }
                e => self.error("the token exchange failed", e),
            })
    }

    /// A listener for the loopback redirect on `redirect_port` (`None`:
    /// any free port), and the port it listens on.
    async fn bind_redirect(
        &self,
        redirect_port: Option<u16>,
    ) -> Result<(tokio::net::TcpListener, u16)> {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", redirect_port.unwrap_or(0)))
            .await
            .map_err(|e| Error::Auth {
                server: self.server.to_owned(),
                reason: format!(
                    "cannot listen for the redirect on 127.0.0.1:{}: {e}",
                    redirect_port.unwrap_or(0)
                ),
                login: false,
            })?;
        let port = listener.local_addr().map(|a| a.port()).unwrap_or_default();
        Ok((listener, port))
    }

    /// The authorization request: the redirect, the server's challenge,
    /// the scopes, and the client's registration (a pre-registered
    /// `client_id` with its secret, or a client ID metadata document).
    fn build_authorization_request(
        &self,
        redirect_uri: &str,
        scopes: &[String],
        challenge: Option<String>,
        client_id: Option<&String>,
        client_metadata_url: Option<&String>,
    ) -> AuthorizationRequest {
        let mut request = AuthorizationRequest::new(redirect_uri).with_client_name("mcpbind");
        if let Some(challenge) = challenge {
            request = request.with_challenge(challenge);
        }
        if !scopes.is_empty() {
            request = request.with_scopes(scopes.iter().map(String::as_str));
        }
        if let Some(id) = client_id {
            request = request.with_preregistered_client(id.clone());
            if let Some(secret) = &self.client_secret {
                request = request.with_client_secret(secret.clone());
            }
        }
        if let Some(url) = client_metadata_url {
            request = request.with_client_metadata_url(url.clone());
        }
        request
    }

    /// The manager the authorization goes through: rmcp's, or one that
    /// adds DPoP proofs when the authorization server offers DPoP.
    async fn authorization_manager(
        &self,
        challenge: Option<&str>,
        nonces: &Arc<Nonces>,
    ) -> Result<AuthorizationManager> {
        // An authorization server that offers DPoP gets proofs with its
        // token requests: found through rmcp's filtered client, then
        // authorized through one that adds them (the key stored with the
        // tokens).
        let mut manager = self.manager().await?;
        if let Ok(resolution) = manager.resolve_metadata_from_challenge(challenge).await {
            let metadata = resolution.metadata;
            if let Some(key) = self.dpop_key(&metadata, challenge)? {
                let dpop = Arc::new(Dpop {
                    key,
                    nonces: Arc::clone(nonces),
                });
                manager = self.dpop_manager(&metadata, challenge, &dpop).await?;
            }
        }
        Ok(manager)
    }

    /// Waits (up to [`LOGIN_TIMEOUT`]) for the loopback redirect to bring a
    /// code: the callback URL as received.
    async fn wait_for_redirect(
        &self,
        listener: &tokio::net::TcpListener,
        port: u16,
        redirect_uri: &str,
    ) -> Result<String> {
        tokio::time::timeout(LOGIN_TIMEOUT, wait_for_callback(listener, port))
            .await
            .map_err(|_| Error::Auth {
                server: self.server.to_owned(),
                reason: format!(
                    "no redirect came back to {redirect_uri} within {} s",
                    LOGIN_TIMEOUT.as_secs()
                ),
                login: false,
            })?
            .map_err(|reason| Error::Auth {
                server: self.server.to_owned(),
                reason: redact(&reason, &self.secrets),
                login: false,
            })
    }
}

/// Runs the OAuth authorization-code flow with PKCE for `server` and stores
/// its tokens: discovers the authorization server (from the server's 401
/// challenge, else the well-known paths), registers the client (a
/// pre-registered `client_id`, a client ID metadata document, or dynamic
/// registration), hands the authorization URL to `open` (a browser), and
/// waits on a loopback redirect (`http://127.0.0.1:PORT/callback`) for the
/// code. Its config values are expanded by `expanders` (the client's).
///
/// # Errors
///
/// [`Error::Auth`] when the server has no OAuth, the authorization fails or the
/// browser flow is not completed, or a server or authorization server cannot
/// be reached.
pub async fn login(
    server: &str,
    config: &ServerConfig,
    expanders: Expanders,
    open: impl FnOnce(&str),
) -> Result<()> {
    let target = Target::of(server, config, expanders)?;
    // Where the tokens will go must work before the user is sent to a
    // browser, not only after the code came back.
    FileStore::new(server, &target.url)?.check_writable()?;
    let scopes = target.auth.scopes().to_vec();
    let challenge = challenge(&target.url).await;
    let nonces = Arc::new(Nonces::default());
    target
        .authorize_in_browser(&scopes, challenge, &nonces, open)
        .await
}

/// Removes the stored tokens of `server`; whether there were any (its URL
/// expanded by `expanders`).
///
/// # Errors
///
/// [`Error::Auth`] when the stored tokens cannot be removed.
pub fn logout(server: &str, config: &ServerConfig, expanders: Expanders) -> Result<bool> {
    let target = Target::of(server, config, expanders)?;
    let path = credentials_path(server, &target.url)?;
    match std::fs::remove_file(&path) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(Error::Auth {
            server: server.to_owned(),
            reason: format!("cannot remove {}: {e}", path.display()),
            login: false,
        }),
    }
}

/// The `WWW-Authenticate` challenge of an unauthenticated `initialize`, if
/// the server answers 401 with one: it names the protected-resource metadata
/// and the scopes to ask for.
async fn challenge(url: &str) -> Option<String> {
    let initialize = serde_json::json!({
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "mcpbind", "version": env!("CARGO_PKG_VERSION")}
        }
    });
    let response = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(30))
        .build()
        .ok()?
        .post(url)
        .header(http::header::ACCEPT, "application/json, text/event-stream")
        .json(&initialize)
        .send()
        .await
        .ok()?;
    if response.status() != reqwest::StatusCode::UNAUTHORIZED {
        return None;
    }
    let header = response.headers().get(http::header::WWW_AUTHENTICATE)?;
    Some(header.to_str().ok()?.to_owned())
}

/// Serves the loopback redirect until it brings a code (or an error): the
/// callback URL as received.
async fn wait_for_callback(
    listener: &tokio::net::TcpListener,
    port: u16,
) -> std::result::Result<String, String> {
    loop {
        let (mut stream, _) = listener.accept().await.map_err(|e| e.to_string())?;
        let Some(target) = read_request_target(&mut stream).await else {
            continue;
        };
        if !target.starts_with("/callback") {
            let _ = stream
                .write_all(response(404, "Not found.").as_bytes())
                .await;
            continue;
        }
        let url = format!("http://127.0.0.1:{port}{target}");
        let query = reqwest::Url::parse(&url).map_err(|e| e.to_string())?;
        let param = |key: &str| {
            query
                .query_pairs()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.into_owned())
        };
        if let Some(error) = param("error") {
            let _ = stream
                .write_all(response(400, "Authorization failed; see the terminal.").as_bytes())
                .await;
            let description = param("error_description").unwrap_or_default();
            return Err(format!(
                "the authorization server refused: {error} {description}"
            ));
        }
        if param("code").is_none() {
            let _ = stream
                .write_all(response(400, "No authorization code in the redirect.").as_bytes())
                .await;
            continue;
        }
        let _ = stream
            .write_all(
                response(200, "mcpbind is authorized. You can close this window.").as_bytes(),
            )
            .await;
        return Ok(url);
    }
}

/// The request target (`/callback?code=...`) of one HTTP request, read up
/// to [`MAX_CALLBACK_BYTES`].
async fn read_request_target(stream: &mut tokio::net::TcpStream) -> Option<String> {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 2048];
    while !buffer.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut chunk))
            .await
            .ok()?
            .ok()?;
        if n == 0 || buffer.len() + n > MAX_CALLBACK_BYTES {
            return None;
        }
        buffer.extend_from_slice(&chunk[..n]);
    }
    let head = String::from_utf8_lossy(&buffer);
    let mut parts = head.lines().next()?.split(' ');
    match (parts.next(), parts.next()) {
        (Some("GET"), Some(target)) => Some(target.to_owned()),
        _ => None,
    }
}

fn response(status: u16, text: &str) -> String {
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        _ => "Not Found",
    };
    let body = format!("<!doctype html><title>mcpbind</title><p>{text}</p>\n");
    format!(
        "HTTP/1.1 {status} {reason}\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
}
