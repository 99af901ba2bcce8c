//! The web page in a real browser: Debian's `chromium`, headless, driven over the
//! DevTools protocol (chromiumoxide). Without `/usr/bin/chromium` each test says it
//! skipped and passes (CI installs it). One browser at a time, a fresh profile each.
//!
//! `cargo test --test tests web::screenshots -- --ignored` writes the README's
//! screenshots (`docs/page-live-match.png`, `docs/page-finished-game.png`) and the page's
//! at 1280 and 390 px for each game, a Halma chain and a game of moves made at once
//! (`docs/screens/`).

use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::common::move_of_record;
use chromiumoxide::browser::{Browser, BrowserConfig};
use chromiumoxide::cdp::browser_protocol::log::{
    EnableParams as LogEnable, EventEntryAdded, LogEntryLevel,
};
use chromiumoxide::cdp::js_protocol::runtime::{
    ConsoleApiCalledType, EventConsoleApiCalled, EventExceptionThrown,
};
use chromiumoxide::page::{Page, ScreenshotParams};
use futures::StreamExt;
use ggp_player::games::breakthrough::Board;
use ggp_player::games::breakthrough::spec::Breakthrough;
use ggp_player::gdl::{Gdl, State};
use ggp_player::player::server::{self, ServeConfig};
use ggp_player::referee::dialect::Dialect;
use ggp_player::referee::ggp_match::{GgpGame, MatchSpec};
use ggp_player::referee::players::{PlayerSpec, RunningPlayer};
use ggp_player::referee::record::MatchRecord;
use serde_json::Value;

const CHROMIUM: &str = "/usr/bin/chromium";

/// One browser at a time: the machine's cores are few.
static ONE_BROWSER: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Whether the browser is there; says the test skipped when it is not.
fn have_chromium(test: &str) -> bool {
    let found = Path::new(CHROMIUM).exists();
    if !found {
        println!("skipped {test}: chromium not found at {CHROMIUM} (apt-get install chromium)");
    }
    found
}

/// The browser's turn for `test` (one test at a time has it); `None`, after the skip
/// line, without chromium.
async fn browser_turn(test: &str) -> Option<tokio::sync::MutexGuard<'static, ()>> {
    if !have_chromium(test) {
        return None;
    }
    Some(ONE_BROWSER.lock().await)
}

/// What a console-error listener collects from a page.
type Errors = std::sync::Arc<Mutex<Vec<String>>>;

/// A player (100 ms margin) and a browser with its page open: the address, the player's
/// stop handle, the browser, the page and its console errors.
async fn open_player_page() -> (
    String,
    tokio::sync::oneshot::Sender<()>,
    Chromium,
    Page,
    Errors,
) {
    open_player_page_with_margin(100).await
}

/// The same, with the player's margin `margin_ms`: a larger one leaves less time to
/// search each move, where the test is not about the moves.
async fn open_player_page_with_margin(
    margin_ms: u64,
) -> (
    String,
    tokio::sync::oneshot::Sender<()>,
    Chromium,
    Page,
    Errors,
) {
    let (addr, stop) = start_player(margin_ms).await;
    let chromium = Chromium::launch().await;
    let (page, errors) = chromium.open(&format!("http://{addr}/")).await;
    (addr, stop, chromium, page, errors)
}

/// The player with its page, on a free port of this process's runtime; its address.
async fn start_player(margin_ms: u64) -> (String, tokio::sync::oneshot::Sender<()>) {
    let config = ServeConfig {
        margin: Duration::from_millis(margin_ms),
        threads: 1,
        ponder: false,
        ..ServeConfig::default()
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(async move {
        let shutdown = async {
            let _ = stopped.await;
        };
        server::serve(config, listener, shutdown).await.unwrap();
    });
    (addr, stop)
}

/// A headless chromium with a fresh profile, and what its page reports as errors.
struct Chromium {
    browser: Browser,
    _profile: TempDir,
}

/// A directory removed when dropped.
struct TempDir(std::path::PathBuf);

impl Drop for TempDir {
    /// The browser's last processes may still write to it for a moment after it quits.
    fn drop(&mut self) {
        for _ in 0..20 {
            if std::fs::remove_dir_all(&self.0).is_ok() || !self.0.exists() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// Profiles made by this process so far (each browser gets its own).
static PROFILES: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

impl Chromium {
    async fn launch() -> Chromium {
        let n = PROFILES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let profile = std::env::temp_dir().join(format!("ggp-web-test-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&profile).unwrap();
        let config = BrowserConfig::builder()
            .chrome_executable(CHROMIUM)
            .no_sandbox()
            .user_data_dir(&profile)
            .window_size(1280, 1000)
            .viewport(None)
            .args([
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ])
            .build()
            .unwrap();
        let (browser, mut handler) = Browser::launch(config).await.expect("chromium starts");
        tokio::spawn(async move { while handler.next().await.is_some() {} });
        Chromium {
            browser,
            _profile: TempDir(profile),
        }
    }

    /// Opens `url` with listeners for console errors, exceptions and failed loads; the
    /// page, and the errors seen so far (grows as the page runs).
    async fn open(&self, url: &str) -> (Page, Errors) {
        self.open_with(url, None).await
    }

    /// [`Chromium::open`], running `init` in the page before its own scripts.
    async fn open_with(&self, url: &str, init: Option<&str>) -> (Page, Errors) {
        let page = self.browser.new_page("about:blank").await.unwrap();
        if let Some(init) = init {
            page.evaluate_on_new_document(init).await.unwrap();
        }
        // A tab in the background gets its timers slowed and is not drawn.
        page.bring_to_front().await.unwrap();
        let errors = std::sync::Arc::new(Mutex::new(Vec::new()));
        page.execute(LogEnable::default()).await.unwrap();
        let mut console = page
            .event_listener::<EventConsoleApiCalled>()
            .await
            .unwrap();
        let mut thrown = page.event_listener::<EventExceptionThrown>().await.unwrap();
        let mut logged = page.event_listener::<EventEntryAdded>().await.unwrap();
        let sink = errors.clone();
        tokio::spawn(async move {
            loop {
                let line = tokio::select! {
                    Some(e) = console.next() => (e.r#type == ConsoleApiCalledType::Error)
                        .then(|| format!("console.error: {:?}", e.args.iter().map(|a| a.value.clone()).collect::<Vec<_>>())),
                    Some(e) = thrown.next() => Some(format!("exception: {:?}", e.exception_details)),
                    Some(e) = logged.next() => (e.entry.level == LogEntryLevel::Error)
                        .then(|| format!("log: {} {:?}", e.entry.text, e.entry.url)),
                    else => break,
                };
                if let Some(line) = line {
                    sink.lock().unwrap().push(line);
                }
            }
        });
        page.goto(url).await.unwrap();
        (page, errors)
    }

    async fn close(mut self) {
        let _ = self.browser.close().await;
        let _ = self.browser.wait().await;
    }
}

async fn eval(page: &Page, js: &str) -> Value {
    page.evaluate(js)
        .await
        .unwrap_or_else(|e| panic!("{js}: {e}"))
        .into_value()
        .unwrap_or(Value::Null)
}

/// Waits until `js` is true in the page, or fails with `what`.
async fn wait_for(page: &Page, js: &str, what: &str, within: Duration) {
    let until = Instant::now() + within;
    while Instant::now() < until {
        if eval(page, js).await == Value::Bool(true) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(30)).await;
    }
    panic!("timed out waiting for {what} ({js})");
}

/// Waits until the page's board shows at least `plies` moves played.
async fn wait_for_plies(page: &Page, plies: u32, what: &str, within: Duration) {
    let js = format!("Number(document.getElementById('board').dataset.plies) >= {plies}");
    wait_for(page, &js, what, within).await;
}

/// The moves of the page's move list, in the game's notation.
async fn moves_listed(page: &Page) -> Value {
    eval(
        page,
        "[...document.querySelectorAll('#moves tbody tr')].map(r => r.dataset.move)",
    )
    .await
}

/// The board the page shows: (plies, rows joined by newlines, status, view).
async fn shown(page: &Page) -> (u32, String, String, String) {
    let v = eval(
        page,
        "(() => { const b = document.getElementById('board'); \
         return [Number(b.dataset.plies || -1), b.dataset.board || '', b.dataset.status || '', b.dataset.view || '']; })()",
    )
    .await;
    (
        v[0].as_i64().unwrap_or(-1) as u32,
        v[1].as_str().unwrap_or("").to_owned(),
        v[2].as_str().unwrap_or("").to_owned(),
        v[3].as_str().unwrap_or("").to_owned(),
    )
}

/// A Breakthrough board's rows as the page's `data-board` has them.
fn rows_of(board: &Board) -> String {
    let text = board.to_string();
    let lines: Vec<&str> = text.lines().collect();
    lines[..lines.len() - 1].join("\n")
}

/// The boards after each ply of `record` (index = plies).
fn boards_of(record: &MatchRecord, size: &str) -> Vec<String> {
    let mut board = Board::new(size.parse().unwrap());
    let mut out = vec![rows_of(&board)];
    for text in &record.moves {
        let m = move_of_record(&board, text).unwrap();
        board.make(m);
        out.push(rows_of(&board));
    }
    out
}

fn errors_of(errors: &Mutex<Vec<String>>) -> Vec<String> {
    errors.lock().unwrap().clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_loads_without_console_errors() {
    let Some(_one) = browser_turn("web::the_page_loads_without_console_errors").await else {
        return;
    };
    let (_, _stop, chromium, page, errors) = open_player_page().await;
    wait_for(
        &page,
        "document.getElementById('conn').textContent === 'live' && document.getElementById('game').options.length > 0",
        "the live connection and the game list",
        Duration::from_secs(10),
    )
    .await;
    let title = eval(&page, "document.title").await;
    assert_eq!(title, "ggp-player");
    // The form offers Breakthrough with its sides.
    let sides = eval(
        &page,
        "[...document.getElementById('side').options].map(o => o.value)",
    )
    .await;
    assert_eq!(sides, serde_json::json!(["white", "black"]));
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(errors_of(&errors), Vec::<String>::new(), "no console error");
    chromium.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_api_request_gets_a_clear_4xx() {
    let Some(_one) = browser_turn("web::a_bad_api_request_gets_a_clear_4xx").await else {
        return;
    };
    let (addr, _stop, chromium, page, _) = open_player_page().await;
    wait_for(
        &page,
        "document.getElementById('conn').textContent === 'live'",
        "the page",
        Duration::from_secs(10),
    )
    .await;
    // Sent by the page's own scripts, as the page would.
    let answers = eval(
        &page,
        r#"(async () => {
            const ask = async (path, options) => {
                const r = await fetch(path, options);
                return [r.status, (await r.json()).error];
            };
            const json = (body) => ({ method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
            return [
                await ask('/api/games', json('{"game":"breakthrough","side":"white","think_ms":5}')),
                await ask('/api/games', json('{"game":"chess","side":"white","think_ms":500}')),
                await ask('/api/games', json('{"game":"breakthrough","size":"11x3","side":"white","think_ms":500}')),
                await ask('/api/games', json('{"game":"breakthrough","side":"red","think_ms":500}')),
                await ask('/api/games', json('not json')),
                await ask('/api/games', { method: 'POST', body: '{}' }),
                await ask('/api/matches/abc'),
                await ask('/api/matches/99'),
                await ask('/api/games/99/moves', json('{"move":"(move 1 1 1 2)"}')),
                await ask('/api/nothing'),
            ];
        })()"#,
    )
    .await;
    let expected: [(u64, &str); 10] = [
        (422, "think time 5 ms is out of range"),
        (422, "no game is called \"chess\""),
        (422, "11x3"),
        (422, "side 'red' is not one of breakthrough's sides"),
        (400, "bad JSON body"),
        (415, "Content-Type: application/json"),
        (400, "'abc' is not a match number"),
        (404, "no match 99"),
        (404, "no game 99"),
        (404, "no such API path"),
    ];
    for (i, (status, words)) in expected.iter().enumerate() {
        let answer = &answers[i];
        assert_eq!(answer[0].as_u64(), Some(*status), "request {i}: {answer}");
        let message = answer[1].as_str().unwrap_or("");
        assert!(
            message.contains(words),
            "request {i}: {message:?} lacks {words:?}"
        );
    }
    // Another site's page cannot drive it.
    let foreign = reqwest_free_post(&addr, "http://elsewhere.example").await;
    assert!(foreign.starts_with("HTTP/1.1 403"), "{foreign}");
    assert!(foreign.contains("refused"), "{foreign}");
    chromium.close().await;
}

/// A POST to start a game with another site's `Origin`, as a browser on that site would
/// send it; the raw reply.
async fn reqwest_free_post(addr: &str, origin: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let body = r#"{"game":"breakthrough","side":"white","think_ms":500}"#;
    let request = format!(
        "POST /api/games HTTP/1.1\r\nHost: {addr}\r\nOrigin: {origin}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut reply = String::new();
    stream.read_to_string(&mut reply).await.unwrap();
    reply
}

/// Run in the page before its scripts: every position the live board shows is logged
/// (`window.shownLog`, as [plies, board]), and the change events of odd plies are
/// dropped before the page sees them (`window.dropped` counts them), as if lost.
const LOG_BOARDS_AND_DROP_EVENTS: &str = r#"
window.shownLog = [];
window.dropped = 0;
document.addEventListener('DOMContentLoaded', () => {
  const board = document.getElementById('board');
  new MutationObserver(() => {
    const d = board.dataset;
    if (d.view !== 'live' || d.status !== 'live') return;
    const last = window.shownLog[window.shownLog.length - 1];
    if (!last || last[0] !== Number(d.plies) || last[1] !== d.board) window.shownLog.push([Number(d.plies), d.board]);
  }).observe(board, { attributes: true });
});
const addListener = EventSource.prototype.addEventListener;
EventSource.prototype.addEventListener = function (type, listener, options) {
  const filtered = type !== 'change' ? listener : (e) => {
    const c = JSON.parse(e.data);
    if (c.status === 'live' && c.plies % 2 === 1) { window.dropped += 1; return; }
    listener(e);
  };
  return addListener.call(this, type, filtered, options);
};
"#;

/// A referee's match against the player, watched on the page from before the START,
/// with the change events of every other ply lost: the live board still shows every ply
/// in turn, each the match's board at that ply; after the end the move list shows every
/// move's position.
async fn watch_a_match(size: &str, screenshot: Option<&Path>) {
    let (addr, _stop) = start_player(800).await;
    let opponent = RunningPlayer::start(&PlayerSpec::Command(format!(
        "{} serve --agent alphabeta --margin-ms 800 --no-ponder --threads 1",
        env!("CARGO_BIN_EXE_ggp-player")
    )))
    .await
    .unwrap();
    let chromium = Chromium::launch().await;
    let (page, errors) = chromium
        .open_with(&format!("http://{addr}/"), Some(LOG_BOARDS_AND_DROP_EVENTS))
        .await;
    wait_for(
        &page,
        "document.getElementById('conn').textContent === 'live'",
        "the page",
        Duration::from_secs(10),
    )
    .await;

    let game = GgpGame::of::<Breakthrough>(size, None).unwrap();
    let spec = MatchSpec {
        id: format!("web-{size}"),
        addrs: [opponent.addr.clone(), addr.clone()],
        names: ["opponent".into(), "ggp-player".into()],
        start_clock: 2,
        play_clock: 1,
        dialect: Dialect::GgpBase,
    };
    let referee = tokio::spawn(async move { game.play(&spec).await });

    // The match appears in the list: open it by clicking its row.
    wait_for(
        &page,
        "document.querySelector('#matches tbody tr') !== null",
        "the match in the list",
        Duration::from_secs(10),
    )
    .await;
    page.find_element("#matches tbody tr td.result")
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    // While it is on, the status line says whose move it is: ours or the opponent's.
    wait_for(
        &page,
        "/^Ply \\d+: (White|Black) \\((us|opponent)\\) played .*\\. (White|Black) \\((us|opponent)\\) to move\\.$/.test(document.getElementById('status').textContent)",
        "the status line of a live match",
        Duration::from_secs(20),
    )
    .await;
    let mut shot_taken = false;
    while !referee.is_finished() {
        let (plies, _, _, _) = shown(&page).await;
        if let Some(path) = screenshot
            && !shot_taken
            && (10..1000).contains(&plies)
        {
            wait_for(
                &page,
                &format!(
                    "Number((document.querySelector('#matches tbody tr .result').textContent.match(/ply (\\d+)/) || [0, -1])[1]) >= {plies}"
                ),
                "the list to show the ply",
                Duration::from_secs(5),
            )
            .await;
            save_screenshot(&page, path).await;
            shot_taken = true;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let record = referee.await.unwrap();
    assert!(record.faults.is_empty(), "{:?}", record.faults);
    let boards = boards_of(&record, size);
    let plies = record.moves.len();
    // The end: the final board, the result, and every ply's position from the move list.
    wait_for(
        &page,
        "document.getElementById('board').dataset.status === 'finished'",
        "the end",
        Duration::from_secs(10),
    )
    .await;
    // Every ply was shown live, in turn, though half the events were lost.
    let log = eval(&page, "window.shownLog").await;
    let seen: Vec<(u64, &str)> = log
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e[0].as_u64().unwrap(), e[1].as_str().unwrap()))
        .collect();
    let dropped = eval(&page, "window.dropped").await;
    println!(
        "the page showed {} positions for the {plies} plies; {dropped} events dropped",
        seen.len()
    );
    assert!(dropped.as_u64().unwrap() >= 1, "an event was lost");
    let order: Vec<u64> = seen.iter().map(|s| s.0).collect();
    // From the ply the match was opened at (it may have begun already) to the last but
    // one (the last ends the match: the page shows it as finished, not live).
    let first = order[0];
    assert!(first <= 2, "opened at ply {first}");
    assert_eq!(
        order,
        (first..plies as u64).collect::<Vec<_>>(),
        "each ply shown once, in turn"
    );
    for (ply, board) in &seen {
        assert_eq!(
            *board, boards[*ply as usize],
            "the page's board at ply {ply}"
        );
    }
    let (final_plies, final_board, _, _) = shown(&page).await;
    assert_eq!(final_plies as usize, plies);
    assert_eq!(final_board, boards[plies]);
    wait_for(
        &page,
        "!document.querySelector('#matches tbody tr .result').textContent.startsWith('live')",
        "the result in the list",
        Duration::from_secs(10),
    )
    .await;
    let result = eval(
        &page,
        "document.querySelector('#matches tbody tr .result').textContent",
    )
    .await;
    let ours = record.goals[1];
    let word = if ours == 100 {
        "we won"
    } else if ours == 0 {
        "we lost"
    } else {
        "draw"
    };
    assert!(
        result.as_str().unwrap().starts_with(word),
        "{result} after goals {:?}",
        record.goals
    );
    let status = eval(&page, "document.getElementById('status').textContent").await;
    let status = status.as_str().unwrap();
    assert!(
        status.contains("Game over: ") && status.contains(&format!(": {word}."))
            || word == "draw" && status.contains("a draw ("),
        "{status}"
    );
    let rows = eval(&page, "document.querySelectorAll('#moves tbody tr').length").await;
    assert_eq!(rows.as_u64(), Some(plies as u64), "one row per move");
    let figures = eval(&page, "[...document.querySelectorAll('#moves tbody tr')].filter(r => r.cells[4].textContent !== '').length").await;
    assert!(
        figures.as_u64().unwrap() * 2 + 2 >= plies as u64,
        "our moves show their search: {figures}"
    );
    for (ply, expected) in boards.iter().enumerate().skip(1) {
        page.find_element(format!("#moves tr[data-ply='{ply}'] button"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        let (_, board, _, _) = shown(&page).await;
        assert_eq!(
            &board, expected,
            "the position after ply {ply} from the move list"
        );
    }
    assert_eq!(errors_of(&errors), Vec::<String>::new(), "no console error");
    opponent.stop().await;
    chromium.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_referee_match_appears_and_its_board_follows_every_move() {
    let Some(_one) =
        browser_turn("web::a_referee_match_appears_and_its_board_follows_every_move").await
    else {
        return;
    };
    watch_a_match("5x6", None).await;
}

/// A game against the engine on the page, played by clicks to its end: the person's
/// piece, then a highlighted target, the first ones each turn.
async fn play_by_clicks(size: &str, think_ms: u32, screenshot: Option<&Path>) {
    let (_, _stop, chromium, page, errors) = open_player_page().await;
    wait_for(
        &page,
        "document.getElementById('game').options.length > 0",
        "the form",
        Duration::from_secs(10),
    )
    .await;
    eval(
        &page,
        &format!(
            "(() => {{ document.getElementById('size').value = '{size}'; \
             document.getElementById('think').value = '{}'; return true; }})()",
            f64::from(think_ms) / 1000.0
        ),
    )
    .await;
    page.find_element("#start")
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let mut clicks = 0;
    let until = Instant::now() + Duration::from_secs(40);
    loop {
        assert!(Instant::now() < until, "the game did not end in time");
        let (_, _, status, _) = shown(&page).await;
        if status == "finished" {
            break;
        }
        let turn = eval(&page, "document.getElementById('board').dataset.turn === 'you' && document.querySelector('#board td.from button') !== null").await;
        let (before, _, _, _) = shown(&page).await;
        if turn != Value::Bool(true) {
            tokio::time::sleep(Duration::from_millis(30)).await;
            continue;
        }
        page.find_element("#board td.from button")
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        wait_for(
            &page,
            "document.querySelector('#board td.target button') !== null",
            "highlighted targets",
            Duration::from_secs(5),
        )
        .await;
        let targets = eval(
            &page,
            "document.querySelectorAll('#board td.target').length",
        )
        .await;
        assert!(targets.as_u64().unwrap() >= 1);
        page.find_element("#board td.target button")
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        clicks += 1;
        // The move is taken: the engine's turn or the end.
        wait_for(
            &page,
            &format!("Number(document.getElementById('board').dataset.plies) > {before}"),
            "the move to be played",
            Duration::from_secs(5),
        )
        .await;
    }
    assert!(clicks >= 2, "played by clicks: {clicks}");
    let status = eval(&page, "document.getElementById('status').textContent").await;
    let status = status.as_str().unwrap();
    assert!(status.contains("Game over: "), "{status}");
    assert!(
        status.contains("the engine won")
            || status.contains("you won")
            || status.contains("a draw"),
        "{status}"
    );
    let rows = eval(&page, "document.querySelectorAll('#moves tbody tr').length").await;
    let (plies, _, _, _) = shown(&page).await;
    assert_eq!(rows.as_u64(), Some(u64::from(plies)));
    assert!(
        u64::from(plies) >= 2 * clicks - 1,
        "{plies} plies for {clicks} clicks"
    );
    if let Some(path) = screenshot {
        save_screenshot(&page, path).await;
    }
    assert_eq!(errors_of(&errors), Vec::<String>::new(), "no console error");
    chromium.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_against_the_engine_is_played_to_its_end_by_clicks() {
    let Some(_one) =
        browser_turn("web::a_game_against_the_engine_is_played_to_its_end_by_clicks").await
    else {
        return;
    };
    play_by_clicks("4x5", 100, None).await;
}

/// Clicks the element at `selector`. The page draws the board again at each change, so
/// an element found may be gone a moment later: it is then found again, for up to 3 s
/// (five tries 50 ms apart were once too few on a loaded machine). After the first
/// second the element is clicked from inside the page, where finding and clicking it
/// are one step: in a full test run on the loaded 2-core machine, Ataxx's board once
/// changed under every try for 3 s ("Could not find node with given id").
async fn click(page: &Page, selector: &str) {
    let began = std::time::Instant::now();
    let quoted = serde_json::to_string(selector).unwrap();
    let in_page = format!(
        "(() => {{ const e = document.querySelector({quoted}); if (e) e.click(); return !!e; }})()"
    );
    loop {
        let last = if began.elapsed() < Duration::from_secs(1) {
            match page.find_element(selector).await {
                Ok(element) => match element.click().await {
                    Ok(_) => return,
                    Err(e) => e.to_string(),
                },
                Err(e) => e.to_string(),
            }
        } else if eval(page, &in_page).await == Value::Bool(true) {
            return;
        } else {
            "not in the page".to_owned()
        };
        if began.elapsed() >= Duration::from_secs(3) {
            panic!("cannot click {selector}: {last}");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Clicks the button of board cell `row,col`.
async fn click_cell(page: &Page, cell: &str) {
    click(page, &format!("#board td[data-cell='{cell}'] button")).await;
}

/// The cells of the board shown, by row.
async fn cells(page: &Page) -> Vec<Vec<String>> {
    let (_, board, _, _) = shown(page).await;
    board
        .lines()
        .map(|l| l.chars().map(String::from).collect())
        .collect()
}

/// An Ataxx game on the page: a clone (a piece, then an empty square next to it) and a
/// jump (a piece, then a square two away) are both played by two clicks.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ataxx_clones_and_jumps_are_played_by_clicks() {
    let Some(_one) = browser_turn("web::ataxx_clones_and_jumps_are_played_by_clicks").await else {
        return;
    };
    let (_, _stop, chromium, page, errors) = open_player_page().await;
    wait_for(
        &page,
        "[...document.getElementById('game').options].some(o => o.value === 'ataxx')",
        "the form",
        Duration::from_secs(10),
    )
    .await;
    eval(
        &page,
        "(() => { const g = document.getElementById('game'); g.value = 'ataxx'; \
         g.dispatchEvent(new Event('change')); document.getElementById('side').value = 'black'; \
         document.getElementById('think').value = '0.1'; return true; })()",
    )
    .await;
    page.find_element("#start")
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let your_move = "document.getElementById('board').dataset.turn === 'you'";
    wait_for(
        &page,
        your_move,
        "black's first move",
        Duration::from_secs(10),
    )
    .await;
    // Black's corner piece (x:y 0:0 is row 0, column 0): clones to its three neighbours,
    // jumps to the squares two or three away.
    assert_eq!(cells(&page).await[0][0], "1");
    click_cell(&page, "0,0").await;
    let targets = eval(
        &page,
        "[...document.querySelectorAll('#board td.target')].map(t => t.dataset.cell).sort()",
    )
    .await;
    assert_eq!(
        targets,
        serde_json::json!(["0,1", "0,2", "0,3", "1,0", "1,1", "2,0", "2,2", "3,0"])
    );
    // With a piece picked (every square a button): each element Tab reaches, and a
    // target, the picked piece, a match row and a button hovered, pass AA.
    let (low, focused) = focus_and_hover_contrast(
        &page,
        &[
            "#board td.target button",
            "#board td.picked button",
            "#matches tbody tr",
            "#resign",
        ],
        120,
    )
    .await;
    assert_eq!(low, Vec::<String>::new(), "focus and hover contrast");
    assert!(
        focused >= 49,
        "{focused} elements focused by Tab: the board's 49 and more"
    );
    click_cell(&page, "1,1").await;
    wait_for_plies(&page, 1, "the clone to be played", Duration::from_secs(5)).await;
    let after = cells(&page).await;
    assert_eq!(
        (after[0][0].as_str(), after[1][1].as_str()),
        ("1", "1"),
        "a clone leaves its piece"
    );
    wait_for(
        &page,
        your_move,
        "black's second move",
        Duration::from_secs(20),
    )
    .await;
    // The clone's piece, picked this time, jumps three squares down (row 4, column 1).
    let before = cells(&page).await;
    assert_eq!(before[4][1], "0", "{before:?}");
    click_cell(&page, "1,1").await;
    click_cell(&page, "4,1").await;
    wait_for_plies(&page, 3, "the jump to be played", Duration::from_secs(5)).await;
    let after = cells(&page).await;
    assert_eq!(
        (after[1][1].as_str(), after[4][1].as_str()),
        ("0", "1"),
        "a jump leaves its square"
    );
    let moves = moves_listed(&page).await;
    assert_eq!(moves[0], "0:0:1:1:");
    assert_eq!(moves[2], "1:1:1:4:");
    // In the board's squares (row 0 is rank 7), the course's notation beside them.
    let shown = eval(
        &page,
        "[...document.querySelectorAll('#moves td.move')].map(c => c.textContent)",
    )
    .await;
    assert_eq!(shown[0], "a7–b6 (0:0:1:1:)");
    assert_eq!(shown[2], "b6–b3 (1:1:1:4:)");
    assert_eq!(errors_of(&errors), Vec::<String>::new(), "no console error");
    chromium.close().await;
}

/// `loa --display`'s page in the browser: the program's game is listed, its board
/// drawn, and black's move made by two clicks reaches the program.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn loa_display_is_played_by_clicks_in_the_browser() {
    use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};
    let Some(_one) = browser_turn("web::loa_display_is_played_by_clicks_in_the_browser").await
    else {
        return;
    };
    let mut loa = tokio::process::Command::new(env!("CARGO_BIN_EXE_loa"))
        .arg("--display")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdin = loa.stdin.take().unwrap();
    let mut stderr = tokio::io::BufReader::new(loa.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).await.unwrap();
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .to_owned();
    let chromium = Chromium::launch().await;
    let (page, errors) = chromium.open(&url).await;
    wait_for(
        &page,
        "document.querySelector('#matches tbody tr') !== null",
        "the program's game in the list",
        Duration::from_secs(10),
    )
    .await;
    // The list is drawn again at every change: clicked from the page's own script.
    eval(
        &page,
        "(() => { document.querySelector('#matches tbody tr').click(); return true; })()",
    )
    .await;
    let your_move = "document.getElementById('board').dataset.turn === 'you'";
    wait_for(&page, your_move, "black's move", Duration::from_secs(10)).await;
    assert_eq!(cells_spaced(&page).await[0], "-bbbbbb-");
    // The program's page meets AA too: its text, each element Tab reaches, and a row and
    // a square hovered.
    let low = eval(&page, &low_contrast()).await;
    assert_eq!(low, serde_json::json!([]), "text under 4.5:1");
    let (low, focused) =
        focus_and_hover_contrast(&page, &["#board td button", "#matches tbody tr"], 80).await;
    assert_eq!(low, Vec::<String>::new(), "focus and hover contrast");
    assert!(focused >= 10, "{focused} elements focused by Tab");
    // b1 is row 7 (rank 8 is drawn first), column 1; b3 is row 5.
    click_cell(&page, "7,1").await;
    click_cell(&page, "5,1").await;
    // The program's White answers, and the page shows it.
    wait_for_plies(&page, 2, "the program's reply", Duration::from_secs(20)).await;
    let moves = moves_listed(&page).await;
    assert_eq!(moves[0], "b1-b3");
    let shown = eval(
        &page,
        "document.querySelector('#moves td.move').textContent",
    )
    .await;
    assert_eq!(shown, "b1–b3", "the board's own squares");
    // The program's moves carry no search of ours: no plot, and the players said.
    let info = eval(
        &page,
        "[document.getElementById('plot-section').hidden, document.getElementById('match-info').textContent]",
    )
    .await;
    assert_eq!(info[0], true, "{info}");
    assert!(
        info[1].as_str().unwrap().contains("White: the program"),
        "{info}"
    );
    // Before the program ends: its page's event stream ends with it.
    assert_eq!(errors_of(&errors), Vec::<String>::new(), "no console error");
    stdin.write_all(b"quit\n").await.unwrap();
    let mut out = String::new();
    loa.stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .await
        .unwrap();
    assert!(
        out.starts_with("b> * "),
        "White's move after the page's: {out:?}"
    );
    // The program has quit: the page says so, and offers no move.
    wait_for(
        &page,
        "document.getElementById('status').textContent.includes('connection to the server is lost') && document.getElementById('play-controls').hidden",
        "the page to say the program has gone",
        Duration::from_secs(10),
    )
    .await;
    let low = eval(&page, &low_contrast()).await;
    assert_eq!(
        low,
        serde_json::json!([]),
        "text under 4.5:1 once it has gone"
    );
    chromium.close().await;
}

/// The board shown, one string of cells per row (for boards drawn with spaces).
async fn cells_spaced(page: &Page) -> Vec<String> {
    let (_, board, _, _) = shown(page).await;
    board.lines().map(str::to_owned).collect()
}

/// `GET path` on the player; the status and the JSON body.
async fn get_json(addr: &str, path: &str) -> (u16, Value) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut reply = String::new();
    stream.read_to_string(&mut reply).await.unwrap();
    let status = reply[9..12].parse().unwrap();
    let body = reply.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}

/// The player reports a controller's match to the page's API as it goes (no browser):
/// the opponent's move and board at once, our search's figures with our move, the
/// result at STOP; reading changes nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_api_follows_a_controller_s_match() {
    use ggp_player::referee::client::exchange;
    use ggp_player::spec::GameSpec;
    let (addr, _stop) = start_player(700).await;
    let rules: Vec<String> = Breakthrough::ggp_rules("3x5", "course")
        .unwrap()
        .unwrap()
        .iter()
        .map(|r| r.to_string())
        .collect();
    let say = |body: String| {
        let addr = addr.clone();
        async move {
            exchange(&addr, &body, Duration::from_secs(5))
                .await
                .unwrap()
                .body
        }
    };
    let start = format!("(START m1 black ({}) 5 1)", rules.join(" "));
    assert_eq!(say(start).await.trim(), "ready");
    let (_, list) = get_json(&addr, "/api/matches").await;
    let m = &list["matches"][0];
    assert_eq!(
        (m["id"].as_u64(), m["game"].as_str(), m["size"].as_str()),
        (Some(1), Some("breakthrough"), Some("3x5"))
    );
    assert_eq!(
        (
            m["us"].as_u64(),
            m["status"].as_str(),
            m["play_clock_ms"].as_u64()
        ),
        (Some(1), Some("live"), Some(1000))
    );
    assert_eq!(say("(PLAY m1 NIL)".into()).await.trim(), "noop");
    let ours = say("(PLAY m1 ((move 1 2 1 3) noop))".into()).await;
    let (_, d) = get_json(&addr, "/api/matches/1").await;
    assert_eq!(d["moves"][0]["text"], "(move 1 2 1 3)");
    assert_eq!(d["moves"][0]["mover"], 0);
    assert_eq!(
        d["diagram"]["rows"][2],
        serde_json::json!(["W", ".", "."]),
        "{d}"
    );
    let (_, again) = get_json(&addr, "/api/matches/1").await;
    assert_eq!(again["version"], d["version"], "reading changes nothing");
    // Our move arrives with the next message, and brings its search's figures.
    let stop = format!("(STOP m1 (noop {}))", ours.trim());
    assert_eq!(say(stop).await.trim(), "done");
    let (_, d) = get_json(&addr, "/api/matches/1").await;
    let ours = &d["moves"][1];
    assert_eq!(ours["mover"], 1);
    assert!(ours["search"]["depth"].as_u64().unwrap() >= 1, "{ours}");
    assert!(ours["search"]["nodes"].as_u64().unwrap() >= 1, "{ours}");
    assert_eq!(
        ours["search"]["pv"][0], ours["text"],
        "the principal variation starts with our move"
    );
    assert_eq!(d["status"], "finished");
    assert_eq!(d["plies"], 2);
}

/// A game the engine does not know (tic-tac-toe, played by the reasoner's Monte-Carlo
/// search) shows our moves' figures too: its win rate, iterations and best line.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_api_shows_monte_carlo_figures_in_a_gdl_match() {
    use ggp_player::referee::client::exchange;
    let (addr, _stop) = start_player(700).await;
    let rules =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/gdl/tictactoe.gdl")).unwrap();
    let say = |body: String| {
        let addr = addr.clone();
        async move {
            exchange(&addr, &body, Duration::from_secs(5))
                .await
                .unwrap()
                .body
        }
    };
    let start = format!("(START t1 xplayer ({rules}) 5 1)");
    assert_eq!(say(start).await.trim(), "ready");
    let ours = say("(PLAY t1 NIL)".into()).await;
    let ours = ours.trim();
    assert!(ours.starts_with("(mark "), "{ours}");
    let stop = format!("(STOP t1 ({ours} noop))");
    assert_eq!(say(stop).await.trim(), "done");
    let (_, d) = get_json(&addr, "/api/matches/1").await;
    // Played by the rules, by whichever model START's race found faster.
    assert_eq!(d["game"].as_str(), Some("gdl"));
    assert!(
        matches!(d["model"].as_str(), Some("propnet" | "reasoner")),
        "{d}"
    );
    let first = &d["moves"][0];
    assert_eq!(first["text"].as_str(), Some(ours), "{d}");
    let s = &first["search"];
    assert_eq!(s["method"], "mcts", "{first}");
    assert!(s["nodes"].as_u64().unwrap() >= 1, "{s}");
    assert!(s["nodes_per_second"].as_u64().unwrap() >= 1, "{s}");
    let win_rate = s["win_rate"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&win_rate), "{s}");
    assert!(s["score"].is_null(), "{s}");
    assert_eq!(
        s["pv"][0].as_str(),
        Some(ours),
        "the best line starts with our move"
    );
    assert_eq!(
        s["depth"].as_u64(),
        Some(s["pv"].as_array().unwrap().len() as u64)
    );
}

async fn save_screenshot(page: &Page, path: &Path) {
    let params = ScreenshotParams::builder().full_page(true).build();
    page.save_screenshot(params, path).await.unwrap();
}

/// The README's screenshots (a live 6x6 match and a finished 5x5 game on the page), and
/// each game's in `docs/screens/`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "writes docs/*.png and docs/screens/: run by hand when the page changes"]
async fn screenshots() {
    let Some(_one) = browser_turn("web::screenshots").await else {
        return;
    };
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    watch_a_match("6x6", Some(&docs.join("page-live-match.png"))).await;
    play_by_clicks("5x5", 300, Some(&docs.join("page-finished-game.png"))).await;
    let screens = docs.join("screens");
    std::fs::create_dir_all(&screens).unwrap();
    for (game, most) in [
        ("breakthrough", 60),
        ("loa6", 40),
        ("loa8", 40),
        ("ataxx", 40),
        ("halma", 8),
    ] {
        play_game_by_clicks(game, most, Some(&screens)).await;
    }
    reasoner_screens(&screens).await;
}

/// Sets the page's viewport to `width` × `height` CSS pixels (the page draws itself
/// again on the resize).
async fn set_viewport(page: &Page, width: i64, height: i64) {
    use chromiumoxide::cdp::browser_protocol::emulation::SetDeviceMetricsOverrideParams;
    page.execute(SetDeviceMetricsOverrideParams::new(
        width, height, 1.0, false,
    ))
    .await
    .unwrap();
    wait_for(
        page,
        &format!("window.innerWidth === {width}"),
        "the new width",
        Duration::from_secs(5),
    )
    .await;
    tokio::time::sleep(Duration::from_millis(250)).await;
}

/// Screenshots of the page at 1280 and 390 px wide, `<stem>-1280.png` and `-390.png`.
async fn save_both_widths(page: &Page, dir: &Path, stem: &str) {
    save_screenshot(page, &dir.join(format!("{stem}-1280.png"))).await;
    set_viewport(page, 390, 844).await;
    save_screenshot(page, &dir.join(format!("{stem}-390.png"))).await;
    set_viewport(page, 1280, 1000).await;
}

/// Colour helpers of the contrast checks: `ratio(a, b)` of two colours, `back(e)` (the
/// first opaque background at or behind `e`) and `lowText(root)`, the text in `root` and
/// below (outside SVG) whose contrast with its background is under WCAG AA's 4.5:1, each
/// as "text: ratio", in the state the page is in (hovered, focused or not).
const CONTRAST_LIB: &str = r#"
  const rgba = (c) => (c.match(/[\d.]+/g) || []).map(Number);
  const lum = (c) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); };
  const ratio = (p, q) => { const a = lum(p), b = lum(q); return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05); };
  const back = (e) => { for (; e; e = e.parentElement) { const c = rgba(getComputedStyle(e).backgroundColor);
    if (c.length === 3 || (c.length === 4 && c[3] >= 0.9)) return c; } return [255, 255, 255]; };
  const lowText = (root) => {
    const low = [];
    for (const e of [root, ...root.querySelectorAll('*')]) {
      if (e.closest('svg') || e.disabled) continue;
      const own = [...e.childNodes].filter((n) => n.nodeType === 3 && n.textContent.trim() !== '');
      if (own.length === 0) continue;
      const r = e.getBoundingClientRect();
      if (r.width === 0 || r.height === 0 || getComputedStyle(e).visibility === 'hidden') continue;
      const x = ratio(rgba(getComputedStyle(e).color), back(e));
      if (x < 4.5) low.push(`${own[0].textContent.trim().slice(0, 30)}: ${x.toFixed(2)}`);
    }
    return low;
  };
"#;

/// The page's text under 4.5:1 (see [`CONTRAST_LIB`]).
fn low_contrast() -> String {
    format!("(() => {{ {CONTRAST_LIB} return lowText(document.body); }})()")
}

/// For the element with focus: its text under 4.5:1, and its focus outline if it has
/// none or one under WCAG AA's 3:1 for what marks a state against the colour next to it
/// (inside the element for an outline drawn inward), as lines.
fn focus_contrast() -> String {
    format!(
        r#"(() => {{ {CONTRAST_LIB}
  const e = document.activeElement;
  if (!e || e === document.body) return [];
  const cell = e.closest('td[data-cell]');
  const name = `${{e.tagName.toLowerCase()}}${{e.id ? '#' + e.id : ''}}${{cell ? ' on ' + cell.dataset.cell : ''}}`;
  const out = lowText(e).map((t) => `${{name}} focused: ${{t}}`);
  const s = getComputedStyle(e);
  if (s.outlineStyle === 'none' || parseFloat(s.outlineWidth) < 2) out.push(`${{name}}: no focus outline`);
  else {{
    const x = ratio(rgba(s.outlineColor), parseFloat(s.outlineOffset) < 0 ? back(e) : back(e.parentElement));
    if (x < 3) out.push(`${{name}}: focus outline ${{x.toFixed(2)}}`);
  }}
  return out;
}})()"#
    )
}

/// Goes round the page by Tab (until the focus comes back to where it was, at most
/// `most` stops) checking each focused element ([`focus_contrast`]), then hovers the
/// first element of each of `hovered` and checks the page's text; the failures, and the
/// number of elements focused.
async fn focus_and_hover_contrast(
    page: &Page,
    hovered: &[&str],
    most: usize,
) -> (Vec<String>, usize) {
    let mut low = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let which = "(() => { const e = document.activeElement; return [...document.querySelectorAll('*')].indexOf(e); })()";
    let body = page.find_element("body").await.unwrap();
    for _ in 0..most {
        body.press_key("Tab").await.unwrap();
        if !seen.insert(eval(page, which).await.to_string()) {
            break;
        }
        let found: Vec<String> =
            serde_json::from_value(eval(page, &focus_contrast()).await).unwrap();
        low.extend(found);
    }
    for selector in hovered {
        let element = page
            .find_element(*selector)
            .await
            .unwrap_or_else(|e| panic!("nothing to hover at {selector}: {e}"));
        element.scroll_into_view().await.unwrap();
        element.hover().await.unwrap();
        let found: Vec<String> = serde_json::from_value(eval(page, &low_contrast()).await).unwrap();
        low.extend(
            found
                .into_iter()
                .map(|t| format!("{selector} hovered: {t}")),
        );
    }
    (low, seen.len())
}

/// The score plot's labels that overlap one another or its axes, as "a / b".
const PLOT_OVERLAPS: &str = r#"(() => {
  const texts = [...document.querySelectorAll('#plot text')].map((t) => [t.textContent, t.getBoundingClientRect()]);
  const lines = [...document.querySelectorAll('#plot line')].map((l) => l.getBoundingClientRect());
  const meet = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  const out = [];
  texts.forEach(([ta, a], i) => {
    texts.slice(i + 1).forEach(([tb, b]) => { if (meet(a, b)) out.push(`${ta} / ${tb}`); });
    lines.forEach((l) => { if (meet(a, l)) out.push(`${ta} / an axis`); });
  });
  return out;
})()"#;

/// Of the squares the picked piece can reach, the one nearest to it (`row,col`).
const NEAREST_TARGET: &str = r#"(() => {
  const at = (td) => td.dataset.cell.split(',').map(Number);
  const [r, c] = at(document.querySelector('#board td.picked'));
  const far = (td) => { const [a, b] = at(td); return Math.max(Math.abs(a - r), Math.abs(b - c)); };
  const targets = [...document.querySelectorAll('#board td.target')];
  targets.sort((x, y) => far(x) - far(y));
  return targets[0].dataset.cell;
})()"#;

/// A move as the page's move list writes it: the board's squares first (two, or every
/// landing of a chain of jumps).
fn in_board_coordinates(text: &str) -> bool {
    let square = |s: &str| {
        let mut c = s.chars();
        c.next().is_some_and(|f| f.is_ascii_lowercase())
            && !c.as_str().is_empty()
            && c.as_str().chars().all(|d| d.is_ascii_digit())
    };
    let head = text.split(' ').next().unwrap_or("");
    let squares: Vec<&str> = head.split('–').collect();
    text == "pass" || (squares.len() >= 2 && squares.iter().all(|s| square(s)))
}

/// What the board shows of the move that led to it: the move's `path` (from the API),
/// the cells marked as its start, end and numbered landings (`steps`), the cells marked
/// as turned over (`flipped`) and those whose piece changed colour (`turned`, Ataxx's
/// `1`/`2`), the status line and the move list's text of it.
const LAST_MOVE_MARKS: &str = r#"(() => {
  const b = document.getElementById('board');
  const ply = b.dataset.view === 'live' ? Number(b.dataset.plies) : Number(b.dataset.view);
  const moves = state.detail.moves;
  const m = moves.find((x) => x.ply === ply), before = moves.find((x) => x.ply === ply - 1);
  const cells = (sel) => [...b.querySelectorAll(sel)].map((t) => t.dataset.cell).sort();
  const pieces = new Set(['1', '2']);
  const turned = [];
  if (m && before) m.diagram.rows.forEach((row, r) => row.forEach((t, c) => {
    const was = before.diagram.rows[r][c];
    if (pieces.has(t) && pieces.has(was) && t !== was) turned.push(`${r},${c}`);
  }));
  const steps = [...b.querySelectorAll('td[data-step]')].map((t) => [t.dataset.cell, Number(t.dataset.step)])
    .sort((x, y) => x[1] - y[1]);
  const row = document.querySelector(`#moves tr[data-ply="${ply}"] td.move`);
  const end = b.querySelector('td.last');
  const [er, ec] = end ? end.dataset.cell.split(',').map(Number) : [0, 0];
  const took = !!(end && m && before && !['.', '-', '_', '0', ''].includes(before.diagram.rows[er][ec])
    && before.diagram.rows[er][ec] !== m.diagram.rows[er][ec]);
  return { ply, path: m ? m.path : null, from: cells('td.last-from'), to: cells('td.last'), steps, took,
           turned: turned.sort(), flipped: cells('td.flipped'),
           status: document.getElementById('status').textContent, listed: row ? row.textContent : '' };
})()"#;

/// A legal move of the person's that must be a chain of jumps (neither a step nor one
/// jump: it goes further), as its start and end cells.
const A_CHAIN: &str = r#"(() => {
  const far = (m) => { const dr = Math.abs(m.from[0] - m.to[0]), dc = Math.abs(m.from[1] - m.to[1]);
    return !(dr <= 1 && dc <= 1) && !([0, 2].includes(dr) && [0, 2].includes(dc)); };
  const m = (state.detail.legal || []).find((l) => l.from && l.to && far(l));
  return m ? [m.from.join(','), m.to.join(',')] : null;
})()"#;

/// Checks the marks of [`LAST_MOVE_MARKS`] in `game`: a piece taken where the mover
/// landed is said on the status line (and only then); in Ataxx, the pieces turned are the
/// ones marked, and the status line counts them; a chain of jumps has its start, end and
/// each landing marked in order, each one jump from the last, and is written with every
/// landing. Whether a piece was turned, and whether the move was a chain.
fn check_last_move_marks(game: &str, v: &Value) -> (bool, bool) {
    let turned = v["turned"].as_array().unwrap();
    let took = v["took"] == true;
    assert_eq!(
        v["status"]
            .as_str()
            .unwrap()
            .contains(", taking the piece on "),
        took,
        "a piece taken where the mover landed is said: {v}"
    );
    if game == "ataxx" {
        assert_eq!(
            v["flipped"], v["turned"],
            "the turned pieces are marked: {v}"
        );
        if !turned.is_empty() {
            let said = format!("turning {} piece", turned.len());
            assert!(v["status"].as_str().unwrap().contains(&said), "{v}");
        }
    }
    let Some(path) = v["path"].as_array().filter(|p| p.len() > 2) else {
        return (game == "ataxx" && !turned.is_empty(), false);
    };
    let cell = |c: &Value| format!("{},{}", c[0], c[1]);
    assert_eq!(v["from"], serde_json::json!([cell(&path[0])]), "{v}");
    assert_eq!(
        v["to"],
        serde_json::json!([cell(&path[path.len() - 1])]),
        "{v}"
    );
    let steps: Vec<Value> = path[1..]
        .iter()
        .enumerate()
        .map(|(i, c)| serde_json::json!([cell(c), i + 1]))
        .collect();
    assert_eq!(
        v["steps"],
        serde_json::json!(steps),
        "every landing numbered: {v}"
    );
    for w in path.windows(2) {
        let d = |i: usize| {
            w[0][i]
                .as_i64()
                .unwrap()
                .abs_diff(w[1][i].as_i64().unwrap())
        };
        assert!(
            [0, 2].contains(&d(0)) && [0, 2].contains(&d(1)) && d(0) + d(1) > 0,
            "each landing one jump from the last: {v}"
        );
    }
    let listed = v["listed"].as_str().unwrap();
    let head = listed.split(' ').next().unwrap();
    assert_eq!(
        head.split('–').count(),
        path.len(),
        "every landing written: {v}"
    );
    (false, true)
}

/// A page game of `game` (its default size and rules, the person on the side that moves
/// first, the engine at 0.1 s a move), played as a person would: the first move typed as
/// the board's squares, the others by clicks (a movable piece, then one of the squares it
/// can reach); at least five moves unless the game ends sooner (a LOA 6×6 game
/// once ended after four), and at most `most` before the person resigns. Checks
/// the status and the note under the board at every turn and at the end, the moves in the
/// board's coordinates, the last move marked, the plot's labels, the contrast and New
/// game; screenshots `<dir>/<game>-mid-*.png` and `-end-*.png`.
async fn play_game_by_clicks(game: &str, most: u32, shots: Option<&Path>) {
    let (_, _stop, chromium, page, errors) = open_player_page().await;
    wait_for(
        &page,
        &format!("[...document.getElementById('game').options].some(o => o.value === '{game}')"),
        "the form",
        Duration::from_secs(10),
    )
    .await;
    let offered = eval(
        &page,
        "[...document.getElementById('game').options].map(o => o.value)",
    )
    .await;
    assert!(
        !offered.as_array().unwrap().contains(&Value::from("walk")),
        "the test game is not offered: {offered}"
    );
    let rules_shown = eval(
        &page,
        &format!(
            "(() => {{ const g = document.getElementById('game'); g.value = '{game}'; \
             g.dispatchEvent(new Event('change')); document.getElementById('think').value = '0.1'; \
             return !document.getElementById('variant').closest('label').hidden; }})()"
        ),
    )
    .await;
    let variants = eval(&page, "document.getElementById('variant').options.length").await;
    assert_eq!(
        rules_shown,
        Value::Bool(variants.as_u64().unwrap() > 1),
        "rules are offered only when there is a choice"
    );
    page.find_element("#start")
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let mut moves = 0;
    // Engine moves that turned pieces over, and chains of jumps, seen marked.
    let (mut turns, mut chains) = (0, 0);
    let mut ended = false;
    loop {
        wait_for(
            &page,
            "['you', 'over'].includes(document.getElementById('board').dataset.turn)",
            "the person's turn or the end",
            Duration::from_secs(30),
        )
        .await;
        let status = eval(&page, "document.getElementById('status').textContent").await;
        let status = status.as_str().unwrap().to_owned();
        let (plies, _, state, _) = shown(&page).await;
        if state == "finished" {
            ended = true;
            break;
        }
        if plies > 0 {
            let (turned, chain) = check_last_move_marks(game, &eval(&page, LAST_MOVE_MARKS).await);
            turns += usize::from(turned);
            chains += usize::from(chain);
        }
        assert!(status.ends_with("(you) to move: your move."), "{status}");
        if moves == 5
            && let Some(dir) = shots
        {
            save_both_widths(&page, dir, &format!("{game}-mid")).await;
        }
        if moves >= most {
            page.find_element("#resign")
                .await
                .unwrap()
                .click()
                .await
                .unwrap();
            break;
        }
        if moves == 0 {
            // The first move typed, as the board's squares the box offers.
            let typed = eval(&page, "document.querySelector('#legal-moves option').value").await;
            let typed = typed.as_str().unwrap();
            assert!(in_board_coordinates(&typed.replace('-', "–")), "{typed}");
            page.find_element("#move-input")
                .await
                .unwrap()
                .click()
                .await
                .unwrap()
                .type_str(typed)
                .await
                .unwrap();
            page.find_element("#move-form button")
                .await
                .unwrap()
                .click()
                .await
                .unwrap();
        } else if let Some([from, to]) =
            serde_json::from_value::<Option<[String; 2]>>(eval(&page, A_CHAIN).await)
                .unwrap()
                .filter(|_| game == "halma" && chains == 0)
        {
            // A chain of jumps, played by two clicks, then looked at in the move list.
            click_cell(&page, &from).await;
            click_cell(&page, &to).await;
            let ply = plies + 1;
            let within = Duration::from_secs(30);
            wait_for_plies(&page, ply, "the chain to be played", within).await;
            // The engine's reply first: the chain's position is then a past one.
            let replied = "['you', 'over'].includes(document.getElementById('board').dataset.turn)";
            wait_for(&page, replied, "the engine's reply", within).await;
            click(&page, &format!("#moves tr[data-ply='{ply}'] button")).await;
            let viewed = format!("document.getElementById('board').dataset.view === '{ply}'");
            wait_for(&page, &viewed, "the chain's position", within).await;
            let (_, chain) = check_last_move_marks(game, &eval(&page, LAST_MOVE_MARKS).await);
            assert!(chain, "{from}–{to} was played as a chain");
            if let Some(dir) = shots {
                save_both_widths(&page, dir, &format!("{game}-chain")).await;
            }
            chains += 1;
            click(&page, "#live-button").await;
        } else {
            click(&page, "#board td.from button").await;
            wait_for(
                &page,
                "document.querySelector('#board td.target button') !== null",
                "the squares the picked piece can reach",
                Duration::from_secs(5),
            )
            .await;
            // The nearest square it reaches (in Ataxx a clone, which keeps the piece).
            let target = eval(&page, NEAREST_TARGET).await;
            click_cell(&page, target.as_str().unwrap()).await;
        }
        moves += 1;
        wait_for(
            &page,
            &format!("Number(document.getElementById('board').dataset.plies) > {plies}"),
            "the move to be played",
            Duration::from_secs(5),
        )
        .await;
        // The move is said as soon as it is made (or the engine's reply after it), and
        // then whose turn it is.
        let now = eval(&page, "document.getElementById('status').textContent").await;
        let now = now.as_str().unwrap();
        let said: u32 = now
            .strip_prefix("Ply ")
            .and_then(|rest| rest.split(':').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        assert!(said > plies && now.contains(" played "), "{now}");
        assert!(
            now.ends_with("(engine) is thinking…")
                || now.ends_with("(you) to move: your move.")
                || now.contains("Game over: ")
                || !now.contains(" to move"),
            "{now}"
        );
    }
    assert!(
        moves >= 5 || (ended && moves >= 1),
        "{game}: {moves} moves by clicks, the game {}",
        if ended { "over" } else { "resigned" }
    );
    if game == "ataxx" {
        assert!(turns > 0, "pieces were turned over, and marked");
    }
    if game == "halma" {
        assert!(chains > 0, "a chain of jumps was played, and marked");
    }
    wait_for(
        &page,
        "document.getElementById('board').dataset.turn === 'over'",
        "the end",
        Duration::from_secs(10),
    )
    .await;
    let status = eval(&page, "document.getElementById('status').textContent").await;
    let status = status.as_str().unwrap();
    assert!(status.contains("Game over: "), "{status}");
    assert!(
        status.contains("wins (")
            && (status.contains("the engine won") || status.contains("you won"))
            || status.contains("a draw ("),
        "{status}"
    );
    let notes = eval(&page, "document.getElementById('notes').textContent").await;
    assert!(!notes.as_str().unwrap().contains("to move"), "{notes}");
    assert!(!notes.as_str().unwrap().contains("Next move"), "{notes}");
    let listed = eval(
        &page,
        "[...document.querySelectorAll('#moves tbody tr')].map(r => [r.dataset.move, r.querySelector('td.move').textContent])",
    )
    .await;
    let (plies, _, _, _) = shown(&page).await;
    assert_eq!(listed.as_array().unwrap().len(), plies as usize);
    for pair in listed.as_array().unwrap() {
        let (own, shown) = (pair[0].as_str().unwrap(), pair[1].as_str().unwrap());
        assert!(in_board_coordinates(shown), "{game}: {shown:?} for {own:?}");
        assert!(
            shown.ends_with(&format!(
                "({})",
                own.trim_start_matches('(').trim_end_matches(')')
            )) || shown == own.replace('-', "–"),
            "{game}: the game's own notation beside it: {shown:?}"
        );
    }
    if plies > 0 {
        let marked = eval(&page, "document.querySelectorAll('#board td.last').length").await;
        assert!(marked.as_u64().unwrap() >= 1, "the last move is marked");
    }
    let overlaps = eval(&page, PLOT_OVERLAPS).await;
    assert_eq!(overlaps, serde_json::json!([]), "the plot's labels");
    let title = eval(&page, "document.getElementById('plot-title').textContent").await;
    assert!(
        title.as_str().unwrap().contains("evaluation, its own view"),
        "{title}"
    );
    let low = eval(&page, &low_contrast()).await;
    assert_eq!(low, serde_json::json!([]), "text under 4.5:1");
    if let Some(dir) = shots {
        save_both_widths(&page, dir, &format!("{game}-end")).await;
    }
    // New game: another page game of the same game, the person on the same side.
    page.find_element("#new-game-button")
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for(
        &page,
        &format!(
            "document.getElementById('match-title').textContent.startsWith('#2 {game} ') \
             && document.getElementById('board').dataset.turn === 'you'"
        ),
        "a new game of the same game",
        Duration::from_secs(10),
    )
    .await;
    assert_eq!(errors_of(&errors), Vec::<String>::new(), "no console error");
    chromium.close().await;
}

/// A test of [`play_game_by_clicks`] for each game offered on the page.
macro_rules! played_by_clicks {
    ($($test:ident: $game:literal, at most $most:literal moves;)*) => {$(
        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn $test() {
            let Some(_one) = browser_turn(concat!("web::", stringify!($test))).await else {
                return;
            };
            play_game_by_clicks($game, $most, None).await;
        }
    )*};
}

played_by_clicks! {
    breakthrough_is_played_by_clicks_to_its_end: "breakthrough", at most 60 moves;
    loa6_is_played_by_clicks: "loa6", at most 40 moves;
    loa8_is_played_by_clicks: "loa8", at most 40 moves;
    ataxx_is_played_by_clicks: "ataxx", at most 40 moves;
    halma_is_played_by_clicks_and_resigned: "halma", at most 6 moves;
}

/// A GGP message to the player; its reply.
async fn say(addr: &str, body: &str) -> String {
    ggp_player::referee::client::exchange(addr, body, Duration::from_secs(10))
        .await
        .unwrap()
        .body
        .trim()
        .to_owned()
}

/// A tic-tac-toe match from a controller, the player as xplayer, played to its end with
/// `id`; the test's oplayer marks the first free cell of the upper triangle first, so
/// that the grid is not its own mirror across the diagonal. The grid at the end, by
/// `(mark row column)` (the rules' `(cell row column mark)`), `' '` for empty.
async fn tic_tac_toe_match(addr: &str, id: &str) -> [[char; 3]; 3] {
    let rules =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/gdl/tictactoe.gdl")).unwrap();
    assert_eq!(
        say(addr, &format!("(START {id} xplayer ({rules}) 5 1)")).await,
        "ready"
    );
    let mut grid = [[' '; 3]; 3];
    let line = |g: &[[char; 3]; 3], c: char| {
        (0..3).any(|i| (0..3).all(|j| g[i][j] == c) || (0..3).all(|j| g[j][i] == c))
            || (0..3).all(|i| g[i][i] == c)
            || (0..3).all(|i| g[i][2 - i] == c)
    };
    let mut last = "NIL".to_owned();
    for ply in 0..9 {
        let ours = say(addr, &format!("(PLAY {id} {last})")).await;
        let joint = if ply % 2 == 0 {
            let nums: Vec<usize> = ours
                .trim_matches(|c| c == '(' || c == ')')
                .split_whitespace()
                .skip(1)
                .map(|n| n.parse().unwrap())
                .collect();
            grid[nums[0] - 1][nums[1] - 1] = 'x';
            format!("({ours} noop)")
        } else {
            let upper_first = [
                (0, 1),
                (0, 2),
                (1, 2),
                (0, 0),
                (1, 1),
                (2, 2),
                (1, 0),
                (2, 0),
                (2, 1),
            ];
            let (m, n) = upper_first
                .into_iter()
                .find(|&(m, n)| grid[m][n] == ' ')
                .unwrap();
            grid[m][n] = 'o';
            format!("(noop (mark {} {}))", m + 1, n + 1)
        };
        if line(&grid, 'x') || line(&grid, 'o') || ply == 8 {
            assert_eq!(say(addr, &format!("(STOP {id} {joint})")).await, "done");
            return grid;
        }
        last = joint;
    }
    unreachable!("tic-tac-toe ends within nine marks")
}

/// A connect-four match from a controller, the player as red, `plies` discs dropped
/// (the test's yellow in the first column with room), then stopped: at most six, so that
/// no line of four is made before the STOP.
async fn connect_four_match(addr: &str, id: &str, plies: usize) {
    let rules =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/gdl/connect_four.gdl"))
            .unwrap();
    assert_eq!(
        say(addr, &format!("(START {id} red ({rules}) 5 1)")).await,
        "ready"
    );
    let mut heights = [0; 7];
    let mut last = "NIL".to_owned();
    for ply in 0..plies {
        let ours = say(addr, &format!("(PLAY {id} {last})")).await;
        last = if ply % 2 == 0 {
            let column: usize = ours
                .trim_matches(|c| c == '(' || c == ')')
                .split_whitespace()
                .nth(1)
                .unwrap()
                .parse()
                .unwrap();
            heights[column - 1] += 1;
            format!("({ours} noop)")
        } else {
            let column = (0..7).find(|&c| heights[c] < 6).unwrap();
            heights[column] += 1;
            format!("(noop (drop {}))", column + 1)
        };
    }
    assert_eq!(say(addr, &format!("(STOP {id} {last})")).await, "done");
}

/// Games the engine does not know, played by the reasoner for a controller: their boards
/// are drawn from the state's `(cell x y v)` facts, labelled with its coordinates, and
/// the marks are marks (X and O, discs), not the facts' digits.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reasoner_game_s_board_is_drawn_from_its_facts() {
    let Some(_one) = browser_turn("web::a_reasoner_game_s_board_is_drawn_from_its_facts").await
    else {
        return;
    };
    let (addr, _stop, chromium, page, errors) = open_player_page().await;
    let grid = tic_tac_toe_match(&addr, "ttt").await;
    let marks = grid.iter().flatten().filter(|&&c| c != ' ').count();
    let mirror =
        |g: [[char; 3]; 3]| std::array::from_fn::<_, 3, _>(|i| std::array::from_fn(|j| g[j][i]));
    assert_ne!(
        grid,
        mirror(grid),
        "the test's game tells rows from columns"
    );
    connect_four_match(&addr, "c4", 6).await;
    let board_of = r#"(() => {
        const b = document.getElementById('board');
        return { cells: [...b.querySelectorAll('td')].map(t => t.textContent),
                 rows: b.querySelectorAll('tr').length - 1,
                 rowLabels: [...b.querySelectorAll('tr th[scope=row]')].map(t => t.textContent),
                 marks: [...b.querySelectorAll('td .cell-text')].map(t => t.textContent),
                 discs: b.querySelectorAll('td .piece').length }; })()"#;
    eval(
        &page,
        "(() => { location.hash = '#match=1'; return true; })()",
    )
    .await;
    wait_for(
        &page,
        "document.getElementById('match-title').textContent.startsWith('#1 gdl 3x3') && document.getElementById('board').dataset.turn === 'over'",
        "the tic-tac-toe match",
        Duration::from_secs(10),
    )
    .await;
    let ttt = eval(&page, board_of).await;
    assert_eq!(ttt["rows"], 3, "{ttt}");
    // The rules' rows (`(cell row column mark)`), first on top, as the moves name them.
    assert_eq!(ttt["rowLabels"], serde_json::json!(["1", "2", "3"]));
    let expected: Vec<String> = grid
        .iter()
        .flatten()
        .map(|&c| {
            if c == ' ' {
                String::new()
            } else {
                c.to_ascii_uppercase().to_string()
            }
        })
        .collect();
    assert_eq!(
        ttt["cells"],
        serde_json::json!(expected),
        "the grid as the rules mean it"
    );
    let drawn: Vec<&str> = ttt["marks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    assert_eq!(drawn.len(), marks, "{ttt}");
    assert!(drawn.iter().all(|m| *m == "X" || *m == "O"), "{ttt}");
    assert!(
        ttt["cells"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| !c.as_str().unwrap().contains(|ch: char| ch.is_ascii_digit())),
        "no digits drawn in cells: {ttt}"
    );
    let status = eval(&page, "document.getElementById('status').textContent").await;
    assert!(status.as_str().unwrap().contains("Game over: "), "{status}");
    let overlaps = eval(&page, PLOT_OVERLAPS).await;
    assert_eq!(
        overlaps,
        serde_json::json!([]),
        "the win-rate plot's labels"
    );
    let offered = eval(
        &page,
        "[document.getElementById('new-game-button').hidden, document.getElementById('plot-title').textContent]",
    )
    .await;
    // Whose view: the model START's race chose, the network or the reasoner.
    assert!(
        [
            serde_json::json!([true, "Our propositional network's evaluation, its own view"]),
            serde_json::json!([true, "Our reasoner's evaluation, its own view"]),
        ]
        .contains(&offered),
        "no page game of a GDL game; the plot says whose view: {offered}"
    );
    // The same tab, another match: the hash switches it.
    eval(
        &page,
        "(() => { location.hash = '#match=2'; return true; })()",
    )
    .await;
    wait_for(
        &page,
        "document.getElementById('match-title').textContent.startsWith('#2 gdl 7x6')",
        "the connect-four match",
        Duration::from_secs(10),
    )
    .await;
    let c4 = eval(&page, board_of).await;
    assert_eq!(c4["rows"], 6, "{c4}");
    assert_eq!(c4["discs"], 6, "{c4}");
    assert_eq!(
        c4["rowLabels"],
        serde_json::json!(["6", "5", "4", "3", "2", "1"])
    );
    assert!(
        c4["cells"].as_array().unwrap().iter().all(|c| c == ""),
        "discs, not words or digits: {c4}"
    );
    let status = eval(&page, "document.getElementById('status').textContent").await;
    assert!(
        status
            .as_str()
            .unwrap()
            .ends_with("Game over: stopped by the controller before the game's end."),
        "{status}"
    );
    assert_eq!(errors_of(&errors), Vec::<String>::new(), "no console error");
    chromium.close().await;
}

/// A match of the project's GDL game `file` from a controller, the player as the first
/// role and the test's other roles playing their first legal move, stopped after `plies`
/// joint moves (or at the game's end); the state at the end.
async fn gdl_match(addr: &str, id: &str, file: &str, plies: usize) -> (Gdl, State) {
    let path = format!("{}/gdl/{file}", env!("CARGO_MANIFEST_DIR"));
    let rules = std::fs::read_to_string(path).unwrap();
    let gdl = Gdl::parse(&rules).unwrap();
    let role = &gdl.role_names()[0];
    assert_eq!(
        say(addr, &format!("(START {id} {role} ({rules}) 5 1)")).await,
        "ready"
    );
    let mut state = gdl.initial_state();
    let mut last = "NIL".to_owned();
    for _ in 0..plies {
        if gdl.is_terminal(&state) {
            break;
        }
        let ours = say(addr, &format!("(PLAY {id} {last})")).await;
        let mut joint: Vec<_> = gdl
            .all_legal_moves(&state)
            .into_iter()
            .map(|moves| moves[0].clone())
            .collect();
        joint[0] = gdl.parse_term(&ours).unwrap();
        let names: Vec<String> = joint.iter().map(|m| gdl.display(m)).collect();
        last = format!("({})", names.join(" "));
        state = gdl.next_state(&state, &joint);
    }
    assert_eq!(say(addr, &format!("(STOP {id} {last})")).await, "done");
    (gdl, state)
}

/// The classic games the reasoner plays, as the page draws them: the boards of
/// checkers, reversi, pentago and hex whole, with one piece for each of the state's,
/// the colours as discs; race's runners and nim's heaps as tracks, a row per runner or
/// heap, the name where its number is.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_classic_games_are_drawn_as_boards_and_tracks() {
    let Some(_one) = browser_turn("web::the_classic_games_are_drawn_as_boards_and_tracks").await
    else {
        return;
    };
    // 100 ms of search a move at the 1 s play clock: the drawing is tested, not the play.
    let (addr, _stop, chromium, page, errors) = open_player_page_with_margin(900).await;
    let board_of = r#"(() => {
        const b = document.getElementById('board');
        const rows = [...b.querySelectorAll('tr')].filter(r => r.querySelector('td'));
        return { widths: rows.map(r => r.querySelectorAll('td').length),
                 rowLabels: rows.map(r => r.querySelector('th[scope=row]').textContent),
                 words: [...b.querySelectorAll('td .cell-text')].map(t => t.textContent),
                 discs: b.querySelectorAll('td .piece').length }; })()"#;
    // (file, plies, rows, columns, pieces drawn as discs rather than words)
    let games = [
        ("checkers_6x6.gdl", 6, 6, 6, false),
        ("reversi_6x6.gdl", 6, 6, 6, true),
        ("pentago.gdl", 6, 6, 6, true),
        ("hex.gdl", 6, 5, 5, true),
        ("race.gdl", 3, 2, 12, false),
        ("nim.gdl", 4, 4, 26, false),
    ];
    for (n, (file, plies, rows, cols, discs)) in games.into_iter().enumerate() {
        let (gdl, end) = gdl_match(&addr, &format!("classic{n}"), file, plies).await;
        eval(
            &page,
            &format!(
                "(() => {{ location.hash = '#match={}'; return true; }})()",
                n + 1
            ),
        )
        .await;
        wait_for(
            &page,
            &format!(
                "document.getElementById('match-title').textContent.startsWith('#{} ') && document.getElementById('board').dataset.turn === 'over'",
                n + 1
            ),
            file,
            Duration::from_secs(10),
        )
        .await;
        let drawn = eval(&page, board_of).await;
        assert_eq!(
            drawn["widths"],
            serde_json::json!(vec![cols; rows]),
            "{file}: {drawn}"
        );
        // The state's pieces: grid facts not empty, or one per track.
        let pieces = end
            .fluents()
            .iter()
            .map(|f| gdl.display(f))
            .filter(|f| {
                let words: Vec<&str> = f.trim_matches(['(', ')']).split(' ').collect();
                (words.len() == 4 && words[3] != "b") || (rows <= 4 && words.len() == 3)
            })
            .count();
        let (shown_discs, shown_words) = (
            drawn["discs"].as_u64().unwrap() as usize,
            drawn["words"].as_array().unwrap().len(),
        );
        if discs {
            assert_eq!((shown_discs, shown_words), (pieces, 0), "{file}: {drawn}");
        } else {
            assert_eq!((shown_discs, shown_words), (0, pieces), "{file}: {drawn}");
        }
    }
    let labels = |file: &str| -> Value {
        match file {
            "race" => serde_json::json!(["left", "right"]),
            _ => serde_json::json!(["a", "b", "c", "d"]),
        }
    };
    for (n, file) in [(5, "race"), (6, "nim")] {
        eval(
            &page,
            &format!("(() => {{ location.hash = '#match={n}'; return true; }})()"),
        )
        .await;
        wait_for(
            &page,
            &format!("document.getElementById('match-title').textContent.startsWith('#{n} ')"),
            file,
            Duration::from_secs(10),
        )
        .await;
        let drawn = eval(&page, board_of).await;
        assert_eq!(drawn["rowLabels"], labels(file), "{file}: {drawn}");
    }
    assert_eq!(errors_of(&errors), Vec::<String>::new(), "no console error");
    chromium.close().await;
}

/// A match of rock, paper, scissors and well (both roles throw at once) from a
/// controller, `rps`, the player as left; our first throw.
async fn rps_match(addr: &str) -> String {
    let rules =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/gdl/rps_well.gdl")).unwrap();
    let start = format!("(START rps left ({rules}) 5 1)");
    assert_eq!(say(addr, &start).await, "ready");
    say(addr, "(PLAY rps NIL)").await
}

/// A game whose roles move at once (rock, paper, scissors and well, from a controller):
/// the status line says that they all move at once and whose moves are awaited, and each
/// ply shows the move every role played, on the status line and in the move list.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_simultaneous_game_says_who_moves_and_what_each_role_played() {
    let Some(_one) =
        browser_turn("web::a_simultaneous_game_says_who_moves_and_what_each_role_played").await
    else {
        return;
    };
    let (addr, _stop, chromium, page, errors) = open_player_page().await;
    let ours = rps_match(&addr).await;
    eval(
        &page,
        "(() => { location.hash = '#match=1'; return true; })()",
    )
    .await;
    let status = "document.getElementById('status').textContent";
    let awaited =
        "All 2 roles move at once: waiting for the moves of Left (us) and Right (opponent).";
    let says = |text: &str| format!("{status} === {text:?}");
    let within = Duration::from_secs(10);
    wait_for(&page, &says(awaited), "the roles awaited", within).await;
    let ours2 = say(&addr, &format!("(PLAY rps ({ours} (play rock)))")).await;
    let said = format!(
        "Ply 1: all moved at once: Left (us) played {ours}; Right (opponent) played (play rock). {awaited}"
    );
    wait_for(&page, &says(&said), "each role's move said", within).await;
    let first_row = "[...document.querySelectorAll('#moves tbody tr')[0].querySelectorAll('td')]";
    let row = eval(
        &page,
        &format!("{first_row}.slice(1, 3).map(t => t.textContent)"),
    )
    .await;
    assert_eq!(
        row,
        serde_json::json!(["all at once", format!("left: {ours} · right: (play rock)")]),
        "each role's move in the list"
    );
    let ours3 = say(&addr, &format!("(PLAY rps ({ours2} (play paper)))")).await;
    assert_eq!(
        say(&addr, &format!("(STOP rps ({ours3} (play well)))")).await,
        "done"
    );
    let end = format!(
        "{status}.includes('Game over: ') && {status}.startsWith('Ply 3: all moved at once: ')"
    );
    wait_for(&page, &end, "the end", within).await;
    assert_eq!(errors_of(&errors), Vec::<String>::new(), "no console error");
    chromium.close().await;
}

/// The match list at 1280 px: long match ids are shortened (whole on hover), the result
/// column is in view without a horizontal scroll; a click anywhere on a row opens its
/// match, as does Enter on a focused row; at 390 px the opened match comes first and
/// nothing scrolls sideways.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_match_list_fits_and_opens_by_row_key_and_hash() {
    let Some(_one) = browser_turn("web::the_match_list_fits_and_opens_by_row_key_and_hash").await
    else {
        return;
    };
    let (addr, _stop, chromium, page, errors) = open_player_page().await;
    let long = "dresden-kiosk.2026-11-26T09:41:07.123Z.breakthrough-tournament-round-3";
    tic_tac_toe_match(&addr, long).await;
    tic_tac_toe_match(&addr, &format!("{long}-replay")).await;
    wait_for(
        &page,
        "document.querySelectorAll('#matches tbody tr').length === 2",
        "both matches listed",
        Duration::from_secs(10),
    )
    .await;
    let fit = eval(
        &page,
        r#"(() => {
            const scroll = document.querySelector('#list-pane .scroll');
            const result = document.querySelector('#matches tbody tr td.result').getBoundingClientRect();
            const id = document.querySelector('#matches tbody tr td.match-id');
            return [scroll.scrollWidth <= scroll.clientWidth, document.documentElement.scrollWidth <= window.innerWidth,
                    result.right <= scroll.getBoundingClientRect().right, id.textContent.length <= 18, id.title]; })()"#,
    )
    .await;
    assert_eq!(fit[0], true, "no scroll in the list: {fit}");
    assert_eq!(fit[1], true, "no scroll on the page: {fit}");
    assert_eq!(fit[2], true, "the result in view: {fit}");
    assert_eq!(fit[3], true, "the id shortened: {fit}");
    assert_eq!(fit[4].as_str().unwrap(), format!("{long}-replay"));
    // A click on the row's roles opens match 1 (the older, listed second).
    page.find_element("#matches tbody tr[data-id='1'] td:nth-child(3)")
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for(
        &page,
        "document.getElementById('match-title').textContent.startsWith('#1 ') && location.hash === '#match=1'",
        "match 1 opened by its row",
        Duration::from_secs(10),
    )
    .await;
    // Enter on the other row, focused.
    eval(
        &page,
        "(() => { document.querySelector(\"#matches tbody tr[data-id='2']\").focus(); return true; })()",
    )
    .await;
    wait_for(
        &page,
        "document.activeElement.dataset.id === '2'",
        "the row focused",
        Duration::from_secs(5),
    )
    .await;
    // The key goes to the focused element, whichever element sends it.
    page.find_element("body")
        .await
        .unwrap()
        .press_key("Enter")
        .await
        .unwrap();
    wait_for(
        &page,
        "document.getElementById('match-title').textContent.startsWith('#2 ')",
        "match 2 opened by Enter",
        Duration::from_secs(10),
    )
    .await;
    let low = eval(&page, &low_contrast()).await;
    assert_eq!(low, serde_json::json!([]), "text under 4.5:1");
    set_viewport(&page, 390, 844).await;
    let narrow = eval(
        &page,
        r#"[document.documentElement.scrollWidth <= window.innerWidth,
            document.getElementById('match-pane').getBoundingClientRect().top < document.getElementById('list-pane').getBoundingClientRect().top]"#,
    )
    .await;
    assert_eq!(narrow, serde_json::json!([true, true]), "at 390 px");
    assert_eq!(errors_of(&errors), Vec::<String>::new(), "no console error");
    chromium.close().await;
}

/// Screenshots of a tic-tac-toe and a connect-four match played by the reasoner, and of
/// rock, paper, scissors and well after its first round.
async fn reasoner_screens(dir: &Path) {
    let (addr, _stop, chromium, page, _) = open_player_page().await;
    tic_tac_toe_match(&addr, "tic-tac-toe").await;
    connect_four_match(&addr, "connect-four", 6).await;
    let ours = rps_match(&addr).await;
    say(&addr, &format!("(PLAY rps ({ours} (play rock)))")).await;
    for (id, stem) in [
        (1, "tictactoe-end"),
        (2, "connect-four-stopped"),
        (3, "rps-mid"),
    ] {
        eval(
            &page,
            &format!("(() => {{ location.hash = '#match={id}'; return true; }})()"),
        )
        .await;
        wait_for(
            &page,
            &format!("document.getElementById('match-title').textContent.startsWith('#{id} ')"),
            "the match",
            Duration::from_secs(10),
        )
        .await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        save_both_widths(&page, dir, stem).await;
    }
    chromium.close().await;
}

/// Serves `html` to every request on a free port of loopback (another origin than the
/// player's); its address.
async fn serve_foreign_page(html: String) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let html = html.clone();
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).await.unwrap_or(0) == 1
                {
                    head.push(byte[0]);
                }
                let reply = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{html}",
                    html.len()
                );
                let _ = stream.write_all(reply.as_bytes()).await;
            });
        }
    });
    addr
}

/// A page on another origin, in the browser itself, tries what a hostile site would: fill
/// the player with STARTs, PLAY and ABORT a controller's match by its id, and start a
/// page game through the API. None of it reaches the player.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_site_s_page_cannot_start_play_or_abort() {
    use ggp_player::referee::client::exchange;
    use ggp_player::spec::GameSpec;
    let Some(_one) = browser_turn("web::another_site_s_page_cannot_start_play_or_abort").await
    else {
        return;
    };
    let (addr, _stop) = start_player(100).await;
    let rules: Vec<String> = Breakthrough::ggp_rules("5x5", "course")
        .unwrap()
        .unwrap()
        .iter()
        .map(|r| r.to_string())
        .collect();
    let rules = rules.join(" ");
    let say = |body: String| {
        let addr = addr.clone();
        async move {
            exchange(&addr, &body, Duration::from_secs(10))
                .await
                .unwrap()
                .body
        }
    };
    // A controller's match, as Dresden names it.
    let start = format!("(START TestMatch_1 white ({rules}) 10 2)");
    assert_eq!(say(start).await.trim(), "ready");

    let script = format!(
        r#"<!doctype html><title>elsewhere</title><script>
(async () => {{
  const player = 'http://{addr}/';
  const send = (body) => fetch(player, {{ method: 'POST', mode: 'no-cors', body }})
      .then(() => 'sent', (e) => 'failed: ' + e);
  const sent = [];
  for (let i = 0; i < 9; i++) sent.push(await send({start}));
  sent.push(await send('(PLAY TestMatch_1 NIL)'));
  sent.push(await send('(ABORT TestMatch_1)'));
  sent.push(await fetch(player + 'api/games', {{ method: 'POST', headers: {{ 'Content-Type': 'application/json' }},
      body: '{{"game":"breakthrough","side":"white","think_ms":500}}' }}).then((r) => 'status ' + r.status, (e) => 'failed: ' + e));
  window.sent = sent;
}})();
</script>"#,
        start = serde_json::to_string(&format!("(START evil white ({rules}) 1000 1000)")).unwrap(),
    );
    let foreign = serve_foreign_page(script).await;
    let chromium = Chromium::launch().await;
    let (page, _) = chromium.open(&format!("http://{foreign}/")).await;
    wait_for(
        &page,
        "Array.isArray(window.sent)",
        "the foreign page's requests",
        Duration::from_secs(20),
    )
    .await;
    let sent = eval(&page, "window.sent").await;
    chromium.close().await;
    // The no-cors requests left the browser (their answers are opaque to the page); the
    // JSON one was stopped by the browser itself or refused.
    assert_eq!(sent.as_array().map(Vec::len), Some(12), "{sent}");
    assert!(
        !sent[11].as_str().unwrap_or("").starts_with("status 2"),
        "{sent}"
    );

    let (_, list) = get_json(&addr, "/api/matches").await;
    assert_eq!(
        crate::common::match_ids(&list),
        ["TestMatch_1"],
        "nothing started from the other page: {list}"
    );
    let (_, d) = get_json(&addr, "/api/matches/1").await;
    assert_eq!(d["status"], "live", "not aborted: {d}");
    assert_eq!(d["plies"], 0, "not played: {d}");
    // The controller's match goes on.
    let reply = say("(PLAY TestMatch_1 NIL)".into()).await;
    assert!(reply.contains("(move "), "{reply}");
}
