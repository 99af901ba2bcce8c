//! The port as an attacker or a careless client meets it, through the built binary: other
//! sites and other host names are refused, HTTP's edge cases get their exact status, and
//! the server keeps serving.

use std::io::{Read, Write};
use std::net::{IpAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{free_port, match_ids, rules_line};

/// A `ggp-player serve` on a free port, killed when dropped.
struct Served {
    child: Child,
    port: u16,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts the player with `extra` options and waits until it answers.
fn serve(extra: &[&str]) -> Served {
    let port = free_port();
    let child = Command::new(env!("CARGO_BIN_EXE_ggp-player"))
        .args(["serve", "--port", &port.to_string()])
        .args(["--threads", "1", "--no-ponder", "--hash-mb", "16"])
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let served = Served { child, port };
    let started = Instant::now();
    while raw(
        "127.0.0.1",
        port,
        "POST / HTTP/1.0\r\nContent-Length: 6\r\n\r\n(INFO)",
    )
    .is_err()
    {
        assert!(started.elapsed().as_secs() < 20, "the player did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    served
}

/// Sends `request` as it is to `ip:port` and reads the whole reply.
fn raw(ip: &str, port: u16, request: &str) -> std::io::Result<String> {
    let ip: IpAddr = ip.parse().unwrap();
    let mut stream = TcpStream::connect((ip, port))?;
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    stream.write_all(request.as_bytes())?;
    let mut reply = Vec::new();
    stream.read_to_end(&mut reply)?;
    Ok(String::from_utf8_lossy(&reply).into_owned())
}

fn status_of(reply: &str) -> u16 {
    reply
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status in {reply:?}"))
}

fn body_of(reply: &str) -> &str {
    reply.split_once("\r\n\r\n").map_or("", |(_, b)| b)
}

/// The `error` of a JSON reply; fails when the reply is not JSON.
fn json_error(reply: &str) -> String {
    assert!(
        reply
            .to_ascii_lowercase()
            .contains("content-type: application/json"),
        "{reply}"
    );
    let v: Value = serde_json::from_str(body_of(reply)).unwrap_or_else(|e| panic!("{e}: {reply}"));
    v["error"]
        .as_str()
        .unwrap_or_else(|| panic!("{reply}"))
        .to_owned()
}

/// The page's list of matches, asked under the host name `host` (which the player must
/// accept: 200).
fn listed_matches(port: u16, host: &str) -> Value {
    let request = format!("GET /api/matches HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n");
    let reply = raw("127.0.0.1", port, &request).unwrap();
    assert_eq!(status_of(&reply), 200, "{reply}");
    serde_json::from_str(body_of(&reply)).unwrap()
}

/// A POST with `headers`, of `body`, over HTTP/1.1.
fn post(path: &str, headers: &str, body: &str, port: u16) -> String {
    raw(
        "127.0.0.1",
        port,
        &format!(
            "POST {path} HTTP/1.1\r\n{headers}Content-Length: {}\r\n\r\n{body}",
            body.len()
        ),
    )
    .unwrap()
}

/// A non-loopback address of this machine (the one its default route leaves from), if
/// it has one.
fn own_address() -> Option<IpAddr> {
    let socket = std::net::UdpSocket::bind("0.0.0.0:0").ok()?;
    socket.connect("192.0.2.1:9").ok()?;
    let ip = socket.local_addr().ok()?.ip();
    (!ip.is_loopback() && !ip.is_unspecified()).then_some(ip)
}

#[test]
fn another_site_and_another_host_name_are_refused_and_controllers_are_not() {
    let p = serve(&[]);
    let host = format!("Host: 127.0.0.1:{}\r\n", p.port);
    let rules = rules_line("5x5");
    let start = format!("(START m1 white ({rules}) 10 5)");

    // Another site's page: refused before the body is read, on every route.
    for extra in [
        "Origin: http://evil.example\r\n",
        "Origin: null\r\n",
        "Sec-Fetch-Site: cross-site\r\n",
        "Sec-Fetch-Site: same-site\r\n",
    ] {
        let reply = post("/", &format!("{host}{extra}"), &start, p.port);
        assert_eq!(status_of(&reply), 403, "{extra}: {reply}");
        assert!(body_of(&reply).contains("refused"), "{reply}");
        let reply = post(
            "/api/games",
            &format!("{host}{extra}Content-Type: application/json\r\n"),
            r#"{"game":"breakthrough","side":"white","think_ms":500}"#,
            p.port,
        );
        assert_eq!(status_of(&reply), 403, "{extra}: {reply}");
        assert!(json_error(&reply).contains("refused"), "{reply}");
    }
    // DNS rebinding: the attacker's name with its own origin.
    let rebound = format!(
        "Host: evil.example:{0}\r\nOrigin: http://evil.example:{0}\r\nContent-Type: application/json\r\n",
        p.port
    );
    let reply = post("/api/games/2/moves", &rebound, r#"{"move":"x"}"#, p.port);
    assert_eq!(status_of(&reply), 421, "{reply}");
    assert!(json_error(&reply).contains("--allow-host"), "{reply}");
    let reply = raw(
        "127.0.0.1",
        p.port,
        &format!(
            "GET /api/matches HTTP/1.1\r\nHost: evil.example:{}\r\n\r\n",
            p.port
        ),
    )
    .unwrap();
    assert_eq!(status_of(&reply), 421, "{reply}");
    let reply = raw(
        "127.0.0.1",
        p.port,
        &format!("GET / HTTP/1.1\r\nHost: evil.example:{}\r\n\r\n", p.port),
    )
    .unwrap();
    assert_eq!(status_of(&reply), 421, "{reply}");
    assert!(!body_of(&reply).contains("<html"), "{reply}");
    assert!(!body_of(&reply).contains('\n') || body_of(&reply).trim_end().lines().count() == 1);

    // None of that started anything: a controller (no Origin; Dresden sends no Host at
    // all, another host's controller the player's address) still has every match free.
    let reply = raw(
        "127.0.0.1",
        p.port,
        &format!(
            "POST / HTTP/1.0\r\nContent-Type: text/acl\r\nContent-Length: {}\r\n\r\n{start}",
            start.len()
        ),
    )
    .unwrap();
    assert!(reply.ends_with("ready"), "{reply}");
    let machine = own_address().map_or_else(|| "192.0.2.7".to_owned(), |ip| ip.to_string());
    let play = "(PLAY m1 NIL)";
    let reply = post(
        "/",
        &format!("Host: {machine}:{}\r\nContent-Type: text/acl\r\n", p.port),
        play,
        p.port,
    );
    assert_eq!(status_of(&reply), 200, "{reply}");
    assert!(reply.contains("(move "), "{reply}");
    // The page, under this player's own names.
    for name in ["localhost", "127.0.0.1"] {
        let list = listed_matches(p.port, name);
        assert_eq!(match_ids(&list), ["m1"], "only the controller's match");
    }
}

#[test]
fn the_page_answers_names_given_with_allow_host_and_the_address_reached() {
    let Some(machine) = own_address() else {
        println!(
            "skipped port::the_page_answers_names_given_with_allow_host_and_the_address_reached: no non-loopback address"
        );
        return;
    };
    let p = serve(&["--bind", "0.0.0.0", "--allow-host", "Player.Lab"]);
    let ask = |ip: &str, host: &str| {
        let reply = raw(
            ip,
            p.port,
            &format!("GET / HTTP/1.1\r\nHost: {host}\r\n\r\n"),
        )
        .unwrap();
        status_of(&reply)
    };
    let machine = machine.to_string();
    assert_eq!(ask(&machine, &format!("{machine}:{}", p.port)), 200);
    assert_eq!(ask(&machine, &format!("player.lab:{}", p.port)), 200);
    assert_eq!(ask("127.0.0.1", &format!("localhost:{}", p.port)), 200);
    assert_eq!(ask(&machine, &format!("other.lab:{}", p.port)), 421);
    // Reached on loopback, the machine's address is not the one the browser used.
    assert_eq!(ask("127.0.0.1", &format!("{machine}:{}", p.port)), 421);
}

#[test]
fn http_edge_cases_get_their_exact_status_and_the_server_keeps_serving() {
    let p = serve(&[]);
    let host = format!("Host: 127.0.0.1:{}\r\n", p.port);

    // HTTP/1.0 without Content-Length: the body cannot be delimited, so it is not read as
    // an empty INFO; an empty body that says so still is INFO.
    let rules = rules_line("5x5");
    let reply = raw(
        "127.0.0.1",
        p.port,
        &format!("POST / HTTP/1.0\r\nContent-Type: text/acl\r\n\r\n(START m white ({rules}) 10 5)"),
    )
    .unwrap();
    assert_eq!(status_of(&reply), 411, "{reply}");
    assert!(body_of(&reply).contains("Content-Length"), "{reply}");
    let reply = raw(
        "127.0.0.1",
        p.port,
        "POST / HTTP/1.0\r\nContent-Length: 0\r\n\r\n",
    )
    .unwrap();
    assert_eq!(status_of(&reply), 200, "{reply}");
    assert!(reply.contains("(status available)"), "{reply}");

    // 5,000 header lines: 431, not a reset.
    let mut many = String::from("POST / HTTP/1.1\r\n");
    for i in 0..5000 {
        many.push_str(&format!("X-Line-{i}: {i}\r\n"));
    }
    many.push_str("Content-Length: 6\r\n\r\n(INFO)");
    let reply = raw("127.0.0.1", p.port, &many).unwrap();
    assert_eq!(status_of(&reply), 431, "{reply}");

    // The API's bodies: JSON errors that state the API's own limit.
    let json = format!("{host}Content-Type: application/json\r\n");
    let big = format!(r#"{{"move":"{}"}}"#, "x".repeat(4097 - 11));
    assert_eq!(big.len(), 4097);
    let reply = post("/api/games/1/moves", &json, &big, p.port);
    assert_eq!(status_of(&reply), 413, "{reply}");
    assert!(json_error(&reply).contains("4096 bytes"), "{reply}");
    let huge = "x".repeat(2 << 20);
    let reply = post("/api/games", &json, &huge, p.port);
    assert_eq!(status_of(&reply), 413, "{reply}");
    assert!(json_error(&reply).contains("4096 bytes"), "{reply}");
    // Chunked, so that only reading it finds it too large.
    let mut chunked =
        format!("POST /api/games HTTP/1.1\r\n{json}Transfer-Encoding: chunked\r\n\r\n");
    for _ in 0..3 {
        chunked.push_str(&format!("800\r\n{}\r\n", "y".repeat(0x800)));
    }
    chunked.push_str("0\r\n\r\n");
    let reply = raw("127.0.0.1", p.port, &chunked).unwrap();
    assert_eq!(status_of(&reply), 413, "{reply}");
    assert!(json_error(&reply).contains("4096 bytes"), "{reply}");
    // GGP's own limit is 1 MiB, in one line of text.
    let reply = post("/", "", &"(".repeat((1 << 20) + 1), p.port);
    assert_eq!(status_of(&reply), 413, "{reply}");
    assert!(body_of(&reply).contains("1048576 bytes (1 MiB)"), "{reply}");

    // A path that is not there is 404 whatever the method, not a 405 whose Allow says
    // GET would do; a method a path does not take is 405 with what to use instead.
    let request = |method: &str, path: &str| {
        raw(
            "127.0.0.1",
            p.port,
            &format!("{method} {path} HTTP/1.1\r\n{host}Content-Length: 0\r\n\r\n"),
        )
        .unwrap()
    };
    let allow = |reply: &str| {
        reply.lines().find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("allow: ")
                .map(str::to_owned)
        })
    };
    for (method, path) in [
        ("GET", "/nosuch"),
        ("GET", "/favicon.ico"),
        ("HEAD", "/nosuch"),
        ("PUT", "/nosuch"),
    ] {
        let reply = request(method, path);
        assert_eq!(status_of(&reply), 404, "{method} {path}: {reply}");
        assert_eq!(allow(&reply), None, "{reply}");
        if method != "HEAD" {
            assert!(body_of(&reply).starts_with("no such page: "), "{reply}");
            assert_eq!(body_of(&reply).lines().count(), 1, "{reply}");
        }
    }
    let reply = request("GET", "/");
    assert_eq!(status_of(&reply), 200, "{reply}");
    assert!(body_of(&reply).contains("<html"), "{reply}");
    let reply = request("PUT", "/");
    assert_eq!(status_of(&reply), 405, "{reply}");
    assert_eq!(allow(&reply).as_deref(), Some("get, head, post"), "{reply}");
    assert!(
        body_of(&reply).contains("POST / with an S-expression body"),
        "{reply}"
    );
    let reply = request("DELETE", "/app.js");
    assert_eq!(status_of(&reply), 405, "{reply}");
    assert_eq!(
        body_of(&reply),
        "DELETE is not allowed on /app.js; use GET\n",
        "{reply}"
    );
    for (method, path, error, allowed) in [
        (
            "DELETE",
            "/api/matches",
            "DELETE is not allowed on /api/matches; use GET",
            "get, head",
        ),
        (
            "POST",
            "/api/matches/1",
            "POST is not allowed on /api/matches/1; use GET",
            "get, head",
        ),
        (
            "GET",
            "/api/games/1/moves",
            "GET is not allowed on /api/games/1/moves; use POST",
            "post",
        ),
        (
            "PUT",
            "/api/games",
            "PUT is not allowed on /api/games; use GET or POST",
            "get, post, head",
        ),
    ] {
        let reply = request(method, path);
        assert_eq!(status_of(&reply), 405, "{method} {path}: {reply}");
        assert_eq!(json_error(&reply), error, "{reply}");
        assert_eq!(allow(&reply).as_deref(), Some(allowed), "{reply}");
    }

    let reply = raw(
        "127.0.0.1",
        p.port,
        "POST / HTTP/1.0\r\nContent-Length: 6\r\n\r\n(INFO)",
    )
    .unwrap();
    assert!(
        reply.ends_with("((name ggp-player) (status available))"),
        "{reply}"
    );
}

/// STARTs sent at once to a player that plays one match: one is `ready`, the others 503,
/// and the page's list has the admitted match alone (it showed the refused ones live for
/// ever).
#[test]
fn concurrent_starts_beyond_max_matches_leave_no_phantom_match() {
    let p = serve(&["--max-matches", "1"]);
    let rules = rules_line("8x8");
    let at_once = std::sync::Arc::new(std::sync::Barrier::new(20));
    let senders: Vec<_> = (0..20)
        .map(|i| {
            let (rules, at_once, port) = (rules.clone(), at_once.clone(), p.port);
            std::thread::spawn(move || {
                let start = format!("(START r{i} white ({rules}) 10 5)");
                let request = format!(
                    "POST / HTTP/1.0\r\nContent-Type: text/acl\r\nContent-Length: {}\r\n\r\n{start}",
                    start.len()
                );
                at_once.wait();
                (format!("r{i}"), raw("127.0.0.1", port, &request).unwrap())
            })
        })
        .collect();
    let replies: Vec<(String, String)> = senders.into_iter().map(|s| s.join().unwrap()).collect();
    let admitted: Vec<&str> = replies
        .iter()
        .filter(|(_, reply)| status_of(reply) == 200)
        .map(|(id, _)| id.as_str())
        .collect();
    assert_eq!(admitted.len(), 1, "{replies:?}");
    for (_, reply) in replies.iter().filter(|(_, reply)| status_of(reply) != 200) {
        assert_eq!(status_of(reply), 503, "{reply}");
        assert!(body_of(reply).contains("--max-matches"), "{reply}");
    }
    let list = listed_matches(p.port, "127.0.0.1");
    assert_eq!(match_ids(&list), admitted, "{list}");
}
