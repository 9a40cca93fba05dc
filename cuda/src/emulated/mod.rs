//! An emulated GPU: the [`Gpu`] interface on host memory, so the whole GPU executor runs
//! in CI. Not a mock — a second implementation of the same interface that is stricter
//! than a real device about what a real device would get wrong silently:
//!
//! - **Memory**: allocations at 256-byte-aligned addresses with unmapped gaps between
//!   them; every range an operation touches is checked against its allocation first.
//! - **Streams and events** as vector clocks: each stream's operations tick its clock,
//!   an event keeps the clock it recorded, waiting merges it, synchronizing merges a
//!   stream's clock into the host's (which every later operation starts from). Every
//!   access is checked against earlier accesses of the same bytes: two from different
//!   streams, one of them a write, with neither ordered before the other, is a race —
//!   so a missing event fails here even though the emulator runs operations one at a
//!   time, in the order they were issued.
//! - **Launches** ([`launch`]) run in the SIMT emulator with the grid, block and
//!   arguments given, decoded as the rendered kernel declares its parameters; a wrong
//!   element count, block size or buffer fails.
//! - **Products** ([`blas`]) with cuBLAS's conventions: column-major, leading dimensions,
//!   transposes, `beta = 0` not reading `C`.

mod blas;
mod launch;

use crate::device::{Arch, Arg, DevicePtr, Event, Gemm, Gpu, LaunchConfig, Module, ModuleId};
use crate::device::{KernelCode, Stream};
use crate::error::{GpuError, Result};
use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::{Arc, Mutex, MutexGuard};

/// Where the emulator's addresses start (far from null, so a zero address is unmapped).
const BASE: u64 = 0x7f00_0000_0000;
/// cudaMalloc's alignment; allocations are also this far apart at least.
const ALIGN: u64 = 256;

/// An emulated device of `memory` bytes.
pub struct Emulated {
    memory: usize,
    state: Mutex<State>,
}

/// A clock per stream: how many operations of each stream an operation is ordered after.
type Clock = Vec<u64>;

fn merge(into: &mut Clock, from: &Clock) {
    if into.len() < from.len() {
        into.resize(from.len(), 0);
    }
    for (a, b) in into.iter_mut().zip(from) {
        *a = (*a).max(*b);
    }
}

#[derive(Default)]
struct State {
    allocations: BTreeMap<u64, Allocation>,
    next: u64,
    used: usize,
    streams: Vec<Clock>,
    events: Vec<Option<Clock>>,
    host: Clock,
    /// Loaded modules' kernels, shared with the launches that run them.
    modules: Vec<Vec<Arc<KernelCode>>>,
}

struct Allocation {
    bytes: Vec<u8>,
    /// Accesses not yet known to be ordered before every later operation.
    accesses: Vec<Access>,
}

struct Access {
    range: Range<usize>,
    stream: usize,
    tick: u64,
    write: bool,
    op: String,
}

/// One operation's place in its stream's order.
struct Op<'a> {
    name: &'a str,
    stream: usize,
    tick: u64,
}

impl Emulated {
    /// A device with `memory` bytes of memory.
    pub fn new(memory: usize) -> Emulated {
        Emulated {
            memory,
            state: Mutex::new(State {
                next: BASE,
                ..State::default()
            }),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl State {
    fn stream(&self, op: &str, s: Stream) -> Result<usize> {
        match s.0 < self.streams.len() {
            true => Ok(s.0),
            false => Err(GpuError::invalid(op, format!("no stream {}", s.0))),
        }
    }

    /// Starts an operation on stream `s`: ordered after its stream's earlier work and
    /// after whatever the host has waited for.
    fn begin<'a>(&mut self, name: &'a str, s: Stream) -> Result<Op<'a>> {
        let stream = self.stream(name, s)?;
        let host = self.host.clone();
        let clock = &mut self.streams[stream];
        merge(clock, &host);
        if clock.len() <= stream {
            clock.resize(stream + 1, 0);
        }
        clock[stream] += 1;
        Ok(Op {
            name,
            stream,
            tick: clock[stream],
        })
    }

    /// The allocation holding `len` bytes at `ptr`, and their range in it.
    fn locate(&self, op: &str, ptr: DevicePtr, len: usize) -> Result<(u64, Range<usize>)> {
        let oob = |why: String| GpuError::OutOfBounds {
            op: op.to_string(),
            range: format!("{ptr}..+{len}"),
            why,
        };
        let (&base, a) = (self.allocations.range(..=ptr.0).next_back())
            .ok_or_else(|| oob("below every allocation".into()))?;
        let start = (ptr.0 - base) as usize;
        if start + len > a.bytes.len() {
            return Err(oob(format!(
                "the allocation at {} holds {} bytes",
                DevicePtr(base),
                a.bytes.len()
            )));
        }
        Ok((base, start..start + len))
    }

    /// Checks that `op` may touch these ranges (`true`: writes) — in bounds, ordered
    /// after every conflicting access of another stream — then records the accesses.
    /// Returns where each range lives.
    fn access(
        &mut self,
        op: &Op,
        ranges: &[(DevicePtr, usize, bool)],
    ) -> Result<Vec<(u64, Range<usize>)>> {
        let clock = &self.streams[op.stream];
        let mut placed = Vec::with_capacity(ranges.len());
        for &(ptr, len, write) in ranges {
            let (base, range) = self.locate(op.name, ptr, len)?;
            let a = &self.allocations[&base];
            let unordered = a.accesses.iter().find(|x| {
                x.stream != op.stream
                    && (x.write || write)
                    && x.range.start < range.end
                    && range.start < x.range.end
                    && clock.get(x.stream).copied().unwrap_or(0) < x.tick
            });
            if let Some(x) = unordered {
                return Err(GpuError::Race {
                    op: op.name.to_string(),
                    range: format!("{ptr}..+{len}"),
                    other: format!("`{}`", x.op),
                    stream: x.stream,
                });
            }
            placed.push((base, range));
        }
        let host = &self.host;
        for (&(_, _, write), (base, range)) in ranges.iter().zip(&placed) {
            let Some(a) = self.allocations.get_mut(base) else {
                continue;
            };
            // Drop what every later operation is ordered after, and this stream's
            // accesses this one covers (a write covers reads and writes).
            a.accesses.retain(|x| {
                let done = host.get(x.stream).copied().unwrap_or(0) >= x.tick;
                let covered = x.stream == op.stream
                    && range.start <= x.range.start
                    && x.range.end <= range.end
                    && (write || !x.write);
                !done && !covered
            });
            a.accesses.push(Access {
                range: range.clone(),
                stream: op.stream,
                tick: op.tick,
                write,
                op: op.name.to_string(),
            });
        }
        Ok(placed)
    }

    fn bytes(&self, at: &(u64, Range<usize>)) -> &[u8] {
        &self.allocations[&at.0].bytes[at.1.clone()]
    }

    fn bytes_mut(&mut self, at: &(u64, Range<usize>)) -> &mut [u8] {
        let a = self.allocations.get_mut(&at.0);
        match a {
            Some(a) => &mut a.bytes[at.1.clone()],
            None => &mut [],
        }
    }

    /// The host waits for stream `s`'s work so far.
    fn host_waits(&mut self, s: usize) {
        let clock = self.streams[s].clone();
        merge(&mut self.host, &clock);
    }
}

impl Gpu for Emulated {
    fn name(&self) -> String {
        "emulated".into()
    }

    /// The architecture kiln's CUDA is written for (sm_90), which NVRTC checks it against.
    fn arch(&self) -> Arch {
        Arch { major: 9, minor: 0 }
    }

    fn total_memory(&self) -> usize {
        self.memory
    }

    fn alloc(&self, bytes: usize) -> Result<DevicePtr> {
        let mut st = self.state();
        if st.used + bytes > self.memory {
            return Err(GpuError::Driver {
                op: format!("allocating {bytes} bytes"),
                message: format!("out of memory: {} of {} bytes in use", st.used, self.memory),
            });
        }
        let mut buffer = Vec::new();
        buffer
            .try_reserve_exact(bytes)
            .map_err(|e| GpuError::Driver {
                op: format!("allocating {bytes} bytes"),
                message: e.to_string(),
            })?;
        buffer.resize(bytes, 0);
        let at = st.next;
        // An unmapped gap of at least one alignment after each allocation.
        st.next = (at + bytes as u64).div_ceil(ALIGN) * ALIGN + ALIGN;
        st.used += bytes;
        st.allocations.insert(
            at,
            Allocation {
                bytes: buffer,
                accesses: Vec::new(),
            },
        );
        Ok(DevicePtr(at))
    }

    fn free(&self, ptr: DevicePtr) -> Result<()> {
        let mut st = self.state();
        let a = st.allocations.remove(&ptr.0).ok_or_else(|| {
            GpuError::invalid("free", format!("{ptr} is not the start of an allocation"))
        })?;
        st.used -= a.bytes.len();
        Ok(())
    }

    fn new_stream(&self) -> Result<Stream> {
        let mut st = self.state();
        st.streams.push(Vec::new());
        Ok(Stream(st.streams.len() - 1))
    }

    fn new_event(&self) -> Result<Event> {
        let mut st = self.state();
        st.events.push(None);
        Ok(Event(st.events.len() - 1))
    }

    fn record(&self, event: Event, stream: Stream) -> Result<()> {
        let mut st = self.state();
        let s = st.stream("record", stream)?;
        let clock = st.streams[s].clone();
        let slot = (st.events.get_mut(event.0))
            .ok_or_else(|| GpuError::invalid("record", format!("no event {}", event.0)))?;
        *slot = Some(clock);
        Ok(())
    }

    fn wait(&self, stream: Stream, event: Event) -> Result<()> {
        let mut st = self.state();
        let s = st.stream("wait", stream)?;
        let recorded = (st.events.get(event.0))
            .ok_or_else(|| GpuError::invalid("wait", format!("no event {}", event.0)))?
            .clone();
        // An event never recorded is complete (as cuStreamWaitEvent treats it).
        if let Some(clock) = recorded {
            merge(&mut st.streams[s], &clock);
        }
        Ok(())
    }

    fn synchronize(&self, stream: Stream) -> Result<()> {
        let mut st = self.state();
        let s = st.stream("synchronize", stream)?;
        st.host_waits(s);
        Ok(())
    }

    fn copy_to_device(&self, stream: Stream, dst: DevicePtr, src: &[u8]) -> Result<()> {
        let mut st = self.state();
        let op = st.begin("copy to device", stream)?;
        let at = st.access(&op, &[(dst, src.len(), true)])?;
        st.bytes_mut(&at[0]).copy_from_slice(src);
        Ok(())
    }

    fn copy_to_host(&self, stream: Stream, dst: &mut [u8], src: DevicePtr) -> Result<()> {
        let mut st = self.state();
        let op = st.begin("copy to host", stream)?;
        let at = st.access(&op, &[(src, dst.len(), false)])?;
        dst.copy_from_slice(st.bytes(&at[0]));
        st.host_waits(op.stream);
        Ok(())
    }

    fn copy_on_device(
        &self,
        stream: Stream,
        dst: DevicePtr,
        src: DevicePtr,
        bytes: usize,
    ) -> Result<()> {
        let mut st = self.state();
        let op = st.begin("copy on device", stream)?;
        let at = st.access(&op, &[(src, bytes, false), (dst, bytes, true)])?;
        let from = st.bytes(&at[0]).to_vec();
        st.bytes_mut(&at[1]).copy_from_slice(&from);
        Ok(())
    }

    fn fill_zero(&self, stream: Stream, dst: DevicePtr, bytes: usize) -> Result<()> {
        let mut st = self.state();
        let op = st.begin("fill zero", stream)?;
        let at = st.access(&op, &[(dst, bytes, true)])?;
        st.bytes_mut(&at[0]).fill(0);
        Ok(())
    }

    fn load(&self, module: &Module) -> Result<ModuleId> {
        let mut st = self.state();
        st.modules
            .push(module.kernels.iter().cloned().map(Arc::new).collect());
        Ok(ModuleId(st.modules.len() - 1))
    }

    fn launch(
        &self,
        stream: Stream,
        module: ModuleId,
        kernel: &str,
        config: LaunchConfig,
        args: &[Arg],
    ) -> Result<()> {
        let mut st = self.state();
        let code = (st.modules.get(module.0))
            .and_then(|m| m.iter().find(|k| k.ir.name == kernel))
            .ok_or_else(|| {
                GpuError::invalid(
                    "launch",
                    format!("no kernel `{kernel}` in module {}", module.0),
                )
            })?
            .clone();
        let name = format!("kernel `{kernel}`");
        let op = st.begin(&name, stream)?;
        launch::run(&mut st, &op, &code, config, args)
    }

    fn gemm(&self, stream: Stream, gemm: &Gemm) -> Result<()> {
        gemm.validate()?;
        let mut st = self.state();
        let op = st.begin("gemm", stream)?;
        blas::run(&mut st, &op, gemm)
    }
}
