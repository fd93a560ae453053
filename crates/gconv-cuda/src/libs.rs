//! Finding the CUDA libraries without `LD_LIBRARY_PATH`.
//!
//! cudarc opens `libcuda.so.1`, `libnvrtc.so.13` and `libcudnn.so.9` by name, so the dynamic
//! loader's own search (`LD_LIBRARY_PATH`, the `ldconfig` cache) decides what loads. A user's
//! machine often has them elsewhere: CUDA in `$CUDA_HOME/lib64` or `/usr/local/cuda/lib64`,
//! NVRTC and cuDNN in the `nvidia-*` wheels that PyTorch installs
//! (`site-packages/nvidia/cu13/lib`, `site-packages/nvidia/cudnn/lib`). [`preload`] opens a
//! library once, before cudarc asks for it: first by its name (the loader's search, so an
//! explicit `LD_LIBRARY_PATH` still wins), then from each folder of [`search_dirs`] by full
//! path, global and never closed. cudarc's later `dlopen` of the same soname then finds the
//! library already loaded.
//!
//! The folders, in order: `GCONV_CUDA_LIB_DIRS` (`:`-separated), folders a caller added
//! ([`add_search_dirs`]: the Python package adds the `nvidia/*/lib` folders of its `sys.path`),
//! `$CUDA_HOME`/`$CUDA_PATH` (`lib64`, `lib`), `/usr/local/cuda/lib64`, and the `nvidia/*/lib`
//! folders of an active virtual environment (`$VIRTUAL_ENV`). When nothing is found, the error
//! names the library and every folder looked in.

use std::ffi::{c_int, CString};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// A library of the CUDA stack that gconv opens at run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CudaLib {
    /// The driver API (`libcuda.so.1`), installed with the NVIDIA driver.
    Driver,
    /// The runtime compiler (`libnvrtc.so.13`).
    Nvrtc,
    /// cuDNN 9 (`libcudnn.so.9`), for the vendor baseline and dispatch.
    Cudnn,
}

impl CudaLib {
    /// The soname gconv asks for.
    pub fn soname(self) -> &'static str {
        match self {
            CudaLib::Driver => "libcuda.so.1",
            CudaLib::Nvrtc => "libnvrtc.so.13",
            CudaLib::Cudnn => "libcudnn.so.9",
        }
    }
}

fn extra_dirs() -> &'static Mutex<Vec<PathBuf>> {
    static EXTRA: OnceLock<Mutex<Vec<PathBuf>>> = OnceLock::new();
    EXTRA.get_or_init(|| Mutex::new(Vec::new()))
}

/// Adds folders to look in (after `GCONV_CUDA_LIB_DIRS`, before `CUDA_HOME`); takes effect for
/// libraries not loaded yet.
pub fn add_search_dirs<I: IntoIterator<Item = PathBuf>>(dirs: I) {
    let mut extra = extra_dirs().lock().unwrap_or_else(|e| e.into_inner());
    for d in dirs {
        if !extra.contains(&d) {
            extra.push(d);
        }
    }
}

/// The `nvidia/*/lib` folders of a `site-packages` folder (the CUDA wheels' layout).
pub fn wheel_lib_dirs(site_packages: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(rd) = std::fs::read_dir(site_packages.join("nvidia")) {
        let mut subs: Vec<PathBuf> = rd
            .filter_map(|e| e.ok().map(|e| e.path().join("lib")))
            .collect();
        subs.sort();
        out.extend(subs.into_iter().filter(|p| p.is_dir()));
    }
    out
}

fn venv_dirs(venv: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(rd) = std::fs::read_dir(venv.join("lib")) {
        let mut pys: Vec<PathBuf> = rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("python"))
            })
            .collect();
        pys.sort();
        for py in pys {
            out.extend(wheel_lib_dirs(&py.join("site-packages")));
        }
    }
    out
}

/// Every folder [`preload`] looks in, in order (see the module documentation), without
/// duplicates; folders that do not exist are kept, so that an error can name them.
pub fn search_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    if let Some(v) = std::env::var_os("GCONV_CUDA_LIB_DIRS") {
        dirs.extend(std::env::split_paths(&v).filter(|p| !p.as_os_str().is_empty()));
    }
    dirs.extend(
        extra_dirs()
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .cloned(),
    );
    for var in ["CUDA_HOME", "CUDA_PATH"] {
        if let Some(root) = std::env::var_os(var).filter(|v| !v.is_empty()) {
            let root = PathBuf::from(root);
            dirs.push(root.join("lib64"));
            dirs.push(root.join("lib"));
        }
    }
    dirs.push(PathBuf::from("/usr/local/cuda/lib64"));
    if let Some(v) = std::env::var_os("VIRTUAL_ENV").filter(|v| !v.is_empty()) {
        dirs.extend(venv_dirs(Path::new(&v)));
    }
    let mut seen = std::collections::HashSet::new();
    dirs.retain(|d| seen.insert(d.clone()));
    dirs
}

/// Where a library came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Found {
    /// The dynamic loader's own search found it by name.
    ByName,
    /// Opened from this file.
    At(PathBuf),
}

/// Opens `path` (a soname or a file) with `RTLD_NOW | RTLD_GLOBAL`; the handle is never
/// closed, so the library stays loaded for the process. Returns whether it opened.
fn dlopen_global(path: &str) -> bool {
    const RTLD_NOW: c_int = 2;
    const RTLD_GLOBAL: c_int = 0x100;
    extern "C" {
        fn dlopen(filename: *const std::ffi::c_char, flag: c_int) -> *mut std::ffi::c_void;
    }
    let Ok(c) = CString::new(path) else {
        return false;
    };
    // SAFETY: `c` is a NUL-terminated string that lives across the call; dlopen only reads it.
    // Opening a CUDA library runs its initialisers, which have no effect on this process's
    // state beyond loading it; the handle is deliberately leaked (the library stays loaded).
    let handle = unsafe { dlopen(c.as_ptr(), RTLD_NOW | RTLD_GLOBAL) };
    !handle.is_null()
}

fn loaded() -> &'static Mutex<std::collections::HashMap<CudaLib, Found>> {
    static LOADED: OnceLock<Mutex<std::collections::HashMap<CudaLib, Found>>> = OnceLock::new();
    LOADED.get_or_init(|| Mutex::new(std::collections::HashMap::new()))
}

/// Makes `lib` loadable by its soname for the rest of the process (see the module
/// documentation). On failure returns every folder looked in, for the error message. A
/// success is remembered; a failure is tried again on the next call (a caller may have added
/// folders since).
pub fn preload(lib: CudaLib) -> Result<Found, Vec<PathBuf>> {
    let mut done = loaded().lock().unwrap_or_else(|e| e.into_inner());
    if let Some(f) = done.get(&lib) {
        return Ok(f.clone());
    }
    let found = if dlopen_global(lib.soname()) {
        Some(Found::ByName)
    } else {
        search_dirs()
            .into_iter()
            .map(|d| d.join(lib.soname()))
            .find(|f| f.is_file() && f.to_str().is_some_and(dlopen_global))
            .map(Found::At)
    };
    match found {
        Some(f) => {
            done.insert(lib, f.clone());
            Ok(f)
        }
        None => Err(search_dirs()),
    }
}

/// The file `lib` was loaded from, for error messages: the path [`preload`] opened, or, when
/// the loader's search found it by name, the file the loader picked (from `dlinfo`); "the
/// loader's search" when that cannot be told, "nowhere (not loaded)" before a preload.
pub fn location(lib: CudaLib) -> String {
    let found = loaded()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(&lib)
        .cloned();
    match found {
        Some(Found::At(p)) => p.display().to_string(),
        Some(Found::ByName) => loaded_path(lib.soname()).unwrap_or_else(|| {
            "the loader's search (LD_LIBRARY_PATH, the ldconfig cache)".to_string()
        }),
        None => "nowhere (not loaded)".to_string(),
    }
}

/// The file of an already loaded library `soname`, from the loader's link map.
fn loaded_path(soname: &str) -> Option<String> {
    const RTLD_NOW: c_int = 2;
    const RTLD_NOLOAD: c_int = 4;
    const RTLD_DI_LINKMAP: c_int = 2;
    #[repr(C)]
    struct LinkMap {
        _l_addr: usize,
        l_name: *const std::ffi::c_char,
    }
    extern "C" {
        fn dlopen(filename: *const std::ffi::c_char, flag: c_int) -> *mut std::ffi::c_void;
        fn dlinfo(
            handle: *mut std::ffi::c_void,
            request: c_int,
            info: *mut std::ffi::c_void,
        ) -> c_int;
    }
    let c = CString::new(soname).ok()?;
    // SAFETY: `c` is NUL-terminated and outlives the call; RTLD_NOLOAD only returns a handle
    // to a library that is already loaded (loading nothing), and the extra reference it takes
    // is leaked like every handle of this module.
    let handle = unsafe { dlopen(c.as_ptr(), RTLD_NOW | RTLD_NOLOAD) };
    if handle.is_null() {
        return None;
    }
    let mut map: *const LinkMap = std::ptr::null();
    // SAFETY: `handle` is a live handle; RTLD_DI_LINKMAP writes a `struct link_map *` into
    // `map`, whose first two fields (glibc's layout) are the load address and the file name,
    // a NUL-terminated string owned by the loader that lives while the library is loaded.
    let rc = unsafe {
        dlinfo(
            handle,
            RTLD_DI_LINKMAP,
            (&mut map as *mut *const LinkMap).cast(),
        )
    };
    if rc != 0 || map.is_null() {
        return None;
    }
    // SAFETY: `map` points at the loader's link map entry (see above).
    let name = unsafe { (*map).l_name };
    if name.is_null() {
        return None;
    }
    // SAFETY: `l_name` is a NUL-terminated string owned by the loader (see above).
    let name = unsafe { std::ffi::CStr::from_ptr(name) }
        .to_string_lossy()
        .into_owned();
    (!name.is_empty()).then_some(name)
}

/// "the loader's search (LD_LIBRARY_PATH, ldconfig) and A, B, …": the places [`preload`]
/// looked in, for error messages.
pub fn describe_search(dirs: &[PathBuf]) -> String {
    let mut s = String::from("the loader's search (LD_LIBRARY_PATH, the ldconfig cache)");
    for d in dirs {
        s.push_str(", ");
        s.push_str(&d.display().to_string());
    }
    s.push_str("; GCONV_CUDA_LIB_DIRS adds folders");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wheel_dirs_are_the_nvidia_lib_folders() {
        let t = tempfile::tempdir().unwrap();
        let sp = t.path().join("site-packages");
        std::fs::create_dir_all(sp.join("nvidia/cu13/lib")).unwrap();
        std::fs::create_dir_all(sp.join("nvidia/cudnn/lib")).unwrap();
        std::fs::create_dir_all(sp.join("nvidia/nolib")).unwrap();
        let dirs = wheel_lib_dirs(&sp);
        assert_eq!(
            dirs,
            vec![sp.join("nvidia/cu13/lib"), sp.join("nvidia/cudnn/lib")]
        );
        let venv = t.path().join("venv");
        std::fs::create_dir_all(venv.join("lib/python3.12/site-packages/nvidia/cu13/lib")).unwrap();
        assert_eq!(
            venv_dirs(&venv),
            vec![venv.join("lib/python3.12/site-packages/nvidia/cu13/lib")]
        );
    }

    #[test]
    fn added_dirs_come_before_cuda_home_and_the_error_names_them() {
        let t = tempfile::tempdir().unwrap();
        add_search_dirs([t.path().to_path_buf()]);
        let dirs = search_dirs();
        let at = dirs.iter().position(|d| d == t.path()).unwrap();
        let cuda = dirs
            .iter()
            .position(|d| d == Path::new("/usr/local/cuda/lib64"))
            .unwrap();
        assert!(at < cuda);
        let msg = describe_search(&dirs);
        assert!(msg.contains(&t.path().display().to_string()), "{msg}");
        assert!(msg.contains("/usr/local/cuda/lib64"), "{msg}");
    }

    #[test]
    fn a_library_copied_into_an_added_folder_is_opened_from_there() {
        // A real shared library (the C maths library) copied under a name the loader cannot
        // find by name: not found by name, opened by its full path.
        let libm = [
            "/lib/x86_64-linux-gnu/libm.so.6",
            "/usr/lib/x86_64-linux-gnu/libm.so.6",
            "/lib64/libm.so.6",
        ]
        .into_iter()
        .find(|p| Path::new(p).is_file());
        let Some(libm) = libm else { return };
        let t = tempfile::tempdir().unwrap();
        let copy = t.path().join("libgconv_probe_m.so");
        std::fs::copy(libm, &copy).unwrap();
        assert!(
            !dlopen_global("libgconv_probe_m.so"),
            "found by name without its folder"
        );
        assert!(dlopen_global(copy.to_str().unwrap()));
    }
}
