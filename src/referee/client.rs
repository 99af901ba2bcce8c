//! The controller's side of one GGP exchange: an HTTP/1.0 `POST /` of a KIF message,
//! then the reply read until the player closes the connection — exactly how the
//! Dresden GameController and ggp-base talk, so that a player which works with the
//! referee works with them. (A general HTTP client would keep connections alive and
//! hide a player that forgets to close them, which Dresden does not forgive.)

use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Replies larger than this are cut off and treated as garbage.
const MAX_REPLY: usize = 64 * 1024;

#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
pub enum ExchangeError {
    #[error("could not connect to {addr}: {reason}")]
    Connect { addr: String, reason: String },
    #[error("no complete reply within {0:?}")]
    Timeout(Duration),
    #[error("connection failed: {0}")]
    Io(String),
    #[error("malformed HTTP reply: {0}")]
    Malformed(String),
}

/// A player's reply and how long it took, from connecting to end of file.
#[derive(Clone, Debug)]
pub struct Reply {
    pub status: u16,
    pub body: String,
    pub elapsed: Duration,
}

/// `host:port` of a player URL such as `http://127.0.0.1:4001/` or `127.0.0.1:4001`.
pub fn host_port(url: &str) -> Result<String, String> {
    let rest = url
        .strip_prefix("http://")
        .unwrap_or(url)
        .trim_end_matches('/');
    if url.starts_with("https://") {
        return Err(format!("{url}: GGP players speak plain HTTP, not https"));
    }
    let (host, port) = rest
        .rsplit_once(':')
        .ok_or_else(|| format!("{url}: expected host:port, e.g. http://127.0.0.1:4001"))?;
    if host.is_empty() || host.contains('/') || port.parse::<u16>().is_err() {
        return Err(format!(
            "{url}: expected host:port, e.g. http://127.0.0.1:4001"
        ));
    }
    Ok(format!("{host}:{port}"))
}

/// Sends `body` to the player at `addr` (`host:port`) and waits at most `timeout`
/// (counted from the connection attempt, as Dresden counts) for the whole reply.
pub async fn exchange(addr: &str, body: &str, timeout: Duration) -> Result<Reply, ExchangeError> {
    let start = Instant::now();
    match tokio::time::timeout(timeout, exchange_inner(addr, body)).await {
        Ok(Ok((status, body))) => Ok(Reply {
            status,
            body,
            elapsed: start.elapsed(),
        }),
        Ok(Err(e)) => Err(e),
        Err(_) => Err(ExchangeError::Timeout(timeout)),
    }
}

async fn exchange_inner(addr: &str, body: &str) -> Result<(u16, String), ExchangeError> {
    let mut stream = TcpStream::connect(addr)
        .await
        .map_err(|e| ExchangeError::Connect {
            addr: addr.to_string(),
            reason: e.to_string(),
        })?;
    let _ = stream.set_nodelay(true);
    let request = format!(
        "POST / HTTP/1.0\r\nAccept: text/delim\r\nSender: GAMESERVER\r\nReceiver: {addr}\r\n\
         Content-Type: text/acl\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let io = |e: std::io::Error| ExchangeError::Io(e.to_string());
    stream.write_all(request.as_bytes()).await.map_err(io)?;
    let mut raw = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let n = stream.read(&mut chunk).await.map_err(io)?;
        if n == 0 {
            break;
        }
        raw.extend_from_slice(&chunk[..n]);
        if raw.len() > MAX_REPLY {
            return Err(ExchangeError::Malformed(format!(
                "reply over {MAX_REPLY} bytes"
            )));
        }
    }
    parse_response(&raw)
}

/// Splits an HTTP response into status and body (the body is whatever follows the
/// headers: like the controllers, Content-Length is not trusted).
fn parse_response(raw: &[u8]) -> Result<(u16, String), ExchangeError> {
    let text = String::from_utf8_lossy(raw);
    let (head, body) = text
        .split_once("\r\n\r\n")
        .or_else(|| text.split_once("\n\n"))
        .ok_or_else(|| ExchangeError::Malformed("no end of headers".into()))?;
    let status_line = head.lines().next().unwrap_or_default();
    let status = status_line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .filter(|_| status_line.starts_with("HTTP/"))
        .ok_or_else(|| ExchangeError::Malformed(format!("bad status line {status_line:?}")))?;
    Ok((status, body.trim().to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_urls() {
        assert_eq!(
            host_port("http://127.0.0.1:4001/").unwrap(),
            "127.0.0.1:4001"
        );
        assert_eq!(host_port("localhost:9").unwrap(), "localhost:9");
        assert!(host_port("http://127.0.0.1").is_err());
        assert!(host_port("https://x:1").is_err());
        assert!(host_port("http://x:99999").is_err());
    }

    #[test]
    fn parses_responses() {
        let (s, b) =
            parse_response(b"HTTP/1.1 200 OK\r\ncontent-type: text/acl\r\n\r\n( move 1 2 1 3 )\n")
                .unwrap();
        assert_eq!((s, b.as_str()), (200, "( move 1 2 1 3 )"));
        assert!(parse_response(b"garbage").is_err());
        assert!(parse_response(b"FOO 200\r\n\r\nx").is_err());
    }
}
