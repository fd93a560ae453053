//! Standard output and standard error for the commands, such that a reader that goes away
//! (`gconv decide … | head -1`, `gconv sweep … 2>&1 | head`) ends the printing and not the
//! work: a command goes on to save what it computed (decisions, a model, CSV rows) and exits as
//! it would have. Only `gconv worker` writes its protocol to the raw standard output.

use std::io::{ErrorKind, StdoutLock, Write};

/// Standard output, locked; after the first broken-pipe error every write is dropped.
pub struct Out {
    inner: StdoutLock<'static>,
    closed: bool,
}

/// The commands' standard output (see the module documentation).
pub fn stdout() -> Out {
    Out {
        inner: std::io::stdout().lock(),
        closed: false,
    }
}

impl Out {
    /// `r`, or `dropped` once the reader has gone (and every later write is dropped).
    fn guard<T>(&mut self, r: std::io::Result<T>, dropped: T) -> std::io::Result<T> {
        match r {
            Err(e) if e.kind() == ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(dropped)
            }
            r => r,
        }
    }
}

impl Write for Out {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.closed {
            return Ok(buf.len());
        }
        let r = self.inner.write(buf);
        self.guard(r, buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if self.closed {
            return Ok(());
        }
        let r = self.inner.flush();
        self.guard(r, ())
    }
}

/// `eprintln!` that drops what a closed standard error cannot take (`eprintln!` panics).
macro_rules! note {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($t)*);
    }};
}
pub(crate) use note;
