//! `kiln data`: what an iterator feeds a network. `kiln data iter KEY=VALUE...` runs
//! ImageRecordIter (or `--iter ImageIter|MNISTIter|CSVIter`) with MXNet's parameter names
//! (`path_imgrec=train.rec data_shape=(3,224,224) batch_size=32`) for `--epochs` epochs
//! and prints each epoch's
//! batches, shapes, label histogram and images/s; with `--out DIR` it writes every batch as
//! `epoch{e}_batch{b}_data.npy`, `_label.npy` and `_pad.npy` (numbered from 1).
//! `kiln data show FILE.rec --index N` writes record N's image (file order) as a PNG.

use kiln::image::{decode, ImageIter, ImageIterParams, ImageRecordIter, ImageRecordParams};
use kiln::io::recordio::{ImageRecord, RecordFile};
use kiln::io::{CSVIter, CsvParams, DataIter, MNISTIter, MnistParams};
use kiln::runtime::NDArray;
use kiln::{Error, Result};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand)]
enum Command {
    /// Run an iterator (ImageRecordIter unless --iter says): KEY=VALUE parameters by MXNet's names.
    Iter(IterArgs),
    /// Write one record's image as a PNG.
    Show(ShowArgs),
}

#[derive(clap::Args)]
struct IterArgs {
    /// The iterator's parameters, KEY=VALUE (`path_imgrec=train.rec`, `batch_size=32`).
    #[arg(required = true)]
    params: Vec<String>,
    /// The iterator, by MXNet's name: ImageRecordIter, ImageIter, MNISTIter or CSVIter.
    #[arg(long, default_value = "ImageRecordIter")]
    iter: String,
    /// Epochs to iterate.
    #[arg(long, default_value_t = 1)]
    epochs: usize,
    /// A folder to write every batch into as .npy files.
    #[arg(long)]
    out: Option<PathBuf>,
}

#[derive(clap::Args)]
struct ShowArgs {
    /// The RecordIO file.
    file: PathBuf,
    /// The record's number in file order (from 0).
    #[arg(long)]
    index: usize,
    /// The PNG to write (default: recordN.png).
    #[arg(long)]
    output: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<()> {
    match args.command {
        Command::Iter(a) => iter(a),
        Command::Show(a) => show(a),
    }
}

fn image_error(e: kiln::image::Error) -> Error {
    Error::Input(e.to_string())
}

fn io_error(e: kiln::io::Error) -> Error {
    Error::Input(e.to_string())
}

fn iter(args: IterArgs) -> Result<()> {
    let pairs = (args.params.iter())
        .map(|p| {
            p.split_once('=')
                .ok_or_else(|| Error::Input(format!("`{p}` is not KEY=VALUE")))
        })
        .collect::<Result<Vec<_>>>()?;
    let mut it: Box<dyn DataIter> = match args.iter.as_str() {
        "ImageRecordIter" => {
            let params = ImageRecordParams::from_pairs(&pairs).map_err(image_error)?;
            Box::new(ImageRecordIter::new(params).map_err(image_error)?)
        }
        "ImageIter" => {
            let params = ImageIterParams::from_pairs(&pairs).map_err(image_error)?;
            Box::new(ImageIter::new(params).map_err(image_error)?)
        }
        "MNISTIter" => {
            let params = MnistParams::from_pairs(&pairs).map_err(io_error)?;
            Box::new(MNISTIter::new(&params).map_err(io_error)?)
        }
        "CSVIter" => {
            let params = CsvParams::from_pairs(&pairs).map_err(io_error)?;
            Box::new(CSVIter::new(params).map_err(io_error)?)
        }
        other => {
            return Err(Error::Input(format!(
                "--iter {other}: ImageRecordIter, ImageIter, MNISTIter or CSVIter"
            )))
        }
    };
    if let Some(out) = &args.out {
        std::fs::create_dir_all(out)
            .map_err(|e| Error::Input(format!("--out {}: {e}", out.display())))?;
    }
    println!(
        "data {:?}, label {:?}",
        it.provide_data()[0].shape,
        it.provide_label()[0].shape
    );
    for epoch in 1..=args.epochs {
        let started = Instant::now();
        let (mut batches, mut images) = (0, 0);
        let mut histogram: BTreeMap<String, usize> = BTreeMap::new();
        while let Some(batch) = it.next_batch().map_err(io_error)? {
            batches += 1;
            let labels = batch.label[0].to_vec::<f32>()?;
            let real = it.batch_size() - batch.pad;
            let width = labels.len() / it.batch_size();
            for label in labels.chunks(width.max(1)).take(real) {
                *histogram.entry(format!("{label:?}")).or_default() += 1;
            }
            images += real;
            if let Some(out) = &args.out {
                let stem = out.join(format!("epoch{epoch}_batch{batches}"));
                let path = |suffix: &str| PathBuf::from(format!("{}_{suffix}.npy", stem.display()));
                batch.data[0].save_npy(path("data"))?;
                batch.label[0].save_npy(path("label"))?;
                NDArray::from_slice(&[batch.pad as i64], &[1])?.save_npy(path("pad"))?;
            }
        }
        let seconds = started.elapsed().as_secs_f64();
        println!(
            "epoch {epoch}: {batches} batches, {images} images, {:.0} images/s",
            images as f64 / seconds.max(1e-9)
        );
        let counts: Vec<String> = histogram.iter().map(|(l, n)| format!("{l}: {n}")).collect();
        println!("  labels {}", counts.join(", "));
        it.reset();
    }
    Ok(())
}

fn show(args: ShowArgs) -> Result<()> {
    let file = RecordFile::open(&args.file).map_err(io_error)?;
    let record = file
        .records()
        .nth(args.index)
        .ok_or_else(|| {
            Error::Input(format!(
                "{}: no record {} (it has fewer)",
                args.file.display(),
                args.index
            ))
        })?
        .map_err(io_error)?;
    let at = |e: kiln::image::Error| {
        image_error(kiln::image::Error::AtRecord {
            path: args.file.clone(),
            number: args.index,
            offset: record.offset,
            source: Box::new(e),
        })
    };
    let image = ImageRecord::unpack(&record.payload).map_err(|e| at(e.into()))?;
    let decoded = decode(image.image, 3).map_err(at)?;
    let output = args
        .output
        .unwrap_or_else(|| PathBuf::from(format!("record{}.png", args.index)));
    super::output::check_writable("--output", &output)?;
    let png = kiln::image::encode_png(&decoded).map_err(image_error)?;
    kiln::compiler::formats::atomic::write_atomically(&output, &png)
        .map_err(|e| Error::Input(format!("{}: {e}", output.display())))?;
    println!(
        "record {} (label {:?}, id {}): {}×{} image written to {}",
        args.index,
        image.label.values(),
        image.id,
        decoded.width,
        decoded.height,
        output.display()
    );
    Ok(())
}
