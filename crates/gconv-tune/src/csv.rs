//! Sweep CSV files: the schema below, a writer that flushes every row as it is written,
//! and a reader (for `--resume` and for summaries of finished sweeps).
//!
//! Columns, in this order:
//!
//! ```text
//! kernel, problem, direction, dtype, N, G, C, K, Di, Hi, Wi, Z, Y, X, stride_d, stride_h,
//! stride_w, pad_d, pad_h, pad_w, dil_d, dil_h, dil_w, status, latency_ms, tflops, gbps,
//! roofline_frac, max_abs_err, max_rel_err, compile_ms, regs, spills, rounds, iters_per_round,
//! stopped_early, device, device_index
//! ```
//!
//! `problem` is the canonical key; join rows on it, never on a row index. Spatial columns use
//! the neutral values for unused leading dimensions (2D rows: `Di=1, Z=1, stride_d=1, pad_d=0,
//! dil_d=1`). `tflops`, `gbps` and `roofline_frac` are computed from the problem and the latency
//! (`Problem::flops`, `Problem::min_bytes`, `Problem::roofline_fraction` on the row's own device's
//! specification when `gconv_problem::DeviceSpec::of_name` knows it, else the H200's)
//! and, like `latency_ms`, are empty unless the status is `ok`; the error columns are filled whenever the result was
//! compared, so `incorrect` rows show how wrong they were. Baseline rows have kernel
//! `<provider>:<engine>` (for example `cudnn:eng4`). `rounds` and `iters_per_round` say what the
//! latency of an `ok` row is the median of (rounds of back-to-back runs), `stopped_early` is
//! `true` when its measurement stopped early because it was clearly slower than the best known
//! latency on the problem (the row is verified all the same). `device` and `device_index` name
//! the device the row ran on (the driver's device name and its ordinal among the devices the
//! sweep could see, `cpu` and 0 for the CPU backend); both are empty for rows that never reached
//! a worker (refused by the gate or by the memory check). A row is identified by (kernel,
//! problem, device, device_index): that is what `gconv merge` joins on.
//!
//! Files written before the last columns existed ([`COLUMNS_V1`]: no timing columns,
//! [`COLUMNS_V2`]: no device columns) are still read (those fields are empty), and `--resume`
//! appends to them in their own schema.
//!
//! Messages (why a row failed, the timing method of an `ok` row) are not part of the schema:
//! the CLI writes them next to the CSV, to [`messages_path`] (`OUT.csv.messages.jsonl`), one
//! JSON object per row that has one (`kernel`, `problem`, `status`, `message`); see
//! `SweepOptions::messages` and [`attach_messages`].

use crate::error::TuneError;
use crate::worker::{JobResult, Status};
use gconv_problem::{DeviceSpec, Problem};
use std::fs::{File, OpenOptions};
use std::io::{Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// The column names, in order.
pub const COLUMNS: [&str; 38] = [
    "kernel",
    "problem",
    "direction",
    "dtype",
    "N",
    "G",
    "C",
    "K",
    "Di",
    "Hi",
    "Wi",
    "Z",
    "Y",
    "X",
    "stride_d",
    "stride_h",
    "stride_w",
    "pad_d",
    "pad_h",
    "pad_w",
    "dil_d",
    "dil_h",
    "dil_w",
    "status",
    "latency_ms",
    "tflops",
    "gbps",
    "roofline_frac",
    "max_abs_err",
    "max_rel_err",
    "compile_ms",
    "regs",
    "spills",
    "rounds",
    "iters_per_round",
    "stopped_early",
    "device",
    "device_index",
];

/// The first `N` of [`COLUMNS`] (the schema of older files).
const fn prefix<const N: usize>() -> [&'static str; N] {
    let mut v = [""; N];
    let mut i = 0;
    while i < N {
        v[i] = COLUMNS[i];
        i += 1;
    }
    v
}

/// The columns of files written before `rounds`, `iters_per_round` and `stopped_early`: the
/// first 33 of [`COLUMNS`].
pub const COLUMNS_V1: [&str; 33] = prefix::<33>();

/// The columns of files written before `device` and `device_index`: the first 36 of
/// [`COLUMNS`].
pub const COLUMNS_V2: [&str; 36] = prefix::<36>();

/// The schemas the reader accepts, oldest first: each is a prefix of the next.
pub const SCHEMAS: [&[&str]; 3] = [&COLUMNS_V1, &COLUMNS_V2, &COLUMNS];

/// The device a row ran on: the driver's name and the ordinal among the devices the sweep saw
/// (`cpu`, 0 for the CPU backend).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DeviceTag {
    /// Device name (`NVIDIA H200`, `cpu`).
    pub name: String,
    /// Ordinal (CUDA's device index after `CUDA_VISIBLE_DEVICES`).
    pub index: u32,
}

impl std::fmt::Display for DeviceTag {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} #{}", self.name, self.index)
    }
}

/// The roofline specification shared by every row of `rows` whose device has one
/// ([`SweepRow::device_spec`]); `fallback` when none has one or they differ.
pub fn rows_device_spec(rows: &[SweepRow], fallback: &DeviceSpec) -> DeviceSpec {
    let mut specs = rows
        .iter()
        .filter_map(|r| r.device.as_ref())
        .filter_map(|d| DeviceSpec::of_name(&d.name));
    match specs.next() {
        Some(first) if specs.all(|s| s == first) => first,
        _ => *fallback,
    }
}

/// Index of the first column after the problem description (`status`).
const STATUS_COL: usize = 23;

/// One row of a sweep: a kernel (or baseline engine) on a problem, and its outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepRow {
    /// Kernel name, or `<provider>:<engine>` for a baseline.
    pub kernel: String,
    /// The problem.
    pub problem: Problem,
    /// Outcome.
    pub status: Status,
    /// Median latency in ms.
    pub latency_ms: Option<f64>,
    /// Max absolute error against the reference.
    pub max_abs_err: Option<f64>,
    /// Max relative error against the reference.
    pub max_rel_err: Option<f64>,
    /// Compile time in ms.
    pub compile_ms: Option<f64>,
    /// Registers per thread.
    pub regs: Option<u32>,
    /// Spilled bytes.
    pub spills: Option<u32>,
    /// Timed rounds of an `ok` row.
    pub rounds: Option<u32>,
    /// Runs per round of an `ok` row.
    pub iters: Option<u32>,
    /// Whether the measurement stopped early (`ok` rows).
    pub stopped_early: Option<bool>,
    /// The device it ran on; `None` for rows that never reached a worker.
    pub device: Option<DeviceTag>,
    /// Why it failed (not written to the CSV).
    pub message: Option<String>,
}

impl SweepRow {
    /// A row from a worker result.
    pub fn from_result(kernel: &str, problem: &Problem, r: &JobResult) -> SweepRow {
        SweepRow {
            kernel: kernel.to_string(),
            problem: *problem,
            status: r.status,
            latency_ms: r.latency_ms,
            max_abs_err: r.max_abs_err,
            max_rel_err: r.max_rel_err,
            compile_ms: r.compile_ms,
            regs: r.regs,
            spills: r.spills,
            rounds: r.rounds,
            iters: r.iters,
            stopped_early: r.stopped_early,
            device: None,
            message: r.message.clone(),
        }
    }

    /// What identifies a row in a CSV (and in `gconv merge`): kernel, problem key, device.
    pub fn identity(&self) -> (String, String, Option<DeviceTag>) {
        (
            self.kernel.clone(),
            self.problem.to_string(),
            self.device.clone(),
        )
    }

    /// A row with only a status and a message.
    pub fn with_status(
        kernel: &str,
        problem: &Problem,
        status: Status,
        message: String,
    ) -> SweepRow {
        SweepRow::from_result(kernel, problem, &JobResult::status(status, message))
    }

    /// True for a baseline row (`<provider>:<engine>`).
    pub fn is_baseline(&self) -> bool {
        self.kernel.contains(':')
    }

    /// The baseline provider of a baseline row (`cudnn` for `cudnn:eng4`).
    pub fn provider(&self) -> Option<&str> {
        self.kernel.split_once(':').map(|(p, _)| p)
    }

    /// Latency of an `ok` row with a positive finite latency.
    pub fn ok_latency_ms(&self) -> Option<f64> {
        match (self.status, self.latency_ms) {
            (Status::Ok, Some(t)) if t > 0.0 && t.is_finite() => Some(t),
            _ => None,
        }
    }

    /// TFLOP/s of an `ok` row.
    pub fn tflops(&self) -> Option<f64> {
        self.ok_latency_ms()
            .map(|t| self.problem.flops() / (t * 1e-3) / 1e12)
    }

    /// GB/s (minimum bytes moved over the latency) of an `ok` row.
    pub fn gbps(&self) -> Option<f64> {
        self.ok_latency_ms()
            .map(|t| self.problem.min_bytes() / (t * 1e-3) / 1e9)
    }

    /// The roofline this row is measured against: its own device's ([`DeviceSpec::of_name`]
    /// of the `device` column), else `fallback` (the CPU backend, unknown devices, rows that
    /// never ran).
    pub fn device_spec(&self, fallback: &DeviceSpec) -> DeviceSpec {
        self.device
            .as_ref()
            .and_then(|d| DeviceSpec::of_name(&d.name))
            .unwrap_or(*fallback)
    }

    /// Fraction of the roofline of an `ok` row: its own device's ([`SweepRow::device_spec`]).
    pub fn roofline_frac(&self, fallback: &DeviceSpec) -> Option<f64> {
        let spec = self.device_spec(fallback);
        self.ok_latency_ms()
            .map(|t| self.problem.roofline_fraction(&spec, t * 1e-3))
    }

    /// The CSV cells of this row, in [`COLUMNS`] order (`fallback`: the roofline of a row
    /// whose device has no specification, [`SweepRow::device_spec`]).
    pub fn cells(&self, fallback: &DeviceSpec) -> Vec<String> {
        let p = &self.problem;
        let mut v = Vec::with_capacity(COLUMNS.len());
        v.push(self.kernel.clone());
        v.extend(problem_cells(p));
        v.push(self.status.token().to_string());
        v.push(opt(self.ok_latency_ms(), exact));
        v.push(opt(self.tflops(), |x| sig(x, 4)));
        v.push(opt(self.gbps(), |x| sig(x, 4)));
        v.push(opt(self.roofline_frac(fallback), |x| sig(x, 4)));
        v.push(opt(self.max_abs_err, exact));
        v.push(opt(self.max_rel_err, exact));
        v.push(opt(self.compile_ms, |x| format!("{x:.3}")));
        v.push(opt(self.regs, |x| x.to_string()));
        v.push(opt(self.spills, |x| x.to_string()));
        let timed = self.ok_latency_ms().is_some();
        v.push(opt(self.rounds.filter(|_| timed), |x| x.to_string()));
        v.push(opt(self.iters.filter(|_| timed), |x| x.to_string()));
        v.push(opt(self.stopped_early.filter(|_| timed), |x| x.to_string()));
        v.push(
            self.device
                .as_ref()
                .map(|d| d.name.clone())
                .unwrap_or_default(),
        );
        v.push(opt(self.device.as_ref().map(|d| d.index), |x| {
            x.to_string()
        }));
        v
    }
}

/// The problem cells (`problem` .. `dil_w`) of a row.
fn problem_cells(p: &Problem) -> Vec<String> {
    let mut v = vec![
        p.to_string(),
        p.direction.token().to_string(),
        p.dtype.token().to_string(),
    ];
    for x in [p.n, p.g, p.c, p.k] {
        v.push(x.to_string());
    }
    for arr in [p.input, p.filter, p.stride, p.pad, p.dilation] {
        v.extend(arr.iter().map(|x| x.to_string()));
    }
    v
}

fn opt<T: Copy>(v: Option<T>, f: impl Fn(T) -> String) -> String {
    v.map(f).unwrap_or_default()
}

/// Shortest representation that parses back to the same f64 (`inf`, `NaN` for non-finite).
fn exact(x: f64) -> String {
    format!("{x}")
}

/// `x` with `digits` significant digits, in plain notation.
pub(crate) fn sig(x: f64, digits: i32) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let mag = x.abs().log10().floor() as i32;
    let decimals = (digits - 1 - mag).max(0) as usize;
    format!("{x:.decimals$}")
}

/// Does the file at `path` start with gzip's magic bytes (a compressed CSV under any name)?
pub fn has_gzip_bytes(path: &Path) -> bool {
    let mut head = [0u8; 2];
    File::open(path)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head))
        .is_ok_and(|()| head == [0x1f, 0x8b])
}

/// Refuses to append to a compressed CSV: one named `.gz`, or one whose bytes are gzip's.
fn refuse_gzip(path: &Path) -> Result<(), TuneError> {
    if is_gzip(path) || has_gzip_bytes(path) {
        return Err(TuneError::io(
            path,
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "sweeps write plain CSV, flushed row by row; compress it with gzip when it is finished",
            ),
        ));
    }
    Ok(())
}

/// Appends rows to a sweep CSV, flushing after each.
pub struct CsvWriter {
    inner: ::csv::Writer<File>,
    path: PathBuf,
    /// The roofline of rows whose device has no specification ([`SweepRow::device_spec`]).
    device: DeviceSpec,
    /// Cells per row: [`COLUMNS`], or fewer ([`SCHEMAS`]) when appending to an older file.
    width: usize,
}

impl CsvWriter {
    /// Creates (or truncates) `path` and writes the header.
    pub fn create(path: &Path, device: DeviceSpec) -> Result<CsvWriter, TuneError> {
        refuse_gzip(path)?;
        let file = File::create(path).map_err(|e| TuneError::io(path, e))?;
        let mut w = CsvWriter {
            inner: ::csv::Writer::from_writer(file),
            path: path.to_path_buf(),
            device,
            width: COLUMNS.len(),
        };
        w.write_record(COLUMNS.iter().map(|s| s.to_string()).collect())?;
        Ok(w)
    }

    /// Opens `path` for appending; writes the header when the file is new or empty. The caller
    /// checks an existing header with [`read_rows`] first; a file with an older header
    /// ([`SCHEMAS`]) gets rows in that schema.
    pub fn append(path: &Path, device: DeviceSpec) -> Result<CsvWriter, TuneError> {
        refuse_gzip(path)?;
        let legacy = match std::fs::read(path) {
            Ok(bytes) => {
                let first = bytes.split(|b| *b == b'\n').next().unwrap_or(&[]);
                let first = String::from_utf8_lossy(first);
                SCHEMAS
                    .iter()
                    .find(|s| first.trim_end() == s.join(","))
                    .map(|s| s.len())
            }
            Err(_) => None,
        };
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| TuneError::io(path, e))?;
        let len = file
            .seek(SeekFrom::End(0))
            .map_err(|e| TuneError::io(path, e))?;
        let mut w = CsvWriter {
            inner: ::csv::Writer::from_writer(file),
            path: path.to_path_buf(),
            device,
            width: match legacy {
                Some(w) if len > 0 => w,
                _ => COLUMNS.len(),
            },
        };
        if len == 0 {
            w.write_record(COLUMNS.iter().map(|s| s.to_string()).collect())?;
        }
        Ok(w)
    }

    /// Writes one row and flushes it to the file.
    pub fn write_row(&mut self, row: &SweepRow) -> Result<(), TuneError> {
        let mut cells = row.cells(&self.device);
        cells.truncate(self.width);
        self.write_record(cells)
    }

    fn write_record(&mut self, cells: Vec<String>) -> Result<(), TuneError> {
        let path = self.path.clone();
        self.inner
            .write_record(&cells)
            .map_err(|e| TuneError::io(&path, std::io::Error::other(e)))?;
        self.inner.flush().map_err(|e| TuneError::io(&path, e))
    }
}

/// The messages file of a sweep CSV: `OUT.csv` → `OUT.csv.messages.jsonl`.
pub fn messages_path(csv: &Path) -> PathBuf {
    let mut p = csv.as_os_str().to_os_string();
    p.push(".messages.jsonl");
    PathBuf::from(p)
}

/// Fills the `message` of each row that has none from a messages file (JSON lines with
/// `kernel`, `problem`, `message`; the last line for a pair wins, as a resumed sweep appends).
/// Lines that are not such objects (a line cut by an interrupt) are skipped. Returns how many
/// rows got a message.
pub fn attach_messages(rows: &mut [SweepRow], path: &Path) -> Result<usize, TuneError> {
    let text = crate::outfile::read_input_string(path).map_err(|e| TuneError::io(path, e))?;
    let mut by_pair: std::collections::HashMap<(String, String), String> =
        std::collections::HashMap::new();
    for line in text.lines() {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if let (Some(k), Some(p), Some(m)) = (
            v["kernel"].as_str(),
            v["problem"].as_str(),
            v["message"].as_str(),
        ) {
            by_pair.insert((k.to_string(), p.to_string()), m.to_string());
        }
    }
    let mut n = 0;
    for r in rows.iter_mut().filter(|r| r.message.is_none()) {
        if let Some(m) = by_pair.get(&(r.kernel.clone(), r.problem.to_string())) {
            r.message = Some(m.clone());
            n += 1;
        }
    }
    Ok(n)
}

/// A last line without its newline: a row cut off when a sweep was killed while writing it.
/// Rows are written whole and end with a newline, so such a line is never a complete row (even
/// when its cells happen to parse, the last one may be cut).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartialTail {
    /// 1-based line number of the cut line.
    pub line: u64,
    /// Its length in bytes.
    pub bytes: u64,
    /// Its beginning, for messages (at most 80 characters).
    pub text: String,
}

impl std::fmt::Display for PartialTail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "line {} ({} bytes, no newline: {:?})",
            self.line, self.bytes, self.text
        )
    }
}

/// Where the complete lines of `bytes` end, and the partial last line after them, if any.
pub(crate) fn split_partial_tail(bytes: &[u8]) -> (usize, Option<PartialTail>) {
    if bytes.is_empty() || bytes.ends_with(b"\n") {
        return (bytes.len(), None);
    }
    let keep = bytes
        .iter()
        .rposition(|&b| b == b'\n')
        .map(|i| i + 1)
        .unwrap_or(0);
    let line = bytes[..keep].iter().filter(|&&b| b == b'\n').count() as u64 + 1;
    let tail = String::from_utf8_lossy(&bytes[keep..]);
    let tail = PartialTail {
        line,
        bytes: (bytes.len() - keep) as u64,
        text: crate::worker::truncate(&tail, 80),
    };
    (keep, Some(tail))
}

/// Drops a partial last line ([`PartialTail`]) so that appending starts on a fresh line; used
/// by `--resume` on the CSV and its messages file. Returns what was dropped.
pub fn drop_partial_tail(path: &Path) -> Result<Option<PartialTail>, TuneError> {
    // A compressed file is never cut (its bytes end in no newline).
    refuse_gzip(path)?;
    let bytes = std::fs::read(path).map_err(|e| TuneError::io(path, e))?;
    let (keep, tail) = split_partial_tail(&bytes);
    if tail.is_some() {
        let file = OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(|e| TuneError::io(path, e))?;
        file.set_len(keep as u64)
            .map_err(|e| TuneError::io(path, e))?;
    }
    Ok(tail)
}

/// Checks that `path` begins with the header of a sweep CSV (one of [`SCHEMAS`]) without
/// reading its rows; an empty (or blank) file passes. `--resume` calls it before
/// [`drop_partial_tail`], so that a file that is not a sweep CSV (notes given as `--output` by
/// mistake) is refused untouched.
pub fn check_sweep_header(path: &Path) -> Result<(), TuneError> {
    let bytes = read_csv_bytes(path)?;
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(());
    }
    let end = bytes
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |i| i + 1);
    parse_rows(path, &bytes[..end]).map(|_| ())
}

/// Rows whose identity ([`SweepRow::identity`]: kernel, problem, device) an earlier row of
/// `rows` already has: a sweep writes each pair once, so these come from CSVs concatenated by
/// hand (or edited). `gconv merge` refuses them; what reads rows for a ranking says how many.
pub fn repeated_rows(rows: &[SweepRow]) -> usize {
    let mut seen = std::collections::HashSet::new();
    rows.iter().filter(|r| !seen.insert(r.identity())).count()
}

/// [`read_rows`] for a CSV that may end in a row cut by an interrupt: the complete rows, and
/// the cut last line (not read, and left in the file) if there is one. Any other bad row is
/// still an error.
pub fn read_rows_lenient(path: &Path) -> Result<(Vec<SweepRow>, Option<PartialTail>), TuneError> {
    let bytes = read_csv_bytes(path)?;
    let (keep, tail) = split_partial_tail(&bytes);
    Ok((parse_rows(path, &bytes[..keep])?, tail))
}

/// Reads every row of a sweep CSV. The header must be exactly [`COLUMNS`]; each row's problem
/// columns must agree with its `problem` key. Derived columns (`tflops`, `gbps`,
/// `roofline_frac`) are not read back: they follow from the key and the latency.
pub fn read_rows(path: &Path) -> Result<Vec<SweepRow>, TuneError> {
    let bytes = read_csv_bytes(path)?;
    parse_rows(path, bytes.as_slice())
}

/// Is `path` a gzip-compressed CSV (`.gz`)? Such files are read (committed oracle data is
/// stored so) but never appended to.
pub fn is_gzip(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "gz")
}

/// The bytes of a sweep CSV: decompressed when its name ends in `.gz` or its bytes are gzip's
/// (a compressed file renamed `.csv`), without a leading UTF-8 byte-order mark (a CSV saved by
/// a spreadsheet).
pub fn read_csv_bytes(path: &Path) -> Result<Vec<u8>, TuneError> {
    let mut raw = crate::outfile::read_input(path).map_err(|e| TuneError::io(path, e))?;
    if !is_gzip(path) && !raw.starts_with(&[0x1f, 0x8b]) {
        if raw.starts_with(b"\xef\xbb\xbf") {
            raw.drain(..3);
        }
        return Ok(raw);
    }
    let mut out = Vec::new();
    std::io::Read::read_to_end(
        &mut flate2::read::MultiGzDecoder::new(raw.as_slice()),
        &mut out,
    )
    .map_err(|e| {
        TuneError::io(
            path,
            std::io::Error::new(e.kind(), format!("not a readable gzip file: {e}")),
        )
    })?;
    if out.starts_with(b"\xef\xbb\xbf") {
        out.drain(..3);
    }
    Ok(out)
}

/// What a header that is none of [`SCHEMAS`] lacks and has in excess against the current
/// one ([`COLUMNS`]), or that its columns are out of order.
fn header_difference(names: &[&str]) -> String {
    let missing: Vec<&str> = COLUMNS
        .iter()
        .copied()
        .filter(|c| !names.contains(c))
        .collect();
    let extra: Vec<&str> = names
        .iter()
        .copied()
        .filter(|c| !COLUMNS.contains(c))
        .collect();
    let list = |v: &[&str]| {
        v.iter()
            .map(|c| format!("{c:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match (missing.is_empty(), extra.is_empty()) {
        (true, true) => "its columns are out of order or repeated".into(),
        (false, true) => format!("no column {}", list(&missing)),
        (true, false) => format!("unexpected column {}", list(&extra)),
        (false, false) => format!(
            "no column {}; unexpected column {}",
            list(&missing),
            list(&extra)
        ),
    }
}

/// The rows of a sweep CSV read from `input`; `path` names it in errors.
pub(crate) fn parse_rows(
    path: &Path,
    input: impl std::io::Read,
) -> Result<Vec<SweepRow>, TuneError> {
    let mut rdr = ::csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(true)
        .from_reader(input);
    let header = rdr
        .headers()
        .map_err(|e| TuneError::io(path, std::io::Error::other(e)))?
        .clone();
    let names = header.iter().collect::<Vec<_>>();
    let Some(width) = SCHEMAS.iter().find(|s| names == **s).map(|s| s.len()) else {
        return Err(TuneError::CsvHeader {
            path: path.to_path_buf(),
            detail: header_difference(&names),
            expected: COLUMNS.join(","),
            found: names.join(","),
        });
    };
    let mut rows = Vec::new();
    for rec in rdr.records() {
        let rec = rec.map_err(|e| TuneError::CsvRow {
            path: path.to_path_buf(),
            line: e.position().map(|p| p.line()).unwrap_or(0),
            column: String::new(),
            message: e.to_string(),
        })?;
        let line = rec.position().map(|p| p.line()).unwrap_or(0);
        let bad = |column: &str, message: String| TuneError::CsvRow {
            path: path.to_path_buf(),
            line,
            column: column.to_string(),
            message,
        };
        if rec.len() != width {
            return Err(bad(
                "",
                format!(
                    "{} cells, expected {} (a partial row from an interrupted sweep?)",
                    rec.len(),
                    width
                ),
            ));
        }
        let problem: Problem = rec[1].parse().map_err(|e| bad("problem", format!("{e}")))?;
        for (i, want) in problem_cells(&problem).iter().enumerate().skip(1) {
            if rec[1 + i] != *want {
                return Err(bad(
                    COLUMNS[1 + i],
                    format!(
                        "{:?} disagrees with the problem key {} (which gives {want:?})",
                        &rec[1 + i],
                        problem
                    ),
                ));
            }
        }
        let status: Status = rec[STATUS_COL].parse().map_err(|e| bad("status", e))?;
        let f = |i: usize| -> Result<Option<f64>, TuneError> {
            let s = &rec[i];
            if s.is_empty() {
                Ok(None)
            } else {
                s.parse::<f64>()
                    .map(Some)
                    .map_err(|_| bad(COLUMNS[i], format!("{s:?} is not a number")))
            }
        };
        let u = |i: usize| -> Result<Option<u32>, TuneError> {
            let s = &rec[i];
            if s.is_empty() {
                Ok(None)
            } else {
                s.parse::<u32>()
                    .map(Some)
                    .map_err(|_| bad(COLUMNS[i], format!("{s:?} is not a count")))
            }
        };
        if rec[0].trim().is_empty() {
            return Err(bad("kernel", "an empty kernel name".into()));
        }
        let latency_ms = f(24)?;
        if status == Status::Ok && !latency_ms.is_some_and(|t| t > 0.0 && t.is_finite()) {
            return Err(bad(
                "latency_ms",
                format!(
                    "an ok row needs a positive finite latency, found {:?}",
                    &rec[24]
                ),
            ));
        }
        let (rounds, iters, stopped_early) = if width > 33 {
            let b = match &rec[35] {
                "" => None,
                "true" => Some(true),
                "false" => Some(false),
                other => {
                    return Err(bad(
                        "stopped_early",
                        format!("{other:?} is not true or false"),
                    ))
                }
            };
            (u(33)?, u(34)?, b)
        } else {
            (None, None, None)
        };
        let device = if width > 36 {
            match (&rec[36], &rec[37]) {
                ("", "") => None,
                (name, index) if !name.is_empty() => Some(DeviceTag {
                    name: name.to_string(),
                    index: index.parse().map_err(|_| {
                        bad("device_index", format!("{index:?} is not a device ordinal"))
                    })?,
                }),
                _ => {
                    return Err(bad(
                        "device",
                        format!("empty device name with device_index {:?}", &rec[37]),
                    ))
                }
            }
        } else {
            None
        };
        // Errors and compile times are never negative, and a verified row compared numbers:
        // no NaN (an incorrect one may have met one; a relative error over a zero is +∞).
        let measure = |i: usize| -> Result<Option<f64>, TuneError> {
            let v = f(i)?;
            match v {
                Some(x) if x < 0.0 => Err(bad(COLUMNS[i], format!("{:?} is negative", &rec[i]))),
                Some(x) if status == Status::Ok && x.is_nan() => Err(bad(
                    COLUMNS[i],
                    format!("{:?} in a verified (ok) row", &rec[i]),
                )),
                _ => Ok(v),
            }
        };
        let (max_abs_err, max_rel_err, compile_ms) = (measure(28)?, measure(29)?, measure(30)?);
        rows.push(SweepRow {
            kernel: rec[0].to_string(),
            problem,
            status,
            latency_ms,
            max_abs_err,
            max_rel_err,
            compile_ms,
            regs: u(31)?,
            spills: u(32)?,
            rounds,
            iters,
            stopped_early,
            device,
            message: None,
        });
    }
    Ok(rows)
}

#[cfg(test)]
impl SweepRow {
    /// A row with only a kernel, a problem key, a status and a latency (tests of the modules
    /// that read rows).
    pub(crate) fn bare(kernel: &str, key: &str, status: Status, lat: Option<f64>) -> SweepRow {
        SweepRow {
            kernel: kernel.into(),
            problem: key.parse().expect("a valid problem key"),
            status,
            latency_ms: lat,
            max_abs_err: None,
            max_rel_err: None,
            compile_ms: None,
            regs: None,
            spills: None,
            rounds: None,
            iters: None,
            stopped_early: None,
            device: None,
            message: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::chain_text;

    fn row(kernel: &str, key: &str, status: Status, lat: Option<f64>) -> SweepRow {
        SweepRow {
            kernel: kernel.into(),
            problem: key.parse().unwrap(),
            status,
            latency_ms: lat,
            max_abs_err: Some(1e-3),
            max_rel_err: Some(f64::INFINITY),
            compile_ms: Some(12.25),
            regs: Some(96),
            spills: Some(0),
            rounds: Some(10),
            iters: Some(10),
            stopped_early: Some(false),
            device: Some(DeviceTag {
                name: "NVIDIA H200".into(),
                index: 1,
            }),
            message: Some("not written".into()),
        }
    }

    #[test]
    fn header_is_the_design_schema() {
        let text = "kernel, problem, direction, dtype, N, G, C, K, Di, Hi, Wi, Z, Y, X, stride_d, stride_h, stride_w, pad_d, pad_h, pad_w, dil_d, dil_h, dil_w, status, latency_ms, tflops, gbps, roofline_frac, max_abs_err, max_rel_err, compile_ms, regs, spills";
        let want: Vec<&str> = text.split(", ").collect();
        assert_eq!(COLUMNS_V1.to_vec(), want);
        assert_eq!(&COLUMNS[..33], &COLUMNS_V1[..]);
        assert_eq!(
            &COLUMNS[33..],
            &[
                "rounds",
                "iters_per_round",
                "stopped_early",
                "device",
                "device_index"
            ]
        );
        assert_eq!(&COLUMNS[..36], &COLUMNS_V2[..]);
        assert_eq!(COLUMNS[STATUS_COL], "status");
    }

    #[test]
    fn cells_of_a_2d_row() {
        let r = row(
            "k1",
            "fwd_bf16_n32_g32_c256_k256_i56x56_f3x3_s1x1_p1x1_d1x1",
            Status::Ok,
            Some(0.5),
        );
        let c = r.cells(&DeviceSpec::H200);
        assert_eq!(c.len(), 38);
        assert_eq!(&c[33..], &["10", "10", "false", "NVIDIA H200", "1"]);
        assert_eq!(
            &c[4..23].join(","),
            "32,32,256,256,1,56,56,1,3,3,1,1,1,0,1,1,1,1,1"
        );
        assert_eq!(c[23], "ok");
        assert_eq!(c[24], "0.5");
        let tflops = r.problem.flops() / 0.5e-3 / 1e12;
        assert_eq!(c[25], sig(tflops, 4));
        assert_eq!(c[29], "inf");
        assert_eq!(c[30], "12.250");
        // not ok: derived metrics empty
        let r = row("k1", &r.problem.to_string(), Status::Incorrect, None);
        let c = r.cells(&DeviceSpec::H200);
        assert_eq!(&c[24..28], &["", "", "", ""]);
        assert_eq!(&c[33..36], &["", "", ""], "not timed: no rounds");
        let r = SweepRow { device: None, ..r };
        let c = r.cells(&DeviceSpec::H200);
        assert_eq!(&c[36..], &["", ""], "never ran: no device");
        assert_eq!(c[28], "0.001");
    }

    /// A row's roofline is its own device's: an H100 SXM row of a memory-bound problem is
    /// measured against 3.35 TB/s, not the fallback's 4.8; a row without a known device
    /// against the fallback.
    #[test]
    fn the_roofline_is_the_rows_device() {
        let key = "fwd_bf16_n32_g96_c96_k96_i56x56_f7x7_s1x1_p3x3_d1x1";
        let mut r = row("k1", key, Status::Ok, Some(0.03));
        let h200 = r.roofline_frac(&DeviceSpec::H200).unwrap();
        r.device = Some(DeviceTag {
            name: "NVIDIA H100 80GB HBM3".into(),
            index: 0,
        });
        assert_eq!(r.device_spec(&DeviceSpec::H200), DeviceSpec::H100_SXM);
        let h100 = r.roofline_frac(&DeviceSpec::H200).unwrap();
        assert!((h100 / h200 - 4.8 / 3.35).abs() < 1e-9, "{h100} {h200}");
        assert_eq!(r.cells(&DeviceSpec::H200)[27], sig(h100, 4));
        r.device = Some(DeviceTag {
            name: "cpu".into(),
            index: 0,
        });
        assert_eq!(r.roofline_frac(&DeviceSpec::H200), Some(h200));
        // A file's spec: the one its known devices share, else the fallback.
        let h100 = |index| SweepRow {
            device: Some(DeviceTag {
                name: "NVIDIA H100 80GB HBM3".into(),
                index,
            }),
            ..r.clone()
        };
        let cpu = SweepRow {
            device: None,
            ..r.clone()
        };
        let same = [h100(0), h100(1), cpu.clone()];
        assert_eq!(
            rows_device_spec(&same, &DeviceSpec::H200),
            DeviceSpec::H100_SXM
        );
        let mixed = [h100(0), row("k2", key, Status::Ok, Some(0.03))];
        assert_eq!(
            rows_device_spec(&mixed, &DeviceSpec::H100_PCIE),
            DeviceSpec::H100_PCIE
        );
        assert_eq!(
            rows_device_spec(&[cpu], &DeviceSpec::H100_PCIE),
            DeviceSpec::H100_PCIE
        );
    }

    #[test]
    fn significant_digits() {
        assert_eq!(sig(123.456, 4), "123.5");
        assert_eq!(sig(0.00123456, 4), "0.001235");
        assert_eq!(sig(98765.4, 4), "98765");
        assert_eq!(sig(0.0, 4), "0");
    }

    #[test]
    fn write_then_read_then_append() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.csv");
        let a = row(
            "k1",
            "fwd_f32_n1_g2_c4_k6_i5x6x7_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
            Status::Ok,
            Some(0.125),
        );
        let b = row(
            "cudnn:eng0",
            "wgrad_f16_n2_g8_c8_k8_i33_f5_s2_p2_d2",
            Status::Timeout,
            None,
        );
        {
            let mut w = CsvWriter::create(&path, DeviceSpec::H200).unwrap();
            w.write_row(&a).unwrap();
        }
        {
            let mut w = CsvWriter::append(&path, DeviceSpec::H200).unwrap();
            w.write_row(&b).unwrap();
        }
        let rows = read_rows(&path).unwrap();
        assert_eq!(rows.len(), 2);
        let strip = |r: &SweepRow| SweepRow {
            message: None,
            ..r.clone()
        };
        assert_eq!(rows[0].kernel, "k1");
        assert_eq!(rows[0].latency_ms, Some(0.125));
        assert_eq!(
            (rows[0].rounds, rows[0].iters, rows[0].stopped_early),
            (Some(10), Some(10), Some(false))
        );
        assert!(rows[0].max_rel_err.unwrap().is_infinite());
        assert_eq!(rows[0].device, a.device, "the device round-trips");
        assert_eq!(rows[1].kernel, strip(&b).kernel);
        assert_eq!(rows[1].problem, b.problem);
        assert_eq!(rows[1].status, Status::Timeout);
        assert!(rows[1].is_baseline());
        assert_eq!(rows[1].provider(), Some("cudnn"));
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().count(), 3, "one header");
        // append to a new file writes the header
        let p2 = dir.path().join("new.csv");
        CsvWriter::append(&p2, DeviceSpec::H200)
            .unwrap()
            .write_row(&a)
            .unwrap();
        assert_eq!(read_rows(&p2).unwrap().len(), 1);
    }

    #[test]
    fn messages_file_sits_next_to_the_csv_and_fills_rows() {
        let dir = tempfile::tempdir().unwrap();
        let csv = dir.path().join("out.csv");
        let m = messages_path(&csv);
        assert_eq!(m, dir.path().join("out.csv.messages.jsonl"));
        let key = "fwd_f32_n1_g2_c4_k6_i5x6x7_f3x3x3_s1x1x1_p1x1x1_d1x1x1";
        let line = |k: &str, msg: &str| {
            serde_json::json!({"kernel": k, "problem": key, "status": "crashed", "message": msg})
                .to_string()
        };
        std::fs::write(
            &m,
            format!(
                "{}\n{}\n{}\n{{\"kernel\": \"cut",
                line("k1", "old"),
                line("k1", "new"),
                line("k2", "other")
            ),
        )
        .unwrap();
        let mut rows = vec![
            SweepRow {
                message: None,
                ..row("k1", key, Status::Crashed, None)
            },
            row("k2", key, Status::Crashed, None),
            SweepRow {
                message: None,
                ..row("k3", key, Status::Crashed, None)
            },
        ];
        assert_eq!(attach_messages(&mut rows, &m).unwrap(), 1);
        assert_eq!(
            rows[0].message.as_deref(),
            Some("new"),
            "the last line wins"
        );
        assert_eq!(rows[1].message.as_deref(), Some("not written"), "kept");
        assert_eq!(rows[2].message, None);
    }

    #[test]
    fn old_files_are_read_and_appended_in_their_schema() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("old.csv");
        // The first rows of results/h200/s4/bench_zoo.csv.gz (written before the timing columns).
        let old = format!(
            "{}\n{}\n{}\n",
            COLUMNS_V1.join(","),
            "igemm_fwd_bf16_t128x128x32_w2x2_s4_v8x8_gm1_sk1d_mma_pw,fwd_bf16_n32_g32_c32_k32_i112x112_f3x3_s1x1_p1x1_d1x1,fwd,bf16,32,32,32,32,1,112,112,1,3,3,1,1,1,0,1,1,1,1,1,rejected,,,,,,,,,",
            "cudnn:eng7,fwd_bf16_n32_g32_c32_k32_i112x112_f3x3_s1x1_p1x1_d1x1,fwd,bf16,32,32,32,32,1,112,112,1,3,3,1,1,1,0,1,1,1,1,1,ok,0.0256,18.07,4013,0.4168,0.0078125,0.001953125,,,"
        );
        std::fs::write(&path, &old).unwrap();
        let rows = read_rows(&path).unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[1].latency_ms, Some(0.0256));
        assert_eq!((rows[1].rounds, rows[1].stopped_early), (None, None));
        let new = row(
            "k1",
            "fwd_bf16_n32_g32_c32_k32_i112x112_f3x3_s1x1_p1x1_d1x1",
            Status::Ok,
            Some(0.5),
        );
        CsvWriter::append(&path, DeviceSpec::H200)
            .unwrap()
            .write_row(&new)
            .unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with(&old), "old rows untouched");
        let last = text.lines().last().unwrap();
        assert_eq!(last.split(',').count(), 33, "{last}");
        let rows = read_rows(&path).unwrap();
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[2].latency_ms, Some(0.5));
        // a bad stopped_early cell in a new file names the column
        let p2 = dir.path().join("new.csv");
        let mut cells = new.cells(&DeviceSpec::H200);
        cells[35] = "maybe".into();
        std::fs::write(&p2, format!("{}\n{}\n", COLUMNS.join(","), cells.join(","))).unwrap();
        let e = read_rows(&p2).unwrap_err();
        assert!(
            matches!(&e, TuneError::CsvRow { column, .. } if column == "stopped_early"),
            "{e}"
        );
    }

    #[test]
    fn files_without_device_columns_are_read_and_appended_in_their_schema() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v2.csv");
        let key = "fwd_bf16_n32_g32_c32_k32_i112x112_f3x3_s1x1_p1x1_d1x1";
        let r = row("k1", key, Status::Ok, Some(0.5));
        let mut cells = r.cells(&DeviceSpec::H200);
        cells.truncate(36);
        let old = format!("{}\n{}\n", COLUMNS_V2.join(","), cells.join(","));
        std::fs::write(&path, &old).unwrap();
        let rows = read_rows(&path).unwrap();
        assert_eq!((rows.len(), rows[0].device.clone()), (1, None));
        assert_eq!(rows[0].rounds, Some(10));
        CsvWriter::append(&path, DeviceSpec::H200)
            .unwrap()
            .write_row(&r)
            .unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with(&old));
        assert_eq!(text.lines().last().unwrap().split(',').count(), 36);
        assert_eq!(read_rows(&path).unwrap().len(), 2);
        // A device index without a name, or a name with a bad index, names the column.
        for (name, index, column) in [("", "0", "device"), ("gpu", "x", "device_index")] {
            let mut cells = r.cells(&DeviceSpec::H200);
            cells[36] = name.into();
            cells[37] = index.into();
            std::fs::write(
                &path,
                format!("{}\n{}\n", COLUMNS.join(","), cells.join(",")),
            )
            .unwrap();
            let e = read_rows(&path).unwrap_err();
            assert!(
                matches!(&e, TuneError::CsvRow { column: c, .. } if c == column),
                "{e}"
            );
        }
    }

    #[test]
    fn gzip_files_are_read_but_never_written() {
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("a.csv");
        let key = "fwd_bf16_n32_g32_c256_k256_i56x56_f3x3_s1x1_p1x1_d1x1";
        {
            let mut w = CsvWriter::create(&plain, DeviceSpec::H200).unwrap();
            w.write_row(&row("k1", key, Status::Ok, Some(0.5))).unwrap();
        }
        let gz = dir.path().join("a.csv.gz");
        let mut enc = flate2::write::GzEncoder::new(
            std::fs::File::create(&gz).unwrap(),
            flate2::Compression::default(),
        );
        std::io::Write::write_all(&mut enc, &std::fs::read(&plain).unwrap()).unwrap();
        enc.finish().unwrap();
        assert_eq!(read_rows(&gz).unwrap(), read_rows(&plain).unwrap());
        assert_eq!(read_rows_lenient(&gz).unwrap().0.len(), 1);
        assert!(CsvWriter::append(&gz, DeviceSpec::H200).is_err());
        assert!(CsvWriter::create(&dir.path().join("b.csv.gz"), DeviceSpec::H200).is_err());
        // A file gzipped in pieces (`cat a.gz b.gz`) is read whole, not cut after its first
        // member.
        {
            let mut w = CsvWriter::append(&plain, DeviceSpec::H200).unwrap();
            w.write_row(&row("k2", key, Status::Ok, Some(0.25)))
                .unwrap();
        }
        let text = std::fs::read(&plain).unwrap();
        let cut = text.iter().rposition(|&b| b == b'\n').unwrap();
        let cut = text[..cut].iter().rposition(|&b| b == b'\n').unwrap() + 1;
        let members = dir.path().join("members.csv.gz");
        let mut out = std::fs::File::create(&members).unwrap();
        for piece in [&text[..cut], &text[cut..]] {
            let mut enc = flate2::write::GzEncoder::new(&mut out, flate2::Compression::default());
            std::io::Write::write_all(&mut enc, piece).unwrap();
            enc.finish().unwrap();
        }
        drop(out);
        assert_eq!(read_rows(&members).unwrap().len(), 2);
        assert_eq!(read_rows(&members).unwrap(), read_rows(&plain).unwrap());
        // A .gz that is not gzip is an error naming the file.
        std::fs::copy(&plain, dir.path().join("fake.csv.gz")).unwrap();
        let e = read_rows(&dir.path().join("fake.csv.gz")).unwrap_err();
        assert!(chain_text(&e).contains("gzip"), "{}", chain_text(&e));
    }

    #[test]
    fn reader_rejects_bad_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.csv");
        std::fs::write(&path, "kernel,problem\nk,x\n").unwrap();
        assert!(matches!(read_rows(&path), Err(TuneError::CsvHeader { .. })));

        let good = row(
            "k1",
            "fwd_bf16_n32_g32_c256_k256_i56x56_f3x3_s1x1_p1x1_d1x1",
            Status::Ok,
            Some(0.5),
        );
        let header = COLUMNS.join(",");
        let mut cells = good.cells(&DeviceSpec::H200);
        cells[5] = "16".into(); // G disagrees with the key
        std::fs::write(&path, format!("{header}\n{}\n", cells.join(","))).unwrap();
        let e = read_rows(&path).unwrap_err();
        assert!(
            matches!(&e, TuneError::CsvRow { column, line: 2, .. } if column == "G"),
            "{e}"
        );
        let mut cells = good.cells(&DeviceSpec::H200);
        cells[23] = "great".into();
        std::fs::write(&path, format!("{header}\n{}\n", cells.join(","))).unwrap();
        let e = read_rows(&path).unwrap_err();
        assert!(e.to_string().contains("great"), "{e}");
        // an empty kernel name, a negative error, a NaN error in a verified row
        for (col, value, name, says) in [
            (0, " ", "kernel", "an empty kernel name"),
            (28, "-0.5", "max_abs_err", "negative"),
            (29, "NaN", "max_rel_err", "in a verified (ok) row"),
            (30, "-3", "compile_ms", "negative"),
        ] {
            let mut cells = good.cells(&DeviceSpec::H200);
            cells[col] = value.into();
            std::fs::write(&path, format!("{header}\n{}\n", cells.join(","))).unwrap();
            let e = read_rows(&path).unwrap_err();
            assert!(
                matches!(&e, TuneError::CsvRow { column, line: 2, .. } if column == name),
                "{e}"
            );
            assert!(e.to_string().contains(says), "{e}");
        }
        // an incorrect result may have compared a NaN: read as it is
        let mut cells =
            row("k1", &good.problem.to_string(), Status::Incorrect, None).cells(&DeviceSpec::H200);
        cells[28] = "NaN".into();
        std::fs::write(&path, format!("{header}\n{}\n", cells.join(","))).unwrap();
        assert!(read_rows(&path).unwrap()[0].max_abs_err.unwrap().is_nan());
        // a partial last row (interrupted sweep)
        let cells = good.cells(&DeviceSpec::H200);
        std::fs::write(&path, format!("{header}\n{}", cells[..10].join(","))).unwrap();
        let e = read_rows(&path).unwrap_err();
        assert!(e.to_string().contains("partial"), "{e}");
        // ... which drop_partial_tail removes
        let removed = drop_partial_tail(&path).unwrap().expect("a partial tail");
        assert_eq!(removed.line, 2);
        assert!(read_rows(&path).unwrap().is_empty());
        assert_eq!(drop_partial_tail(&path).unwrap(), None);
        // The header check that comes first: a sweep CSV (or an empty file) passes, other
        // text with a cut last line is refused before anything drops that line.
        check_sweep_header(&path).unwrap();
        std::fs::write(&path, "").unwrap();
        check_sweep_header(&path).unwrap();
        let notes = "my notes line 1\nmy notes line 2 without newline";
        std::fs::write(&path, notes).unwrap();
        let e = check_sweep_header(&path).unwrap_err();
        assert!(matches!(e, TuneError::CsvHeader { .. }), "{e}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), notes);
    }

    #[test]
    fn a_byte_order_mark_or_gzip_bytes_under_a_csv_name_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let good = row(
            "k1",
            "fwd_bf16_n32_g32_c256_k256_i56x56_f3x3_s1x1_p1x1_d1x1",
            Status::Ok,
            Some(0.5),
        );
        let text = format!(
            "{}\n{}\n",
            COLUMNS.join(","),
            good.cells(&DeviceSpec::H200).join(",")
        );
        let bom = dir.path().join("bom.csv");
        std::fs::write(&bom, [b"\xef\xbb\xbf".as_slice(), text.as_bytes()].concat()).unwrap();
        assert_eq!(read_rows(&bom).unwrap().len(), 1);
        let renamed = dir.path().join("renamed.csv");
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gz, text.as_bytes()).unwrap();
        let packed = gz.finish().unwrap();
        std::fs::write(&renamed, &packed).unwrap();
        assert_eq!(read_rows(&renamed).unwrap().len(), 1);
        // ... but never cut or appended to (its bytes end in no newline)
        assert!(drop_partial_tail(&renamed).is_err());
        assert!(CsvWriter::append(&renamed, DeviceSpec::H200).is_err());
        assert_eq!(std::fs::read(&renamed).unwrap(), packed);
        // A header that lacks a column, or has one too many, names it.
        let short = dir.path().join("short.csv");
        let cut: Vec<&str> = COLUMNS.iter().copied().filter(|c| *c != "status").collect();
        std::fs::write(&short, format!("{}\n", cut.join(","))).unwrap();
        let e = read_rows(&short).unwrap_err().to_string();
        assert!(
            e.contains("not a gconv sweep CSV: no column \"status\";"),
            "{e}"
        );
        let mut more: Vec<&str> = COLUMNS.to_vec();
        more.push("note");
        std::fs::write(&short, format!("{}\n", more.join(","))).unwrap();
        let e = read_rows(&short).unwrap_err().to_string();
        assert!(e.contains("unexpected column \"note\";"), "{e}");
    }

    #[test]
    fn a_row_cut_mid_way_is_skipped_by_the_lenient_reader_and_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cut.csv");
        let key = "fwd_bf16_n32_g32_c256_k256_i56x56_f3x3_s1x1_p1x1_d1x1";
        {
            let mut w = CsvWriter::create(&path, DeviceSpec::H200).unwrap();
            for k in ["k1", "k2", "k3"] {
                w.write_row(&row(k, key, Status::Ok, Some(0.5))).unwrap();
            }
        }
        let full = std::fs::read(&path).unwrap();
        // Cut the last row in its middle, and also in its last cell (where the cells still
        // parse: only the missing newline tells).
        for cut in [full.len() - 60, full.len() - 2] {
            std::fs::write(&path, &full[..cut]).unwrap();
            assert!(read_rows(&path).is_err() || cut == full.len() - 2);
            let (rows, tail) = read_rows_lenient(&path).unwrap();
            assert_eq!(rows.len(), 2);
            let tail = tail.expect("the cut row");
            assert_eq!(tail.line, 4);
            assert!(tail.text.starts_with("k3,fwd_bf16"), "{tail}");
            assert!(tail.to_string().starts_with("line 4 ("), "{tail}");
            assert_eq!(std::fs::read(&path).unwrap(), &full[..cut], "left in place");
        }
        std::fs::write(&path, &full).unwrap();
        let (rows, tail) = read_rows_lenient(&path).unwrap();
        assert_eq!((rows.len(), tail), (3, None));
    }
}
