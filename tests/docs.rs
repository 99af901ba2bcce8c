//! The user documents (README.md and docs/*.md) stay true: every relative link and
//! anchor leads somewhere, every `--option` they give a command is in that command's
//! `--help`, and the README's commands run as a user would type them.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::free_port;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// README.md, then every docs/*.md, in name order.
fn documents() -> Vec<PathBuf> {
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .expect("docs/ is there")
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .collect();
    docs.sort();
    docs.insert(0, root().join("README.md"));
    docs
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A document's lines outside fenced code blocks, with their line numbers (from 1).
fn prose_lines(text: &str) -> Vec<(usize, &str)> {
    let mut fenced = false;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            out.push((i + 1, line));
        }
    }
    out
}

/// A document's prose in the units Markdown reads code spans and links in: each
/// paragraph (lines joined by `\n`), each heading and each table row, with the number
/// of its first line.
fn paragraphs(text: &str) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = Vec::new();
    let mut current: Option<(usize, String)> = None;
    let mut fenced = false;
    for (i, line) in text.lines().enumerate() {
        let single = line.starts_with('|') || line.starts_with('#');
        if line.trim_start().starts_with("```") || line.trim().is_empty() || single {
            out.extend(current.take());
        }
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced || line.trim().is_empty() {
            continue;
        }
        if single {
            out.push((i + 1, line.to_owned()));
            continue;
        }
        match current.as_mut() {
            Some((_, text)) => {
                text.push('\n');
                text.push_str(line);
            }
            None => current = Some((i + 1, line.to_owned())),
        }
    }
    out.extend(current);
    out
}

/// The fenced code blocks whose info string is `sh`, each as its lines with the
/// backslash continuations joined.
fn sh_blocks(text: &str) -> Vec<Vec<String>> {
    let mut blocks = Vec::new();
    let mut block = Vec::new();
    // Inside a block: whether it is shell.
    let mut inside: Option<bool> = None;
    let mut pending = String::new();
    for line in text.lines() {
        if let Some(info) = line.trim_start().strip_prefix("```") {
            match inside.take() {
                Some(true) => blocks.push(std::mem::take(&mut block)),
                Some(false) => {}
                None => inside = Some(info.trim() == "sh"),
            }
            continue;
        }
        if inside == Some(true) {
            if let Some(head) = line.strip_suffix('\\') {
                pending.push_str(head);
                pending.push(' ');
            } else {
                pending.push_str(line);
                block.push(std::mem::take(&mut pending).trim().to_owned());
            }
        }
    }
    blocks
}

/// The text of the inline code spans (`...`) of a paragraph, line breaks as spaces.
fn code_spans(paragraph: &str) -> Vec<String> {
    let paragraph = paragraph.replace('\n', " ");
    let mut spans = Vec::new();
    let mut rest = paragraph.as_str();
    while let Some(start) = rest.find('`') {
        let ticks = rest[start..].chars().take_while(|&c| c == '`').count();
        let after = &rest[start + ticks..];
        match after.find(&"`".repeat(ticks)) {
            Some(end) => {
                spans.push(after[..end].trim().to_owned());
                rest = &after[end + ticks..];
            }
            None => break,
        }
    }
    spans
}

/// Text without its code spans (line breaks kept), so that a `](` inside code is no
/// link.
fn without_code(text: &str) -> String {
    let mut out = String::new();
    let mut in_code = false;
    for c in text.chars() {
        if c == '`' {
            in_code = !in_code;
        } else if !in_code || c == '\n' {
            out.push(c);
        }
    }
    out
}

/// GitHub's anchor for a heading: its text lower-cased, punctuation and symbols
/// dropped, spaces turned into hyphens.
fn slug(heading: &str) -> String {
    let text = heading.replace(['*', '`'], "");
    // A link in a heading keeps only its text.
    let text = strip_link_targets(&text);
    text.trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            '-' | '_' => Some(c),
            c if c.is_alphanumeric() => Some(c),
            _ => None,
        })
        .collect()
}

fn strip_link_targets(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("](") {
        out.push_str(&rest[..i]);
        match rest[i..].find(')') {
            Some(j) => rest = &rest[i + j + 1..],
            None => {
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// The anchors of a document's headings, numbered as GitHub numbers repeats.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = BTreeSet::new();
    for (_, line) in prose_lines(text) {
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if hashes == 0 || hashes > 6 || !line[hashes..].starts_with(' ') {
            continue;
        }
        let base = slug(&line[hashes..]);
        let n = seen.entry(base.clone()).or_insert(0);
        out.insert(if *n == 0 {
            base.clone()
        } else {
            format!("{base}-{n}")
        });
        *n += 1;
    }
    out
}

/// The targets of a paragraph's links and images (`[text](target)`), each with the
/// line it is on, counted from the paragraph's first.
fn link_targets(paragraph: &str) -> Vec<(usize, String)> {
    let text = without_code(paragraph);
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = text[from..].find("](") {
        let start = from + i + 2;
        let end = text[start..].find(')').map_or(text.len(), |j| start + j);
        let target = text[start..end].split_whitespace().next().unwrap_or("");
        out.push((text[..start].matches('\n').count(), target.to_owned()));
        from = end;
    }
    out
}

/// Every relative link of `text` (a document in `dir`, named `name`) whose file or
/// anchor does not exist, as `name:line: target (why)`.
fn broken_links(name: &str, text: &str, dir: &Path) -> Vec<String> {
    let mut broken = Vec::new();
    for (first, paragraph) in paragraphs(text) {
        for (offset, target) in link_targets(&paragraph) {
            let number = first + offset;
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (file, anchor) = match target.split_once('#') {
                Some((file, anchor)) => (file, Some(anchor)),
                None => (target.as_str(), None),
            };
            let path = dir.join(file);
            if !file.is_empty() && !path.exists() {
                broken.push(format!("{name}:{number}: {target} (no such file)"));
                continue;
            }
            let Some(anchor) = anchor else { continue };
            let headings = if file.is_empty() {
                anchors(text)
            } else if path.extension().is_some_and(|e| e == "md") {
                anchors(&read(&path))
            } else {
                BTreeSet::new()
            };
            if !headings.contains(anchor) {
                broken.push(format!("{name}:{number}: {target} (no such heading)"));
            }
        }
    }
    broken
}

#[test]
fn every_link_and_anchor_in_the_documents_resolves() {
    let mut broken = Vec::new();
    let mut links = 0;
    for path in documents() {
        let text = read(&path);
        links += paragraphs(&text)
            .iter()
            .map(|(_, paragraph)| link_targets(paragraph).len())
            .sum::<usize>();
        let name = path.strip_prefix(root()).unwrap().display().to_string();
        broken.extend(broken_links(&name, &text, path.parent().unwrap()));
    }
    assert!(
        links > 50,
        "only {links} links found: is the parser broken?"
    );
    assert!(
        broken.is_empty(),
        "broken links in the documents:\n{}",
        broken.join("\n")
    );
}

#[test]
fn the_link_checker_reports_missing_files_and_headings() {
    let dir = root().join("docs");
    let text = "# Title\n\n## A `code` heading (twice)\n\n## A `code` heading (twice)\n\n\
        [ok](#title), [ok](#a-code-heading-twice-1), [ok](glossary.md#pondering),\n\
        [bad](#no-such), [bad](missing.md), [bad](glossary.md#nothing-here)\n\
        `[not a link](nowhere.md)`\n\n```sh\n[not a link](nowhere.md)\n```\n";
    let broken = broken_links("sample.md", text, &dir);
    assert_eq!(
        broken,
        [
            "sample.md:8: #no-such (no such heading)",
            "sample.md:8: missing.md (no such file)",
            "sample.md:8: glossary.md#nothing-here (no such heading)",
        ],
    );
    assert_eq!(
        slug(" `loa`: Lines of Action 8×8 (CS61B, Spring 2020)"),
        "loa-lines-of-action-88-cs61b-spring-2020"
    );
}

/// The built programs whose options the documents may name.
fn program_binary(name: &str) -> Option<&'static str> {
    Some(match name {
        "ggp-player" => env!("CARGO_BIN_EXE_ggp-player"),
        "loa" => env!("CARGO_BIN_EXE_loa"),
        "loa6" => env!("CARGO_BIN_EXE_loa6"),
        "ataxx" => env!("CARGO_BIN_EXE_ataxx"),
        "halma" => env!("CARGO_BIN_EXE_halma"),
        _ => return None,
    })
}

const SUBCOMMANDS: [&str; 10] = [
    "serve",
    "match",
    "tournament",
    "gdl",
    "perft",
    "solve",
    "selfplay",
    "tune",
    "bench",
    "games",
];

/// A command's options as its short help lists them, each with its possible values
/// (empty when free). `loa6`, `ataxx` and `halma` take none.
#[derive(Default)]
struct Helps(BTreeMap<Vec<String>, BTreeMap<String, BTreeSet<String>>>);

impl Helps {
    fn options(&mut self, command: &[String]) -> &BTreeMap<String, BTreeSet<String>> {
        self.0.entry(command.to_vec()).or_insert_with(|| {
            let mut options = BTreeMap::new();
            if matches!(command[0].as_str(), "loa6" | "ataxx" | "halma") {
                return options;
            }
            let out = Command::new(program_binary(&command[0]).unwrap())
                .args(&command[1..])
                .arg("-h")
                .output()
                .expect("the program runs");
            let help = String::from_utf8_lossy(&out.stdout);
            assert!(out.status.success(), "{command:?} -h failed: {help}");
            // An option's line, or the line after it, may list its possible values.
            let mut last: Option<String> = None;
            for line in help.lines() {
                let flag = line
                    .split_whitespace()
                    .find(|w| w.starts_with("--") && w.len() > 2)
                    .filter(|_| line.trim_start().starts_with('-'));
                if let Some(flag) = flag {
                    let flag = flag.trim_end_matches(',').to_owned();
                    options.insert(flag.clone(), BTreeSet::new());
                    last = Some(flag);
                }
                if let (Some(flag), Some((_, values))) =
                    (&last, line.split_once("[possible values: "))
                {
                    let values = values.split(']').next().unwrap();
                    options.insert(
                        flag.clone(),
                        values.split(", ").map(str::to_owned).collect(),
                    );
                }
            }
            options
        })
    }
}

/// Shell-like words: quotes group and are removed; `|`, `;`, `&&` and `||` end a
/// command and are words of their own.
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut quote = None;
    let mut chars = line.chars().peekable();
    let mut any = false;
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '\\') if chars.peek() == Some(&'|') => {
                word.push('\\');
                word.push(chars.next().unwrap());
            }
            (None, '\'' | '"') => {
                quote = Some(c);
                any = true;
            }
            (None, c) if c.is_whitespace() || c == ';' || c == '|' || c == '&' => {
                if any || !word.is_empty() {
                    out.push(std::mem::take(&mut word));
                    any = false;
                }
                if !c.is_whitespace() {
                    let mut sep = c.to_string();
                    if chars.peek() == Some(&c) {
                        sep.push(chars.next().unwrap());
                    }
                    out.push(sep);
                }
            }
            (None, c) => word.push(c),
        }
    }
    if any || !word.is_empty() {
        out.push(word);
    }
    out
}

/// One use of an option in a document: which command, which option, and the values
/// the document lists for it (`--agent random\|greedy`), if any.
#[derive(Debug)]
struct OptionUse {
    place: String,
    command: Vec<String>,
    option: String,
    values: Vec<String>,
}

/// The commands of a line of shell (or of a code span) and the options given to each.
/// `ggp-player` may be written as a path, as `cargo run --release --`, or left out
/// before one of its subcommands (`serve --port 4002`).
fn option_uses(place: &str, line: &str, uses: &mut Vec<OptionUse>) {
    let all = words(line);
    for segment in all.split(|w| matches!(w.as_str(), "|" | ";" | "&&" | "||" | "&")) {
        let mut ws: Vec<&str> = segment.iter().map(String::as_str).collect();
        // Leading keywords, subshells and environment settings.
        while let Some(first) = ws.first() {
            let env = first.split_once('=').is_some_and(|(k, _)| {
                !k.is_empty() && k.chars().all(|c| c.is_ascii_uppercase() || c == '_')
            });
            if matches!(*first, "do" | "then" | "(" | "{") || env {
                ws.remove(0);
            } else if let Some(rest) = first.strip_prefix('(') {
                ws[0] = rest;
            } else {
                break;
            }
        }
        if ws.len() >= 4 && ws[..4] == ["cargo", "run", "--release", "--"] {
            ws.drain(..3);
            ws[0] = "ggp-player";
        }
        let Some(first) = ws.first() else { continue };
        let program = first.rsplit('/').next().unwrap();
        let (mut command, rest) = if program_binary(program).is_some() {
            (vec![program.to_owned()], &ws[1..])
        } else if SUBCOMMANDS.contains(first) {
            (vec!["ggp-player".to_owned()], &ws[..])
        } else {
            continue;
        };
        let mut rest = rest.iter().copied().peekable();
        if command[0] == "ggp-player"
            && let Some(sub) = rest.next_if(|w| SUBCOMMANDS.contains(w))
        {
            command.push(sub.to_owned());
            if sub == "gdl"
                && let Some(sub) = rest.next_if(|w| !w.starts_with('-'))
            {
                command.push(if sub == "breakthrough" { "print" } else { sub }.into());
            }
        }
        let mut rest = rest.peekable();
        while let Some(word) = rest.next() {
            let word = word.trim_matches(|c| matches!(c, '[' | ']' | '(' | ')'));
            if word.contains(char::is_whitespace) {
                // A command inside an argument: 'rand=ggp-player serve --agent random'.
                let inner = word
                    .split_once('=')
                    .filter(|(name, _)| !name.contains(' '))
                    .map_or(word, |(_, inner)| inner);
                option_uses(place, inner.strip_prefix("program:").unwrap_or(inner), uses);
                continue;
            }
            let Some(name) = word
                .strip_prefix("--")
                .filter(|n| n.starts_with(|c: char| c.is_ascii_lowercase()))
            else {
                continue;
            };
            let option = format!("--{}", name.split('=').next().unwrap());
            let values = rest
                .peek()
                .filter(|v| v.contains("\\|"))
                .map(|v| {
                    v.split("\\|")
                        .map(|v| v.trim_matches(|c| matches!(c, '[' | ']')).to_owned())
                        .collect()
                })
                .unwrap_or_default();
            uses.push(OptionUse {
                place: place.to_owned(),
                command: command.clone(),
                option,
                values,
            });
        }
    }
}

/// Every option use in a document: in its `sh` blocks, in its code spans, and in the
/// first column of its option tables (a table headed "`serve` option" lists serve's).
fn document_option_uses(name: &str, text: &str) -> Vec<OptionUse> {
    let mut uses = Vec::new();
    for block in sh_blocks(text) {
        for line in block {
            let line = line.split("  #").next().unwrap();
            option_uses(&format!("{name} (sh block: {line})"), line, &mut uses);
        }
    }
    let mut table: Option<String> = None;
    for (number, paragraph) in paragraphs(text) {
        let place = format!("{name}:{number}");
        let spans = code_spans(&paragraph);
        if !paragraph.starts_with('|') {
            table = None;
        } else if paragraph.starts_with("| `") && paragraph.contains("` option |") {
            table = spans.first().cloned();
            continue;
        }
        for (i, span) in spans.iter().enumerate() {
            match &table {
                Some(command) if i == 0 && span.starts_with("--") => {
                    option_uses(&place, &format!("{command} {span}"), &mut uses)
                }
                _ => option_uses(&place, span, &mut uses),
            }
        }
    }
    uses
}

#[test]
fn every_option_the_documents_give_a_command_is_in_its_help() {
    let mut helps = Helps::default();
    let mut wrong = Vec::new();
    let mut checked = 0;
    for path in documents() {
        let name = path.strip_prefix(root()).unwrap().display().to_string();
        for found in document_option_uses(&name, &read(&path)) {
            checked += 1;
            let options = helps.options(&found.command);
            let command = found.command.join(" ");
            match options.get(&found.option) {
                None => wrong.push(format!(
                    "{}: `{command}` has no option {}",
                    found.place, found.option
                )),
                Some(values) if !found.values.is_empty() => {
                    let listed: BTreeSet<String> = found.values.iter().cloned().collect();
                    if &listed != values {
                        wrong.push(format!(
                            "{}: `{command} {}` lists {listed:?}, its help {values:?}",
                            found.place, found.option
                        ));
                    }
                }
                Some(_) => {}
            }
        }
    }
    assert!(
        checked > 200,
        "only {checked} options found: is the parser broken?"
    );
    assert!(
        wrong.is_empty(),
        "options the documents name that the programs do not have:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_option_finder_sees_through_paths_quotes_and_tables() {
    let text = "| `serve` option | default |\n|---|---|\n\
        | `--agent random\\|mcts` | alphabeta |\n\n\
        `tournament --playclocks 1` and `target/release/loa --log=x`\n\n\
        ```sh\ncargo run --release -- match --white 'ggp-player serve --no-ponder' \\\n\
        \x20   --size 5x5  # a comment --not-an-option\n\
        RUST_LOG=info ggp-player gdl print 8x8 --variant standard\n```\n";
    let found: Vec<String> = document_option_uses("t.md", text)
        .iter()
        .map(|u| {
            format!(
                "{} {} {}",
                u.command.join(" "),
                u.option,
                u.values.join(",")
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            "ggp-player match --white ",
            "ggp-player serve --no-ponder ",
            "ggp-player match --size ",
            "ggp-player gdl print --variant ",
            "ggp-player serve --agent random,mcts",
            "ggp-player tournament --playclocks ",
            "loa --log ",
        ]
    );
}

/// What a README line does when the test runs it.
enum Step {
    /// Built or run by cargo itself, or the clone: shown, not run here.
    Cargo,
    /// `serve`: started on a free port, asked INFO and the page, then stopped.
    Serve(Vec<String>),
    /// Run by `sh -c` in a scratch directory; the text its output must contain.
    Shell(String, Option<String>),
}

/// The README's shell lines, each with what the test does with it. `cargo run
/// --release --` becomes the built `ggp-player`, and `target/release/` is the folder
/// of the built programs; a `match` stops after two plies.
fn readme_steps() -> Vec<(String, Step)> {
    let ggp = env!("CARGO_BIN_EXE_ggp-player");
    let mut steps = Vec::new();
    for block in sh_blocks(&read(&root().join("README.md"))) {
        for line in block {
            let (command, comment) = match line.split_once("  #") {
                Some((command, comment)) => (command.trim().to_owned(), Some(comment.trim())),
                None => (line.clone(), None),
            };
            let expect = comment
                .and_then(|c| c.strip_prefix("prints "))
                .map(str::to_owned);
            let run = command.replace("cargo run --release --", ggp);
            let step = if command.starts_with("cargo ") && !command.starts_with("cargo run")
                || command.starts_with("git clone")
            {
                Step::Cargo
            } else if words(&run).get(1).is_some_and(|w| w == "serve") {
                Step::Serve(words(&run))
            } else if words(&run).iter().any(|w| w == "match") {
                Step::Shell(format!("{run} --max-plies 2"), expect)
            } else {
                Step::Shell(run, expect)
            };
            steps.push((line, step));
        }
    }
    steps
}

/// One HTTP/1.0 exchange with 127.0.0.1:port; the whole answer, or None if nobody
/// answers yet.
fn exchange(port: u16, request: &str) -> Option<String> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .ok()?;
    stream.write_all(request.as_bytes()).ok()?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer).ok()?;
    Some(answer)
}

/// Starts `serve` as the README shows it, on a free port, and checks that it answers a
/// controller's INFO and serves the page.
fn check_serve(words: &[String]) -> Result<(), String> {
    let port = free_port();
    let mut args: Vec<String> = words[1..].to_vec();
    match args.iter().position(|w| w == "--port") {
        Some(i) => args[i + 1] = port.to_string(),
        None => args.extend(["--port".into(), port.to_string()]),
    }
    let mut child = Command::new(&words[0])
        .args(&args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| e.to_string())?;
    let info = "POST / HTTP/1.0\r\nContent-Type: text/acl\r\nContent-Length: 6\r\n\r\n(INFO)";
    let started = Instant::now();
    let mut answer = None;
    // Startup takes milliseconds; the minute only stops a hung test.
    while answer.is_none() && started.elapsed() < Duration::from_secs(60) {
        if let Some(status) = child.try_wait().unwrap() {
            return Err(format!("exited with {status} before answering"));
        }
        answer = exchange(port, info);
        if answer.is_none() {
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    let page = exchange(port, "GET / HTTP/1.0\r\n\r\n");
    let _ = child.kill();
    let _ = child.wait();
    let answer = answer.ok_or("no answer to INFO")?;
    if !answer.starts_with("HTTP/1.") || !answer.contains("available") {
        return Err(format!("INFO answered {answer:?}"));
    }
    let page = page.unwrap_or_default();
    if !page.starts_with("HTTP/1.") || !page.contains(" 200 ") || !page.contains("<html") {
        return Err(format!("GET / answered {:?}", page.lines().next()));
    }
    Ok(())
}

/// A scratch directory that looks like the top of the repository to the README's
/// commands: `docs/` and `target/release/` (the built programs).
fn scratch_checkout() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ggp-docs-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("target")).unwrap();
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_loa6")).parent().unwrap();
    std::os::unix::fs::symlink(bin_dir, dir.join("target/release")).unwrap();
    std::os::unix::fs::symlink(root().join("docs"), dir.join("docs")).unwrap();
    dir
}

#[test]
fn the_readme_shows_exactly_the_commands_this_test_runs() {
    let steps = readme_steps();
    let shown = |pick: fn(&Step) -> bool| -> Vec<&str> {
        steps
            .iter()
            .filter(|(_, step)| pick(step))
            .map(|(line, _)| line.as_str())
            .collect()
    };
    assert_eq!(
        shown(|s| matches!(s, Step::Cargo)),
        [
            "git clone <this repository> ggp-player && cd ggp-player",
            "cargo build --release",
            "cargo test                        # the tests",
        ],
        "the README's commands that this test does not run"
    );
    let serve = shown(|s| matches!(s, Step::Serve(_)));
    assert_eq!(
        serve.first().copied(),
        Some(
            "cargo run --release -- serve      # the player, on http://127.0.0.1:4001 (open it in a browser)"
        ),
        "the quick start's first command"
    );
    for program in [
        "loa6",
        "ataxx",
        "target/release/loa",
        "halma",
        "match --game loa6",
    ] {
        assert!(
            shown(|s| matches!(s, Step::Shell(..)))
                .iter()
                .any(|l| l.contains(program)),
            "the README shows no command with {program}"
        );
    }
}

#[test]
fn the_readme_commands_run() {
    let dir = scratch_checkout();
    let mut failures = Vec::new();
    for (line, step) in readme_steps() {
        match step {
            Step::Cargo => {}
            Step::Serve(words) => {
                if let Err(why) = check_serve(&words) {
                    failures.push(format!("{line}\n  {why}"));
                }
            }
            Step::Shell(command, expect) => {
                let out = Command::new("sh")
                    .args(["-c", &command])
                    .current_dir(&dir)
                    .stdin(Stdio::null())
                    .output()
                    .expect("sh runs");
                let stdout = String::from_utf8_lossy(&out.stdout);
                let stderr = String::from_utf8_lossy(&out.stderr);
                let expected = expect.as_deref().is_none_or(|e| stdout.contains(e));
                // Each of our programs answers something.
                let silent = command.contains("target/release/") && stdout.trim().is_empty();
                if !out.status.success() || silent || !expected {
                    failures.push(format!(
                        "{line}\n  ran: {command}\n  status: {}, expected: {expect:?}\n  \
                         stdout: {stdout}\n  stderr: {stderr}",
                        out.status
                    ));
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        failures.is_empty(),
        "README commands that failed:\n{}",
        failures.join("\n")
    );
}
