//! The `auth` key and the keys beside it: which kind takes which key (one
//! table, [`KEYS`]), and the [`AuthConfig`] each kind makes of them.

use std::path::PathBuf;

use super::names::Named;
use super::{Assertion, AuthConfig, SigningAlgorithm};

/// `auth`: how the client authorizes with a Streamable HTTP server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum AuthKind {
    OAuth,
    ClientCredentials,
    JwtBearer,
    Enterprise,
    /// `auth = "none"`: as if `auth` were not there.
    NoAuth,
}

use AuthKind::{ClientCredentials, Enterprise, JwtBearer, NoAuth, OAuth};

impl Named for AuthKind {
    const KEY: &'static str = "auth";
    const NAMES: &'static [(&'static str, Self)] = &[
        ("oauth", OAuth),
        ("client_credentials", ClientCredentials),
        ("jwt_bearer", JwtBearer),
        ("enterprise", Enterprise),
        ("none", NoAuth),
    ];
}

impl AuthKind {
    fn name(self) -> &'static str {
        Self::NAMES
            .iter()
            .find(|(_, kind)| *kind == self)
            .map_or("none", |(name, _)| name)
    }
}

/// Each key beside `auth`: the kinds that take it, and what to add when
/// another kind has it.
const KEYS: &[(&str, &[AuthKind], &str)] = &[
    (
        "client_id",
        &[OAuth, ClientCredentials, JwtBearer, Enterprise],
        "",
    ),
    (
        "client_secret",
        &[OAuth, ClientCredentials, Enterprise],
        " (the workload's JWT is the credential)",
    ),
    (
        "scopes",
        &[OAuth, ClientCredentials, JwtBearer, Enterprise],
        "",
    ),
    (
        "redirect_port",
        &[OAuth],
        " (only the browser flow has a redirect)",
    ),
    (
        "client_metadata_url",
        &[OAuth],
        " (only the browser flow registers a client)",
    ),
    ("private_key", &[ClientCredentials], " (private_key_jwt)"),
    (
        "signing_algorithm",
        &[ClientCredentials],
        " (it goes with `private_key`)",
    ),
    ("assertion", &[JwtBearer], ""),
    ("assertion_file", &[JwtBearer], ""),
    ("id_token", &[Enterprise], ""),
    ("idp_token_endpoint", &[Enterprise], ""),
    ("idp_client_id", &[Enterprise], ""),
];

/// The keys beside `auth`, as written (see [`KEYS`]).
#[derive(Default)]
pub(super) struct AuthKeys {
    pub(super) client_id: Option<String>,
    pub(super) client_secret: Option<String>,
    pub(super) scopes: Vec<String>,
    pub(super) redirect_port: Option<u16>,
    pub(super) client_metadata_url: Option<String>,
    pub(super) private_key: Option<String>,
    pub(super) signing_algorithm: Option<SigningAlgorithm>,
    pub(super) assertion: Option<String>,
    pub(super) assertion_file: Option<PathBuf>,
    pub(super) id_token: Option<String>,
    pub(super) idp_token_endpoint: Option<String>,
    pub(super) idp_client_id: Option<String>,
}

impl AuthKeys {
    /// Whether each key of [`KEYS`] is set, in its order.
    fn set(&self) -> [bool; 12] {
        [
            self.client_id.is_some(),
            self.client_secret.is_some(),
            !self.scopes.is_empty(),
            self.redirect_port.is_some(),
            self.client_metadata_url.is_some(),
            self.private_key.is_some(),
            self.signing_algorithm.is_some(),
            self.assertion.is_some(),
            self.assertion_file.is_some(),
            self.id_token.is_some(),
            self.idp_token_endpoint.is_some(),
            self.idp_client_id.is_some(),
        ]
    }
}

/// The [`AuthConfig`] of `auth = kind` and `keys`: `None` without `auth`
/// (or with `auth = "none"`).
pub(super) fn auth_config(
    kind: Option<AuthKind>,
    keys: AuthKeys,
) -> Result<Option<AuthConfig>, String> {
    let set = keys.set();
    for ((key, kinds, note), set) in KEYS.iter().zip(set) {
        if set && !kind.is_some_and(|k| kinds.contains(&k)) {
            return Err(misplaced(key, kinds, note, kind));
        }
    }
    let config = match kind {
        None | Some(NoAuth) => return Ok(None),
        Some(OAuth) => oauth(keys),
        Some(ClientCredentials) => client_credentials(keys),
        Some(JwtBearer) => jwt_bearer(keys),
        Some(Enterprise) => enterprise(keys),
    };
    config.map(Some)
}

/// The message for `key`, set where `kind` does not take it.
fn misplaced(key: &str, kinds: &[AuthKind], note: &str, kind: Option<AuthKind>) -> String {
    match (kinds, kind) {
        ([only], _) => format!(
            "`{key}` is only valid with `auth = \"{}\"`{note}",
            only.name()
        ),
        (_, None | Some(NoAuth)) => {
            let names: Vec<String> = kinds.iter().map(|k| format!("`{}`", k.name())).collect();
            format!("`{key}` is only valid with `auth` ({})", names.join(", "))
        }
        (_, Some(kind)) => format!(
            "`{key}` is not valid with `auth = \"{}\"`{note}",
            kind.name()
        ),
    }
}

fn oauth(keys: AuthKeys) -> Result<AuthConfig, String> {
    if keys.client_secret.is_some() && keys.client_id.is_none() {
        return Err("`client_secret` needs the `client_id` it belongs to".into());
    }
    Ok(AuthConfig::OAuth {
        client_id: keys.client_id,
        client_secret: keys.client_secret,
        scopes: keys.scopes,
        redirect_port: keys.redirect_port,
        client_metadata_url: keys.client_metadata_url,
    })
}

fn client_credentials(keys: AuthKeys) -> Result<AuthConfig, String> {
    let AuthKeys {
        client_id,
        client_secret,
        private_key,
        signing_algorithm,
        scopes,
        ..
    } = keys;
    match (client_id, client_secret, private_key) {
        (Some(_), Some(_), Some(_)) => Err("`client_secret` and `private_key` are both set: the client authenticates with one of them".into()),
        (Some(client_id), Some(client_secret), None) => {
            if signing_algorithm.is_some() {
                return Err("`signing_algorithm` goes with `private_key`, not `client_secret`".into());
            }
            Ok(AuthConfig::ClientCredentials { client_id, client_secret, scopes })
        }
        (Some(client_id), None, Some(private_key)) => Ok(AuthConfig::PrivateKeyJwt {
            client_id,
            private_key,
            signing_algorithm: signing_algorithm.ok_or("`private_key` needs `signing_algorithm` (`RS256`, `RS384`, `RS512`, `ES256` or `ES384`)")?,
            scopes,
        }),
        _ => Err("`auth = \"client_credentials\"` needs `client_id` and `client_secret` or `private_key` (write the secret as `${VAR}`)".into()),
    }
}

fn jwt_bearer(keys: AuthKeys) -> Result<AuthConfig, String> {
    let assertion = match (keys.assertion, keys.assertion_file) {
        (Some(jwt), None) => Assertion::Value(jwt),
        (None, Some(path)) => Assertion::File(path),
        (Some(_), Some(_)) => {
            return Err("`assertion` and `assertion_file` are both set: keep one of them".into())
        }
        (None, None) => return Err(
            "`auth = \"jwt_bearer\"` needs `assertion` (write it as `${VAR}`) or `assertion_file`"
                .into(),
        ),
    };
    Ok(AuthConfig::JwtBearer {
        client_id: keys.client_id,
        assertion,
        scopes: keys.scopes,
    })
}

fn enterprise(keys: AuthKeys) -> Result<AuthConfig, String> {
    let AuthKeys {
        client_id: Some(client_id),
        client_secret: Some(client_secret),
        id_token: Some(id_token),
        idp_token_endpoint: Some(idp_token_endpoint),
        idp_client_id: Some(idp_client_id),
        scopes,
        ..
    } = keys
    else {
        return Err("`auth = \"enterprise\"` needs `client_id`, `client_secret`, `idp_token_endpoint`, `idp_client_id` and `id_token` (write secrets as `${VAR}`)".into());
    };
    Ok(AuthConfig::Enterprise {
        client_id,
        client_secret,
        idp_token_endpoint,
        idp_client_id,
        id_token,
        scopes,
    })
}
