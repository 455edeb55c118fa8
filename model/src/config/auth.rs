//! OAuth for a Streamable HTTP server (the `auth` key and those beside
//! it): grants, client assertions, their signing algorithms.

use std::path::PathBuf;

/// OAuth for a Streamable HTTP server (the MCP authorization spec).
#[derive(Clone, PartialEq)]
#[non_exhaustive]
pub enum AuthConfig {
    /// `auth = "oauth"`: the authorization-code flow with PKCE, run once by
    /// `mcpbind login SERVER`; the tokens are stored per user, outside the
    /// project, and refreshed as they expire.
    OAuth {
        /// A client registered with the authorization server beforehand;
        /// without one, mcpbind registers itself (dynamic client
        /// registration) or uses `client_metadata_url`.
        client_id: Option<String>,
        /// The pre-registered client's secret (write it as `${VAR}`).
        client_secret: Option<String>,
        /// The scopes to ask for; empty: those the server's challenge or
        /// metadata names.
        scopes: Vec<String>,
        /// The loopback port of the redirect (`http://127.0.0.1:PORT/callback`);
        /// `None`: any free port (fine with dynamic registration).
        redirect_port: Option<u16>,
        /// An HTTPS URL of a client ID metadata document, used as the client
        /// ID where the authorization server supports them.
        client_metadata_url: Option<String>,
    },
    /// `auth = "client_credentials"`: a machine-to-machine token from the
    /// client-credentials grant, fetched at connect (for CI and services).
    ClientCredentials {
        /// The client's ID.
        client_id: String,
        /// The client's secret (write it as `${VAR}`).
        client_secret: String,
        /// The scopes to ask for.
        scopes: Vec<String>,
    },
    /// `auth = "client_credentials"` with `private_key` instead of
    /// `client_secret`: the client authenticates with a JWT assertion it
    /// signs with its key (`private_key_jwt`, RFC 7523).
    PrivateKeyJwt {
        /// The client's ID (the assertion's issuer and subject).
        client_id: String,
        /// The private key, PEM (PKCS#8, or PKCS#1 for RSA); write it as
        /// `${VAR}`.
        private_key: String,
        /// The algorithm the key signs with (`signing_algorithm`).
        signing_algorithm: SigningAlgorithm,
        /// The scopes to ask for.
        scopes: Vec<String>,
    },
    /// `auth = "jwt_bearer"`: a token for a JWT the workload already holds
    /// (workload identity federation: RFC 7523's JWT-bearer grant, SEP-1933),
    /// fetched at connect. A refused grant is not retried.
    JwtBearer {
        /// The client's ID, when the authorization server wants one.
        client_id: Option<String>,
        /// The JWT, or the file that holds it.
        assertion: Assertion,
        /// The scopes to ask for.
        scopes: Vec<String>,
    },
    /// `auth = "enterprise"`: enterprise-managed authorization (SEP-990):
    /// the user's ID token from the enterprise identity provider is
    /// exchanged there for an identity assertion grant (ID-JAG, RFC 8693
    /// token exchange), which the MCP server's authorization server
    /// exchanges for a token (JWT-bearer grant), fetched at connect.
    Enterprise {
        /// The client's ID at the MCP server's authorization server.
        client_id: String,
        /// Its secret there (write it as `${VAR}`).
        client_secret: String,
        /// The identity provider's token endpoint (`idp_token_endpoint`).
        idp_token_endpoint: String,
        /// The client's ID at the identity provider (`idp_client_id`).
        idp_client_id: String,
        /// The user's ID token from the identity provider (write it as
        /// `${VAR}`).
        id_token: String,
        /// The scopes to ask for.
        scopes: Vec<String>,
    },
}

/// Where a JWT-bearer grant's assertion comes from.
#[derive(Clone, PartialEq)]
#[non_exhaustive]
pub enum Assertion {
    /// `assertion`: the JWT itself (write it as `${VAR}`).
    Value(String),
    /// `assertion_file`: a file holding the JWT, read at each grant (a
    /// workload identity token that the platform rotates).
    File(PathBuf),
}

/// How a `private_key_jwt` assertion is signed (`signing_algorithm`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
#[allow(clippy::upper_case_acronyms)]
pub enum SigningAlgorithm {
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    RS256,
    /// RSASSA-PKCS1-v1_5 with SHA-384.
    RS384,
    /// RSASSA-PKCS1-v1_5 with SHA-512.
    RS512,
    /// ECDSA on P-256 with SHA-256.
    ES256,
    /// ECDSA on P-384 with SHA-384.
    ES384,
}

impl AuthConfig {
    /// The enterprise ID token as written (possibly a `${VAR}`).
    #[doc(hidden)]
    pub fn id_token(&self) -> Option<&str> {
        match self {
            AuthConfig::Enterprise { id_token, .. } => Some(id_token),
            _ => None,
        }
    }

    /// The client secret as written (possibly a `${VAR}`).
    #[doc(hidden)]
    pub fn secret(&self) -> Option<&str> {
        match self {
            AuthConfig::OAuth { client_secret, .. } => client_secret.as_deref(),
            AuthConfig::ClientCredentials { client_secret, .. } => Some(client_secret),
            AuthConfig::PrivateKeyJwt { private_key, .. } => Some(private_key),
            AuthConfig::JwtBearer {
                assertion: Assertion::Value(jwt),
                ..
            } => Some(jwt),
            AuthConfig::JwtBearer { .. } => None,
            AuthConfig::Enterprise { client_secret, .. } => Some(client_secret),
        }
    }

    /// The scopes to ask for.
    pub fn scopes(&self) -> &[String] {
        match self {
            AuthConfig::OAuth { scopes, .. }
            | AuthConfig::ClientCredentials { scopes, .. }
            | AuthConfig::PrivateKeyJwt { scopes, .. }
            | AuthConfig::JwtBearer { scopes, .. }
            | AuthConfig::Enterprise { scopes, .. } => scopes,
        }
    }
}

impl std::fmt::Debug for AuthConfig {
    // The secret is not shown, even unexpanded.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AuthConfig::OAuth {
                client_id, scopes, ..
            } => f
                .debug_struct("OAuth")
                .field("client_id", client_id)
                .field("scopes", scopes)
                .finish_non_exhaustive(),
            AuthConfig::ClientCredentials {
                client_id, scopes, ..
            } => f
                .debug_struct("ClientCredentials")
                .field("client_id", client_id)
                .field("scopes", scopes)
                .finish_non_exhaustive(),
            AuthConfig::PrivateKeyJwt {
                client_id,
                signing_algorithm,
                scopes,
                ..
            } => f
                .debug_struct("PrivateKeyJwt")
                .field("client_id", client_id)
                .field("signing_algorithm", signing_algorithm)
                .field("scopes", scopes)
                .finish_non_exhaustive(),
            AuthConfig::JwtBearer {
                client_id,
                assertion,
                scopes,
            } => {
                let file = match assertion {
                    Assertion::File(path) => Some(path),
                    Assertion::Value(_) => None,
                };
                f.debug_struct("JwtBearer")
                    .field("client_id", client_id)
                    .field("assertion_file", &file)
                    .field("scopes", scopes)
                    .finish_non_exhaustive()
            }
            AuthConfig::Enterprise {
                client_id,
                idp_token_endpoint,
                idp_client_id,
                scopes,
                ..
            } => f
                .debug_struct("Enterprise")
                .field("client_id", client_id)
                .field("idp_token_endpoint", idp_token_endpoint)
                .field("idp_client_id", idp_client_id)
                .field("scopes", scopes)
                .finish_non_exhaustive(),
        }
    }
}
