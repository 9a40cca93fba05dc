//! `KILN_PROFILE=trace.json`: a Chrome trace (the trace-event JSON format, viewable in
//! chrome://tracing or Perfetto) of every engine operation — segments and the operations
//! inside them, kernels, products and their pack/gemm/epilogue phases: name, thread,
//! start, duration and, where known, the bytes of the arrays it reads and writes. Recording starts with the first operation; the file is rewritten with every
//! event so far whenever the engine is waited on ([`Engine::wait_all`]) and by [`write`].
//!
//! [`Engine::wait_all`]: crate::Engine::wait_all

use kiln_compiler::formats::atomic::AtomicFile;
use std::io::Write;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

struct Event {
    name: Arc<str>,
    thread: usize,
    start: Instant,
    end: Instant,
    /// 0: not known.
    bytes: usize,
}

struct Profile {
    path: PathBuf,
    origin: Instant,
    events: Mutex<Vec<Event>>,
    threads: Mutex<Vec<String>>,
}

fn profile() -> Option<&'static Profile> {
    static PROFILE: OnceLock<Option<Profile>> = OnceLock::new();
    PROFILE
        .get_or_init(|| {
            let path = crate::Config::global().profile.clone()?;
            Some(Profile {
                path,
                origin: Instant::now(),
                events: Mutex::new(Vec::new()),
                threads: Mutex::new(Vec::new()),
            })
        })
        .as_ref()
}

/// Whether operations are being recorded.
pub fn enabled() -> bool {
    profile().is_some()
}

thread_local!(static THREAD: std::cell::Cell<Option<usize>> = const { std::cell::Cell::new(None) });

/// Records one operation that ran on this thread from `start` to now, reading and writing
/// `bytes` of arrays (0: not known).
pub(crate) fn record(name: &Arc<str>, start: Instant, bytes: usize) {
    let Some(p) = profile() else { return };
    let end = Instant::now();
    let thread = THREAD.with(|t| {
        *t.get().get_or_insert_with(|| {
            let mut names = p.threads.lock().unwrap_or_else(|e| e.into_inner());
            names.push(
                std::thread::current()
                    .name()
                    .unwrap_or("thread")
                    .to_string(),
            );
            let id = names.len() - 1;
            t.set(Some(id));
            id
        })
    });
    p.events
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(Event {
            name: name.clone(),
            thread,
            start,
            end,
            bytes,
        });
}

/// Writes the trace (every event so far) to `KILN_PROFILE`'s path, whole or not at all
/// (kiln-compiler's atomic files: a reader never sees a trace cut short by a rewrite);
/// `None` when not profiling.
pub fn write() -> std::io::Result<Option<PathBuf>> {
    let Some(p) = profile() else { return Ok(None) };
    let events = p.events.lock().unwrap_or_else(|e| e.into_inner());
    let threads = p.threads.lock().unwrap_or_else(|e| e.into_inner());
    let us = |t: Instant| t.saturating_duration_since(p.origin).as_secs_f64() * 1e6;
    let mut out = AtomicFile::create(&p.path)?;
    writeln!(out, "{{\"traceEvents\": [")?;
    for (tid, name) in threads.iter().enumerate() {
        writeln!(
            out,
            "{{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 1, \"tid\": {tid}, \"args\": {{\"name\": {}}}}},",
            serde_json::to_string(name).unwrap_or_default()
        )?;
    }
    for (i, e) in events.iter().enumerate() {
        let comma = if i + 1 < events.len() { "," } else { "" };
        let args = match e.bytes {
            0 => String::new(),
            b => format!(", \"args\": {{\"bytes\": {b}}}"),
        };
        writeln!(
            out,
            "{{\"ph\": \"X\", \"name\": {}, \"cat\": \"operator\", \"pid\": 1, \"tid\": {}, \"ts\": {:.3}, \"dur\": {:.3}{args}}}{comma}",
            serde_json::to_string(&*e.name).unwrap_or_default(),
            e.thread,
            us(e.start),
            us(e.end) - us(e.start)
        )?;
    }
    writeln!(out, "]}}")?;
    out.persist()?;
    Ok(Some(p.path.clone()))
}
