//! An MCP server protected by OAuth, with its own authorization server, for
//! the OAuth tests: `oauth_server [--ttl SECONDS] [--expires-in SECONDS]
//! [--require-scope SCOPE [--on-calls]] [--resource URL] [--dpop]` listens on 127.0.0.1
//! and prints `listening on http://127.0.0.1:PORT/mcp`.
//!
//! `--expires-in` is the lifetime a token response announces, when it is
//! not the `--ttl` the server holds a token valid for: `--expires-in 0`
//! gives tokens a client takes for expired at once (its refresh is then
//! tested without waiting on the clock), while the server still takes
//! them.
//!
//! With `--dpop`, tokens are DPoP-bound (RFC 9449): the metadata lists
//! `dpop_signing_alg_values_supported`, the token endpoint requires a
//! valid proof with its nonce (else 400 `use_dpop_nonce` and a
//! `DPoP-Nonce`) and issues `token_type: DPoP` tokens bound to the proof's
//! key, and `/mcp` takes only `Authorization: DPoP` with a fresh proof
//! (`ath`, the key the token is bound to, its own nonce: else 401
//! `use_dpop_nonce`). Proofs are logged as canaries too.
//!
//! - `/mcp` (Streamable HTTP) answers 401 with a `WWW-Authenticate` challenge
//!   naming its protected-resource metadata unless the request carries a
//!   token this server issued and that has not expired, and 403
//!   `insufficient_scope` (step-up) when the token lacks `--require-scope`
//!   (with `--on-calls`, only to a `tools/call`: the handshake and
//!   `tools/list` go through, as on a server whose tools need more than
//!   connecting does).
//!   Its one tool, `whoami`, answers with the grant that issued the caller's token.
//! - The authorization server: RFC 9728 and RFC 8414 metadata, dynamic client
//!   registration, an `/authorize` that approves at once (a user who clicks
//!   "allow") after checking PKCE S256 and the `resource`, and a `/token`
//!   endpoint for the authorization-code, refresh-token and
//!   client-credentials grants (client `ci-client`, secret `ci-secret`, or
//!   a `private_key_jwt` assertion signed by [`CI_PUBLIC_KEY`]'s private
//!   key, `tests/tests/auth_grants.rs`' fixture), and the JWT-bearer grant
//!   of a workload whose assertion is [`WORKLOAD_JWT`], or of an ID-JAG
//!   its enterprise identity provider issued.
//! - The enterprise identity provider: `/idp/token` exchanges the user's ID
//!   token ([`ENTERPRISE_ID_TOKEN`], client `idp-client`) for an ID-JAG for
//!   this authorization server and `/mcp` (RFC 8693, SEP-990).
//!
//! Every token it issues starts with `mcpbind-canary-` and is appended to the
//! file named by `OAUTH_TOKEN_LOG`, so that tests can check that no token
//! ever shows up in output, logs, the lockfile or generated code.

use std::collections::HashMap;
use std::io::Write as _;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::{Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Form, Json, Router};
use base64::Engine as _;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{json, Value};
use sha2::Digest as _;

const CI_CLIENT: (&str, &str) = ("ci-client", "ci-secret");

/// The public half of `ci-client`'s P-256 key (a test fixture: the private
/// half is in tests/tests/auth_grants.rs).
const CI_PUBLIC_KEY: &str = "-----BEGIN PUBLIC KEY-----
MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEoVEeICFSSHSZ4bioPJaMie+QVCLN
CL1JbRmlhAj60hqJN1z5ovZ4nEvTYos2bh1gX0Jfl/OX/+Jm/EMD01b7tA==
-----END PUBLIC KEY-----
";

/// The JWT a workload presents in the JWT-bearer grant (a canary: it must
/// never show up either).
const WORKLOAD_JWT: &str = "mcpbind-canary-workload-assertion";

const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/// The user's ID token from the enterprise identity provider (a canary).
const ENTERPRISE_ID_TOKEN: &str = "mcpbind-canary-enterprise-id-token";

const ID_JAG: &str = "urn:ietf:params:oauth:token-type:id-jag";

/// A token's grant and expiry.
#[derive(Clone)]
struct Issued {
    grant: &'static str,
    expires: Instant,
    scope: String,
    /// The thumbprint of the DPoP key the token is bound to.
    jkt: Option<String>,
}

/// A code waiting for its exchange.
struct PendingCode {
    challenge: String,
    redirect_uri: String,
    scope: String,
}

#[derive(Default)]
struct Auth {
    base: String,
    ttl: Duration,
    /// The `expires_in` token responses announce (`--expires-in`), when
    /// not `ttl`.
    expires_in: Option<Duration>,
    /// A scope `/mcp` requires besides `mcp` (`--require-scope`).
    required: Option<String>,
    /// `required` only for a `tools/call` (`--on-calls`).
    on_calls: bool,
    /// The `resource` its metadata names, when not its own `/mcp`
    /// (`--resource`: a misconfigured or malicious server).
    resource: Option<String>,
    counter: u64,
    access: HashMap<String, Issued>,
    /// Refresh tokens and the scope they were granted with.
    refresh: HashMap<String, String>,
    codes: HashMap<String, PendingCode>,
    clients: u64,
    /// ID-JAGs the identity provider issued, not yet exchanged.
    jags: Vec<String>,
    /// DPoP-bound tokens (`--dpop`), and the proofs' `jti`s seen.
    dpop: bool,
    jtis: std::collections::HashSet<String>,
}

/// The nonces `--dpop` requires at the token endpoint and at `/mcp`.
const AS_NONCE: &str = "as-nonce-1";
const RS_NONCE: &str = "rs-nonce-1";

type Shared = Arc<Mutex<Auth>>;

impl Auth {
    fn token(&mut self, kind: &str) -> String {
        self.counter += 1;
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or_default();
        let token = format!("mcpbind-canary-{kind}-{}-{nanos:08x}", self.counter);
        log_secret(&token);
        token
    }

    /// Checks a DPoP proof (RFC 9449 §4.3) of a `method` request to `url`:
    /// the key's thumbprint, or the error to answer (`use_dpop_nonce` when
    /// only the nonce is missing or stale).
    fn proof(
        &mut self,
        headers: &HeaderMap,
        method: &str,
        url: &str,
        token: Option<&str>,
        nonce: &str,
    ) -> Result<String, &'static str> {
        let mut proofs = headers.get_all("dpop").iter();
        let (Some(proof), None) = (proofs.next(), proofs.next()) else {
            return Err("invalid_dpop_proof");
        };
        let proof = proof.to_str().map_err(|_| "invalid_dpop_proof")?;
        log_secret(proof);
        let header = jsonwebtoken::decode_header(proof).map_err(|_| "invalid_dpop_proof")?;
        let jwk = header.jwk.ok_or("invalid_dpop_proof")?;
        if header.typ.as_deref() != Some("dpop+jwt") || header.alg != jsonwebtoken::Algorithm::ES256
        {
            return Err("invalid_dpop_proof");
        }
        let key = jsonwebtoken::DecodingKey::from_jwk(&jwk).map_err(|_| "invalid_dpop_proof")?;
        let mut validation = jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::ES256);
        validation.validate_exp = false;
        validation.set_required_spec_claims::<&str>(&[]);
        let claims = jsonwebtoken::decode::<Value>(proof, &key, &validation)
            .map_err(|_| "invalid_dpop_proof")?
            .claims;
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs();
        let fresh = claims["iat"]
            .as_u64()
            .is_some_and(|iat| iat.abs_diff(now) < 300);
        let ath = token.map(|t| {
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(sha2::Sha256::digest(t))
        });
        let jti = claims["jti"].as_str().unwrap_or_default().to_owned();
        if claims["htm"] != method
            || claims["htu"] != url
            || !fresh
            || jti.is_empty()
            || claims["ath"].as_str().map(str::to_owned) != ath
            || !self.jtis.insert(jti)
        {
            return Err("invalid_dpop_proof");
        }
        if claims["nonce"] != nonce {
            return Err("use_dpop_nonce");
        }
        jwk.thumbprint(jsonwebtoken::jwk::ThumbprintHash::SHA256)
            .map_err(|_| "invalid_dpop_proof")
    }
}

/// Appends a secret (a token, a proof) to the file named by
/// `OAUTH_TOKEN_LOG`, the canaries the tests look for.
fn log_secret(token: &str) {
    {
        if let Some(path) = std::env::var_os("OAUTH_TOKEN_LOG") {
            if let Ok(mut file) = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
            {
                let _ = writeln!(file, "{token}");
            }
        }
    }
}

impl Auth {
    /// A token response for `grant`, with a refresh token for the
    /// authorization-code grant (and its refreshes).
    fn tokens(&mut self, grant: &'static str, scope: String, jkt: Option<String>) -> Value {
        let access = self.token("access");
        let token_type = if jkt.is_some() { "DPoP" } else { "Bearer" };
        self.access.insert(
            access.clone(),
            Issued {
                grant,
                expires: Instant::now() + self.ttl,
                scope: scope.clone(),
                jkt,
            },
        );
        let mut body = json!({
            "access_token": access,
            "token_type": token_type,
            "expires_in": self.expires_in.unwrap_or(self.ttl).as_secs(),
            "scope": scope,
        });
        if matches!(grant, "authorization_code" | "refresh_token") {
            let refresh = self.token("refresh");
            self.refresh.insert(refresh.clone(), scope);
            body["refresh_token"] = refresh.into();
        }
        body
    }

    /// The scopes `/mcp` asks for in its step-up challenge.
    fn scopes(&self) -> String {
        match &self.required {
            Some(extra) => format!("mcp {extra}"),
            None => "mcp".to_owned(),
        }
    }

    /// The token of a request and its issue, if valid: `Bearer`, or with
    /// `--dpop` `DPoP` for a bound token (its proof is checked apart).
    fn valid(&self, headers: &HeaderMap) -> Option<(String, Issued)> {
        let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
        let token = match value.strip_prefix("DPoP ") {
            Some(token) if self.dpop => token,
            _ => value.strip_prefix("Bearer ")?,
        };
        let issued = self.access.get(token)?;
        let scheme_fits = issued.jkt.is_some() == value.starts_with("DPoP ");
        (scheme_fits && issued.expires > Instant::now()).then(|| (token.to_owned(), issued.clone()))
    }
}

fn oauth_error(error: &str, description: &str) -> Response {
    let body = json!({"error": error, "error_description": description});
    (StatusCode::BAD_REQUEST, Json(body)).into_response()
}

async fn resource_metadata(State(auth): State<Shared>) -> Json<Value> {
    let auth = auth.lock().unwrap();
    let base = auth.base.clone();
    let resource = auth.resource.clone().unwrap_or(format!("{base}/mcp"));
    Json(json!({
        "resource": resource,
        "authorization_servers": [base],
        "scopes_supported": ["mcp"],
        "bearer_methods_supported": ["header"],
    }))
}

async fn server_metadata(State(auth): State<Shared>) -> Json<Value> {
    let (base, dpop) = {
        let auth = auth.lock().unwrap();
        (auth.base.clone(), auth.dpop)
    };
    let mut metadata = json!({
        "issuer": base,
        "authorization_endpoint": format!("{base}/authorize"),
        "token_endpoint": format!("{base}/token"),
        "registration_endpoint": format!("{base}/register"),
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token", "client_credentials", JWT_BEARER],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["none", "client_secret_post", "client_secret_basic", "private_key_jwt"],
        "token_endpoint_auth_signing_alg_values_supported": ["ES256"],
        "scopes_supported": ["mcp"],
    });
    if dpop {
        metadata["dpop_signing_alg_values_supported"] = json!(["ES256"]);
    }
    Json(metadata)
}

async fn register(State(auth): State<Shared>, Json(request): Json<Value>) -> Response {
    let mut auth = auth.lock().unwrap();
    auth.clients += 1;
    let mut body = request;
    body["client_id"] = format!("registered-{}", auth.clients).into();
    body["token_endpoint_auth_method"] = "none".into();
    (StatusCode::CREATED, Json(body)).into_response()
}

async fn authorize(
    State(auth): State<Shared>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let mut auth = auth.lock().unwrap();
    let param = |k: &str| query.get(k).cloned().unwrap_or_default();
    let resource = format!("{}/mcp", auth.base);
    if param("resource") != resource {
        return oauth_error("invalid_target", "resource must name this server's /mcp");
    }
    if param("code_challenge_method") != "S256" || param("code_challenge").is_empty() {
        return oauth_error("invalid_request", "PKCE with S256 is required");
    }
    let code = auth.token("code");
    let redirect_uri = param("redirect_uri");
    auth.codes.insert(
        code.clone(),
        PendingCode {
            challenge: param("code_challenge"),
            redirect_uri: redirect_uri.clone(),
            scope: param("scope"),
        },
    );
    let state = param("state");
    let separator = if redirect_uri.contains('?') { '&' } else { '?' };
    Redirect::to(&format!(
        "{redirect_uri}{separator}code={code}&state={state}"
    ))
    .into_response()
}

async fn token(
    State(auth): State<Shared>,
    headers: HeaderMap,
    Form(form): Form<HashMap<String, String>>,
) -> Response {
    let mut auth = auth.lock().unwrap();
    let param = |k: &str| form.get(k).cloned().unwrap_or_default();
    let mut jkt = None;
    if auth.dpop
        && matches!(
            param("grant_type").as_str(),
            "authorization_code" | "refresh_token"
        )
    {
        let url = format!("{}/token", auth.base);
        match auth.proof(&headers, "POST", &url, None, AS_NONCE) {
            Ok(thumbprint) => jkt = Some(thumbprint),
            Err(error) => {
                let body = json!({"error": error});
                let nonce = [("dpop-nonce", AS_NONCE)];
                return (StatusCode::BAD_REQUEST, nonce, Json(body)).into_response();
            }
        }
    }
    match param("grant_type").as_str() {
        "authorization_code" => {
            let Some(pending) = auth.codes.remove(&param("code")) else {
                return oauth_error("invalid_grant", "unknown or used code");
            };
            let digest = sha2::Sha256::digest(param("code_verifier").as_bytes());
            let challenge = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(digest);
            if challenge != pending.challenge {
                return oauth_error("invalid_grant", "PKCE verifier does not match");
            }
            if param("redirect_uri") != pending.redirect_uri {
                return oauth_error("invalid_grant", "redirect_uri does not match");
            }
            Json(auth.tokens("authorization_code", pending.scope, jkt)).into_response()
        }
        "refresh_token" => {
            let Some(scope) = auth.refresh.remove(&param("refresh_token")) else {
                return oauth_error("invalid_grant", "unknown refresh token");
            };
            Json(auth.tokens("refresh_token", scope, jkt)).into_response()
        }
        "client_credentials" if form.contains_key("client_assertion") => {
            if let Err(reason) = verify_assertion(&form, &auth.base) {
                let body = json!({"error": "invalid_client", "error_description": reason});
                return (StatusCode::UNAUTHORIZED, Json(body)).into_response();
            }
            Json(auth.tokens("private_key_jwt", param("scope"), None)).into_response()
        }
        JWT_BEARER if auth.jags.contains(&param("assertion")) => {
            let (id, secret) = basic_credentials(&headers)
                .unwrap_or_else(|| (param("client_id"), param("client_secret")));
            if (id.as_str(), secret.as_str()) != CI_CLIENT {
                let body = json!({"error": "invalid_client"});
                return (StatusCode::UNAUTHORIZED, Json(body)).into_response();
            }
            auth.jags.retain(|jag| *jag != param("assertion"));
            Json(auth.tokens("enterprise", param("scope"), None)).into_response()
        }
        JWT_BEARER => {
            if param("assertion") != WORKLOAD_JWT {
                return oauth_error("invalid_grant", "the assertion is not the workload's");
            }
            Json(auth.tokens("jwt_bearer", param("scope"), None)).into_response()
        }
        "client_credentials" => {
            let (id, secret) = basic_credentials(&headers)
                .unwrap_or_else(|| (param("client_id"), param("client_secret")));
            if (id.as_str(), secret.as_str()) != CI_CLIENT {
                let body = json!({"error": "invalid_client"});
                return (StatusCode::UNAUTHORIZED, Json(body)).into_response();
            }
            Json(auth.tokens("client_credentials", param("scope"), None)).into_response()
        }
        _ => oauth_error("unsupported_grant_type", "unsupported grant"),
    }
}

/// The identity provider's token exchange: the user's ID token for an
/// ID-JAG naming this authorization server and `/mcp`.
async fn idp_token(
    State(auth): State<Shared>,
    Form(form): Form<HashMap<String, String>>,
) -> Response {
    let mut auth = auth.lock().unwrap();
    let param = |k: &str| form.get(k).cloned().unwrap_or_default();
    let base = auth.base.clone();
    let expected = [
        (
            "grant_type",
            "urn:ietf:params:oauth:grant-type:token-exchange".to_owned(),
        ),
        ("subject_token", ENTERPRISE_ID_TOKEN.to_owned()),
        (
            "subject_token_type",
            "urn:ietf:params:oauth:token-type:id_token".to_owned(),
        ),
        ("requested_token_type", ID_JAG.to_owned()),
        ("audience", base.clone()),
        ("resource", format!("{base}/mcp")),
        ("client_id", "idp-client".to_owned()),
    ];
    if let Some((key, _)) = expected.iter().find(|(k, v)| param(k) != *v) {
        return oauth_error("invalid_request", &format!("wrong or missing `{key}`"));
    }
    let jag = auth.token("id-jag");
    auth.jags.push(jag.clone());
    Json(json!({"access_token": jag, "issued_token_type": ID_JAG, "token_type": "N_A"}))
        .into_response()
}

/// Checks a `private_key_jwt` client assertion (RFC 7523 §3): signed by
/// `ci-client`'s key, issued by and about it, for this authorization server,
/// not expired, and no `client_id` beside it.
fn verify_assertion(form: &HashMap<String, String>, issuer: &str) -> Result<(), String> {
    if form.get("client_assertion_type").map(String::as_str)
        != Some("urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
    {
        return Err("wrong client_assertion_type".into());
    }
    if form.contains_key("client_id") {
        return Err("client_id beside an assertion".into());
    }
    let key = jsonwebtoken::DecodingKey::from_ec_pem(CI_PUBLIC_KEY.as_bytes())
        .map_err(|e| e.to_string())?;
    let mut validation = jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::ES256);
    validation.set_audience(&[issuer]);
    validation.set_issuer(&[CI_CLIENT.0]);
    validation.sub = Some(CI_CLIENT.0.to_owned());
    validation.set_required_spec_claims(&["exp", "aud", "iss", "sub"]);
    let assertion = form.get("client_assertion").cloned().unwrap_or_default();
    jsonwebtoken::decode::<Value>(&assertion, &key, &validation)
        .map(|_| ())
        .map_err(|e| format!("the assertion does not verify: {e}"))
}

fn basic_credentials(headers: &HeaderMap) -> Option<(String, String)> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(value.strip_prefix("Basic ")?)
        .ok()?;
    let text = String::from_utf8(decoded).ok()?;
    let (id, secret) = text.split_once(':')?;
    Some((id.to_owned(), secret.to_owned()))
}

/// The MCP server: one tool, `whoami`.
#[derive(Clone)]
struct Whoami(Shared);

impl ServerHandler for Whoami {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("oauth-server", "1.0.0"))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let serde_json::Value::Object(schema) = json!({"type": "object", "properties": {}}) else {
            unreachable!("an object literal")
        };
        Ok(ListToolsResult::with_all_items(vec![Tool::new(
            "whoami",
            "Says which grant issued the caller's token.",
            Arc::new(schema),
        )]))
    }

    async fn call_tool(
        &self,
        _request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let parts = context.extensions.get::<axum::http::request::Parts>();
        let grant = parts
            .and_then(|p| self.0.lock().unwrap().valid(&p.headers))
            .map(|(_, issued)| issued.grant)
            .unwrap_or("none");
        Ok(CallToolResponse::Complete(CallToolResult::success(vec![
            ContentBlock::text(format!("grant={grant}")),
        ])))
    }
}

/// Lets a request through to `/mcp` only with a valid token.
async fn require_token(
    State(auth): State<Shared>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let on_calls = auth.lock().unwrap().on_calls;
    let (request, calling) = match on_calls {
        true => tools_call(request).await,
        false => (request, true),
    };
    let (issued, base, scopes, required, dpop) = {
        let mut auth = auth.lock().unwrap();
        let mut issued = auth.valid(request.headers());
        let base = auth.base.clone();
        let mut refused = None;
        if let Some((token, bound)) = issued.clone().filter(|(_, i)| i.jkt.is_some()) {
            let url = format!("{base}/mcp");
            let method = request.method().as_str().to_owned();
            match auth.proof(request.headers(), &method, &url, Some(&token), RS_NONCE) {
                Ok(jkt) if Some(&jkt) == bound.jkt.as_ref() => {}
                Ok(_) => {
                    issued = None;
                    refused = Some("invalid_token");
                }
                Err(error) => {
                    issued = None;
                    refused = Some(error);
                }
            }
        }
        (
            issued.map(|(_, i)| i),
            base,
            auth.scopes(),
            auth.required.clone(),
            auth.dpop.then_some(refused),
        )
    };
    let metadata = format!("{base}/.well-known/oauth-protected-resource/mcp");
    let Some(issued) = issued else {
        if let Some(refused) = dpop {
            let error = refused
                .map(|e| format!(" error=\"{e}\","))
                .unwrap_or_default();
            let challenge = format!("DPoP{error} resource_metadata=\"{metadata}\", scope=\"mcp\"");
            return (
                StatusCode::UNAUTHORIZED,
                [
                    (header::WWW_AUTHENTICATE.as_str(), challenge),
                    ("dpop-nonce", RS_NONCE.to_owned()),
                ],
                "unauthorized",
            )
                .into_response();
        }
        let challenge = format!("Bearer resource_metadata=\"{metadata}\", scope=\"mcp\"");
        return (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, challenge)],
            "unauthorized",
        )
            .into_response();
    };
    match required {
        Some(extra) if calling && !issued.scope.split(' ').any(|s| s == extra) => {
            let challenge = format!(
                "Bearer error=\"insufficient_scope\", scope=\"{scopes}\", resource_metadata=\"{metadata}\""
            );
            (
                StatusCode::FORBIDDEN,
                [(header::WWW_AUTHENTICATE, challenge)],
                "insufficient scope",
            )
                .into_response()
        }
        _ => next.run(request).await,
    }
}

/// The request, read whole and put back, and whether it is a JSON-RPC
/// `tools/call`.
async fn tools_call(request: axum::extract::Request) -> (axum::extract::Request, bool) {
    let (parts, body) = request.into_parts();
    let bytes = axum::body::to_bytes(body, 1 << 20)
        .await
        .unwrap_or_default();
    let calling = serde_json::from_slice::<Value>(&bytes)
        .is_ok_and(|message| message["method"] == "tools/call");
    let request = axum::extract::Request::from_parts(parts, axum::body::Body::from(bytes));
    (request, calling)
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut ttl = Duration::from_secs(3600);
    let mut expires_in = None;
    let mut required = None;
    let mut resource = None;
    let mut dpop = false;
    let mut on_calls = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--ttl" => {
                let seconds: u64 = args.next().ok_or("--ttl needs seconds")?.parse()?;
                ttl = Duration::from_secs(seconds);
            }
            "--expires-in" => {
                let seconds: u64 = args.next().ok_or("--expires-in needs seconds")?.parse()?;
                expires_in = Some(Duration::from_secs(seconds));
            }
            "--require-scope" => required = args.next(),
            "--resource" => resource = args.next(),
            "--dpop" => dpop = true,
            "--on-calls" => on_calls = true,
            other => return Err(format!("unknown argument `{other}`").into()),
        }
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let base = format!("http://{}", listener.local_addr()?);
    let auth: Shared = Arc::new(Mutex::new(Auth {
        base: base.clone(),
        ttl,
        expires_in,
        required,
        on_calls,
        resource,
        dpop,
        ..Auth::default()
    }));
    let mcp = StreamableHttpService::new(
        {
            let auth = Arc::clone(&auth);
            move || Ok(Whoami(Arc::clone(&auth)))
        },
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let protected =
        Router::new()
            .nest_service("/mcp", mcp)
            .layer(axum::middleware::from_fn_with_state(
                Arc::clone(&auth),
                require_token,
            ));
    let router = Router::new()
        .route(
            "/.well-known/oauth-protected-resource/mcp",
            get(resource_metadata),
        )
        .route(
            "/.well-known/oauth-authorization-server",
            get(server_metadata),
        )
        .route("/register", post(register))
        .route("/authorize", get(authorize))
        .route("/token", post(token))
        .route("/idp/token", post(idp_token))
        .with_state(auth)
        .merge(protected);
    println!("listening on {base}/mcp");
    std::io::stdout().flush()?;
    axum::serve(listener, router).await?;
    Ok(())
}
