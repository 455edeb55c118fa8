//! A `403` with `WWW-Authenticate: Bearer error="insufficient_scope",
//! scope="…"` end to end, from the OAuth test server
//! (tests/src/bin/oauth_server.rs) run with `--require-scope admin
//! --on-calls`: it lets the handshake and `tools/list` through with any
//! token it issued, and refuses a `tools/call` whose token lacks `admin`.
//!
//! - A token sent in `headers` (no OAuth in mcpbind): nothing can be
//!   granted again, so the error names the scope the server asked for and
//!   says where a token with it goes.
//! - A grant mcpbind holds (`auth = "client_credentials"`): the call steps
//!   up, as the spec says: a new grant for the union of the scopes held and
//!   the scopes challenged, then the call again.

use std::path::Path;

use crate::oauth::{assert_no_token, whoami, OAuthServer};
use crate::util;

/// The scopes the server's challenge names: its own (`mcp`) and the one it
/// requires.
const CHALLENGED: &str = "mcp admin";

/// An access token the server grants `ci-client` for `scope`, fetched
/// outside mcpbind (as a user who pastes a token into `headers` has one).
fn granted(server: &OAuthServer, scope: &str) -> String {
    let token_url = server.url.replace("/mcp", "/token");
    let out = std::process::Command::new("curl")
        .args(["--silent", "--fail", "--user", "ci-client:ci-secret"])
        .args(["--data", "grant_type=client_credentials"])
        .args(["--data-urlencode", &format!("scope={scope}")])
        .arg(&token_url)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let body: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let token = body["access_token"].as_str().unwrap().to_owned();
    assert!(token.starts_with("mcpbind-canary-"), "{body}");
    token
}

/// A project whose server `sec` is the OAuth server, its token sent in
/// `headers` from `${SEC_TOKEN}`.
fn headers_project(server: &OAuthServer) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let config = format!(
        "[servers.sec]\nurl = {url}\nheaders = {{ Authorization = \"Bearer ${{SEC_TOKEN}}\" }}\n",
        url = util::toml_str(&server.url)
    );
    std::fs::write(dir.path().join("mcpbind.toml"), config).unwrap();
    dir
}

fn call_whoami(dir: &Path, token: &str) -> util::Output {
    util::mcpbind_env(dir, &["call", "sec", "whoami"], &[("SEC_TOKEN", token)])
}

/// `mcpbind call` with a token in `headers` that lacks `admin`: the call is
/// refused with HTTP 403, and the error names the scope the challenge asks
/// for and where a token with it goes; the token itself is never shown. The
/// same call with a token granted `admin` goes through.
#[test]
fn a_token_in_headers_without_the_scope_is_refused_with_the_scope_named() {
    let server = OAuthServer::with_args(&["--require-scope", "admin", "--on-calls"]);
    let dir = headers_project(&server);
    let out = call_whoami(dir.path(), &granted(&server, "mcp"));
    assert_eq!(out.code, Some(1), "{out:?}");
    assert!(
        out.stderr
            .contains("answered `tools/call whoami` with HTTP 403"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains(&format!(
            "insufficient_scope: it needs scope `{CHALLENGED}`"
        )),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains(&format!(
            "the token server `sec` was sent lacks scope `{CHALLENGED}`: send one granted it in `headers` of server `sec`"
        )),
        "{}",
        out.stderr
    );
    assert_no_token(&server, "the refused call", &format!("{out:?}"));

    let out = call_whoami(dir.path(), &granted(&server, CHALLENGED));
    assert_eq!(out.code, Some(0), "{out:?}");
    assert_eq!(out.stdout.trim(), "grant=client_credentials");
}

/// The same through the library: the error is data (`Error::Http` with the
/// status and the challenged scope), and its help names the scope.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_library_error_carries_the_challenged_scope() {
    let server = OAuthServer::with_args(&["--require-scope", "admin", "--on-calls"]);
    let token = granted(&server, "mcp");
    let config = mcpbind::ServerConfig::http(server.url.as_str())
        .header("Authorization", format!("Bearer {token}"));
    let config = mcpbind::Config::new().server("sec", config).unwrap();
    let client = mcpbind::Client::connect_server("sec", config.servers["sec"].clone())
        .await
        .unwrap();
    let error = client
        .call_raw(
            "whoami",
            Default::default(),
            &mcpbind::CallOptions::default(),
        )
        .await
        .unwrap_err();
    match &error {
        mcpbind::Error::Http {
            server,
            status: Some(403),
            insufficient_scope: Some(scope),
            ..
        } => assert_eq!((server.as_str(), scope.as_str()), ("sec", CHALLENGED)),
        other => panic!("not a 403 insufficient_scope: {other:?}"),
    }
    let help = error.help().unwrap();
    assert!(
        help.contains(&format!("lacks scope `{CHALLENGED}`")),
        "{help}"
    );
    assert_no_token(&server, "the error", &format!("{error:?} {error} {help}"));
    client.close().await;
}

/// A grant mcpbind holds steps up: connected with a token for `mcp` alone,
/// the refused call is granted again for `mcp admin` (the union of the
/// scope held and the challenge's) and goes through, with one grant more.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_grant_mcpbind_holds_steps_up_on_a_refused_call() {
    let server = OAuthServer::with_args(&["--require-scope", "admin", "--on-calls"]);
    let config = server.client_credentials(|s| s.scopes(["mcp"]));
    let client = mcpbind::Client::connect_server("ci", config.servers["ci"].clone())
        .await
        .unwrap();
    let before = server.issued().len();
    assert_eq!(whoami(&client).await, "grant=client_credentials");
    assert_eq!(server.issued().len(), before + 1, "one grant more");
    // The step-up is kept: the next call needs no grant.
    assert_eq!(whoami(&client).await, "grant=client_credentials");
    assert_eq!(server.issued().len(), before + 1);
    client.close().await;
}
