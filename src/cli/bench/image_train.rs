//! `image-train`: whether decoding overlaps training. LeNet trains through the Module on
//! 28×28 crops (random, mirrored) of 32×32 gray PNG images, an epoch of 16 batches at a
//! time, fed by ImageRecordIter (one decoding thread: the other cores train) and, in turn,
//! by the same epoch's batches already in memory. When decoding keeps up, the two cost the
//! same; the difference is the time the step waited for data.

use super::{report, Args};
use kiln::compiler::autodiff::GradReq;
use kiln::image::{encode_png, Image, ImageRecordIter, ImageRecordParams};
use kiln::io::recordio::{ImageRecord, Label, RecordWriter};
use kiln::io::{DataBatch, DataIter};
use kiln::runtime::{Device, Engine};
use kiln::train::Module;
use kiln::{Error, Result};
use serde_json::json;
use std::time::Instant;

const SIDE: usize = 32;
const BATCHES: usize = 16;

fn input(e: impl std::fmt::Display) -> Error {
    Error::Input(e.to_string())
}

/// A .rec of `n` gray images (a bright square whose place is the label) in `dir`.
fn records(dir: &std::path::Path, n: usize) -> Result<std::path::PathBuf> {
    let path = dir.join("images.rec");
    let mut writer = RecordWriter::new(Vec::new());
    for i in 0..n {
        let label = i % 10;
        let mut data = vec![16u8; SIDE * SIDE];
        let (y0, x0) = (label / 5 * 14 + 2, label % 5 * 5 + 2);
        for y in y0..y0 + 10 {
            for x in x0..x0 + 5 {
                data[y * SIDE + x] = 200 + (i % 50) as u8;
            }
        }
        let image = Image {
            height: SIDE,
            width: SIDE,
            channels: 1,
            data,
        };
        let png = encode_png(&image).map_err(input)?;
        let record = ImageRecord {
            label: Label::Scalar(label as f32),
            id: i as u64,
            id2: 0,
            image: &png,
        };
        writer.write(&record.pack()).map_err(input)?;
    }
    std::fs::write(&path, writer.into_inner().map_err(input)?).map_err(input)?;
    Ok(path)
}

pub fn run(args: &Args) -> Result<()> {
    let batch = args.batch.unwrap_or(64);
    let dir = std::env::temp_dir().join(format!("kiln-bench-image-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(input)?;
    let rec = records(&dir, batch * BATCHES)?;
    let rec_text = rec.to_string_lossy().into_owned();
    let batch_text = batch.to_string();
    let pairs = [
        ("path_imgrec", rec_text.as_str()),
        ("data_shape", "(1,28,28)"),
        ("batch_size", batch_text.as_str()),
        ("rand_crop", "True"),
        ("rand_mirror", "True"),
        ("scale", "0.00392156862745098"),
        ("preprocess_threads", "1"),
    ];
    let params = ImageRecordParams::from_pairs(&pairs).map_err(input)?;
    let mut images = ImageRecordIter::new(params).map_err(input)?;
    let net = kiln::models::get("lenet")?;
    let train_err = |e: kiln::train::Error| input(e);
    let mut module =
        Module::new(&net, &["data"], &["softmax_label"], &[Device::Cpu]).map_err(train_err)?;
    let (data, label) = (images.provide_data(), images.provide_label());
    module
        .bind(&data, &label, true, false, GradReq::Write)
        .map_err(train_err)?;
    let mut rng = kiln::train::initializer::Rng::new(0);
    let init = kiln::train::initializer::create("xavier()").map_err(train_err)?;
    module
        .init_params(init.as_ref(), &mut rng, None, None, false, false)
        .map_err(train_err)?;
    module
        .init_optimizer_by_name(None, "sgd", &[("learning_rate", "0.05")])
        .map_err(train_err)?;
    // An epoch's batches, decoded once, to train on without waiting for any.
    let mut stored: Vec<DataBatch> = Vec::new();
    while let Some(b) = images.next_batch().map_err(input)? {
        stored.push(b);
    }
    images.reset();
    let mut step = |b: &DataBatch| -> Result<()> {
        module.forward_backward(b).map_err(train_err)?;
        module.update().map_err(train_err)
    };
    let (mut from_iter, mut from_memory) = (Vec::new(), Vec::new());
    for round in 0..=args.runs {
        let start = Instant::now();
        let mut steps = 0;
        while let Some(b) = images.next_batch().map_err(input)? {
            step(&b)?;
            steps += 1;
        }
        Engine::global().wait_all()?;
        images.reset();
        let iter_s = start.elapsed().as_secs_f64() / steps.max(1) as f64;
        let start = Instant::now();
        for b in &stored {
            step(b)?;
        }
        Engine::global().wait_all()?;
        let memory_s = start.elapsed().as_secs_f64() / stored.len().max(1) as f64;
        if round > 0 {
            from_iter.push(iter_s);
            from_memory.push(memory_s);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    let timing = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        (v[v.len() / 2], v[0])
    };
    let (iter_t, memory_t) = (timing(from_iter), timing(from_memory));
    for (variant, t) in [
        ("step fed by ImageRecordIter", iter_t),
        ("step on batches in memory", memory_t),
    ] {
        report(
            args,
            variant,
            t,
            json!({ "batch": batch, "samples_per_s": batch as f64 / t.0 }),
            &format!("{:8.0} samples/s, batch {batch}", batch as f64 / t.0),
        );
    }
    report(
        args,
        "waiting for data per step",
        (iter_t.0 - memory_t.0, iter_t.1 - memory_t.1),
        json!({ "batch": batch, "ratio": iter_t.0 / memory_t.0 }),
        &format!(
            "{:.3}× the step on batches in memory",
            iter_t.0 / memory_t.0
        ),
    );
    Ok(())
}
