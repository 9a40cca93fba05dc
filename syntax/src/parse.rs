//! The syntax of `network!`: a header (`pub Name(batch = 64)`), then `input`, `let` and
//! `output` statements whose expressions are operator calls (`Op(x, key = value)`),
//! arithmetic (`+ - * /`, unary `-`, parentheses) and literals.
//!
//! The parser takes any tokens: it recurses only into nested parentheses, calls and unary
//! minus, at most [`MAX_NESTING`] deep, and keeps a run of `+ -` or `* /` flat
//! ([`Expr::Chain`]), so no input makes it, or the builder walking its tree, overflow the
//! stack.

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::parse::{Parse, ParseStream};
use syn::{bracketed, parenthesized, Ident, LitBool, LitFloat, LitInt, LitStr, Token};

/// How deep parentheses, calls and unary minus may nest in one expression: deeper than any
/// network written by hand, shallow enough for any thread's stack.
pub const MAX_NESTING: usize = 64;

pub struct Network {
    /// The outer attributes (`#[doc = "..."]`, `#[derive(...)]`), passed through verbatim.
    pub attrs: TokenStream,
    pub vis: syn::Visibility,
    pub name: Ident,
    /// Named dimensions and their declared values (`batch = 64`).
    pub dims: Vec<(Ident, usize)>,
    pub stmts: Vec<Stmt>,
}

pub enum Stmt {
    Input { name: Ident, shape: Vec<Dim> },
    Let { name: Ident, expr: Expr },
    Output { name: Ident, expr: Expr },
}

pub enum Dim {
    Lit(usize),
    Named(Ident),
}

pub enum Expr {
    Var(Ident),
    Num(f64, Span),
    Str(LitStr),
    Bool(LitBool),
    Tuple(Vec<Expr>, Span),
    Call {
        op: Ident,
        args: Vec<Arg>,
    },
    /// Operands of one precedence level joined left to right: `a - b + c` is `a`, then
    /// (`-`, `b`) and (`+`, `c`), each operator with its span.
    Chain {
        first: Box<Expr>,
        rest: Vec<(char, Span, Expr)>,
    },
    Neg(Box<Expr>, Span),
}

pub enum Arg {
    Positional(Expr),
    Named(Ident, Expr),
}

impl Expr {
    pub fn span(&self) -> Span {
        match self {
            Expr::Var(i) => i.span(),
            Expr::Num(_, s) | Expr::Tuple(_, s) | Expr::Neg(_, s) => *s,
            Expr::Str(l) => l.span(),
            Expr::Bool(l) => l.span,
            Expr::Call { op, .. } => op.span(),
            Expr::Chain { first, .. } => first.span(),
        }
    }
}

impl Parse for Network {
    fn parse(input: ParseStream) -> syn::Result<Network> {
        let mut attrs = TokenStream::new();
        while input.peek(Token![#]) {
            input.parse::<Token![#]>()?.to_tokens(&mut attrs);
            let content;
            let bracket = bracketed!(content in input);
            let body: TokenStream = content.parse()?;
            bracket.surround(&mut attrs, |tokens| tokens.extend(body));
        }
        let vis = input.parse()?;
        let name: Ident = input.parse()?;
        let mut dims = Vec::new();
        if input.peek(syn::token::Paren) {
            let content;
            parenthesized!(content in input);
            while !content.is_empty() {
                let dim: Ident = content.parse()?;
                content.parse::<Token![=]>()?;
                let value: LitInt = content.parse()?;
                dims.push((dim, value.base10_parse()?));
                if !content.is_empty() {
                    content.parse::<Token![,]>()?;
                }
            }
        }
        let body;
        syn::braced!(body in input);
        let mut stmts = Vec::new();
        while !body.is_empty() {
            stmts.push(body.parse()?);
        }
        Ok(Network {
            attrs,
            vis,
            name,
            dims,
            stmts,
        })
    }
}

impl Parse for Stmt {
    fn parse(input: ParseStream) -> syn::Result<Stmt> {
        let stmt = if input.peek(Token![let]) {
            input.parse::<Token![let]>()?;
            let name = input.parse()?;
            input.parse::<Token![=]>()?;
            Stmt::Let {
                name,
                expr: input.parse()?,
            }
        } else {
            let keyword: Ident = input.parse()?;
            match keyword.to_string().as_str() {
                "input" => {
                    let name = input.parse()?;
                    input.parse::<Token![:]>()?;
                    let content;
                    bracketed!(content in input);
                    let mut shape = Vec::new();
                    while !content.is_empty() {
                        shape.push(if content.peek(LitInt) {
                            Dim::Lit(content.parse::<LitInt>()?.base10_parse()?)
                        } else {
                            Dim::Named(content.parse()?)
                        });
                        if !content.is_empty() {
                            content.parse::<Token![,]>()?;
                        }
                    }
                    Stmt::Input { name, shape }
                }
                "output" => {
                    let name = input.parse()?;
                    input.parse::<Token![=]>()?;
                    Stmt::Output {
                        name,
                        expr: input.parse()?,
                    }
                }
                _ => {
                    return Err(syn::Error::new(
                        keyword.span(),
                        "expected `input`, `let` or `output`",
                    ))
                }
            }
        };
        input.parse::<Token![;]>()?;
        Ok(stmt)
    }
}

impl Parse for Expr {
    fn parse(input: ParseStream) -> syn::Result<Expr> {
        sum(input, 0)
    }
}

/// One level deeper than `depth`, or an error at the input's position.
fn deeper(input: ParseStream, depth: usize) -> syn::Result<usize> {
    if depth >= MAX_NESTING {
        return Err(input.error(format!(
            "expression nested more than {MAX_NESTING} deep (parentheses, calls, unary minus): name inner parts with `let`"
        )));
    }
    Ok(depth + 1)
}

/// Terms joined by `+` and `-`, left to right.
fn sum(input: ParseStream, depth: usize) -> syn::Result<Expr> {
    chain(input, "+-", product, depth)
}

/// Factors joined by `*` and `/`, left to right.
fn product(input: ParseStream, depth: usize) -> syn::Result<Expr> {
    chain(input, "*/", unary, depth)
}

type Operand = fn(ParseStream, usize) -> syn::Result<Expr>;

/// Operands parsed by `operand`, joined left to right by the operators `ops`.
fn chain(input: ParseStream, ops: &str, operand: Operand, depth: usize) -> syn::Result<Expr> {
    let first = operand(input, depth)?;
    let mut rest = Vec::new();
    while let Some((op, span)) = operator(input, ops)? {
        rest.push((op, span, operand(input, depth)?));
    }
    Ok(match rest.is_empty() {
        true => first,
        false => Expr::Chain {
            first: Box::new(first),
            rest,
        },
    })
}

/// The next token if it is one of the operators `ops`.
fn operator(input: ParseStream, ops: &str) -> syn::Result<Option<(char, Span)>> {
    let found = |c: char| ops.contains(c);
    Ok(Some(if found('+') && input.peek(Token![+]) {
        ('+', input.parse::<Token![+]>()?.span)
    } else if found('-') && input.peek(Token![-]) {
        ('-', input.parse::<Token![-]>()?.span)
    } else if found('*') && input.peek(Token![*]) {
        ('*', input.parse::<Token![*]>()?.span)
    } else if found('/') && input.peek(Token![/]) {
        ('/', input.parse::<Token![/]>()?.span)
    } else {
        return Ok(None);
    }))
}

fn unary(input: ParseStream, depth: usize) -> syn::Result<Expr> {
    if input.peek(Token![-]) {
        let depth = deeper(input, depth)?;
        let span = input.parse::<Token![-]>()?.span;
        return Ok(Expr::Neg(Box::new(unary(input, depth)?), span));
    }
    atom(input, depth)
}

fn atom(input: ParseStream, depth: usize) -> syn::Result<Expr> {
    if input.peek(syn::token::Paren) {
        let depth = deeper(input, depth)?;
        let content;
        let paren = parenthesized!(content in input);
        let mut items = Vec::new();
        let mut trailing_comma = false;
        while !content.is_empty() {
            items.push(sum(&content, depth)?);
            trailing_comma = content.parse::<Option<Token![,]>>()?.is_some();
        }
        // `(e)` groups; `(a, b)` and `(a,)` are tuples (shapes, MXNet's tuple parameters).
        return Ok(match (items.len(), trailing_comma) {
            (1, false) => items.remove(0),
            _ => Expr::Tuple(items, paren.span.join()),
        });
    }
    if input.peek(LitInt) {
        let lit: LitInt = input.parse()?;
        return Ok(Expr::Num(lit.base10_parse::<i64>()? as f64, lit.span()));
    }
    if input.peek(LitFloat) {
        let lit: LitFloat = input.parse()?;
        return Ok(Expr::Num(lit.base10_parse()?, lit.span()));
    }
    if input.peek(LitStr) {
        return Ok(Expr::Str(input.parse()?));
    }
    if input.peek(LitBool) {
        return Ok(Expr::Bool(input.parse()?));
    }
    let name: Ident = input.parse()?;
    if !input.peek(syn::token::Paren) {
        return Ok(Expr::Var(name));
    }
    let depth = deeper(input, depth)?;
    let content;
    parenthesized!(content in input);
    let mut args = Vec::new();
    while !content.is_empty() {
        args.push(if content.peek(Ident) && content.peek2(Token![=]) {
            let key = content.parse()?;
            content.parse::<Token![=]>()?;
            Arg::Named(key, sum(&content, depth)?)
        } else {
            Arg::Positional(sum(&content, depth)?)
        });
        if !content.is_empty() {
            content.parse::<Token![,]>()?;
        }
    }
    Ok(Expr::Call { op: name, args })
}
