//! Why a game description was refused, or a term could not be read.

use crate::sexpr::ParseError;

/// Longest rule text quoted in an error message.
const QUOTE_LIMIT: usize = 160;

/// Shortens the text of a rule for an error message.
pub(crate) fn quote(text: impl std::fmt::Display) -> String {
    let s = text.to_string();
    if s.len() <= QUOTE_LIMIT {
        return s;
    }
    let mut end = QUOTE_LIMIT;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{} …", &s[..end])
}

/// A game description that cannot be played, or a term that is not one of the game's.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GdlError {
    #[error("cannot read the rules: {0}")]
    Syntax(#[from] ParseError),
    #[error("in {rule}: the head of a rule must be a relation, not the variable {var}")]
    VariableHead { rule: String, var: String },
    #[error("no propositional network: {0}")]
    Propnet(String),
    #[error("in {rule}: '{name}' is a GDL keyword and cannot be defined by a rule")]
    ReservedHead { rule: String, name: String },
    #[error("in {rule}: expected a literal, found the variable {var}")]
    VariableLiteral { rule: String, var: String },
    #[error("in {rule}: {found} must start with a symbol (relation or function name)")]
    BadFunctor { rule: String, found: String },
    #[error("in {rule}: '{keyword}' takes {expected} argument(s), found {found}")]
    WrongArity {
        rule: String,
        keyword: String,
        expected: usize,
        found: usize,
    },
    #[error("in {rule}: a rule is written (<= head literal…)")]
    BadRule { rule: String },
    #[error(
        "in {rule}: the variable {var} must also occur in a positive literal of the body (unsafe rule)"
    )]
    Unsafe { rule: String, var: String },
    #[error(
        "in {rule}: '{relation}' is negated inside its own recursion, so the rules are not stratified"
    )]
    Unstratified { rule: String, relation: String },
    #[error("in {rule}: terms nested deeper than {limit} levels")]
    TooDeep { rule: String, limit: u32 },
    #[error("in {rule}: the (or …) literals expand to more than {limit} rules")]
    TooManyAlternatives { rule: String, limit: usize },
    #[error("in {rule}: more than {limit} {what} in one rule")]
    TooLarge {
        rule: String,
        what: &'static str,
        limit: usize,
    },
    #[error("the rules define no (role …)")]
    NoRoles,
    #[error("'{relation}' depends on the state (true or does), but it must be fixed")]
    NotFixed { relation: String },
    #[error(
        "the state-independent relations are too large to compute (more than {facts} facts or {steps} join steps; unbounded recursion?)"
    )]
    TooManyFacts { facts: usize, steps: u64 },
    #[error("the state-independent relations were not computed in the time allowed")]
    OutOfTime,
    #[error("'{relation}' derives terms nested deeper than {limit} levels (unbounded recursion?)")]
    DerivedTooDeep { relation: String, limit: u32 },
    #[error("'{0}' is not a symbol of these rules")]
    UnknownSymbol(String),
    #[error("'{term}' is not a ground term: {reason}")]
    NotATerm { term: String, reason: String },
}
