//! The typed error of the tile engine. Expected outcomes of a sweep (a kernel that is rejected,
//! fails to compile, crashes, hangs or computes a wrong answer) are not errors: they are
//! [`crate::worker::Status`] values in CSV rows. `TuneError` is for input the engine cannot act
//! on (a bad config file, an unknown problem set, an unreadable CSV) and for I/O failures.

use crate::filter::FilterError;
use gconv_problem::ProblemError;
use std::path::PathBuf;
use thiserror::Error;

/// Every way a tile-engine operation can fail.
#[derive(Debug, Error)]
pub enum TuneError {
    /// A problem key or problems file is invalid.
    #[error(transparent)]
    Problem(#[from] ProblemError),
    /// `--problems` matched neither a registry key, nor a problem key, nor a readable file.
    #[error("cannot resolve problem set {spec:?}; tried: {}", tried.join("; "))]
    UnresolvedProblems {
        /// The spec as given.
        spec: String,
        /// What was tried, in order, each with why it did not match.
        tried: Vec<String>,
    },
    /// A `--problems` value that names a file (it contains `/` or ends with `.txt`) that does
    /// not exist.
    #[error("problems file {} not found\nhint: a problem set can also be a registry key or a problem key; `gconv problems` lists the registry keys", path.display())]
    ProblemsFileNotFound {
        /// The path as given.
        path: PathBuf,
    },
    /// A file could not be read or written. The OS reason is the error's source, not part of
    /// its message (an error chain printed with `{:#}` would show it twice).
    #[error("{}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A trait-config file is not valid JSON of the expected shape.
    #[error("{}: {message}", location(.path, *.line, *.column))]
    ConfigSyntax {
        /// The file.
        path: PathBuf,
        /// 1-based line (0 when unknown).
        line: usize,
        /// 1-based column (0 when unknown).
        column: usize,
        /// What serde said.
        message: String,
    },
    /// A field of a trait config is unknown or has values of the wrong type.
    #[error("{}: trait_config field {field:?}: {message}", location(.path, *.line, *.column))]
    ConfigField {
        /// The file.
        path: PathBuf,
        /// 1-based line of the field's key (0 when unknown).
        line: usize,
        /// 1-based column of the field's key (0 when unknown).
        column: usize,
        /// The field as written in the file.
        field: String,
        /// What is wrong with it.
        message: String,
    },
    /// A key of a trait config's top level (beside `trait_config`) is unknown or has a value
    /// of the wrong type.
    #[error("{}: top-level key {key:?}: {message}", location(.path, *.line, *.column))]
    ConfigKey {
        /// The file.
        path: PathBuf,
        /// 1-based line of the key (0 when unknown).
        line: usize,
        /// 1-based column of the key (0 when unknown).
        column: usize,
        /// The key as written in the file.
        key: String,
        /// What is wrong with it.
        message: String,
    },
    /// The `variant` of a trait config is not a direction (`fwd`/`forward`, ...).
    #[error("{}: \"variant\": {error}", path.display())]
    UnknownVariant {
        /// The file.
        path: PathBuf,
        /// Why the value is not a direction (it names the value and both spellings).
        error: ProblemError,
    },
    /// A trait config expands to no kernel at all.
    #[error(
        "{}: the config expands to no valid kernel ({total} combination(s), dropped: {dropped}){}",
        path.display(),
        hint.as_ref().map(|h| format!("\nhint: {h}")).unwrap_or_default()
    )]
    EmptyCatalogue {
        /// The file.
        path: PathBuf,
        /// Combinations in the cartesian product.
        total: usize,
        /// Drop counts by reason, already formatted.
        dropped: String,
        /// What would keep kernels (e.g. another `--arch`), when known.
        hint: Option<String>,
    },
    /// A filter expression is invalid or cannot be evaluated.
    #[error(transparent)]
    Filter(#[from] FilterError),
    /// `run_sweep` was given no kernel.
    #[error("the kernel list is empty: nothing to sweep")]
    NoKernels,
    /// `run_sweep` was given no problem.
    #[error("the problem list is empty: nothing to sweep")]
    NoProblems,
    /// A kernel name is neither a GPU kernel config nor a CPU variant.
    #[error("unknown kernel name {name:?}: {reason}")]
    UnknownKernel {
        /// The name as given.
        name: String,
        /// Why it did not parse.
        reason: String,
    },
    /// A sweep CSV has the wrong header.
    #[error("{}: not a gconv sweep CSV: {detail}; header is {found:?}, expected {expected:?}", path.display())]
    CsvHeader {
        /// The file.
        path: PathBuf,
        /// What differs: the columns missing and those not expected, or their order.
        detail: String,
        /// The header expected.
        expected: String,
        /// The header found.
        found: String,
    },
    /// A row of a sweep CSV is invalid.
    #[error("{}:{line}: column {column:?}: {message}", path.display())]
    CsvRow {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: u64,
        /// Column name.
        column: String,
        /// What is wrong.
        message: String,
    },
    /// A worker subprocess could not be started (the OS reason is the source).
    #[error("cannot start worker {program:?}")]
    WorkerSpawn {
        /// The program.
        program: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A worker received a line that is not a job, or could not write a reply.
    #[error("worker protocol error at input line {line}: {message}")]
    Protocol {
        /// 1-based input line (0 when not about an input line).
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// An invalid sweep option.
    #[error("invalid sweep option {option}: {message}")]
    Option {
        /// The option name.
        option: &'static str,
        /// What is wrong.
        message: String,
    },
    /// An output path that exists and is not a regular file (a device, a FIFO, a socket, a
    /// directory): writing would replace it or write into it.
    #[error("{}: the output is {kind}, not a regular file; choose a file path", path.display())]
    NotRegularFile {
        /// The path as given.
        path: PathBuf,
        /// What it is ("a character device", "a directory", ...).
        kind: &'static str,
    },
    /// An output that is the same file as the command's input (e.g. `kernels C.json
    /// --export-json C.json`).
    #[error("{}: the output is the input {} itself; writing would overwrite it, choose another file", output.display(), input.display())]
    OutputIsInput {
        /// The output as given.
        output: PathBuf,
        /// The input as given.
        input: PathBuf,
    },
    /// Sweep CSVs that cannot be merged (schema mismatch, duplicate or cut rows).
    #[error("cannot merge: {message}")]
    Merge {
        /// What is wrong, naming the files and lines.
        message: String,
    },
}

/// `path:line:column`, or just `path` when the position is unknown.
fn location(path: &std::path::Path, line: usize, column: usize) -> String {
    if line == 0 {
        path.display().to_string()
    } else {
        format!("{}:{line}:{column}", path.display())
    }
}

/// An error and its sources on one line, `outer: inner: ...` (what `anyhow`'s `{:#}` prints),
/// for callers that print a [`TuneError`] without `anyhow`.
pub fn chain_text(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cur = e.source();
    while let Some(s) = cur {
        text.push_str(": ");
        text.push_str(&s.to_string());
        cur = s.source();
    }
    text
}

impl TuneError {
    /// Wraps an I/O error with the path it concerns.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> TuneError {
        TuneError::Io {
            path: path.into(),
            source,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each I/O reason appears once in the chain: in the source, not also in the message.
    #[test]
    fn io_reasons_are_sources_not_repeated_in_the_message() {
        let os = || std::io::Error::from(std::io::ErrorKind::NotFound);
        let reason = os().to_string();
        for e in [
            TuneError::io("configs/traits/nosuch.json", os()),
            TuneError::WorkerSpawn {
                program: "no-such-worker".into(),
                source: os(),
            },
        ] {
            assert!(!e.to_string().contains(&reason), "{e}");
            let chain = chain_text(&e);
            assert_eq!(chain.matches(&reason).count(), 1, "{chain}");
        }
        assert_eq!(
            chain_text(&TuneError::io("configs/traits/nosuch.json", os())),
            format!("configs/traits/nosuch.json: {reason}")
        );
    }
}
