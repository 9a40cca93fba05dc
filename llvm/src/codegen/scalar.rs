//! Scalar operations and storage conversions of the LLVM renderer: combiners, the
//! operators' functions (instructions, intrinsics or the f64 shims), exact powers of two,
//! and loads and stores converted between storage and compute types.

use super::{err, storage_type, Gen, Res, BINARY_SHIM, UNARY_SHIM};
use inkwell::intrinsics::Intrinsic;
use inkwell::types::BasicType;
use inkwell::values::{BasicValue, BasicValueEnum, FloatValue};
use inkwell::FloatPredicate;
use kiln_compiler::kir::BitOp;
use kiln_ops::expr::{Binary, Unary};
use kiln_ops::{Combiner, DType};

impl<'c> Gen<'c, '_> {
    pub(super) fn combine(
        &self,
        c: Combiner,
        acc: FloatValue<'c>,
        v: FloatValue<'c>,
    ) -> Res<FloatValue<'c>> {
        let b = &self.b;
        Ok(match c {
            Combiner::Sum => b.build_float_add(acc, v, "").map_err(err)?,
            Combiner::Prod => b.build_float_mul(acc, v, "").map_err(err)?,
            // NaN wins, as in the reference kernels.
            Combiner::Max => self.pick(v, acc, FloatPredicate::OGT)?,
            Combiner::Min => self.pick(v, acc, FloatPredicate::OLT)?,
        })
    }

    /// `if a.is_nan() || a <pred> b { a } else { b }`.
    pub(super) fn pick(
        &self,
        a: FloatValue<'c>,
        b: FloatValue<'c>,
        pred: FloatPredicate,
    ) -> Res<FloatValue<'c>> {
        let bl = &self.b;
        let nan = bl
            .build_float_compare(FloatPredicate::UNO, a, a, "")
            .map_err(err)?;
        let wins = bl.build_float_compare(pred, a, b, "").map_err(err)?;
        let take = bl.build_or(nan, wins, "").map_err(err)?;
        Ok(bl
            .build_select(take, a, b, "")
            .map_err(err)?
            .into_float_value())
    }

    /// The bit operations on the compute type's representation: 2^n from the biased
    /// exponent shifted into place; frexp's exponent and mantissa (in [0.5, 1)) of a normal
    /// positive value from its exponent field.
    pub(super) fn bits(&self, op: BitOp, x: FloatValue<'c>) -> Res<FloatValue<'c>> {
        let b = &self.b;
        let (it, bias, shift, exp_mask) = if self.t == self.ctx.f64_type() {
            (self.ctx.i64_type(), 1023u64, 52u64, 0x7ffu64)
        } else {
            (self.ctx.i32_type(), 127, 23, 0xff)
        };
        let k = |v: u64| it.const_int(v, false);
        let to_float = |i| -> Res<FloatValue<'c>> {
            Ok(b.build_bit_cast(i, self.t, "")
                .map_err(err)?
                .into_float_value())
        };
        match op {
            BitOp::Pow2i => {
                let n = b.build_float_to_signed_int(x, it, "").map_err(err)?;
                let biased = b.build_int_add(n, k(bias), "").map_err(err)?;
                to_float(b.build_left_shift(biased, k(shift), "").map_err(err)?)
            }
            BitOp::Exponent => {
                let bits = b.build_bit_cast(x, it, "").map_err(err)?.into_int_value();
                let field = b
                    .build_right_shift(bits, k(shift), false, "")
                    .map_err(err)?;
                let field = b.build_and(field, k(exp_mask), "").map_err(err)?;
                let e = b.build_int_sub(field, k(bias - 1), "").map_err(err)?;
                b.build_signed_int_to_float(e, self.t, "").map_err(err)
            }
            BitOp::Mantissa => {
                let bits = b.build_bit_cast(x, it, "").map_err(err)?.into_int_value();
                let cleared = b
                    .build_and(
                        bits,
                        k(!(exp_mask << shift) & (u64::MAX >> (64 - it.get_bit_width()))),
                        "",
                    )
                    .map_err(err)?;
                to_float(
                    b.build_or(cleared, k((bias - 1) << shift), "")
                        .map_err(err)?,
                )
            }
        }
    }

    pub(super) fn intrinsic(&self, name: &str, args: &[FloatValue<'c>]) -> Res<FloatValue<'c>> {
        let f = Intrinsic::find(name)
            .and_then(|i| i.get_declaration(self.module, &[self.t.as_basic_type_enum()]))
            .ok_or_else(|| format!("LLVM has no intrinsic {name}"))?;
        let args: Vec<_> = args.iter().map(|a| (*a).into()).collect();
        let call = self.b.build_call(f, &args, "").map_err(err)?;
        Ok(call
            .try_as_basic_value()
            .basic()
            .ok_or("intrinsic returned nothing")?
            .into_float_value())
    }

    /// Calls an f64 shim with the operator's code, converting from and to the compute type.
    pub(super) fn shim(
        &self,
        name: &str,
        code: usize,
        args: &[FloatValue<'c>],
    ) -> Res<FloatValue<'c>> {
        let f64t = self.ctx.f64_type();
        let f = self.module.get_function(name).unwrap_or_else(|| {
            let mut params: Vec<inkwell::types::BasicMetadataTypeEnum> =
                vec![self.ctx.i32_type().into()];
            params.extend(
                args.iter()
                    .map(|_| inkwell::types::BasicMetadataTypeEnum::from(f64t)),
            );
            self.module
                .add_function(name, f64t.fn_type(&params, false), None)
        });
        let mut call_args = vec![self.ctx.i32_type().const_int(code as u64, false).into()];
        for a in args {
            call_args.push(self.b.build_float_cast(*a, f64t, "").map_err(err)?.into());
        }
        let r = self.b.build_call(f, &call_args, "").map_err(err)?;
        let r = r
            .try_as_basic_value()
            .basic()
            .ok_or("shim returned nothing")?
            .into_float_value();
        self.b.build_float_cast(r, self.t, "").map_err(err)
    }

    pub(super) fn unary(&self, op: Unary, a: FloatValue<'c>) -> Res<FloatValue<'c>> {
        let b = &self.b;
        let intrinsic = match op {
            Unary::Neg => return b.build_float_neg(a, "").map_err(err),
            Unary::Sign => {
                let (zero, one) = (self.t.const_zero(), self.t.const_float(1.0));
                let pos = b
                    .build_float_compare(FloatPredicate::OGT, a, zero, "")
                    .map_err(err)?;
                let neg = b
                    .build_float_compare(FloatPredicate::OLT, a, zero, "")
                    .map_err(err)?;
                let minus = self.t.const_float(-1.0);
                let low = b.build_select(neg, minus, zero, "").map_err(err)?;
                let v = b.build_select(pos, one.into(), low, "").map_err(err)?;
                return Ok(v.into_float_value());
            }
            Unary::Abs => "llvm.fabs",
            Unary::Sqrt => "llvm.sqrt",
            Unary::Floor => "llvm.floor",
            Unary::Ceil => "llvm.ceil",
            Unary::Round => "llvm.round",
            Unary::Trunc => "llvm.trunc",
            _ => {
                let code = Unary::ALL.iter().position(|u| *u == op).unwrap_or(0);
                return self.shim(UNARY_SHIM, code, &[a]);
            }
        };
        self.intrinsic(intrinsic, &[a])
    }

    pub(super) fn binary(
        &self,
        op: Binary,
        x: FloatValue<'c>,
        y: FloatValue<'c>,
    ) -> Res<FloatValue<'c>> {
        let b = &self.b;
        let test = |p: FloatPredicate| -> Res<FloatValue<'c>> {
            let c = b.build_float_compare(p, x, y, "").map_err(err)?;
            b.build_unsigned_int_to_float(c, self.t, "").map_err(err)
        };
        match op {
            Binary::Add => b.build_float_add(x, y, "").map_err(err),
            Binary::Sub => b.build_float_sub(x, y, "").map_err(err),
            Binary::Mul => b.build_float_mul(x, y, "").map_err(err),
            Binary::Div => b.build_float_div(x, y, "").map_err(err),
            Binary::Max => self.pick(x, y, FloatPredicate::OGT),
            Binary::Min => self.pick(x, y, FloatPredicate::OLT),
            Binary::Lt => test(FloatPredicate::OLT),
            Binary::Le => test(FloatPredicate::OLE),
            Binary::Gt => test(FloatPredicate::OGT),
            Binary::Ge => test(FloatPredicate::OGE),
            Binary::Eq => test(FloatPredicate::OEQ),
            Binary::Ne => test(FloatPredicate::UNE),
            Binary::Pow | Binary::Mod | Binary::Hypot => {
                let code = Binary::ALL.iter().position(|o| *o == op).unwrap_or(0);
                self.shim(BINARY_SHIM, code, &[x, y])
            }
        }
    }

    pub(super) fn loaded(&self, raw: BasicValueEnum<'c>, dtype: DType) -> Res<FloatValue<'c>> {
        let b = &self.b;
        match dtype {
            DType::F32 | DType::F64 | DType::F16 => b
                .build_float_cast(raw.into_float_value(), self.t, "")
                .map_err(err),
            DType::BF16 => {
                let i32t = self.ctx.i32_type();
                let wide = b
                    .build_int_z_extend(raw.into_int_value(), i32t, "")
                    .map_err(err)?;
                let bits = b
                    .build_left_shift(wide, i32t.const_int(16, false), "")
                    .map_err(err)?;
                let f = b
                    .build_bit_cast(bits, self.ctx.f32_type(), "")
                    .map_err(err)?;
                b.build_float_cast(f.into_float_value(), self.t, "")
                    .map_err(err)
            }
            DType::U8 | DType::Bool => b
                .build_unsigned_int_to_float(raw.into_int_value(), self.t, "")
                .map_err(err),
            DType::I8 | DType::I32 | DType::I64 => b
                .build_signed_int_to_float(raw.into_int_value(), self.t, "")
                .map_err(err),
        }
    }

    pub(super) fn stored(&self, v: FloatValue<'c>, dtype: DType) -> Res<BasicValueEnum<'c>> {
        let b = &self.b;
        let ctx = self.ctx;
        Ok(match dtype {
            DType::F32 => b
                .build_float_cast(v, ctx.f32_type(), "")
                .map_err(err)?
                .into(),
            DType::F64 => b
                .build_float_cast(v, ctx.f64_type(), "")
                .map_err(err)?
                .into(),
            DType::F16 => b
                .build_float_cast(v, ctx.f16_type(), "")
                .map_err(err)?
                .into(),
            DType::BF16 => {
                let i32t = ctx.i32_type();
                let f = b.build_float_cast(v, ctx.f32_type(), "").map_err(err)?;
                let bits = b.build_bit_cast(f, i32t, "").map_err(err)?.into_int_value();
                let c = |x: u64| i32t.const_int(x, false);
                let high = b.build_right_shift(bits, c(16), false, "").map_err(err)?;
                let odd = b.build_and(high, c(1), "").map_err(err)?;
                let bias = b.build_int_add(odd, c(0x7FFF), "").map_err(err)?;
                let rounded = b.build_int_add(bits, bias, "").map_err(err)?;
                let rounded = b
                    .build_right_shift(rounded, c(16), false, "")
                    .map_err(err)?;
                let quiet = b.build_or(high, c(0x40), "").map_err(err)?;
                let nan = b
                    .build_float_compare(FloatPredicate::UNO, f, f, "")
                    .map_err(err)?;
                let out = b.build_select(nan, quiet, rounded, "").map_err(err)?;
                b.build_int_truncate(out.into_int_value(), ctx.i16_type(), "")
                    .map_err(err)?
                    .into()
            }
            DType::Bool => {
                let set = b
                    .build_float_compare(FloatPredicate::UNE, v, self.t.const_zero(), "")
                    .map_err(err)?;
                b.build_int_z_extend(set, ctx.i8_type(), "")
                    .map_err(err)?
                    .into()
            }
            DType::U8 | DType::I8 | DType::I32 | DType::I64 => {
                // Rust's `as i64`: saturating, NaN to 0; then wrapping to the width.
                let sat = Intrinsic::find("llvm.fptosi.sat")
                    .and_then(|i| {
                        i.get_declaration(
                            self.module,
                            &[self.i64t.into(), self.t.as_basic_type_enum()],
                        )
                    })
                    .ok_or("LLVM has no llvm.fptosi.sat")?;
                let wide = b
                    .build_call(sat, &[v.into()], "")
                    .map_err(err)?
                    .try_as_basic_value()
                    .basic()
                    .ok_or("fptosi.sat returned nothing")?
                    .into_int_value();
                let target = storage_type(ctx, dtype).into_int_type();
                b.build_int_truncate_or_bit_cast(wide, target, "")
                    .map_err(err)?
                    .as_basic_value_enum()
            }
        })
    }
}
