//! Output files: refusing a target that is not a regular file, and writing a whole file
//! atomically.
//!
//! Every command that writes a file (sweep and bench CSVs and their messages files, `merge`,
//! `kernels --export-json`, the decision cache, `train --uncovered`) checks its target with
//! [`check_output_file`] first: a device (`/dev/null`, `/dev/full`), a FIFO, a socket or a
//! directory is refused by name, so that a rename never replaces a device node and no
//! `/dev/null.messages.jsonl` is created next to one. [`write_atomic`] writes through a
//! temporary file in the target's directory and renames it into place, so a failed write
//! (a full disk) leaves an existing target as it was and no temporary file behind.
//!
//! Inputs (problem files, trait configs, CSVs) are read by [`read_input`]: a device
//! (`/dev/zero` would be read until memory runs out), a socket or a directory is refused by
//! name, and no input is read past [`MAX_INPUT_BYTES`] (a FIFO, as process substitution gives,
//! is read up to that).

use crate::error::TuneError;
use std::io::Write;
use std::path::Path;

/// What a file that is not a regular file is, for messages.
fn kind(ft: std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if ft.is_dir() {
        "a directory"
    } else if ft.is_char_device() {
        "a character device"
    } else if ft.is_block_device() {
        "a block device"
    } else if ft.is_fifo() {
        "a FIFO (named pipe)"
    } else if ft.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    }
}

/// Refuses an output `path` that exists and is not a regular file (after symbolic links):
/// a device, a FIFO, a socket or a directory. A path that does not exist yet is fine.
pub fn check_output_file(path: &Path) -> Result<(), TuneError> {
    match std::fs::metadata(path) {
        Ok(m) if !m.is_file() => Err(TuneError::NotRegularFile {
            path: path.to_path_buf(),
            kind: kind(m.file_type()),
        }),
        _ => Ok(()),
    }
}

/// Writes `bytes` to `path` through a temporary file in the same directory
/// (`.NAME.PID.tmp`) and a rename, after [`check_output_file`]; on any failure the temporary
/// file is removed and an existing `path` is left as it was.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), TuneError> {
    write_atomic_with(path, |f| f.write_all(bytes))
}

/// [`write_atomic`] with the contents written by `fill` into the temporary file.
pub fn write_atomic_with(
    path: &Path,
    fill: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>,
) -> Result<(), TuneError> {
    check_output_file(path)?;
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "output".into());
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let r = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        fill(&mut f)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if let Err(e) = r {
        let _ = std::fs::remove_file(&tmp);
        return Err(TuneError::io(path, e));
    }
    Ok(())
}

/// The most bytes an input file is read to (the largest oracle CSV, uncompressed, is tens of
/// MB).
pub const MAX_INPUT_BYTES: u64 = 2 << 30;

/// The bytes of the input file `path`, refusing a device, a socket or a directory and a file
/// longer than [`MAX_INPUT_BYTES`] with an [`std::io::ErrorKind::InvalidInput`] error that
/// says which (a missing file is [`std::io::ErrorKind::NotFound`], as `std::fs::read` says).
pub fn read_input(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let m = std::fs::metadata(path)?;
    let ft = m.file_type();
    {
        use std::os::unix::fs::FileTypeExt;
        if !(ft.is_file() || ft.is_fifo()) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("{}, not a file to read", kind(ft)),
            ));
        }
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!(
                "longer than {} GiB, more than any input gconv reads",
                MAX_INPUT_BYTES >> 30
            ),
        ));
    }
    Ok(bytes)
}

/// [`read_input`] as UTF-8 text ([`std::io::ErrorKind::InvalidData`] when it is not).
pub fn read_input_string(path: &Path) -> std::io::Result<String> {
    String::from_utf8(read_input(path)?).map_err(|e| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("not UTF-8 text: {e}"),
        )
    })
}

#[cfg(test)]
mod tests {

    #[test]
    fn inputs_that_are_devices_or_directories_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let e = read_input(dir.path()).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput);
        assert!(e.to_string().contains("a directory"), "{e}");
        let e = read_input(Path::new("/dev/zero")).unwrap_err();
        assert!(e.to_string().contains("a character device"), "{e}");
        let missing = read_input(&dir.path().join("none")).unwrap_err();
        assert_eq!(missing.kind(), std::io::ErrorKind::NotFound);
        let f = dir.path().join("keys.txt");
        std::fs::write(&f, "a\n").unwrap();
        assert_eq!(read_input_string(&f).unwrap(), "a\n");
        std::fs::write(&f, [0xff, 0xfe]).unwrap();
        assert_eq!(
            read_input_string(&f).unwrap_err().kind(),
            std::io::ErrorKind::InvalidData
        );
    }
    use super::*;

    #[test]
    fn special_files_are_refused_by_kind_and_regular_files_replaced_atomically() {
        let dir = tempfile::tempdir().unwrap();
        let e = check_output_file(dir.path()).unwrap_err().to_string();
        assert!(e.contains("is a directory, not a regular file"), "{e}");
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            let e = write_atomic(&fifo, b"x").unwrap_err().to_string();
            assert!(e.contains("FIFO"), "{e}");
            let ft = std::fs::symlink_metadata(&fifo).unwrap().file_type();
            assert!(std::os::unix::fs::FileTypeExt::is_fifo(&ft));
        }
        let out = dir.path().join("out.json");
        check_output_file(&out).unwrap();
        write_atomic(&out, b"one").unwrap();
        write_atomic(&out, b"two").unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), b"two");
        // A failed write keeps the old file and leaves no temporary file behind.
        let e = write_atomic_with(&out, |_| Err(std::io::Error::other("disk full")));
        assert!(e.is_err());
        assert_eq!(std::fs::read(&out).unwrap(), b"two");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert!(
            names.iter().all(|n| !n.to_string_lossy().ends_with(".tmp")),
            "{names:?}"
        );
    }
}
