//! Training progress on stderr: a bar per epoch (indicatif, hidden when stderr is not a
//! terminal) with samples/s and the running metric, and MXNet's log lines — the
//! Speedometer's every `every` batches (the metric over that window, as its auto_reset),
//! and the epoch's training metric, time cost and validation metric — so scripts that
//! read MXNet's logs read kiln's.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use kiln::train::metric::EvalMetric;
use std::cell::RefCell;
use std::rc::Rc;
use std::time::Instant;

#[derive(Clone)]
pub struct Progress(Rc<RefCell<State>>);

struct State {
    bar: Option<ProgressBar>,
    batches: usize,
    batch_size: usize,
    every: usize,
    /// When the Speedometer's current window began, and at which batch.
    window: (Instant, usize),
}

fn pairs(values: &[(String, f64)]) -> String {
    let text: Vec<String> = values.iter().map(|(n, v)| format!("{n}={v:.6}")).collect();
    text.join("\t")
}

impl Progress {
    pub fn new(batches: usize, batch_size: usize, every: usize) -> Progress {
        Progress(Rc::new(RefCell::new(State {
            bar: None,
            batches,
            batch_size,
            every: every.max(1),
            window: (Instant::now(), 0),
        })))
    }

    /// After batch `nbatch` (from 0) of `epoch`.
    pub fn batch(&self, epoch: usize, nbatch: usize, metric: &mut dyn EvalMetric) {
        let mut s = self.0.borrow_mut();
        if nbatch == 0 {
            let bar =
                ProgressBar::with_draw_target(Some(s.batches as u64), ProgressDrawTarget::stderr());
            let style = ProgressStyle::with_template("Epoch[{prefix}] {bar:30} {pos}/{len} {msg}")
                .expect("a valid template");
            bar.set_style(style);
            bar.set_prefix(epoch.to_string());
            s.bar = Some(bar);
            s.window = (Instant::now(), 0);
        }
        let values = metric.get();
        let (start, first) = s.window;
        let seconds = start.elapsed().as_secs_f64().max(1e-9);
        // The window starts when its first batch is done, as MXNet's Speedometer's.
        let speed = ((nbatch - first) * s.batch_size) as f64 / seconds;
        if let Some(bar) = &s.bar {
            bar.set_position(nbatch as u64 + 1);
            bar.set_message(format!("{speed:.1} samples/s {}", pairs(&values)));
        }
        // MXNet's Speedometer: every `every` batches, the speed since the last line.
        if nbatch > 0 && nbatch % s.every == 0 {
            let line = format!(
                "Epoch[{epoch}] Batch [{}-{nbatch}]\tSpeed: {speed:.2} samples/sec\t{}",
                nbatch - s.every,
                pairs(&values)
            );
            s.window = (Instant::now(), nbatch);
            drop(s);
            self.line(&line);
            // MXNet's Speedometer resets the metric's window after each line (auto_reset).
            metric.reset_local();
        }
    }

    /// At the end of `epoch`: MXNet's `Train-`, `Time cost` and `Validation-` lines.
    pub fn epoch_end(
        &self,
        epoch: usize,
        train: &[(String, f64)],
        validation: Option<&[(String, f64)]>,
        started: Instant,
    ) {
        if let Some(bar) = self.0.borrow_mut().bar.take() {
            bar.finish_and_clear();
        }
        for (name, value) in train {
            self.line(&format!("Epoch[{epoch}] Train-{name}={value:.6}"));
        }
        self.line(&format!(
            "Epoch[{epoch}] Time cost={:.3}",
            started.elapsed().as_secs_f64()
        ));
        for (name, value) in validation.unwrap_or_default() {
            self.line(&format!("Epoch[{epoch}] Validation-{name}={value:.6}"));
        }
    }

    /// A log line, above the bar when there is one.
    pub fn line(&self, text: &str) {
        match &self.0.borrow().bar {
            Some(bar) if !bar.is_hidden() => bar.println(text),
            _ => eprintln!("{text}"),
        }
    }
}
