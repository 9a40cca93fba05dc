//! Running a bound module over an iterator without training: MXNet's `score` and
//! `predict`.

use super::Module;
use crate::metric::EvalMetric;
use crate::{Error, Result};
use kiln_io::DataIter;
use kiln_runtime::NDArray;

impl Module {
    /// MXNet's `score`: `metric` (reset first) over `data`'s batches (at most `num_batch`;
    /// from the start when `reset`), forward in inference mode. Padding rows count, as in
    /// MXNet.
    pub fn score(
        &mut self,
        data: &mut dyn DataIter,
        metric: &mut dyn EvalMetric,
        num_batch: Option<usize>,
        reset: bool,
    ) -> Result<Vec<(String, f64)>> {
        if !self.binded() || !self.params_initialized() {
            return Err(Error::Input(
                "score: bind the module and initialize its parameters first".into(),
            ));
        }
        if reset {
            data.reset();
        }
        metric.reset();
        let mut batches = 0;
        while num_batch.is_none_or(|n| batches < n) {
            let Some(batch) = data.next_batch()? else {
                break;
            };
            self.forward(&batch, Some(false))?;
            self.update_metric(metric, &batch.label)?;
            batches += 1;
        }
        Ok(metric.get())
    }

    /// MXNet's `predict`: the outputs over `data` (at most `num_batch` batches; from the
    /// start when `reset`), each batch's padding rows dropped, the batches concatenated —
    /// one array per output.
    pub fn predict(
        &mut self,
        data: &mut dyn DataIter,
        num_batch: Option<usize>,
        reset: bool,
    ) -> Result<Vec<NDArray>> {
        if !self.binded() || !self.params_initialized() {
            return Err(Error::Input(
                "predict: bind the module and initialize its parameters first".into(),
            ));
        }
        if reset {
            data.reset();
        }
        let mut parts: Vec<Vec<NDArray>> = Vec::new();
        let mut batches = 0;
        while num_batch.is_none_or(|n| batches < n) {
            let Some(batch) = data.next_batch()? else {
                break;
            };
            self.forward(&batch, Some(false))?;
            let outputs = self.get_outputs()?;
            let kept = (outputs.iter())
                .map(|o| {
                    match (
                        batch.pad,
                        o.shape().first().and_then(|r| r.checked_sub(batch.pad)),
                    ) {
                        (0, _) => Ok(o.clone()),
                        (_, Some(keep)) if keep > 0 => Ok(o.slice(0, keep)?),
                        _ => Err(Error::Input(format!(
                            "predict: a batch padded by {} rows has an output of shape {}",
                            batch.pad,
                            kiln_ops::shape::fmt_shape(o.shape())
                        ))),
                    }
                })
                .collect::<Result<Vec<_>>>()?;
            // A copy: the next forward overwrites the outputs.
            let copies = (kept.iter())
                .map(|o| o.copy_to(o.device()))
                .collect::<kiln_runtime::Result<Vec<_>>>()?;
            parts.push(copies);
            batches += 1;
        }
        if parts.is_empty() {
            return Err(Error::Input("predict: the iterator gave no batch".into()));
        }
        (0..parts[0].len())
            .map(|o| {
                if parts.len() == 1 {
                    return Ok(parts[0][o].clone());
                }
                let mut call = NDArray::op("Concat")
                    .attr("dim", "0")
                    .attr("num_args", parts.len());
                for p in &parts {
                    call = call.arg(&p[o]);
                }
                let mut out = call.build().map_err(kiln_runtime::Error::from)?;
                Ok(out.swap_remove(0))
            })
            .collect()
    }
}
