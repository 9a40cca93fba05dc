//! `network!` and `include_symbol!`: networks declared in Rust source (or saved by MXNet)
//! and checked by kiln's compiler while the crate builds.
//!
//! The macros build the Symbol with kiln-compiler at expansion and run shape inference at
//! the declared input shapes, so an unknown operator or parameter, a missing input or a
//! shape mismatch is a compile error at the offending call, naming the node, the
//! operator and the shapes. They expand to a unit struct whose associated items hold the
//! checked network: its MXNet JSON, inputs, parameters (MXNet's names, so checkpoints
//! interoperate), outputs, and the run-time Symbol. The proc-macro links neither LLVM nor
//! CUDA: only the compiler runs inside it. Use them through `kiln` (`kiln::network!`),
//! whose documentation has the examples.

mod aot;
mod emit;

use proc_macro::TokenStream;
use quote::quote;
use syn::parse::{Parse, ParseStream};
use syn::{parse_macro_input, Ident, LitStr, Token};

/// Declares a network; see `kiln::network!`.
#[proc_macro]
pub fn network(input: TokenStream) -> TokenStream {
    let net = match kiln_syntax::parse(input.into()) {
        Ok(net) => net,
        Err(e) => return e.to_compile_error().into(),
    };
    match kiln_syntax::build(&net) {
        Ok(built) => {
            let aot = match generate(&built, proc_macro2::Span::call_site()) {
                Ok(aot) => aot,
                Err(e) => return e.to_compile_error().into(),
            };
            emit::emit(
                &net.attrs,
                &net.vis,
                &net.name,
                &net.dims,
                &built,
                aot.as_ref(),
            )
            .into()
        }
        Err(e) => e.to_compile_error().into(),
    }
}

/// The ahead-of-time code of `built`, or why there is none (a network with other dtypes
/// than f32: the struct then says so, `AHEAD_OF_TIME`, and binds on the JIT); a failure
/// inside the compiler is a compile error saying so rather than a panic.
fn generate(
    built: &kiln_syntax::Built,
    span: proc_macro2::Span,
) -> syn::Result<Result<aot::Aot, aot::AotError>> {
    let generated = std::panic::catch_unwind(|| aot::generate(built)).map_err(|panic| {
        let what = (panic.downcast_ref::<String>().cloned())
            .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        syn::Error::new(span, aot::AotError::Panicked(what).to_string())
    })?;
    Ok(generated)
}

/// `include_symbol!([vis Name =] "path-symbol.json", input = [dims], ...)`.
struct Include {
    vis: syn::Visibility,
    name: Ident,
    path: LitStr,
    inputs: Vec<(Ident, Vec<usize>)>,
}

impl Parse for Include {
    fn parse(input: ParseStream) -> syn::Result<Include> {
        let (vis, name) = if input.peek(LitStr) {
            (syn::parse_quote!(pub), Ident::new("Network", input.span()))
        } else {
            let vis = input.parse()?;
            let name = input.parse()?;
            input.parse::<Token![=]>()?;
            (vis, name)
        };
        let path = input.parse()?;
        let mut inputs = Vec::new();
        while !input.is_empty() {
            input.parse::<Token![,]>()?;
            if input.is_empty() {
                break;
            }
            let name: Ident = input.parse()?;
            input.parse::<Token![=]>()?;
            let content;
            syn::bracketed!(content in input);
            let dims = content.parse_terminated(syn::LitInt::parse, Token![,])?;
            let dims = dims
                .iter()
                .map(|d| d.base10_parse())
                .collect::<syn::Result<_>>()?;
            inputs.push((name, dims));
        }
        Ok(Include {
            vis,
            name,
            path,
            inputs,
        })
    }
}

/// Includes a saved MXNet symbol; see `kiln::include_symbol!`.
#[proc_macro]
pub fn include_symbol(input: TokenStream) -> TokenStream {
    let inc = parse_macro_input!(input as Include);
    let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
    let path = std::path::Path::new(&dir).join(inc.path.value());
    let span = inc.path.span();
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => {
            let msg = format!("cannot read {}: {e}", path.display());
            return syn::Error::new(span, msg).to_compile_error().into();
        }
    };
    let inputs: Vec<(String, Vec<usize>)> = (inc.inputs.iter())
        .map(|(n, d)| (n.to_string(), d.clone()))
        .collect();
    let built = match kiln_syntax::check_json(&text, &inputs) {
        Ok(b) => b,
        Err(msg) => {
            let msg = format!("{}: {msg}", inc.path.value());
            return syn::Error::new(span, msg).to_compile_error().into();
        }
    };
    let aot = match generate(&built, span) {
        Ok(aot) => aot,
        Err(e) => return e.to_compile_error().into(),
    };
    let items = emit::emit(
        &proc_macro2::TokenStream::new(),
        &inc.vis,
        &inc.name,
        &[],
        &built,
        aot.as_ref(),
    );
    let file = path.to_string_lossy().into_owned();
    // Editing the file rebuilds the crate.
    quote! {
        #items
        const _: &[u8] = ::std::include_bytes!(#file);
    }
    .into()
}
