//! Reading rules: from S-expressions to facts and rules with literals.
//!
//! A top-level expression is a fact (`(succ 1 2)`, `terminal`) or a rule
//! `(<= head literal…)`. Literals are relations (`(cell ?x ?y)`, `open`), `(true f)`,
//! `(does r m)`, `(not l)`, `(distinct a b)` and `(or l…)`. Disjunctions are multiplied
//! out here (with `not` pushed inwards), so the rest of the reasoner sees only conjunctions
//! of positive and negative relations, `distinct` and its negation. Variables (`?x`) and
//! symbols are compared without regard to case.

use super::error::{GdlError, quote};
use super::hash::FastMap;
use super::term::{SymId, Symbols};
use crate::sexpr::Sexpr;

/// Deepest nesting of terms and literals accepted in a rule.
pub(crate) const MAX_RULE_DEPTH: u32 = 64;
/// Most conjunctions one rule may expand to once its `(or …)` literals are multiplied out.
pub(crate) const MAX_ALTERNATIVES: usize = 1024;
/// Most literals in one (expanded) rule body, and most variables in one rule. Real rules
/// have a handful; the limits keep planning, which is quadratic, cheap.
pub(crate) const MAX_LITERALS: usize = 256;
pub(crate) const MAX_VARS: usize = 256;

/// Keywords that name relations with a fixed number of arguments.
const KEYWORD_ARITY: [(&str, usize); 10] = [
    ("role", 1),
    ("init", 1),
    ("next", 1),
    ("legal", 2),
    ("goal", 2),
    ("terminal", 0),
    ("base", 1),
    ("input", 2),
    ("true", 1),
    ("does", 2),
];

/// The keywords that declare a game's fluents and moves, which the rules do not need:
/// the reasoner reads `base` only as a hint of the states' size.
const DECLARATIONS: [&str; 2] = ["base", "input"];

/// Keywords that no rule may define.
const RESERVED_HEADS: [&str; 6] = ["true", "does", "not", "or", "distinct", "<="];

/// A term in a rule: variables are numbered per rule.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum RTerm {
    Var(u32),
    Sym(SymId),
    App(SymId, Vec<RTerm>),
}

impl RTerm {
    pub fn collect_vars(&self, out: &mut Vec<u32>) {
        match self {
            RTerm::Var(v) => out.push(*v),
            RTerm::Sym(_) => {}
            RTerm::App(_, args) => args.iter().for_each(|a| a.collect_vars(out)),
        }
    }
}

/// `(relation args…)`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct RAtom {
    pub pred: SymId,
    pub args: Vec<RTerm>,
}

impl RAtom {
    pub fn collect_vars(&self, out: &mut Vec<u32>) {
        self.args.iter().for_each(|a| a.collect_vars(out));
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Literal {
    Pos(RAtom),
    Neg(RAtom),
    Distinct(RTerm, RTerm),
    /// `(not (distinct a b))`.
    Same(RTerm, RTerm),
}

impl Literal {
    fn negated(self) -> Literal {
        match self {
            Literal::Pos(a) => Literal::Neg(a),
            Literal::Neg(a) => Literal::Pos(a),
            Literal::Distinct(a, b) => Literal::Same(a, b),
            Literal::Same(a, b) => Literal::Distinct(a, b),
        }
    }

    pub fn collect_vars(&self, out: &mut Vec<u32>) {
        match self {
            Literal::Pos(a) | Literal::Neg(a) => a.collect_vars(out),
            Literal::Distinct(a, b) | Literal::Same(a, b) => {
                a.collect_vars(out);
                b.collect_vars(out);
            }
        }
    }
}

/// A fact (empty body) or a rule, after disjunctions have been multiplied out.
#[derive(Clone, Debug)]
pub(crate) struct Rule {
    pub head: RAtom,
    pub body: Vec<Literal>,
    /// Number of distinct variables (numbered `0..vars`).
    pub vars: u32,
    /// The rule's text, shortened, for error messages.
    pub text: String,
}

/// A body formula before `or` is multiplied out.
enum Formula {
    Lit(Literal),
    Not(Box<Formula>),
    Or(Vec<Formula>),
}

/// Reads every fact and rule as written; symbols go into `symbols`. The models read
/// rules through [`super::split::read_rules`], which also splits what needs it.
pub(crate) fn parse_rules(items: &[Sexpr], symbols: &mut Symbols) -> Result<Vec<Rule>, GdlError> {
    let mut rules = Vec::new();
    for item in items.iter().filter(|item| !odd_declaration(item)) {
        let mut p = RuleParser {
            symbols,
            vars: Vec::new(),
            var_ids: FastMap::default(),
            item,
        };
        p.parse(&mut rules)?;
    }
    Ok(rules)
}

/// Whether `name` is one of GDL's keywords that name relations.
pub(crate) fn is_keyword(name: &str) -> bool {
    KEYWORD_ARITY
        .iter()
        .any(|&(k, _)| k.eq_ignore_ascii_case(name))
}

/// Whether `item` is a fact or rule of `base` or `input` with another number of
/// arguments than GDL's. ggp-base's own rule sheets write such declarations in a
/// shorthand of theirs (`(base mark (x 1 2 3) (y 1 2 3) (mark x o))`), and the players
/// built on it accept them, since nothing reads them. They are left out, not refused.
pub(crate) fn odd_declaration(item: &Sexpr) -> bool {
    let head = match item.args() {
        Some([head, ..]) if item.head_is("<=") => head,
        _ => item,
    };
    let (Some(name), Some(args)) = (head.head().and_then(Sexpr::as_atom), head.args()) else {
        return false;
    };
    KEYWORD_ARITY.iter().any(|&(keyword, arity)| {
        DECLARATIONS.contains(&keyword) && name.eq_ignore_ascii_case(keyword) && args.len() != arity
    })
}

struct RuleParser<'a> {
    symbols: &'a mut Symbols,
    /// Variable names (lower case) of the current rule, and their numbers.
    vars: Vec<String>,
    var_ids: FastMap<String, u32>,
    item: &'a Sexpr,
}

impl RuleParser<'_> {
    fn text(&self) -> String {
        quote(self.item)
    }

    fn parse(&mut self, out: &mut Vec<Rule>) -> Result<(), GdlError> {
        let (head, body) = if self.item.head_is("<=") {
            let args = self.item.args().unwrap_or_default();
            match args.split_first() {
                Some((head, body)) => (head, body),
                None => return Err(GdlError::BadRule { rule: self.text() }),
            }
        } else if self.item.is_atom_ci("<=") {
            return Err(GdlError::BadRule { rule: self.text() });
        } else {
            (self.item, &[][..])
        };
        let head = self.head(head)?;
        let mut formulas = Vec::with_capacity(body.len());
        for lit in body {
            formulas.push(self.formula(lit, 0)?);
        }
        let mut alternatives: Vec<Vec<Literal>> = vec![Vec::new()];
        for f in &formulas {
            let options = self.dnf(f, false)?;
            alternatives = self.product(&alternatives, &options)?;
        }
        let text = self.text();
        if alternatives.iter().any(|b| b.len() > MAX_LITERALS) {
            return Err(GdlError::TooLarge {
                rule: text,
                what: "literals",
                limit: MAX_LITERALS,
            });
        }
        for body in alternatives {
            let rule = Rule {
                head: head.clone(),
                body,
                vars: self.vars.len() as u32,
                text: text.clone(),
            };
            self.check_safe(&rule)?;
            out.push(rule);
        }
        Ok(())
    }

    fn check_safe(&self, rule: &Rule) -> Result<(), GdlError> {
        let mut positive = Vec::new();
        let mut needed = Vec::new();
        rule.head.collect_vars(&mut needed);
        for lit in &rule.body {
            match lit {
                Literal::Pos(a) => a.collect_vars(&mut positive),
                other => other.collect_vars(&mut needed),
            }
        }
        // A head variable that nothing binds is bound afterwards by what is asked of its
        // relation ([`super::safety`]). The models ask the keywords for everything but
        // the role of `legal` and `goal`, so elsewhere in their heads nothing binds it.
        let name = self.symbols.name(rule.head.pred);
        let mut head = Vec::new();
        if !is_keyword(name) {
            rule.head.collect_vars(&mut head);
        } else if (name.eq_ignore_ascii_case("legal") || name.eq_ignore_ascii_case("goal"))
            && let Some(RTerm::Var(v)) = rule.head.args.first()
        {
            head.push(*v);
        }
        let mut bound = vec![false; rule.vars as usize];
        for v in positive.into_iter().chain(head) {
            bound[v as usize] = true;
        }
        match needed.iter().find(|&&v| !bound[v as usize]) {
            None => Ok(()),
            Some(&v) => Err(GdlError::Unsafe {
                rule: rule.text.clone(),
                var: format!("?{}", self.vars[v as usize]),
            }),
        }
    }

    /// All conjunctions `a ∧ b` for `a` in `left` and `b` in `right`.
    fn product(
        &self,
        left: &[Vec<Literal>],
        right: &[Vec<Literal>],
    ) -> Result<Vec<Vec<Literal>>, GdlError> {
        if left.len().saturating_mul(right.len()) > MAX_ALTERNATIVES {
            return Err(GdlError::TooManyAlternatives {
                rule: self.text(),
                limit: MAX_ALTERNATIVES,
            });
        }
        let mut out = Vec::with_capacity(left.len() * right.len());
        for a in left {
            for b in right {
                let mut c = a.clone();
                c.extend(b.iter().cloned());
                out.push(c);
            }
        }
        Ok(out)
    }

    /// Disjunctive normal form of `f` (negated if `negated`): a list of conjunctions.
    fn dnf(&self, f: &Formula, negated: bool) -> Result<Vec<Vec<Literal>>, GdlError> {
        match f {
            Formula::Lit(l) => {
                let l = l.clone();
                Ok(vec![vec![if negated { l.negated() } else { l }]])
            }
            Formula::Not(g) => self.dnf(g, !negated),
            Formula::Or(gs) if !negated => {
                let mut out = Vec::new();
                for g in gs {
                    out.extend(self.dnf(g, false)?);
                    if out.len() > MAX_ALTERNATIVES {
                        return Err(GdlError::TooManyAlternatives {
                            rule: self.text(),
                            limit: MAX_ALTERNATIVES,
                        });
                    }
                }
                Ok(out)
            }
            // not (a or b) = (not a) and (not b)
            Formula::Or(gs) => {
                let mut out: Vec<Vec<Literal>> = vec![Vec::new()];
                for g in gs {
                    out = self.product(&out, &self.dnf(g, true)?)?;
                }
                Ok(out)
            }
        }
    }

    fn var_name(s: &str) -> Option<&str> {
        s.strip_prefix('?')
    }

    fn var(&mut self, name: &str) -> Result<u32, GdlError> {
        let key = name.to_ascii_lowercase();
        if let Some(&i) = self.var_ids.get(&key) {
            return Ok(i);
        }
        if self.vars.len() >= MAX_VARS {
            return Err(GdlError::TooLarge {
                rule: self.text(),
                what: "variables",
                limit: MAX_VARS,
            });
        }
        let i = self.vars.len() as u32;
        self.vars.push(key.clone());
        self.var_ids.insert(key, i);
        Ok(i)
    }

    /// Splits `(name args…)` or `name` into the name and the arguments.
    fn split<'s>(&self, s: &'s Sexpr) -> Result<(&'s str, &'s [Sexpr]), GdlError> {
        match s {
            Sexpr::Atom(a) => Ok((a, &[])),
            Sexpr::List(items) => match items.split_first() {
                Some((Sexpr::Atom(name), args)) if Self::var_name(name).is_none() => {
                    Ok((name, args))
                }
                _ => Err(GdlError::BadFunctor {
                    rule: self.text(),
                    found: quote(s),
                }),
            },
        }
    }

    fn check_arity(&self, name: &str, found: usize) -> Result<(), GdlError> {
        for (keyword, expected) in KEYWORD_ARITY {
            if name.eq_ignore_ascii_case(keyword) && found != expected {
                return Err(GdlError::WrongArity {
                    rule: self.text(),
                    keyword: keyword.to_string(),
                    expected,
                    found,
                });
            }
        }
        Ok(())
    }

    fn head(&mut self, s: &Sexpr) -> Result<RAtom, GdlError> {
        if let Some(var) = s.as_atom().filter(|a| a.starts_with('?')) {
            return Err(GdlError::VariableHead {
                rule: self.text(),
                var: var.to_string(),
            });
        }
        if let Some(Sexpr::Atom(var)) = s
            .head()
            .filter(|h| h.as_atom().is_some_and(|a| a.starts_with('?')))
        {
            return Err(GdlError::VariableHead {
                rule: self.text(),
                var: var.clone(),
            });
        }
        let (name, args) = self.split(s)?;
        if let Some(reserved) = RESERVED_HEADS.iter().find(|r| name.eq_ignore_ascii_case(r)) {
            return Err(GdlError::ReservedHead {
                rule: self.text(),
                name: reserved.to_string(),
            });
        }
        self.relation(name, args, 1)
    }

    fn relation(&mut self, name: &str, args: &[Sexpr], depth: u32) -> Result<RAtom, GdlError> {
        self.check_arity(name, args.len())?;
        let pred = self.symbols.intern(name);
        let mut out = Vec::with_capacity(args.len());
        for a in args {
            out.push(self.term(a, depth + 1)?);
        }
        Ok(RAtom { pred, args: out })
    }

    fn too_deep(&self, depth: u32) -> Result<(), GdlError> {
        if depth > MAX_RULE_DEPTH {
            return Err(GdlError::TooDeep {
                rule: self.text(),
                limit: MAX_RULE_DEPTH,
            });
        }
        Ok(())
    }

    fn term(&mut self, s: &Sexpr, depth: u32) -> Result<RTerm, GdlError> {
        self.too_deep(depth)?;
        if let Some(a) = s.as_atom() {
            return Ok(match Self::var_name(a) {
                Some(v) => RTerm::Var(self.var(v)?),
                None => RTerm::Sym(self.symbols.intern(a)),
            });
        }
        let (name, args) = self.split(s)?;
        let f = self.symbols.intern(name);
        if args.is_empty() {
            // `(f)` is read as the symbol `f`.
            return Ok(RTerm::Sym(f));
        }
        let mut out = Vec::with_capacity(args.len());
        for a in args {
            out.push(self.term(a, depth + 1)?);
        }
        Ok(RTerm::App(f, out))
    }

    fn formula(&mut self, s: &Sexpr, depth: u32) -> Result<Formula, GdlError> {
        self.too_deep(depth)?;
        if let Some(var) = s.as_atom().filter(|a| a.starts_with('?')) {
            return Err(GdlError::VariableLiteral {
                rule: self.text(),
                var: var.to_string(),
            });
        }
        let (name, args) = self.split(s)?;
        let arity = |expected: usize| -> Result<(), GdlError> {
            if args.len() == expected {
                Ok(())
            } else {
                Err(GdlError::WrongArity {
                    rule: quote(self.item),
                    keyword: name.to_ascii_lowercase(),
                    expected,
                    found: args.len(),
                })
            }
        };
        if name.eq_ignore_ascii_case("not") {
            arity(1)?;
            return Ok(Formula::Not(Box::new(self.formula(&args[0], depth + 1)?)));
        }
        if name.eq_ignore_ascii_case("or") {
            if args.is_empty() {
                arity(1)?;
            }
            let mut out = Vec::with_capacity(args.len());
            for a in args {
                out.push(self.formula(a, depth + 1)?);
            }
            return Ok(Formula::Or(out));
        }
        if name.eq_ignore_ascii_case("distinct") {
            arity(2)?;
            let a = self.term(&args[0], depth + 1)?;
            let b = self.term(&args[1], depth + 1)?;
            return Ok(Formula::Lit(Literal::Distinct(a, b)));
        }
        if name == "<=" {
            return Err(GdlError::BadRule { rule: self.text() });
        }
        Ok(Formula::Lit(Literal::Pos(
            self.relation(name, args, depth)?,
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<(Vec<Rule>, Symbols), GdlError> {
        let items = Sexpr::parse_all(text)?;
        let mut symbols = Symbols::default();
        let rules = parse_rules(&items, &mut symbols)?;
        Ok((rules, symbols))
    }

    #[test]
    fn declarations_in_ggp_bases_shorthand_are_left_out() {
        let text = "(role x) (base control (player x o)) (base (control x)) \
                    (input x (mark 1)) (input x mark (val 1 2)) \
                    (<= (base cell ?a ?b) (index ?a) (index ?b)) (index 1)";
        let (rules, s) = parse(text).unwrap();
        let heads: Vec<(&str, usize)> = rules
            .iter()
            .map(|r| (s.name(r.head.pred), r.head.args.len()))
            .collect();
        assert_eq!(
            heads,
            [("role", 1), ("base", 1), ("input", 2), ("index", 1)],
            "GDL's own declarations stay"
        );
        // Elsewhere a keyword's arity is still checked.
        assert!(matches!(
            parse("(role x) (init a b)"),
            Err(GdlError::WrongArity { .. })
        ));
    }

    #[test]
    fn facts_and_rules() {
        let (rules, s) = parse("(role white) terminal (<= (p ?X) (q ?x) (not (r ?x)))").unwrap();
        assert_eq!(rules.len(), 3);
        assert_eq!(s.name(rules[0].head.pred), "role");
        assert!(rules[1].head.args.is_empty() && rules[1].body.is_empty());
        let r = &rules[2];
        assert_eq!(r.vars, 1, "?X and ?x are the same variable");
        assert_eq!(r.head.args, vec![RTerm::Var(0)]);
        assert!(matches!(&r.body[1], Literal::Neg(a) if s.name(a.pred) == "r"));
    }

    #[test]
    fn or_is_multiplied_out_and_not_pushed_inwards() {
        let (rules, _) =
            parse("(<= (p ?x) (q ?x) (or (a ?x) (b ?x)) (or (c ?x) (d ?x) (e ?x)))").unwrap();
        assert_eq!(rules.len(), 6);
        let (rules, s) =
            parse("(<= (p ?x) (q ?x) (not (or (a ?x) (not (b ?x)) (distinct ?x 1))))").unwrap();
        assert_eq!(rules.len(), 1);
        let body = &rules[0].body;
        assert!(matches!(&body[1], Literal::Neg(a) if s.name(a.pred) == "a"));
        assert!(matches!(&body[2], Literal::Pos(a) if s.name(a.pred) == "b"));
        assert!(matches!(&body[3], Literal::Same(..)));
    }

    #[test]
    fn empty_compound_is_a_symbol() {
        let (rules, _) = parse("(p (f) (terminal))").unwrap();
        assert!(matches!(rules[0].head.args[0], RTerm::Sym(_)));
    }

    type Check = fn(&GdlError) -> bool;

    #[test]
    fn malformed_rules_are_refused() {
        let cases: [(&str, Check); 15] = [
            ("(<= ?x (p))", |e| {
                matches!(e, GdlError::VariableHead { .. })
            }),
            ("?x", |e| matches!(e, GdlError::VariableHead { .. })),
            ("(?f 1)", |e| matches!(e, GdlError::VariableHead { .. })),
            ("(<= (p) ?x)", |e| {
                matches!(e, GdlError::VariableLiteral { .. })
            }),
            ("(<= (p) (not ?x))", |e| {
                matches!(e, GdlError::VariableLiteral { .. })
            }),
            ("(<= (p) ((q) 1))", |e| {
                matches!(e, GdlError::BadFunctor { .. })
            }),
            ("(<= (p) (q ()))", |e| {
                matches!(e, GdlError::BadFunctor { .. })
            }),
            ("(<= (p) (q (?f 1)))", |e| {
                matches!(e, GdlError::BadFunctor { .. })
            }),
            ("(<=)", |e| matches!(e, GdlError::BadRule { .. })),
            ("(<= (true (x)) (p))", |e| {
                matches!(e, GdlError::ReservedHead { .. })
            }),
            ("(<= (p) (true))", |e| {
                matches!(e, GdlError::WrongArity { .. })
            }),
            ("(<= (p) (distinct 1))", |e| {
                matches!(e, GdlError::WrongArity { .. })
            }),
            ("(legal white)", |e| {
                matches!(e, GdlError::WrongArity { .. })
            }),
            ("(<= (p ?x) (q ?x) (not (r ?y)))", |e| {
                matches!(e, GdlError::Unsafe { .. })
            }),
            ("(<= (p) (q ?x) (distinct ?x ?y))", |e| {
                matches!(e, GdlError::Unsafe { .. })
            }),
        ];
        for (text, check) in cases {
            let err = parse(text)
                .err()
                .unwrap_or_else(|| panic!("{text} was accepted"));
            assert!(check(&err), "{text}: {err}");
            assert!(!err.to_string().is_empty());
        }
        let deep = format!("(p {}x{})", "(f ".repeat(100), ")".repeat(100));
        assert!(matches!(parse(&deep), Err(GdlError::TooDeep { .. })));
        let wide = format!("(<= (p ?x) (q ?x) {})", "(or (a ?x) (b ?x)) ".repeat(11));
        assert!(matches!(
            parse(&wide),
            Err(GdlError::TooManyAlternatives { .. })
        ));
    }
}
