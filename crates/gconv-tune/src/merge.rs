//! `gconv merge`: joins the CSVs of a sharded sweep (or of sweeps on several hosts) into one.
//!
//! Every input must be a complete sweep CSV of one schema (the same header; a file cut by an
//! interrupt is refused until `--resume` has finished it). Rows are identified by (kernel,
//! problem, device, device index) ([`SweepRow::identity`]); the same identity twice, in one file
//! or in two, is refused with both places named, because one of the two would be lost. Rows
//! are copied byte for byte (nothing is recomputed), file after file in the order given. The
//! messages files next to the inputs (`IN.csv.messages.jsonl`) are joined into the output's.
//! The output is written to a temporary file and renamed into place, so a failed merge leaves
//! no half-written CSV.

use crate::csv::{
    is_gzip, messages_path, parse_rows, read_csv_bytes, split_partial_tail, DeviceTag, SweepRow,
    COLUMNS,
};
use crate::error::TuneError;
use std::collections::{BTreeSet, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};

/// What a merge wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct MergeReport {
    /// The merged CSV.
    pub output: PathBuf,
    /// Rows taken from each input, in order.
    pub inputs: Vec<(PathBuf, usize)>,
    /// Rows written.
    pub rows: usize,
    /// Distinct problems among them.
    pub problems: usize,
    /// Message lines written to the output's messages file.
    pub messages: usize,
    /// The devices the rows name.
    pub devices: BTreeSet<DeviceTag>,
    /// Columns of the (common) schema.
    pub columns: usize,
}

fn merge_err(message: String) -> TuneError {
    TuneError::Merge { message }
}

/// What a header means, for messages.
fn schema_name(columns: usize) -> String {
    match columns {
        33 => "33 columns: written before the timing columns".into(),
        36 => "36 columns: written before the device columns".into(),
        n if n == COLUMNS.len() => format!("{n} columns: the current schema"),
        n => format!("{n} columns"),
    }
}

/// One input read and checked.
struct Input {
    path: PathBuf,
    header: String,
    lines: Vec<String>,
    rows: Vec<SweepRow>,
}

fn read_input(path: &Path) -> Result<Input, TuneError> {
    let bytes = read_csv_bytes(path)?;
    if bytes.is_empty() {
        return Err(merge_err(format!(
            "{} is empty (not even a header)",
            path.display()
        )));
    }
    let (keep, tail) = split_partial_tail(&bytes);
    if let Some(tail) = tail {
        return Err(merge_err(format!(
            "{} ends in a row cut by an interrupt ({tail}); finish that sweep with --resume before merging",
            path.display()
        )));
    }
    let rows = parse_rows(path, &bytes[..keep])?;
    let text = String::from_utf8_lossy(&bytes[..keep]);
    let mut lines = text.lines().map(str::to_string);
    let header = lines.next().unwrap_or_default();
    let lines: Vec<String> = lines.filter(|l| !l.is_empty()).collect();
    if lines.len() != rows.len() {
        return Err(merge_err(format!(
            "{}: {} rows in {} lines (a row spans lines?); it cannot be copied line for line",
            path.display(),
            rows.len(),
            lines.len()
        )));
    }
    Ok(Input {
        path: path.to_path_buf(),
        header,
        lines,
        rows,
    })
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}

/// Writes `text` to `path` through a temporary file in the same directory
/// ([`crate::outfile::write_atomic_with`]), gzip-compressed when the name ends in `.gz` (what
/// the readers expect of such a name).
fn write_atomic(path: &Path, text: &str) -> Result<(), TuneError> {
    crate::outfile::write_atomic_with(path, |f| {
        if is_gzip(path) {
            let mut gz = flate2::write::GzEncoder::new(f, flate2::Compression::default());
            gz.write_all(text.as_bytes())?;
            gz.finish()?;
            Ok(())
        } else {
            f.write_all(text.as_bytes())
        }
    })
}

/// Merges `inputs` into `output` (see the module documentation). An existing `output` is
/// refused unless `overwrite`; an output that is also an input is always refused.
pub fn merge_csvs(
    inputs: &[PathBuf],
    output: &Path,
    overwrite: bool,
) -> Result<MergeReport, TuneError> {
    if inputs.is_empty() {
        return Err(merge_err("no input CSV given".into()));
    }
    if let Some(i) = inputs.iter().find(|i| same_file(i, output)) {
        return Err(merge_err(format!(
            "the output {} is also an input ({}); write the merge to a new file",
            output.display(),
            i.display()
        )));
    }
    // A device, FIFO or directory is never replaced by the rename, nor its messages file
    // created next to it.
    crate::outfile::check_output_file(output)?;
    crate::outfile::check_output_file(&messages_path(output))?;
    if output.exists() && !overwrite {
        return Err(merge_err(format!(
            "{} exists; pass --force to replace it",
            output.display()
        )));
    }
    let mut read = Vec::with_capacity(inputs.len());
    for (i, path) in inputs.iter().enumerate() {
        if let Some(j) = inputs[..i].iter().position(|p| same_file(p, path)) {
            return Err(merge_err(format!(
                "{} is given twice (inputs {} and {}); every row would be a duplicate",
                path.display(),
                j + 1,
                i + 1
            )));
        }
        read.push(read_input(path)?);
    }
    let first = &read[0];
    for other in &read[1..] {
        if other.header != first.header {
            let cols = |h: &str| h.split(',').count();
            return Err(merge_err(format!(
                "schema mismatch: {} has {} but {} has {}; resume or re-run the older sweep with this gconv so that both have one schema",
                first.path.display(),
                schema_name(cols(&first.header)),
                other.path.display(),
                schema_name(cols(&other.header))
            )));
        }
    }
    // Identity → (input, line), to name both places of a duplicate.
    let mut seen: HashMap<(String, String, Option<DeviceTag>), (usize, usize)> = HashMap::new();
    for (f, input) in read.iter().enumerate() {
        for (i, row) in input.rows.iter().enumerate() {
            let line = i + 2;
            if let Some((g, other_line)) = seen.insert(row.identity(), (f, line)) {
                let on = row
                    .device
                    .as_ref()
                    .map(|d| format!(" on {d}"))
                    .unwrap_or_default();
                return Err(merge_err(format!(
                    "kernel {} on {}{on} is in {}:{other_line} and in {}:{line}; shards must not overlap (were two shards given the same index, or one sweep merged twice?)",
                    row.kernel,
                    row.problem,
                    read[g].path.display(),
                    input.path.display()
                )));
            }
        }
    }
    let mut text = String::new();
    text.push_str(&first.header);
    text.push('\n');
    let mut problems = BTreeSet::new();
    let mut devices = BTreeSet::new();
    for input in &read {
        for (line, row) in input.lines.iter().zip(&input.rows) {
            text.push_str(line);
            text.push('\n');
            problems.insert(row.problem.to_string());
            if let Some(d) = &row.device {
                devices.insert(d.clone());
            }
        }
    }
    // Messages: complete JSON lines of every input's messages file, in input order.
    let mut messages = String::new();
    let mut message_lines = 0usize;
    let mut any_messages = false;
    for input in &read {
        let m = messages_path(&input.path);
        if !m.exists() {
            continue;
        }
        any_messages = true;
        let body = std::fs::read_to_string(&m).map_err(|e| TuneError::io(&m, e))?;
        for l in body.lines() {
            if serde_json::from_str::<serde_json::Value>(l).is_ok_and(|v| v.is_object()) {
                messages.push_str(l);
                messages.push('\n');
                message_lines += 1;
            }
        }
    }
    write_atomic(output, &text)?;
    let out_messages = messages_path(output);
    if any_messages {
        write_atomic(&out_messages, &messages)?;
    } else if out_messages.exists() {
        // A messages file left by an earlier merge into this output would describe other rows.
        std::fs::remove_file(&out_messages).map_err(|e| TuneError::io(&out_messages, e))?;
    }
    Ok(MergeReport {
        output: output.to_path_buf(),
        inputs: read
            .iter()
            .map(|i| (i.path.clone(), i.rows.len()))
            .collect(),
        rows: read.iter().map(|i| i.rows.len()).sum(),
        problems: problems.len(),
        messages: message_lines,
        devices,
        columns: first.header.split(',').count(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::csv::{read_rows, CsvWriter, COLUMNS_V2};
    use crate::worker::{JobResult, Status};
    use gconv_problem::{DeviceSpec, Problem};

    const P1: &str = "fwd_bf16_n8_g4_c64_k64_i14x14_f3x3_s1x1_p1x1_d1x1";
    const P2: &str = "wgrad_f16_n2_g8_c8_k8_i33_f5_s2_p2_d2";

    fn row(kernel: &str, key: &str, device: Option<u32>) -> SweepRow {
        let p: Problem = key.parse().unwrap();
        let mut r = SweepRow::from_result(kernel, &p, &JobResult::ok(0.25, 1e-3, 1e-3));
        r.device = device.map(|index| DeviceTag {
            name: "NVIDIA H200".into(),
            index,
        });
        r
    }

    fn write(path: &Path, rows: &[SweepRow]) {
        let mut w = CsvWriter::create(path, DeviceSpec::H200).unwrap();
        for r in rows {
            w.write_row(r).unwrap();
        }
    }

    #[test]
    fn disjoint_shards_merge_into_one_csv_with_their_messages() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b, out) = (
            dir.path().join("s.shard-0-of-2.csv"),
            dir.path().join("s.shard-1-of-2.csv"),
            dir.path().join("s.csv"),
        );
        let mut failed =
            SweepRow::with_status("k2", &P1.parse().unwrap(), Status::Crashed, "boom".into());
        failed.device = row("k2", P1, Some(0)).device;
        write(&a, &[row("k1", P1, Some(0)), failed]);
        write(
            &b,
            &[row("k1", P2, Some(1)), row("cudnn:eng0", P2, Some(1))],
        );
        std::fs::write(
            messages_path(&a),
            "{\"kernel\":\"k2\",\"problem\":\"x\",\"status\":\"crashed\",\"message\":\"boom\"}\n{\"cut",
        )
        .unwrap();
        let r = merge_csvs(&[a.clone(), b.clone()], &out, false).unwrap();
        assert_eq!((r.rows, r.problems, r.messages), (4, 2, 1));
        assert_eq!(r.devices.len(), 2);
        assert_eq!(r.columns, COLUMNS.len());
        let rows = read_rows(&out).unwrap();
        let mut want = read_rows(&a).unwrap();
        want.extend(read_rows(&b).unwrap());
        assert_eq!(rows, want, "rows copied as they were, in input order");
        let m = std::fs::read_to_string(messages_path(&out)).unwrap();
        assert_eq!(m.lines().count(), 1, "the cut message line is dropped: {m}");
        // The output exists now: refused without overwrite, replaced with it.
        let e = merge_csvs(&[a.clone(), b.clone()], &out, false).unwrap_err();
        assert!(e.to_string().contains("--force"), "{e}");
        merge_csvs(&[a.clone(), b.clone()], &out, true).unwrap();
        // A `.gz` output is gzip, read back as the plain one.
        let gz = dir.path().join("s.csv.gz");
        merge_csvs(&[a.clone(), b.clone()], &gz, false).unwrap();
        assert_eq!(std::fs::read(&gz).unwrap()[..2], [0x1f, 0x8b]);
        assert_eq!(read_rows(&gz).unwrap(), want);
        // The same pair on two different devices is two rows, not a conflict.
        let c = dir.path().join("c.csv");
        write(&c, &[row("k1", P1, Some(1))]);
        let out2 = dir.path().join("m2.csv");
        assert_eq!(merge_csvs(&[a.clone(), c], &out2, false).unwrap().rows, 3);
    }

    #[test]
    fn duplicates_schema_mismatches_and_cut_files_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let p = |n: &str| dir.path().join(n);
        write(
            &p("a.csv"),
            &[row("k1", P1, Some(0)), row("k2", P1, Some(0))],
        );
        write(
            &p("b.csv"),
            &[row("k3", P2, Some(0)), row("k2", P1, Some(0))],
        );
        let e = merge_csvs(&[p("a.csv"), p("b.csv")], &p("o.csv"), false)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("a.csv:3") && e.contains("b.csv:3") && e.contains("k2"),
            "both places named: {e}"
        );
        assert!(!p("o.csv").exists(), "nothing written");
        // Within one file too.
        write(&p("d.csv"), &[row("k1", P1, None), row("k1", P1, None)]);
        let e = merge_csvs(&[p("d.csv")], &p("o.csv"), false).unwrap_err();
        assert!(e.to_string().contains("d.csv:2"), "{e}");
        // The same file twice, or the output among the inputs.
        let e = merge_csvs(&[p("a.csv"), p("a.csv")], &p("o.csv"), false).unwrap_err();
        assert!(e.to_string().contains("given twice"), "{e}");
        let e = merge_csvs(&[p("a.csv")], &p("a.csv"), true).unwrap_err();
        assert!(e.to_string().contains("also an input"), "{e}");
        // A file of the older schema.
        let mut cells = row("k9", P2, None).cells(&DeviceSpec::H200);
        cells.truncate(36);
        std::fs::write(
            p("old.csv"),
            format!("{}\n{}\n", COLUMNS_V2.join(","), cells.join(",")),
        )
        .unwrap();
        let e = merge_csvs(&[p("a.csv"), p("old.csv")], &p("o.csv"), false)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("schema mismatch") && e.contains("before the device columns"),
            "{e}"
        );
        // Two files of the older schema merge in it.
        std::fs::copy(p("old.csv"), p("old2.csv")).unwrap();
        let text = std::fs::read_to_string(p("old2.csv"))
            .unwrap()
            .replace("k9", "k8");
        std::fs::write(p("old2.csv"), text).unwrap();
        let r = merge_csvs(&[p("old.csv"), p("old2.csv")], &p("o.csv"), false).unwrap();
        assert_eq!((r.rows, r.columns), (2, 36));
        // A file cut by an interrupt.
        let full = std::fs::read(p("b.csv")).unwrap();
        std::fs::write(p("cut.csv"), &full[..full.len() - 5]).unwrap();
        let e = merge_csvs(&[p("a.csv"), p("cut.csv")], &p("o2.csv"), false)
            .unwrap_err()
            .to_string();
        assert!(e.contains("cut.csv") && e.contains("--resume"), "{e}");
        // Not a sweep CSV, an empty file, no input.
        std::fs::write(p("x.csv"), "a,b\n1,2\n").unwrap();
        assert!(merge_csvs(&[p("x.csv")], &p("o2.csv"), false).is_err());
        std::fs::write(p("e.csv"), "").unwrap();
        assert!(merge_csvs(&[p("e.csv")], &p("o2.csv"), false)
            .unwrap_err()
            .to_string()
            .contains("empty"));
        assert!(merge_csvs(&[], &p("o2.csv"), false).is_err());
        assert!(!p("o2.csv").exists());
    }
}
