//! Ahead-of-time code: the network's inference graph and its training graph (operators
//! expanded as the JIT executor expands them, the training graph differentiated for every
//! parameter), each cut into the executor's parts
//! ([`kiln_compiler::kir::parts`]), each fused kernel rendered to Rust with its shapes as
//! constants ([`kiln_compiler::kir::rust`]), matrix products run by kiln's CPU gemm
//! (`kiln::runtime::cpu::matmul`, their pack and epilogue kernels rendered too), and
//! library nodes on their native kernels (reference kernels where they have none).
//! Every value of a graph lives in its f32 arena, each at its own offset.
//!
//! Not yet: memory sharing in the arenas, dtypes other than f32 (such networks get no
//! `forward`), training of networks with outputs other than losses.

use kiln_compiler::autodiff::{differentiate, GradReq};
use kiln_compiler::infer::{infer, Inferred};
use kiln_compiler::kir::matmul::{recognize, MatMul, Split};
use kiln_compiler::kir::{lower, parts, rust, winograd_plan, Kernel, Part, Schedule, WinogradPlan};
use kiln_compiler::passes::Expand;
use kiln_compiler::{DType, Entry, Graph, Symbol};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use std::collections::HashMap;

/// Multiply-adds below which a product runs as its compiled kernel (as the JIT decides).
const LEAST_PRODUCT: i64 = 1 << 14;

/// Where a buffer lives at run time.
#[derive(Clone, Copy)]
enum Buf {
    Input(usize),
    Param(usize),
    Aux(usize),
    /// (region, length in f32 elements) of the arena; regions get their offsets once the
    /// units are ordered, sharing space where their lifetimes do not overlap.
    Arena(usize, usize),
}

/// The generated code's pieces.
pub struct Aot {
    /// Kernel modules.
    pub kernels: TokenStream,
    /// Products' descriptions, built once (`Vec<MatMul>`).
    pub products: TokenStream,
    /// Library nodes' operators and parsed parameters, built once.
    pub nodes: TokenStream,
    /// Winograd convolutions, each with a slot of transformed weights.
    pub winograd: usize,
    pub inference: Code,
    /// Where the network can be trained (every output a loss).
    pub training: Option<Training>,
}

/// One graph's code over its own arena.
pub struct Code {
    /// The regions' offsets: `pub mod <prefix> { pub const R<id>: usize = ..; }`.
    pub regions: TokenStream,
    /// Where the inputs are copied first (training keeps them for backward): (region,
    /// length) per input; empty where the code reads the caller's slices.
    pub input_regions: Vec<(usize, usize)>,
    /// The forward units' statements, then the backward ones'.
    pub forward: TokenStream,
    pub backward: TokenStream,
    pub arena_len: usize,
    /// The outputs' places.
    pub outputs: Vec<TokenStream>,
}

pub struct Training {
    pub code: Code,
    /// Each parameter's gradient (by index in `PARAMS`).
    pub grads: Vec<TokenStream>,
    /// Aux states (by index in `AUX`) and their new values after a step.
    pub aux_updates: Vec<(usize, TokenStream)>,
}

/// What every graph's code shares: kernel modules, products and library nodes.
#[derive(Default)]
struct Shared {
    kernels: Vec<TokenStream>,
    products: Vec<TokenStream>,
    nodes: Vec<TokenStream>,
    /// Winograd convolutions (slots of transformed weights).
    winograd: usize,
}

struct Gen<'a> {
    g: &'a Graph,
    inferred: &'a Inferred,
    vars: &'a HashMap<String, Buf>,
    is_train: bool,
    places: HashMap<(usize, usize), Buf>,
    /// Each region's length.
    regions: Vec<usize>,
    /// The regions the unit being generated touches.
    touched: Vec<usize>,
    /// The module of this graph's region offsets.
    prefix: proc_macro2::Ident,
    shared: Shared,
    steps: Vec<Step>,
}

/// One unit's statements, the entries it reads and writes, whether it is a forward
/// unit, and the arena regions it touches.
struct Step {
    reads: Vec<Entry>,
    writes: Vec<Entry>,
    tokens: TokenStream,
    forward: bool,
    regions: Vec<usize>,
}

/// The code of `symbol` with `inputs` (declared shapes), `params` and `aux` (names in the
/// struct's order); `Err` where it cannot be generated yet.
pub fn generate(
    symbol: &Symbol,
    inputs: &[(String, Vec<usize>)],
    params: &[String],
    aux: &[String],
) -> Result<Aot, String> {
    let e = |e: kiln_compiler::Error| e.to_string();
    let shapes: HashMap<String, Vec<usize>> = inputs.iter().cloned().collect();
    let g0 = symbol.to_graph().map_err(e)?;
    let inferred0 = infer(&g0, &shapes, &HashMap::new()).map_err(e)?;
    // Every variable's shape, as the executor binds them (expansion adds nodes that only
    // forward inference can shape).
    let mut shapes = shapes;
    for id in g0.node_ids().filter(|&id| g0.node(id).is_variable()) {
        let s = inferred0.shapes[id.index()][0].clone();
        shapes.entry(g0.node(id).name.clone()).or_insert(s);
    }
    let expanded = |training| -> Result<(Graph, Inferred), String> {
        let expand = Expand {
            training,
            inferred: Some(&inferred0),
        };
        let g = expand.expand(&g0).map_err(e)?.0.graph;
        let inferred = infer(&g, &shapes, &HashMap::new()).map_err(e)?;
        if inferred
            .dtypes
            .iter()
            .flatten()
            .any(|d| *d != Some(DType::F32))
        {
            return Err("ahead-of-time code is generated for f32 networks only".into());
        }
        Ok((g, inferred))
    };
    let mut vars = HashMap::new();
    for (i, (n, _)) in inputs.iter().enumerate() {
        vars.insert(n.clone(), Buf::Input(i));
    }
    for (i, n) in params.iter().enumerate() {
        vars.insert(n.clone(), Buf::Param(i));
    }
    for (i, n) in aux.iter().enumerate() {
        vars.insert(n.clone(), Buf::Aux(i));
    }
    let (g, inferred) = expanded(false)?;
    let (shared, inference, _) = code(
        Shared::default(),
        &g,
        &inferred,
        &vars,
        (g.len(), false, "infer"),
        &[],
        &[],
    )?;
    // Training keeps its inputs in its arena, for backward.
    let train_inputs: Vec<(String, usize)> = (inputs.iter())
        .map(|(n, s)| (n.clone(), s.iter().product()))
        .collect();
    // Training: every parameter gets a gradient; the outputs must all be losses.
    let (g, _) = expanded(true)?;
    let reqs = params.iter().map(|n| (n.clone(), GradReq::Write)).collect();
    let training = differentiate(&g, &reqs, true).map_err(e)?;
    let (shared, training) = match training.head_grads.iter().all(Option::is_none) {
        true => {
            let t = &training;
            let inferred = infer(&t.graph, &shapes, &HashMap::new()).map_err(e)?;
            let exposed: Vec<Entry> = (0..t.grads.len())
                .map(|k| t.grad_entry(k))
                .chain((0..t.aux_updates.len()).map(|k| t.aux_entry(k)))
                .collect();
            let (shared, code, reads) = code(
                shared,
                &t.graph,
                &inferred,
                &vars,
                (t.forward_nodes, true, "train"),
                &exposed,
                &train_inputs,
            )?;
            let (grad_reads, aux_reads) = reads.split_at(t.grads.len());
            let mut grads = vec![quote! { &[] }; params.len()];
            for ((id, _), read) in t.grads.iter().zip(grad_reads) {
                let name = &t.graph.node(*id).name;
                if let Some(i) = params.iter().position(|p| p == name) {
                    grads[i] = read.clone();
                }
            }
            let aux_updates = (t.aux_updates.iter().zip(aux_reads))
                .filter_map(|(id, read)| {
                    let name = &t.graph.node(*id).name;
                    aux.iter()
                        .position(|a| a == name)
                        .map(|i| (i, read.clone()))
                })
                .collect();
            (
                shared,
                Some(Training {
                    code,
                    grads,
                    aux_updates,
                }),
            )
        }
        false => (shared, None),
    };
    let Shared {
        kernels,
        products,
        nodes,
        winograd,
    } = shared;
    Ok(Aot {
        winograd,
        kernels: quote! { #(#kernels)* },
        products: quote! { ::std::vec![#(#products),*] },
        nodes: quote! { ::std::vec![#(#nodes),*] },
        inference,
        training,
    })
}

/// The code of graph `g`: `(forward nodes 0..n, library nodes in training mode, module of
/// its region offsets)`; `train_inputs` are inputs copied into the arena first (name,
/// length). Also the places of the `exposed` entries, which stay live to the end.
fn code(
    shared: Shared,
    g: &Graph,
    inferred: &Inferred,
    vars: &HashMap<String, Buf>,
    (forward_nodes, is_train, prefix): (usize, bool, &str),
    exposed: &[Entry],
    train_inputs: &[(String, usize)],
) -> Result<(Shared, Code, Vec<TokenStream>), String> {
    let mut vars = vars.clone();
    let mut gen = Gen {
        g,
        inferred,
        vars: &HashMap::new(),
        is_train,
        places: HashMap::new(),
        regions: vec![],
        touched: vec![],
        prefix: format_ident!("{}", prefix),
        shared,
        steps: vec![],
    };
    let mut input_regions = Vec::new();
    for (n, len) in train_inputs {
        let b = gen.alloc(*len);
        if let Buf::Arena(id, _) = b {
            input_regions.push((id, *len));
        }
        vars.insert(n.clone(), b);
    }
    gen.vars = &vars;
    for part in parts(g, inferred, &kiln_compiler::passes::fuse(g), forward_nodes) {
        match part {
            Part::Node(id) => gen.node(id, id.index() < forward_nodes)?,
            Part::Fused { kernels, nodes, .. } => {
                let forward = nodes.iter().all(|id| id.index() < forward_nodes);
                // Inference runs 3x3 convolutions with Winograd, as the JIT does (a
                // training step changes the weights every time, so it keeps gemm).
                let winograd = |l| match (is_train, &kernels[..]) {
                    (false, [_]) => winograd_plan(g, inferred, &nodes, l),
                    _ => None,
                };
                for l in &kernels {
                    gen.fused(&l.kernel, &l.inputs, &l.outputs, forward, winograd(l))?;
                }
            }
        }
    }
    // Outputs and exposed entries are read after the last unit: live to the end.
    gen.touched.clear();
    let heads = &g.heads[..g.heads.len() - exposed.len()];
    let read = |gen: &mut Gen, e: Entry| gen.buf(e).map(|b| gen.read(b));
    let outputs = (heads.iter().map(|&h| read(&mut gen, h))).collect::<Result<Vec<_>, _>>()?;
    let exposed = (exposed.iter().map(|&h| read(&mut gen, h))).collect::<Result<Vec<_>, _>>()?;
    let mut pinned = std::mem::take(&mut gen.touched);
    pinned.extend(input_regions.iter().map(|(id, _)| *id));
    let steps = std::mem::take(&mut gen.steps);
    let (forward, backward): (Vec<Step>, Vec<Step>) = steps.into_iter().partition(|s| s.forward);
    let (forward, backward) = (in_order(forward)?, in_order(backward)?);
    let (offsets, arena_len) = place(&gen.regions, forward.iter().chain(&backward), &pinned);
    let consts = offsets.iter().enumerate().map(|(r, o)| {
        let c = format_ident!("R{}", r);
        quote! { pub const #c: usize = #o; }
    });
    let module = &gen.prefix;
    let body = |steps: &[Step]| {
        let tokens = steps.iter().map(|s| &s.tokens);
        quote! { #(#tokens)* }
    };
    let code = Code {
        regions: quote! { pub mod #module { #(#consts)* } },
        input_regions,
        forward: body(&forward),
        backward: body(&backward),
        arena_len,
        outputs,
    };
    Ok((gen.shared, code, exposed))
}

/// Offsets for regions of `lengths` touched by `steps` in order (the `pinned` ones live
/// from the first step to the end): a region takes the best-fitting space freed by
/// regions whose last use came before its first, else space at the end. Returns the
/// offsets and the arena's length.
fn place<'s>(
    lengths: &[usize],
    steps: impl Iterator<Item = &'s Step>,
    pinned: &[usize],
) -> (Vec<usize>, usize) {
    let n = lengths.len();
    let (mut first, mut last) = (vec![usize::MAX; n], vec![0; n]);
    for (t, step) in steps.enumerate() {
        for &r in &step.regions {
            first[r] = first[r].min(t);
            last[r] = last[r].max(t);
        }
    }
    for &r in pinned {
        first[r] = 0;
        last[r] = usize::MAX;
    }
    let mut by_first: Vec<usize> = (0..n).filter(|&r| first[r] != usize::MAX).collect();
    by_first.sort_by_key(|&r| (first[r], r));
    let (mut offsets, mut end) = (vec![0; n], 0);
    // Live regions (last use, offset, length) and free spans (offset, length).
    let mut live: Vec<(usize, usize, usize)> = vec![];
    let mut free: Vec<(usize, usize)> = vec![];
    for r in by_first {
        live.retain(|&(l, o, len)| {
            let ended = l < first[r];
            if ended {
                free.push((o, len));
            }
            !ended
        });
        free.sort_unstable();
        free.dedup();
        let mut merged: Vec<(usize, usize)> = Vec::new();
        for (o, len) in free.drain(..) {
            match merged.last_mut() {
                Some((mo, ml)) if *mo + *ml == o => *ml += len,
                _ => merged.push((o, len)),
            }
        }
        free = merged;
        let len = lengths[r];
        let fit = (0..free.len())
            .filter(|&i| free[i].1 >= len)
            .min_by_key(|&i| free[i].1);
        let offset = match fit {
            Some(i) => {
                let (o, l) = free.swap_remove(i);
                if l > len {
                    free.push((o + len, l - len));
                }
                o
            }
            None => {
                end += len;
                end - len
            }
        };
        offsets[r] = offset;
        live.push((last[r], offset, len));
    }
    (offsets, end)
}

fn usizes(v: &[usize]) -> TokenStream {
    quote! { ::std::vec![#(#v),*] }
}

impl Gen<'_> {
    /// A new arena region of `len` elements, touched by the unit being generated.
    fn alloc(&mut self, len: usize) -> Buf {
        self.regions.push(len);
        self.touched.push(self.regions.len() - 1);
        Buf::Arena(self.regions.len() - 1, len)
    }

    /// Where entry `e` lives: its variable's buffer, or the region of the unit writing it
    /// (touched by the unit being generated).
    fn buf(&mut self, e: Entry) -> Result<Buf, String> {
        let n = self.g.node(e.node);
        let key = (e.node.index(), e.index);
        let b = if n.is_variable() {
            (self.vars.get(&n.name).copied())
                .ok_or_else(|| format!("variable `{}` has no buffer", n.name))?
        } else if let Some(b) = self.places.get(&key) {
            *b
        } else {
            let b = self.alloc(self.inferred.shape(e).iter().product());
            self.places.insert(key, b);
            return Ok(b);
        };
        if let Buf::Arena(r, _) = b {
            self.touched.push(r);
        }
        Ok(b)
    }

    /// The address of region `r`.
    fn at(&self, r: usize) -> TokenStream {
        let (module, c) = (&self.prefix, format_ident!("R{}", r));
        quote! { arena.add(kernels::#module::#c) }
    }

    fn read(&self, b: Buf) -> TokenStream {
        match b {
            Buf::Input(i) => quote! { inputs[#i] },
            Buf::Param(i) => quote! { &self.params[#i][..] },
            Buf::Aux(i) => quote! { &self.aux[#i][..] },
            // SAFETY (generated): regions are disjoint and inside the arena.
            // SAFETY (generated): regions live at once are disjoint and inside the arena.
            Buf::Arena(r, l) => {
                let at = self.at(r);
                quote! { unsafe { ::std::slice::from_raw_parts(#at, #l) } }
            }
        }
    }

    fn write(&self, b: Buf) -> Result<TokenStream, String> {
        match b {
            Buf::Arena(r, l) => {
                let at = self.at(r);
                Ok(quote! { unsafe { ::std::slice::from_raw_parts_mut(#at, #l) } })
            }
            _ => Err("a unit writes a variable".into()),
        }
    }

    fn pointer(&self, b: Buf) -> TokenStream {
        let r = self.read(b);
        quote! { (#r).as_ptr() as *const u8 }
    }

    /// Renders `k` as a kernel module; the call with `ins` and `outs`: its outermost loop
    /// split over kiln's pool where the nest allows (as the JIT runs kernels), else whole.
    fn kernel(&mut self, k: &Kernel, ins: &[Buf], outs: &[Buf]) -> Result<TokenStream, String> {
        let name = format!("k{}", self.shared.kernels.len());
        let nest = lower(k, &Schedule::cpu(k))?;
        let nest = kiln_compiler::kir::LoopNest {
            name: name.clone(),
            ..nest
        };
        let source = rust::render(&nest)?.replace("kiln_ops::", "::kiln::ops::");
        let module: TokenStream = source.parse().map_err(|e| format!("{e:?}"))?;
        self.shared.kernels.push(module);
        let module = format_ident!("{}", name);
        let reads: Vec<TokenStream> = ins.iter().map(|&b| self.read(b)).collect();
        let writes = outs
            .iter()
            .map(|&b| self.write(b))
            .collect::<Result<Vec<_>, _>>()?;
        let Some(rows) = rust::split_extent(&nest) else {
            return Ok(quote! { kernels::#module::run(#(#reads,)* #(#writes,)* &[]); });
        };
        // Element operations: the domain's points.
        let work: i64 = (k.domain.iter())
            .map(|d| kiln_compiler::kir::interp::extent(d, &[]).unwrap_or(1))
            .product();
        let (ins_at, outs_at): (Vec<_>, Vec<_>) = (
            (0..ins.len()).map(|i| format_ident!("in{}", i)).collect(),
            (0..outs.len()).map(|i| format_ident!("out{}", i)).collect(),
        );
        // Addresses as integers, so the tasks' closure is shareable between threads.
        Ok(quote! {
            {
                #(let #ins_at = (#reads).as_ptr() as usize;)*
                #(let #outs_at = (#writes).as_mut_ptr() as usize;)*
                ::kiln::runtime::cpu::pool::global().run_rows(#rows, #work, &|lo, hi| {
                    // SAFETY (generated): the buffers the kernel declares; the blocks of
                    // its outermost loop write disjoint parts of the outputs.
                    unsafe {
                        kernels::#module::run_range(
                            #(#ins_at as *const f32,)* #(#outs_at as *mut f32,)* &[], lo, hi,
                        )
                    }
                });
            }
        })
    }

    /// One kernel of a fused part: a matrix product with its packs and epilogue where one
    /// is recognized and large enough, else the loops.
    fn fused(
        &mut self,
        k: &Kernel,
        reads: &[Entry],
        writes: &[Entry],
        forward: bool,
        winograd: Option<WinogradPlan>,
    ) -> Result<(), String> {
        self.touched.clear();
        let ins: Vec<Buf> = reads
            .iter()
            .map(|&e| self.buf(e))
            .collect::<Result<_, _>>()?;
        let outs: Vec<Buf> = writes
            .iter()
            .map(|&e| self.buf(e))
            .collect::<Result<_, _>>()?;
        let step = |gen: &mut Self, tokens| Step {
            reads: reads.to_vec(),
            writes: writes.to_vec(),
            tokens,
            forward,
            regions: std::mem::take(&mut gen.touched),
        };
        let product = recognize(k).filter(|mm| mm.m * mm.n * mm.k >= LEAST_PRODUCT);
        let Some(mm) = product.filter(|_| outs.len() == 1) else {
            let call = self.kernel(k, &ins, &outs)?;
            let step = step(self, call);
            self.steps.push(step);
            return Ok(());
        };
        // The product goes where the epilogue reads it, or straight to the output.
        let dst = match &mm.epilogue {
            Some(_) => self.alloc(self.len(outs[0])?),
            None => outs[0],
        };
        let mut stmts = match winograd {
            Some(plan) => vec![self.winograd(&plan, &ins, dst)?],
            None => self.gemm(&mm, &ins, dst)?,
        };
        if let Some(e) = &mm.epilogue {
            let mut e_ins = ins.clone();
            e_ins.push(dst);
            stmts.push(self.kernel(e, &e_ins, &outs)?);
        }
        let step = step(self, quote! { { #(#stmts)* } });
        self.steps.push(step);
        Ok(())
    }

    /// The product `mm` of a kernel reading `ins` on kiln's gemm into `dst`, its packed
    /// operands first.
    fn gemm(&mut self, mm: &MatMul, ins: &[Buf], dst: Buf) -> Result<Vec<TokenStream>, String> {
        let mut stmts = Vec::new();
        let mut operands: Vec<TokenStream> = ins.iter().map(|&b| self.pointer(b)).collect();
        for p in &mm.packs {
            let len = kiln_compiler::kir::interp::extent(&p.outputs[0].len, &[])? as usize;
            let region = self.alloc(len);
            stmts.push(self.kernel(p, ins, &[region])?);
            operands.push(self.pointer(region));
        }
        let Buf::Arena(dst_region, _) = dst else {
            return Err("a product writes a variable".into());
        };
        let dst_at = self.at(dst_region);
        let index = self.shared.products.len();
        self.shared.products.push(matmul_tokens(mm));
        stmts.push(quote! {
            // SAFETY (generated): the operands and the destination are the product's
            // buffers, of the lengths its kernel declares, and do not overlap.
            unsafe {
                ::kiln::runtime::cpu::matmul::run(
                    &self.products[#index],
                    &[#(#operands),*],
                    #dst_at as *mut u8,
                    &|_| {},
                )
            };
        });
        Ok(stmts)
    }

    /// The length of a region a unit writes.
    fn len(&self, b: Buf) -> Result<usize, String> {
        match b {
            Buf::Arena(_, l) => Ok(l),
            _ => Err("a unit writes a variable".into()),
        }
    }

    /// A convolution by Winograd's algorithm into `dst`: its weights transformed once per
    /// change of the parameters where the weight is one (the struct's `winograd` slot),
    /// else on every run.
    fn winograd(
        &mut self,
        plan: &WinogradPlan,
        ins: &[Buf],
        dst: Buf,
    ) -> Result<TokenStream, String> {
        let c = &plan.conv;
        let (batch, channels, height, width, filters) =
            (c.batch, c.channels, c.height, c.width, c.filters);
        let ([py, px], last) = (c.pad, c.channel_last);
        let slot = self.shared.winograd;
        self.shared.winograd += 1;
        let (data, weight) = (self.read(ins[plan.data]), self.read(ins[plan.weight]));
        let out = self.write(dst)?;
        let cached = matches!(ins[plan.weight], Buf::Param(_));
        Ok(quote! {
            {
                use ::kiln::runtime::cpu::winograd::Winograd;
                let conv = ::kiln::compiler::kir::Conv3x3 {
                    batch: #batch, channels: #channels, height: #height, width: #width,
                    filters: #filters, pad: [#py, #px], channel_last: #last,
                };
                if !(#cached && self.winograd_fresh[#slot]) {
                    self.winograd[#slot].resize(conv.weights_len(), 0.0);
                    conv.transform_weights(#weight, &mut self.winograd[#slot]);
                    self.winograd_fresh[#slot] = true;
                }
                conv.run(#data, &self.winograd[#slot], #out);
            }
        })
    }

    /// A library node on its native kernel, else its reference kernel.
    fn node(&mut self, id: kiln_compiler::NodeId, forward: bool) -> Result<(), String> {
        self.touched.clear();
        let n = self.g.node(id);
        let op = n.op.ok_or("an operator node without an operator")?;
        let op_name = op.name;
        let ins: Vec<Buf> = n
            .inputs
            .iter()
            .map(|&e| self.buf(e))
            .collect::<Result<_, _>>()?;
        let count = self.inferred.shapes[id.index()].len();
        let outs: Vec<Buf> = (0..count)
            .map(|index| self.buf(Entry { node: id, index }))
            .collect::<Result<_, _>>()?;
        let in_shapes: Vec<TokenStream> = (n.inputs.iter())
            .map(|&e| usizes(self.inferred.shape(e)))
            .collect();
        let out_shapes: Vec<TokenStream> = (self.inferred.shapes[id.index()].iter())
            .map(|s| usizes(s))
            .collect();
        let keys = n
            .attrs
            .iter()
            .filter(|(k, _)| !k.starts_with("__"))
            .map(|(k, _)| k);
        let values = n
            .attrs
            .iter()
            .filter(|(k, _)| !k.starts_with("__"))
            .map(|(_, v)| v);
        let index = self.shared.nodes.len();
        let is_train = self.is_train;
        self.shared.nodes.push(quote! {
            {
                let op = ::kiln::ops::lookup(#op_name).expect("a registered operator");
                let raw = [#((#keys.to_string(), #values.to_string())),*].into_iter().collect();
                let attrs = ::kiln::ops::Attrs::parse(op.params, &raw).expect("parameters the macro checked");
                (op, attrs)
            }
        });
        let reads: Vec<TokenStream> = ins.iter().map(|&b| self.read(b)).collect();
        let writes: Vec<TokenStream> = outs
            .iter()
            .map(|&b| self.write(b))
            .collect::<Result<_, _>>()?;
        let written = (0..count).map(|index| Entry { node: id, index }).collect();
        let tokens = quote! {
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
                    rng_key: [0, 0],
                };
                let ins: &[&[f32]] = &[#(#reads),*];
                let outs: &mut [&mut [f32]] = &mut [#(#writes),*];
                ::kiln::runtime::aot::run_node(op, &ctx, ins, &in_shapes, outs)?;
            }
        };
        self.steps.push(Step {
            reads: n.inputs.clone(),
            writes: written,
            tokens,
            forward,
            regions: std::mem::take(&mut self.touched),
        });
        Ok(())
    }
}

/// The steps in an order where each runs after the steps writing what it reads (Kahn's
/// algorithm, first generated first among the ready).
fn in_order(steps: Vec<Step>) -> Result<Vec<Step>, String> {
    let writer: HashMap<Entry, usize> = (steps.iter().enumerate())
        .flat_map(|(i, s)| s.writes.iter().map(move |&e| (e, i)))
        .collect();
    let mut waiting = vec![0usize; steps.len()];
    let mut readers: Vec<Vec<usize>> = vec![vec![]; steps.len()];
    for (i, s) in steps.iter().enumerate() {
        let mut deps: Vec<usize> = s
            .reads
            .iter()
            .filter_map(|e| writer.get(e).copied())
            .collect();
        deps.sort_unstable();
        deps.dedup();
        waiting[i] = deps.len();
        for d in deps {
            readers[d].push(i);
        }
    }
    let mut ready: std::collections::BTreeSet<usize> =
        (0..steps.len()).filter(|&i| waiting[i] == 0).collect();
    let mut order = Vec::with_capacity(steps.len());
    while let Some(i) = ready.pop_first() {
        order.push(i);
        for &r in &readers[i] {
            waiting[r] -= 1;
            if waiting[r] == 0 {
                ready.insert(r);
            }
        }
    }
    if order.len() != steps.len() {
        return Err("the units depend on each other in a cycle".into());
    }
    let mut slots: Vec<Option<Step>> = steps.into_iter().map(Some).collect();
    Ok(order.into_iter().filter_map(|i| slots[i].take()).collect())
}

/// `mm` (without its IR parts, which the generated kernels are) as an expression.
fn matmul_tokens(mm: &MatMul) -> TokenStream {
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
            // The epilogue runs whole after the products (a generated kernel).
            split_aligned: false, split_axis: #split_axis,
            dtype: ::kiln::DType::F32, packs: ::std::vec![], epilogue: ::std::option::Option::None,
        }
    }
}
