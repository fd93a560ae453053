//! The persistent compile cache: CUBINs and their ptxas reports, keyed by everything that
//! determines them.
//!
//! Location: `$GCONV_CACHE_DIR`, else `$XDG_CACHE_HOME/gconv`, else `~/.cache/gconv`.
//! Key: SHA-256 over the source text, the NVRTC version, the full NVRTC argument list and the
//! architecture. One file per entry, `<key>.gcubin`:
//!
//! ```text
//! magic "GCONVKC1" | u64 LE metadata length | u64 LE CUBIN length | metadata (JSON) | CUBIN
//! | SHA-256 of everything before it
//! ```
//!
//! A file whose length, magic, checksum, metadata or key does not match is treated as corrupt:
//! the kernel is recompiled and the entry replaced ([`CacheHit::Replaced`]). Writes go to a
//! temporary file in the same directory and are renamed into place, so readers never see a
//! partial entry.

use crate::error::CudaError;
use crate::nvrtc::{compile_cubin, nvrtc_version, CompileOptions, CompiledKernel, Resources};
use gconv_kernels::KernelSource;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

const MAGIC: &[u8; 8] = b"GCONVKC1";
const EXT: &str = "gcubin";
const HEADER: usize = 8 + 8 + 8;
const DIGEST: usize = 32;

/// How a [`compile_cached`] call was served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CacheHit {
    /// Read from a valid entry; nothing was compiled.
    Hit,
    /// No entry; compiled and stored.
    Miss,
    /// An entry existed but was corrupt (the reason says how); compiled and replaced.
    Replaced {
        /// Why the old entry was rejected.
        reason: String,
    },
    /// Compiled, but the entry could not be written (the reason says why).
    NotStored {
        /// The write error.
        reason: String,
    },
}

impl CacheHit {
    /// True when the result came from the cache without compiling.
    pub fn is_hit(&self) -> bool {
        matches!(self, CacheHit::Hit)
    }
}

/// The cache directory: `$GCONV_CACHE_DIR`, else `$XDG_CACHE_HOME/gconv`, else `~/.cache/gconv`
/// (empty variables count as unset). The directory need not exist yet.
pub fn cache_dir() -> Result<PathBuf, CudaError> {
    let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
    if let Some(d) = var("GCONV_CACHE_DIR") {
        return Ok(PathBuf::from(d));
    }
    if let Some(d) = var("XDG_CACHE_HOME") {
        return Ok(PathBuf::from(d).join("gconv"));
    }
    if let Some(h) = var("HOME") {
        return Ok(PathBuf::from(h).join(".cache").join("gconv"));
    }
    Err(CudaError::NoCacheDir)
}

/// The cache key (64 hex digits) of a source compiled with `opts` by NVRTC `nvrtc`.
pub fn cache_key(src: &KernelSource, opts: &CompileOptions, nvrtc: (i32, i32)) -> String {
    let mut h = Sha256::new();
    h.update(b"gconv compile cache v1\n");
    h.update(format!("nvrtc {}.{}\n", nvrtc.0, nvrtc.1).as_bytes());
    h.update(format!("arch {}\n", src.arch.nvrtc_arch()).as_bytes());
    for a in opts.args(src.arch) {
        h.update(format!("opt {}\n", a.len()).as_bytes());
        h.update(a.as_bytes());
    }
    h.update(format!("source {}\n", src.code.len()).as_bytes());
    h.update(src.code.as_bytes());
    hex(&h.finalize())
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Metadata stored next to the CUBIN.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Meta {
    key: String,
    kernel_name: String,
    arch: String,
    nvrtc: (i32, i32),
    /// `f64::to_bits` of the compile time (JSON floats need not round-trip exactly).
    compile_ms_bits: u64,
    log: String,
    resources: Vec<(String, Resources)>,
}

fn encode(meta: &Meta, cubin: &[u8]) -> Vec<u8> {
    // Serialising plain strings and numbers cannot fail; fall back to an empty object that
    // the reader rejects as corrupt rather than panicking.
    let m = serde_json::to_vec(meta).unwrap_or_default();
    let mut out = Vec::with_capacity(HEADER + m.len() + cubin.len() + DIGEST);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(m.len() as u64).to_le_bytes());
    out.extend_from_slice(&(cubin.len() as u64).to_le_bytes());
    out.extend_from_slice(&m);
    out.extend_from_slice(cubin);
    let d = Sha256::digest(&out);
    out.extend_from_slice(&d);
    out
}

fn decode(bytes: &[u8], key: &str) -> Result<(Meta, Vec<u8>), String> {
    if bytes.len() < HEADER + DIGEST {
        return Err(format!("truncated ({} bytes)", bytes.len()));
    }
    if &bytes[..8] != MAGIC {
        return Err("bad magic".to_string());
    }
    let u = |i: usize| {
        let mut a = [0u8; 8];
        a.copy_from_slice(&bytes[i..i + 8]);
        u64::from_le_bytes(a)
    };
    let (mlen, clen) = (u(8), u(16));
    let expected = (HEADER as u64)
        .checked_add(mlen)
        .and_then(|x| x.checked_add(clen))
        .and_then(|x| x.checked_add(DIGEST as u64));
    if expected != Some(bytes.len() as u64) {
        return Err(format!(
            "length {} does not match header (metadata {mlen}, cubin {clen})",
            bytes.len()
        ));
    }
    let body = bytes.len() - DIGEST;
    if Sha256::digest(&bytes[..body]).as_slice() != &bytes[body..] {
        return Err("checksum mismatch".to_string());
    }
    let mend = HEADER + mlen as usize;
    let meta: Meta =
        serde_json::from_slice(&bytes[HEADER..mend]).map_err(|e| format!("bad metadata: {e}"))?;
    if meta.key != key {
        return Err(format!("entry holds key {} instead", meta.key));
    }
    Ok((meta, bytes[mend..body].to_vec()))
}

fn entry_path(dir: &Path, key: &str) -> PathBuf {
    dir.join(format!("{key}.{EXT}"))
}

fn io_err(op: &'static str, path: &Path, e: std::io::Error) -> CudaError {
    CudaError::CacheIo {
        op,
        path: path.display().to_string(),
        message: e.to_string(),
    }
}

/// Writes `bytes` to `path` atomically (temporary file in the same directory, then rename).
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), CudaError> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(|e| io_err("create", dir, e))?;
    let name = path
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(
        ".{name}.{}.{}.tmp",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let res = (|| {
        let mut f = fs::File::create(&tmp).map_err(|e| io_err("create", &tmp, e))?;
        f.write_all(bytes).map_err(|e| io_err("write", &tmp, e))?;
        f.sync_all().map_err(|e| io_err("sync", &tmp, e))?;
        fs::rename(&tmp, path).map_err(|e| io_err("rename", path, e))
    })();
    if res.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    res
}

/// [`compile_cached_in`] with the default [`cache_dir`].
pub fn compile_cached(
    src: &KernelSource,
    opts: &CompileOptions,
) -> Result<(CompiledKernel, CacheHit), CudaError> {
    compile_cached_in(&cache_dir()?, src, opts)
}

/// Compiles through the cache in `dir`: a valid entry is returned without compiling; a missing
/// or corrupt one is compiled and (re)written. A failed compilation is not cached. A failure
/// to write the entry does not fail the call ([`CacheHit::NotStored`]).
pub fn compile_cached_in(
    dir: &Path,
    src: &KernelSource,
    opts: &CompileOptions,
) -> Result<(CompiledKernel, CacheHit), CudaError> {
    let nvrtc = nvrtc_version()?;
    let key = cache_key(src, opts, nvrtc);
    let path = entry_path(dir, &key);
    let mut replaced = None;
    match fs::read(&path) {
        Ok(bytes) => match decode(&bytes, &key) {
            Ok((meta, cubin)) => {
                return Ok((
                    CompiledKernel {
                        cubin,
                        log: meta.log,
                        compile_ms: f64::from_bits(meta.compile_ms_bits),
                        resources: meta.resources,
                    },
                    CacheHit::Hit,
                ))
            }
            Err(reason) => replaced = Some(reason),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => replaced = Some(format!("unreadable: {e}")),
    }
    let k = compile_cubin(src, opts)?;
    let meta = Meta {
        key: key.clone(),
        kernel_name: src.kernel_name.clone(),
        arch: src.arch.to_string(),
        nvrtc,
        compile_ms_bits: k.compile_ms.to_bits(),
        log: k.log.clone(),
        resources: k.resources.clone(),
    };
    let hit = match write_atomic(&path, &encode(&meta, &k.cubin)) {
        Err(e) => CacheHit::NotStored {
            reason: e.to_string(),
        },
        Ok(()) => match replaced {
            Some(reason) => CacheHit::Replaced { reason },
            None => CacheHit::Miss,
        },
    };
    Ok((k, hit))
}

fn entries(dir: &Path) -> Result<Vec<(PathBuf, u64)>, CudaError> {
    let rd = match fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io_err("list", dir, e)),
    };
    let mut v = Vec::new();
    for ent in rd {
        let ent = ent.map_err(|e| io_err("list", dir, e))?;
        let p = ent.path();
        let name = ent.file_name().to_string_lossy().into_owned();
        let ours = (name.ends_with(&format!(".{EXT}")) && !name.starts_with('.'))
            || (name.starts_with('.')
                && name.ends_with(".tmp")
                && name.contains(&format!(".{EXT}.")));
        if ours {
            let len = ent.metadata().map(|m| m.len()).unwrap_or(0);
            v.push((p, len));
        }
    }
    Ok(v)
}

/// (entries, bytes) in the default cache directory (0, 0 when it does not exist).
pub fn cache_stats() -> Result<(u64, u64), CudaError> {
    cache_stats_in(&cache_dir()?)
}

/// (entries, bytes) in `dir`; leftover temporary files count as bytes, not entries.
pub fn cache_stats_in(dir: &Path) -> Result<(u64, u64), CudaError> {
    let e = entries(dir)?;
    let n = e
        .iter()
        .filter(|(p, _)| p.extension().is_some_and(|x| x == EXT))
        .count() as u64;
    Ok((n, e.iter().map(|(_, l)| l).sum()))
}

/// Removes every cache file from the default cache directory; returns how many were removed.
pub fn clear_cache() -> Result<u64, CudaError> {
    clear_cache_in(&cache_dir()?)
}

/// Removes the cache's own files (entries and leftover temporaries) from `dir`, nothing else.
pub fn clear_cache_in(dir: &Path) -> Result<u64, CudaError> {
    let mut n = 0;
    for (p, _) in entries(dir)? {
        match fs::remove_file(&p) {
            Ok(()) => n += 1,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(io_err("remove", &p, e)),
        }
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use gconv_kernels::{Arch, KernelSource};

    fn meta(key: &str) -> Meta {
        Meta {
            key: key.to_string(),
            kernel_name: "k".into(),
            arch: "sm_90".into(),
            nvrtc: (13, 0),
            compile_ms_bits: 12.345f64.to_bits(),
            log: "ptxas info".into(),
            resources: vec![(
                "e".into(),
                Resources {
                    regs: 40,
                    ..Default::default()
                },
            )],
        }
    }

    #[test]
    fn format_round_trips_and_detects_damage() {
        let cubin: Vec<u8> = (0..=255u8).cycle().take(3000).collect();
        let bytes = encode(&meta("abc"), &cubin);
        let (m, c) = decode(&bytes, "abc").unwrap();
        assert_eq!(m, meta("abc"));
        assert_eq!(c, cubin);
        // Truncation at every interesting point.
        for cut in [0, 7, 23, 40, bytes.len() - 33, bytes.len() - 1] {
            assert!(decode(&bytes[..cut], "abc").is_err(), "cut {cut}");
        }
        // A flipped bit anywhere.
        for i in [0, 9, 30, bytes.len() / 2, bytes.len() - 1] {
            let mut b = bytes.clone();
            b[i] ^= 0x10;
            assert!(decode(&b, "abc").is_err(), "flip {i}");
        }
        // Right file, wrong key.
        assert!(decode(&bytes, "abd").unwrap_err().contains("key"));
    }

    #[test]
    fn key_covers_source_options_version_and_arch() {
        let src = KernelSource {
            kernel_name: "k".into(),
            code: "x".into(),
            arch: Arch::Sm90,
            launches: vec![],
            workspace_bytes: 0,
        };
        let o = CompileOptions::default();
        let k = cache_key(&src, &o, (13, 0));
        assert_eq!(k.len(), 64);
        assert_eq!(k, cache_key(&src, &o, (13, 0)));
        assert_ne!(k, cache_key(&src, &o, (13, 1)));
        let mut s2 = src.clone();
        s2.code.push(' ');
        assert_ne!(k, cache_key(&s2, &o, (13, 0)));
        let mut s3 = src.clone();
        s3.arch = Arch::Sm90a;
        assert_ne!(k, cache_key(&s3, &o, (13, 0)));
        let o2 = CompileOptions {
            max_registers: Some(128),
            ..Default::default()
        };
        assert_ne!(k, cache_key(&src, &o2, (13, 0)));
        // The kernel name and launches do not change the CUBIN, so they are not in the key.
        let mut s4 = src.clone();
        s4.kernel_name = "other".into();
        assert_eq!(k, cache_key(&s4, &o, (13, 0)));
    }

    #[test]
    fn atomic_write_stats_and_clear() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("nested");
        assert_eq!(cache_stats_in(&sub).unwrap(), (0, 0));
        write_atomic(&entry_path(&sub, "aa"), b"hello").unwrap();
        write_atomic(&entry_path(&sub, "bb"), b"worlds").unwrap();
        fs::write(sub.join("unrelated.txt"), b"keep me").unwrap();
        assert_eq!(cache_stats_in(&sub).unwrap(), (2, 11));
        assert_eq!(clear_cache_in(&sub).unwrap(), 2);
        assert_eq!(cache_stats_in(&sub).unwrap(), (0, 0));
        assert!(sub.join("unrelated.txt").exists());
    }
}
