//! Who may use the port: refusals made from a request's head, before its body is read.
//!
//! A GGP controller is not a browser: it sends neither `Origin` nor `Sec-Fetch-Site`, and
//! Dresden not even `Host`. A browser always says where a request comes from, so a page
//! on another site (which could otherwise START matches until the player is full, or
//! ABORT a controller's match by its predictable id) is told apart by those headers:
//! - `Sec-Fetch-Site: cross-site` or `same-site`, or an `Origin` that is not the page's
//!   own (`http://` + the request's own `Host`, itself allowed), is refused with 403 on
//!   every route.
//! - DNS rebinding (a name of the attacker's that resolves to this machine, so that its
//!   page counts as same-origin) is stopped by the `Host` check: the page and its API
//!   answer only a `Host` that names this player — `localhost`, `127.0.0.1`, `[::1]`,
//!   the address the connection reached, or a name given with `--allow-host` — with the
//!   port it listens on; anything else gets 421. `POST /` (GGP) is not held to it unless
//!   a browser sent it, so controllers on other hosts reach it under any `Host`.
//! - An HTTP/1.0 `POST` without `Content-Length` is refused with 411: its body cannot be
//!   told from an empty one (an INFO), so a START sent that way would be lost.

use std::net::{IpAddr, SocketAddr};

use axum::http::{HeaderMap, Method, StatusCode, Version, header};

/// The address a connection reached (the bound one, or the interface's for `0.0.0.0`),
/// added to each request by the server; absent when a test drives the router directly.
#[derive(Clone, Copy, Debug)]
pub struct Reached(pub SocketAddr);

/// Names, besides this machine's own, under which the page may be opened.
#[derive(Clone, Debug, Default)]
pub struct Gate {
    allowed: Vec<String>,
}

/// Why a request was refused, worded for its sender.
#[derive(Debug, PartialEq, Eq)]
pub struct Refusal {
    pub status: StatusCode,
    pub message: String,
}

impl Refusal {
    fn new(status: StatusCode, message: String) -> Refusal {
        Refusal { status, message }
    }
}

/// What [`Gate::check`] reads of a request.
pub struct Head<'a> {
    pub method: &'a Method,
    pub path: &'a str,
    pub version: Version,
    pub headers: &'a HeaderMap,
    pub reached: Option<SocketAddr>,
}

impl Gate {
    /// A gate that also accepts the host names `allowed` (compared without case).
    pub fn new(allowed: &[String]) -> Gate {
        Gate {
            allowed: allowed.iter().map(|n| normal_name(n)).collect(),
        }
    }

    /// `Ok` when the request may go on to its route.
    pub fn check(&self, head: &Head) -> Result<(), Refusal> {
        let text = |name| head.headers.get(name).and_then(|v| v.to_str().ok());
        let host = text(header::HOST.as_str());
        if let Some(site) = text("sec-fetch-site")
            && (site.eq_ignore_ascii_case("cross-site") || site.eq_ignore_ascii_case("same-site"))
        {
            return Err(Refusal::new(
                StatusCode::FORBIDDEN,
                format!("requests from another site are refused (Sec-Fetch-Site: {site})"),
            ));
        }
        let from_browser =
            head.headers.contains_key(header::ORIGIN) || text("sec-fetch-site").is_some();
        if let Some(origin) = head.headers.get(header::ORIGIN) {
            let origin = origin.to_str().unwrap_or("?");
            let own = host.is_some_and(|h| same_authority(origin, h));
            if !own {
                return Err(Refusal::new(
                    StatusCode::FORBIDDEN,
                    format!(
                        "requests from origin {origin} are refused: only the player's own page may send them"
                    ),
                ));
            }
        }
        let ggp = head.method == Method::POST && !head.path.starts_with("/api/");
        if (!ggp || from_browser)
            && let Some(host) = host
            && !self.allows_host(host, head.reached)
        {
            return Err(Refusal::new(
                StatusCode::MISDIRECTED_REQUEST,
                format!(
                    "this player does not answer to the host name {host:?}: open it as localhost or by its address, or start it with --allow-host NAME"
                ),
            ));
        }
        let has_length = head.headers.contains_key(header::CONTENT_LENGTH)
            || head.headers.contains_key(header::TRANSFER_ENCODING);
        if head.method == Method::POST && head.version == Version::HTTP_10 && !has_length {
            return Err(Refusal::new(
                StatusCode::LENGTH_REQUIRED,
                "an HTTP/1.0 POST needs a Content-Length (send Content-Length: 0 for an empty body)"
                    .to_owned(),
            ));
        }
        Ok(())
    }

    /// Whether `host` (a `Host` header: name or address, then maybe `:port`) names this
    /// player, reached at `reached`.
    fn allows_host(&self, host: &str, reached: Option<SocketAddr>) -> bool {
        let Some((name, port)) = split_authority(host) else {
            return false;
        };
        if let Some(reached) = reached
            && port.unwrap_or(80) != reached.port()
        {
            return false;
        }
        let name = normal_name(name);
        if name == "localhost" || self.allowed.contains(&name) {
            return true;
        }
        let bare = name.trim_start_matches('[').trim_end_matches(']');
        match bare.parse::<IpAddr>() {
            Ok(ip) => ip.is_loopback() || reached.is_some_and(|r| r.ip() == ip),
            Err(_) => false,
        }
    }
}

/// A host name as compared: lower case, without a final dot.
fn normal_name(name: &str) -> String {
    name.trim().trim_end_matches('.').to_ascii_lowercase()
}

/// `name` and the port, if given, of `host[:port]` (IPv6 in brackets); `None` when the
/// port is not a number.
fn split_authority(text: &str) -> Option<(&str, Option<u16>)> {
    let text = text.trim();
    let (name, port) = if text.starts_with('[') {
        match text.rsplit_once("]:") {
            Some((name, port)) => (&text[..name.len() + 1], Some(port)),
            None => (text, None),
        }
    } else {
        match text.rsplit_once(':') {
            Some((name, port)) if !name.contains(':') => (name, Some(port)),
            _ => (text, None),
        }
    };
    let port = match port {
        Some(p) => Some(p.parse::<u16>().ok()?),
        None => None,
    };
    Some((name, port))
}

/// Whether `origin` (`scheme://host[:port]`) is the origin of a page served as `host`
/// over plain HTTP.
fn same_authority(origin: &str, host: &str) -> bool {
    let Some(authority) = origin.strip_prefix("http://") else {
        return false;
    };
    let (Some((a, ap)), Some((b, bp))) = (split_authority(authority), split_authority(host)) else {
        return false;
    };
    normal_name(a) == normal_name(b) && ap.unwrap_or(80) == bp.unwrap_or(80)
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    const AT: &str = "127.0.0.1:4001";

    fn check(
        gate: &Gate,
        method: Method,
        path: &str,
        pairs: &[(&str, &str)],
    ) -> Result<(), StatusCode> {
        let mut headers = HeaderMap::new();
        for (k, v) in pairs {
            headers.insert(
                axum::http::HeaderName::from_bytes(k.as_bytes()).unwrap(),
                HeaderValue::from_str(v).unwrap(),
            );
        }
        let head = Head {
            method: &method,
            path,
            version: Version::HTTP_11,
            headers: &headers,
            reached: Some(AT.parse().unwrap()),
        };
        gate.check(&head).map_err(|r| r.status)
    }

    #[test]
    fn controllers_pass_under_any_host_or_none() {
        let gate = Gate::default();
        assert_eq!(check(&gate, Method::POST, "/", &[]), Ok(()));
        assert_eq!(
            check(&gate, Method::POST, "/", &[("host", "10.1.2.3:4001")]),
            Ok(())
        );
        assert_eq!(
            check(&gate, Method::POST, "/", &[("host", "player.lab:9")]),
            Ok(())
        );
    }

    #[test]
    fn another_site_is_refused_on_every_route() {
        let gate = Gate::default();
        let host = ("host", AT);
        for (method, path) in [
            (Method::POST, "/"),
            (Method::POST, "/api/games"),
            (Method::GET, "/api/matches"),
        ] {
            for header in [
                ("origin", "http://evil.example"),
                ("origin", "http://127.0.0.1:4002"),
                ("origin", "null"),
                ("origin", "https://127.0.0.1:4001"),
                ("sec-fetch-site", "cross-site"),
                ("sec-fetch-site", "same-site"),
            ] {
                assert_eq!(
                    check(&gate, method.clone(), path, &[host, header]),
                    Err(StatusCode::FORBIDDEN),
                    "{method} {path} {header:?}"
                );
            }
        }
        let own = [
            host,
            ("origin", "http://127.0.0.1:4001"),
            ("sec-fetch-site", "same-origin"),
        ];
        assert_eq!(check(&gate, Method::POST, "/api/games", &own), Ok(()));
    }

    #[test]
    fn the_page_answers_only_names_of_this_player() {
        let gate = Gate::new(&["Player.Lab".to_owned()]);
        for ok in [
            "127.0.0.1:4001",
            "localhost:4001",
            "[::1]:4001",
            "player.lab:4001",
            "LOCALHOST.:4001",
        ] {
            assert_eq!(
                check(&gate, Method::GET, "/", &[("host", ok)]),
                Ok(()),
                "{ok}"
            );
        }
        for bad in [
            "evil.example:4001",
            "127.0.0.1:4002",
            "localhost",
            "10.0.0.9:4001",
            "localhost:x",
            "player.lab.evil:4001",
        ] {
            assert_eq!(
                check(&gate, Method::GET, "/api/matches", &[("host", bad)]),
                Err(StatusCode::MISDIRECTED_REQUEST),
                "{bad}"
            );
        }
        // Rebinding: the attacker's name, with its own origin, is still refused.
        let rebound = [
            ("host", "evil.example:4001"),
            ("origin", "http://evil.example:4001"),
        ];
        assert_eq!(
            check(&gate, Method::POST, "/api/games/2/moves", &rebound),
            Err(StatusCode::MISDIRECTED_REQUEST)
        );
        assert_eq!(
            check(&gate, Method::POST, "/", &rebound),
            Err(StatusCode::MISDIRECTED_REQUEST)
        );
    }

    #[test]
    fn an_http_1_0_post_without_a_length_is_refused() {
        let gate = Gate::default();
        let headers = HeaderMap::new();
        let mut head = Head {
            method: &Method::POST,
            path: "/",
            version: Version::HTTP_10,
            headers: &headers,
            reached: None,
        };
        assert_eq!(
            gate.check(&head).unwrap_err().status,
            StatusCode::LENGTH_REQUIRED
        );
        let mut with_length = HeaderMap::new();
        with_length.insert(header::CONTENT_LENGTH, HeaderValue::from_static("0"));
        head.headers = &with_length;
        assert_eq!(gate.check(&head), Ok(()));
        head.headers = &headers;
        head.version = Version::HTTP_11;
        assert_eq!(gate.check(&head), Ok(()));
    }

    #[test]
    fn authorities_are_split_and_compared() {
        assert_eq!(split_authority("[::1]:80"), Some(("[::1]", Some(80))));
        assert_eq!(split_authority("[::1]"), Some(("[::1]", None)));
        assert_eq!(split_authority("a.b"), Some(("a.b", None)));
        assert_eq!(split_authority("a.b:99999"), None);
        assert!(same_authority("http://Localhost:4001", "localhost:4001"));
        assert!(same_authority("http://a.b", "a.b:80"));
        assert!(!same_authority("http://a.b:81", "a.b"));
    }
}
