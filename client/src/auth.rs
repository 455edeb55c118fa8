//! OAuth for Streamable HTTP servers: `mcpbind-auth`, with this crate's
//! secrets (the `${VAR}`s its expander resolves are the ones OAuth's errors
//! hide). `login` and `logout` are what `mcpbind login` and
//! `mcpbind logout` run; the `Browser` hook is a client's
//! ([`ClientHooks::browser`](crate::elicit::ClientHooks::browser)).

use mcpbind_auth::Expand;

use crate::connect::secrets::Expander;
use crate::error::Result;
use mcpbind_model::config::ServerConfig;

/// The expander of one server's config values (OAuth's [`Expand`]).
fn expander(server: &str) -> Box<dyn Expand + '_> {
    Box::new(Expander::new(server))
}

/// Runs the OAuth authorization-code flow with PKCE for `server` and stores
/// its tokens: discovers the authorization server (from the server's 401
/// challenge, else the well-known paths), registers the client (a
/// pre-registered `client_id`, a client ID metadata document, or dynamic
/// registration), hands the authorization URL to `open` (a browser), and
/// waits on a loopback redirect (`http://127.0.0.1:PORT/callback`) for the
/// code.
///
/// # Errors
///
/// [`Error::Auth`](crate::Error::Auth) when the server has no OAuth, the
/// authorization fails or the browser flow is not completed, or a server
/// or authorization server cannot be reached.
pub async fn login(server: &str, config: &ServerConfig, open: impl FnOnce(&str)) -> Result<()> {
    Ok(mcpbind_auth::login(server, config, expander, open).await?)
}

/// Removes the stored tokens of `server`; whether there were any.
///
/// # Errors
///
/// [`Error::Auth`](crate::Error::Auth) when the stored tokens cannot be
/// removed.
pub fn logout(server: &str, config: &ServerConfig) -> Result<bool> {
    Ok(mcpbind_auth::logout(server, config, expander)?)
}
