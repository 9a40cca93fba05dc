//! MXNet's CSVIter: rows of a CSV file (each `data_shape`'s values, comma-separated) and
//! of an optional label file (`label_shape`'s values; without one, labels are zeros), in
//! batches as MXNet's BatchLoader makes them ([`crate::round_batch`]): `round_batch` (the
//! default) completes an epoch's last batch with the first rows and starts the next
//! epoch after them; without it the last batch is short — MXNet leaves stale rows in its
//! tail, kiln zeros. Labels of shape (1,) come as (batch,), as MXNet's API squeezes them.

use crate::round_batch::{Position, RoundBatch};
use crate::text::{at_line, lines};
use crate::{DataBatch, DataDesc, DataIter, Error, Result};
use kiln_ops::DType;
use kiln_runtime::NDArray;
use std::path::{Path, PathBuf};

/// CSVIter's parameters, MXNet's names and defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct CsvParams {
    pub data_csv: PathBuf,
    pub data_shape: Vec<usize>,
    pub label_csv: Option<PathBuf>,
    pub label_shape: Vec<usize>,
    pub batch_size: usize,
    pub round_batch: bool,
}

impl Default for CsvParams {
    fn default() -> CsvParams {
        CsvParams {
            data_csv: PathBuf::new(),
            data_shape: vec![],
            label_csv: None,
            label_shape: vec![1],
            batch_size: 0,
            round_batch: true,
        }
    }
}

impl CsvParams {
    /// The parameters `pairs` set over the defaults (MXNet's names); `data_csv`,
    /// `data_shape` and `batch_size` are required.
    pub fn from_pairs(pairs: &[(&str, &str)]) -> Result<CsvParams> {
        use crate::kwargs::{boolean, required, shape, unknown, value};
        const ITER: &str = "CSVIter";
        let mut p = CsvParams::default();
        for &(key, v) in pairs {
            match key {
                "data_csv" => p.data_csv = v.into(),
                "data_shape" => p.data_shape = shape(ITER, key, v)?,
                "label_csv" => p.label_csv = (v != "NULL" && !v.is_empty()).then(|| v.into()),
                "label_shape" => p.label_shape = shape(ITER, key, v)?,
                "batch_size" => p.batch_size = value(ITER, key, v)?,
                "round_batch" => p.round_batch = boolean(ITER, key, v)?,
                "prefetch_buffer" => {}
                _ => {
                    let known = [
                        "data_csv",
                        "data_shape",
                        "label_csv",
                        "label_shape",
                        "batch_size",
                        "round_batch",
                    ];
                    return Err(unknown(ITER, key, &known));
                }
            }
        }
        for (missing, key) in [
            (p.data_csv.as_os_str().is_empty(), "data_csv"),
            (p.data_shape.is_empty(), "data_shape"),
            (p.batch_size == 0, "batch_size"),
        ] {
            if missing {
                return Err(required(ITER, key));
            }
        }
        Ok(p)
    }
}

/// An optional sign at `b[*i]`, stepped over: whether it is `-`.
fn sign(b: &[u8], i: &mut usize) -> bool {
    match b.get(*i) {
        Some(&c @ (b'-' | b'+')) => {
            *i += 1;
            c == b'-'
        }
        _ => false,
    }
}

/// dmlc's `strtof` (`ParseFloat<float>`), which MXNet's CSV parser uses and which is not
/// correctly rounded (`-3.548` reads as -3.5479999): the integer part as a float, plus the
/// fraction (up to 19 digits) divided in double and rounded to float, then scaled by the
/// exponent in float; `inf`, `infinity` and `nan` in any case; an `f` suffix. `None` unless
/// the whole text is one number.
fn parse_float(text: &str) -> Option<f32> {
    let b = text.as_bytes();
    let mut i = 0;
    let negative = sign(b, &mut i);
    let rest = text[i..].to_ascii_lowercase();
    let special = match rest.as_str() {
        "inf" | "infinity" => Some(f32::INFINITY),
        "nan" => Some(f32::NAN),
        _ => None,
    };
    let value = match special {
        Some(v) => v,
        None => {
            let digits = |i: &mut usize| {
                let start = *i;
                while b.get(*i).is_some_and(u8::is_ascii_digit) {
                    *i += 1;
                }
                start..*i
            };
            let whole = digits(&mut i);
            let mut value = (b[whole.clone()].iter()).fold(0u64, |n, d| {
                n.wrapping_mul(10).wrapping_add(u64::from(d - b'0'))
            }) as f32;
            let mut fraction = 0..0;
            if b.get(i) == Some(&b'.') {
                i += 1;
                fraction = digits(&mut i);
                let (mut val, mut pow10) = (0u64, 1u64);
                for d in b[fraction.clone()].iter().take(19) {
                    val = val * 10 + u64::from(d - b'0');
                    pow10 *= 10;
                }
                value += (val as f64 / pow10 as f64) as f32;
            }
            if whole.is_empty() && fraction.is_empty() {
                return None;
            }
            if matches!(b.get(i), Some(b'e' | b'E')) {
                i += 1;
                let shrink = sign(b, &mut i);
                let exponent = digits(&mut i);
                let mut e = (b[exponent].iter())
                    .fold(0u32, |n, d| {
                        n.saturating_mul(10).saturating_add(u32::from(d - b'0'))
                    })
                    .min(38);
                if e == 38 {
                    let (most, least) = (3.402_823_5_f32, 1.175_494_4_f32);
                    if !shrink && value > most {
                        value = most;
                    } else if shrink && value < least {
                        value = least;
                    }
                }
                let mut scale = 1.0f32;
                while e >= 8 {
                    scale *= 1e8;
                    e -= 8;
                }
                while e > 0 {
                    scale *= 10.0;
                    e -= 1;
                }
                value = if shrink { value / scale } else { value * scale };
            }
            if matches!(b.get(i), Some(b'f' | b'F')) {
                i += 1;
            }
            if i != b.len() {
                return None;
            }
            value
        }
    };
    Some(if negative { -value } else { value })
}

/// The values of a CSV file, `width` per row; errors name the file and line.
fn read_rows(path: &Path, width: usize) -> Result<Vec<f32>> {
    let bad = |line: usize, what: String| at_line(path, line, what);
    let bytes =
        std::fs::read(path).map_err(|e| Error::Input(format!("{}: {e}", path.display())))?;
    let mut values = Vec::new();
    for (n, line) in lines(&bytes, path)? {
        if line.trim().is_empty() {
            continue;
        }
        let before = values.len();
        for field in line.split(',') {
            let v = parse_float(field.trim())
                .ok_or_else(|| bad(n, format!("`{}` is not a number", field.trim())))?;
            values.push(v);
        }
        if values.len() - before != width {
            return Err(bad(
                n,
                format!("{} values where a row holds {width}", values.len() - before),
            ));
        }
    }
    Ok(values)
}

/// MXNet's CSVIter.
pub struct CSVIter {
    params: CsvParams,
    data: Vec<f32>,
    label: Vec<f32>,
    batches: RoundBatch,
    /// Rows of this epoch a previous epoch's last batch already took.
    skip: usize,
    /// The batches of this epoch left to serve.
    pending: std::vec::IntoIter<crate::round_batch::BatchPlan>,
    started: bool,
}

impl CSVIter {
    pub fn new(params: CsvParams) -> Result<CSVIter> {
        let size = |shape: &[usize]| kiln_ops::shape::checked_size(shape).filter(|&s| s > 0);
        let (Some(width), Some(label_width)) =
            (size(&params.data_shape), size(&params.label_shape))
        else {
            return Err(Error::Input(format!(
                "CSVIter: data_shape {:?} and label_shape {:?} must be non-empty",
                params.data_shape, params.label_shape
            )));
        };
        if params.batch_size == 0 {
            return Err(Error::Input("CSVIter: batch_size must be positive".into()));
        }
        let data = read_rows(&params.data_csv, width)?;
        let rows = data.len() / width;
        let label = match &params.label_csv {
            Some(path) => read_rows(path, label_width)?,
            None => vec![0.0; rows * label_width],
        };
        if label.len() / label_width != rows {
            return Err(Error::Input(format!(
                "CSVIter: {} has {} rows but {} has {rows}",
                params
                    .label_csv
                    .as_deref()
                    .unwrap_or(Path::new(""))
                    .display(),
                label.len() / label_width,
                params.data_csv.display()
            )));
        }
        if rows == 0 || (params.round_batch && rows < params.batch_size) {
            return Err(Error::Input(format!(
                "CSVIter: {} has {rows} rows, fewer than a batch of {}",
                params.data_csv.display(),
                params.batch_size
            )));
        }
        let batches = RoundBatch {
            samples: rows,
            batch_size: params.batch_size,
            round: params.round_batch,
        };
        Ok(CSVIter {
            params,
            data,
            label,
            batches,
            skip: 0,
            pending: Vec::new().into_iter(),
            started: false,
        })
    }

    fn shape(&self, per_row: &[usize], squeeze: bool) -> Vec<usize> {
        match per_row {
            [1] if squeeze => vec![self.params.batch_size],
            _ => [&[self.params.batch_size], per_row].concat(),
        }
    }
}

impl DataIter for CSVIter {
    fn provide_data(&self) -> Vec<DataDesc> {
        vec![DataDesc {
            name: "data".into(),
            shape: self.shape(&self.params.data_shape, false),
            dtype: DType::F32,
        }]
    }

    fn provide_label(&self) -> Vec<DataDesc> {
        vec![DataDesc {
            name: "softmax_label".into(),
            shape: self.shape(&self.params.label_shape, true),
            dtype: DType::F32,
        }]
    }

    fn batch_size(&self) -> usize {
        self.params.batch_size
    }

    fn reset(&mut self) {
        self.skip = self.batches.next_skip(self.skip);
        self.started = false;
    }

    fn next_batch(&mut self) -> Result<Option<DataBatch>> {
        if !self.started {
            self.pending = self.batches.plan(self.skip).into_iter();
            self.started = true;
        }
        let Some(plan) = self.pending.next() else {
            return Ok(None);
        };
        let (width, label_width) = (
            self.data.len() / self.batches.samples,
            self.label.len() / self.batches.samples,
        );
        let bs = self.params.batch_size;
        let (mut data, mut label) = (vec![0f32; bs * width], vec![0f32; bs * label_width]);
        for (i, p) in plan.samples.iter().enumerate() {
            let (Position::This(r) | Position::Next(r)) = *p;
            data[i * width..(i + 1) * width]
                .copy_from_slice(&self.data[r * width..(r + 1) * width]);
            label[i * label_width..(i + 1) * label_width]
                .copy_from_slice(&self.label[r * label_width..(r + 1) * label_width]);
        }
        let data_shape = self.provide_data()[0].shape.clone();
        let label_shape = self.provide_label()[0].shape.clone();
        Ok(Some(DataBatch {
            data: vec![NDArray::from_slice(&data, &data_shape)?],
            label: vec![NDArray::from_slice(&label, &label_shape)?],
            pad: plan.pad,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::parse_float;

    #[test]
    fn numbers_read_as_dmlc_reads_them() {
        let cases = [
            ("-3.548", Some(-3.547_999_9)),
            ("1e3", Some(1000.0)),
            ("2.5E-1", Some(0.25)),
            (".5", Some(0.5)),
            ("5.", Some(5.0)),
            ("1.5f", Some(1.5)),
            ("-Infinity", Some(f32::NEG_INFINITY)),
            // An exponent without digits is 0.
            ("1e", Some(1.0)),
        ];
        for (text, want) in cases {
            assert_eq!(parse_float(text), want, "{text}");
        }
        assert!(parse_float("NaN").is_some_and(f32::is_nan));
        // dmlc clips exponents to 38 rather than overflowing.
        assert!(parse_float("1e99").is_some_and(|v| v.is_finite() && v >= 1e38));
        for bad in ["", "-", ".", "1.2.3", "abc", "1 2"] {
            assert_eq!(parse_float(bad), None, "{bad}");
        }
    }
}
