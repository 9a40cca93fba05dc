//! The `network!` language as a library: [`parse`] turns tokens into a [`Network`],
//! [`build`] makes it a kiln Symbol and checks it by shape inference at the declared
//! shapes, and [`check_json`] does the same for a saved MXNet symbol (`include_symbol!`).
//!
//! The proc-macro (`kiln-macros`) is a thin layer over this crate: it parses its input
//! here, emits code from the [`Built`] network, and turns a `syn::Error` into a compile
//! error at its span. Being an ordinary library, the front end also runs outside rustc:
//! [`fuzz_network`] is the fuzz target of the syntax, replayed by `tests/fuzz_corpus.rs`.

mod build;
mod parse;

use proc_macro2::{TokenStream, TokenTree};

pub use build::{build, check_json, Built, DimValue};
pub use parse::{Arg, Dim, Expr, Network, Stmt, MAX_NESTING};

/// How deep token groups (`()`, `[]`, `{}`) may nest in an invocation: syn's token buffer
/// recurses into groups, so deeper input is refused before syn sees it. Above the grammar's
/// own [`MAX_NESTING`], whose message is the one a user meets.
pub const MAX_GROUP_NESTING: usize = 4 * MAX_NESTING;

/// Parses the tokens of a `network!` invocation.
pub fn parse(tokens: TokenStream) -> syn::Result<Network> {
    if group_depth(&tokens) > MAX_GROUP_NESTING {
        return Err(syn::Error::new(
            proc_macro2::Span::call_site(),
            format!("brackets nested more than {MAX_GROUP_NESTING} deep"),
        ));
    }
    syn::parse2(tokens)
}

/// The deepest nesting of groups in `tokens`, found without recursion.
fn group_depth(tokens: &TokenStream) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(tokens.clone().into_iter(), 0)];
    while let Some((mut trees, depth)) = stack.pop() {
        deepest = deepest.max(depth);
        if let Some(tree) = trees.next() {
            stack.push((trees, depth));
            if let TokenTree::Group(group) = tree {
                stack.push((group.stream().into_iter(), depth + 1));
            }
        }
    }
    deepest
}

/// The fuzz target of the syntax: any bytes, read as the text inside `network! { ... }`,
/// lexed, parsed and built (shape inference included). It must return, whatever the
/// input: an error is fine, a panic, a hang or a stack overflow is a bug.
pub fn fuzz_network(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(tokens) = text.parse::<TokenStream>() else {
        return;
    };
    if let Ok(net) = parse(tokens) {
        let _ = build(&net);
    }
}
