//! The client-credentials grant (RFC 6749 §4.4, the MCP extension
//! SEP-1046), requested by mcpbind itself: the client authenticates with
//! its secret (`client_secret_post`, or `client_secret_basic` where the
//! authorization server takes only that) or with a JWT assertion signed by
//! its private key (`private_key_jwt`, RFC 7523 §2.2; signed by
//! `jsonwebtoken`). The token is kept in memory, in the manager that the
//! connection's requests take it from; when it expires, the server's 401
//! brings a new grant.
//!
//! (rmcp has the same grant, but with its `auth-client-credentials-jwt`
//! feature the future is not `Send`, and a connection's requests need one.)

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rmcp::transport::auth::{
    AuthorizationManager, AuthorizationMetadata, CredentialStore, InMemoryCredentialStore,
    OAuthTokenResponse, StoredCredentials,
};

use super::Target;
use crate::error::{Error, Result};
use mcpbind_model::config::{Assertion, AuthConfig, SigningAlgorithm};
use mcpbind_model::internal::chain;
use mcpbind_model::redact;

/// How long a token request may take.
const TOKEN_TIMEOUT: Duration = Duration::from_secs(30);

/// The largest token response read.
const MAX_TOKEN_RESPONSE_BYTES: usize = 64 * 1024;

/// How long a client assertion is valid.
const ASSERTION_LIFETIME: u64 = 300;

const ASSERTION_TYPE: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/// RFC 8693 token exchange, and the token types of enterprise-managed
/// authorization's exchange.
const TOKEN_EXCHANGE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
const ID_JAG: &str = "urn:ietf:params:oauth:token-type:id-jag";
const ID_TOKEN: &str = "urn:ietf:params:oauth:token-type:id_token";

/// The JWT-bearer grant (RFC 7523 §2.1).
const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";

impl Target<'_> {
    fn fail(&self, reason: String) -> Error {
        let grant = match self.auth {
            AuthConfig::JwtBearer { .. } => "the JWT-bearer grant",
            AuthConfig::Enterprise { .. } => "enterprise-managed authorization",
            _ => "the client-credentials grant",
        };
        Error::Auth {
            server: self.server.to_owned(),
            reason: redact(&format!("{grant} failed: {reason}"), &self.secrets),
            login: false,
        }
    }

    /// A manager holding a fresh client-credentials token for `scopes`,
    /// and the scopes granted.
    pub(super) async fn grant(
        &self,
        scopes: &[String],
    ) -> Result<(AuthorizationManager, Vec<String>)> {
        let mut manager = self.manager().await?;
        let (metadata, endpoint) = self.discover_token_endpoint(&mut manager).await?;

        let grant_type = match self.auth {
            AuthConfig::JwtBearer { .. } | AuthConfig::Enterprise { .. } => JWT_BEARER,
            _ => "client_credentials",
        };
        let mut form: Vec<(&str, String)> = vec![("grant_type", grant_type.into())];
        if !scopes.is_empty() {
            form.push(("scope", scopes.join(" ")));
        }
        form.push(("resource", self.url.clone()));
        let (client_id, basic, file_jwt) = self
            .authenticate_client(&metadata, scopes, &mut form)
            .await?;

        let token = match self.token_request(&endpoint, &form, basic).await {
            Ok(token) => token,
            Err(e) => return Err(e.redacted(file_jwt.as_slice())),
        };
        let granted = self
            .keep_token(&mut manager, &metadata, client_id, token, scopes)
            .await?;
        Ok((manager, granted))
    }

    /// The authorization server's metadata, set on `manager`, and its
    /// token endpoint, checked to be one the credentials may be sent to.
    async fn discover_token_endpoint(
        &self,
        manager: &mut AuthorizationManager,
    ) -> Result<(AuthorizationMetadata, reqwest::Url)> {
        let metadata = manager
            .resolve_metadata()
            .await
            .map_err(|e| self.error("cannot discover the authorization server", e))?
            .metadata;
        manager.set_metadata(metadata.clone());
        let endpoint = reqwest::Url::parse(&metadata.token_endpoint)
            .map_err(|e| self.fail(format!("invalid token endpoint: {e}")))?;
        if !self.endpoint_allowed(&endpoint) {
            return Err(self.fail(format!(
                "the token endpoint {endpoint} is not HTTPS (plain HTTP is only for a loopback server and authorization server)"
            )));
        }
        Ok((metadata, endpoint))
    }

    /// Adds the client's authentication for its auth kind to the token
    /// request's `form`: the client id, the id and secret to send as Basic
    /// (else `None`), and the assertion read from a file (to redact).
    async fn authenticate_client(
        &self,
        metadata: &AuthorizationMetadata,
        scopes: &[String],
        form: &mut Vec<(&'static str, String)>,
    ) -> Result<(String, Option<(String, String)>, Option<String>)> {
        let secret = self.client_secret.clone().unwrap_or_default();
        let mut basic = None;
        let mut file_jwt = None;
        let client_id = match self.auth {
            AuthConfig::ClientCredentials { client_id, .. } => {
                basic = Self::push_client_secret(metadata, client_id, secret, form);
                client_id.clone()
            }
            AuthConfig::PrivateKeyJwt {
                client_id,
                signing_algorithm,
                ..
            } => {
                // The assertion identifies the client; no `client_id`
                // (RFC 7523 §3).
                let assertion = assertion(client_id, metadata, &secret, *signing_algorithm)
                    .map_err(|e| self.fail(e))?;
                form.push(("client_assertion_type", ASSERTION_TYPE.into()));
                form.push(("client_assertion", assertion));
                client_id.clone()
            }
            AuthConfig::JwtBearer {
                client_id,
                assertion,
                ..
            } => {
                let jwt = match assertion {
                    Assertion::Value(_) => secret,
                    Assertion::File(path) => {
                        let jwt = self.read_assertion_file(path)?;
                        file_jwt = Some(jwt.clone());
                        jwt
                    }
                    _ => return Err(self.fail("an assertion this version does not read".into())),
                };
                if jwt.is_empty() {
                    return Err(self.fail("the JWT-bearer assertion is empty".into()));
                }
                form.push(("assertion", jwt));
                if let Some(id) = client_id {
                    form.push(("client_id", id.clone()));
                }
                client_id.clone().unwrap_or_default()
            }
            AuthConfig::Enterprise {
                client_id,
                idp_token_endpoint,
                idp_client_id,
                ..
            } => {
                let issuer = metadata.issuer.clone().ok_or_else(|| {
                    self.fail("the authorization server's metadata names no issuer (the ID-JAG's audience)".into())
                })?;
                let jag = self
                    .identity_assertion(idp_token_endpoint, idp_client_id, &issuer, scopes)
                    .await?;
                form.push(("assertion", jag));
                basic = Self::push_client_secret(metadata, client_id, secret, form);
                client_id.clone()
            }
            AuthConfig::OAuth { .. } => return Err(super::not_oauth(self.server)),
            _ => return Err(self.fail("an auth kind this version does not support".into())),
        };
        Ok((client_id, basic, file_jwt))
    }

    /// Adds the client's id and secret to `form` (`client_secret_post`),
    /// or returns them to send as Basic where the authorization server
    /// takes only that (`client_secret_basic`).
    fn push_client_secret(
        metadata: &AuthorizationMetadata,
        client_id: &str,
        secret: String,
        form: &mut Vec<(&'static str, String)>,
    ) -> Option<(String, String)> {
        if only_basic(metadata) {
            return Some((client_id.to_owned(), secret));
        }
        form.push(("client_id", client_id.to_owned()));
        form.push(("client_secret", secret));
        None
    }

    /// The JWT-bearer assertion in the file at `path`, trimmed.
    fn read_assertion_file(&self, path: &std::path::Path) -> Result<String> {
        let jwt = std::fs::read_to_string(path).map_err(|e| {
            self.fail(format!(
                "cannot read `assertion_file` {}: {e}",
                path.display()
            ))
        })?;
        Ok(jwt.trim().to_owned())
    }

    /// Keeps the token response `token` in `manager`'s credential store:
    /// the scopes granted (the response's, else those asked for).
    async fn keep_token(
        &self,
        manager: &mut AuthorizationManager,
        metadata: &AuthorizationMetadata,
        client_id: String,
        token: serde_json::Value,
        scopes: &[String],
    ) -> Result<Vec<String>> {
        let granted = token
            .get("scope")
            .and_then(serde_json::Value::as_str)
            .map(|s| s.split_whitespace().map(str::to_owned).collect())
            .unwrap_or_else(|| scopes.to_vec());
        let token: OAuthTokenResponse = serde_json::from_value(token)
            .map_err(|e| self.fail(format!("the token response is not one: {e}")))?;
        let stored = StoredCredentials::new(client_id, Some(token), granted.clone(), Some(now()))
            .with_issuer(metadata.issuer.clone());
        let store = InMemoryCredentialStore::new();
        store
            .save(stored)
            .await
            .map_err(|e| self.error("cannot keep the token", e))?;
        manager.set_credential_store(store);
        Ok(granted)
    }

    /// Enterprise-managed authorization's first step (SEP-990): the user's
    /// ID token exchanged at the identity provider for an identity
    /// assertion grant (ID-JAG) for the authorization server `audience` and
    /// this server (RFC 8693 token exchange).
    async fn identity_assertion(
        &self,
        endpoint: &str,
        idp_client_id: &str,
        audience: &str,
        scopes: &[String],
    ) -> Result<String> {
        let endpoint = reqwest::Url::parse(endpoint)
            .map_err(|e| self.fail(format!("invalid `idp_token_endpoint`: {e}")))?;
        if !self.endpoint_allowed(&endpoint) {
            return Err(self.fail(format!(
                "the identity provider's token endpoint {endpoint} is not HTTPS (plain HTTP is only for loopback)"
            )));
        }
        let mut form: Vec<(&str, String)> = vec![
            ("grant_type", TOKEN_EXCHANGE.into()),
            ("requested_token_type", ID_JAG.into()),
            ("audience", audience.to_owned()),
            ("resource", self.url.clone()),
            ("subject_token", self.id_token.clone().unwrap_or_default()),
            ("subject_token_type", ID_TOKEN.into()),
            ("client_id", idp_client_id.to_owned()),
        ];
        if !scopes.is_empty() {
            form.push(("scope", scopes.join(" ")));
        }
        let answer = self.token_request(&endpoint, &form, None).await?;
        if answer
            .get("issued_token_type")
            .and_then(serde_json::Value::as_str)
            != Some(ID_JAG)
        {
            return Err(
                self.fail("the identity provider's token exchange did not issue an ID-JAG".into())
            );
        }
        Ok(answer["access_token"]
            .as_str()
            .unwrap_or_default()
            .to_owned())
    }

    /// Whether a token endpoint may be sent the client's credentials:
    /// HTTPS, or plain HTTP when both it and the server are on loopback.
    fn endpoint_allowed(&self, endpoint: &reqwest::Url) -> bool {
        let loopback = |url: &reqwest::Url| match url.host() {
            Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
            Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
            Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
            None => false,
        };
        endpoint.scheme() == "https"
            || (endpoint.scheme() == "http"
                && loopback(endpoint)
                && reqwest::Url::parse(&self.url).is_ok_and(|url| loopback(&url)))
    }

    /// POSTs `form` to the token endpoint: the token response as JSON, or
    /// the authorization server's refusal (its `error` and description).
    async fn token_request(
        &self,
        endpoint: &reqwest::Url,
        form: &[(&str, String)],
        basic: Option<(String, String)>,
    ) -> Result<serde_json::Value> {
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(TOKEN_TIMEOUT)
            .build()
            .map_err(|e| self.fail(e.to_string()))?;
        let body = form
            .iter()
            .fold(
                url::form_urlencoded::Serializer::new(String::new()),
                |mut s, (k, v)| {
                    s.append_pair(k, v);
                    s
                },
            )
            .finish();
        let mut request = client
            .post(endpoint.clone())
            .header(
                http::header::CONTENT_TYPE,
                "application/x-www-form-urlencoded",
            )
            .header(http::header::ACCEPT, "application/json")
            .body(body);
        if let Some((id, secret)) = basic {
            // RFC 6749 §2.3.1: form-encoded, then Basic.
            let encode =
                |s: &str| url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
            request = request.basic_auth(encode(&id), Some(encode(&secret)));
        }
        let response = request
            .send()
            .await
            .map_err(|e| self.fail(format!("cannot reach the token endpoint: {}", chain(&e))))?;
        let status = response.status();
        let bytes = response
            .bytes()
            .await
            .map_err(|e| self.fail(format!("cannot read the token response: {e}")))?;
        if bytes.len() > MAX_TOKEN_RESPONSE_BYTES {
            return Err(self.fail(format!(
                "the token response is larger than {MAX_TOKEN_RESPONSE_BYTES} bytes"
            )));
        }
        let json: Option<serde_json::Value> = serde_json::from_slice(&bytes).ok();
        if !status.is_success() {
            let text = |key: &str| {
                json.as_ref()
                    .and_then(|j| j.get(key))
                    .and_then(serde_json::Value::as_str)
                    .map(|s| s.chars().take(300).collect::<String>())
            };
            let mut reason = format!("the authorization server answered HTTP {}", status.as_u16());
            if let Some(error) = text("error") {
                reason.push_str(&format!(": {error}"));
                if let Some(description) = text("error_description") {
                    reason.push_str(&format!(" ({description})"));
                }
            }
            return Err(self.fail(reason));
        }
        json.filter(|j| {
            j.get("access_token")
                .is_some_and(serde_json::Value::is_string)
        })
        .ok_or_else(|| self.fail("the token response has no `access_token`".into()))
    }
}

/// Whether the authorization server takes the client secret only in the
/// `Authorization` header (`client_secret_basic`, not `client_secret_post`).
fn only_basic(metadata: &AuthorizationMetadata) -> bool {
    let Some(methods) = metadata
        .additional_fields
        .get("token_endpoint_auth_methods_supported")
        .and_then(serde_json::Value::as_array)
    else {
        return false;
    };
    let has = |m: &str| methods.iter().any(|v| v.as_str() == Some(m));
    has("client_secret_basic") && !has("client_secret_post")
}

/// Seconds since the Unix epoch.
pub(super) fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or_default()
}

/// A fresh unique identifier for a JWT (`jti`): 128 random bits, hex.
pub(super) fn jti() -> String {
    let mut bytes = [0u8; 16];
    // A failing system RNG leaves the time and a counter, still unique.
    if getrandom::fill(&mut bytes).is_err() {
        static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default() as u64;
        let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        bytes[..8].copy_from_slice(&nanos.to_be_bytes());
        bytes[8..].copy_from_slice(&n.to_be_bytes());
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The `private_key_jwt` client assertion (RFC 7523 §2.2, §3): issued by
/// and about the client, for the authorization server (its issuer, else
/// its token endpoint), valid five minutes.
fn assertion(
    client_id: &str,
    metadata: &AuthorizationMetadata,
    pem: &str,
    algorithm: SigningAlgorithm,
) -> std::result::Result<String, String> {
    let audience = metadata
        .issuer
        .clone()
        .unwrap_or_else(|| metadata.token_endpoint.clone());
    let now = now();
    let claims = serde_json::json!({
        "iss": client_id,
        "sub": client_id,
        "aud": audience,
        "iat": now,
        "exp": now + ASSERTION_LIFETIME,
        "jti": jti(),
    });
    sign(&claims, pem, algorithm)
}

/// `claims` as a JWT signed with the PEM private key.
#[cfg(feature = "jwt")]
fn sign(
    claims: &serde_json::Value,
    pem: &str,
    algorithm: SigningAlgorithm,
) -> std::result::Result<String, String> {
    let (algorithm, key) = signing_key(pem, algorithm)?;
    let header = jsonwebtoken::Header::new(algorithm);
    jsonwebtoken::encode(&header, claims, &key)
        .map_err(|e| format!("cannot sign the client assertion: {e}"))
}

/// Without the `jwt` feature, no JWT is signed: the error says how to
/// get one.
#[cfg(not(feature = "jwt"))]
fn sign(
    _claims: &serde_json::Value,
    _pem: &str,
    _algorithm: SigningAlgorithm,
) -> std::result::Result<String, String> {
    Err("a `private_key` client assertion (`private_key_jwt`) needs mcpbind's cargo feature `jwt` (the mcpbind CLI has it): add `features = [\"jwt\"]` to the mcpbind dependency".to_owned())
}

/// The `jsonwebtoken` algorithm and key of a PEM private key. The key
/// itself never appears in an error.
#[cfg(feature = "jwt")]
pub(super) fn signing_key(
    pem: &str,
    algorithm: SigningAlgorithm,
) -> std::result::Result<(jsonwebtoken::Algorithm, jsonwebtoken::EncodingKey), String> {
    use jsonwebtoken::{Algorithm, EncodingKey};
    let (algorithm, key) = match algorithm {
        SigningAlgorithm::RS256 => (Algorithm::RS256, EncodingKey::from_rsa_pem(pem.as_bytes())),
        SigningAlgorithm::RS384 => (Algorithm::RS384, EncodingKey::from_rsa_pem(pem.as_bytes())),
        SigningAlgorithm::RS512 => (Algorithm::RS512, EncodingKey::from_rsa_pem(pem.as_bytes())),
        SigningAlgorithm::ES256 => (Algorithm::ES256, EncodingKey::from_ec_pem(pem.as_bytes())),
        SigningAlgorithm::ES384 => (Algorithm::ES384, EncodingKey::from_ec_pem(pem.as_bytes())),
        _ => return Err("a `signing_algorithm` this version does not sign with".to_owned()),
    };
    let kind = if matches!(algorithm, Algorithm::ES256 | Algorithm::ES384) {
        "an EC"
    } else {
        "an RSA"
    };
    let key = key.map_err(|_| {
        format!("`private_key` is not {kind} private key in PEM for `signing_algorithm = \"{algorithm:?}\"`")
    })?;
    Ok((algorithm, key))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(feature = "jwt")]
    #[test]
    fn a_key_that_is_not_pem_is_refused_without_showing_it() {
        let Err(reason) = signing_key("mcpbind-canary-key", SigningAlgorithm::ES256) else {
            panic!("accepted");
        };
        assert!(reason.contains("not an EC private key"), "{reason}");
        assert!(!reason.contains("mcpbind-canary-key"), "{reason}");
    }

    /// Without the feature, the error names it (CI runs this test in
    /// core's build without `jwt`: the `metrics` line of `.ci/run`).
    #[cfg(not(feature = "jwt"))]
    #[test]
    fn without_the_jwt_feature_a_private_key_is_refused_naming_it() {
        let claims = serde_json::json!({});
        let Err(reason) = sign(&claims, "mcpbind-canary-key", SigningAlgorithm::ES256) else {
            panic!("signed without the feature");
        };
        assert!(reason.contains("cargo feature `jwt`"), "{reason}");
        assert!(!reason.contains("mcpbind-canary-key"), "{reason}");
    }

    #[test]
    fn jtis_are_distinct() {
        assert_ne!(jti(), jti());
        assert_eq!(jti().len(), 32);
    }
}
