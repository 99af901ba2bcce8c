//! The library's layers (`docs/architecture.md`): a file may name, by `use crate::…`,
//! `use super::…` or a `crate::…` path in code, only its own room, rooms of its own
//! layer and rooms of the layers below; and no files may name each other round a
//! circle. Test code (`#[cfg(test)]` modules) is left out: a test may reach for any
//! game. A folder's `mod.rs` naming its own files is not counted: those are its parts.

use std::collections::BTreeMap;
use std::path::Path;

/// The rooms of the library (a top-level module: a file or folder under `src/`), lowest
/// layer first. The binaries (`main.rs`, `cli/`, `bin/`) sit above them all; being other
/// crates, nothing in the library can name them.
const LAYERS: &[&[&str]] = &[
    &["rng", "sexpr", "memory", "fit", "input_file"],
    &["game", "gdl"],
    &["search", "mcts"],
    &["spec"],
    &["agent"],
    &["games"],
    &["bench", "oneshot", "referee", "selfplay", "solve"],
    &["web"],
    &["player"],
];

/// The library's source files (path under `src/` → text), the binaries left out.
fn library_sources() -> BTreeMap<String, String> {
    fn walk(dir: &Path, prefix: &str, out: &mut BTreeMap<String, String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let entry = entry.unwrap();
            let name = entry.file_name().into_string().unwrap();
            let path = format!("{prefix}{name}");
            if matches!(path.as_str(), "main.rs" | "cli" | "bin") {
                continue;
            }
            if entry.file_type().unwrap().is_dir() {
                walk(&entry.path(), &format!("{path}/"), out);
            } else if name.ends_with(".rs") {
                out.insert(path, std::fs::read_to_string(entry.path()).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        "",
        &mut out,
    );
    out
}

/// The module path of a file: `games/loa/mod.rs` → `[games, loa]`.
fn module_of(file: &str) -> Vec<String> {
    let mut parts: Vec<String> = file
        .trim_end_matches(".rs")
        .split('/')
        .map(str::to_owned)
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// The file a module path names (the longest prefix that is a file), if any.
fn file_of(module: &[String], files: &BTreeMap<String, String>) -> Option<String> {
    (1..=module.len()).rev().find_map(|n| {
        let base = module[..n].join("/");
        [format!("{base}.rs"), format!("{base}/mod.rs")]
            .into_iter()
            .find(|f| files.contains_key(f))
    })
}

/// `text` without comments and without `#[cfg(test)]` inline modules.
fn code_of(text: &str) -> String {
    let mut code = String::new();
    for line in text.lines() {
        let line = match line.find("//") {
            Some(i) => &line[..i],
            None => line,
        };
        code.push_str(line);
        code.push('\n');
    }
    while let Some(at) = code.find("#[cfg(test)]") {
        let rest = &code[at..];
        let end = match (rest.find('{'), rest.find(';')) {
            (Some(open), semi) if semi.is_none_or(|s| open < s) => {
                let mut depth = 0;
                let mut end = rest.len();
                for (i, c) in rest.char_indices().skip(open) {
                    depth += match c {
                        '{' => 1,
                        '}' => -1,
                        _ => 0,
                    };
                    if depth == 0 {
                        end = i + 1;
                        break;
                    }
                }
                end
            }
            (_, Some(semi)) => semi + 1,
            _ => rest.len(),
        };
        code.replace_range(at..at + end, "");
    }
    code
}

/// The files declared as test modules (`#[cfg(test)] mod name;`) by `file`.
fn test_files(file: &str, text: &str, files: &BTreeMap<String, String>) -> Vec<String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut found = Vec::new();
    for w in words.windows(3) {
        if w[0] == "#[cfg(test)]" && w[1] == "mod" && w[2].ends_with(';') {
            let mut module = module_of(file);
            module.push(w[2].trim_end_matches(';').to_owned());
            if let Some(f) = file_of(&module, files) {
                found.push(f);
            }
        }
    }
    found
}

/// Reads the paths that begin at byte `at` of `code` (after `crate::` or `super::`):
/// one segment list per leaf of a `{…}` group.
fn paths_at(code: &str, at: usize, prefix: Vec<String>, out: &mut Vec<Vec<String>>) -> usize {
    let bytes = code.as_bytes();
    let mut i = at;
    let mut path = prefix;
    loop {
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        if i < bytes.len() && bytes[i] == b'{' {
            i += 1;
            loop {
                i = skip_alias(code, paths_at(code, i, path.clone(), out));
                match bytes.get(i) {
                    Some(b',') => i += 1,
                    Some(b'}') => return i + 1,
                    _ => return i,
                }
                while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                    i += 1;
                }
                if bytes.get(i) == Some(&b'}') {
                    return i + 1;
                }
            }
        }
        let start = i;
        while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
            i += 1;
        }
        if start == i {
            out.push(path);
            return i + usize::from(bytes.get(i) == Some(&b'*'));
        }
        path.push(code[start..i].to_owned());
        if code[i..].starts_with("::") && !code[i + 2..].starts_with('<') {
            i += 2;
        } else {
            out.push(path);
            return i;
        }
    }
}

/// Past the blanks and any `as name` after a path at `at`.
fn skip_alias(code: &str, mut at: usize) -> usize {
    let blanks = |at: usize| at + code[at..].len() - code[at..].trim_start().len();
    at = blanks(at);
    if let Some(rest) = code[at..].strip_prefix("as ") {
        let name = rest.trim_start();
        let end = name
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(name.len());
        at = blanks(code.len() - name.len() + end);
    }
    at
}

/// Every module path the code of `file` names through `crate::` or `super::`.
fn named_modules(file: &str, code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let here = module_of(file);
    let bytes = code.as_bytes();
    for (at, _) in code
        .match_indices("crate::")
        .chain(code.match_indices("super::"))
    {
        if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_') {
            continue;
        }
        if at > 1 && &code[at - 2..at] == "::" {
            continue;
        }
        let mut base: Vec<String> = Vec::new();
        let mut i = at;
        if code[at..].starts_with("super::") {
            base = here.clone();
            // A file's own module is `here`; `super` is its parent.
            while code[i..].starts_with("super::") {
                base.pop();
                i += "super::".len();
            }
        } else {
            i += "crate::".len();
        }
        paths_at(code, i, base, &mut out);
    }
    out
}

/// The import graph: each file and the files it names.
fn graph(files: &BTreeMap<String, String>) -> BTreeMap<String, Vec<String>> {
    let tests: Vec<String> = files
        .iter()
        .flat_map(|(f, t)| test_files(f, &code_of_comments_only(t), files))
        .collect();
    let mut graph = BTreeMap::new();
    for (file, text) in files {
        if tests.contains(file) {
            continue;
        }
        let folder = file
            .strip_suffix("mod.rs")
            .or((file == "lib.rs").then_some(""));
        let mut named: Vec<String> = named_modules(file, &code_of(text))
            .iter()
            .filter_map(|m| file_of(m, files))
            .filter(|target| target != file && !tests.contains(target))
            .filter(|target| folder.is_none_or(|dir| !target.starts_with(dir)))
            .collect();
        named.sort();
        named.dedup();
        graph.insert(file.clone(), named);
    }
    graph
}

/// `text` without comments (test declarations kept, to find the test files).
fn code_of_comments_only(text: &str) -> String {
    text.lines()
        .map(|l| l.find("//").map_or(l, |i| &l[..i]))
        .collect::<Vec<_>>()
        .join("\n")
}

fn layer_of(room: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&room))
}

fn room_of(file: &str) -> &str {
    file.split('/').next().unwrap().trim_end_matches(".rs")
}

/// Each import of a higher layer (or of a room missing from [`LAYERS`]), as a line.
fn upward_imports(graph: &BTreeMap<String, Vec<String>>) -> Vec<String> {
    let mut wrong = Vec::new();
    for (file, targets) in graph {
        if file == "lib.rs" {
            continue;
        }
        let Some(from) = layer_of(room_of(file)) else {
            wrong.push(format!("{file}: room {:?} is in no layer", room_of(file)));
            continue;
        };
        for target in targets {
            match layer_of(room_of(target)) {
                Some(to) if to <= from => {}
                Some(_) => wrong.push(format!("{file} imports {target}, a higher layer")),
                None => wrong.push(format!("{file} imports {target}, in no layer")),
            }
        }
    }
    wrong
}

/// The circles of files that import each other (strongly connected components of more
/// than one file), each sorted.
fn circles(graph: &BTreeMap<String, Vec<String>>) -> Vec<Vec<String>> {
    // Files that reach each other both ways form one circle.
    let reach = |from: &String| {
        let mut seen = vec![from.clone()];
        let mut todo = vec![from.clone()];
        while let Some(f) = todo.pop() {
            for t in graph.get(&f).into_iter().flatten() {
                if !seen.contains(t) {
                    seen.push(t.clone());
                    todo.push(t.clone());
                }
            }
        }
        seen
    };
    let reached: BTreeMap<&String, Vec<String>> = graph.keys().map(|f| (f, reach(f))).collect();
    let mut circles: Vec<Vec<String>> = Vec::new();
    for (file, from_it) in &reached {
        let mut circle: Vec<String> = from_it
            .iter()
            .filter(|other| reached.get(other).is_some_and(|r| r.contains(file)))
            .cloned()
            .collect();
        circle.sort();
        if circle.len() > 1 && !circles.contains(&circle) {
            circles.push(circle);
        }
    }
    circles
}

fn tree(files: &[(&str, &str)]) -> BTreeMap<String, String> {
    files
        .iter()
        .map(|(f, t)| ((*f).to_owned(), (*t).to_owned()))
        .collect()
}

#[test]
fn no_layer_imports_a_higher_one() {
    let graph = graph(&library_sources());
    assert_eq!(upward_imports(&graph), Vec::<String>::new());
}

#[test]
fn no_files_import_each_other_round_a_circle() {
    let graph = graph(&library_sources());
    assert_eq!(circles(&graph), Vec::<Vec<String>>::new());
}

#[test]
fn an_upward_import_is_found_in_use_lines_groups_and_paths() {
    let files = tree(&[
        ("lib.rs", "pub mod game;\npub mod games;\npub mod search;"),
        ("game.rs", "pub trait Game {}"),
        ("games/mod.rs", "pub mod walk;\nuse walk::Walk;"),
        ("games/walk.rs", "use crate::game::Game;\npub struct Walk;"),
        (
            "search/mod.rs",
            "mod order;\n#[cfg(test)]\nmod tests;\nuse crate::{game::{self as g, Game}, games::walk::*};",
        ),
        (
            "search/order.rs",
            "// crate::games::Walk in a comment\nfn f() { let _ = super::super::games::walk::Walk; }",
        ),
        ("search/tests.rs", "use crate::games::walk::Walk;"),
    ]);
    let graph = graph(&files);
    assert_eq!(graph["search/mod.rs"], ["game.rs", "games/walk.rs"]);
    assert!(!graph.contains_key("search/tests.rs"));
    assert!(graph["games/mod.rs"].is_empty(), "a folder's own files");
    assert_eq!(
        upward_imports(&graph),
        [
            "search/mod.rs imports games/walk.rs, a higher layer",
            "search/order.rs imports games/walk.rs, a higher layer"
        ]
    );
}

#[test]
fn a_circle_of_imports_is_found() {
    let files = tree(&[
        ("search/mod.rs", "mod a;\nmod b;"),
        ("search/a.rs", "use super::b::pick;\npub fn next() {}"),
        (
            "search/b.rs",
            "pub fn pick() { crate::search::a::next() }\n#[cfg(test)]\nmod tests { use crate::game::X; }",
        ),
        ("game.rs", "use crate::search::a::next;"),
    ]);
    let graph = graph(&files);
    assert_eq!(graph["search/b.rs"], ["search/a.rs"]);
    assert_eq!(circles(&graph), [["search/a.rs", "search/b.rs"]]);
    assert_eq!(
        upward_imports(&graph),
        ["game.rs imports search/a.rs, a higher layer"]
    );
}
