//! LLVM IR from a [`LoopNest`]: the CPU JIT's renderer.
//!
//! A kernel becomes `void kiln_kernel(i8** buffers, i64* dims, i64 lo, i64 hi)`: the
//! buffers are the inputs then the outputs, `dims` binds the symbolic dimensions, and the
//! outermost loop runs over `lo..hi` only, so the caller splits it over the thread pool.
//! Loop counters, accumulators and select results go through stack slots that LLVM's
//! `mem2reg` turns into SSA; the inner loops are left to LLVM's vectorizers, and loops
//! around other loops are marked not to be unrolled (`has_inner_loop`).
//!
//! Values are computed in the nest's compute type (f32 or f64) and converted on load and
//! store, as the interpreter rounds to each buffer's dtype: f16 through LLVM's `half`,
//! bf16 by bit arithmetic (round to nearest even, NaN kept quiet), integers through
//! saturating conversions (Rust's `as`). Functions that LLVM has no instruction for (exp,
//! tanh, erf, pow, ...) call [`unary_shim`] and [`binary_shim`], which evaluate
//! `kiln_ops::expr` in f64 exactly as the oracle does; the JIT hands this renderer f32
//! nests with exp, tanh, log and erf already as polynomials (`kir::for_cpu`), which
//! vectorize, so the shims serve f64 and the rest.
//!
//! A select whose arms load branches rather than compute both (an arm may load out of
//! bounds where the guard is false: concatenation); one whose arms only compute is an LLVM
//! `select`, which vectorizes.
//!
//! A loop whose iterations each run a reduction that loads consecutive elements from one
//! iteration to the next ([`jams`]: a bias gradient's column sum, strided along the
//! reduction) runs a vector's worth of iterations in one pass over the reduction, each
//! with its own accumulator (unroll and jam): at each point of the reduction their loads
//! are adjacent, and LLVM's SLP vectorizer makes them one vector load and one vector
//! operation. Each accumulator sums its points in the same order as before, so the
//! results are the same bits.

mod scalar;

use inkwell::builder::Builder;
use inkwell::context::Context;
use inkwell::module::Module;
use inkwell::types::{BasicType, BasicTypeEnum, FloatType, IntType};
use inkwell::values::{FloatValue, FunctionValue, IntValue, PointerValue};
use inkwell::{AddressSpace, FloatPredicate, IntPredicate};
use kiln_compiler::kir::{Buffer, Idx, LoopNest, Stmt, Val};
use kiln_ops::expr::{Binary, Unary};
use kiln_ops::{Combiner, DType};

/// Whether `body` runs a loop of its own: a nested loop or a reduction. Only innermost
/// loops are unrolled: unrolling one around another copies the inner loop, vectorized
/// and interleaved, once per iteration (an im2col pack grew from 4 KB of IR to 440 KB and
/// took 300 ms to compile), for no speed.
fn has_inner_loop(body: &[Stmt]) -> bool {
    fn reduces(v: &Val) -> bool {
        match v {
            Val::Reduce { .. } => true,
            Val::Unary(_, a) | Val::Bits(_, a) => reduces(a),
            Val::Binary(_, a, b) => reduces(a) || reduces(b),
            Val::Select(c, a, b) => reduces(c) || reduces(a) || reduces(b),
            _ => false,
        }
    }
    body.iter().any(|s| match s {
        Stmt::Loop { .. } => true,
        Stmt::Let { value, .. } | Stmt::Store { value, .. } => reduces(value),
    })
}

/// The symbol every kernel module defines.
pub const ENTRY: &str = "kiln_kernel";
/// The f64 shims kernels call for functions without an LLVM instruction.
pub const UNARY_SHIM: &str = "kiln_unary";
pub const BINARY_SHIM: &str = "kiln_binary";

/// `Unary::ALL[code](x)`, the oracle's definition.
pub extern "C" fn unary_shim(code: i32, x: f64) -> f64 {
    Unary::ALL
        .get(code as usize)
        .map_or(f64::NAN, |op| op.apply(x))
}

/// `Binary::ALL[code](a, b)`, the oracle's definition.
pub extern "C" fn binary_shim(code: i32, a: f64, b: f64) -> f64 {
    Binary::ALL
        .get(code as usize)
        .map_or(f64::NAN, |op| op.apply(a, b))
}

/// The `target-cpu` / `target-features` pair the kernels are specialized for.
pub struct Target<'a> {
    pub cpu: &'a str,
    pub features: &'a str,
    /// Widest vectors the vectorizer should use, in bits.
    pub vector_bits: u32,
}

type Res<T> = Result<T, String>;

fn err(e: impl std::fmt::Display) -> String {
    format!("LLVM builder: {e}")
}

/// Renders `nest` into a new module of `ctx`.
pub fn render<'c>(ctx: &'c Context, nest: &LoopNest, target: &Target) -> Res<Module<'c>> {
    let compute = match nest.compute {
        DType::F32 | DType::F16 | DType::BF16 => ctx.f32_type(),
        DType::F64 => ctx.f64_type(),
        other => {
            return Err(format!(
                "kernel `{}`: compute type {other} is not rendered to LLVM",
                nest.name
            ))
        }
    };
    let module = ctx.create_module(&nest.name);
    let i64t = ctx.i64_type();
    let byte_ptr = ctx.i8_type().ptr_type(AddressSpace::default());
    let fn_type = ctx.void_type().fn_type(
        &[
            byte_ptr.ptr_type(AddressSpace::default()).into(),
            i64t.ptr_type(AddressSpace::default()).into(),
            i64t.into(),
            i64t.into(),
        ],
        false,
    );
    let f = module.add_function(ENTRY, fn_type, None);
    for (key, value) in [
        ("target-cpu", target.cpu.to_string()),
        ("target-features", target.features.to_string()),
        ("prefer-vector-width", target.vector_bits.to_string()),
    ] {
        let a = ctx.create_string_attribute(key, &value);
        f.add_attribute(inkwell::attributes::AttributeLoc::Function, a);
    }
    let allocas = ctx.append_basic_block(f, "allocas");
    let start = ctx.append_basic_block(f, "start");
    let b = ctx.create_builder();
    b.position_at_end(allocas);
    let jump = b.build_unconditional_branch(start).map_err(err)?;
    let slots = ctx.create_builder();
    slots.position_before(&jump);
    b.position_at_end(start);

    let param = |i: u32| f.get_nth_param(i).expect("declared parameter");
    let (bufs_arg, dims_arg) = (param(0).into_pointer_value(), param(1).into_pointer_value());
    let mut g = Gen {
        ctx,
        module: &module,
        b,
        slots,
        f,
        t: compute,
        i64t,
        bufs: vec![],
        dims: vec![],
        coords: vec![],
        red: vec![],
        temps: vec![],
        locals: vec![],
        lo: param(2).into_int_value(),
        hi: param(3).into_int_value(),
        lanes: (target.vector_bits / compute.get_bit_width()).max(1) as usize,
        reduced: None,
    };
    let buffers: Vec<&Buffer> = nest.inputs.iter().chain(&nest.outputs).collect();
    for (k, buf) in buffers.iter().enumerate() {
        // SAFETY: builds IR only; k < inputs + outputs, the length of the buffer array
        // `run_range`'s contract requires.
        let slot = unsafe {
            g.b.build_gep(bufs_arg, &[i64t.const_int(k as u64, false)], "")
        }
        .map_err(err)?;
        let raw = g.b.build_load(slot, &buf.name).map_err(err)?;
        let elem = storage_type(ctx, buf.dtype).ptr_type(AddressSpace::default());
        let typed = g.b.build_bit_cast(raw, elem, "").map_err(err)?;
        g.bufs.push((typed.into_pointer_value(), buf.dtype));
    }
    for d in 0..dims_used(&nest.body) {
        // SAFETY: builds IR only; d < dims_used, the dims the nest's extents and indices name,
        // which its caller passes (`run_range`'s contract: valid under `dims`).
        let p = unsafe {
            g.b.build_gep(dims_arg, &[i64t.const_int(d as u64, false)], "")
        }
        .map_err(err)?;
        g.dims.push(
            g.b.build_load(p, &format!("D{d}"))
                .map_err(err)?
                .into_int_value(),
        );
    }
    g.stmts(&nest.body, nest.inputs.len(), true)?;
    g.b.build_return(None).map_err(err)?;
    module
        .verify()
        .map_err(|e| format!("kernel `{}`: LLVM rejects its IR: {e}", nest.name))?;
    Ok(module)
}

fn storage_type(ctx: &Context, d: DType) -> BasicTypeEnum<'_> {
    match d {
        DType::F32 => ctx.f32_type().into(),
        DType::F64 => ctx.f64_type().into(),
        DType::F16 => ctx.f16_type().into(),
        DType::BF16 => ctx.i16_type().into(),
        DType::U8 | DType::I8 | DType::Bool => ctx.i8_type().into(),
        DType::I32 => ctx.i32_type().into(),
        DType::I64 => ctx.i64_type().into(),
    }
}

/// The reduction in `value`, if any (a kernel has at most one).
fn reduction_in(value: &Val) -> Option<&Val> {
    match value {
        Val::Reduce { .. } => Some(value),
        Val::Unary(_, a) | Val::Bits(_, a) => reduction_in(a),
        Val::Binary(_, a, b) => reduction_in(a).or_else(|| reduction_in(b)),
        Val::Select(c, a, b) => (reduction_in(c))
            .or_else(|| reduction_in(a))
            .or_else(|| reduction_in(b)),
        Val::Const(_) | Val::Load { .. } | Val::Index(_) | Val::Temp(_) => None,
        Val::Local(_) | Val::Shared(_) => None,
    }
}

/// Whether the loop over `axis` runs its iterations jammed (the module doc): its body runs
/// no loop, its reduction reads no temporary, and every load of the reduction steps by 0
/// or 1 element along `axis`, some by 1.
fn jams(axis: usize, body: &[Stmt]) -> bool {
    let mut reduction = None;
    for s in body {
        match s {
            Stmt::Loop { .. } => return false,
            Stmt::Let { value, .. } | Stmt::Store { value, .. } => {
                reduction = reduction.or(reduction_in(value));
            }
        }
    }
    let Some(Val::Reduce { locals, body, .. }) = reduction else {
        return false;
    };
    let coord = Idx::Coord(axis);
    let (mut steps, mut plain) = (false, true);
    for v in locals.iter().chain([body.as_ref()]) {
        v.any(&mut |x| {
            match x {
                Val::Load { index, .. } => match index.coefficient(&coord) {
                    Some(1) => steps = true,
                    Some(0) => {}
                    _ => plain = false,
                },
                Val::Temp(_) | Val::Shared(_) => plain = false,
                _ => {}
            }
            false
        });
    }
    steps && plain
}

/// Whether the value loads from a buffer (outside a guard it might read out of bounds).
fn loads(v: &Val) -> bool {
    v.any(&mut |x| matches!(x, Val::Load { .. } | Val::Reduce { .. }))
}

/// One past the highest symbolic dimension the statements use.
fn dims_used(body: &[Stmt]) -> usize {
    fn idx(i: &Idx) -> usize {
        match i {
            Idx::Dim(d) => d + 1,
            Idx::Const(_) | Idx::Coord(_) | Idx::Red(_) => 0,
            Idx::Add(a, b) | Idx::Mul(a, b) | Idx::Div(a, b) | Idx::Mod(a, b) => idx(a).max(idx(b)),
        }
    }
    fn val(v: &Val) -> usize {
        match v {
            Val::Const(_) | Val::Temp(_) | Val::Local(_) => 0,
            Val::Load { index, .. } | Val::Index(index) | Val::Shared(index) => idx(index),
            Val::Unary(_, a) | Val::Bits(_, a) => val(a),
            Val::Binary(_, a, b) => val(a).max(val(b)),
            Val::Select(c, a, b) => val(c).max(val(a)).max(val(b)),
            Val::Reduce {
                extents,
                locals,
                body,
                ..
            } => extents
                .iter()
                .map(idx)
                .chain(locals.iter().map(val))
                .fold(val(body), usize::max),
        }
    }
    body.iter()
        .map(|s| match s {
            Stmt::Loop { extent, body, .. } => idx(extent).max(dims_used(body)),
            Stmt::Let { value, .. } => val(value),
            Stmt::Store { index, value, .. } => idx(index).max(val(value)),
        })
        .max()
        .unwrap_or(0)
}

struct Gen<'c, 'm> {
    ctx: &'c Context,
    module: &'m Module<'c>,
    b: Builder<'c>,
    /// Inserts stack slots at the end of the entry block.
    slots: Builder<'c>,
    f: FunctionValue<'c>,
    /// The compute type.
    t: FloatType<'c>,
    i64t: IntType<'c>,
    /// Typed element pointers of the inputs then the outputs, with their dtypes.
    bufs: Vec<(PointerValue<'c>, DType)>,
    dims: Vec<IntValue<'c>>,
    coords: Vec<Option<IntValue<'c>>>,
    red: Vec<IntValue<'c>>,
    temps: Vec<Option<FloatValue<'c>>>,
    /// The innermost reduction's locals at its current point.
    locals: Vec<FloatValue<'c>>,
    lo: IntValue<'c>,
    hi: IntValue<'c>,
    /// Iterations a jammed loop runs at once: a vector of the compute type.
    lanes: usize,
    /// The value of the reduction at the current lane of a jammed loop, computed before.
    reduced: Option<FloatValue<'c>>,
}

impl<'c> Gen<'c, '_> {
    fn stmts(&mut self, body: &[Stmt], num_inputs: usize, outermost: bool) -> Res<()> {
        let mut split = outermost;
        for s in body {
            match s {
                Stmt::Loop {
                    axis, extent, body, ..
                } => {
                    // The outermost loop runs over the caller's `lo..hi`.
                    let (lo, hi) = if split {
                        (self.lo, self.hi)
                    } else {
                        (self.i64t.const_zero(), self.idx(extent)?)
                    };
                    split = false;
                    if self.lanes > 1 && jams(*axis, body) {
                        self.jammed_loop(lo, hi, *axis, body, num_inputs)?;
                        continue;
                    }
                    let unroll = !has_inner_loop(body);
                    self.counted_loop(lo, hi, "i", unroll, |g, i| {
                        g.set_coord(*axis, i);
                        g.stmts(body, num_inputs, false)
                    })?;
                }
                Stmt::Let { temp, value } => {
                    let v = self.val(value)?;
                    if self.temps.len() <= *temp {
                        self.temps.resize(temp + 1, None);
                    }
                    self.temps[*temp] = Some(v);
                }
                Stmt::Store {
                    output,
                    index,
                    value,
                } => {
                    let v = self.val(value)?;
                    let i = self.idx(index)?;
                    let (ptr, dtype) = self.bufs[num_inputs + output];
                    let stored = self.stored(v, dtype)?;
                    // SAFETY: builds IR only; the index is within the output's element count under
                    // the dims, which `run_range`'s contract makes valid.
                    let at = unsafe { self.b.build_gep(ptr, &[i], "") }.map_err(err)?;
                    self.b.build_store(at, stored).map_err(err)?;
                }
            }
        }
        Ok(())
    }

    fn set_coord(&mut self, axis: usize, i: IntValue<'c>) {
        if self.coords.len() <= axis {
            self.coords.resize(axis + 1, None);
        }
        self.coords[axis] = Some(i);
    }

    /// `for i in lo..hi { body(i) }` over `axis`, `self.lanes` iterations at a time through
    /// one pass of the body's reduction ([`jams`]), then the rest one by one.
    fn jammed_loop(
        &mut self,
        lo: IntValue<'c>,
        hi: IntValue<'c>,
        axis: usize,
        body: &[Stmt],
        num_inputs: usize,
    ) -> Res<()> {
        let b = &self.b;
        let width = self.i64t.const_int(self.lanes as u64, false);
        let count = b.build_int_sub(hi, lo, "").map_err(err)?;
        let blocks = b.build_int_signed_div(count, width, "").map_err(err)?;
        let whole = b.build_int_mul(blocks, width, "").map_err(err)?;
        let rest = b.build_int_add(lo, whole, "").map_err(err)?;
        self.counted_loop(self.i64t.const_zero(), blocks, "j", false, |g, j| {
            let at = g.b.build_int_mul(j, width, "").map_err(err)?;
            let first = g.b.build_int_add(lo, at, "").map_err(err)?;
            let lanes = (0..g.lanes as u64)
                .map(|l| g.b.build_int_add(first, g.i64t.const_int(l, false), ""))
                .collect::<Result<Vec<_>, _>>()
                .map_err(err)?;
            g.jammed(axis, &lanes, body, num_inputs)
        })?;
        self.counted_loop(rest, hi, "i", false, |g, i| {
            g.set_coord(axis, i);
            g.stmts(body, num_inputs, false)
        })
    }

    /// The body at the iterations `lanes` along `axis`: its reduction once for all of them,
    /// then each statement lane by lane, each lane with its own temporaries and its value
    /// of the reduction.
    fn jammed(
        &mut self,
        axis: usize,
        lanes: &[IntValue<'c>],
        body: &[Stmt],
        num_inputs: usize,
    ) -> Res<()> {
        let mut lane_temps = vec![self.temps.clone(); lanes.len()];
        let mut sums = vec![];
        for s in body {
            let (Stmt::Let { value, .. } | Stmt::Store { value, .. }) = s else {
                return Err("a jammed loop runs no loop inside".into());
            };
            if let Some(Val::Reduce {
                combiner,
                extents,
                locals,
                body,
            }) = reduction_in(value)
            {
                let at: Vec<_> = lanes.iter().map(|&i| Some((axis, i))).collect();
                sums = self.reduction(*combiner, extents, locals, body, &at)?;
            }
            for (l, (&i, temps)) in lanes.iter().zip(&mut lane_temps).enumerate() {
                self.set_coord(axis, i);
                self.reduced = sums.get(l).copied();
                std::mem::swap(&mut self.temps, temps);
                let done = self.stmts(std::slice::from_ref(s), num_inputs, false);
                std::mem::swap(&mut self.temps, temps);
                done?;
            }
            self.reduced = None;
        }
        Ok(())
    }

    /// `for i in lo..hi { body(i) }`, the counter in a stack slot. Unless `unroll`, the
    /// loop is marked for LLVM not to unroll it.
    fn counted_loop(
        &mut self,
        lo: IntValue<'c>,
        hi: IntValue<'c>,
        name: &str,
        unroll: bool,
        body: impl FnOnce(&mut Self, IntValue<'c>) -> Res<()>,
    ) -> Res<()> {
        let slot = self.slots.build_alloca(self.i64t, name).map_err(err)?;
        self.b.build_store(slot, lo).map_err(err)?;
        let (cond, inner, exit) = (
            self.ctx.append_basic_block(self.f, "cond"),
            self.ctx.append_basic_block(self.f, "body"),
            self.ctx.append_basic_block(self.f, "exit"),
        );
        self.b.build_unconditional_branch(cond).map_err(err)?;
        self.b.position_at_end(cond);
        let i = self.b.build_load(slot, name).map_err(err)?.into_int_value();
        let more = self
            .b
            .build_int_compare(IntPredicate::SLT, i, hi, "")
            .map_err(err)?;
        self.b
            .build_conditional_branch(more, inner, exit)
            .map_err(err)?;
        self.b.position_at_end(inner);
        body(self, i)?;
        let next = self
            .b
            .build_int_add(i, self.i64t.const_int(1, false), "")
            .map_err(err)?;
        self.b.build_store(slot, next).map_err(err)?;
        let latch = self.b.build_unconditional_branch(cond).map_err(err)?;
        if !unroll {
            self.keep_rolled(latch);
        }
        self.b.position_at_end(exit);
        Ok(())
    }

    /// Attaches `llvm.loop.unroll.disable` to the loop whose latch is `latch` (a loop ID
    /// refers to itself: made through a temporary node).
    fn keep_rolled(&self, latch: inkwell::values::InstructionValue<'c>) {
        use inkwell::context::AsContextRef;
        use inkwell::values::AsValueRef;
        use llvm_sys::core::{
            LLVMGetMDKindIDInContext, LLVMMDNodeInContext2, LLVMMDStringInContext2,
            LLVMMetadataAsValue, LLVMSetMetadata,
        };
        use llvm_sys::debuginfo::{LLVMMetadataReplaceAllUsesWith, LLVMTemporaryMDNode};
        const DISABLE: &str = "llvm.loop.unroll.disable";
        const LOOP: &str = "llvm.loop";
        let ctx = self.ctx.as_ctx_ref();
        // SAFETY: every reference comes from this context and stays alive with it; the
        // temporary node is replaced (and freed) before the loop ID is used.
        unsafe {
            let disable = LLVMMDStringInContext2(ctx, DISABLE.as_ptr().cast(), DISABLE.len());
            let option = LLVMMDNodeInContext2(ctx, [disable].as_mut_ptr(), 1);
            let placeholder = LLVMTemporaryMDNode(ctx, std::ptr::null_mut(), 0);
            let id = LLVMMDNodeInContext2(ctx, [placeholder, option].as_mut_ptr(), 2);
            LLVMMetadataReplaceAllUsesWith(placeholder, id);
            let kind = LLVMGetMDKindIDInContext(ctx, LOOP.as_ptr().cast(), LOOP.len() as u32);
            LLVMSetMetadata(latch.as_value_ref(), kind, LLVMMetadataAsValue(ctx, id));
        }
    }

    fn idx(&mut self, e: &Idx) -> Res<IntValue<'c>> {
        Ok(match e {
            Idx::Const(c) => self.i64t.const_int(*c as u64, true),
            Idx::Coord(a) => self
                .coords
                .get(*a)
                .copied()
                .flatten()
                .ok_or_else(|| format!("coordinate i{a} outside every loop"))?,
            Idx::Dim(d) => self.dims[*d],
            Idx::Red(k) => *self
                .red
                .get(*k)
                .ok_or_else(|| format!("reduction coordinate r{k} outside its reduction"))?,
            Idx::Add(x, y) => {
                let (x, y) = (self.idx(x)?, self.idx(y)?);
                self.b.build_int_add(x, y, "").map_err(err)?
            }
            Idx::Mul(x, y) => {
                let (x, y) = (self.idx(x)?, self.idx(y)?);
                self.b.build_int_mul(x, y, "").map_err(err)?
            }
            Idx::Div(x, y) | Idx::Mod(x, y) => {
                // Floor division and Euclidean remainder by a positive divisor.
                let (x, y) = (self.idx(x)?, self.idx(y)?);
                let b = &self.b;
                let q = b.build_int_signed_div(x, y, "").map_err(err)?;
                let r = b.build_int_signed_rem(x, y, "").map_err(err)?;
                let negative = b
                    .build_int_compare(IntPredicate::SLT, r, self.i64t.const_zero(), "")
                    .map_err(err)?;
                if matches!(e, Idx::Div(..)) {
                    let borrow = b.build_int_z_extend(negative, self.i64t, "").map_err(err)?;
                    b.build_int_sub(q, borrow, "").map_err(err)?
                } else {
                    let fix = b
                        .build_select(negative, y, self.i64t.const_zero(), "")
                        .map_err(err)?;
                    b.build_int_add(r, fix.into_int_value(), "").map_err(err)?
                }
            }
        })
    }

    fn val(&mut self, v: &Val) -> Res<FloatValue<'c>> {
        Ok(match v {
            Val::Const(c) => self.t.const_float(*c),
            Val::Load { buffer, index } => {
                let i = self.idx(index)?;
                let (ptr, dtype) = *self
                    .bufs
                    .get(*buffer)
                    .ok_or_else(|| format!("no input buffer {buffer}"))?;
                // SAFETY: builds IR only; the index is within the input's element count under the
                // dims, which `run_range`'s contract makes valid.
                let at = unsafe { self.b.build_gep(ptr, &[i], "") }.map_err(err)?;
                let raw = self.b.build_load(at, "").map_err(err)?;
                self.loaded(raw, dtype)?
            }
            Val::Index(i) => {
                let i = self.idx(i)?;
                self.b
                    .build_signed_int_to_float(i, self.t, "")
                    .map_err(err)?
            }
            Val::Temp(t) => self
                .temps
                .get(*t)
                .copied()
                .flatten()
                .ok_or_else(|| format!("t{t} read before it is set"))?,
            Val::Local(l) => *self
                .locals
                .get(*l)
                .ok_or_else(|| format!("l{l} read outside its reduction or before it is set"))?,
            Val::Unary(op, a) => {
                let a = self.val(a)?;
                self.unary(*op, a)?
            }
            Val::Bits(op, a) => {
                let a = self.val(a)?;
                self.bits(*op, a)?
            }
            Val::Shared(_) => return Err("shared memory belongs to GPU schedules".into()),
            Val::Binary(op, a, b) => {
                let (a, b) = (self.val(a)?, self.val(b)?);
                self.binary(*op, a, b)?
            }
            Val::Select(c, a, b) if !loads(a) && !loads(b) => {
                // Both arms are safe to compute: a `select`, which vectorizes.
                let c = self.val(c)?;
                let taken = self
                    .b
                    .build_float_compare(FloatPredicate::UNE, c, self.t.const_zero(), "")
                    .map_err(err)?;
                let (x, y) = (self.val(a)?, self.val(b)?);
                self.b
                    .build_select(taken, x, y, "")
                    .map_err(err)?
                    .into_float_value()
            }
            Val::Select(c, a, b) => {
                let c = self.val(c)?;
                let taken = self
                    .b
                    .build_float_compare(FloatPredicate::UNE, c, self.t.const_zero(), "")
                    .map_err(err)?;
                let (then, other, merge) = (
                    self.ctx.append_basic_block(self.f, "then"),
                    self.ctx.append_basic_block(self.f, "else"),
                    self.ctx.append_basic_block(self.f, "merge"),
                );
                self.b
                    .build_conditional_branch(taken, then, other)
                    .map_err(err)?;
                let arm = |g: &mut Self, block, v: &Val| -> Res<_> {
                    g.b.position_at_end(block);
                    let x = g.val(v)?;
                    let end = g.b.get_insert_block().expect("positioned");
                    g.b.build_unconditional_branch(merge).map_err(err)?;
                    Ok((x, end))
                };
                let (x, x_end) = arm(self, then, a)?;
                let (y, y_end) = arm(self, other, b)?;
                self.b.position_at_end(merge);
                let phi = self.b.build_phi(self.t, "").map_err(err)?;
                phi.add_incoming(&[(&x, x_end), (&y, y_end)]);
                phi.as_basic_value().into_float_value()
            }
            Val::Reduce {
                combiner,
                extents,
                locals,
                body,
            } => match self.reduced {
                Some(sum) => sum,
                None => self.reduction(*combiner, extents, locals, body, &[None])?[0],
            },
        })
    }

    /// A reduction's result at each of `lanes`: the current domain point, or that point
    /// with coordinate `axis` at `i` for `Some((axis, i))`. One pass over the reduction's
    /// points, each lane combining into its own accumulator.
    fn reduction(
        &mut self,
        combiner: Combiner,
        extents: &[Idx],
        locals: &[Val],
        body: &Val,
        lanes: &[Option<(usize, IntValue<'c>)>],
    ) -> Res<Vec<FloatValue<'c>>> {
        let identity = self.t.const_float(combiner.identity());
        let mut accs = Vec::with_capacity(lanes.len());
        for &at in lanes {
            let acc = self.slots.build_alloca(self.t, "acc").map_err(err)?;
            self.b.build_store(acc, identity).map_err(err)?;
            accs.push((acc, at));
        }
        let extents = extents
            .iter()
            .map(|e| self.idx(e))
            .collect::<Res<Vec<_>>>()?;
        let outer_red = std::mem::take(&mut self.red);
        let outer_locals = std::mem::take(&mut self.locals);
        self.reduce_axes(&extents, locals, body, combiner, &accs)?;
        self.red = outer_red;
        self.locals = outer_locals;
        (accs.iter())
            .map(|&(acc, _)| Ok(self.b.build_load(acc, "").map_err(err)?.into_float_value()))
            .collect()
    }

    /// Row-major loops over the reduction axes, at each point computing `locals` then
    /// combining `body` into each lane's accumulator (at the lane's coordinate, where it
    /// has one).
    fn reduce_axes(
        &mut self,
        extents: &[IntValue<'c>],
        locals: &[Val],
        body: &Val,
        combiner: Combiner,
        accs: &[(PointerValue<'c>, Option<(usize, IntValue<'c>)>)],
    ) -> Res<()> {
        let Some((&first, rest)) = extents.split_first() else {
            for &(acc, at) in accs {
                if let Some((axis, i)) = at {
                    self.set_coord(axis, i);
                }
                self.locals.clear();
                for l in locals {
                    let v = self.val(l)?;
                    self.locals.push(v);
                }
                let v = self.val(body)?;
                let old = self.b.build_load(acc, "").map_err(err)?.into_float_value();
                let new = self.combine(combiner, old, v)?;
                self.b.build_store(acc, new).map_err(err)?;
            }
            return Ok(());
        };
        let zero = self.i64t.const_zero();
        self.counted_loop(zero, first, "r", rest.is_empty(), |g, r| {
            g.red.push(r);
            g.reduce_axes(rest, locals, body, combiner, accs)?;
            g.red.pop();
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kiln_compiler::kir::parse_nest;

    fn rendered(src: &str) -> String {
        let nest = parse_nest(src).unwrap();
        let ctx = Context::create();
        let target = Target {
            cpu: "x86-64",
            features: "",
            vector_bits: 256,
        };
        let module = render(&ctx, &nest, &target).unwrap();
        module.verify().unwrap();
        module.print_to_string().to_string()
    }

    /// Outer loops keep their latch marked; the innermost (here the reduction's, then a
    /// plain loop's) is LLVM's to unroll.
    #[test]
    fn only_innermost_loops_are_unrolled() {
        let pack = rendered(
            "kernel pack(x: float32[96]) -> (y: float32[96]) compute float32 {
  for i0 in 0..4 (Parallel) {
    for i1 in 0..3 (Serial) {
      for i2 in 0..8 (Serial) {
        out0[((i0*3 + i1)*8 + i2)] = in0[((i0*8 + i2)*3 + i1)]
      }
    }
  }
}",
        );
        assert_eq!(pack.matches(", !llvm.loop !").count(), 2, "{pack}");
        assert!(pack.contains("!\"llvm.loop.unroll.disable\""), "{pack}");
        let sum = rendered(
            "kernel sum(x: float32[24]) -> (y: float32[4]) compute float32 {
  for i0 in 0..4 (Parallel) {
    out0[i0] = reduce_sum(r0 < 2, r1 < 3: in0[((i0*2 + r0)*3 + r1)])
  }
}",
        );
        // The row loop around the reduction and the reduction's outer axis.
        assert_eq!(sum.matches(", !llvm.loop !").count(), 2, "{sum}");
    }

    /// A column sum runs 8 columns (256 bits of f32) per pass over the rows, each with its
    /// accumulator, then one more for the remaining columns; a row sum (its loads step
    /// along the reduction, not the columns) keeps one accumulator.
    #[test]
    fn column_sums_are_jammed_and_row_sums_are_not() {
        let columns = "kernel columns(x: float32[500]) -> (y: float32[50]) compute float32 {
  for i0 in 0..50 (Parallel) {
    out0[i0] = mul(reduce_sum(r0 < 10: in0[(r0*50 + i0)]), 0.5)
  }
}";
        let accumulators = |src: &str| rendered(src).matches("alloca float").count();
        assert_eq!(accumulators(columns), 9, "{}", rendered(columns));
        let rows = "kernel rows(x: float32[500]) -> (y: float32[50]) compute float32 {
  for i0 in 0..50 (Parallel) {
    out0[i0] = reduce_sum(r0 < 10: in0[(i0*10 + r0)])
  }
}";
        assert_eq!(accumulators(rows), 1, "{}", rendered(rows));
    }
}
