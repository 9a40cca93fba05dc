//! MXNet's `PrefetchingIter` for one inner iterator: the inner iterator's next batch is
//! made on a thread of its own while the consumer works on the current one.
//!
//! The contract:
//! - **Same batches.** `provide_data`, `provide_label` and `batch_size` are the inner
//!   iterator's (read once, at construction). Each epoch yields exactly the results the
//!   inner iterator's `next_batch` returns, in order, errors included: an error is handed
//!   out where the consumer would have met it, and the thread goes on asking for batches as
//!   a direct caller that retries would. `None` ends the epoch; the thread then waits for
//!   `reset`.
//! - **Ahead by `prefetch`.** The thread makes at most `prefetch` batches (1 by default, as
//!   MXNet) that the consumer has not taken yet, so memory stays bounded.
//! - **Reset.** `reset` returns at once: the batches made for the epoch being left are
//!   dropped (one the thread is making is finished first, and dropped at the next
//!   `next_batch` — an iterator cannot be interrupted mid-batch), then the inner iterator
//!   is reset and the next epoch's first batch made while the consumer does whatever it
//!   does between epochs. After a full epoch the inner iterator sees the calls a direct
//!   run makes. A reset mid-epoch comes after the inner iterator made up to `prefetch`
//!   batches more than were taken, as in MXNet: an iterator whose next epoch depends on
//!   where the last one stopped (a `roll_over` that reached the end) may then start it
//!   differently from a direct run.
//! - **Panics.** A panic in the inner iterator (in `next_batch` or `reset`) is caught: the
//!   thread stops, drops the inner iterator, and every later `next_batch` returns an error
//!   that carries the panic's message — never a hang.
//! - **Drop.** Dropping the wrapper, mid-epoch or not, tells the thread to stop and joins it:
//!   a thread blocked on handing over a batch wakes at once, one inside the inner
//!   iterator's `next_batch` stops when that call returns. The inner iterator is dropped on
//!   that thread before the join returns.

use crate::iter::{DataBatch, DataDesc, DataIter};
use crate::{Error, Result};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc::{channel, sync_channel, Receiver, Sender, SyncSender, TryRecvError};
use std::thread::JoinHandle;

/// What the consumer asks of the thread.
enum Command {
    /// Leave the current epoch and reset the inner iterator.
    Reset,
}

/// What the thread hands over, tagged with the epoch (the number of resets it had
/// processed) it belongs to, so the consumer can drop what a reset left behind.
enum Message {
    /// A result of the inner `next_batch`.
    Next(Result<Option<DataBatch>>),
    /// The inner iterator panicked: the thread has stopped.
    Panicked(String),
}

/// Runs an inner iterator on a thread of its own, `prefetch` batches ahead.
pub struct PrefetchingIter {
    data: Vec<DataDesc>,
    label: Vec<DataDesc>,
    batch_size: usize,
    /// `None` once dropped (so the thread sees the disconnection before the join).
    commands: Option<Sender<Command>>,
    batches: Option<Receiver<(u64, Message)>>,
    thread: Option<JoinHandle<()>>,
    /// Resets asked for: messages of an earlier epoch are stale.
    epoch: u64,
    /// Whether this epoch's end (`None`) was handed out.
    ended: bool,
    /// A result of this epoch received (while a reset dropped stale ones), not yet handed
    /// out.
    peeked: Option<Result<Option<DataBatch>>>,
    /// Why the thread stopped for good (a panic), reported by every later `next_batch`.
    failure: Option<String>,
}

impl PrefetchingIter {
    /// Prefetches one batch ahead of the consumer, as MXNet's `PrefetchingIter` does.
    pub fn new(inner: Box<dyn DataIter>) -> Result<PrefetchingIter> {
        PrefetchingIter::with_prefetch(inner, 1)
    }

    /// Prefetches up to `prefetch` batches ahead (at least 1).
    pub fn with_prefetch(inner: Box<dyn DataIter>, prefetch: usize) -> Result<PrefetchingIter> {
        if prefetch == 0 {
            return Err(Error::Input(
                "PrefetchingIter: prefetch must be at least 1 batch".into(),
            ));
        }
        let (data, label, batch_size) = (
            inner.provide_data(),
            inner.provide_label(),
            inner.batch_size(),
        );
        let (commands, received) = channel();
        // The thread holds one finished batch while it blocks handing it over, so a
        // channel of `prefetch - 1` slots keeps `prefetch` batches ahead.
        let (sent, batches) = sync_channel(prefetch - 1);
        let thread = std::thread::Builder::new()
            .name("kiln-prefetch".into())
            .spawn(move || produce(inner, received, sent))
            .map_err(|e| Error::Input(format!("PrefetchingIter: cannot start its thread: {e}")))?;
        Ok(PrefetchingIter {
            data,
            label,
            batch_size,
            commands: Some(commands),
            batches: Some(batches),
            thread: Some(thread),
            epoch: 0,
            ended: false,
            peeked: None,
            failure: None,
        })
    }
}

/// The error for a thread that stopped for good, and why.
fn failed(why: &str) -> Error {
    Error::Input(format!("PrefetchingIter: {why}"))
}

/// The thread: the inner iterator's batches of each epoch, then a wait for the reset.
fn produce(
    mut inner: Box<dyn DataIter>,
    commands: Receiver<Command>,
    batches: SyncSender<(u64, Message)>,
) {
    let (mut epoch, mut producing) = (0u64, true);
    loop {
        let command = match producing {
            true => match commands.try_recv() {
                Ok(c) => Some(c),
                Err(TryRecvError::Empty) => None,
                Err(TryRecvError::Disconnected) => return,
            },
            // The epoch ended: nothing to do until the consumer resets or leaves.
            false => match commands.recv() {
                Ok(c) => Some(c),
                // Only a dropped iterator disconnects: nobody is left to tell.
                Err(_) => return,
            },
        };
        if let Some(Command::Reset) = command {
            epoch += 1;
            if let Err(panic) = catch_unwind(AssertUnwindSafe(|| inner.reset())) {
                let why = format!("the inner iterator's reset panicked: {}", message(&panic));
                let _ = batches.send((epoch, Message::Panicked(why)));
                return;
            }
            producing = true;
            continue;
        }
        let next = match catch_unwind(AssertUnwindSafe(|| inner.next_batch())) {
            Ok(next) => next,
            Err(panic) => {
                let why = format!("the inner iterator panicked: {}", message(&panic));
                let _ = batches.send((epoch, Message::Panicked(why)));
                return;
            }
        };
        producing = !matches!(next, Ok(None));
        // A closed channel: the wrapper is gone.
        if batches.send((epoch, Message::Next(next))).is_err() {
            return;
        }
    }
}

/// A panic's payload as text.
fn message(panic: &Box<dyn std::any::Any + Send>) -> String {
    match (panic.downcast_ref::<&str>(), panic.downcast_ref::<String>()) {
        (Some(s), _) => s.to_string(),
        (_, Some(s)) => s.clone(),
        _ => "(no message)".into(),
    }
}

impl DataIter for PrefetchingIter {
    fn provide_data(&self) -> Vec<DataDesc> {
        self.data.clone()
    }

    fn provide_label(&self) -> Vec<DataDesc> {
        self.label.clone()
    }

    fn batch_size(&self) -> usize {
        self.batch_size
    }

    fn reset(&mut self) {
        if self.failure.is_some() {
            return;
        }
        if (self.commands.as_ref()).is_none_or(|c| c.send(Command::Reset).is_err()) {
            // The thread is gone: keep its panic's message if it left one.
            while let Some(Ok(message)) = self.batches.as_ref().map(Receiver::try_recv) {
                self.current(message);
            }
            self.failure
                .get_or_insert_with(|| "its thread stopped".into());
            return;
        }
        (self.epoch, self.ended, self.peeked) = (self.epoch + 1, false, None);
        // Drop what was made for the epoch left now: a thread blocked handing it over
        // moves on to the reset at once, not at the next `next_batch`.
        while self.peeked.is_none() {
            match self.batches.as_ref().map(Receiver::try_recv) {
                Some(Ok(message)) => self.peeked = self.current(message),
                _ => break,
            }
        }
    }

    fn next_batch(&mut self) -> Result<Option<DataBatch>> {
        if let Some(why) = &self.failure {
            return Err(failed(why));
        }
        if self.ended {
            return Ok(None);
        }
        let next = loop {
            if let Some(next) = self.peeked.take() {
                break next;
            }
            match self.batches.as_ref().map(Receiver::recv) {
                Some(Ok(message)) => self.peeked = self.current(message),
                _ => {
                    self.failure = Some("its thread stopped".into());
                    return Err(failed("its thread stopped"));
                }
            }
        };
        self.ended = matches!(next, Ok(None));
        next
    }
}

impl PrefetchingIter {
    /// What `message` means for the consumer now: a result to hand out, or nothing where
    /// it was made before the last reset. A panic, whatever epoch it came in, stops the
    /// iterator for good.
    fn current(&mut self, (epoch, message): (u64, Message)) -> Option<Result<Option<DataBatch>>> {
        match message {
            Message::Panicked(why) => {
                let error = failed(&why);
                self.failure = Some(why);
                Some(Err(error))
            }
            Message::Next(_) if epoch < self.epoch => None,
            Message::Next(next) => Some(next),
        }
    }
}

impl Drop for PrefetchingIter {
    fn drop(&mut self) {
        // Both ends closed first: a thread blocked on either wakes and returns.
        drop(self.commands.take());
        drop(self.batches.take());
        if let Some(thread) = self.thread.take() {
            // A panic there was reported as a message already (or was the inner
            // iterator's drop, which has nobody left to report to).
            let _ = thread.join();
        }
    }
}
