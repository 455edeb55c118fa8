//! Authorization beyond a login, against the OAuth-protected server
//! (tests/src/bin/oauth_server.rs): `private_key_jwt` client credentials,
//! the JWT-bearer grant of a workload, and a library client that authorizes
//! by itself through its browser hook, with step-up to the union of
//! scopes. The private key, the workload's JWT and every token are
//! canaries that must never show up in output or errors.

use std::sync::{Arc, Mutex};

use crate::oauth::{assert_no_token, whoami, OAuthServer};
use crate::util;

/// `ci-client`'s P-256 private key (a fixture; the server holds the public
/// half).
const CI_PRIVATE_KEY: &str = "-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgZsuKl1xTb7SGa1t3
Agh9cqSKtqcewxkkDAgOIPJpHomhRANCAAShUR4gIVJIdJnhuKg8loyJ75BUIs0I
vUltGaWECPrSGok3XPmi9nicS9NiizZuHWBfQl+X85f/4mb8QwPTVvu0
-----END PRIVATE KEY-----
";

/// The middle of the key, which no output may contain.
const KEY_PART: &str = "Agh9cqSKtqcewxkkDAgOIPJpHomhRANCAAShUR4gIVJIdJnhuKg8loyJ75BUIs0I";

/// The workload's JWT the server accepts (tests/src/bin/oauth_server.rs).
const WORKLOAD_JWT: &str = "mcpbind-canary-workload-assertion";

fn cli(dir: &std::path::Path, args: &[&str], env: &[(&str, &str)]) -> util::Output {
    let store = dir.join("credentials");
    let mut all = vec![("MCPBIND_CREDENTIALS_DIR", store.to_str().unwrap())];
    all.extend_from_slice(env);
    util::mcpbind_env(dir, args, &all)
}

#[test]
fn private_key_jwt_client_credentials_sign_an_assertion() {
    let server = OAuthServer::start(3600);
    let dir = tempfile::tempdir().unwrap();
    let config = format!(
        "[servers.ci]\nurl = {}\nauth = \"client_credentials\"\nclient_id = \"ci-client\"\nprivate_key = \"${{CI_KEY}}\"\nsigning_algorithm = \"ES256\"\n",
        util::toml_str(&server.url)
    );
    std::fs::write(dir.path().join("mcpbind.toml"), config).unwrap();

    let out = cli(
        dir.path(),
        &["-vv", "call", "ci", "whoami"],
        &[("CI_KEY", CI_PRIVATE_KEY)],
    );
    assert_eq!(out.code, Some(0), "{out:?}");
    assert_eq!(out.stdout.trim(), "grant=private_key_jwt");
    let text = format!("{out:?}");
    assert_no_token(&server, "the call", &text);
    assert!(!text.contains(KEY_PART), "the call shows the key:\n{text}");

    // Not a key: said so, without showing the value.
    let not_a_key = "mcpbind-canary-not-a-key";
    let out = cli(
        dir.path(),
        &["call", "ci", "whoami"],
        &[("CI_KEY", not_a_key)],
    );
    assert_eq!(out.code, Some(1), "{out:?}");
    assert!(
        out.stderr
            .contains("`private_key` is not an EC private key in PEM"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("server `ci`"), "{}", out.stderr);
    assert!(!out.stderr.contains(not_a_key), "{}", out.stderr);
}

#[test]
fn the_jwt_bearer_grant_exchanges_the_workloads_token() {
    let server = OAuthServer::start(3600);
    let dir = tempfile::tempdir().unwrap();
    let jwt_file = dir.path().join("workload.jwt");
    std::fs::write(&jwt_file, format!("{WORKLOAD_JWT}\n")).unwrap();
    let config = format!(
        "[servers.wl]\nurl = {url}\nauth = \"jwt_bearer\"\nassertion_file = {jwt}\n\n[servers.env]\nurl = {url}\nauth = \"jwt_bearer\"\nclient_id = \"workload\"\nassertion = \"${{WORKLOAD_JWT}}\"\nscopes = [\"mcp\"]\n",
        url = util::toml_str(&server.url),
        jwt = util::toml_str(&jwt_file.display().to_string()),
    );
    std::fs::write(dir.path().join("mcpbind.toml"), config).unwrap();

    for name in ["wl", "env"] {
        let out = cli(
            dir.path(),
            &["-vv", "call", name, "whoami"],
            &[("WORKLOAD_JWT", WORKLOAD_JWT)],
        );
        assert_eq!(out.code, Some(0), "{out:?}");
        assert_eq!(out.stdout.trim(), "grant=jwt_bearer");
        assert_no_token(&server, "the call", &format!("{out:?}"));
    }

    // A JWT the server refuses: its error, not retried, nothing shown.
    let refused = "mcpbind-canary-refused-assertion";
    let out = cli(
        dir.path(),
        &["-vv", "call", "env", "whoami"],
        &[("WORKLOAD_JWT", refused)],
    );
    assert_eq!(out.code, Some(1), "{out:?}");
    assert!(out.stderr.contains("invalid_grant"), "{}", out.stderr);
    assert!(
        out.stderr.contains("JWT-bearer grant failed"),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains(refused), "{}", out.stderr);

    // A missing file is named.
    std::fs::remove_file(&jwt_file).unwrap();
    let out = cli(dir.path(), &["call", "wl", "whoami"], &[]);
    assert_eq!(out.code, Some(1), "{out:?}");
    assert!(
        out.stderr.contains("cannot read `assertion_file`"),
        "{}",
        out.stderr
    );
}

/// Enterprise-managed authorization: the user's ID token exchanged at the
/// identity provider for an ID-JAG, then for a token; neither shows up.
#[test]
fn enterprise_managed_authorization_exchanges_the_id_token() {
    let server = OAuthServer::start(3600);
    let dir = tempfile::tempdir().unwrap();
    let idp = server.url.replace("/mcp", "/idp/token");
    let config = format!(
        "[servers.corp]\nurl = {}\nauth = \"enterprise\"\nclient_id = \"ci-client\"\nclient_secret = \"${{CI_SECRET}}\"\nidp_token_endpoint = {}\nidp_client_id = \"idp-client\"\nid_token = \"${{ID_TOKEN}}\"\n",
        util::toml_str(&server.url),
        util::toml_str(&idp)
    );
    std::fs::write(dir.path().join("mcpbind.toml"), config).unwrap();
    let id_token = "mcpbind-canary-enterprise-id-token";
    let env = [("CI_SECRET", "ci-secret"), ("ID_TOKEN", id_token)];
    let out = cli(dir.path(), &["-vv", "call", "corp", "whoami"], &env);
    assert_eq!(out.code, Some(0), "{out:?}");
    assert_eq!(out.stdout.trim(), "grant=enterprise");
    assert_no_token(&server, "the call", &format!("{out:?}"));

    // An ID token the identity provider refuses: its answer, not the token.
    let refused = "mcpbind-canary-refused-id-token";
    let env = [("CI_SECRET", "ci-secret"), ("ID_TOKEN", refused)];
    let out = cli(dir.path(), &["call", "corp", "whoami"], &env);
    assert_eq!(out.code, Some(1), "{out:?}");
    assert!(out.stderr.contains("invalid_request"), "{}", out.stderr);
    assert!(
        out.stderr
            .contains("enterprise-managed authorization failed"),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains(refused), "{}", out.stderr);
}

/// One credential store for the library clients of this test binary (the
/// CLI tests give their own to each `mcpbind` they run): every server's
/// URL differs, and so does its token file.
/// (`MCPBIND_CREDENTIALS_DIR`, exported before `main` by
/// tests/tests/env.rs.)
fn library_store() {
    assert!(std::env::var_os("MCPBIND_CREDENTIALS_DIR").is_some());
}

/// A "browser" that approves at once: it follows the authorization URL's
/// redirects back to the loopback listener. It records the URLs it opens.
fn browser() -> (mcpbind::ClientHooks, Arc<Mutex<Vec<String>>>) {
    let opened = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&opened);
    let hooks = mcpbind::ClientHooks::default().browser(move |server: &str, url: &str| {
        assert_eq!(server, "sec");
        seen.lock().unwrap().push(url.to_owned());
        let url = url.to_owned();
        tokio::spawn(async move {
            let _ = tokio::process::Command::new("curl")
                .args(["--silent", "--location", "--output", "/dev/null", &url])
                .status()
                .await;
        });
    });
    (hooks, opened)
}

/// The `scope` of an authorization URL, as a list.
fn scope_of(url: &str) -> Vec<String> {
    let query = url.split_once('?').map(|(_, q)| q).unwrap_or_default();
    query
        .split('&')
        .find_map(|pair| pair.strip_prefix("scope="))
        .unwrap_or_default()
        .split(['+', ' '])
        .map(|s| s.replace("%20", " "))
        .filter(|s| !s.is_empty())
        .collect()
}

/// With a browser hook, a client with no token authorizes when the server
/// first refuses it, then steps up to the union of its scopes and the one
/// the server's `insufficient_scope` challenge names, and the call goes
/// through: two authorizations, the second for `mcp admin`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_with_a_browser_authorizes_and_steps_up_by_itself() {
    library_store();
    let server = OAuthServer::with_args(&["--require-scope", "admin"]);
    let config = mcpbind::Config::new()
        .server(
            "sec",
            mcpbind::ServerConfig::http(server.url.as_str()).auth("oauth"),
        )
        .unwrap();
    let (hooks, opened) = browser();
    let client = mcpbind::Client::connect_with(&config, "sec", hooks)
        .await
        .unwrap();
    assert_eq!(whoami(&client).await, "grant=authorization_code");
    let opened = opened.lock().unwrap().clone();
    assert_eq!(opened.len(), 2, "{opened:?}");
    assert_eq!(scope_of(&opened[0]), ["mcp"], "{opened:?}");
    let mut stepped = scope_of(&opened[1]);
    stepped.sort();
    assert_eq!(stepped, ["admin", "mcp"], "{opened:?}");
    client.close().await;
}

/// DPoP through the browser hook: a client with no token authorizes when
/// the server first refuses it (a `DPoP` challenge), binds the token to a
/// key (the authorization server's nonce on the code exchange), and its
/// requests carry proofs with the MCP server's nonce, learned from its 401
/// `use_dpop_nonce` while connected; one authorization, several calls
/// (the server refuses a replayed proof).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_with_a_browser_binds_its_token_with_dpop() {
    library_store();
    let server = OAuthServer::with_args(&["--dpop"]);
    let config = mcpbind::Config::new()
        .server(
            "sec",
            mcpbind::ServerConfig::http(server.url.as_str()).auth("oauth"),
        )
        .unwrap();
    let (hooks, opened) = browser();
    let client = mcpbind::Client::connect_with(&config, "sec", hooks)
        .await
        .unwrap();
    for _ in 0..3 {
        assert_eq!(whoami(&client).await, "grant=authorization_code");
    }
    assert_eq!(opened.lock().unwrap().len(), 1);
    client.close().await;
}

/// Without a browser hook nothing opens: the server's refusal is the error,
/// with what to do.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_without_a_browser_says_to_log_in() {
    library_store();
    let server = OAuthServer::start(3600);
    let config = mcpbind::Config::new()
        .server(
            "sec",
            mcpbind::ServerConfig::http(server.url.as_str()).auth("oauth"),
        )
        .unwrap();
    let Err(error) =
        mcpbind::Client::connect_with(&config, "sec", mcpbind::ClientHooks::default()).await
    else {
        panic!("no token, no browser: connected");
    };
    assert!(
        matches!(error, mcpbind::Error::Auth { login: true, .. }),
        "{error:?}"
    );
}

/// A granted token has no refresh token: when it is about to expire, the
/// server's 401 brings a new grant, and the call goes through.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expiring_grant_is_granted_again() {
    // Announced as lasting 2 s (the server holds it valid for an hour):
    // rmcp renews a token once less than max(1, min(30, expires_in / 2))
    // seconds remain, counting whole seconds of the system clock from the
    // second it came, so this one is due once two whole seconds have
    // ticked, and the one granted again is not when the call is sent. The
    // wait is for the system clock that rmcp reads (a paused tokio clock
    // cannot move it); a token due from the start (`--expires-in 0`) is no
    // shorter way, since a client never gets to use it (it is granted
    // again once per 401, then refused), and a library client's tokens are
    // in memory, not backdated as the CLI's token files are in oauth.rs.
    let server = OAuthServer::with_args(&["--expires-in", "2"]);
    let config = server.client_credentials(|s| s);
    let client = mcpbind::Client::connect_server("ci", config.servers["ci"].clone())
        .await
        .unwrap();
    let granted = server.issued().len();
    whole_seconds_pass(2);
    assert_eq!(whoami(&client).await, "grant=client_credentials");
    assert_eq!(server.issued().len(), granted + 1, "one new grant");
    client.close().await;
}

/// Sleeps until the system clock's whole seconds have ticked `seconds`
/// times from now (rmcp's count of a token's age).
fn whole_seconds_pass(seconds: u64) {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap();
    let then = std::time::Duration::from_secs(now.as_secs() + seconds);
    std::thread::sleep(then - now);
}
