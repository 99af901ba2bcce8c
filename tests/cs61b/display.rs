//! `loa --display` run as a user would: the address read from standard error, a move
//! made on the page (over its HTTP API) seen by the text side, and a typed move seen by
//! the page.

use std::io::{BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

/// The program with its streams: what it wrote so far, and its input.
struct Program {
    child: Child,
    stdin: ChildStdin,
    stdout: Arc<Mutex<String>>,
    stderr: Arc<Mutex<String>>,
}

/// Copies `from` into `to` as it comes.
fn collect(mut from: impl Read + Send + 'static, to: Arc<Mutex<String>>) {
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = from.read(&mut buf) {
            if n == 0 {
                break;
            }
            to.lock()
                .unwrap()
                .push_str(&String::from_utf8_lossy(&buf[..n]));
        }
    });
}

impl Program {
    fn start() -> Program {
        let mut child = Command::new(env!("CARGO_BIN_EXE_loa"))
            .arg("--display")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let (stdout, stderr) = (Arc::default(), Arc::default());
        collect(child.stdout.take().unwrap(), Arc::clone(&stdout));
        collect(child.stderr.take().unwrap(), Arc::clone(&stderr));
        Program {
            child,
            stdin,
            stdout,
            stderr,
        }
    }

    fn type_line(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Waits until `stream` holds `what`; its text.
    fn wait_for(&self, stream: &Mutex<String>, what: &str) -> String {
        let until = Instant::now() + Duration::from_secs(10);
        loop {
            let text = stream.lock().unwrap().clone();
            if text.contains(what) {
                return text;
            }
            assert!(Instant::now() < until, "no {what:?} in {text:?}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The address printed on standard error.
    fn address(&self) -> String {
        let err = self.wait_for(&self.stderr, "/ (open it");
        let start = err.find("http://").unwrap() + "http://".len();
        err[start..].split('/').next().unwrap().to_owned()
    }
}

/// One HTTP request to `addr`; the status and the JSON body.
fn request(addr: &str, method: &str, path: &str, body: Option<&str>) -> (u16, Value) {
    let mut stream = TcpStream::connect(addr).unwrap();
    let body = body.unwrap_or("");
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).unwrap();
    let mut reply = String::new();
    BufReader::new(stream).read_to_string(&mut reply).unwrap();
    let status = reply[9..12].parse().unwrap();
    let body = reply.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}

/// The page's match, once `ready` holds of it.
fn wait_for_match(addr: &str, ready: impl Fn(&Value) -> bool) -> Value {
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        let (status, d) = request(addr, "GET", "/api/matches/1", None);
        assert_eq!(status, 200, "{d}");
        if ready(&d) {
            return d;
        }
        assert!(Instant::now() < until, "the page's match stays {d}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn board_rows(d: &Value) -> Vec<String> {
    d["diagram"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r.as_array()
                .unwrap()
                .iter()
                .map(|c| c.as_str().unwrap())
                .collect()
        })
        .collect()
}

#[test]
fn loa_display_shows_the_game_and_takes_moves_from_both_sides() {
    let mut p = Program::start();
    let addr = p.address();
    // Both sides typed in: the page may move for black at the start.
    p.type_line("manual white");
    p.wait_for(&p.stdout, "b> b> ");
    let d = wait_for_match(&addr, |d| d["legal"].is_array());
    assert_eq!(
        (d["game"].as_str(), d["plies"].as_u64()),
        (Some("loa8"), Some(0))
    );
    assert_eq!(board_rows(&d)[0], "-bbbbbb-", "rank 8 first");
    let legal = d["legal"].as_array().unwrap();
    assert!(legal.iter().any(|m| m["name"] == "b1-b3"), "{d}");

    // A move on the page: the text side plays it, and its dump shows it.
    let (status, answer) = request(
        &addr,
        "POST",
        "/api/games/1/moves",
        Some(r#"{"move":"b1-b3"}"#),
    );
    assert_eq!(status, 200, "{answer}");
    p.wait_for(&p.stdout, "b> b> w> ");
    p.wait_for(&p.stderr, "the page played b1-b3");
    p.type_line("dump");
    let out = p.wait_for(&p.stdout, "Next move: white");
    let dump: Vec<&str> = out.lines().skip_while(|l| !l.contains("===")).collect();
    // dump[0] is the prompt and "===", then rank 8 down to rank 1.
    assert_eq!(dump[6].trim(), "w b - - - - - w", "b3 holds black: {out}");
    assert_eq!(dump[8].trim(), "- - b b b b b -", "b1 is empty: {out}");

    // A typed move: the page follows it.
    p.type_line("h2-f2");
    let d = wait_for_match(&addr, |d| d["plies"] == 2);
    assert_eq!(d["moves"][0]["text"], "b1-b3");
    assert_eq!(d["moves"][1]["text"], "h2-f2");
    assert_eq!(board_rows(&d)[6], "w----w--", "{d}");

    // An illegal move from the page is refused, and nothing reaches the program.
    let (status, answer) = request(
        &addr,
        "POST",
        "/api/games/1/moves",
        Some(r#"{"move":"b3-b4"}"#),
    );
    assert_eq!(status, 422, "{answer}");
    assert!(
        answer["error"].as_str().unwrap().contains("b1-d3"),
        "{answer}"
    );
    p.type_line("quit");
    let status = p.child.wait().unwrap();
    assert!(status.success());
}
