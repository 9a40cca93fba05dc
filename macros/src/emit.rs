//! The items a checked network expands to: a unit struct whose associated items hold the
//! network as MXNet JSON (the exact graph the macro checked), its inputs, parameters and
//! outputs with their inferred shapes, and the run-time Symbol.

use crate::build::{Built, DimValue};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::{Attribute, Ident, Visibility};

/// Names and shapes as a `&[(&str, &[usize])]` constant's value.
fn table(entries: &[(String, Vec<usize>)]) -> TokenStream {
    let rows = entries.iter().map(|(n, s)| quote! { (#n, &[#(#s),*]) });
    quote! { &[#(#rows),*] }
}

pub fn emit(
    attrs: &[Attribute],
    vis: &Visibility,
    name: &Ident,
    dims: &[(Ident, usize)],
    built: &Built,
) -> TokenStream {
    let dim_consts = dims.iter().map(|(d, v)| {
        let c = format_ident!("{}", d.to_string().to_uppercase());
        let doc = format!("The declared `{d}`.");
        quote! { #[doc = #doc] pub const #c: usize = #v; }
    });
    let declared: Vec<(String, Vec<usize>)> = (built.inputs.iter())
        .map(|(n, s)| (n.clone(), s.iter().map(DimValue::value).collect()))
        .collect();
    let inputs = table(&declared);
    let params = table(&built.params);
    let aux = table(&built.aux);
    let outputs = table(&built.outputs);
    let dim_params = dims.iter().map(|(d, _)| d);
    let shapes = built.inputs.iter().map(|(n, s)| {
        let dims = s.iter().map(|d| match d {
            DimValue::Fixed(v) => quote! { #v },
            DimValue::Named(n, _) => {
                let id = format_ident!("{}", n);
                quote! { #id }
            }
        });
        quote! { (#n, ::std::vec![#(#dims),*]) }
    });
    let json = &built.json;
    quote! {
        #(#attrs)*
        #vis struct #name;

        #[allow(dead_code)]
        impl #name {
            #(#dim_consts)*
            /// The inputs, in declaration order, at the declared dimensions.
            pub const INPUTS: &'static [(&'static str, &'static [usize])] = #inputs;
            /// The parameters (arguments other than the inputs), under MXNet's names, with
            /// the shapes inference gave them at the declared dimensions.
            pub const PARAMS: &'static [(&'static str, &'static [usize])] = #params;
            /// The auxiliary states (BatchNorm's moving statistics) and their shapes.
            pub const AUX: &'static [(&'static str, &'static [usize])] = #aux;
            /// The outputs and their shapes at the declared dimensions.
            pub const OUTPUTS: &'static [(&'static str, &'static [usize])] = #outputs;
            /// The network as MXNet symbol JSON: the graph the macro built and checked.
            pub const JSON: &'static str = #json;

            /// The network as a run-time Symbol (to bind on the JIT, save, or inspect).
            pub fn symbol() -> ::kiln::Symbol {
                ::kiln::Symbol::from_json(Self::JSON).expect("the JSON network! wrote loads")
            }

            /// The inputs' shapes at other values of the named dimensions.
            #[allow(unused_variables)]
            pub fn input_shapes(#(#dim_params: usize),*) -> ::std::vec::Vec<(&'static str, ::std::vec::Vec<usize>)> {
                ::std::vec![#(#shapes),*]
            }

            /// Binds the network at the declared dimensions (MXNet's `simple_bind`).
            pub fn simple_bind(
                device: ::kiln::runtime::Device,
                reqs: ::kiln::runtime::GradReqs,
            ) -> ::kiln::Result<::kiln::runtime::Executor> {
                ::kiln::runtime::Executor::simple_bind(&Self::symbol(), device, Self::INPUTS, reqs)
            }
        }
    }
}
