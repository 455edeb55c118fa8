//! OAuth against a real OAuth-protected MCP server with its own
//! authorization server (tests/src/bin/oauth_server.rs): `mcpbind login`
//! (PKCE, dynamic registration, loopback redirect), `lock` and `call` with
//! the stored token, refresh, `logout`, and the client-credentials grant.
//! Every token the server issues is a canary that must never show up
//! outside the token store.

use std::path::Path;
use std::process::{Child, Command};

use crate::util;

/// The OAuth server, the file it logs its tokens to, and its URL.
pub(crate) struct OAuthServer {
    child: Child,
    pub(crate) url: String,
    tokens: std::path::PathBuf,
    _dir: tempfile::TempDir,
}

impl Drop for OAuthServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl OAuthServer {
    pub(crate) fn start(ttl: u64) -> OAuthServer {
        OAuthServer::with_args(&["--ttl", &ttl.to_string()])
    }

    pub(crate) fn with_args(args: &[&str]) -> OAuthServer {
        let dir = tempfile::tempdir().unwrap();
        let tokens = dir.path().join("issued-tokens");
        let mut command = Command::new(env!("CARGO_BIN_EXE_oauth_server"));
        command.args(args).env("OAUTH_TOKEN_LOG", &tokens);
        let (child, url) = util::start_listening(command);
        OAuthServer {
            child,
            url,
            tokens,
            _dir: dir,
        }
    }

    /// Every token issued so far (access and refresh tokens, codes).
    /// A config whose server `ci` uses this server with the client
    /// credentials grant (`ci-client` / `ci-secret`).
    pub(crate) fn client_credentials(
        &self,
        more: impl FnOnce(mcpbind::ServerBuilder) -> mcpbind::ServerBuilder,
    ) -> mcpbind::Config {
        let server = mcpbind::ServerConfig::http(self.url.as_str())
            .auth("client_credentials")
            .client_id("ci-client")
            .client_secret("ci-secret");
        mcpbind::Config::new().server("ci", more(server)).unwrap()
    }

    pub(crate) fn issued(&self) -> Vec<String> {
        std::fs::read_to_string(&self.tokens)
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect()
    }
}

/// A project dir with a config for `server`, and the credential store
/// (outside the project, as a user's would be).
fn project(server: &OAuthServer, extra: &str) -> (tempfile::TempDir, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let store = tempfile::tempdir().unwrap();
    let config = format!(
        "[servers.sec]\nurl = {url}\nauth = \"oauth\"\n\n[servers.ci]\nurl = {url}\nauth = \"client_credentials\"\nclient_id = \"ci-client\"\nclient_secret = \"${{CI_SECRET}}\"\n{extra}",
        url = util::toml_str(&server.url)
    );
    std::fs::write(dir.path().join("mcpbind.toml"), config).unwrap();
    (dir, store)
}

/// Runs the CLI with the store and a "browser" that follows the redirect
/// back to the loopback listener, as a user who clicks "allow" would.
fn cli(dir: &Path, store: &Path, args: &[&str]) -> util::Output {
    util::mcpbind_env(
        dir,
        args,
        &[
            ("MCPBIND_CREDENTIALS_DIR", store.to_str().unwrap()),
            ("BROWSER", "curl --silent --location --output /dev/null"),
            ("CI_SECRET", "ci-secret"),
        ],
    )
}

/// No token the server issued appears in `text`.
/// The server's `whoami` answer over `client`: the grant its token came from.
pub(crate) async fn whoami(client: &mcpbind::Client) -> String {
    let result = client
        .call_raw(
            "whoami",
            Default::default(),
            &mcpbind::CallOptions::default(),
        )
        .await
        .unwrap();
    result.content[0].as_text().unwrap().text.clone()
}

pub(crate) fn assert_no_token(server: &OAuthServer, what: &str, text: &str) {
    let issued = server.issued();
    assert!(!issued.is_empty(), "the server issued no token");
    for token in &issued {
        assert!(
            !text.contains(token.as_str()),
            "{what} shows a token:\n{text}"
        );
    }
    assert!(!text.contains("mcpbind-canary-"), "{what}:\n{text}");
}

#[test]
fn login_lock_call_and_logout_through_the_cli() {
    // Backdated below to 10 s before expiry: refreshed by the call.
    let server = OAuthServer::start(3600);
    let (dir, store) = project(&server, "");
    let (dir, store) = (dir.path(), store.path());

    // Before login: the server's 401, and what to do about it.
    let out = cli(dir, store, &["call", "sec", "whoami"]);
    assert_eq!(out.code, Some(1), "{out:?}");
    assert!(out.stderr.contains("HTTP 401"), "{}", out.stderr);
    assert!(
        out.stderr.contains("help: run `mcpbind login sec`"),
        "{}",
        out.stderr
    );

    let login = cli(dir, store, &["-vv", "login", "sec"]);
    assert_eq!(login.code, Some(0), "{login:?}");
    assert!(login.stderr.contains("/authorize?"), "{}", login.stderr);
    assert!(
        login.stderr.contains("code_challenge_method=S256"),
        "{}",
        login.stderr
    );
    let files: Vec<_> = std::fs::read_dir(store).unwrap().flatten().collect();
    assert_eq!(files.len(), 1, "one token file: {files:?}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = files[0].metadata().unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "the token file is private");
    }

    let lock = cli(dir, store, &["-vv", "lock", "sec"]);
    assert_eq!(lock.code, Some(0), "{lock:?}");
    let lockfile = std::fs::read_to_string(dir.join("mcpbind.lock")).unwrap();
    assert!(lockfile.contains("whoami"), "{lockfile}");
    let generate = cli(dir, store, &["generate", "--out", "bindings.rs"]);
    assert_eq!(generate.code, Some(0), "{generate:?}");
    let generated = std::fs::read_to_string(dir.join("bindings.rs")).unwrap();

    let call = cli(dir, store, &["-vv", "call", "sec", "whoami"]);
    assert_eq!(call.code, Some(0), "{call:?}");
    assert_eq!(call.stdout.trim(), "grant=authorization_code");

    for (what, text) in [
        ("login", format!("{login:?}")),
        ("lock", format!("{lock:?}")),
        ("call", format!("{call:?}")),
        ("the lockfile", lockfile),
        ("the generated code", generated),
        (
            "the config",
            std::fs::read_to_string(dir.join("mcpbind.toml")).unwrap(),
        ),
    ] {
        assert_no_token(&server, what, &text);
    }

    let out = cli(dir, store, &["logout", "sec"]);
    assert_eq!(out.code, Some(0), "{out:?}");
    assert!(out.stderr.contains("logged out"), "{}", out.stderr);
    assert_eq!(std::fs::read_dir(store).unwrap().count(), 0);
    let out = cli(dir, store, &["call", "sec", "whoami"]);
    assert_eq!(out.code, Some(1), "{out:?}");
    assert!(out.stderr.contains("mcpbind login sec"), "{}", out.stderr);
}

#[test]
fn a_token_about_to_expire_is_refreshed_and_the_new_one_stored() {
    let server = OAuthServer::start(3600);
    let (dir, store) = project(&server, "");
    let (dir, store) = (dir.path(), store.path());
    let out = cli(dir, store, &["login", "sec"]);
    assert_eq!(out.code, Some(0), "{out:?}");
    let stored = std::fs::read_dir(store).unwrap().flatten().next().unwrap();
    backdate(&stored.path(), 3590);
    let before = std::fs::read_to_string(stored.path()).unwrap();

    let out = cli(dir, store, &["-vv", "call", "sec", "whoami"]);
    assert_eq!(out.code, Some(0), "{out:?}");
    assert_eq!(out.stdout.trim(), "grant=refresh_token");
    assert_no_token(&server, "the call", &format!("{out:?}"));
    let after = std::fs::read_to_string(stored.path()).unwrap();
    assert_ne!(before, after, "the refreshed token was stored");
}

/// Step-up: a token without the scope the server requires is a 403
/// `insufficient_scope`; with the scope in `scopes`, a new login works.
#[test]
fn a_missing_scope_says_which_and_a_new_login_with_it_works() {
    let server = OAuthServer::with_args(&["--require-scope", "admin"]);
    let (dir, store) = project(&server, "");
    let (dir, store) = (dir.path(), store.path());
    let out = cli(dir, store, &["login", "sec"]);
    assert_eq!(out.code, Some(0), "{out:?}");
    let out = cli(dir, store, &["call", "sec", "whoami"]);
    assert_eq!(out.code, Some(1), "{out:?}");
    assert!(out.stderr.contains("HTTP 403"), "{}", out.stderr);
    assert!(
        out.stderr.contains("it needs scope `mcp admin`"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("mcpbind login sec"), "{}", out.stderr);

    let config = std::fs::read_to_string(dir.join("mcpbind.toml")).unwrap();
    let config = config.replace(
        "auth = \"oauth\"\n",
        "auth = \"oauth\"\nscopes = [\"mcp\", \"admin\"]\n",
    );
    std::fs::write(dir.join("mcpbind.toml"), config).unwrap();
    let out = cli(dir, store, &["login", "sec"]);
    assert_eq!(out.code, Some(0), "{out:?}");
    assert!(out.stderr.contains("scope=mcp+admin"), "{}", out.stderr);
    let out = cli(dir, store, &["call", "sec", "whoami"]);
    assert_eq!(out.code, Some(0), "{out:?}");
    assert_eq!(out.stdout.trim(), "grant=authorization_code");
}

/// Protected-resource metadata naming another resource than the server's
/// URL is refused before anything is sent to its authorization server.
#[test]
fn metadata_for_another_resource_is_refused() {
    let server = OAuthServer::with_args(&["--resource", "https://elsewhere.example/mcp"]);
    let (dir, store) = project(&server, "");
    let (dir, store) = (dir.path(), store.path());
    let out = cli(dir, store, &["login", "sec"]);
    assert_eq!(out.code, Some(1), "{out:?}");
    assert!(out.stderr.contains("elsewhere.example"), "{}", out.stderr);
    assert!(!out.stderr.contains("/authorize?"), "{}", out.stderr);
    assert_eq!(std::fs::read_dir(store).unwrap().count(), 0);
}

#[test]
fn client_credentials_get_a_token_at_connect() {
    let server = OAuthServer::start(3600);
    let (dir, store) = project(&server, "");
    let (dir, store) = (dir.path(), store.path());

    let out = cli(dir, store, &["-vv", "call", "ci", "whoami"]);
    assert_eq!(out.code, Some(0), "{out:?}");
    assert_eq!(out.stdout.trim(), "grant=client_credentials");
    assert_no_token(&server, "the call", &format!("{out:?}"));
    assert!(!out.stderr.contains("ci-secret"), "{}", out.stderr);
    assert_eq!(
        std::fs::read_dir(store).unwrap().count(),
        0,
        "client-credential tokens are not stored"
    );

    // A wrong secret: the authorization server's answer, not the secret.
    let out = util::mcpbind_env(
        dir,
        &["-vv", "call", "ci", "whoami"],
        &[
            ("MCPBIND_CREDENTIALS_DIR", store.to_str().unwrap()),
            ("CI_SECRET", "not-the-secret"),
        ],
    );
    assert_eq!(out.code, Some(1), "{out:?}");
    assert!(out.stderr.contains("invalid_client"), "{}", out.stderr);
    assert!(!out.stderr.contains("not-the-secret"), "{}", out.stderr);
}

/// The library: a client connects with the grant and calls.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_library_client_uses_the_grant() {
    let server = OAuthServer::start(3600);
    let config = server.client_credentials(|s| s.scopes(["mcp"]));
    let client = mcpbind::Client::connect_server("ci", config.servers["ci"].clone())
        .await
        .unwrap();
    assert_eq!(whoami(&client).await, "grant=client_credentials");
    assert!(!format!("{:?}", config.servers["ci"]).contains("ci-secret"));
}

/// DPoP (RFC 9449) against a server that binds its tokens and requires
/// nonces at both ends (`--dpop`): the login's token request and the
/// refresh carry proofs with the authorization server's nonce, the calls
/// `Authorization: DPoP` with proofs carrying the resource server's (the
/// server refuses a bound token as `Bearer`, a replayed proof, a wrong
/// `ath`). The key is stored with the tokens, privately; neither it nor
/// any proof shows up in `-vv` output.
#[test]
fn dpop_bound_tokens_are_refreshed_and_presented_with_fresh_proofs() {
    // Backdated below to 10 s before expiry: refreshed by the call.
    let server = OAuthServer::with_args(&["--dpop", "--ttl", "3600"]);
    let (dir, store) = project(&server, "");
    let (dir, store) = (dir.path(), store.path());
    let login = cli(dir, store, &["-vv", "login", "sec"]);
    assert_eq!(login.code, Some(0), "{login:?}");
    let file = std::fs::read_dir(store).unwrap().flatten().next().unwrap();
    let stored: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(file.path()).unwrap()).unwrap();
    let key = stored["dpop_key"]
        .as_str()
        .expect("the key is stored")
        .to_owned();
    assert!(key.len() > 100, "{key}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = file.metadata().unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "the token file is private");
    }
    let proofs = server
        .issued()
        .iter()
        .filter(|t| t.starts_with("ey"))
        .count();
    assert!(proofs >= 2, "the code exchange, again with the nonce");

    backdate(&file.path(), 3590);
    let call = cli(dir, store, &["-vv", "call", "sec", "whoami"]);
    assert_eq!(call.code, Some(0), "{call:?}");
    assert_eq!(call.stdout.trim(), "grant=refresh_token");
    let after: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(file.path()).unwrap()).unwrap();
    assert_eq!(after["dpop_key"], key.as_str(), "the refresh keeps the key");
    let again = cli(dir, store, &["-vv", "call", "sec", "whoami"]);
    assert_eq!(again.code, Some(0), "{again:?}");

    for (what, text) in [
        ("login", format!("{login:?}")),
        ("call", format!("{call:?}")),
        ("the second call", format!("{again:?}")),
    ] {
        assert_no_token(&server, what, &text);
        assert!(!text.contains(&key), "{what} shows the DPoP key:\n{text}");
        assert!(
            !text.contains(&key[20..60]),
            "{what} shows the DPoP key:\n{text}"
        );
    }
}

/// Moves the receipt of the tokens in token file `path` `seconds` into the
/// past, as if they had been kept that long: rmcp decides a refresh on the
/// system clock, which a test cannot move (`min(30 s, expires_in / 2)`
/// before expiry).
fn backdate(path: &Path, seconds: u64) {
    let mut file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let received = &mut file["credentials"]["token_received_at"];
    let at = received
        .as_u64()
        .expect("tokens stored with their receipt time");
    *received = (at - seconds).into();
    std::fs::write(path, serde_json::to_vec_pretty(&file).unwrap()).unwrap();
}
