//! `dist_async`: the worker's side of a store whose values live on servers.
//!
//! A push sends this worker's sum of its devices to the servers holding the key, where the
//! optimizer applies it on arrival (no worker waits for another); a pull fetches the
//! servers' value into the stored one first. A bucket of keys (a module's small arrays)
//! goes as one request per server and dtype, for a push and for a pull. `init` sends
//! worker 0's value; every worker then fetches it (a server holds pulls until the value is
//! there). `set_optimizer` sends the optimizer's spec from worker 0 and every worker learns
//! whether the servers took it. With 2-bit compression a push sends each slice's packed
//! words (quantized with this worker's residual for the key, as MXNet's workers do), which
//! the server dequantizes.
//!
//! Each request is an engine operation on the MPI thread, after the data it sends is
//! computed (a push reads the devices' sums, a fetch writes the stored values), at the
//! caller's priority. Stores are numbered in the order a worker makes them, the same on
//! every worker, so the servers keep their keys apart.

use crate::comm::{Comm, Exchange};
use crate::control::Link;
use crate::fault::Fault;
use crate::protocol::{self, Header, INIT, OPTIMIZER, PAYLOAD, PULL, PUSH, REPLY};
use kiln_kvstore::compression::GradientCompression;
use kiln_kvstore::{Error, Key, Remote, Result};
use kiln_ops::DType;
use kiln_runtime::{Element, NDArray};
use mpi::datatype::Equivalence;
use mpi::point_to_point::{MatchedReceiveVec, Source};
use mpi::topology::Communicator;
use std::collections::HashMap;
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
    residuals: HashMap<Key, Residual>,
}

/// What compression has not sent yet of a key (error feedback).
type Residual = Arc<Mutex<Vec<f32>>>;

/// One message's worth of a push, pull or init: slices that one server holds, of arrays of
/// one dtype, each with the index of its array.
struct Request {
    server: usize,
    parts: Vec<(usize, Header)>,
}

impl AsyncRemote {
    pub fn new(comm: Arc<Comm>, name: String) -> Result<AsyncRemote> {
        if comm.num_servers() == 0 {
            return Err(Error::Input(format!(
                "kvstore `{name}`: the asynchronous store needs server ranks; start the job with `kiln launch -n N --servers S` (or {}=S under mpirun)",
                crate::comm::SERVERS_VAR
            )));
        }
        Ok(AsyncRemote {
            bound: protocol::bigarray_bound().map_err(|e| Error::Input(e.to_string()))?,
            comm,
            name,
            store: STORES.fetch_add(1, Ordering::Relaxed),
            optimizer_set: false,
            compression: None,
            residuals: HashMap::new(),
        })
    }

    /// The requests about `arrays` (stored under `keys`): their slices grouped by server
    /// and dtype, in key order within each.
    fn requests(&self, keys: &[Key], arrays: &[NDArray], threshold: f32) -> Result<Vec<Request>> {
        let (servers, first) = (self.comm.num_servers(), self.comm.num_workers());
        let mut requests: Vec<Request> = Vec::new();
        for (index, (key, array)) in keys.iter().zip(arrays).enumerate() {
            summable(key, array)?;
            for (server, slice) in protocol::slices(key, array.len(), servers, self.bound) {
                let header = Header {
                    store: self.store,
                    key: key.clone(),
                    dtype: array.dtype(),
                    slice,
                    threshold,
                };
                let server = first + server;
                let same =
                    |r: &&mut Request| r.server == server && r.parts[0].1.dtype == header.dtype;
                match requests.iter_mut().find(same) {
                    Some(request) => request.parts.push((index, header)),
                    None => requests.push(Request {
                        server,
                        parts: vec![(index, header)],
                    }),
                }
            }
        }
        Ok(requests)
    }

    /// Sends `arrays` (stored under `keys`) to their servers as `tag` requests once the
    /// engine has computed them; 2-bit compressed with `residuals` (one per key) when
    /// given.
    fn send(
        &self,
        tag: i32,
        (keys, arrays): (&[Key], &[NDArray]),
        compressed: Option<(GradientCompression, Vec<Residual>)>,
        priority: i32,
    ) -> Result<()> {
        let threshold = compressed.as_ref().map_or(0.0, |(c, _)| c.threshold());
        let requests = self.requests(keys, arrays, threshold)?;
        let values = arrays.to_vec();
        let what = key_range(keys);
        let reads: Vec<&NDArray> = arrays.iter().collect();
        self.comm.after_engine(
            move || format!("the values sent for {what}"),
            match tag {
                INIT => ("dist_async_init", Exchange::Messages),
                _ => ("dist_async_push", Exchange::Messages),
            },
            (&reads, &[]),
            priority,
            move |link, _| {
                // SAFETY: the engine holds `values` for reading by this job until it completes.
                unsafe { send_requests(link, tag, &requests, &values, compressed.as_ref()) }
                    .map_err(|e| e.to_string())
            },
        )
    }
}

/// Sends each of `requests` (its headers, then its slices of `arrays`) as a `tag` request,
/// 2-bit compressed with the keys' residuals where `compressed`.
///
/// # Safety
/// The engine holds `arrays` for reading by the caller.
unsafe fn send_requests(
    link: &Link,
    tag: i32,
    requests: &[Request],
    arrays: &[NDArray],
    compressed: Option<&(GradientCompression, Vec<Residual>)>,
) -> std::result::Result<(), Fault> {
    for request in requests {
        let headers = request.parts.iter().map(|(_, h)| h);
        protocol::send(link, request.server, tag, &protocol::encode_all(headers));
        // SAFETY: the caller's contract.
        let bytes = unsafe {
            match (compressed, request.parts[0].1.dtype) {
                (Some((c, residuals)), _) => send_packed(link, request, arrays, c, residuals)?,
                (None, DType::F64) => send_values::<f64>(link, request, arrays)?,
                (None, _) => send_values::<f32>(link, request, arrays)?,
            }
        };
        link.sent(bytes);
    }
    Ok(())
}

/// Asks every server of `requests` for its slices, then receives them into `arrays`.
///
/// # Safety
/// The engine holds `arrays` for writing by the caller.
unsafe fn fetch_requests(
    link: &Link,
    requests: &[Request],
    arrays: &[NDArray],
) -> std::result::Result<(), Fault> {
    for request in requests {
        let headers = request.parts.iter().map(|(_, h)| h);
        protocol::send(link, request.server, PULL, &protocol::encode_all(headers));
    }
    for request in requests {
        // SAFETY: the caller's contract.
        unsafe {
            match request.parts[0].1.dtype {
                DType::F64 => receive_values::<f64>(link, request, arrays)?,
                _ => receive_values::<f32>(link, request, arrays)?,
            }
        }
    }
    Ok(())
}

/// `keys` for messages: one, or the first to the last.
fn key_range(keys: &[Key]) -> String {
    match keys {
        [one] => format!("key {one}"),
        [first, .., last] => format!("keys {first} to {last}"),
        [] => "no key".into(),
    }
}

/// Sends `request`'s slices of `arrays` as one payload; returns its bytes.
///
/// # Safety
/// The engine holds `arrays` for reading by the caller.
unsafe fn send_values<T: Element + Equivalence + Copy>(
    link: &Link,
    request: &Request,
    arrays: &[NDArray],
) -> std::result::Result<usize, Fault> {
    let part = |(index, header): &(usize, Header)| -> std::result::Result<&[T], Fault> {
        // SAFETY: the caller's contract.
        let values = unsafe { arrays[*index].elements::<T>() }.ok_or(Fault::ChangedDtype)?;
        Ok(&values[header.slice.clone()])
    };
    // One slice goes from the array itself; several are gathered into one message.
    let gathered: Vec<T>;
    let payload = match &request.parts[..] {
        [one] => part(one)?,
        parts => {
            gathered = (parts.iter().map(part))
                .collect::<std::result::Result<Vec<_>, _>>()?
                .concat();
            &gathered[..]
        }
    };
    protocol::send(link, request.server, PAYLOAD, payload);
    Ok(std::mem::size_of_val(payload))
}

/// Sends `request`'s slices quantized with their keys' parts of `residuals`: the packed
/// words, as bits; returns their bytes.
///
/// # Safety
/// As [`send_values`].
unsafe fn send_packed(
    link: &Link,
    request: &Request,
    arrays: &[NDArray],
    compression: &GradientCompression,
    residuals: &[Residual],
) -> std::result::Result<usize, Fault> {
    let mut codes = Vec::new();
    for (index, header) in &request.parts {
        // SAFETY: the caller's contract.
        let values = unsafe { arrays[*index].elements::<f32>() }.ok_or(Fault::ChangedDtype)?;
        let mut residual = residuals[*index].lock().map_err(|_| Fault::Poisoned)?;
        let slice = header.slice.clone();
        let mut packed = vec![0f32; header.payload_len()];
        (compression.quantize(&values[slice.clone()], &mut residual[slice], &mut packed))?;
        codes.extend(packed.iter().map(|w| w.to_bits()));
    }
    protocol::send(link, request.server, PAYLOAD, &codes[..]);
    Ok(4 * codes.len())
}

/// Receives `request`'s slices into `arrays`: one payload, scattered.
///
/// # Safety
/// The engine holds `arrays` for writing by the caller.
unsafe fn receive_values<T: Element + Equivalence + Copy + Default>(
    link: &Link,
    request: &Request,
    arrays: &[NDArray],
) -> std::result::Result<(), Fault> {
    let part = |(index, header): &(usize, Header)| -> std::result::Result<&mut [T], Fault> {
        // SAFETY: the caller's contract; the slices do not overlap.
        let values = unsafe { arrays[*index].elements_mut::<T>() }.ok_or(Fault::ChangedDtype)?;
        Ok(&mut values[header.slice.clone()])
    };
    if let [one] = &request.parts[..] {
        protocol::receive(link, request.server, REPLY, part(one)?);
        return Ok(());
    }
    let total = request.parts.iter().map(|(_, h)| h.slice.len()).sum();
    let mut all = vec![T::default(); total];
    protocol::receive(link, request.server, REPLY, &mut all[..]);
    let mut at = 0;
    for one in &request.parts {
        let into = part(one)?;
        into.copy_from_slice(&all[at..at + into.len()]);
        at += into.len();
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
        let (keys, stored) = (std::slice::from_ref(key), std::slice::from_ref(stored));
        if self.rank() == 0 {
            self.send(INIT, (keys, stored), None, 0)?;
        }
        self.fetch(keys, stored, 0)
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

    fn fetch(&mut self, keys: &[Key], stored: &[NDArray], priority: i32) -> Result<()> {
        let requests = self.requests(keys, stored, 0.0)?;
        let values = stored.to_vec();
        let what = key_range(keys);
        let writes: Vec<&NDArray> = stored.iter().collect();
        self.comm.after_engine(
            move || format!("the servers' values of {what}"),
            ("dist_async_pull", Exchange::Messages),
            (&[], &writes),
            priority,
            move |link, _| {
                // SAFETY: the engine holds `values` for writing by this job until it completes.
                unsafe { fetch_requests(link, &requests, &values) }.map_err(|e| e.to_string())
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
        let compressed = match self.compression {
            Some(compression) => {
                let mut residuals = Vec::with_capacity(keys.len());
                for (key, local) in keys.iter().zip(locals) {
                    if local.dtype() != DType::F32 {
                        return Err(Error::Input(format!(
                            "push of key {key}: 2-bit compression takes f32 arrays, not {}",
                            local.dtype()
                        )));
                    }
                    let residual = (self.residuals.entry(key.clone()))
                        .or_insert_with(|| Arc::new(Mutex::new(vec![0.0; local.len()])));
                    residuals.push(residual.clone());
                }
                Some((compression, residuals))
            }
            None => None,
        };
        self.send(PUSH, (keys, locals), compressed, priority)
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
