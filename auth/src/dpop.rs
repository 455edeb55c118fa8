//! DPoP (RFC 9449): access tokens bound to a key pair of the client, each
//! request carrying a fresh proof of possession of it (a JWT signed by the
//! key, naming the request's method and URL, and on a resource request the
//! token's digest, `ath`).
//!
//! A client uses DPoP with an authorization server whose metadata lists
//! `dpop_signing_alg_values_supported` with `ES256`: its token requests
//! (code exchange, refresh) carry a proof ([`DpopHttp`]), and a token whose
//! `token_type` is `DPoP` is presented as `Authorization: DPoP <token>`
//! with a proof ([`super::client`]). A server that answers
//! `use_dpop_nonce` (an authorization server's 400, a resource server's
//! 401) gets the request once more, its proof carrying the nonce of the
//! `DPoP-Nonce` header; the last nonce of each origin is kept and sent
//! from then on.
//!
//! The key pair (P-256, generated once per client, signed with
//! `jsonwebtoken` on aws-lc-rs behind the cargo feature `jwt`) is stored in
//! the token file beside the tokens it is bound to: same file, same 0600
//! mode, removed with them. It never appears in output, logs or errors
//! (no `Debug` shows it), nor do proofs.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine as _;
use rmcp::transport::auth::{
    AuthorizationMetadata, OAuthHttpClient, OAuthHttpClientError, OAuthHttpClientFuture,
    OAuthHttpRedirectPolicy, OAuthHttpRequest,
};
use sha2::Digest as _;

/// The one algorithm mcpbind signs proofs with.
pub(crate) const ALGORITHM: &str = "ES256";

/// The header a proof travels in, and a server's nonce.
pub const DPOP: &str = "dpop";
pub(crate) const DPOP_NONCE: &str = "dpop-nonce";

/// The longest nonce kept (a server's header; RFC 9449 gives no limit).
const MAX_NONCE_BYTES: usize = 1024;

/// How many origins' nonces are kept.
const MAX_NONCE_ORIGINS: usize = 16;

/// The largest token endpoint (or discovery) response read.
const MAX_RESPONSE_BYTES: usize = 1024 * 1024;

/// How long an OAuth request may take.
const TIMEOUT: Duration = Duration::from_secs(30);

/// Redirects followed (within the allowed origins) before giving up.
const MAX_REDIRECTS: usize = 10;

/// Whether an authorization server's metadata offers DPoP with the
/// algorithm mcpbind signs with.
pub(crate) fn offered(metadata: &AuthorizationMetadata) -> bool {
    metadata
        .additional_fields
        .get("dpop_signing_alg_values_supported")
        .and_then(serde_json::Value::as_array)
        .is_some_and(|algs| algs.iter().any(|a| a.as_str() == Some(ALGORITHM)))
}

/// The origin of a URL (`https://host:port`), nonces' and allowlists' key.
pub(crate) fn origin(url: &str) -> Option<String> {
    let url = reqwest::Url::parse(url).ok()?;
    Some(url.origin().ascii_serialization())
}

/// A proof's `htu`: the URL without its query and fragment (§4.2).
#[cfg_attr(not(feature = "jwt"), allow(dead_code))]
fn htu(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(mut url) => {
            url.set_query(None);
            url.set_fragment(None);
            url.to_string()
        }
        Err(_) => url.split(['?', '#']).next().unwrap_or(url).to_owned(),
    }
}

/// The last `DPoP-Nonce` each origin gave (RFC 9449 §8, §9), shared by a
/// connection's token requests and resource requests.
#[derive(Default)]
pub struct Nonces(Mutex<HashMap<String, String>>);

impl Nonces {
    /// The nonce to put in a proof for `url`.
    pub(crate) fn get(&self, url: &str) -> Option<String> {
        let origin = origin(url)?;
        self.0.lock().ok()?.get(&origin).cloned()
    }

    /// Records the `DPoP-Nonce` of a response from `url`, if it has one;
    /// whether it is new.
    pub fn record(&self, url: &str, headers: &http::HeaderMap) -> bool {
        let Some(nonce) = headers
            .get(DPOP_NONCE)
            .and_then(|v| v.to_str().ok())
            .filter(|n| !n.is_empty() && n.len() <= MAX_NONCE_BYTES)
        else {
            return false;
        };
        let (Some(origin), Ok(mut nonces)) = (origin(url), self.0.lock()) else {
            return false;
        };
        if nonces.len() >= MAX_NONCE_ORIGINS && !nonces.contains_key(&origin) {
            nonces.clear();
        }
        nonces.insert(origin, nonce.to_owned()).as_deref() != Some(nonce)
    }
}

/// A client's DPoP key pair. Neither `Debug` nor `Display`: it is shown
/// nowhere.
pub(crate) struct DpopKey {
    /// PKCS#8 DER of the private key, as stored.
    #[cfg_attr(not(feature = "jwt"), allow(dead_code))]
    pkcs8: Vec<u8>,
    #[cfg(feature = "jwt")]
    signing: jsonwebtoken::EncodingKey,
    #[cfg(feature = "jwt")]
    jwk: jsonwebtoken::jwk::Jwk,
}

/// Without the `jwt` feature no proof is signed: the error says how to get
/// one.
#[cfg(not(feature = "jwt"))]
const NO_FEATURE: &str = "the server's authorization server uses DPoP-bound tokens (RFC 9449), and signing DPoP proofs needs mcpbind's cargo feature `jwt` (the mcpbind CLI has it): add `features = [\"jwt\"]` to the mcpbind dependency";

impl DpopKey {
    /// A new P-256 key pair.
    #[cfg(feature = "jwt")]
    pub(crate) fn generate() -> Result<DpopKey, String> {
        use aws_lc_rs::signature::{EcdsaKeyPair, ECDSA_P256_SHA256_FIXED_SIGNING};
        let document = EcdsaKeyPair::generate_pkcs8(
            &ECDSA_P256_SHA256_FIXED_SIGNING,
            &aws_lc_rs::rand::SystemRandom::new(),
        )
        .map_err(|_| "cannot generate a DPoP key pair".to_owned())?;
        DpopKey::from_pkcs8(document.as_ref().to_vec())
    }

    #[cfg(not(feature = "jwt"))]
    pub(crate) fn generate() -> Result<DpopKey, String> {
        Err(NO_FEATURE.to_owned())
    }

    #[cfg(feature = "jwt")]
    fn from_pkcs8(pkcs8: Vec<u8>) -> Result<DpopKey, String> {
        let signing = jsonwebtoken::EncodingKey::from_ec_der(&pkcs8);
        let jwk =
            jsonwebtoken::jwk::Jwk::from_encoding_key(&signing, jsonwebtoken::Algorithm::ES256)
                .map_err(|_| "the stored DPoP key is not a P-256 private key".to_owned())?;
        Ok(DpopKey {
            pkcs8,
            signing,
            jwk,
        })
    }

    #[cfg(not(feature = "jwt"))]
    fn from_pkcs8(_pkcs8: Vec<u8>) -> Result<DpopKey, String> {
        Err(NO_FEATURE.to_owned())
    }

    /// The key as the token file stores it (base64url of its PKCS#8 DER).
    pub(crate) fn to_stored(&self) -> String {
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(&self.pkcs8)
    }

    /// The key of a token file.
    pub(crate) fn from_stored(text: &str) -> Result<DpopKey, String> {
        let pkcs8 = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(text)
            .map_err(|_| "the stored DPoP key is damaged".to_owned())?;
        DpopKey::from_pkcs8(pkcs8)
    }

    /// A fresh proof for a `method` request to `url`: with the server's
    /// `nonce`, and on a resource request the access token's digest.
    #[cfg(feature = "jwt")]
    pub(crate) fn proof(
        &self,
        method: &str,
        url: &str,
        nonce: Option<&str>,
        access_token: Option<&str>,
    ) -> Result<String, String> {
        let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::ES256);
        header.typ = Some("dpop+jwt".to_owned());
        header.jwk = Some(self.jwk.clone());
        let mut claims = serde_json::json!({
            "jti": super::grant::jti(),
            "htm": method,
            "htu": htu(url),
            "iat": super::grant::now(),
        });
        if let Some(nonce) = nonce {
            claims["nonce"] = nonce.into();
        }
        if let Some(token) = access_token {
            claims["ath"] = ath(token).into();
        }
        jsonwebtoken::encode(&header, &claims, &self.signing)
            .map_err(|_| "cannot sign a DPoP proof".to_owned())
    }

    #[cfg(not(feature = "jwt"))]
    pub(crate) fn proof(
        &self,
        _method: &str,
        _url: &str,
        _nonce: Option<&str>,
        _access_token: Option<&str>,
    ) -> Result<String, String> {
        Err(NO_FEATURE.to_owned())
    }
}

/// `ath`: base64url of the access token's SHA-256 (§4.2).
#[cfg_attr(not(feature = "jwt"), allow(dead_code))]
fn ath(token: &str) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(sha2::Sha256::digest(token.as_bytes()))
}

/// What a connection presents a DPoP-bound token with.
pub(crate) struct Dpop {
    pub(crate) key: DpopKey,
    pub(crate) nonces: Arc<Nonces>,
}

/// rmcp's OAuth HTTP client for an authorization server that uses DPoP:
/// every token request (a form POST with a `grant_type`) gets a proof, and
/// once more with the server's nonce on `use_dpop_nonce`. Requests go only
/// to the origins of the server and of the authorization server metadata
/// already discovered through rmcp's own client (whose resolver refuses
/// private and reserved addresses the server URL does not use), redirects
/// included.
pub(crate) struct DpopHttp {
    dpop: Arc<Dpop>,
    allowed: Arc<Vec<String>>,
    follow: reqwest::Client,
    stop: reqwest::Client,
}

impl DpopHttp {
    pub(crate) fn new(dpop: Arc<Dpop>, allowed: Vec<String>) -> Result<DpopHttp, String> {
        let allowed = Arc::new(allowed);
        let within = Arc::clone(&allowed);
        let follow = reqwest::redirect::Policy::custom(move |attempt| {
            let to = attempt.url().origin().ascii_serialization();
            if !within.contains(&to) {
                attempt.error(format!(
                    "refused an OAuth redirect to {to}, an origin the discovery did not name"
                ))
            } else if attempt.previous().len() >= MAX_REDIRECTS {
                attempt.error("too many redirects")
            } else {
                attempt.follow()
            }
        });
        let build = |policy| {
            reqwest::Client::builder()
                .redirect(policy)
                .timeout(TIMEOUT)
                .build()
                .map_err(|e| format!("cannot set up the OAuth HTTP client: {e}"))
        };
        Ok(DpopHttp {
            dpop,
            follow: build(follow)?,
            stop: build(reqwest::redirect::Policy::none())?,
            allowed,
        })
    }

    async fn send(
        &self,
        client: &reqwest::Client,
        request: &http::Request<Vec<u8>>,
        proof: Option<String>,
    ) -> Result<http::Response<Vec<u8>>, OAuthHttpClientError> {
        let mut builder = client
            .request(request.method().clone(), request.uri().to_string())
            .headers(request.headers().clone())
            .body(request.body().clone());
        if let Some(proof) = proof {
            builder = builder.header(DPOP, proof);
        }
        let response = builder.send().await?;
        let mut out = http::Response::builder()
            .status(response.status())
            .version(response.version());
        for (name, value) in response.headers() {
            out = out.header(name, value);
        }
        let mut body = Vec::new();
        let mut chunks = response.bytes_stream();
        use futures::StreamExt as _;
        while let Some(chunk) = chunks.next().await {
            let chunk = chunk?;
            if body.len() + chunk.len() > MAX_RESPONSE_BYTES {
                return Err(format!(
                    "the OAuth response is larger than {MAX_RESPONSE_BYTES} bytes"
                )
                .into());
            }
            body.extend_from_slice(&chunk);
        }
        Ok(out.body(body)?)
    }
}

/// Whether a request is a token request: a form POST with a `grant_type`.
fn is_token_request(request: &http::Request<Vec<u8>>) -> bool {
    request.method() == http::Method::POST
        && url::form_urlencoded::parse(request.body()).any(|(k, _)| k == "grant_type")
}

/// Whether a token endpoint's answer is `use_dpop_nonce` (§8).
fn asks_for_nonce(response: &http::Response<Vec<u8>>) -> bool {
    response.status() == http::StatusCode::BAD_REQUEST
        && serde_json::from_slice::<serde_json::Value>(response.body())
            .ok()
            .and_then(|j| j.get("error").and_then(|e| e.as_str()).map(str::to_owned))
            .as_deref()
            == Some("use_dpop_nonce")
}

impl OAuthHttpClient for DpopHttp {
    fn execute(&self, request: OAuthHttpRequest) -> OAuthHttpClientFuture<'_> {
        Box::pin(async move {
            let client = match request.redirect_policy {
                OAuthHttpRedirectPolicy::Stop => &self.stop,
                _ => &self.follow,
            };
            let request = request.request;
            let url = request.uri().to_string();
            let allowed = origin(&url).is_some_and(|o| self.allowed.contains(&o));
            if !allowed {
                return Err(format!(
                    "refused an OAuth request to {}, an origin the discovery did not name",
                    origin(&url).unwrap_or_default()
                )
                .into());
            }
            if !is_token_request(&request) {
                return self.send(client, &request, None).await;
            }
            let nonces = &self.dpop.nonces;
            let proof = |nonce: Option<String>| {
                self.dpop
                    .key
                    .proof("POST", &url, nonce.as_deref(), None)
                    .map_err(OAuthHttpClientError::from)
            };
            let response = self
                .send(client, &request, Some(proof(nonces.get(&url))?))
                .await?;
            let fresh = nonces.record(&url, response.headers());
            if fresh && asks_for_nonce(&response) {
                return self
                    .send(client, &request, Some(proof(nonces.get(&url))?))
                    .await
                    .inspect(|r| {
                        nonces.record(&url, r.headers());
                    });
            }
            Ok(response)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn htu_has_no_query_or_fragment() {
        assert_eq!(htu("https://h:8/mcp?a=1#x"), "https://h:8/mcp");
        assert_eq!(htu("http://127.0.0.1:9/token"), "http://127.0.0.1:9/token");
    }

    #[test]
    fn ath_is_the_base64url_sha256_of_the_token() {
        // RFC 9449 §7.1's example.
        assert_eq!(
            ath("Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU"),
            "fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo"
        );
    }

    #[test]
    fn nonces_are_kept_per_origin_and_bounded() {
        let nonces = Nonces::default();
        let mut headers = http::HeaderMap::new();
        headers.insert(DPOP_NONCE, "n1".parse().unwrap());
        assert!(nonces.record("http://a:1/token", &headers));
        assert!(!nonces.record("http://a:1/other", &headers));
        assert_eq!(nonces.get("http://a:1/x").as_deref(), Some("n1"));
        assert_eq!(nonces.get("http://a:2/x"), None);
        headers.insert(DPOP_NONCE, "x".repeat(MAX_NONCE_BYTES + 1).parse().unwrap());
        assert!(!nonces.record("http://b:1/", &headers));
        headers.insert(DPOP_NONCE, "n".parse().unwrap());
        for port in 0..(MAX_NONCE_ORIGINS as u16 * 2) {
            nonces.record(&format!("http://c:{port}/"), &headers);
        }
        assert!(nonces.0.lock().unwrap().len() <= MAX_NONCE_ORIGINS);
    }

    #[cfg(feature = "jwt")]
    #[test]
    fn a_proof_has_the_header_and_claims_rfc_9449_asks_for() {
        let key = DpopKey::generate().unwrap();
        let stored = key.to_stored();
        let again = DpopKey::from_stored(&stored).unwrap();
        let proof = again
            .proof("POST", "https://rs/mcp?q#f", Some("n"), Some("tok"))
            .unwrap();
        let parts: Vec<&str> = proof.split('.').collect();
        assert_eq!(parts.len(), 3);
        let decode = |p: &str| -> serde_json::Value {
            serde_json::from_slice(
                &base64::engine::general_purpose::URL_SAFE_NO_PAD
                    .decode(p)
                    .unwrap(),
            )
            .unwrap()
        };
        let header = decode(parts[0]);
        assert_eq!(header["typ"], "dpop+jwt");
        assert_eq!(header["alg"], "ES256");
        assert_eq!(header["jwk"]["kty"], "EC");
        assert_eq!(header["jwk"]["crv"], "P-256");
        assert!(header["jwk"].get("d").is_none(), "{header}");
        let claims = decode(parts[1]);
        assert_eq!(claims["htm"], "POST");
        assert_eq!(claims["htu"], "https://rs/mcp");
        assert_eq!(claims["nonce"], "n");
        assert_eq!(claims["ath"], ath("tok"));
        assert!(claims["iat"].is_u64());
        let other = again.proof("POST", "https://rs/mcp", None, None).unwrap();
        assert_ne!(
            decode(other.split('.').nth(1).unwrap())["jti"],
            claims["jti"]
        );
        // The same key, stored and read back.
        assert_eq!(key.jwk, again.jwk);
    }

    #[cfg(not(feature = "jwt"))]
    #[test]
    fn without_the_jwt_feature_dpop_is_refused_naming_it() {
        let Err(reason) = DpopKey::generate() else {
            panic!("generated without the feature");
        };
        assert!(reason.contains("cargo feature `jwt`"), "{reason}");
    }
}
