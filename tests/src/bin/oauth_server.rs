//! An MCP server protected by OAuth, with its own authorization server, for
//! the OAuth tests: `oauth_server [--ttl SECONDS] [--require-scope SCOPE]
//! [--resource URL]` listens on 127.0.0.1 and prints
//! `listening on http://127.0.0.1:PORT/mcp`.
//!
//! - `/mcp` (Streamable HTTP) answers 401 with a `WWW-Authenticate` challenge
//!   naming its protected-resource metadata unless the request carries a
//!   token this server issued and that has not expired, and 403
//!   `insufficient_scope` (step-up) when the token lacks `--require-scope`.
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
    /// A scope `/mcp` requires besides `mcp` (`--require-scope`).
    required: Option<String>,
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
}

type Shared = Arc<Mutex<Auth>>;

impl Auth {
    fn token(&mut self, kind: &str) -> String {
        self.counter += 1;
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or_default();
        let token = format!("mcpbind-canary-{kind}-{}-{nanos:08x}", self.counter);
        if let Some(path) = std::env::var_os("OAUTH_TOKEN_LOG") {
            if let Ok(mut file) = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
            {
                let _ = writeln!(file, "{token}");
            }
        }
        token
    }

    /// A token response for `grant`, with a refresh token for the
    /// authorization-code grant (and its refreshes).
    fn tokens(&mut self, grant: &'static str, scope: String) -> Value {
        let access = self.token("access");
        self.access.insert(
            access.clone(),
            Issued {
                grant,
                expires: Instant::now() + self.ttl,
                scope: scope.clone(),
            },
        );
        let mut body = json!({
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": self.ttl.as_secs(),
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

    fn valid(&self, headers: &HeaderMap) -> Option<Issued> {
        let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
        let issued = self.access.get(value.strip_prefix("Bearer ")?)?;
        (issued.expires > Instant::now()).then(|| issued.clone())
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
    let base = auth.lock().unwrap().base.clone();
    Json(json!({
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
    }))
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
            Json(auth.tokens("authorization_code", pending.scope)).into_response()
        }
        "refresh_token" => {
            let Some(scope) = auth.refresh.remove(&param("refresh_token")) else {
                return oauth_error("invalid_grant", "unknown refresh token");
            };
            Json(auth.tokens("refresh_token", scope)).into_response()
        }
        "client_credentials" if form.contains_key("client_assertion") => {
            if let Err(reason) = verify_assertion(&form, &auth.base) {
                let body = json!({"error": "invalid_client", "error_description": reason});
                return (StatusCode::UNAUTHORIZED, Json(body)).into_response();
            }
            Json(auth.tokens("private_key_jwt", param("scope"))).into_response()
        }
        JWT_BEARER if auth.jags.contains(&param("assertion")) => {
            let (id, secret) = basic_credentials(&headers)
                .unwrap_or_else(|| (param("client_id"), param("client_secret")));
            if (id.as_str(), secret.as_str()) != CI_CLIENT {
                let body = json!({"error": "invalid_client"});
                return (StatusCode::UNAUTHORIZED, Json(body)).into_response();
            }
            auth.jags.retain(|jag| *jag != param("assertion"));
            Json(auth.tokens("enterprise", param("scope"))).into_response()
        }
        JWT_BEARER => {
            if param("assertion") != WORKLOAD_JWT {
                return oauth_error("invalid_grant", "the assertion is not the workload's");
            }
            Json(auth.tokens("jwt_bearer", param("scope"))).into_response()
        }
        "client_credentials" => {
            let (id, secret) = basic_credentials(&headers)
                .unwrap_or_else(|| (param("client_id"), param("client_secret")));
            if (id.as_str(), secret.as_str()) != CI_CLIENT {
                let body = json!({"error": "invalid_client"});
                return (StatusCode::UNAUTHORIZED, Json(body)).into_response();
            }
            Json(auth.tokens("client_credentials", param("scope"))).into_response()
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
            .map(|issued| issued.grant)
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
    let (issued, base, scopes, required) = {
        let auth = auth.lock().unwrap();
        let issued = auth.valid(request.headers());
        (
            issued,
            auth.base.clone(),
            auth.scopes(),
            auth.required.clone(),
        )
    };
    let metadata = format!("{base}/.well-known/oauth-protected-resource/mcp");
    let Some(issued) = issued else {
        let challenge = format!("Bearer resource_metadata=\"{metadata}\", scope=\"mcp\"");
        return (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, challenge)],
            "unauthorized",
        )
            .into_response();
    };
    match required {
        Some(extra) if !issued.scope.split(' ').any(|s| s == extra) => {
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

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut ttl = Duration::from_secs(3600);
    let mut required = None;
    let mut resource = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--ttl" => {
                let seconds: u64 = args.next().ok_or("--ttl needs seconds")?.parse()?;
                ttl = Duration::from_secs(seconds);
            }
            "--require-scope" => required = args.next(),
            "--resource" => resource = args.next(),
            other => return Err(format!("unknown argument `{other}`").into()),
        }
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let base = format!("http://{}", listener.local_addr()?);
    let auth: Shared = Arc::new(Mutex::new(Auth {
        base: base.clone(),
        ttl,
        required,
        resource,
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
