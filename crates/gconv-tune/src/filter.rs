//! The `--filter` language: a small, safe expression language over kernel-config fields.
//!
//! Grammar (lowest precedence first):
//!
//! ```text
//! expr    := or
//! or      := and ( "||" and )*
//! and     := unary ( "&&" unary )*
//! unary   := "!" unary | compare
//! compare := atom ( ("==" | "!=" | "<" | "<=" | ">" | ">=") atom )?
//! atom    := integer | field | value | "(" expr ")"
//! integer := "-"? [0-9]+
//! field   := [A-Za-z_][A-Za-z0-9_]*      (one of the schema's field names)
//! value   := [A-Za-z_][A-Za-z0-9_]*      (a value of the enum field on the other side)
//! ```
//!
//! # Enum fields
//!
//! A [`FilterSchema`] (given to [`Filter::parse_with`]) says which fields are enums (for kernel configs: `family`, `direction`,
//! `dtype`, `split_k_mode`, `math`, `fast_path`) and resolves their values. An enum field is
//! compared with `==` or `!=` against one of its values, written as a token (`dtype == bf16`,
//! `fast_path != pw`) or as its index (`fast_path == 1`); the value is resolved when the filter
//! is parsed, and a token or an index the field does not have is an error that lists the
//! accepted values. Ordering (`<`, `<=`, `>`, `>=`) is refused on enum fields: their index order
//! is an implementation detail, not an order of the values. Comparing an enum field with another
//! field is refused too, except with itself.
//!
//! `!` applies to the whole comparison or parenthesised condition that follows it
//! (`!stages == 3` means `!(stages == 3)`). Expressions are typed when parsed: comparisons take integers and give conditions; `!`, `&&`
//! and `||` take conditions; the whole filter must be a condition. Comparisons do not chain
//! (`1 < a < 3` is an error; write `1 < a && a < 3`). There is no arithmetic, no function call
//! and no loop, and nesting is capped at [`MAX_DEPTH`], so evaluation is a bounded walk of the tree. Every parse error carries the byte
//! position of the offending token and is displayed with a caret under it.

use std::fmt;

/// A filter that could not be parsed or evaluated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilterError {
    /// The filter text.
    pub source_text: String,
    /// Byte offset of the offending token in `source_text`.
    pub position: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for FilterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pos = self.position.min(self.source_text.len());
        let column = self
            .source_text
            .get(..pos)
            .map(|s| s.chars().count())
            .unwrap_or(pos);
        writeln!(
            f,
            "invalid filter at byte {}: {}",
            self.position, self.message
        )?;
        writeln!(f, "  {}", self.source_text)?;
        write!(f, "  {}^", " ".repeat(column))
    }
}

impl std::error::Error for FilterError {}

/// The fields a filter may name and how enum fields' values are written.
pub trait FilterSchema {
    /// Every field name, in the order error messages list them.
    fn fields(&self) -> &[&str];
    /// For an enum field, its accepted values for messages (for example `f32, f16 or bf16`);
    /// `None` for a numeric field.
    fn enum_values(&self, field: &str) -> Option<String>;
    /// The index of the value `text` (a token, or an index in decimal) of enum field `field`;
    /// `None` when the field has no such value.
    fn enum_index(&self, field: &str, text: &str) -> Option<i64>;
}

/// A schema of numeric fields only (what [`Filter::parse`] uses).
struct NumericFields<'a>(&'a [&'a str]);

impl FilterSchema for NumericFields<'_> {
    fn fields(&self) -> &[&str] {
        self.0
    }

    fn enum_values(&self, _field: &str) -> Option<String> {
        None
    }

    fn enum_index(&self, _field: &str, _text: &str) -> Option<i64> {
        None
    }
}

/// Comparison operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl CmpOp {
    fn apply(self, a: i64, b: i64) -> bool {
        match self {
            CmpOp::Eq => a == b,
            CmpOp::Ne => a != b,
            CmpOp::Lt => a < b,
            CmpOp::Le => a <= b,
            CmpOp::Gt => a > b,
            CmpOp::Ge => a >= b,
        }
    }

    fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }
}

/// A typed expression tree. Integer nodes are `Int`, `Value` and `Field`; the others are
/// conditions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expr {
    /// An integer literal.
    Int(i64),
    /// A value of an enum field written as a token, resolved to the field's index for it.
    Value {
        /// The token as written.
        token: String,
        /// Its index.
        index: i64,
    },
    /// A field, with the byte position where it was written.
    Field {
        /// Field name.
        name: String,
        /// Byte position in the filter text.
        position: usize,
    },
    /// A comparison of two integers.
    Cmp(CmpOp, Box<Expr>, Box<Expr>),
    /// Logical and.
    And(Box<Expr>, Box<Expr>),
    /// Logical or.
    Or(Box<Expr>, Box<Expr>),
    /// Logical not.
    Not(Box<Expr>),
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Int(v) => write!(f, "{v}"),
            Expr::Value { token, .. } => f.write_str(token),
            Expr::Field { name, .. } => f.write_str(name),
            Expr::Cmp(op, a, b) => write!(f, "({a} {} {b})", op.symbol()),
            Expr::And(a, b) => write!(f, "({a} && {b})"),
            Expr::Or(a, b) => write!(f, "({a} || {b})"),
            Expr::Not(a) => write!(f, "!{a}"),
        }
    }
}

/// A parsed, type-checked filter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Filter {
    source_text: String,
    expr: Expr,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Int(i64),
    Ident(String),
    Cmp(CmpOp),
    AndAnd,
    OrOr,
    Bang,
    LParen,
    RParen,
    End,
}

impl Tok {
    fn describe(&self) -> String {
        match self {
            Tok::Int(v) => format!("integer {v}"),
            Tok::Ident(s) => format!("field `{s}`"),
            Tok::Cmp(op) => format!("`{}`", op.symbol()),
            Tok::AndAnd => "`&&`".into(),
            Tok::OrOr => "`||`".into(),
            Tok::Bang => "`!`".into(),
            Tok::LParen => "`(`".into(),
            Tok::RParen => "`)`".into(),
            Tok::End => "the end of the filter".into(),
        }
    }
}

fn lex(src: &str) -> Result<Vec<(Tok, usize)>, FilterError> {
    let err = |position: usize, message: String| FilterError {
        source_text: src.to_string(),
        position,
        message,
    };
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        let two = |s: &str| src[i..].starts_with(s);
        let tok =
            if c.is_ascii_digit() || (c == b'-' && b.get(i + 1).is_some_and(u8::is_ascii_digit)) {
                i += 1;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
                if i < b.len() && (b[i].is_ascii_alphabetic() || b[i] == b'_') {
                    return Err(err(
                        start,
                        format!("malformed number {:?}", &src[start..end_of_word(b, i)]),
                    ));
                }
                let text = &src[start..i];
                let v: i64 = text
                    .parse()
                    .map_err(|_| err(start, format!("integer {text} is out of range")))?;
                Tok::Int(v)
            } else if c.is_ascii_alphabetic() || c == b'_' {
                i = end_of_word(b, i);
                Tok::Ident(src[start..i].to_string())
            } else if two("==") {
                i += 2;
                Tok::Cmp(CmpOp::Eq)
            } else if two("!=") {
                i += 2;
                Tok::Cmp(CmpOp::Ne)
            } else if two("<=") {
                i += 2;
                Tok::Cmp(CmpOp::Le)
            } else if two(">=") {
                i += 2;
                Tok::Cmp(CmpOp::Ge)
            } else if two("&&") {
                i += 2;
                Tok::AndAnd
            } else if two("||") {
                i += 2;
                Tok::OrOr
            } else {
                i += 1;
                match c {
                    b'<' => Tok::Cmp(CmpOp::Lt),
                    b'>' => Tok::Cmp(CmpOp::Gt),
                    b'!' => Tok::Bang,
                    b'(' => Tok::LParen,
                    b')' => Tok::RParen,
                    b'=' => return Err(err(start, "`=` is not an operator; use `==`".into())),
                    b'&' => return Err(err(start, "`&` is not an operator; use `&&`".into())),
                    b'|' => return Err(err(start, "`|` is not an operator; use `||`".into())),
                    _ => {
                        let ch = src[start..].chars().next().unwrap_or('?');
                        return Err(err(start, format!("unexpected character {ch:?}")));
                    }
                }
            };
        out.push((tok, start));
    }
    out.push((Tok::End, src.len()));
    Ok(out)
}

fn end_of_word(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
        i += 1;
    }
    i
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ty {
    Int,
    Cond,
    /// A name that is not a field: a value, when the other side of its comparison is an enum
    /// field; an unknown field otherwise.
    Word,
}

/// Deepest nesting of `(` and `!` a filter may have (keeps the recursive parser, evaluation
/// and drop of the tree well inside the stack).
pub const MAX_DEPTH: usize = 128;

struct Parser<'a> {
    src: &'a str,
    toks: Vec<(Tok, usize)>,
    at: usize,
    schema: &'a dyn FilterSchema,
    depth: usize,
}

impl Parser<'_> {
    fn peek(&self) -> &Tok {
        &self.toks[self.at.min(self.toks.len() - 1)].0
    }

    fn pos(&self) -> usize {
        self.toks[self.at.min(self.toks.len() - 1)].1
    }

    fn bump(&mut self) -> (Tok, usize) {
        let t = self.toks[self.at.min(self.toks.len() - 1)].clone();
        if self.at < self.toks.len() - 1 {
            self.at += 1;
        }
        t
    }

    fn err(&self, position: usize, message: String) -> FilterError {
        FilterError {
            source_text: self.src.to_string(),
            position,
            message,
        }
    }

    fn unknown_field(&self, name: &str, position: usize) -> FilterError {
        self.err(
            position,
            format!(
                "unknown field `{name}` (known fields: {})",
                self.schema.fields().join(", ")
            ),
        )
    }

    /// The accepted values of an enum field, for messages.
    fn accepted(&self, field: &str) -> String {
        self.schema.enum_values(field).unwrap_or_default()
    }

    fn need_cond(&self, ty: Ty, start: usize, expr: &Expr, what: &str) -> Result<(), FilterError> {
        if ty == Ty::Word {
            return Err(self.unknown_field(&expr.to_string(), start));
        }
        if ty == Ty::Cond {
            Ok(())
        } else {
            Err(self.err(
                start,
                format!(
                    "{what} needs a condition (e.g. `stages == 3`), found the integer expression `{expr}`"
                ),
            ))
        }
    }

    fn or(&mut self) -> Result<(Expr, Ty, usize), FilterError> {
        let (mut left, ty, start) = self.and()?;
        if *self.peek() == Tok::OrOr {
            self.need_cond(ty, start, &left, "`||`")?;
        }
        while *self.peek() == Tok::OrOr {
            self.bump();
            let (right, rty, rstart) = self.and()?;
            self.need_cond(rty, rstart, &right, "`||`")?;
            left = Expr::Or(Box::new(left), Box::new(right));
        }
        Ok((left, ty, start))
    }

    fn and(&mut self) -> Result<(Expr, Ty, usize), FilterError> {
        let (mut left, ty, start) = self.unary()?;
        if *self.peek() == Tok::AndAnd {
            self.need_cond(ty, start, &left, "`&&`")?;
        }
        while *self.peek() == Tok::AndAnd {
            self.bump();
            let (right, rty, rstart) = self.unary()?;
            self.need_cond(rty, rstart, &right, "`&&`")?;
            left = Expr::And(Box::new(left), Box::new(right));
        }
        Ok((left, ty, start))
    }

    fn unary(&mut self) -> Result<(Expr, Ty, usize), FilterError> {
        if self.depth >= MAX_DEPTH {
            return Err(self.err(
                self.pos(),
                format!("the filter nests `(` and `!` more than {MAX_DEPTH} levels deep"),
            ));
        }
        self.depth += 1;
        let r = self.unary_inner();
        self.depth -= 1;
        r
    }

    fn unary_inner(&mut self) -> Result<(Expr, Ty, usize), FilterError> {
        if *self.peek() == Tok::Bang {
            let (_, start) = self.bump();
            let (inner, ty, istart) = self.unary()?;
            self.need_cond(ty, istart, &inner, "`!`")?;
            return Ok((Expr::Not(Box::new(inner)), Ty::Cond, start));
        }
        self.compare()
    }

    fn compare(&mut self) -> Result<(Expr, Ty, usize), FilterError> {
        let (left, ty, start) = self.atom()?;
        let Tok::Cmp(op) = *self.peek() else {
            if ty == Ty::Word {
                return Err(self.unknown_field(&left.to_string(), start));
            }
            return Ok((left, ty, start));
        };
        let op_pos = self.pos();
        if ty == Ty::Cond {
            return Err(self.err(
                op_pos,
                format!(
                    "`{}` compares integers, but its left side `{left}` is a condition",
                    op.symbol()
                ),
            ));
        }
        self.bump();
        let (right, rty, rstart) = self.atom()?;
        if rty == Ty::Cond {
            return Err(self.err(
                rstart,
                format!(
                    "`{}` compares integers, but its right side `{right}` is a condition",
                    op.symbol()
                ),
            ));
        }
        if let Tok::Cmp(next) = *self.peek() {
            return Err(self.err(
                self.pos(),
                format!(
                    "comparisons do not chain: `{} {}` follows a comparison; combine them with `&&`",
                    right,
                    next.symbol()
                ),
            ));
        }
        let (left, right) =
            self.resolve_enum_sides(op, op_pos, (left, ty, start), (right, rty, rstart))?;
        Ok((
            Expr::Cmp(op, Box::new(left), Box::new(right)),
            Ty::Cond,
            start,
        ))
    }

    /// Checks a comparison's sides against enum fields: a word becomes the value of the enum
    /// field on the other side (or is an unknown field), an integer compared with an enum field
    /// must be one of its indices, ordering and comparing with another field are refused.
    fn resolve_enum_sides(
        &self,
        op: CmpOp,
        op_pos: usize,
        left: (Expr, Ty, usize),
        right: (Expr, Ty, usize),
    ) -> Result<(Expr, Expr), FilterError> {
        let enum_field = |e: &Expr| match e {
            Expr::Field { name, .. } if self.schema.enum_values(name).is_some() => {
                Some(name.clone())
            }
            _ => None,
        };
        let field = enum_field(&left.0).or_else(|| enum_field(&right.0));
        let Some(field) = field else {
            for (e, ty, pos) in [&left, &right] {
                if *ty == Ty::Word {
                    return Err(self.unknown_field(&e.to_string(), *pos));
                }
            }
            return Ok((left.0, right.0));
        };
        if !matches!(op, CmpOp::Eq | CmpOp::Ne) {
            return Err(self.err(
                op_pos,
                format!(
                    "`{}` orders numbers, but `{field}` is an enum field: compare it with `==` or `!=` and one of its values ({})",
                    op.symbol(),
                    self.accepted(&field)
                ),
            ));
        }
        let resolve = |(e, ty, pos): (Expr, Ty, usize)| -> Result<Expr, FilterError> {
            match (&e, ty) {
                (Expr::Field { name, .. }, _) if *name == field => Ok(e),
                (Expr::Field { name, .. }, _) => Err(self.err(
                    pos,
                    format!(
                        "`{field}` is an enum field; compare it with one of its values ({}), not with the field `{name}`",
                        self.accepted(&field)
                    ),
                )),
                (Expr::Int(v), _) => match self.schema.enum_index(&field, &v.to_string()) {
                    Some(_) => Ok(e),
                    None => Err(self.err(
                        pos,
                        format!(
                            "`{field}` has no value with index {v} (accepted: {}, or their indices from 0)",
                            self.accepted(&field)
                        ),
                    )),
                },
                (_, Ty::Word) => {
                    let token = e.to_string();
                    match self.schema.enum_index(&field, &token) {
                        Some(index) => Ok(Expr::Value { token, index }),
                        None => Err(self.err(
                            pos,
                            format!(
                                "`{token}` is not a value of `{field}` (accepted: {})",
                                self.accepted(&field)
                            ),
                        )),
                    }
                }
                _ => Ok(e),
            }
        };
        Ok((resolve(left)?, resolve(right)?))
    }

    fn atom(&mut self) -> Result<(Expr, Ty, usize), FilterError> {
        let (tok, pos) = self.bump();
        match tok {
            Tok::Int(v) => Ok((Expr::Int(v), Ty::Int, pos)),
            Tok::Ident(name) => {
                if self.schema.fields().contains(&name.as_str()) {
                    Ok((
                        Expr::Field {
                            name,
                            position: pos,
                        },
                        Ty::Int,
                        pos,
                    ))
                } else {
                    // Resolved (or refused) by the comparison it appears in.
                    Ok((
                        Expr::Value {
                            token: name,
                            index: 0,
                        },
                        Ty::Word,
                        pos,
                    ))
                }
            }
            Tok::LParen => {
                let (inner, ty, istart) = self.or()?;
                if ty == Ty::Word {
                    return Err(self.unknown_field(&inner.to_string(), istart));
                }
                let (close, cpos) = self.bump();
                if close != Tok::RParen {
                    return Err(self.err(
                        cpos,
                        format!(
                            "expected `)` to close the `(` at byte {pos}, found {}",
                            close.describe()
                        ),
                    ));
                }
                Ok((inner, ty, pos))
            }
            other => Err(self.err(
                pos,
                format!(
                    "expected an integer, a field or `(`, found {}",
                    other.describe()
                ),
            )),
        }
    }
}

impl Filter {
    /// Parses and type-checks `src` against the allowed field names, all numeric.
    pub fn parse(src: &str, fields: &[&str]) -> Result<Filter, FilterError> {
        Filter::parse_with(src, &NumericFields(fields))
    }

    /// Parses and type-checks `src` against a schema, resolving enum values (see the module
    /// documentation).
    pub fn parse_with(src: &str, schema: &dyn FilterSchema) -> Result<Filter, FilterError> {
        let toks = lex(src)?;
        let mut p = Parser {
            src,
            toks,
            at: 0,
            schema,
            depth: 0,
        };
        if *p.peek() == Tok::End {
            return Err(p.err(0, "the filter is empty".into()));
        }
        let (expr, ty, start) = p.or()?;
        if *p.peek() != Tok::End {
            let pos = p.pos();
            let found = p.peek().describe();
            return Err(p.err(
                pos,
                format!("expected an operator or the end of the filter, found {found}"),
            ));
        }
        p.need_cond(ty, start, &expr, "a filter")?;
        Ok(Filter {
            source_text: src.to_string(),
            expr,
        })
    }

    /// The filter text as given.
    pub fn source_text(&self) -> &str {
        &self.source_text
    }

    /// The typed expression tree.
    pub fn expr(&self) -> &Expr {
        &self.expr
    }

    /// Evaluates the filter; `lookup` gives the value of a field (`None`: the field has no
    /// value for this item, which is an error pointing at the field).
    pub fn eval(&self, lookup: &dyn Fn(&str) -> Option<i64>) -> Result<bool, FilterError> {
        self.cond(&self.expr, lookup)
    }

    fn cond(&self, e: &Expr, lookup: &dyn Fn(&str) -> Option<i64>) -> Result<bool, FilterError> {
        Ok(match e {
            Expr::Cmp(op, a, b) => op.apply(self.int(a, lookup)?, self.int(b, lookup)?),
            Expr::And(a, b) => self.cond(a, lookup)? && self.cond(b, lookup)?,
            Expr::Or(a, b) => self.cond(a, lookup)? || self.cond(b, lookup)?,
            Expr::Not(a) => !self.cond(a, lookup)?,
            // Unreachable for a type-checked tree; answered rather than panicking.
            Expr::Int(_) | Expr::Value { .. } | Expr::Field { .. } => self.int(e, lookup)? != 0,
        })
    }

    fn int(&self, e: &Expr, lookup: &dyn Fn(&str) -> Option<i64>) -> Result<i64, FilterError> {
        match e {
            Expr::Int(v) => Ok(*v),
            Expr::Value { index, .. } => Ok(*index),
            Expr::Field { name, position } => lookup(name).ok_or_else(|| FilterError {
                source_text: self.source_text.clone(),
                position: *position,
                message: format!("field `{name}` has no integer value for this kernel"),
            }),
            other => Ok(i64::from(self.cond(other, lookup)?)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIELDS: &[&str] = &["tile_m", "tile_n", "stages", "group_merge", "fast_path"];

    fn eval(src: &str, vals: &[(&str, i64)]) -> bool {
        let f = Filter::parse(src, FIELDS).unwrap_or_else(|e| panic!("{e}"));
        f.eval(&|name| vals.iter().find(|(n, _)| *n == name).map(|(_, v)| *v))
            .unwrap()
    }

    fn parse_err(src: &str) -> FilterError {
        Filter::parse(src, FIELDS).unwrap_err()
    }

    #[test]
    fn simple_comparisons() {
        let v = [("tile_n", 128), ("stages", 3)];
        assert!(eval("tile_n >= 128 && stages == 3", &v));
        assert!(!eval("tile_n > 128", &v));
        assert!(eval("tile_n != 64", &v));
        assert!(eval("stages <= 3 && stages < 4 && 2 < stages", &v));
        assert!(eval("stages == -1 || stages > -2", &v));
    }

    #[test]
    fn and_binds_tighter_than_or() {
        // a || b && c  ==  a || (b && c)
        let e = Filter::parse("stages == 1 || stages == 2 && tile_n == 64", FIELDS).unwrap();
        assert_eq!(
            e.expr().to_string(),
            "((stages == 1) || ((stages == 2) && (tile_n == 64)))"
        );
        let v = [("stages", 1), ("tile_n", 128)];
        assert!(eval("stages == 1 || stages == 2 && tile_n == 64", &v));
        assert!(!eval("(stages == 1 || stages == 2) && tile_n == 64", &v));
        // a && b || c  ==  (a && b) || c
        let e = Filter::parse("stages == 1 && tile_n == 2 || tile_m == 3", FIELDS).unwrap();
        assert_eq!(
            e.expr().to_string(),
            "(((stages == 1) && (tile_n == 2)) || (tile_m == 3))"
        );
    }

    #[test]
    fn not_binds_tightest_and_nests() {
        let e = Filter::parse("!stages == 3", FIELDS);
        // `!` applies to the comparison `stages == 3`, which is a condition.
        assert_eq!(e.unwrap().expr().to_string(), "!(stages == 3)");
        let v = [("stages", 3), ("tile_n", 64)];
        assert!(!eval("!stages == 3", &v));
        assert!(eval("!!(stages == 3)", &v));
        assert!(eval("!(stages == 2 && tile_n == 64)", &v));
        assert!(!eval("!(stages == 3) || tile_n == 32", &v));
    }

    #[test]
    fn left_associative_chains() {
        let e = Filter::parse("stages == 1 || stages == 2 || stages == 3", FIELDS).unwrap();
        assert_eq!(
            e.expr().to_string(),
            "(((stages == 1) || (stages == 2)) || (stages == 3))"
        );
    }

    #[test]
    fn errors_point_at_the_token() {
        let e = parse_err("tile_n >= 128 && tiel_n == 3");
        assert_eq!(e.position, 17);
        assert!(e.message.contains("unknown field `tiel_n`"), "{e}");
        let shown = e.to_string();
        let lines: Vec<&str> = shown.lines().collect();
        assert_eq!(lines.len(), 3, "{shown}");
        assert_eq!(lines[2].find('^'), Some(2 + 17), "{shown}");

        let e = parse_err("tile_n = 128");
        assert_eq!(e.position, 7);
        assert!(e.message.contains("`==`"), "{e}");
        assert_eq!(parse_err("tile_n >= 1 & stages == 2").position, 12);
        assert_eq!(parse_err("tile_n >= 1 | stages == 2").position, 12);
        assert_eq!(parse_err("tile_n >= 128 $").position, 14);
        assert_eq!(parse_err("").message, "the filter is empty");
        assert_eq!(parse_err("   ").position, 0);
    }

    #[test]
    fn errors_for_structure() {
        // missing right operand
        let e = parse_err("tile_n >=");
        assert_eq!(e.position, 9);
        assert!(e.message.contains("end of the filter"), "{e}");
        // unbalanced parentheses
        let e = parse_err("(stages == 3");
        assert_eq!(e.position, 12);
        assert!(e.message.contains("to close the `(` at byte 0"), "{e}");
        let e = parse_err("stages == 3)");
        assert_eq!(e.position, 11);
        // chained comparison
        let e = parse_err("1 < stages < 4");
        assert_eq!(e.position, 11);
        assert!(e.message.contains("do not chain"), "{e}");
        // juxtaposed operands
        assert_eq!(parse_err("stages 3").position, 7);
        // malformed and out-of-range numbers
        assert!(parse_err("stages == 3x")
            .message
            .contains("malformed number"));
        assert!(parse_err("stages == 99999999999999999999")
            .message
            .contains("out of range"));
    }

    #[test]
    fn type_errors() {
        // a bare integer is not a condition
        let e = parse_err("stages");
        assert!(e.message.contains("needs a condition"), "{e}");
        let e = parse_err("stages == 3 && tile_n");
        assert_eq!(e.position, 15);
        let e = parse_err("!tile_n");
        assert_eq!(e.position, 1);
        // a condition is not an integer
        let e = parse_err("(stages == 3) == 1");
        assert_eq!(e.position, 14);
        assert!(e.message.contains("left side"), "{e}");
        let e = parse_err("1 == (stages == 3)");
        assert_eq!(e.position, 5);
        assert!(e.message.contains("right side"), "{e}");
    }

    #[test]
    fn missing_value_is_an_error_at_the_field() {
        let f = Filter::parse("stages == 3 && fast_path == 1", FIELDS).unwrap();
        let e = f
            .eval(&|n| if n == "stages" { Some(3) } else { None })
            .unwrap_err();
        assert_eq!(e.position, 15);
        // short-circuit: the missing field is not consulted when the left side decides
        assert!(!f
            .eval(&|n| if n == "stages" { Some(2) } else { None })
            .unwrap());
    }

    #[test]
    fn caret_counts_characters_not_bytes() {
        let e = parse_err("stages == 3 && é");
        assert_eq!(e.position, 15);
        let shown = e.to_string();
        let caret_line = shown.lines().nth(2).unwrap();
        assert_eq!(caret_line.chars().position(|c| c == '^'), Some(2 + 15));
    }

    /// `color` is an enum field with values red (0), green (1); `size` is numeric.
    struct Colors;

    impl FilterSchema for Colors {
        fn fields(&self) -> &[&str] {
            &["color", "size"]
        }

        fn enum_values(&self, field: &str) -> Option<String> {
            (field == "color").then(|| "red or green".to_string())
        }

        fn enum_index(&self, field: &str, text: &str) -> Option<i64> {
            if field != "color" {
                return None;
            }
            match text {
                "red" | "0" => Some(0),
                "green" | "1" => Some(1),
                _ => None,
            }
        }
    }

    fn colors(src: &str) -> Result<Filter, FilterError> {
        Filter::parse_with(src, &Colors)
    }

    #[test]
    fn enum_fields_compare_with_their_tokens_or_indices() {
        let at = |color: i64| {
            move |f: &Filter| {
                f.eval(&|n| match n {
                    "color" => Some(color),
                    _ => Some(4),
                })
                .unwrap()
            }
        };
        for src in [
            "color == green",
            "green == color",
            "color == 1",
            "color != red",
        ] {
            let f = colors(src).unwrap_or_else(|e| panic!("{e}"));
            assert!(at(1)(&f), "{src}");
            assert!(!at(0)(&f), "{src}");
        }
        let f = colors("color == green && size >= 4 || (color == red)").unwrap();
        assert_eq!(
            f.expr().to_string(),
            "(((color == green) && (size >= 4)) || (color == red))",
            "tokens print as written"
        );
        assert!(at(0)(&f));
    }

    #[test]
    fn enum_fields_refuse_unknown_values_ordering_and_other_fields() {
        let e = colors("color == blue").unwrap_err();
        assert_eq!(e.position, 9);
        assert!(
            e.message.contains("`blue` is not a value of `color`"),
            "{e}"
        );
        assert!(e.message.contains("red or green"), "{e}");
        let e = colors("color == 2").unwrap_err();
        assert_eq!(e.position, 9);
        assert!(e.message.contains("no value with index 2"), "{e}");
        assert!(e.message.contains("red or green"), "{e}");
        for src in ["color < green", "color >= 1", "red <= color"] {
            let e = colors(src).unwrap_err();
            assert!(e.message.contains("is an enum field"), "{src}: {e}");
            assert!(e.message.contains("`==` or `!=`"), "{src}: {e}");
        }
        let e = colors("color == size").unwrap_err();
        assert_eq!(e.position, 9);
        assert!(e.message.contains("not with the field `size`"), "{e}");
        assert!(colors("color == color").is_ok());
        // A name that is not a field is a value only next to an enum field.
        for (src, pos) in [
            ("size == red", 8),
            ("red", 0),
            ("(red)", 1),
            ("red == red", 0),
        ] {
            let e = colors(src).unwrap_err();
            assert_eq!(e.position, pos, "{src}: {e}");
            assert!(e.message.contains("unknown field `red`"), "{src}: {e}");
        }
        // Numeric fields keep ordering and plain integers.
        assert!(colors("size < 3 && size != -1").is_ok());
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let deep = format!("{}tile_n == 64{}", "(".repeat(20_000), ")".repeat(20_000));
        let e = Filter::parse(&deep, &["tile_n"]).unwrap_err();
        assert!(e.to_string().contains("levels deep"), "{e}");
        let bangs = format!("{}tile_n == 64", "!".repeat(20_000));
        assert!(Filter::parse(&bangs, &["tile_n"]).is_err());
        let ok = format!("{}tile_n == 64{}", "(".repeat(100), ")".repeat(100));
        assert!(Filter::parse(&ok, &["tile_n"]).is_ok());
    }
}
