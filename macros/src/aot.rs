//! Ahead-of-time code: the network compiled by kiln's one pipeline
//! ([`kiln_compiler::program::compile`], the passes included) for inference and, where
//! every output is a loss, for training with a gradient for every parameter; each
//! program's steps rendered as Rust in the program's order: compiled kernels with their
//! shapes as constants ([`kiln_compiler::kir::rust`]), matrix products on kiln's CPU gemm
//! (their pack and epilogue kernels rendered too, the epilogue run on each block of the
//! product where the program fuses it; Winograd for inference 3x3 convolutions), library
//! nodes on their native kernels (reference kernels where they have none).
//!
//! Every value lives where the program's layout puts it: its f32 arena at the planned
//! offsets (shared by lifetime, in place where a kernel allows), the products' workspace
//! included. Outputs, gradients and new aux values stay in the arena to the end (the
//! target's `heads_in_arena`), so the program's store steps are not needed. Variables are
//! the struct's: parameters, aux states, folded constants, and the training inputs, which
//! `forward_train` copies into buffers of their own because backward reads them after
//! it returns.
//!
//! Not covered: dtypes other than f32 (such networks get no `forward`; the struct says
//! why), training of networks with outputs other than losses.

use kiln_compiler::autodiff::GradReq;
use kiln_compiler::kir::matmul::{MatMul, Split};
use kiln_compiler::kir::{lower, rust, Kernel, KirError, Schedule, WinogradPlan};
use kiln_compiler::program::{compile, Mode, Place, Product, Program, Spec, StepKind, Target};
use kiln_compiler::{DType, Entry, NodeId, Symbol};
use kiln_syntax::{Built, DimValue};
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};
use std::collections::HashMap;

/// Why ahead-of-time code cannot be generated (the struct then says so and binds on the
/// JIT), or why training code cannot.
#[derive(Debug, thiserror::Error)]
pub enum AotError {
    #[error(transparent)]
    Compile(#[from] kiln_compiler::Error),
    #[error(transparent)]
    Kernel(#[from] KirError),
    #[error("ahead-of-time code is generated for f32 networks only")]
    NotF32,
    #[error("an output is not a loss (training code takes no head gradients)")]
    NotALoss,
    #[error("the training program does not compile: {0}")]
    Training(Box<AotError>),
    /// The program's layout does not place a value where generated code needs it (a bug).
    #[error("{0}")]
    Layout(String),
    /// A rendered kernel is not Rust tokens (a bug in the renderer).
    #[error("kernel `{kernel}` does not lex: {message}")]
    Tokens { kernel: String, message: String },
    /// The generator panicked (a bug in kiln).
    #[error("kiln's ahead-of-time code generation failed (a bug in kiln): {0}")]
    Panicked(String),
}

type Result<T, E = AotError> = std::result::Result<T, E>;

fn layout(what: impl Into<String>) -> AotError {
    AotError::Layout(what.into())
}

/// Where a value lives at run time.
#[derive(Clone, Copy)]
enum Buf {
    /// The caller's input slice.
    Input(usize),
    /// The copy of an input that training keeps for backward.
    KeptInput(usize),
    Param(usize),
    Aux(usize),
    /// A folded constant of the struct's.
    Constant(usize),
    /// f32 elements `[at, at + len)` of the arena.
    Arena {
        at: usize,
        len: usize,
    },
}

/// The generated code's pieces.
pub struct Aot {
    /// Kernel modules.
    pub kernels: TokenStream,
    /// Products' descriptions, built once (`Vec<MatMul>`).
    pub products: TokenStream,
    /// Library nodes' operators and parsed parameters, built once.
    pub nodes: TokenStream,
    /// Folded constants' values (`Vec<Vec<f32>>`).
    pub constants: TokenStream,
    /// Winograd convolutions, each with a slot of transformed weights.
    pub winograd: usize,
    pub inference: Code,
    /// The training code where the network can be trained (every output a loss), else
    /// why not.
    pub training: Result<Training>,
}

/// One program's code over its own arena.
pub struct Code {
    /// The forward steps' statements, then the backward ones'.
    pub forward: TokenStream,
    pub backward: TokenStream,
    /// The arena's length in f32 elements.
    pub arena_len: usize,
    /// The outputs' slices.
    pub outputs: Vec<TokenStream>,
}

pub struct Training {
    pub code: Code,
    /// Each parameter's gradient (by index in `PARAMS`; `None` where nothing depends on
    /// it).
    pub grads: Vec<Option<TokenStream>>,
    /// Aux states (by index in `AUX`) and their new values after a step.
    pub aux_updates: Vec<(usize, TokenStream)>,
}

/// What every program's code shares: kernel modules, products, library nodes, constants.
#[derive(Default)]
struct Shared {
    kernels: Vec<TokenStream>,
    products: Vec<TokenStream>,
    nodes: Vec<TokenStream>,
    constants: Vec<TokenStream>,
    /// Winograd convolutions (slots of transformed weights).
    winograd: usize,
}

/// The code of a checked network at its declared shapes, its parameters and aux states in
/// the struct's order; `Err` where it cannot be generated.
pub fn generate(built: &Built) -> Result<Aot> {
    let symbol = &Symbol::from_json(&built.json)?;
    let inputs: Vec<(String, Vec<usize>)> = (built.inputs.iter())
        .map(|(n, s)| (n.clone(), s.iter().map(DimValue::value).collect()))
        .collect();
    let names = |t: &[(String, Vec<usize>)]| t.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    let (params, aux) = (&names(&built.params), &names(&built.aux));
    let shapes: HashMap<String, Vec<usize>> = inputs.iter().cloned().collect();
    // Winograd only in inference: a training step changes the weights every time. Packs
    // run as the generated kernels they are (no gathers into gemm's panels).
    let target = |winograd| Target {
        winograd,
        implicit_gemm: false,
        symbolic_batch: false,
        heads_in_arena: true,
        ..Target::cpu()
    };
    let program =
        |mode, winograd| compile(symbol, &Spec::new(shapes.clone(), mode, target(winograd)));
    let mut vars: HashMap<String, Buf> = HashMap::new();
    for (i, n) in params.iter().enumerate() {
        vars.insert(n.clone(), Buf::Param(i));
    }
    for (i, n) in aux.iter().enumerate() {
        vars.insert(n.clone(), Buf::Aux(i));
    }
    let mut shared = Shared::default();
    let mut inference_vars = vars.clone();
    for (i, (n, _)) in inputs.iter().enumerate() {
        inference_vars.insert(n.clone(), Buf::Input(i));
        vars.insert(n.clone(), Buf::KeptInput(i));
    }
    let inference = program(Mode::Inference, true)?;
    let (inference, _) = code(&mut shared, &inference, &inference_vars)?;
    let reqs = params.iter().map(|n| (n.clone(), GradReq::Write)).collect();
    // Without training code the struct still runs inference, and says why.
    let training = match program(Mode::Training(reqs), false) {
        Err(e) => Err(AotError::Training(Box::new(e.into()))),
        Ok(p) if p.training.head_grads.iter().any(Option::is_some) => Err(AotError::NotALoss),
        Ok(p) => training(&mut shared, &p, &vars, params, aux),
    };
    let Shared {
        kernels,
        products,
        nodes,
        constants,
        winograd,
    } = shared;
    Ok(Aot {
        winograd,
        kernels: quote! { #(#kernels)* },
        products: quote! { ::std::vec![#(#products),*] },
        nodes: quote! { ::std::vec![#(#nodes),*] },
        constants: quote! { ::std::vec![#(#constants),*] },
        inference,
        training,
    })
}

/// The training code of program `p`: its code, each parameter's gradient and the aux
/// states' new values.
fn training(
    shared: &mut Shared,
    p: &Program,
    vars: &HashMap<String, Buf>,
    params: &[String],
    aux: &[String],
) -> Result<Training> {
    let t = &p.training;
    let (code, gen) = code(shared, p, vars)?;
    let mut grads = vec![None; params.len()];
    for (k, (id, _)) in t.grads.iter().enumerate() {
        let name = &t.graph.node(*id).name;
        if let Some(i) = params.iter().position(|p| p == name) {
            grads[i] = Some(gen.read_entry(t.grad_entry(k))?);
        }
    }
    let mut aux_updates = Vec::new();
    for (k, id) in t.aux_updates.iter().enumerate() {
        let name = &t.graph.node(*id).name;
        let Some(i) = aux.iter().position(|a| a == name) else {
            continue;
        };
        // A state a step leaves as it was (BatchNorm with global statistics).
        if let Buf::Aux(j) = gen.buf(t.aux_entry(k))? {
            if j == i {
                continue;
            }
        }
        aux_updates.push((i, gen.read_entry(t.aux_entry(k))?));
    }
    Ok(Training {
        code,
        grads,
        aux_updates,
    })
}

/// The code of program `p`, its variables bound as `vars` says; also the generator, to
/// read more of its values.
fn code<'a>(
    shared: &'a mut Shared,
    p: &'a Program,
    vars: &'a HashMap<String, Buf>,
) -> Result<(Code, Gen<'a>)> {
    if (p.inferred.dtypes.iter().flatten()).any(|d| *d != Some(DType::F32)) {
        return Err(AotError::NotF32);
    }
    let g = p.graph();
    let mut constants = HashMap::new();
    // In node order, so the generated code is the same from build to build.
    let mut folded: Vec<_> = g.constants.iter().collect();
    folded.sort_by_key(|(id, _)| **id);
    for (&id, t) in folded {
        constants.insert(id, shared.constants.len());
        let values = t.data.iter().map(|&v| f32_literal(v as f32));
        shared.constants.push(quote! { ::std::vec![#(#values),*] });
    }
    let mut gen = Gen {
        p,
        vars,
        constants,
        shared,
    };
    let (mut forward, mut backward) = (Vec::new(), Vec::new());
    for (s, step) in p.steps.iter().enumerate() {
        let ins = (step.inputs.iter().map(|&e| gen.buf(e))).collect::<Result<Vec<_>, _>>()?;
        let outs = (step.outputs.iter().map(|&e| gen.buf(e))).collect::<Result<Vec<_>, _>>()?;
        let tokens = match &step.kind {
            // Heads stay in the arena: nothing to store.
            StepKind::Store { .. } => continue,
            StepKind::Reference | StepKind::Native => gen.node(step.nodes[0], &ins, &outs)?,
            StepKind::Kernel { ir, .. } => gen.kernel(ir, &ins, &outs)?,
            StepKind::Product(product) => {
                gen.product(product, &ins, &outs, &p.layout.workspace[s])?
            }
        };
        match step.forward {
            true => forward.push(tokens),
            false => backward.push(tokens),
        }
    }
    let heads = &g.heads[..p.training.num_outputs];
    let outputs = (heads.iter().map(|&h| gen.read_entry(h))).collect::<Result<_, _>>()?;
    let code = Code {
        forward: quote! { #(#forward)* },
        backward: quote! { #(#backward)* },
        arena_len: p.layout.arena_bytes / 4,
        outputs,
    };
    Ok((code, gen))
}

/// `v` as a literal (or constant) of the generated code.
fn f32_literal(v: f32) -> TokenStream {
    match v {
        v if v.is_nan() => quote! { f32::NAN },
        f32::INFINITY => quote! { f32::INFINITY },
        f32::NEG_INFINITY => quote! { f32::NEG_INFINITY },
        v => {
            let l = proc_macro2::Literal::f32_suffixed(v);
            quote! { #l }
        }
    }
}

fn usizes(v: &[usize]) -> TokenStream {
    quote! { ::std::vec![#(#v),*] }
}

/// Renders one program's steps.
struct Gen<'a> {
    p: &'a Program,
    vars: &'a HashMap<String, Buf>,
    /// Each folded constant's index among the struct's.
    constants: HashMap<NodeId, usize>,
    shared: &'a mut Shared,
}

impl Gen<'_> {
    /// Where value `e` lives: its variable's buffer, or its place in the arena.
    fn buf(&self, e: Entry) -> Result<Buf> {
        let g = self.p.graph();
        let n = g.node(e.node);
        if let Some(&i) = self.constants.get(&e.node) {
            return Ok(Buf::Constant(i));
        }
        if n.is_variable() {
            return (self.vars.get(&n.name).copied())
                .ok_or_else(|| layout(format!("variable `{}` has no buffer", n.name)));
        }
        match self.p.layout.places.get(&e) {
            Some(Place::Arena(offset)) => Ok(Buf::Arena {
                at: offset / 4,
                len: self.p.inferred.shape(e).iter().product(),
            }),
            _ => Err(layout(format!("{} is not in the arena", g.entry_name(e)))),
        }
    }

    fn read_entry(&self, e: Entry) -> Result<TokenStream> {
        self.buf(e).map(read)
    }

    /// Renders `k` as a kernel module: its name, and the extent `run_range` splits.
    fn render(&mut self, k: &Kernel) -> Result<(Ident, Option<i64>)> {
        let name = format!("k{}", self.shared.kernels.len());
        let nest = lower(k, &Schedule::cpu(k))?;
        let nest = kiln_compiler::kir::LoopNest {
            name: name.clone(),
            ..nest
        };
        let source = rust::render_raw(&nest)?.replace("kiln_ops::", "::kiln::ops::");
        let module: TokenStream = source.parse().map_err(|e| AotError::Tokens {
            kernel: k.name.clone(),
            message: format!("{e:?}"),
        })?;
        self.shared.kernels.push(module);
        Ok((format_ident!("{}", name), rust::split_extent(&nest)))
    }

    /// A call of kernel `k` on `ins` and `outs`: its outermost loop split over kiln's
    /// pool where the nest allows (as the JIT runs kernels), else whole. Through raw
    /// pointers, as an output may lie over an input.
    fn kernel(&mut self, k: &Kernel, ins: &[Buf], outs: &[Buf]) -> Result<TokenStream> {
        let (module, rows) = self.render(k)?;
        let (at, addresses) = addresses("", ins, outs)?;
        let whole = whole_call(&module, rows, k, &at);
        Ok(quote! { { #addresses #whole } })
    }

    /// A matrix product with its packs and epilogue: packed operands into the workspace,
    /// the product into the output (or, where an epilogue follows, into the workspace,
    /// the epilogue reading it after each block's products where the program fuses it).
    fn product(
        &mut self,
        p: &Product,
        ins: &[Buf],
        outs: &[Buf],
        workspace: &[(usize, usize)],
    ) -> Result<TokenStream> {
        let [out] = outs else {
            return Err(layout("a product writes one output"));
        };
        let mm = &p.matmul;
        let mut buffers = workspace.iter().map(|&(offset, _)| offset / 4);
        let mut stmts = Vec::new();
        let mut operands: Vec<TokenStream> = ins.iter().map(|&b| pointer(b)).collect();
        for (pack, _) in &p.packs {
            let len = kiln_compiler::kir::interp::extent(&pack.outputs[0].len, &[])? as usize;
            let at = buffers
                .next()
                .ok_or_else(|| layout("a pack without workspace"))?;
            let packed = Buf::Arena { at, len };
            stmts.push(self.kernel(pack, ins, &[packed])?);
            operands.push(pointer(packed));
        }
        // A Winograd convolution's working space, and its transformed weights where they
        // are remade on every run.
        let scratch = match &p.winograd {
            Some(plan) => {
                let mut next = |len| {
                    (buffers.next())
                        .map(|at| Buf::Arena { at, len })
                        .ok_or_else(|| layout("a Winograd convolution without working space"))
                };
                let scratch = match plan.conv.weight_gradient {
                    true => next(plan.scratch_len(plan.conv.batch))?,
                    false => next(plan.conv.scratch_len())?,
                };
                let remade = match plan.keep_weights || plan.conv.weight_gradient {
                    true => None,
                    false => Some(next(plan.conv.weights_len())?),
                };
                Some((scratch, remade))
            }
            None => None,
        };
        let dst = match &p.epilogue {
            Some(_) => {
                let at = buffers
                    .next()
                    .ok_or_else(|| layout("a product without workspace"))?;
                Buf::Arena {
                    at,
                    len: written(*out)?.1,
                }
            }
            None => *out,
        };
        // The epilogue as a closure of the block of the split axis (`None`: whole).
        let (epilogue, aligned) = match &p.epilogue {
            Some((e, _)) => {
                let (module, rows) = self.render(e)?;
                let mut e_ins = ins.to_vec();
                e_ins.push(dst);
                let (at, addresses) = addresses("e_", &e_ins, outs)?;
                let whole = whole_call(&module, rows, e, &at);
                let aligned = mm.split_aligned && rows.is_some();
                let block = match aligned {
                    true => quote! {
                        // SAFETY (generated): blocks of the split axis write disjoint
                        // parts of the output.
                        unsafe { kernels::#module::run_range(#at &[], lo, hi) }
                    },
                    false => quote! { {} },
                };
                let closure = quote! {
                    #addresses
                    let epilogue = |block: ::std::option::Option<(i64, i64)>| match block {
                        ::std::option::Option::Some((lo, hi)) => #block,
                        ::std::option::Option::None => #whole,
                    };
                };
                (closure, aligned)
            }
            None => (
                quote! { let epilogue = |_: ::std::option::Option<(i64, i64)>| {}; },
                false,
            ),
        };
        stmts.push(epilogue);
        match p.winograd.as_ref().zip(scratch) {
            Some((plan, scratch)) => stmts.push(self.winograd(plan, ins, dst, scratch)?),
            None => {
                let index = self.shared.products.len();
                self.shared.products.push(matmul_tokens(mm, aligned));
                let dst = write_pointer(dst)?;
                stmts.push(quote! {
                    // SAFETY (generated): the operands and the destination are the
                    // product's buffers, of the lengths its kernel declares, and do not
                    // overlap.
                    unsafe {
                        ::kiln::runtime::cpu::matmul::run(
                            &self.products[#index],
                            &[#(#operands),*],
                            [::std::option::Option::None, ::std::option::Option::None],
                            #dst as *mut u8,
                            &epilogue,
                        )
                    };
                });
            }
        }
        Ok(quote! { { #(#stmts)* } })
    }

    /// A convolution by Winograd's algorithm into `dst`, then the epilogue whole: its
    /// weights transformed into `remade` on every run where the program says so, else
    /// into the struct's `winograd` slot, once per change of the parameters where the
    /// weight is one or a constant; or a weight gradient, which transforms no weight.
    fn winograd(
        &mut self,
        plan: &WinogradPlan,
        ins: &[Buf],
        dst: Buf,
        (scratch, remade): (Buf, Option<Buf>),
    ) -> Result<TokenStream> {
        let c = &plan.conv;
        let (batch, channels, height, width, filters) =
            (c.batch, c.channels, c.height, c.width, c.filters);
        let ([py, px], last, data_gradient) = (c.pad, c.channel_last, c.data_gradient);
        let (weight_gradient, output_tile) = (c.weight_gradient, c.output_tile);
        let (data, weight) = (read(ins[plan.data]), read(ins[plan.weight]));
        let (out, scratch) = (write(dst)?, write(scratch)?);
        let run = match remade {
            // A weight gradient: the output gradient in the weight's place.
            _ if weight_gradient => quote! {
                conv.weight_gradient(#weight, #data, #out, #scratch);
            },
            Some(remade) => {
                let u = write(remade)?;
                quote! {
                    let u = #u;
                    conv.transform_weights(#weight, u);
                    conv.run(#data, u, #out, #scratch);
                }
            }
            None => {
                let slot = self.shared.winograd;
                self.shared.winograd += 1;
                let cached = matches!(ins[plan.weight], Buf::Param(_) | Buf::Constant(_));
                quote! {
                    if !(#cached && self.winograd_fresh[#slot]) {
                        self.winograd[#slot].resize(conv.weights_len(), 0.0);
                        conv.transform_weights(#weight, &mut self.winograd[#slot]);
                        self.winograd_fresh[#slot] = true;
                    }
                    conv.run(#data, &self.winograd[#slot], #out, #scratch);
                }
            }
        };
        Ok(quote! {
            {
                use ::kiln::runtime::cpu::winograd::Winograd;
                let conv = ::kiln::compiler::kir::Conv3x3 {
                    batch: #batch, channels: #channels, height: #height, width: #width,
                    filters: #filters, pad: [#py, #px], channel_last: #last,
                    data_gradient: #data_gradient, weight_gradient: #weight_gradient,
                    output_tile: #output_tile,
                };
                #run
                epilogue(::std::option::Option::None);
            }
        })
    }

    /// A library node on its native kernel, else its reference kernel. An input the
    /// layout put under an output (a reference kernel reads its inputs before it writes)
    /// is read from a copy, so no slice aliases another.
    fn node(&mut self, id: NodeId, ins: &[Buf], outs: &[Buf]) -> Result<TokenStream> {
        let (g, inferred) = (self.p.graph(), &self.p.inferred);
        let n = g.node(id);
        let op = (n.op).ok_or_else(|| layout(format!("node `{}` has no operator", n.name)))?;
        let op_name = op.name;
        let in_shapes: Vec<TokenStream> = (n.inputs.iter())
            .map(|&e| usizes(inferred.shape(e)))
            .collect();
        let out_shapes: Vec<TokenStream> = (inferred.shapes[id.index()].iter())
            .map(|s| usizes(s))
            .collect();
        let attrs = n.attrs.iter().filter(|(k, _)| !k.starts_with("__"));
        let (keys, values): (Vec<_>, Vec<_>) = attrs.unzip();
        let index = self.shared.nodes.len();
        self.shared.nodes.push(quote! {
            {
                let op = ::kiln::ops::lookup(#op_name).expect("a registered operator");
                let raw = [#((#keys.to_string(), #values.to_string())),*].into_iter().collect();
                let attrs = ::kiln::ops::Attrs::parse(op.params, &raw).expect("parameters the macro checked");
                (op, attrs)
            }
        });
        let overlaps = |b: &Buf| outs.iter().any(|o| overlap(b, o));
        let copies: Vec<TokenStream> = (ins.iter().enumerate())
            .filter(|(_, b)| overlaps(b))
            .map(|(i, &b)| {
                let (copy, r) = (format_ident!("copy{}", i), read(b));
                quote! { let #copy: ::std::vec::Vec<f32> = (#r).to_vec(); }
            })
            .collect();
        let reads = ins.iter().enumerate().map(|(i, b)| match overlaps(b) {
            true => {
                let copy = format_ident!("copy{}", i);
                quote! { &#copy[..] }
            }
            false => read(*b),
        });
        let writes = outs
            .iter()
            .map(|&b| write(b))
            .collect::<Result<Vec<_>, _>>()?;
        let is_train = self.p.mode.is_train();
        // A random operator draws from a key of its own node and of the pass (the
        // struct's count of passes run), so each pass draws afresh.
        let rng_key = match op.resources.contains(&kiln_ops::Resource::Random) {
            true => {
                let node = id.index() as u64;
                quote! { ::kiln::ops::random::key(self.passes, #node) }
            }
            false => quote! { [0, 0] },
        };
        Ok(quote! {
            {
                let (op, attrs) = &self.nodes[#index];
                let out_shapes: ::std::vec::Vec<::std::vec::Vec<usize>> = ::std::vec![#(#out_shapes),*];
                let in_shapes: ::std::vec::Vec<::std::vec::Vec<usize>> = ::std::vec![#(#in_shapes),*];
                let out_dtypes = ::std::vec![::kiln::DType::F32; out_shapes.len()];
                let ctx = ::kiln::ops::KernelCtx {
                    attrs,
                    is_train: #is_train,
                    out_shapes: &out_shapes,
                    out_dtypes: &out_dtypes,
                    rng_key: #rng_key,
                };
                #(#copies)*
                let ins: &[&[f32]] = &[#(#reads),*];
                let outs: &mut [&mut [f32]] = &mut [#(#writes),*];
                ::kiln::runtime::aot::run_node(op, &ctx, ins, &in_shapes, outs)?;
            }
        })
    }
}

/// Whether two buffers share elements.
fn overlap(a: &Buf, b: &Buf) -> bool {
    match (a, b) {
        (Buf::Arena { at: a, len: la }, Buf::Arena { at: b, len: lb }) => {
            a < &(b + lb) && b < &(a + la)
        }
        _ => false,
    }
}

/// The address of arena element `at`.
fn at(at: usize) -> TokenStream {
    // SAFETY (generated): the layout's offsets lie inside the arena.
    quote! { unsafe { arena.add(#at) } }
}

fn read(b: Buf) -> TokenStream {
    match b {
        Buf::Input(i) => quote! { inputs[#i] },
        Buf::KeptInput(i) => quote! { &self.kept_inputs[#i][..] },
        Buf::Param(i) => quote! { &self.params[#i][..] },
        Buf::Aux(i) => quote! { &self.aux[#i][..] },
        Buf::Constant(i) => quote! { &self.constants[#i][..] },
        Buf::Arena { at: a, len } => {
            let a = at(a);
            // SAFETY (generated): the program's layout keeps values live at once apart,
            // inside the arena.
            quote! { unsafe { ::std::slice::from_raw_parts(#a, #len) } }
        }
    }
}

/// The arena elements `(at, len)` of a buffer a step writes (steps write no variable).
fn written(b: Buf) -> Result<(usize, usize)> {
    match b {
        Buf::Arena { at, len } => Ok((at, len)),
        _ => Err(layout("a step writes a variable")),
    }
}

fn write(b: Buf) -> Result<TokenStream> {
    let (a, len) = written(b)?;
    let a = at(a);
    // SAFETY (generated): the program's layout places a written value at its own `len`
    // elements inside the arena, apart from every value live while the step runs, so the
    // mutable slice is the only reference to them.
    Ok(quote! { unsafe { ::std::slice::from_raw_parts_mut(#a, #len) } })
}

fn pointer(b: Buf) -> TokenStream {
    match b {
        Buf::Arena { at: a, .. } => {
            let a = at(a);
            quote! { (#a as *const f32 as *const u8) }
        }
        b => {
            let r = read(b);
            quote! { ((#r).as_ptr() as *const u8) }
        }
    }
}

fn write_pointer(b: Buf) -> Result<TokenStream> {
    written(b).map(|(a, _)| at(a))
}

/// The buffers' addresses as integers named `<prefix>in<i>` and `<prefix>out<i>` (so
/// closures over them are shareable between threads): the names as the kernel's
/// arguments, and the statements binding them.
fn addresses(prefix: &str, ins: &[Buf], outs: &[Buf]) -> Result<(TokenStream, TokenStream)> {
    let (mut args, mut lets) = (Vec::new(), Vec::new());
    for (i, &b) in ins.iter().enumerate() {
        let name = format_ident!("{}in{}", prefix, i);
        let p = pointer(b);
        lets.push(quote! { let #name = #p as usize; });
        args.push(quote! { #name as *const f32, });
    }
    for (i, &b) in outs.iter().enumerate() {
        let name = format_ident!("{}out{}", prefix, i);
        let p = write_pointer(b)?;
        lets.push(quote! { let #name = #p as usize; });
        args.push(quote! { #name as *mut f32, });
    }
    Ok((quote! { #(#args)* }, quote! { #(#lets)* }))
}

/// Kernel `module` (of IR `k`) run whole on the addresses `args`: split over the pool
/// where it has a range to split.
fn whole_call(module: &Ident, rows: Option<i64>, k: &Kernel, args: &TokenStream) -> TokenStream {
    let Some(rows) = rows else {
        // SAFETY (generated): the kernel's buffers, of the lengths it declares.
        return quote! { unsafe { kernels::#module::run_raw(#args &[]) } };
    };
    // Element operations: the domain's points.
    let work: i64 = (k.domain.iter())
        .map(|d| kiln_compiler::kir::interp::extent(d, &[]).unwrap_or(1))
        .product();
    quote! {
        ::kiln::runtime::cpu::pool::global().run_rows(#rows, #work, &|lo, hi| {
            // SAFETY (generated): the kernel's buffers; the blocks of its outermost loop
            // write disjoint parts of the outputs.
            unsafe { kernels::#module::run_range(#args &[], lo, hi) }
        })
    }
}

/// `mm` (without its IR parts, which the generated kernels are) as an expression;
/// `aligned`: the epilogue runs on each block of the split axis.
fn matmul_tokens(mm: &MatMul, aligned: bool) -> TokenStream {
    let m = quote! { ::kiln::compiler::kir::matmul };
    let operand = |o: &kiln_compiler::kir::matmul::Operand| {
        let (input, offset, stride, depth) = (o.input, o.offset, o.stride, o.depth);
        quote! { #m::Operand { input: #input, offset: #offset, stride: #stride, depth: #depth } }
    };
    let loops = |ls: &[kiln_compiler::kir::matmul::OuterLoop]| {
        let items = ls.iter().map(|l| {
            let (extent, a, b, out) = (l.extent, l.a, l.b, l.out);
            quote! { #m::OuterLoop { extent: #extent, a: #a, b: #b, out: #out } }
        });
        quote! { ::std::vec![#(#items),*] }
    };
    let split = match mm.split {
        Split::Loop(l) => quote! { #m::Split::Loop(#l) },
        Split::Rows { inner } => quote! { #m::Split::Rows { inner: #inner } },
        Split::Cols { inner } => quote! { #m::Split::Cols { inner: #inner } },
        Split::None => quote! { #m::Split::None },
    };
    let split_axis = match mm.split_axis {
        Some(a) => quote! { ::std::option::Option::Some(#a) },
        None => quote! { ::std::option::Option::None },
    };
    let (mm_m, n, k, rows, cols, extent) =
        (mm.m, mm.n, mm.k, mm.out_rows, mm.out_cols, mm.split_extent);
    let (a, b) = (operand(&mm.a), operand(&mm.b));
    let (outer, sums) = (loops(&mm.loops), loops(&mm.sums));
    quote! {
        #m::MatMul {
            m: #mm_m, n: #n, k: #k, a: #a, b: #b, out_rows: #rows, out_cols: #cols,
            loops: #outer, sums: #sums, split: #split, split_extent: #extent,
            split_aligned: #aligned, split_axis: #split_axis,
            dtype: ::kiln::DType::F32, packs: ::std::vec![], epilogue: ::std::option::Option::None,
        }
    }
}
