//! The items a checked network expands to: a unit struct whose associated items hold the
//! network as MXNet JSON (the exact graph the macro checked), its inputs, parameters and
//! outputs with their inferred shapes, and the run-time Symbol.

use crate::aot::{Aot, AotError};
use kiln_syntax::{Built, DimValue};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::{Ident, Visibility};

/// Names and shapes as a `&[(&str, &[usize])]` constant's value.
fn table(entries: &[(String, Vec<usize>)]) -> TokenStream {
    let rows = entries.iter().map(|(n, s)| quote! { (#n, &[#(#s),*]) });
    quote! { &[#(#rows),*] }
}

pub fn emit(
    attrs: &TokenStream,
    vis: &Visibility,
    name: &Ident,
    dims: &[(Ident, usize)],
    built: &Built,
    aot: Result<&Aot, &AotError>,
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
    let (fields, methods, kernels) = match aot {
        Ok(aot) => ahead_of_time(name, aot),
        Err(_) => (quote! { ; }, quote! {}, quote! {}),
    };
    // Where no ahead-of-time code could be made, the struct's documentation and a
    // constant say why (the network still binds on the JIT).
    let (why, missing_doc) = match aot {
        Ok(_) => (quote! { ::std::result::Result::Ok(()) }, quote! {}),
        Err(reason) => {
            let reason = reason.to_string();
            let doc = format!(
                "No ahead-of-time code (`forward` and friends): {reason}. Bind it on the \
                 JIT with `simple_bind`."
            );
            (
                quote! { ::std::result::Result::Err(#reason) },
                quote! { #[doc = ""] #[doc = #doc] },
            )
        }
    };
    quote! {
        #attrs
        #missing_doc
        #vis struct #name #fields

        #kernels

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
            /// Whether ahead-of-time code (`new`, `forward`, ...) was generated, or why not.
            pub const AHEAD_OF_TIME: ::std::result::Result<(), &'static str> = #why;

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

            #methods
        }
    }
}

/// The struct's fields, its ahead-of-time methods and its kernels' module.
fn ahead_of_time(name: &Ident, aot: &Aot) -> (TokenStream, TokenStream, TokenStream) {
    let kernels_mod = format_ident!("__kiln_kernels_{}", name.to_string().to_lowercase());
    let Aot {
        kernels,
        products,
        nodes,
        constants,
        winograd,
        inference,
        training,
    } = aot;
    let (arena_len, forward, outputs) =
        (inference.arena_len, &inference.forward, &inference.outputs);
    let train_len = training.as_ref().map_or(0, |t| t.code.arena_len);
    let trains = training.is_ok();
    let fields = quote! {
        {
            params: ::std::vec::Vec<::std::vec::Vec<f32>>,
            aux: ::std::vec::Vec<::std::vec::Vec<f32>>,
            /// Folded constants.
            constants: ::std::vec::Vec<::std::vec::Vec<f32>>,
            arena: ::std::vec::Vec<f32>,
            train_arena: ::std::vec::Vec<f32>,
            /// The inputs of the last `forward_train`, which backward reads.
            kept_inputs: ::std::vec::Vec<::std::vec::Vec<f32>>,
            products: ::std::vec::Vec<::kiln::compiler::kir::matmul::MatMul>,
            nodes: ::std::vec::Vec<(&'static ::kiln::ops::OpDef, ::kiln::ops::Attrs)>,
            /// Transformed weights of the Winograd convolutions, and whether each is up
            /// to date with the parameters.
            winograd: ::std::vec::Vec<::std::vec::Vec<f32>>,
            winograd_fresh: ::std::vec::Vec<bool>,
            /// Forward passes run, which random operators' keys count.
            passes: u64,
        }
    };
    let check_inputs = quote! {
        if inputs.len() != Self::INPUTS.len() {
            return ::std::result::Result::Err(::kiln::Error::Input(::std::format!(
                "{} inputs given, the network takes {}", inputs.len(), Self::INPUTS.len()
            )));
        }
        for (given, (n, s)) in inputs.iter().zip(Self::INPUTS) {
            if given.len() != s.iter().product::<usize>() {
                return ::std::result::Result::Err(::kiln::Error::Input(::std::format!(
                    "input `{n}` has {} values, its shape {s:?} holds {}",
                    given.len(), s.iter().product::<usize>()
                )));
            }
        }
    };
    let train = training.as_ref().ok().map(|t| {
        let (forward, backward, outputs) = (&t.code.forward, &t.code.backward, &t.code.outputs);
        let grads: Vec<TokenStream> = (t.grads.iter())
            .map(|g| match g {
                Some(g) => quote! { ::std::option::Option::Some(#g) },
                None => quote! { ::std::option::Option::None },
            })
            .collect();
        let count = grads.len();
        let (aux_index, aux_value): (Vec<usize>, Vec<&TokenStream>) =
            t.aux_updates.iter().map(|(i, v)| (*i, v)).unzip();
        quote! {
            /// The training forward pass (BatchNorm on batch statistics, Dropout drawing),
            /// keeping what backward needs: the outputs.
            #[allow(unused_unsafe, clippy::all)]
            pub fn forward_train(&mut self, inputs: &[&[f32]]) -> ::kiln::Result<::std::vec::Vec<&[f32]>> {
                #check_inputs
                for (kept, given) in self.kept_inputs.iter_mut().zip(inputs) {
                    kept.copy_from_slice(given);
                }
                self.passes += 1;
                let arena = self.train_arena.as_mut_ptr();
                use #kernels_mod as kernels;
                #forward
                ::std::result::Result::Ok(::std::vec![#(#outputs),*])
            }

            /// The gradients of every parameter, from the last `forward_train` (the
            /// outputs are losses: no head gradients).
            #[allow(unused_unsafe, clippy::all)]
            pub fn backward(&mut self) -> ::kiln::Result<()> {
                let arena = self.train_arena.as_mut_ptr();
                use #kernels_mod as kernels;
                #backward
                ::std::result::Result::Ok(())
            }

            /// Parameter `name`'s gradient from the last `backward` (`None` for a parameter
            /// nothing depends on).
            #[allow(unused_unsafe, clippy::all)]
            pub fn grad(&self, name: &str) -> ::std::option::Option<&[f32]> {
                let i = Self::PARAMS.iter().position(|(n, _)| *n == name)?;
                let arena = self.train_arena.as_ptr() as *mut f32;
                use #kernels_mod as kernels;
                let grads: [::std::option::Option<&[f32]>; #count] = [#(#grads),*];
                grads[i]
            }

            /// One SGD step: forward (training), backward, then every parameter
            /// `w -= lr · g / batch` (gradients rescaled by the batch size, as MXNet's
            /// Module does) and the aux states (moving statistics) updated. The outputs
            /// of the forward pass.
            #[allow(unused_unsafe, clippy::all)]
            pub fn train_step(&mut self, inputs: &[&[f32]], lr: f32) -> ::kiln::Result<::std::vec::Vec<&[f32]>> {
                self.forward_train(inputs)?;
                self.backward()?;
                let batch = Self::INPUTS.first().and_then(|(_, s)| s.first()).copied().unwrap_or(1);
                let step = lr / batch as f32;
                self.winograd_fresh.fill(false);
                let arena = self.train_arena.as_mut_ptr();
                use #kernels_mod as kernels;
                let grads: ::std::vec::Vec<::std::option::Option<&[f32]>> = ::std::vec![#(#grads),*];
                for (w, g) in self.params.iter_mut().zip(grads) {
                    for (w, g) in w.iter_mut().zip(g.unwrap_or_default()) {
                        *w -= step * g;
                    }
                }
                #( self.aux[#aux_index].copy_from_slice(#aux_value); )*
                let arena = self.train_arena.as_mut_ptr();
                ::std::result::Result::Ok(::std::vec![#(#outputs),*])
            }
        }
    });
    let training_why = match training {
        Ok(_) => quote! { ::std::result::Result::Ok(()) },
        Err(reason) => {
            let reason = reason.to_string();
            quote! { ::std::result::Result::Err(#reason) }
        }
    };
    let methods = quote! {
        /// Whether training code (`forward_train`, `backward`, `grad`, `train_step`) was
        /// generated, or why not.
        pub const TRAINING: ::std::result::Result<(), &'static str> = #training_why;

        /// The network with every parameter and auxiliary state filled by
        /// `init(name, shape, values)` (MXNet's names; values start at zero).
        pub fn new(mut init: impl FnMut(&str, &[usize], &mut [f32])) -> Self {
            let mut fill = |table: &[(&str, &[usize])]| -> ::std::vec::Vec<::std::vec::Vec<f32>> {
                table
                    .iter()
                    .map(|(n, s)| {
                        let mut v = ::std::vec![0.0f32; s.iter().product()];
                        init(n, s, &mut v);
                        v
                    })
                    .collect()
            };
            let params = fill(Self::PARAMS);
            let aux = fill(Self::AUX);
            Self {
                params,
                aux,
                constants: #constants,
                arena: ::std::vec![0.0f32; #arena_len],
                train_arena: ::std::vec![0.0f32; #train_len],
                kept_inputs: match #trains {
                    true => Self::INPUTS.iter().map(|(_, s)| ::std::vec![0.0f32; s.iter().product()]).collect(),
                    false => ::std::vec::Vec::new(),
                },
                products: #products,
                nodes: #nodes,
                winograd: ::std::vec![::std::vec::Vec::new(); #winograd],
                winograd_fresh: ::std::vec![false; #winograd],
                passes: 0,
            }
        }

        /// Reads parameters and aux states from an MXNet `.params` file (a checkpoint's
        /// `arg:`/`aux:` keys, or bare names); shapes must match.
        pub fn load_params(&mut self, path: impl ::std::convert::AsRef<::std::path::Path>) -> ::kiln::Result<()> {
            self.winograd_fresh.fill(false);
            ::kiln::runtime::aot::load_params(
                path.as_ref(),
                [Self::PARAMS, Self::AUX],
                [&mut self.params, &mut self.aux],
            )
        }

        /// Writes parameters and aux states as an MXNet checkpoint's `.params`.
        pub fn save_params(&self, path: impl ::std::convert::AsRef<::std::path::Path>) -> ::kiln::Result<()> {
            ::kiln::runtime::aot::save_params(path.as_ref(), [Self::PARAMS, Self::AUX], [&self.params, &self.aux])
        }

        /// The bytes the network holds: parameters, and the arenas planned at build time
        /// (training's with the inputs it keeps).
        pub fn memory_plan() -> ::kiln::runtime::aot::MemoryPlan {
            let count = |t: &[(&str, &[usize])]| t.iter().map(|(_, s)| s.iter().product::<usize>()).sum::<usize>();
            ::kiln::runtime::aot::MemoryPlan {
                parameters: 4 * (count(Self::PARAMS) + count(Self::AUX)),
                inference: 4 * #arena_len,
                training: match #trains {
                    true => 4 * (#train_len + count(Self::INPUTS)),
                    false => 0,
                },
            }
        }

        /// Parameter or auxiliary state `name`'s values.
        pub fn param(&self, name: &str) -> ::std::option::Option<&[f32]> {
            let at = |t: &[(&str, &[usize])]| t.iter().position(|(n, _)| *n == name);
            at(Self::PARAMS)
                .map(|i| &self.params[i][..])
                .or_else(|| at(Self::AUX).map(|i| &self.aux[i][..]))
        }

        /// Parameter or auxiliary state `name`'s values, to set them.
        pub fn param_mut(&mut self, name: &str) -> ::std::option::Option<&mut [f32]> {
            self.winograd_fresh.fill(false);
            let at = |t: &[(&str, &[usize])]| t.iter().position(|(n, _)| *n == name);
            match (at(Self::PARAMS), at(Self::AUX)) {
                (::std::option::Option::Some(i), _) => ::std::option::Option::Some(&mut self.params[i][..]),
                (_, ::std::option::Option::Some(i)) => ::std::option::Option::Some(&mut self.aux[i][..]),
                _ => ::std::option::Option::None,
            }
        }

        /// The inference forward pass, compiled ahead of time: `inputs` in declaration
        /// order at the declared shapes; the outputs, in order.
        #[allow(unused_unsafe, clippy::all)]
        pub fn forward(&mut self, inputs: &[&[f32]]) -> ::kiln::Result<::std::vec::Vec<&[f32]>> {
            #check_inputs
            self.passes += 1;
            let arena = self.arena.as_mut_ptr();
            use #kernels_mod as kernels;
            #forward
            ::std::result::Result::Ok(::std::vec![#(#outputs),*])
        }

        #train
    };
    let kernels = quote! {
        #[doc(hidden)]
        #[allow(clippy::all, unused)]
        mod #kernels_mod {
            #kernels
        }
    };
    (fields, methods, kernels)
}
