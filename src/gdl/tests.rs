//! The reasoner on small hand-written games.

use super::*;

fn gdl(text: &str) -> Gdl {
    Gdl::parse(text).unwrap_or_else(|e| panic!("{e}"))
}

fn shown(g: &Gdl, terms: &[Term]) -> Vec<String> {
    let mut v: Vec<String> = terms.iter().map(|t| g.display(t)).collect();
    v.sort();
    v
}

fn state_of(g: &Gdl, fluents: &[&str]) -> State {
    State::from_fluents(fluents.iter().map(|f| g.parse_term(f).unwrap()))
}

#[test]
fn recursion_in_fixed_relations_reaches_a_fixpoint() {
    // A cycle a -> b -> c -> a with a tail c -> d, plus mutual recursion even/odd.
    let g = gdl("
        (role r)
        (edge a b) (edge b c) (edge c a) (edge c d)
        (<= (path ?x ?y) (edge ?x ?y))
        (<= (path ?x ?z) (path ?x ?y) (edge ?y ?z))
        (<= (init (reach ?y)) (path b ?y))
        (succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5)
        (even 0)
        (<= (odd ?y) (succ ?x ?y) (even ?x))
        (<= (even ?y) (succ ?x ?y) (odd ?x))
        (<= (init (parity ?x even)) (even ?x))
    ");
    let init = shown(&g, g.initial_state().fluents());
    assert_eq!(
        init,
        [
            "(parity 0 even)",
            "(parity 2 even)",
            "(parity 4 even)",
            "(reach a)",
            "(reach b)",
            "(reach c)",
            "(reach d)"
        ]
    );
}

#[test]
fn recursion_over_the_state() {
    // Which rooms can be reached through open doors (fluents), and which cannot.
    let g = gdl("
        (role walker)
        (room a) (room b) (room c) (room d) (room e)
        (<= (reach a) (room a))
        (<= (reach ?y) (reach ?x) (true (open ?x ?y)))
        (<= (reach ?y) (reach ?x) (true (open ?y ?x)))
        (<= (legal walker (go ?y)) (reach ?y) (distinct ?y a))
        (<= (legal walker (dig ?y)) (room ?y) (not (reach ?y)))
        (<= (next (open ?x ?y)) (true (open ?x ?y)))
        (<= (next (open a ?y)) (does walker (dig ?y)))
    ");
    let s = state_of(&g, &["(open a b)", "(open c b)", "(open d e)"]);
    let legal = shown(&g, &g.legal_moves(&s, 0));
    assert_eq!(legal, ["(dig d)", "(dig e)", "(go b)", "(go c)"]);
    let dig = g.parse_term("(dig e)").unwrap();
    let s2 = g.next_state(&s, &[dig]);
    assert_eq!(s2.len(), 4);
    assert_eq!(
        shown(&g, &g.legal_moves(&s2, 0)),
        ["(go b)", "(go c)", "(go d)", "(go e)"]
    );
    assert!(g.legal_moves(&s2, 1).is_empty(), "no second role");
}

#[test]
fn negation_and_distinct() {
    let g = gdl("
        (role p)
        (item 1) (item 2) (item 3)
        (<= (legal p (take ?x)) (item ?x) (not (true (taken ?x))))
        (<= (legal p (swap ?x ?y)) (item ?x) (item ?y) (distinct ?x ?y) (true (taken ?x)))
        (<= (legal p (same (f ?x))) (item ?x) (not (distinct (f ?x) (f 2))))
        (<= (next (taken ?x)) (true (taken ?x)))
        (<= (next (taken ?x)) (does p (take ?x)))
    ");
    let s = state_of(&g, &["(taken 1)"]);
    assert_eq!(
        shown(&g, &g.legal_moves(&s, 0)),
        [
            "(same (f 2))",
            "(swap 1 2)",
            "(swap 1 3)",
            "(take 2)",
            "(take 3)"
        ]
    );
    let s = g.next_state(&s, &[g.parse_term("(take 3)").unwrap()]);
    assert_eq!(shown(&g, s.fluents()), ["(taken 1)", "(taken 3)"]);
}

#[test]
fn negation_of_a_recursive_relation() {
    let g = gdl("
        (role r)
        (link 1 2) (link 2 3) (link 4 5)
        (node 1) (node 2) (node 3) (node 4) (node 5)
        (<= (conn ?x ?y) (link ?x ?y))
        (<= (conn ?x ?z) (conn ?x ?y) (link ?y ?z))
        (<= (init (apart ?x ?y)) (node ?x) (node ?y) (distinct ?x ?y) (not (conn ?x ?y)) (not (conn ?y ?x)))
    ");
    let init = shown(&g, g.initial_state().fluents());
    assert_eq!(
        init.len(),
        20 - 8,
        "5*4 ordered pairs minus 4 connected pairs both ways"
    );
    assert!(init.contains(&"(apart 1 4)".to_string()));
    assert!(!init.contains(&"(apart 1 3)".to_string()));
}

#[test]
fn or_literals() {
    let g = gdl("
        (role r)
        (thing 1) (thing 2) (thing 3) (thing 4)
        (red 1) (blue 2) (red 3) (blue 3)
        (<= (legal r (pick ?x)) (thing ?x) (or (red ?x) (blue ?x)))
        (<= (legal r (drop ?x)) (thing ?x) (not (or (red ?x) (blue ?x))))
        (<= (legal r (mixed ?x)) (thing ?x) (or (unused ?x) (or (red ?x) (blue ?x))) (not (red ?x)))
    ");
    let legal = shown(&g, &g.legal_moves(&State::default(), 0));
    assert_eq!(
        legal,
        ["(drop 4)", "(mixed 2)", "(pick 1)", "(pick 2)", "(pick 3)"]
    );
}

#[test]
fn zero_arity_relations() {
    let g = gdl("
        (role r)
        (init (count 0))
        (succ 0 1) (succ 1 2)
        (<= (legal r tick) (true (count ?n)))
        (<= (next (count ?m)) (true (count ?n)) (succ ?n ?m))
        (<= over (true (count 2)))
        (<= terminal over)
        (<= (goal r 100) over)
        (<= (goal r 0) (not over))
    ");
    let mut s = g.initial_state();
    let tick = g.parse_term("tick").unwrap();
    for expected in [false, false, true] {
        assert_eq!(g.is_terminal(&s), expected);
        let a = g.analyse(&s);
        assert_eq!(a.terminal, expected);
        assert_eq!(a.goals, vec![Some(if expected { 100 } else { 0 })]);
        assert_eq!(a.legal, vec![vec![tick.clone()]]);
        s = g.next_state(&s, std::slice::from_ref(&tick));
    }
    // A terminal fact makes every state terminal.
    let always = gdl("(role r) terminal (goal r 7) (goal r 8) (goal r high)");
    assert!(always.is_terminal(&State::default()));
    assert_eq!(
        always.goals(&State::default()),
        vec![Some(8)],
        "two goal values: the highest counts"
    );
    let net = Gdl::parse_with(
        "(role r) (init on) (<= terminal (true on)) (goal r 7) (<= (goal r 8) (true on))",
        Engine::Propnet,
    )
    .unwrap();
    assert_eq!(net.engine_name(), "propnet");
    let on = net.initial_state();
    assert_eq!(net.goals(&on), vec![Some(8)], "the network agrees");
    assert_eq!(net.reasoner_only().goals(&on), vec![Some(8)]);
    assert_eq!(net.goals(&State::default()), vec![Some(7)]);
    let words = gdl("(role r) terminal (goal r high)");
    assert_eq!(
        words.goals(&State::default()),
        vec![None],
        "no whole number"
    );
}

#[test]
fn symbols_ignore_case_and_keep_their_first_spelling() {
    let g = gdl("
        (ROLE Robot)
        (<= (LEGAL ?r (Move ?x)) (role ?R) (SPOT ?X))
        (spot North) (spot south)
        (<= (NEXT (at ?x)) (DOES ?r (move ?x)))
        (<= terminal (TRUE (AT south)))
    ");
    assert_eq!(g.display(&g.roles()[0]), "Robot");
    assert_eq!(g.role_index("robot"), Some(0));
    assert_eq!(g.role_index("ROBOT"), Some(0));
    assert_eq!(g.role_index("human"), None);
    let moves = shown(&g, &g.legal_moves(&State::default(), 0));
    assert_eq!(moves, ["(Move North)", "(Move south)"]);
    let m = g.parse_term("(MOVE SOUTH)").unwrap();
    assert_eq!(g.display(&m), "(Move south)");
    let s = g.next_state(&State::default(), &[m]);
    assert!(g.is_terminal(&s));
}

/// Our own tic-tac-toe.
const TIC_TAC_TOE: &str = "
    (role x) (role o)
    (index 1) (index 2) (index 3)
    (<= (base (mark ?i ?j ?p)) (index ?i) (index ?j) (role ?p))
    (<= (base (turn ?p)) (role ?p))
    (init (turn x))
    (<= (free ?i ?j) (index ?i) (index ?j) (not (true (mark ?i ?j x))) (not (true (mark ?i ?j o))))
    (<= (legal ?p (put ?i ?j)) (true (turn ?p)) (free ?i ?j))
    (<= (legal ?p wait) (role ?p) (not (true (turn ?p))))
    (<= (next (mark ?i ?j ?p)) (does ?p (put ?i ?j)))
    (<= (next (mark ?i ?j ?p)) (true (mark ?i ?j ?p)))
    (<= (next (turn o)) (true (turn x)))
    (<= (next (turn x)) (true (turn o)))
    (<= (line ?p) (role ?p) (index ?i) (true (mark ?i 1 ?p)) (true (mark ?i 2 ?p)) (true (mark ?i 3 ?p)))
    (<= (line ?p) (role ?p) (index ?j) (true (mark 1 ?j ?p)) (true (mark 2 ?j ?p)) (true (mark 3 ?j ?p)))
    (<= (line ?p) (true (mark 1 1 ?p)) (true (mark 2 2 ?p)) (true (mark 3 3 ?p)))
    (<= (line ?p) (true (mark 1 3 ?p)) (true (mark 2 2 ?p)) (true (mark 3 1 ?p)))
    (<= open (free ?i ?j))
    (<= terminal (line ?p))
    (<= terminal (not open))
    (<= (goal ?p 100) (line ?p))
    (<= (goal ?p 0) (role ?p) (role ?q) (distinct ?p ?q) (line ?q))
    (<= (goal ?p 50) (role ?p) (not (line x)) (not (line o)))
";

fn play(g: &Gdl, moves: &[&str]) -> State {
    let mut s = g.initial_state();
    let wait = g.parse_term("wait").unwrap();
    for (k, m) in moves.iter().enumerate() {
        assert!(!g.is_terminal(&s), "game over before move {k}");
        let mover = k % 2;
        let m = g.parse_term(m).unwrap();
        assert!(
            g.legal_moves(&s, mover).contains(&m),
            "{} illegal",
            g.display(&m)
        );
        assert_eq!(g.legal_moves(&s, 1 - mover), vec![wait.clone()]);
        assert_eq!(g.legal_moves(&s, mover).len(), 9 - k);
        let joint = if mover == 0 {
            [m, wait.clone()]
        } else {
            [wait.clone(), m]
        };
        s = g.next_state(&s, &joint);
    }
    s
}

#[test]
fn tic_tac_toe() {
    let g = gdl(TIC_TAC_TOE);
    assert_eq!(
        format!("{g:?}"),
        r#"Gdl { roles: ["x", "o"], initial_fluents: 1, .. }"#
    );
    assert_eq!(shown(&g, g.roles()), ["o", "x"]);
    assert_eq!(g.display(&g.roles()[0]), "x");
    let s = g.initial_state();
    assert_eq!(shown(&g, s.fluents()), ["(turn x)"]);
    assert_eq!(g.goals(&s), vec![Some(50), Some(50)]);

    // x wins on the diagonal.
    let s = play(
        &g,
        &[
            "(put 1 1)",
            "(put 1 2)",
            "(put 2 2)",
            "(put 1 3)",
            "(put 3 3)",
        ],
    );
    assert!(g.is_terminal(&s));
    assert_eq!(g.goals(&s), vec![Some(100), Some(0)]);
    // o wins a column.
    let s = play(
        &g,
        &[
            "(put 1 1)",
            "(put 2 1)",
            "(put 3 3)",
            "(put 2 2)",
            "(put 1 2)",
            "(put 2 3)",
        ],
    );
    assert_eq!(g.analyse(&s).goals, vec![Some(0), Some(100)]);
    // A full board without a line is a draw.
    let s = play(
        &g,
        &[
            "(put 1 1)",
            "(put 2 2)",
            "(put 3 3)",
            "(put 1 2)",
            "(put 3 2)",
            "(put 3 1)",
            "(put 1 3)",
            "(put 2 3)",
            "(put 2 1)",
        ],
    );
    let a = g.analyse(&s);
    assert!(a.terminal);
    assert_eq!(a.goals, vec![Some(50), Some(50)]);
    assert_eq!(
        a.legal[1],
        Vec::<Term>::new(),
        "o to move, but the board is full"
    );
}

#[test]
fn terms_not_in_the_rules_are_built_on_the_fly() {
    // A counter that grows a new term every step: (count (s (s … 0))).
    let g = gdl("
        (role r)
        (init (count 0))
        (<= (legal r inc) (true (count ?n)))
        (<= (next (count (s ?n))) (true (count ?n)))
    ");
    let inc = g.parse_term("inc").unwrap();
    let mut s = g.initial_state();
    for _ in 0..5 {
        s = g.next_state(&s, std::slice::from_ref(&inc));
    }
    assert_eq!(shown(&g, s.fluents()), ["(count (s (s (s (s (s 0))))))"]);
    let same = g.parse_term("(count (s (s (s (s (s 0))))))").unwrap();
    assert!(s.contains(&same));
    assert_eq!(g.legal_moves(&s, 0), vec![inc]);
}

#[test]
fn runaway_recursion_stops() {
    // Infinite in the fixed part: refused.
    let err = Gdl::parse("(role r) (nat 0) (<= (nat (s ?x)) (nat ?x))").unwrap_err();
    assert!(matches!(err, GdlError::DerivedTooDeep { .. }), "{err}");
    // Infinite in the state part: the query ends (its answer is cut off).
    let g = gdl("
        (role r)
        (<= (chain ?x) (true (start ?x)))
        (<= (chain (s ?x)) (chain ?x))
        (<= (legal r (go ?x)) (chain ?x))
        (zero 0)
    ");
    let s = state_of(&g, &["(start 0)"]);
    let moves = g.legal_moves(&s, 0);
    assert!(!moves.is_empty() && moves.len() <= 101);
}

type Check = fn(&GdlError) -> bool;

#[test]
fn bad_games_are_refused() {
    let cases: [(&str, Check); 6] = [
        ("(init (cell 1))", |e| matches!(e, GdlError::NoRoles)),
        ("(role a) (<= (p ?x) (q ?x) (not (p ?x))) (q 1)", |e| {
            matches!(e, GdlError::Unstratified { .. })
        }),
        ("(role a) (<= p (not q)) (<= q (not p))", |e| {
            matches!(e, GdlError::Unstratified { .. })
        }),
        ("(role a) (<= (init (x ?y)) (true (x ?y)))", |e| {
            matches!(e, GdlError::NotFixed { .. })
        }),
        ("(<= (role ?r) (true (player ?r)))", |e| {
            matches!(e, GdlError::NotFixed { .. })
        }),
        ("(role a) (legal a", |e| matches!(e, GdlError::Syntax(_))),
    ];
    for (text, check) in cases {
        let err = Gdl::parse(text)
            .err()
            .unwrap_or_else(|| panic!("{text} was accepted"));
        assert!(check(&err), "{text}: {err}");
    }
}

#[test]
fn reading_terms() {
    let g = gdl(TIC_TAC_TOE);
    assert!(matches!(g.parse_term("(put 4 1)"), Err(GdlError::UnknownSymbol(s)) if s == "4"));
    assert!(matches!(
        g.parse_term("(put ?x 1)"),
        Err(GdlError::NotATerm { .. })
    ));
    assert!(matches!(
        g.parse_term("((put) 1)"),
        Err(GdlError::NotATerm { .. })
    ));
    assert!(matches!(g.parse_term("()"), Err(GdlError::NotATerm { .. })));
    let deep = format!("{}1{}", "(put ".repeat(200), ")".repeat(200));
    assert!(matches!(
        g.parse_term(&deep),
        Err(GdlError::NotATerm { .. })
    ));
    // A term the rules never derive still reads, and moves are not checked for legality.
    let odd = g.parse_term("(put (put 1 1) x)").unwrap();
    assert_eq!(g.display(&odd), "(put (put 1 1) x)");
    assert_eq!(
        g.term_to_sexpr(&odd),
        Sexpr::parse("(put (put 1 1) x)").unwrap()
    );
    let s = g.next_state(&g.initial_state(), &[odd.clone(), odd]);
    assert_eq!(
        shown(&g, s.fluents()),
        ["(mark (put 1 1) x o)", "(mark (put 1 1) x x)", "(turn o)"]
    );
}

#[test]
fn gdl_is_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<Gdl>();
    check::<State>();
    check::<Term>();
}

/// Small deterministic xorshift generator for the randomised tests.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

/// Random stratified programs, checked against a naive reference evaluation.
mod random_programs {
    use super::*;
    use std::collections::BTreeSet;

    const CONSTS: [&str; 4] = ["a", "b", "c", "d"];
    const VARS: [&str; 3] = ["?x", "?y", "?z"];

    #[derive(Clone, Copy, Debug)]
    enum Arg {
        Var(usize),
        Const(usize),
    }

    /// An atom; relation "e" is the fluent `(true (e …))`.
    type Atom = (String, Vec<Arg>);

    #[derive(Clone, Debug)]
    enum Lit {
        Pos(Atom),
        Neg(Atom),
        Distinct(Arg, Arg),
        /// A disjunction of unary atoms over the same argument.
        Or(Vec<Atom>),
    }

    struct Rule {
        head: Atom,
        body: Vec<Lit>,
    }

    fn arg_text(a: Arg) -> String {
        match a {
            Arg::Var(v) => VARS[v].to_string(),
            Arg::Const(c) => CONSTS[c].to_string(),
        }
    }

    fn atom_text((rel, args): &Atom) -> String {
        let args: Vec<String> = args.iter().map(|&a| arg_text(a)).collect();
        let inner = format!("({rel} {})", args.join(" "));
        if rel == "e" {
            format!("(true {inner})")
        } else {
            inner
        }
    }

    fn lit_text(l: &Lit) -> String {
        match l {
            Lit::Pos(a) => atom_text(a),
            Lit::Neg(a) => format!("(not {})", atom_text(a)),
            Lit::Distinct(a, b) => format!("(distinct {} {})", arg_text(*a), arg_text(*b)),
            Lit::Or(atoms) => {
                let parts: Vec<String> = atoms.iter().map(atom_text).collect();
                format!("(or {})", parts.join(" "))
            }
        }
    }

    fn random_arg(rng: &mut Rng, vars: &[usize]) -> Arg {
        if !vars.is_empty() && rng.chance(80) {
            Arg::Var(vars[rng.below(vars.len())])
        } else {
            Arg::Const(rng.below(CONSTS.len()))
        }
    }

    fn vars_of(args: &[Arg], out: &mut Vec<usize>) {
        for a in args {
            if let Arg::Var(v) = a
                && !out.contains(v)
            {
                out.push(*v);
            }
        }
    }

    /// Relations p0…p4; p_i uses p_j (j ≤ i) positively and p_j (j < i) negatively.
    fn program(rng: &mut Rng) -> (Vec<usize>, Vec<Rule>) {
        let arity: Vec<usize> = (0..5).map(|_| 1 + rng.below(2)).collect();
        let mut rules = Vec::new();
        for i in 0..5 {
            for _ in 0..1 + rng.below(3) {
                let mut pos: Vec<(String, usize)> = vec![("e".into(), 2), ("k".into(), 1)];
                pos.extend((0..=i).map(|j| (format!("p{j}"), arity[j])));
                let neg: Vec<(String, usize)> = pos
                    .iter()
                    .filter(|(r, _)| *r != format!("p{i}"))
                    .cloned()
                    .collect();
                let mut body = Vec::new();
                let mut bound = Vec::new();
                for _ in 0..1 + rng.below(2) {
                    let (rel, n) = pos[rng.below(pos.len())].clone();
                    let args: Vec<Arg> = (0..n)
                        .map(|_| {
                            if rng.chance(80) {
                                Arg::Var(rng.below(3))
                            } else {
                                Arg::Const(rng.below(4))
                            }
                        })
                        .collect();
                    vars_of(&args, &mut bound);
                    body.push(Lit::Pos((rel, args)));
                }
                let unary: Vec<String> = pos
                    .iter()
                    .filter(|(_, n)| *n == 1)
                    .map(|(r, _)| r.clone())
                    .collect();
                if unary.len() >= 2 && rng.chance(30) {
                    let v = Arg::Var(rng.below(3));
                    let a = unary[rng.below(unary.len())].clone();
                    let b = unary[rng.below(unary.len())].clone();
                    body.push(Lit::Or(vec![(a, vec![v]), (b, vec![v])]));
                    vars_of(&[v], &mut bound);
                }
                if rng.chance(50) {
                    let (rel, n) = neg[rng.below(neg.len())].clone();
                    let args = (0..n).map(|_| random_arg(rng, &bound)).collect();
                    body.push(Lit::Neg((rel, args)));
                }
                if rng.chance(30) {
                    body.push(Lit::Distinct(
                        random_arg(rng, &bound),
                        random_arg(rng, &bound),
                    ));
                }
                // Mix the order of the literals; the reasoner plans its own.
                for k in (1..body.len()).rev() {
                    body.swap(k, rng.below(k + 1));
                }
                let head_args = (0..arity[i]).map(|_| random_arg(rng, &bound)).collect();
                rules.push(Rule {
                    head: (format!("p{i}"), head_args),
                    body,
                });
            }
        }
        (arity, rules)
    }

    type Facts = BTreeSet<(String, Vec<usize>)>;

    fn ground(args: &[Arg], env: &[usize]) -> Vec<usize> {
        args.iter()
            .map(|a| match *a {
                Arg::Var(v) => env[v],
                Arg::Const(c) => c,
            })
            .collect()
    }

    fn holds(l: &Lit, env: &[usize], facts: &Facts) -> bool {
        let has = |(rel, args): &Atom| facts.contains(&(rel.clone(), ground(args, env)));
        match l {
            Lit::Pos(a) => has(a),
            Lit::Neg(a) => !has(a),
            Lit::Distinct(a, b) => ground(&[*a], env) != ground(&[*b], env),
            Lit::Or(atoms) => atoms.iter().any(has),
        }
    }

    /// Naive bottom-up evaluation: every assignment of the three variables, stratum by
    /// stratum, until nothing changes.
    fn reference(rules: &[Rule], mut facts: Facts) -> Facts {
        for i in 0..5 {
            let name = format!("p{i}");
            loop {
                let before = facts.len();
                for r in rules.iter().filter(|r| r.head.0 == name) {
                    for n in 0..64 {
                        let env = [n % 4, n / 4 % 4, n / 16];
                        if r.body.iter().all(|l| holds(l, &env, &facts)) {
                            facts.insert((name.clone(), ground(&r.head.1, &env)));
                        }
                    }
                }
                if facts.len() == before {
                    break;
                }
            }
        }
        facts
    }

    #[test]
    fn random_programs_agree_with_naive_evaluation() {
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let mut derived = 0;
        for round in 0..400 {
            let (arity, rules) = program(&mut rng);
            let mut text = String::from("(role r)\n(const a) (const b) (const c) (const d)\n");
            text += "(<= (base (e ?x ?y)) (const ?x) (const ?y))\n";
            let mut facts = Facts::new();
            for (c, name) in CONSTS.iter().enumerate() {
                if rng.chance(50) {
                    text += &format!("(k {name})\n");
                    facts.insert(("k".into(), vec![c]));
                }
            }
            for r in &rules {
                let body: Vec<String> = r.body.iter().map(lit_text).collect();
                text += &format!("(<= {} {})\n", atom_text(&r.head), body.join(" "));
            }
            for (i, &n) in arity.iter().enumerate() {
                let vars = VARS[..n].join(" ");
                text += &format!("(<= (legal r (out{i} {vars})) (p{i} {vars}))\n");
            }
            let g = Gdl::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
            for _ in 0..3 {
                let mut edges = facts.clone();
                let mut fluents = Vec::new();
                for (x, xn) in CONSTS.iter().enumerate() {
                    for (y, yn) in CONSTS.iter().enumerate() {
                        if rng.chance(30) {
                            edges.insert(("e".into(), vec![x, y]));
                            fluents.push(g.parse_term(&format!("(e {xn} {yn})")).unwrap());
                        }
                    }
                }
                let expected: Vec<String> = reference(&rules, edges)
                    .into_iter()
                    .filter_map(|(rel, args)| {
                        let i = rel.strip_prefix('p')?;
                        let args: Vec<&str> = args.iter().map(|&c| CONSTS[c]).collect();
                        Some(format!("(out{i} {})", args.join(" ")))
                    })
                    .collect::<BTreeSet<_>>()
                    .into_iter()
                    .collect();
                let state = State::from_fluents(fluents);
                let got = shown(&g, &g.legal_moves(&state, 0));
                assert_eq!(got, expected, "round {round}\n{text}");
                derived += got.len();
            }
        }
        assert!(derived > 2000, "the programs derive something ({derived})");
    }
}

/// Random S-expressions made of GDL keywords: compiling never panics, and neither do
/// queries on whatever compiles.
#[test]
fn random_rules_never_panic() {
    const WORDS: [&str; 22] = [
        "role", "init", "true", "does", "next", "legal", "goal", "terminal", "not", "or",
        "distinct", "<=", "?x", "?y", "a", "b", "1", "100", "p", "q", "base", "input",
    ];
    fn expr(rng: &mut Rng, depth: u32) -> String {
        if depth == 0 || rng.chance(30) {
            return WORDS[rng.below(WORDS.len())].to_string();
        }
        let n = rng.below(5);
        let items: Vec<String> = (0..n).map(|_| expr(rng, depth - 1)).collect();
        format!("({})", items.join(" "))
    }
    const HEADS: [&str; 9] = [
        "(p ?x)",
        "(q ?x ?y)",
        "(legal a ?x)",
        "(legal b (p ?x))",
        "(next (q ?x ?y))",
        "(next (p a))",
        "(init (q a b))",
        "terminal",
        "(goal ?x 100)",
    ];
    const LITERALS: [&str; 12] = [
        "(p ?x)",
        "(q ?x ?y)",
        "(true (q ?x ?y))",
        "(not (p ?y))",
        "(distinct ?x ?y)",
        "(or (p ?x) (q ?x ?x))",
        "(does a ?x)",
        "(p a)",
        "(q 1 ?y)",
        "(role ?x)",
        "(true (p ?x))",
        "(not (true (q ?y ?x)))",
    ];
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut compiled = 0;
    for _ in 0..5000 {
        let mut text = String::from("(role a) (role b) (p a) (q a b) (init (p b)) ");
        for _ in 0..1 + rng.below(6) {
            let structured = rng.chance(92);
            let head = if structured {
                HEADS[rng.below(HEADS.len())].to_string()
            } else {
                expr(&mut rng, 2)
            };
            let body: Vec<String> = (0..rng.below(4))
                .map(|_| {
                    if structured && rng.chance(80) {
                        LITERALS[rng.below(LITERALS.len())].to_string()
                    } else {
                        expr(&mut rng, 3)
                    }
                })
                .collect();
            text += &format!("(<= {head} {})\n", body.join(" "));
            if rng.chance(5) {
                text += &expr(&mut rng, 3);
            }
        }
        // Mostly unsafe rules and keywords with the wrong number of arguments.
        let Ok(g) = Gdl::parse(&text) else {
            continue;
        };
        compiled += 1;
        let mut s = g.initial_state();
        for _ in 0..3 {
            let a = g.analyse(&s);
            let joint: Vec<Term> = a.legal.iter().filter_map(|m| m.first().cloned()).collect();
            for t in s.fluents().iter().chain(&joint) {
                let back = g.term_from_sexpr(&g.term_to_sexpr(t)).unwrap();
                assert_eq!(&back, t);
            }
            s = g.next_state(&s, &joint);
            let _ = (g.is_terminal(&s), g.goals(&s));
        }
    }
    assert!(compiled > 300, "only {compiled} compiled");
}

#[test]
fn large_descriptions_compile_quickly() {
    let start = std::time::Instant::now();
    let mut text = String::from("(role r)\n");
    for i in 0..30_000 {
        text += &format!("(num n{i}) (link n{i} n{}) ", i + 1);
    }
    text += "(<= (init (pair ?x ?y)) (link ?x ?y) (num ?y))\n";
    text += "(<= (legal r (go ?y)) (true (pair n5 ?y)))\n";
    for i in 0..2_000 {
        text += &format!(
            "(<= (rel{i} ?x) (num ?x) (link ?x n{i}))\n(<= (legal r (r{i} ?x)) (rel{i} ?x))\n"
        );
    }
    let g = gdl(&text);
    assert_eq!(g.initial_state().len(), 29_999);
    let legal = shown(&g, &g.legal_moves(&g.initial_state(), 0));
    assert_eq!(
        legal.len(),
        1 + 1999,
        "(go n6) and (r{{i}} n{{i-1}}) for i ≥ 1"
    );
    assert!(legal.contains(&"(go n6)".to_string()));
    assert!(start.elapsed().as_secs() < 20, "took {:?}", start.elapsed());
}

/// A game of one role with `n` numbers and the rule `rule` over them.
fn numbers_and(n: usize, rule: &str) -> String {
    let nums: String = (0..n).map(|i| format!("(num n{i}) ")).collect();
    format!("(role r)\n{nums}\n{rule}\n")
}

#[test]
fn huge_joins_are_refused() {
    // 2000 x 2000 x 2000 candidate combinations: more work than the step budget allows.
    let text = numbers_and(
        2000,
        "(<= (triple ?x ?y ?z) (num ?x) (num ?y) (num ?z) (distinct ?z ?z))",
    );
    let start = std::time::Instant::now();
    let Err(err) = Gdl::parse(&text) else {
        panic!("accepted");
    };
    assert!(matches!(err, GdlError::TooManyFacts { .. }), "{err}");
    assert!(start.elapsed().as_secs() < 30, "took {:?}", start.elapsed());
}

#[test]
fn fixed_relations_stop_at_their_deadline() {
    // 400 x 400 pairs: well over one look at the clock's worth of join steps.
    let text = numbers_and(400, "(<= (pair ?x ?y) (num ?x) (num ?y))");
    let mut symbols = super::term::Symbols::default();
    let rules = super::split::read_rules(&Sexpr::parse_all(&text).unwrap(), &mut symbols).unwrap();
    let compile = |deadline| prover::Program::from_rules(rules.clone(), symbols.clone(), deadline);
    let past = Some(std::time::Instant::now());
    assert!(matches!(compile(past), Err(GdlError::OutOfTime)));
    let later = Some(std::time::Instant::now() + std::time::Duration::from_secs(600));
    assert!(compile(later).is_ok());
}

#[test]
fn a_network_not_built_by_the_deadline_leaves_the_reasoner_in_charge() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/gdl/tictactoe.gdl"));
    let rules = Sexpr::parse_all(&text.unwrap()).unwrap();
    let mut g = Gdl::from_sexprs(&rules).unwrap();
    let now = Some(std::time::Instant::now());
    let why = g.use_engine(Engine::Auto, now).unwrap();
    assert!(why.is_some_and(|w| w.contains("time allowed")));
    assert_eq!(g.engine_name(), "reasoner");
    assert!(g.use_engine(Engine::Propnet, now).is_err());
    let later = Some(std::time::Instant::now() + std::time::Duration::from_secs(600));
    assert_eq!(g.use_engine(Engine::Auto, later), Ok(None));
    assert_eq!(g.engine_name(), "propnet");
}

/// Plays `games` random games by the rules rewritten to compute relations only where
/// asked for ([`super::demand`]) and checks every answer against the rules as written,
/// compared as text; returns the states compared (none if there was nothing to rewrite).
fn agrees_as_written(text: &str, games: usize) -> usize {
    let items = Sexpr::parse_all(text).unwrap();
    let (written, rewritten) = prover::Program::compile_both(&items).unwrap();
    let Some(rewritten) = rewritten else {
        return 0;
    };
    let read = Gdl::from_program(rewritten).unwrap();
    let written = Gdl::from_program(written).unwrap();
    same_answers(&read, &written, games)
}

/// Plays `games` random games by `read` and checks every answer against `written`'s,
/// compared as text; returns the states compared.
fn same_answers(read: &Gdl, written: &Gdl, games: usize) -> usize {
    let translate = |s: &State| -> State {
        State::from_fluents(
            s.fluents()
                .iter()
                .map(|f| written.parse_term(&read.display(f)).unwrap()),
        )
    };
    let moves = |g: &Gdl, legal: &[Vec<Term>]| -> Vec<Vec<String>> {
        legal.iter().map(|ms| shown(g, ms)).collect()
    };
    let mut rng = crate::rng::seeded(Some(7));
    let mut states = 0;
    for game in 0..games {
        let mut state = read.initial_state();
        assert_eq!(
            shown(read, state.fluents()),
            shown(written, written.initial_state().fluents())
        );
        for ply in 0..MAX_COMPARED_STEPS {
            let (a, b) = (read.analyse(&state), written.analyse(&translate(&state)));
            let at = format!("game {game}, ply {ply}");
            assert_eq!(a.terminal, b.terminal, "{at}: terminal");
            assert_eq!(a.goals, b.goals, "{at}: goals");
            assert_eq!(moves(read, &a.legal), moves(written, &b.legal), "{at}");
            states += 1;
            if a.terminal || a.legal.iter().any(Vec::is_empty) {
                break;
            }
            let joint = super::compare::random_joint(&a.legal, &mut rng);
            let joint_written: Vec<Term> = joint
                .iter()
                .map(|m| written.parse_term(&read.display(m)).unwrap())
                .collect();
            let next = read.next_state(&state, &joint);
            let expected = written.next_state(&translate(&state), &joint_written);
            assert_eq!(
                shown(read, next.fluents()),
                shown(written, expected.fluents()),
                "{at}: next state"
            );
            state = next;
        }
    }
    states
}

#[test]
fn relations_computed_where_asked_for_give_the_answers_of_the_rules_as_written() {
    let states = agrees_as_written(&super::demand::tests::tally_game(8, 16), 30);
    assert!(states > 30 * 4, "{states} states");
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/gdl");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            !name.starts_with("breakthrough_") || name == "breakthrough_5x5.gdl"
        })
        .collect();
    files.sort();
    assert!(files.len() >= 12, "{files:?}");
    let mut rewritten = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        if agrees_as_written(&text, 5) > 0 {
            rewritten.push(file.file_name().unwrap().to_string_lossy().into_owned());
        }
    }
    assert!(rewritten.len() >= 3, "{rewritten:?}");
}

#[test]
fn a_tally_walked_from_its_start_is_grounded_where_as_written_it_was_too_large() {
    // As written, assuming every fluent, the walk's tallies would be every pit with
    // every pair of tallies at its start and at its end: 24 x 49^4, over a hundred
    // million facts. Asked for from the first pit, they are a few tens of thousands.
    let text = super::demand::tests::tally_game(24, 48);
    let g = Gdl::parse_with(&text, Engine::Propnet).unwrap_or_else(|e| panic!("{e}"));
    assert!(g.prog.demand(), "the rules as rewritten are chosen");
    // As written, one state's tallies are
    // every pair of counts at every pit.
    let (written, rewritten) = prover::Program::compile_both(&Sexpr::parse_all(&text).unwrap())
        .unwrap_or_else(|e| panic!("{e}"));
    let after = rewritten.unwrap().work_on_a_walk(u64::MAX);
    let before = written.work_on_a_walk(u64::MAX);
    assert!(after * 10 < before, "{after} against {before}");
    // A walk stops soon after its cap.
    assert!(written.work_on_a_walk(after) < before / 2);
    let mut rng = crate::rng::seeded(Some(3));
    let compared = g.compare_with_reasoner(3, &mut rng).unwrap();
    assert_eq!(compared.terminal, 3);
}

/// A bidding war: each round both roles bid at most their points, both lose the lower
/// bid, and the higher bidder takes a flag; after three rounds the most flags win. With
/// `safe` false, several rules leave a head variable unbound, as published games do;
/// asking for them binds each, unless the flags are also `totalled` (which reads `plus`
/// with its first and last arguments free).
fn bidding_war(safe: bool, totalled: bool) -> String {
    let unbound = |rule: &str, range: &str| -> String {
        if safe {
            rule.replacen("(succ 0 1)", range, 1)
        } else {
            rule.to_owned()
        }
    };
    let mut g = String::from(
        "(role white) (role black)
        (init (points white 5)) (init (points black 5)) (init (round 0))
        (init (flags white 0)) (init (flags black 0))
        (<= (legal ?p (bid ?n)) (true (points ?p ?s)) (atmost ?n ?s))
        (<= (legal ?p pass) (role ?p) (not (solvent ?p)))
        (<= (atmost ?x ?y) (succ ?z ?y) (atmost ?x ?z))
        (<= (least ?a ?b ?a) (less ?a ?b))
        (<= (least ?b ?a ?a) (less ?a ?b))
        (<= (less ?x ?y) (succ ?x ?y))
        (<= (less ?x ?z) (succ ?x ?y) (less ?y ?z))
        (<= (plus ?x ?y ?z) (succ ?y0 ?y) (succ ?z0 ?z) (plus ?x ?y0 ?z0))
        (<= (next (points ?p ?t)) (does white (bid ?a)) (does black (bid ?b))
            (least ?a ?b ?m) (true (points ?p ?s)) (plus ?t ?m ?s))
        (<= (next (points ?p ?s)) (true (points ?p ?s)) (does ?q pass))
        (<= (gains ?p) (does ?p (bid ?a)) (does ?q (bid ?b)) (less ?b ?a))
        (<= (next (flags ?p ?g)) (gains ?p) (true (flags ?p ?f)) (succ ?f ?g))
        (<= (next (flags ?p ?f)) (true (flags ?p ?f)) (not (gains ?p)))
        (<= (next (round ?m)) (true (round ?n)) (succ ?n ?m))
        (<= terminal (true (round 3)))
        (<= decided (true (flags ?p ?f)) (true (flags ?q ?g)) (less ?g ?f))
        (<= (goal ?p 100) (true (flags ?p ?f)) (true (flags ?q ?g)) (less ?g ?f))
        (<= (goal ?p 0) (true (flags ?p ?f)) (true (flags ?q ?g)) (less ?f ?g))
        ",
    );
    for (rule, range) in [
        ("(<= (atmost ?x ?x) (succ 0 1))", "(number ?x)"),
        ("(<= (least ?a ?a ?a) (succ 0 1))", "(number ?a)"),
        ("(<= (plus ?x 0 ?x) (succ 0 1))", "(number ?x)"),
        ("(<= (goal ?p 50) (succ 0 1) (not decided))", "(role ?p)"),
        (
            "(<= (solvent ?p) (succ 0 1) (not (true (points ?p 0))))",
            "(role ?p)",
        ),
    ] {
        g += &unbound(rule, range);
    }
    if totalled {
        g += "(init (total 0)) (<= (next (total ?t)) (true (flags white ?f))
            (true (flags black ?g)) (plus ?f ?g ?t))";
    }
    for n in 0..=9 {
        g += &format!(" (number {n}) (succ {n} {})", n + 1);
    }
    g
}

#[test]
fn head_variables_that_nothing_binds_range_over_the_roles_and_the_rules_terms() {
    for totalled in [false, true] {
        let safe = Gdl::parse_with(&bidding_war(true, totalled), Engine::Reasoner).unwrap();
        let text = bidding_war(false, totalled);
        let items = Sexpr::parse_all(&text).unwrap();
        let (first, second) = prover::Program::compile_both(&items).unwrap();
        // Asked for, every variable is bound, and the rules as written (over every
        // term) are not compiled; with the totals, some variable ranges over the terms.
        assert_eq!(second.is_none(), !totalled);
        assert_eq!(first.demand(), !totalled);
        for engine in [Engine::Reasoner, Engine::Propnet] {
            let g = Gdl::parse_with(&text, engine).unwrap_or_else(|e| panic!("{e}"));
            let expected = match engine {
                Engine::Reasoner => "reasoner",
                _ => "propnet",
            };
            assert_eq!(g.engine_name(), expected);
            let states = same_answers(&g, &safe, 30);
            assert!(states >= 30 * 4, "{states} states");
        }
    }
    // A variable in a negation or a `distinct` that neither the head nor a positive
    // literal binds is still refused, and so is one in a move or a fluent of a
    // keyword's head: no query binds it.
    for rule in [
        "(<= (p ?x) (q ?x) (not (r ?y)))",
        "(<= (p ?x) (q ?x) (distinct ?x ?y))",
        "(<= (legal a ?m) (q 1))",
        "(<= (next (s ?x)) (q 1))",
    ] {
        let err = Gdl::parse(&format!("(role a) (q 1) (r 2) {rule}")).unwrap_err();
        assert!(matches!(err, GdlError::Unsafe { .. }), "{rule}: {err}");
    }
}

/// A robot may always give up, and may go on while a chain of `links` prerequisites
/// holds: link k holds over every k-bit pattern whose last bit is 0, either in step k
/// or by the next link with a 0 added. Bottom-up, as written, link k joins its 2^k
/// patterns before it looks at the step; asked for from the first link, one pattern.
fn prerequisite_chain(links: usize) -> String {
    let mut g = String::from(
        "(role robot) (init (step 1)) (bit 0) (bit 1) (legal robot giveup)
        (<= (legal robot continue) (link1 0))
        (<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))
        (<= (next over) (does robot giveup))
        (<= terminal (true over))
        (<= (goal robot 100) (true over))
        (<= (goal robot 0) (not (true over)))
        ",
    );
    for k in 1..=links {
        let bits: Vec<String> = (0..k).rev().map(|b| format!("?b{b}")).collect();
        let bits = bits.join(" ");
        let each: String = (0..k).map(|b| format!("(bit ?b{b}) ")).collect();
        g += &format!("(<= (link{k} {bits}) {each}(true (step {k})))\n");
        if k < links {
            g += &format!(
                "(<= (link{k} {bits}) {each}(not (true (step {k}))) (not (distinct ?b0 0))
                    (link{} {bits} 0))\n",
                k + 1
            );
        }
        g += &format!("(succ {k} {}) ", k + 1);
    }
    g + &format!("(<= terminal (true (step {links})))")
}

#[test]
fn what_is_asked_for_is_read_first_and_a_walk_stops_inside_an_evaluation() {
    let text = prerequisite_chain(24);
    let items = Sexpr::parse_all(&text).unwrap();
    let (written, rewritten) = prover::Program::compile_both(&items).unwrap();
    // Read first, what is asked of a link binds its bits: a few facts a link. Read after
    // the bits, each link would join 2^k patterns, tens of millions in all.
    let after = rewritten.expect("rewritten").work_on_a_walk(u64::MAX);
    assert!(after < 100_000, "{after}");
    // The rules as written would take the evaluation's whole budget of join steps; the
    // walk stops at its cap.
    let capped = written.work_on_a_walk(after);
    assert!(
        capped < 2 * after + 1_000,
        "{capped} against a cap of {after}"
    );
    let g = Gdl::parse(&text).unwrap();
    assert!(g.prog.demand());
    let mut state = g.initial_state();
    for _ in 1..24 {
        assert_eq!(shown(&g, &g.legal_moves(&state, 0)), ["continue", "giveup"]);
        let go_on = g.parse_term("continue").unwrap();
        state = g.next_state(&state, &[go_on]);
    }
    assert!(g.is_terminal(&state));
}

#[test]
fn a_race_counts_every_step_and_the_reasoner_must_be_clearly_faster() {
    // Every game is three ticks long: a playout asks four times, the end included.
    let text = "(role r) (init (at 0)) (succ 0 1) (succ 1 2) (succ 2 3)
        (<= (next (at ?y)) (true (at ?x)) (succ ?x ?y)) (legal r tick)
        (<= terminal (true (at 3))) (goal r 100)";
    let mut g = Gdl::parse_with(text, Engine::Propnet).unwrap();
    for model in [g.clone(), g.reasoner_only()] {
        let time = std::time::Duration::from_millis(50);
        let (done, steps, _) =
            super::speed::playing_for(&model, time, &mut crate::rng::seeded(Some(1)));
        assert!(
            steps >= 4 * done && steps <= 4 * (done + 1),
            "{} playouts, {steps} steps",
            done
        );
    }
    let race = |reasoner, network| Race { reasoner, network }.reasoner_wins();
    assert!(race(15.0, 10.0) && race(1.0, 0.0));
    assert!(!race(14.9, 10.0) && !race(0.0, 0.0) && !race(10.0, 15.0));
    let why = Race {
        reasoner: 3.0,
        network: 1.0,
    }
    .why_not_the_network();
    assert!(
        why.contains("made 1 steps a second by the network, 3 by the reasoner"),
        "{why}"
    );
    // No race without a network, or without the time for one; the network stays.
    assert_eq!(g.keep_the_faster(std::time::Duration::from_millis(1)), None);
    assert_eq!(g.engine_name(), "propnet");
    assert_eq!(g.reasoner_only().keep_the_faster(RACE_TIME), None);
}
