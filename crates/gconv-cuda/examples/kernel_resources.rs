//! Registers, spills and the plan of generated kernels, without a GPU: each `KERNEL@PROBLEM`
//! argument (or one kernel on several problems: `KERNEL PROBLEM...`) goes through the gate,
//! is compiled with NVRTC to an sm_90 CUBIN, and one line per entry point reports what ptxas
//! used, next to the launch grid and the CTAs per SM the plan assumed (its wave). A kernel
//! name with `sk0` shows the degree the rule resolves.
//!
//! `cargo run --release -p gconv-cuda --example kernel_resources -- KERNEL PROBLEM [PROBLEM...]`
//! (NVRTC on the loader path, e.g. the `.venv` wheel `scripts/test.sh` installs).
//!
//! With `GCONV_DUMP_CUBIN=DIR` each CUBIN is also written to `DIR/KERNEL@PROBLEM.cubin`, for
//! reading its SASS without a GPU (`nvdisasm -c -g`; PyPI's `nvidia-cuda-nvdisasm` wheel).

use gconv_cuda::nvrtc::{compile_cubin, CompileOptions};
use gconv_kernels::{admit, KernelConfig, Target};
use gconv_problem::Problem;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((kernel, problems)) = args.split_first() else {
        eprintln!("usage: kernel_resources KERNEL PROBLEM [PROBLEM...]");
        return ExitCode::from(2);
    };
    let cfg: KernelConfig = match kernel.parse() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("kernel {kernel}: {e}");
            return ExitCode::from(2);
        }
    };
    let mut failed = false;
    for key in problems {
        let problem: Problem = match key.parse() {
            Ok(p) => p,
            Err(e) => {
                eprintln!("problem {key}: {e}");
                failed = true;
                continue;
            }
        };
        let admitted = match admit(&cfg, &problem, &Target::H200) {
            Ok(a) => a,
            Err(e) => {
                println!("{key}: refused: {e}");
                continue;
            }
        };
        let src = admitted.emit();
        match compile_cubin(&src, &CompileOptions::default()) {
            Ok(k) => {
                if let Some(dir) = std::env::var_os("GCONV_DUMP_CUBIN") {
                    let path = std::path::Path::new(&dir).join(format!("{kernel}@{key}.cubin"));
                    if let Err(e) = std::fs::write(&path, &k.cubin) {
                        eprintln!("{}: {e}", path.display());
                        failed = true;
                    }
                }
                // ptxas's performance advisories (e.g. wgmma serialised around other code)
                for line in k.performance_advisories() {
                    println!("{key}: ptxas: {line}");
                }
                for (entry, r) in &k.resources {
                    let launch = src.launches.iter().find(|l| &l.entry == entry);
                    println!(
                        "{key} {entry}: {} registers, {} spill bytes, grid {:?}, block {:?}",
                        r.regs,
                        r.spills(),
                        launch.map(|l| l.grid),
                        launch.map(|l| l.block)
                    );
                }
            }
            Err(e) => {
                println!("{key}: compile error: {e}");
                failed = true;
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
