//! MXNet's ImageRecordIter: batches of images decoded from a RecordIO file, augmented and
//! normalized on a pool of `preprocess_threads` (apart from the kernels' pool), while a
//! producer thread keeps up to `prefetch_buffer` batches ready — across the end of an
//! epoch too, so the next epoch's first batches are made while the consumer validates or
//! saves a checkpoint.
//!
//! Order: the records of this part (`part_index` of `num_parts` equal shares by count, in
//! file order; the `.idx` file, when given, lists them), shuffled per epoch with
//! `shuffle` (the Philox stream of (seed, epoch)). With `round_batch` the last batch of an
//! epoch is filled with the next epoch's first records (`pad` counts them) and the next
//! epoch starts after them, as MXNet's does; without it the last batch is short: MXNet
//! then reports `pad` 0 and leaves stale images in the tail, kiln reports the true `pad`
//! and zeros.
//!
//! Labels come from the records, or with `path_imglist` from that list by image id.
//!
//! Dropping the iterator (or resetting it mid-epoch) stops the producer and joins it.

use crate::augment::{augment, mirrored, normalize, Draws};
use crate::color_aug::lighting;
use crate::mean_image;
use crate::params::ImageRecordParams;
use crate::{decode, Error, Result};
use kiln_io::recordio::{read_index, ImageRecord, RecordFile};
use kiln_io::round_batch::{Position, RoundBatch};
use kiln_io::{DataBatch, DataDesc, DataIter};
use kiln_ops::DType;
use kiln_runtime::NDArray;
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::Arc;
use std::thread::JoinHandle;

/// One batch to make: (record, epoch, position in the epoch) per sample, and the pad.
struct Plan {
    samples: Vec<(usize, u64, u64)>,
    pad: usize,
}

/// A batch made: values (N·C·H·W) and labels (N·label_width).
struct Made {
    data: Vec<f32>,
    label: Vec<f32>,
    pad: usize,
}

/// What the producer sends: a batch, or the end of an epoch.
enum Item {
    Batch(Result<Made>),
    EpochEnd,
}

struct Producer {
    batches: Receiver<Item>,
    stop: Arc<AtomicBool>,
    thread: JoinHandle<()>,
}

/// What the producer thread shares with the iterator.
struct Source {
    params: ImageRecordParams,
    file: RecordFile,
    /// The byte offsets of this part's records, and their numbers in the file.
    records: Vec<(u64, usize)>,
    /// Labels by image id, from `path_imglist`.
    labels: Option<HashMap<u64, Vec<f32>>>,
    /// The mean image of `mean_img`, once read or computed.
    mean_image: Option<Vec<f32>>,
    pool: rayon::ThreadPool,
}

pub struct ImageRecordIter {
    source: Arc<Source>,
    epoch: u64,
    /// Records of this epoch's order a previous epoch's last batch already took.
    skip: usize,
    /// Making this epoch's batches and, once they are made, the next epochs'.
    producer: Option<Producer>,
    /// Whether this epoch's last batch was handed out.
    ended: bool,
}

impl ImageRecordIter {
    pub fn new(params: ImageRecordParams) -> Result<ImageRecordIter> {
        let file = RecordFile::open(&params.path_imgrec)?;
        let mut records: Vec<(u64, usize)> = match &params.path_imgidx {
            Some(idx) => {
                let text = std::fs::read(idx)
                    .map_err(|e| Error::Input(format!("{}: {e}", idx.display())))?;
                let mut offsets: Vec<u64> = read_index(&text, idx)?
                    .into_iter()
                    .map(|e| e.offset)
                    .collect();
                // MXNet's indexed reader sorts the offsets: file order.
                offsets.sort_unstable();
                offsets
                    .into_iter()
                    .enumerate()
                    .map(|(i, o)| (o, i))
                    .collect()
            }
            None => (file.records().enumerate())
                .map(|(i, r)| r.map(|r| (r.offset, i)))
                .collect::<kiln_io::Result<_>>()?,
        };
        let n = records.len();
        let (parts, part) = (params.num_parts, params.part_index);
        records = records[n * part / parts..n * (part + 1) / parts].to_vec();
        if records.is_empty() {
            return Err(Error::Input(format!(
                "{}: no records in part {part} of {parts}",
                params.path_imgrec.display()
            )));
        }
        if params.round_batch && records.len() < params.batch_size {
            return Err(Error::Input(format!(
                "{}: {} records cannot fill a batch of {} (round_batch=False reads them padded)",
                params.path_imgrec.display(),
                records.len(),
                params.batch_size
            )));
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(params.preprocess_threads.max(1))
            .thread_name(|i| format!("kiln-image-{i}"))
            .build()
            .map_err(|e| Error::Input(format!("ImageRecordIter: cannot start threads: {e}")))?;
        let labels = match &params.path_imglist {
            Some(path) => Some(image_list_labels(path, params.label_width)?),
            None => None,
        };
        let mean_path = params
            .mean_img
            .clone()
            .filter(|_| params.dtype != DType::U8);
        let mut source = Source {
            params,
            file,
            records,
            labels,
            mean_image: None,
            pool,
        };
        if let Some(path) = mean_path {
            let shape = source.params.data_shape;
            source.mean_image = Some(match path.exists() {
                true => mean_image::load(&path, shape)?,
                false => {
                    let mean = source.mean_image()?;
                    mean_image::save(&path, shape, &mean)?;
                    mean
                }
            });
        }
        Ok(ImageRecordIter {
            source: Arc::new(source),
            epoch: 0,
            skip: 0,
            producer: None,
            ended: false,
        })
    }

    /// Starts at epoch `epoch`, as a run resumed there needs: that epoch's order, after
    /// the records earlier epochs' last batches took from it with `round_batch`.
    pub fn with_epoch(mut self, epoch: u64) -> ImageRecordIter {
        self.stop();
        self.skip = self.source.batches().skip_at(epoch);
        (self.epoch, self.ended) = (epoch, false);
        self
    }

    /// Goes back to the start of the first epoch: a validation pass that rewinds sees the
    /// same batches every time (resetting instead moves on to the next epoch).
    pub fn rewind(&mut self) {
        self.stop();
        (self.epoch, self.skip, self.ended) = (0, 0, false);
    }

    /// The records this iterator reads in an epoch (its part of the file).
    pub fn num_records(&self) -> usize {
        self.source.records.len()
    }

    /// Starts the producer at this epoch: it makes the epoch's batches, then the next
    /// epochs', up to `prefetch_buffer` ahead of the consumer (so an epoch's first batches
    /// are ready while the consumer is busy at the end of the one before).
    /// A producer thread making this epoch's batches and then the next epochs'.
    fn producer(&self) -> Producer {
        let (send, batches) = sync_channel(self.source.params.prefetch_buffer.max(1));
        let stop = Arc::new(AtomicBool::new(false));
        let (source, stopped) = (self.source.clone(), stop.clone());
        let (mut epoch, mut skip) = (self.epoch, self.skip);
        let thread = std::thread::spawn(move || loop {
            let (plans, next_skip) = source.plan(epoch, skip);
            for plan in plans {
                if stopped.load(Ordering::Relaxed) {
                    return;
                }
                let made =
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| source.make(&plan)))
                        .unwrap_or_else(|_| {
                            Err(Error::Input(
                                "ImageRecordIter: a batch's preparation panicked".into(),
                            ))
                        });
                let failed = made.is_err();
                if send.send(Item::Batch(made)).is_err() || failed {
                    return;
                }
            }
            if send.send(Item::EpochEnd).is_err() {
                return;
            }
            (epoch, skip) = (epoch + 1, next_skip);
        });
        Producer {
            batches,
            stop,
            thread,
        }
    }

    fn stop(&mut self) {
        if let Some(p) = self.producer.take() {
            p.stop.store(true, Ordering::Relaxed);
            drop(p.batches);
            let _ = p.thread.join();
        }
    }
}

impl Source {
    /// The records in epoch `epoch`'s order (indices into `records`).
    fn order(&self, epoch: u64) -> Vec<usize> {
        let n = self.records.len();
        match self.params.shuffle {
            true => kiln_io::permutation(n, self.params.seed, epoch),
            false => (0..n).collect(),
        }
    }

    /// MXNet's batching of this part's records.
    fn batches(&self) -> RoundBatch {
        RoundBatch {
            samples: self.records.len(),
            batch_size: self.params.batch_size,
            round: self.params.round_batch,
        }
    }

    /// Where the epoch after one that started after `skip` records starts.
    fn next_skip(&self, skip: usize) -> usize {
        self.batches().next_skip(skip)
    }

    /// Epoch `epoch`'s batches when it starts after `skip` records, and where the next
    /// epoch starts.
    fn plan(&self, epoch: u64, skip: usize) -> (Vec<Plan>, usize) {
        let (this, next) = (self.order(epoch), self.order(epoch + 1));
        let plans = (self.batches().plan(skip).into_iter())
            .map(|b| Plan {
                samples: (b.samples.iter())
                    .map(|p| match *p {
                        Position::This(i) => (this[i], epoch, i as u64),
                        Position::Next(i) => (next[i], epoch + 1, i as u64),
                    })
                    .collect(),
                pad: b.pad,
            })
            .collect();
        (plans, self.next_skip(skip))
    }

    /// MXNet's mean image of this part's records: each made as for training, in file
    /// order (with draws of an epoch no training reaches), summed in single precision in
    /// that order, times `1/count`.
    fn mean_image(&self) -> Result<Vec<f32>> {
        let [c, h, w] = self.params.data_shape;
        let image_len = c * h * w;
        let mut sum = vec![0f32; image_len];
        // Made a chunk at a time on the pool, added in file order.
        const CHUNK: usize = 64;
        for (chunk_index, chunk) in self.records.chunks(CHUNK).enumerate() {
            let mut outputs = vec![0f32; chunk.len() * image_len];
            self.pool.install(|| {
                (outputs.par_chunks_mut(image_len))
                    .zip(chunk)
                    .enumerate()
                    .try_for_each(|(i, (out, &(offset, number)))| {
                        let position = (chunk_index * CHUNK + i) as u64;
                        let mut label = vec![0f32; self.params.label_width];
                        self.sample(offset, (u64::MAX, position), out, &mut label)
                            .map_err(|e| Error::AtRecord {
                                path: self.params.path_imgrec.clone(),
                                number,
                                offset,
                                source: Box::new(e),
                            })
                    })
            })?;
            for out in outputs.chunks_exact(image_len) {
                sum.iter_mut().zip(out).for_each(|(s, &v)| *s += v);
            }
        }
        let scale = 1.0 / self.records.len() as f32;
        Ok(sum.into_iter().map(|v| v * scale).collect())
    }

    /// Decodes, augments and normalizes a batch's images on the pool.
    fn make(&self, plan: &Plan) -> Result<Made> {
        let p = &self.params;
        let [c, h, w] = p.data_shape;
        let (image_len, bs) = (c * h * w, p.batch_size);
        let mut data = vec![0f32; bs * image_len];
        let mut label = vec![0f32; bs * p.label_width];
        let filled = plan.samples.len();
        self.pool.install(|| {
            (data[..filled * image_len].par_chunks_mut(image_len))
                .zip(label[..filled * p.label_width].par_chunks_mut(p.label_width))
                .zip(&plan.samples)
                .try_for_each(|((out, label), &(r, epoch, position))| {
                    let (offset, number) = self.records[r];
                    self.sample(offset, (epoch, position), out, label)
                        .map_err(|e| Error::AtRecord {
                            path: p.path_imgrec.clone(),
                            number,
                            offset,
                            source: Box::new(e),
                        })
                })
        })?;
        Ok(Made {
            data,
            label,
            pad: plan.pad,
        })
    }

    fn sample(
        &self,
        offset: u64,
        (epoch, position): (u64, u64),
        out: &mut [f32],
        label: &mut [f32],
    ) -> Result<()> {
        let p = &self.params;
        let payload = self.file.read_at(offset)?;
        let record = ImageRecord::unpack(&payload)?;
        let values = match &self.labels {
            Some(labels) => {
                (labels.get(&record.id)).ok_or(Error::NotInImageList { id: record.id })?
            }
            None => record.label.values(),
        };
        if values.len() != p.label_width {
            return Err(Error::LabelWidth {
                labels: values.len(),
                label_width: p.label_width,
            });
        }
        label.copy_from_slice(values);
        let image = decode(record.image, p.data_shape[0])?;
        let mut draws = Draws::new(p.seed, epoch, position);
        let image = augment(image, p, &mut draws)?;
        let mirror = mirrored(p, &mut draws);
        let lit = lighting(p, &mut draws);
        normalize(&image, p, self.mean_image.as_deref(), mirror, lit, out);
        Ok(())
    }
}

/// The labels of a `.lst` file by image index (MXNet's label map: `path_imglist`'s labels
/// replace those the records hold); each line must hold `label_width` labels.
fn image_list_labels(path: &std::path::Path, label_width: usize) -> Result<HashMap<u64, Vec<f32>>> {
    let text = std::fs::read(path).map_err(|e| Error::Input(format!("{}: {e}", path.display())))?;
    let mut labels = HashMap::new();
    for entry in kiln_io::read_list(&text, path)? {
        if entry.labels.len() != label_width {
            return Err(Error::Input(format!(
                "{}: image {} has {} label(s) but label_width is {label_width}",
                path.display(),
                entry.index,
                entry.labels.len()
            )));
        }
        let id = u64::try_from(entry.index).map_err(|_| {
            Error::Input(format!(
                "{}: image index {} is negative",
                path.display(),
                entry.index
            ))
        })?;
        labels.insert(id, entry.labels);
    }
    Ok(labels)
}

impl Drop for ImageRecordIter {
    fn drop(&mut self) {
        self.stop();
    }
}

impl DataIter for ImageRecordIter {
    fn provide_data(&self) -> Vec<DataDesc> {
        let p = &self.source.params;
        let [c, h, w] = p.data_shape;
        vec![DataDesc {
            name: "data".into(),
            shape: vec![p.batch_size, c, h, w],
            dtype: p.dtype,
        }]
    }

    fn provide_label(&self) -> Vec<DataDesc> {
        let p = &self.source.params;
        // MXNet's C API squeezes a label of width 1 to (batch,).
        let shape = match p.label_width {
            1 => vec![p.batch_size],
            w => vec![p.batch_size, w],
        };
        vec![DataDesc {
            name: "softmax_label".into(),
            shape,
            dtype: DType::F32,
        }]
    }

    fn batch_size(&self) -> usize {
        self.source.params.batch_size
    }

    fn reset(&mut self) {
        if !self.ended {
            // Mid-epoch: the producer is making this epoch's batches; start afresh.
            self.stop();
        }
        self.skip = self.source.next_skip(self.skip);
        (self.epoch, self.ended) = (self.epoch + 1, false);
    }

    fn next_batch(&mut self) -> kiln_io::Result<Option<DataBatch>> {
        if self.ended {
            return Ok(None);
        }
        let producer = match self.producer.take() {
            Some(producer) => producer,
            None => self.producer(),
        };
        let producer = self.producer.insert(producer);
        let made = match producer.batches.recv() {
            Ok(Item::Batch(made)) => made.map_err(|e| kiln_io::Error::Input(e.to_string()))?,
            Ok(Item::EpochEnd) => {
                self.ended = true;
                return Ok(None);
            }
            Err(_) => {
                // The channel closed: a disconnection carries no reason; the producer only
                // stops early after sending the failure that stopped it, reported then.
                self.ended = true;
                return Ok(None);
            }
        };
        let data = &self.provide_data()[0];
        let label = &self.provide_label()[0];
        // The values are made in single precision; uint8 and int8 ones are whole numbers
        // in range, converted exactly.
        let array = match data.dtype {
            DType::U8 => NDArray::from_slice(
                &made.data.iter().map(|&v| v as u8).collect::<Vec<_>>(),
                &data.shape,
            )?,
            DType::I8 => NDArray::from_slice(
                &made.data.iter().map(|&v| v as i8).collect::<Vec<_>>(),
                &data.shape,
            )?,
            _ => NDArray::from_slice(&made.data, &data.shape)?,
        };
        Ok(Some(DataBatch {
            data: vec![array],
            label: vec![NDArray::from_slice(&made.label, &label.shape)?],
            pad: made.pad,
        }))
    }
}
