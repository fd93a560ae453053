//! Progress of long jobs (sweeps and benches, `gconv cache build`): an indicatif bar when stderr
//! is a terminal; otherwise (a log file, a device machine's captured output, a batch job) one
//! plain line on stderr at every tenth of the steps and at least once a minute, from ten seconds
//! in, so that a long run that nobody watches live still shows in its log that it advances and
//! roughly when it ends (a short one prints none).

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The longest stretch without a plain progress line while steps complete.
const PLAIN_EVERY: Duration = Duration::from_secs(60);

/// No plain line before this much time has passed: a short job's log stays as it was.
const PLAIN_AFTER: Duration = Duration::from_secs(10);

/// The progress of `total` steps; see the module documentation.
pub struct Progress {
    bar: ProgressBar,
    plain: Option<Plain>,
}

/// The plain-line state: steps done, the last tenth printed and when the last line went out
/// (milliseconds since the start).
struct Plain {
    total: u64,
    what: &'static str,
    start: Instant,
    done: AtomicU64,
    tenth: AtomicU64,
    last_ms: AtomicU64,
}

impl Progress {
    /// `total` steps of `what` (a plural noun: "rows", "modules"); nothing is shown unless
    /// `visible`.
    pub fn new(total: u64, visible: bool, what: &'static str) -> Progress {
        let terminal = std::io::stderr().is_terminal();
        let bar = if visible && terminal {
            ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr())
        } else {
            ProgressBar::hidden()
        };
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} (eta {eta}) {msg}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        let plain = (visible && !terminal && total > 0).then(|| Plain {
            total,
            what,
            start: Instant::now(),
            done: AtomicU64::new(0),
            tenth: AtomicU64::new(0),
            last_ms: AtomicU64::new(0),
        });
        Progress { bar, plain }
    }

    /// `n` more steps done.
    pub fn inc(&self, n: u64) {
        self.bar.inc(n);
        if let Some(p) = &self.plain {
            if let Some(line) = p.advance(n) {
                // A closed standard error (`… 2>&1 | head`) ends the lines, not the work
                // (`eprintln!` would panic).
                let _ = writeln!(std::io::stderr(), "{line}");
            }
        }
    }

    /// The bar's message (the step under way); plain lines do not show it.
    pub fn set_message(&self, msg: String) {
        self.bar.set_message(msg);
    }

    /// Removes the bar (a terminal); plain lines stay in the log.
    pub fn finish_and_clear(&self) {
        self.bar.finish_and_clear();
    }
}

impl Plain {
    /// The line to print after `n` more steps, if one is due (from [`PLAIN_AFTER`] on): the
    /// first step into a new tenth of the total, or a minute after the last line.
    fn advance(&self, n: u64) -> Option<String> {
        let done = self.done.fetch_add(n, Ordering::Relaxed) + n;
        let elapsed = self.start.elapsed();
        let ms = elapsed.as_millis() as u64;
        let tenth = (done.min(self.total) * 10) / self.total;
        let new_tenth = tenth > self.tenth.fetch_max(tenth, Ordering::Relaxed);
        if elapsed < PLAIN_AFTER {
            return None;
        }
        let last = self.last_ms.load(Ordering::Relaxed);
        let stale = ms.saturating_sub(last) >= PLAIN_EVERY.as_millis() as u64;
        // One thread wins the right to print for this moment.
        if !(new_tenth || stale)
            || self
                .last_ms
                .compare_exchange(last, ms.max(1), Ordering::Relaxed, Ordering::Relaxed)
                .is_err()
        {
            return None;
        }
        Some(self.line(done, elapsed))
    }

    fn line(&self, done: u64, elapsed: Duration) -> String {
        let done = done.min(self.total);
        let secs = elapsed.as_secs_f64();
        let left = if done > 0 && done < self.total {
            format!(
                ", about {:.0} s left",
                secs * (self.total - done) as f64 / done as f64
            )
        } else {
            String::new()
        };
        format!(
            "progress: {done} of {} {} ({:.0} %) in {secs:.0} s{left}",
            self.total,
            self.what,
            100.0 * done as f64 / self.total as f64
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A plain state whose run began `ago` earlier.
    fn plain(total: u64, ago: Duration) -> Plain {
        Plain {
            total,
            what: "rows",
            start: Instant::now() - ago,
            done: AtomicU64::new(0),
            tenth: AtomicU64::new(0),
            last_ms: AtomicU64::new(0),
        }
    }

    #[test]
    fn a_plain_line_at_every_tenth_and_not_between() {
        let p = plain(100, Duration::from_secs(20));
        let lines: Vec<String> = (0..100).filter_map(|_| p.advance(1)).collect();
        assert_eq!(lines.len(), 10, "{lines:?}");
        assert!(
            lines[0].starts_with("progress: 10 of 100 rows (10 %) in "),
            "{lines:?}"
        );
        assert!(lines[0].contains("s left"), "{lines:?}");
        assert!(
            lines[9].starts_with("progress: 100 of 100 rows (100 %)"),
            "{lines:?}"
        );
        assert!(!lines[9].contains("left"), "{lines:?}");
    }

    #[test]
    fn a_plain_line_after_a_minute_without_one() {
        let p = plain(1000, Duration::from_secs(61));
        // The last line went out at the start, over a minute ago.
        p.last_ms.store(1, Ordering::Relaxed);
        let line = p.advance(1).expect("a minute without a line");
        assert!(
            line.starts_with("progress: 1 of 1000 rows (0 %) in 61 s"),
            "{line}"
        );
        assert!(p.advance(1).is_none(), "the next within the minute");
    }

    #[test]
    fn no_plain_line_in_the_first_seconds() {
        let p = plain(10, Duration::ZERO);
        assert!((0..10).all(|_| p.advance(1).is_none()));
    }
}
