//! `dist_sync` and `dist_device_sync`: the workers' sums by all-reduce.
//!
//! Every worker receives the same sum and runs the same updater on it, so weights stay
//! equal on every worker, and equal to what one server applying the sum would hold (MXNet
//! sums on servers, then each worker pulls). Initial values are worker 0's, broadcast.
//!
//! The sum is a reduce-scatter then an all-gather, each rank summing its slice of the
//! array from every rank's part: 2(N-1)/N of the array sent per rank, as a ring
//! all-reduce, but each element summed in one fixed order, the one a process sums its
//! devices in (`kiln_kvstore::sum_in_order`, ranks for devices). So N workers compute what
//! one process of N devices computes, bit for bit, whatever MPI's own algorithms are.

use crate::comm::{Comm, Exchange};
use crate::control::Link;
use kiln_kvstore::compression::{compressed_size, GradientCompression};
use kiln_kvstore::{Error, Key, Remote, Result};
use kiln_ops::DType;
use kiln_runtime::NDArray;
use mpi::collective::{CommunicatorCollectives, Root};
use mpi::datatype::{Equivalence, Partition, PartitionMut};
use mpi::topology::Communicator;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Elements per MPI call: MPI counts are C ints.
const CHUNK: usize = 1 << 30;

pub struct SyncRemote {
    comm: Arc<Comm>,
    name: String,
    compression: Option<GradientCompression>,
    /// Per key, what compression has not sent yet (error feedback).
    residuals: HashMap<Key, Arc<Mutex<Vec<f32>>>>,
}

impl SyncRemote {
    pub fn new(comm: Arc<Comm>, name: String) -> SyncRemote {
        SyncRemote {
            comm,
            name,
            compression: None,
            residuals: HashMap::new(),
        }
    }
}

/// The dtypes summed across workers.
fn summable(key: &Key, what: &str, array: &NDArray) -> Result<()> {
    match array.dtype() {
        DType::F32 | DType::F64 => Ok(()),
        other => Err(Error::Input(format!(
            "{what} of key {key}: {other} arrays are not summed across workers (f32, f64)"
        ))),
    }
}

impl Remote for SyncRemote {
    fn type_name(&self) -> &str {
        &self.name
    }

    fn rank(&self) -> usize {
        self.comm.rank()
    }

    fn num_workers(&self) -> usize {
        self.comm.num_workers()
    }

    fn abort(&self, error: &str) -> ! {
        self.comm.abort(error)
    }

    fn barrier(&mut self) -> Result<()> {
        self.comm.barrier()
    }

    fn count(&mut self, this: bool) -> Result<usize> {
        self.comm.count(this)
    }

    fn init(&mut self, key: &Key, stored: &NDArray) -> Result<()> {
        summable(key, "init", stored)?;
        let array = stored.clone();
        let key = key.clone();
        self.comm.after_engine(
            move || format!("the initial value of key {key}"),
            ("dist_init", Exchange::Collective),
            (&[], &[stored]),
            0,
            move |link, what| {
                // SAFETY: the engine holds `array` for this job alone until it completes.
                unsafe {
                    match array.dtype() {
                        DType::F32 => broadcast(link, array.elements_mut::<f32>(), what),
                        _ => broadcast(link, array.elements_mut::<f64>(), what),
                    }
                }
            },
        )
    }

    fn set_compression(&mut self, compression: Option<GradientCompression>) -> Result<()> {
        self.compression = compression;
        self.residuals.clear();
        Ok(())
    }

    fn push(
        &mut self,
        keys: &[Key],
        locals: &[NDArray],
        globals: &[NDArray],
        priority: i32,
    ) -> Result<()> {
        if keys.len() != locals.len() || keys.len() != globals.len() {
            return Err(Error::Input(format!(
                "push of {} keys with {} values into {} arrays",
                keys.len(),
                locals.len(),
                globals.len()
            )));
        }
        for (key, local) in keys.iter().zip(locals) {
            summable(key, "push", local)?;
        }
        let dtype = locals.first().map(NDArray::dtype);
        let one_dtype = locals.iter().all(|l| Some(l.dtype()) == dtype);
        // Compression quantizes each key with its own residual, as MXNet does.
        if keys.len() == 1 || self.compression.is_some() || !one_dtype {
            for ((key, local), global) in keys.iter().zip(locals).zip(globals) {
                self.push_one(key, local, global, priority)?;
            }
            return Ok(());
        }
        let (sends, recvs) = (locals.to_vec(), globals.to_vec());
        let (first, last) = (keys[0].clone(), keys[keys.len() - 1].clone());
        let reads: Vec<&NDArray> = locals.iter().collect();
        let writes: Vec<&NDArray> = globals.iter().collect();
        self.comm.after_engine(
            move || format!("the values pushed to keys {first} to {last}"),
            ("dist_allreduce", Exchange::Collective),
            (&reads, &writes),
            priority,
            move |link, what| {
                // SAFETY: the engine holds `sends` for reading and `recvs` for writing by
                // this job alone until it completes; they are different arrays.
                unsafe {
                    match sends[0].dtype() {
                        DType::F32 => bucket_sum::<f32>(link, &sends, &recvs, what),
                        _ => bucket_sum::<f64>(link, &sends, &recvs, what),
                    }
                }
            },
        )
    }
}

impl SyncRemote {
    /// One key's push (see `Remote::push`).
    fn push_one(
        &mut self,
        key: &Key,
        local: &NDArray,
        global: &NDArray,
        priority: i32,
    ) -> Result<()> {
        let (send, recv) = (local.clone(), global.clone());
        if let Some(compression) = self.compression {
            if local.dtype() != DType::F32 {
                return Err(Error::Input(format!(
                    "push of key {key}: 2-bit compression takes f32 arrays, not {}",
                    local.dtype()
                )));
            }
            let residual = (self.residuals.entry(key.clone()))
                .or_insert_with(|| Arc::new(Mutex::new(vec![0.0; local.len()])))
                .clone();
            let key = key.clone();
            return self.comm.after_engine(
                move || format!("the compressed value pushed to key {key}"),
                ("dist_allgather_2bit", Exchange::Collective),
                (&[local], &[global]),
                priority,
                move |link, what| {
                    // SAFETY: as for the uncompressed sum below.
                    let (send, recv) = unsafe { (send.elements::<f32>(), recv.elements_mut()) };
                    let (Some(send), Some(recv)) = (send, recv) else {
                        return Err("the pushed arrays changed dtype".into());
                    };
                    let mut residual = residual.lock().map_err(|_| "a residual is poisoned")?;
                    compressed_sum(link, &compression, &mut residual, send, recv, what)
                },
            );
        }
        let key = key.clone();
        self.comm.after_engine(
            move || format!("the value pushed to key {key}"),
            ("dist_allreduce", Exchange::Collective),
            (&[local], &[global]),
            priority,
            move |link, what| {
                // SAFETY: the engine holds `send` for reading and `recv` for writing by this
                // job alone until it completes; they are different arrays (the store's).
                unsafe {
                    match send.dtype() {
                        DType::F32 => {
                            all_sum(link, send.elements::<f32>(), recv.elements_mut(), what)
                        }
                        _ => all_sum(link, send.elements::<f64>(), recv.elements_mut(), what),
                    }
                }
            },
        )
    }
}

fn broadcast<T: Equivalence>(
    link: &Link,
    values: Option<&mut [T]>,
    what: &dyn Fn() -> String,
) -> std::result::Result<(), String> {
    let values = values.ok_or("the stored array changed dtype")?;
    for chunk in values.chunks_mut(CHUNK) {
        mpi::request::scope(|scope| {
            let request = link
                .workers
                .process_at_rank(0)
                .immediate_broadcast_into(scope, chunk);
            link.wait(request, what);
        });
    }
    Ok(())
}

fn all_sum<T: Summed>(
    link: &Link,
    send: Option<&[T]>,
    recv: Option<&mut [T]>,
    what: &dyn Fn() -> String,
) -> std::result::Result<(), String> {
    let (Some(send), Some(recv)) = (send, recv) else {
        return Err("the pushed arrays changed dtype".into());
    };
    if send.len() != recv.len() {
        return Err(format!(
            "{} elements pushed into {}",
            send.len(),
            recv.len()
        ));
    }
    let workers = &link.workers;
    let (ranks, me) = (workers.size() as usize, workers.rank() as usize);
    let size = std::mem::size_of::<T>();
    for (send, recv) in send.chunks(CHUNK).zip(recv.chunks_mut(CHUNK)) {
        // Rank q sums elements bounds[q]..bounds[q + 1].
        let bounds: Vec<usize> = (0..=ranks).map(|q| q * send.len() / ranks).collect();
        let counts: Vec<i32> = bounds.windows(2).map(|b| (b[1] - b[0]) as i32).collect();
        let displs: Vec<i32> = bounds[..ranks].iter().map(|&b| b as i32).collect();
        let mine = counts[me] as usize;
        link.sent((send.len() - mine + mine * (ranks - 1)) * size);
        T::with_scratch((ranks + 1) * mine, |scratch| {
            // Every rank's part of this rank's slice, by rank, then their sum.
            let (parts, summed) = scratch.split_at_mut(ranks * mine);
            let part_counts = vec![mine as i32; ranks];
            let part_displs: Vec<i32> = (0..ranks).map(|q| (q * mine) as i32).collect();
            let send = Partition::new(send, &counts[..], &displs[..]);
            let mut into = PartitionMut::new(&mut *parts, &part_counts[..], &part_displs[..]);
            mpi::request::scope(|scope| {
                let request = workers.immediate_all_to_all_varcount_into(scope, &send, &mut into);
                link.wait(request, what);
            });
            if mine > 0 {
                let sources: Vec<&[T]> = parts.chunks(mine).collect();
                kiln_kvstore::sum_in_order(&sources, 0, summed);
            }
            let mut all = PartitionMut::new(&mut *recv, &counts[..], &displs[..]);
            mpi::request::scope(|scope| {
                let request = workers.immediate_all_gather_varcount_into(scope, &*summed, &mut all);
                link.wait(request, what);
            });
        });
    }
    Ok(())
}

/// The workers' sum of their gradients sent 2-bit compressed (MXNet's rule, with this
/// worker's `residual`): every rank's packed words gathered by every rank, each
/// dequantized and summed in the devices' order, as MXNet's servers dequantize and sum.
/// Each rank sends its codes to the N-1 others: 1/16 of the array each, less than an
/// uncompressed reduction while N stays under 32.
fn compressed_sum(
    link: &Link,
    compression: &GradientCompression,
    residual: &mut [f32],
    send: &[f32],
    recv: &mut [f32],
    what: &dyn Fn() -> String,
) -> std::result::Result<(), String> {
    let n = send.len();
    if n == 0 {
        return Ok(());
    }
    let ranks = link.workers.size() as usize;
    let words = compressed_size(n);
    if ranks * words > i32::MAX as usize {
        return Err(format!(
            "{n} values are too many to compress in one message"
        ));
    }
    let mut packed = vec![0f32; words];
    compression
        .quantize(send, residual, &mut packed)
        .map_err(|e| e.to_string())?;
    // Sent as bits, so no float conversion can touch the codes.
    let codes: Vec<u32> = packed.iter().map(|w| w.to_bits()).collect();
    let mut gathered = vec![0u32; ranks * words];
    mpi::request::scope(|scope| {
        let request =
            (link.workers).immediate_all_gather_into(scope, &codes[..], &mut gathered[..]);
        link.wait(request, what);
    });
    link.sent((ranks - 1) * words * 4);
    let mut values = vec![0f32; ranks * n];
    for (codes, out) in gathered.chunks(words).zip(values.chunks_mut(n)) {
        let words: Vec<f32> = codes.iter().map(|&c| f32::from_bits(c)).collect();
        compression
            .dequantize(&words, out)
            .map_err(|e| e.to_string())?;
    }
    let sources: Vec<&[f32]> = values.chunks(n).collect();
    kiln_kvstore::sum_in_order(&sources, 0, recv);
    Ok(())
}

/// The workers' sums of several arrays as one message: copied into one buffer, summed as
/// one array (every element in the same order as alone), copied back.
///
/// # Safety
/// The engine holds `sends` for reading and `recvs` for writing by this call alone.
unsafe fn bucket_sum<T: Summed>(
    link: &Link,
    sends: &[NDArray],
    recvs: &[NDArray],
    what: &dyn Fn() -> String,
) -> std::result::Result<(), String> {
    let changed = || "the pushed arrays changed dtype".to_string();
    let total: usize = sends.iter().map(NDArray::len).sum();
    let mut flat = vec![T::default(); 2 * total];
    let (send, recv) = flat.split_at_mut(total);
    let mut at = 0;
    for array in sends {
        // SAFETY: the caller's contract.
        let values = unsafe { array.elements::<T>() }.ok_or_else(changed)?;
        send[at..at + values.len()].copy_from_slice(values);
        at += values.len();
    }
    all_sum(link, Some(send), Some(&mut *recv), what)?;
    let mut at = 0;
    for array in recvs {
        // SAFETY: the caller's contract.
        let values = unsafe { array.elements_mut::<T>() }.ok_or_else(changed)?;
        let n = values.len();
        values.copy_from_slice(recv.get(at..at + n).ok_or_else(changed)?);
        at += n;
    }
    Ok(())
}

/// The dtypes summed across workers, each with the MPI thread's working space for them:
/// kept between pushes, so a step neither allocates nor faults in fresh pages for it.
trait Summed:
    Equivalence + kiln_runtime::Element + Copy + Default + std::ops::Add<Output = Self> + 'static
{
    /// Runs `f` on `len` elements of working space.
    fn with_scratch<R>(len: usize, f: impl FnOnce(&mut [Self]) -> R) -> R;
}

macro_rules! summed {
    ($($t:ty),*) => {$(
        impl Summed for $t {
            fn with_scratch<R>(len: usize, f: impl FnOnce(&mut [Self]) -> R) -> R {
                thread_local!(static SCRATCH: std::cell::RefCell<Vec<$t>> = const {
                    std::cell::RefCell::new(Vec::new())
                });
                SCRATCH.with_borrow_mut(|scratch| {
                    if scratch.len() < len {
                        scratch.resize(len, 0.0);
                    }
                    f(&mut scratch[..len])
                })
            }
        }
    )*};
}

summed!(f32, f64);
