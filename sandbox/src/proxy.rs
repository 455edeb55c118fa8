//! The network allow-list (`network = ["host:port", …]`): an HTTP proxy
//! that runs in mcpbind, outside the server's network namespace.
//!
//! The server's namespace has a loopback and nothing else; the proxy
//! listens on that loopback (the listener is opened inside the namespace at
//! spawn and its descriptor handed to mcpbind, see `linux.rs`), so the
//! server reaches nothing but the proxy. The proxy takes `CONNECT
//! host:port` (HTTPS and any TCP) and plain HTTP requests in absolute form,
//! lets through the listed `host:port` pairs (`*.example.com:443` for the
//! subdomains of example.com), and answers anything else with 403 and a
//! log line naming it. Names are resolved by the proxy: the server has no
//! DNS of its own.

use std::sync::Arc;

use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpListener, TcpStream};

/// The port the proxy listens on, on the namespace's own loopback (a fresh
/// namespace: nothing else is there).
pub(crate) const PORT: u16 = 3128;

/// The largest request head the proxy reads.
const HEAD_LIMIT: usize = 16 * 1024;

/// The proxy for one server; it ends when dropped.
#[derive(Debug)]
pub struct Proxy(tokio::task::AbortHandle);

impl Drop for Proxy {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Serves `listener` for `server`, letting through `allowed` only.
pub(crate) fn serve(
    server: &str,
    listener: std::net::TcpListener,
    allowed: &[String],
) -> std::io::Result<Proxy> {
    listener.set_nonblocking(true)?;
    let listener = TcpListener::from_std(listener)?;
    let allowed: Arc<[String]> = allowed.iter().map(|h| h.to_ascii_lowercase()).collect();
    let server: Arc<str> = server.into();
    let task = tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let (allowed, server) = (Arc::clone(&allowed), Arc::clone(&server));
            tokio::spawn(async move {
                if let Err(e) = relay(client, &allowed, &server).await {
                    tracing::debug!(server = %server, error = %e, "network proxy: connection ended");
                }
            });
        }
    });
    Ok(Proxy(task.abort_handle()))
}

/// One client connection: its request, then the relay or a refusal.
async fn relay(mut client: TcpStream, allowed: &[String], server: &str) -> std::io::Result<()> {
    let (head, rest) = read_head(&mut client).await?;
    let Some(request) = Request::parse(&head) else {
        client
            .write_all(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
            .await?;
        return Ok(());
    };
    if !is_allowed(&request.target, allowed) {
        tracing::warn!(
            server,
            target = %request.target,
            allowed = %allowed.join(", "),
            "network: refused a connection to {} (not in the sandbox's `network` allow-list)",
            request.target
        );
        let body = format!(
            "mcpbind: {} is not in this server's network allow-list\n",
            request.target
        );
        let refusal = format!(
            "HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        return client.write_all(refusal.as_bytes()).await;
    }
    let mut upstream = match TcpStream::connect(&request.target).await {
        Ok(upstream) => upstream,
        Err(e) => {
            let answer = format!("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\nX-Mcpbind-Error: {e}\r\n\r\n");
            return client.write_all(answer.as_bytes()).await;
        }
    };
    match request.forward {
        None => {
            client
                .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
                .await?
        }
        Some(head) => upstream.write_all(&head).await?,
    }
    upstream.write_all(&rest).await?;
    tokio::io::copy_bidirectional(&mut client, &mut upstream).await?;
    Ok(())
}

/// Reads up to the end of the request head; the head and what followed.
async fn read_head(client: &mut TcpStream) -> std::io::Result<(Vec<u8>, Vec<u8>)> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 4096];
    loop {
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let rest = buf.split_off(end + 4);
            return Ok((buf, rest));
        }
        if buf.len() > HEAD_LIMIT {
            return Err(std::io::Error::other("request head too large"));
        }
        let n = client.read(&mut chunk).await?;
        if n == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        buf.extend_from_slice(&chunk[..n]);
    }
}

/// A proxy request: where to, and for plain HTTP the head to send there
/// (in origin form).
#[derive(Debug, PartialEq)]
struct Request {
    /// `host:port`.
    target: String,
    forward: Option<Vec<u8>>,
}

impl Request {
    fn parse(head: &[u8]) -> Option<Request> {
        let text = std::str::from_utf8(head).ok()?;
        let (line, rest) = text.split_once("\r\n")?;
        let mut words = line.split(' ');
        let (method, target, version) = (words.next()?, words.next()?, words.next()?);
        if method.eq_ignore_ascii_case("CONNECT") {
            let target = target.to_ascii_lowercase();
            target.rsplit_once(':')?.1.parse::<u16>().ok()?;
            return Some(Request {
                target,
                forward: None,
            });
        }
        let after = target.strip_prefix("http://")?;
        let (authority, path) = match after.find('/') {
            Some(i) => after.split_at(i),
            None => (after, "/"),
        };
        let authority = authority.to_ascii_lowercase();
        let target = match authority.rsplit_once(':') {
            Some((_, port)) if port.parse::<u16>().is_ok() => authority.clone(),
            _ => format!("{authority}:80"),
        };
        let forward = format!("{method} {path} {version}\r\n{rest}").into_bytes();
        Some(Request {
            target,
            forward: Some(forward),
        })
    }
}

/// Whether `target` (`host:port`, lowercase) is listed: exactly, or under a
/// `*.domain:port` entry (a subdomain of it, not the domain itself).
fn is_allowed(target: &str, allowed: &[String]) -> bool {
    let Some((host, port)) = target.rsplit_once(':') else {
        return false;
    };
    allowed.iter().any(|entry| {
        let Some((pattern, entry_port)) = entry.rsplit_once(':') else {
            return false;
        };
        if entry_port != port {
            return false;
        }
        match pattern.strip_prefix("*.") {
            Some(domain) => host
                .strip_suffix(domain)
                .is_some_and(|sub| sub.len() > 1 && sub.ends_with('.')),
            None => pattern == host,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sandbox_proxy_parses_connect_and_absolute_http() {
        assert_eq!(
            Request::parse(b"CONNECT API.github.com:443 HTTP/1.1\r\nHost: x\r\n\r\n"),
            Some(Request {
                target: "api.github.com:443".into(),
                forward: None
            })
        );
        let plain =
            Request::parse(b"GET http://127.0.0.1:8080/a?b HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                .unwrap();
        assert_eq!(plain.target, "127.0.0.1:8080");
        assert_eq!(
            plain.forward.as_deref(),
            Some(&b"GET /a?b HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"[..])
        );
        assert_eq!(
            Request::parse(b"GET http://example.com HTTP/1.1\r\n\r\n")
                .unwrap()
                .target,
            "example.com:80"
        );
        assert_eq!(Request::parse(b"GET /relative HTTP/1.1\r\n\r\n"), None);
    }

    #[test]
    fn sandbox_proxy_allows_only_listed_pairs() {
        let allowed = [
            "api.github.com:443".to_owned(),
            "*.example.com:443".to_owned(),
            "127.0.0.1:8080".to_owned(),
        ];
        for (target, wanted) in [
            ("api.github.com:443", true),
            ("api.github.com:80", false),
            ("a.example.com:443", true),
            ("a.b.example.com:443", true),
            ("example.com:443", false),
            ("badexample.com:443", false),
            ("127.0.0.1:8080", true),
            ("127.0.0.1:8081", false),
        ] {
            assert_eq!(is_allowed(target, &allowed), wanted, "{target}");
        }
    }
}
