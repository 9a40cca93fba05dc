//! `dist_async`: the worker's side of a store whose values live on servers.
//!
//! A push sends this worker's sum of its devices to the servers holding the key, where the
//! optimizer applies it on arrival (no worker waits for another); a pull fetches the
//! servers' value into the stored one first. `init` sends worker 0's value; every worker
//! then fetches it (a server holds pulls until the value is there). `set_optimizer` sends
//! the optimizer's spec from worker 0 and every worker learns whether the servers took it.
//! With 2-bit compression a push sends each slice's packed words (quantized with this
//! worker's residual for the key, as MXNet's workers do), which the server dequantizes.
//!
//! Each message is an engine operation on the MPI thread, after the data it sends is
//! computed (a push reads the devices' sum, a fetch writes the stored value), at the
//! caller's priority. Stores are numbered in the order a worker makes them, the same on
//! every worker, so the servers keep their keys apart.

use crate::comm::Comm;
use crate::control::Link;
use crate::protocol::{self, Header, INIT, OPTIMIZER, PAYLOAD, PULL, PUSH, REPLY};
use kiln_kvstore::compression::compressed_size;
use kiln_kvstore::compression::GradientCompression;
use kiln_kvstore::{Error, Key, Remote, Result};
use kiln_ops::DType;
use kiln_runtime::NDArray;
use mpi::point_to_point::{MatchedReceiveVec, Source};
use mpi::topology::Communicator;
use std::collections::HashMap;
use std::ops::Range;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

/// The asynchronous stores this process has made.
static STORES: AtomicU32 = AtomicU32::new(0);

pub struct AsyncRemote {
    comm: Arc<Comm>,
    name: String,
    store: u32,
    bound: usize,
    optimizer_set: bool,
    compression: Option<GradientCompression>,
    /// Per key, what compression has not sent yet (error feedback).
    residuals: HashMap<Key, Arc<Mutex<Vec<f32>>>>,
}

/// How a push's values travel: as they are, or 2-bit compressed with the key's residual.
type Packing = Option<(GradientCompression, Arc<Mutex<Vec<f32>>>)>;

impl AsyncRemote {
    pub fn new(comm: Arc<Comm>, name: String) -> Result<AsyncRemote> {
        if comm.num_servers() == 0 {
            return Err(Error::Input(format!(
                "kvstore `{name}`: the asynchronous store needs server ranks; start the job with `kiln launch -n N --servers S` (or {}=S under mpirun)",
                crate::comm::SERVERS_VAR
            )));
        }
        Ok(AsyncRemote {
            bound: protocol::bigarray_bound().map_err(Error::Input)?,
            comm,
            name,
            store: STORES.fetch_add(1, Ordering::Relaxed),
            optimizer_set: false,
            compression: None,
            residuals: HashMap::new(),
        })
    }

    /// The headers of `key`'s slices, each with its server's rank.
    fn slices(&self, key: &Key, array: &NDArray) -> Vec<(usize, Header)> {
        let servers = self.comm.num_servers();
        let first = self.comm.num_workers();
        protocol::slices(key, array.len(), servers, self.bound)
            .into_iter()
            .map(|(server, slice)| {
                let header = Header {
                    store: self.store,
                    key: key.clone(),
                    dtype: array.dtype(),
                    slice,
                    threshold: 0.0,
                };
                (first + server, header)
            })
            .collect()
    }

    /// Sends each slice of `array` to its server as a `tag` request, after the engine has
    /// computed it, packed as `packing` says.
    fn send_slices(
        &self,
        tag: i32,
        (key, array): (&Key, &NDArray),
        packing: Packing,
        priority: i32,
    ) -> Result<()> {
        summable(key, array)?;
        let mut slices = self.slices(key, array);
        if let Some((compression, _)) = &packing {
            for (_, header) in &mut slices {
                header.threshold = compression.threshold();
            }
        }
        let values = array.clone();
        let what_key = key.clone();
        self.comm.after_engine_messages(
            move || format!("the value sent for key {what_key}"),
            if tag == INIT {
                "dist_async_init"
            } else {
                "dist_async_push"
            },
            (&[array], &[]),
            priority,
            move |link, _| {
                // SAFETY: the engine holds `values` for reading by this job until it completes.
                unsafe {
                    match (values.dtype(), packing) {
                        (DType::F64, _) => send_each(link, tag, &slices, values.elements::<f64>()),
                        (_, None) => send_each(link, tag, &slices, values.elements::<f32>()),
                        (_, Some((compression, residual))) => {
                            let values =
                                values.elements::<f32>().ok_or("the array changed dtype")?;
                            let mut residual =
                                residual.lock().map_err(|_| "a residual is poisoned")?;
                            send_packed(link, &slices, &compression, values, &mut residual)
                        }
                    }
                }
            },
        )
    }
}

/// Sends each slice quantized with its part of `residual`: the packed words, as bits.
fn send_packed(
    link: &Link,
    slices: &[(usize, Header)],
    compression: &GradientCompression,
    values: &[f32],
    residual: &mut [f32],
) -> std::result::Result<(), String> {
    for (server, header) in slices {
        let part = header.slice.clone();
        let mut packed = vec![0f32; compressed_size(part.len())];
        (compression.quantize(&values[part.clone()], &mut residual[part], &mut packed))
            .map_err(|e| e.to_string())?;
        let codes: Vec<u32> = packed.iter().map(|w| w.to_bits()).collect();
        protocol::send(link, *server, PUSH, &header.encode());
        protocol::send(link, *server, PAYLOAD, &codes[..]);
        link.sent(4 * codes.len());
    }
    Ok(())
}

fn send_each<T: mpi::datatype::Equivalence>(
    link: &Link,
    tag: i32,
    slices: &[(usize, Header)],
    values: Option<&[T]>,
) -> std::result::Result<(), String> {
    let values = values.ok_or("the array changed dtype")?;
    for (server, header) in slices {
        protocol::send(link, *server, tag, &header.encode());
        let part = &values[header.slice.clone()];
        protocol::send(link, *server, PAYLOAD, part);
        link.sent(std::mem::size_of_val(part));
    }
    Ok(())
}

fn receive_each<T: mpi::datatype::Equivalence>(
    link: &Link,
    slices: &[(usize, Header)],
    values: Option<&mut [T]>,
) -> std::result::Result<(), String> {
    let values = values.ok_or("the array changed dtype")?;
    for (server, header) in slices {
        protocol::send(link, *server, PULL, &header.encode());
    }
    for (server, header) in slices {
        let part: Range<usize> = header.slice.clone();
        protocol::receive(link, *server, REPLY, &mut values[part]);
    }
    Ok(())
}

/// The dtypes the servers hold.
fn summable(key: &Key, array: &NDArray) -> Result<()> {
    match array.dtype() {
        DType::F32 | DType::F64 => Ok(()),
        other => Err(Error::Input(format!(
            "key {key}: {other} arrays are not kept on servers (f32, f64)"
        ))),
    }
}

impl Remote for AsyncRemote {
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

    fn updates_on_servers(&self) -> bool {
        true
    }

    fn init(&mut self, key: &Key, stored: &NDArray) -> Result<()> {
        if self.rank() == 0 {
            self.send_slices(INIT, (key, stored), None, 0)?;
        }
        self.fetch(key, stored, 0)
    }

    fn set_optimizer(&mut self, spec: &str) -> Result<()> {
        let mut refused = None;
        if self.rank() == 0 {
            let request = protocol::encode_optimizer(self.store, spec);
            let servers: Vec<usize> = (self.comm.num_workers()..self.comm.size()).collect();
            refused = self.comm.call(move |link| {
                for &server in &servers {
                    protocol::send(link, server, OPTIMIZER, &request);
                }
                let mut refused = None;
                for &server in &servers {
                    let reply = answer(link, server);
                    if !reply.is_empty() {
                        refused.get_or_insert(reply);
                    }
                }
                refused
            })?;
        }
        // Every worker learns whether worker 0's optimizer was taken.
        let taken = self.comm.count(refused.is_none())? == self.num_workers();
        match (taken, refused) {
            (true, _) => {
                self.optimizer_set = true;
                Ok(())
            }
            (false, Some(why)) => Err(Error::Input(format!("set_optimizer: {why}"))),
            (false, None) => Err(Error::Input(
                "set_optimizer: the servers refused worker 0's optimizer".into(),
            )),
        }
    }

    fn set_compression(&mut self, compression: Option<GradientCompression>) -> Result<()> {
        self.compression = compression;
        self.residuals.clear();
        Ok(())
    }

    fn fetch(&mut self, key: &Key, stored: &NDArray, priority: i32) -> Result<()> {
        summable(key, stored)?;
        let slices = self.slices(key, stored);
        let values = stored.clone();
        let what_key = key.clone();
        self.comm.after_engine_messages(
            move || format!("the servers' value of key {what_key}"),
            "dist_async_pull",
            (&[], &[stored]),
            priority,
            move |link, _| {
                // SAFETY: the engine holds `values` for writing by this job until it completes.
                unsafe {
                    match values.dtype() {
                        DType::F64 => receive_each(link, &slices, values.elements_mut::<f64>()),
                        _ => receive_each(link, &slices, values.elements_mut::<f32>()),
                    }
                }
            },
        )
    }

    fn push(
        &mut self,
        keys: &[Key],
        locals: &[NDArray],
        _globals: &[NDArray],
        priority: i32,
    ) -> Result<()> {
        if !self.optimizer_set {
            return Err(Error::Input(format!(
                "push to kvstore `{}`: the servers apply pushes with the optimizer; call set_optimizer first",
                self.name
            )));
        }
        if keys.len() != locals.len() {
            return Err(Error::Input(format!(
                "push of {} keys with {} values",
                keys.len(),
                locals.len()
            )));
        }
        for (key, local) in keys.iter().zip(locals) {
            let packing = match self.compression {
                Some(compression) => {
                    if local.dtype() != DType::F32 {
                        return Err(Error::Input(format!(
                            "push of key {key}: 2-bit compression takes f32 arrays, not {}",
                            local.dtype()
                        )));
                    }
                    let residual = (self.residuals.entry(key.clone()))
                        .or_insert_with(|| Arc::new(Mutex::new(vec![0.0; local.len()])));
                    Some((compression, residual.clone()))
                }
                None => None,
            };
            self.send_slices(PUSH, (key, local), packing, priority)?;
        }
        Ok(())
    }
}

/// The bytes of the reply `server` sends next (of a size this worker does not know).
fn answer(link: &Link, server: usize) -> String {
    let process = link.data.process_at_rank(server as i32);
    let start = std::time::Instant::now();
    loop {
        if let Some(probed) = process.immediate_matched_probe_with_tag(REPLY) {
            let (bytes, _) = probed.matched_receive_vec::<u8>();
            return String::from_utf8_lossy(&bytes).into_owned();
        }
        link.poll(None);
        link.pause_after(start);
    }
}
