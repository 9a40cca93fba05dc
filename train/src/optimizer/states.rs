//! Saving and loading an optimizer's states: everything a resumed run needs to continue
//! bit for bit (what Module writes as `prefix-%04d.states`). MXNet pickles its Python
//! objects; kiln writes a format of its own, little-endian throughout:
//!
//! ```text
//! magic        8 bytes   "KILNOPT\0"
//! version      u32       1
//! optimizer    u32 length + UTF-8 name (MXNet's registered name)
//! num_update   u64
//! begin        u64       begin_num_update
//! globals      3 × f64   Nadam's schedule product, LARS' current and last lr (NaN: none)
//! scheduler    u8 0 | u8 1 + 2 × f64 (its base_lr and position)
//! counts       u64 n, then n × (u64 index, u64 update count)
//! parameters   u64 n, then n × (u64 index, u32 states, then per state:
//!                  u32 mshadow dtype code, u32 ndim, ndim × u64 dims, the elements' bytes)
//! ```
//!
//! A load checks everything it reads (magic, version, the optimizer's name, lengths
//! against what is left, dtypes, sizes) and says what is wrong and where; states whose
//! shapes do not fit a weight are reported at that parameter's next update.

use super::op::Slot;
use super::rule::Globals;
use super::Optimizer;
use crate::{Error, Result};
use kiln_ops::{DType, Tensor};
use kiln_runtime::{Device, NDArray};

const MAGIC: &[u8; 8] = b"KILNOPT\0";
const VERSION: u32 = 1;

impl Optimizer {
    /// Every state and count, after waiting for the pending updates (see the module doc
    /// for the format).
    pub fn save_states(&self) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        put_str(&mut out, self.def.name);
        out.extend_from_slice(&self.num_update.to_le_bytes());
        out.extend_from_slice(&self.begin_num_update.to_le_bytes());
        let g = &self.globals;
        for v in [
            g.m_schedule,
            g.cur_lr.unwrap_or(f64::NAN),
            g.last_lr.unwrap_or(f64::NAN),
        ] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        match &self.scheduler {
            None => out.push(0),
            Some(s) => {
                out.push(1);
                for v in s.state() {
                    out.extend_from_slice(&v.to_le_bytes());
                }
            }
        }
        out.extend_from_slice(&(self.counts.len() as u64).to_le_bytes());
        for (&index, &count) in &self.counts {
            out.extend_from_slice(&(index as u64).to_le_bytes());
            out.extend_from_slice(&count.to_le_bytes());
        }
        out.extend_from_slice(&(self.slots.len() as u64).to_le_bytes());
        for (&index, slot) in &self.slots {
            out.extend_from_slice(&(index as u64).to_le_bytes());
            out.extend_from_slice(&(slot.states.len() as u32).to_le_bytes());
            for state in &slot.states {
                let t = state.to_tensor()?;
                out.extend_from_slice(&(t.dtype.mxnet_code() as u32).to_le_bytes());
                out.extend_from_slice(&(t.shape.len() as u32).to_le_bytes());
                for &d in &t.shape {
                    out.extend_from_slice(&(d as u64).to_le_bytes());
                }
                let mut one = Vec::with_capacity(8);
                for &v in &t.data {
                    one.clear();
                    t.dtype.write(v, &mut one);
                    out.extend_from_slice(&one);
                }
            }
        }
        Ok(out)
    }

    /// Replaces every state and count with what [`Optimizer::save_states`] wrote, for an
    /// optimizer created with the same name and arguments. Nothing changes when the bytes
    /// are malformed.
    pub fn load_states(&mut self, bytes: &[u8]) -> Result<()> {
        let mut r = Reader { bytes, at: 0 };
        if r.take(8, "the magic")? != MAGIC {
            return Err(r.error("not kiln optimizer states (bad magic)"));
        }
        let version = r.u32("the version")?;
        if version != VERSION {
            return Err(r.error(&format!("version {version}, kiln reads {VERSION}")));
        }
        let name = r.string("the optimizer's name")?;
        if name != self.def.name {
            return Err(r.error(&format!(
                "states of optimizer `{name}`, not of `{}`",
                self.def.name
            )));
        }
        let num_update = r.u64("num_update")?;
        let begin_num_update = r.u64("begin_num_update")?;
        let m_schedule = r.f64("Nadam's schedule")?;
        let cur_lr = r.f64("LARS' lr")?;
        let last_lr = r.f64("LARS' last lr")?;
        let globals = Globals {
            m_schedule,
            cur_lr: (!cur_lr.is_nan()).then_some(cur_lr),
            last_lr: (!last_lr.is_nan()).then_some(last_lr),
        };
        let mut scheduler = self.scheduler.clone();
        match (r.u8("the scheduler flag")?, &mut scheduler) {
            (0, None) => {}
            (1, Some(s)) => {
                let state = [
                    r.f64("the scheduler's lr")?,
                    r.f64("the scheduler's position")?,
                ];
                s.set_state(state).map_err(|e| r.error(&e))?;
            }
            (0, Some(_)) => {
                return Err(r.error("saved without a scheduler, which this optimizer has"))
            }
            (1, None) => return Err(r.error("saved with a scheduler, which this optimizer lacks")),
            (flag, _) => return Err(r.error(&format!("scheduler flag {flag} (0 or 1)"))),
        }
        let n = r.len("the number of counts", 16)?;
        let mut counts = std::collections::BTreeMap::new();
        for _ in 0..n {
            let index = r.index("a count's parameter index")?;
            counts.insert(index, r.u64("an update count")?);
        }
        let n = r.len("the number of parameters", 12)?;
        let mut slots = std::collections::BTreeMap::new();
        for _ in 0..n {
            let index = r.index("a parameter index")?;
            let count = r.u32("the number of states")? as usize;
            if count > 4 {
                return Err(r.error(&format!("parameter {index}: {count} states (at most 4)")));
            }
            let mut states = Vec::with_capacity(count);
            for k in 0..count {
                states.push(r.array(index, k)?);
            }
            slots.insert(index, Slot::loaded(states));
        }
        if r.at != bytes.len() {
            return Err(r.error(&format!("{} bytes after the end", bytes.len() - r.at)));
        }
        self.num_update = num_update;
        self.begin_num_update = begin_num_update;
        self.globals = globals;
        self.scheduler = scheduler;
        self.counts = counts;
        self.slots = slots;
        Ok(())
    }
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&(s.len() as u32).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn error(&self, what: &str) -> Error {
        Error::Input(format!("optimizer states, at byte {}: {what}", self.at))
    }

    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8]> {
        let left = self.bytes.len() - self.at;
        if n > left {
            return Err(self.error(&format!(
                "truncated reading {what} ({n} bytes, {left} left)"
            )));
        }
        let s = &self.bytes[self.at..self.at + n];
        self.at += n;
        Ok(s)
    }

    fn u8(&mut self, what: &str) -> Result<u8> {
        Ok(self.take(1, what)?[0])
    }

    fn u32(&mut self, what: &str) -> Result<u32> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn u64(&mut self, what: &str) -> Result<u64> {
        let b = self.take(8, what)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }

    fn f64(&mut self, what: &str) -> Result<f64> {
        Ok(f64::from_bits(self.u64(what)?))
    }

    fn index(&mut self, what: &str) -> Result<usize> {
        let v = self.u64(what)?;
        usize::try_from(v).map_err(|_| self.error(&format!("{what} {v} is too large")))
    }

    /// A count of entries of at least `entry` bytes each, checked against what is left.
    fn len(&mut self, what: &str, entry: usize) -> Result<usize> {
        let n = self.u64(what)?;
        let left = (self.bytes.len() - self.at) / entry;
        if n > left as u64 {
            return Err(self.error(&format!(
                "{what} is {n}, but only {left} fit in what is left"
            )));
        }
        Ok(n as usize)
    }

    fn string(&mut self, what: &str) -> Result<String> {
        let n = self.u32(what)? as usize;
        let b = self.take(n, what)?;
        String::from_utf8(b.to_vec()).map_err(|_| self.error(&format!("{what} is not UTF-8")))
    }

    fn array(&mut self, index: usize, k: usize) -> Result<NDArray> {
        let what = format!("state {k} of parameter {index}");
        let code = self.u32(&what)?;
        let dtype = i32::try_from(code)
            .ok()
            .and_then(DType::from_mxnet_code)
            .filter(|d| d.is_float())
            .ok_or_else(|| {
                self.error(&format!("{what}: dtype code {code} is not a float dtype"))
            })?;
        let ndim = self.u32(&what)? as usize;
        if ndim > 32 {
            return Err(self.error(&format!("{what}: {ndim} dimensions")));
        }
        let mut shape = Vec::with_capacity(ndim);
        for _ in 0..ndim {
            shape.push(self.index(&what)?);
        }
        let bytes = kiln_ops::shape::checked_size(&shape)
            .and_then(|n| n.checked_mul(dtype.size()))
            .ok_or_else(|| self.error(&format!("{what}: shape {shape:?} is too large")))?;
        let data = self.take(bytes, &what)?;
        let tensor = Tensor::from_bytes(dtype, shape, data)
            .map_err(|e| self.error(&format!("{what}: {e}")))?;
        Ok(NDArray::from_tensor(&tensor, Device::Cpu)?)
    }
}
