//! `gconv selftest`: the correctness matrix (`ARCHITECTURE.md`, verification) — every direction × dtype × group
//! regime (dense, grouped, small C/G, depthwise, channel multiplier) × edge case (odd channels,
//! G not a power of two, stride > filter, large pad, dilation, 1×1, N = 1, 1D, 3D, asymmetric
//! filter) — run on the CPU backend (default) or on the GPU (`--gpu`: the GPU reference kernels
//! and every kernel of the pool catalogue, all families, that is admitted for the case),
//! each result compared with the f64 CPU reference.

use crate::dispatch::{gpu_target, run_gpu};
use anyhow::Result;
use clap::Args;
use gconv_cuda::{compile_cached, CompileOptions, GpuRuntime};
use gconv_kernels::catalogue::{pool, Families};
use gconv_kernels::{admit, reference as gpu_ref, KernelConfig, SplitKMode};
use gconv_problem::{compare, DType, Direction, HostTensor, Problem, ProblemError, Tolerance};
use gconv_reference::{cpu, reference};
use rayon::prelude::*;
use std::io::Write;
use std::process::ExitCode;

/// Arguments of `gconv selftest`.
#[derive(Args, Debug)]
pub struct SelftestArgs {
    /// Run the GPU kernels (reference and generated families) instead of the CPU backend.
    #[arg(long)]
    pub gpu: bool,
    /// Seed of the random inputs.
    #[arg(long, default_value_t = 7)]
    pub seed: u64,
    /// Print a line for every case, not only the failing ones.
    #[arg(long)]
    pub verbose: bool,
    /// Only the cases of this direction: fwd, dgrad or wgrad (or forward, bwd_data,
    /// bwd_weight); all three by default.
    #[arg(long, value_parser = Direction::parse_any)]
    pub direction: Option<Direction>,
    /// Only the matrix cases whose label contains this text (e.g. `merged_tail`, `rank3`);
    /// every case by default. A text no label contains is an error that lists the labels.
    #[arg(long, value_name = "TEXT")]
    pub cases: Option<String>,
    /// With --gpu: only the pool members whose name contains this text (e.g. `_wgmmaws_`, or
    /// one kernel's full name), with the reference kernel on every case; all members by
    /// default.
    #[arg(long, value_name = "TEXT")]
    pub kernels: Option<String>,
    /// With --gpu: the kernels of this trait config (e.g.
    /// `configs/traits/forward_tma_bf16.json`) instead of the pool members, each on every
    /// matrix case of its direction and dtype that it admits, with the reference kernel on
    /// every case: kernels outside the pools checked over the whole matrix.
    #[arg(long, value_name = "FILE")]
    pub config: Option<std::path::PathBuf>,
}

/// A group regime of the matrix: (name, G, C, K).
const REGIMES: [(&str, i64, i64, i64); 5] = [
    ("dense", 1, 16, 24),
    ("grouped", 4, 32, 32),
    ("small_cpg", 8, 16, 16),
    ("depthwise", 12, 12, 12),
    ("chan_mult", 6, 6, 12),
];

/// An edge case: name, N, G, C, K, then input, filter, stride, pad, dilation.
struct Edge(&'static str, [i64; 4], &'static [[i64; 5]]);

/// Spatial rows are (input, filter, stride, pad, dilation) per dimension, D,H,W order.
const EDGES: [Edge; 21] = [
    Edge(
        "odd_channels",
        [2, 2, 6, 10],
        &[[7, 3, 1, 1, 1], [6, 3, 1, 1, 1]],
    ),
    Edge("g3", [2, 3, 12, 9], &[[6, 3, 1, 1, 1], [7, 3, 1, 1, 1]]),
    Edge(
        "stride_gt_filter",
        [2, 4, 16, 16],
        &[[9, 2, 3, 0, 1], [9, 2, 3, 0, 1]],
    ),
    Edge(
        "large_pad",
        [1, 2, 8, 8],
        &[[5, 3, 1, 3, 1], [5, 3, 1, 3, 1]],
    ),
    Edge(
        "dilation",
        [2, 4, 16, 16],
        &[[9, 3, 1, 2, 2], [10, 3, 1, 2, 2]],
    ),
    Edge(
        "pointwise",
        [2, 2, 32, 16],
        &[[5, 1, 1, 0, 1], [6, 1, 1, 0, 1]],
    ),
    Edge(
        "strided_s2",
        [2, 4, 16, 32],
        &[[9, 3, 2, 1, 1], [9, 3, 2, 1, 1]],
    ),
    Edge("n1", [1, 8, 64, 64], &[[6, 3, 1, 1, 1], [6, 3, 1, 1, 1]]),
    Edge("rank1", [2, 8, 8, 8], &[[33, 5, 2, 2, 2]]),
    Edge(
        "rank3",
        [1, 2, 4, 6],
        &[[5, 3, 1, 1, 1], [6, 3, 1, 1, 1], [7, 3, 1, 1, 1]],
    ),
    Edge(
        "rank3_dw_strided",
        [2, 8, 8, 8],
        &[[6, 3, 2, 1, 1], [7, 3, 2, 1, 1], [7, 3, 2, 1, 1]],
    ),
    // 3D C/G 8 with depth taps: the depth-streaming tensor-core direct members (a CTA walks
    // its column of tiles over the 5 output slices through a ring of 4 input slices).
    Edge(
        "rank3_cpg8",
        [2, 4, 32, 32],
        &[[5, 3, 1, 1, 1], [9, 3, 1, 1, 1], [10, 3, 1, 1, 1]],
    ),
    Edge(
        "asym_7x1",
        [2, 4, 16, 8],
        &[[9, 7, 1, 3, 1], [8, 1, 1, 0, 1]],
    ),
    // C/G 16 with stride, padding and dilation: the tensor-core direct path (C/G and K/G
    // multiples of 8) off the unit-stride case.
    Edge(
        "grouped_s2_dil",
        [2, 4, 64, 64],
        &[[13, 3, 2, 2, 2], [15, 3, 2, 2, 2]],
    ),
    // Enough output tiles (24 images x 8 x 8 tiles of 7 x 7) that the persistent direct
    // kernels walk several tiles per CTA through both shared-memory buffers.
    Edge(
        "many_tiles",
        [24, 16, 16, 16],
        &[[56, 3, 1, 1, 1], [56, 3, 1, 1, 1]],
    ),
    // The same for the persistent tensor-core direct members (C/G 8): 96 images x 16 to 28
    // tiles each, several tiles per CTA (4 to 16 with one wave of resident CTAs).
    Edge(
        "many_tiles_cpg8",
        [96, 2, 16, 16],
        &[[56, 3, 1, 1, 1], [56, 3, 1, 1, 1]],
    ),
    // C/G and K/G 128, stride 1: the igemm halo members (two 64-channel blocks of the staged
    // halo; a 12×11 padded image, whose padded rows past the last image fill the last tile).
    Edge(
        "halo_cpg128",
        [2, 2, 256, 256],
        &[[10, 3, 1, 1, 1], [9, 3, 1, 1, 1]],
    ),
    // C/G and K/G 32 in four groups: the TMA-fed merged backward-weight tile with gm 2 (two
    // adjacent groups in one 64-channel box; C/G 16 and 8 are the `grouped` and `small_cpg`
    // regimes' gm 4 and gm 8).
    Edge(
        "merged_cpg32",
        [2, 4, 128, 128],
        &[[8, 3, 1, 1, 1], [7, 3, 1, 1, 1]],
    ),
    // G not a multiple of the merge degree: the TMA-fed merged backward-weight tiles with a
    // tail block (gm 2 over 3 groups of 32, gm 4 over 9 groups of 16 at stride 2, gm 8 over 7
    // groups of 8), whose missing groups are channels past the tensors.
    Edge(
        "merged_tail_cpg32",
        [2, 3, 96, 96],
        &[[8, 3, 1, 1, 1], [7, 3, 1, 1, 1]],
    ),
    Edge(
        "merged_tail_cpg16",
        [2, 9, 144, 144],
        &[[9, 3, 2, 1, 1], [8, 3, 2, 1, 1]],
    ),
    Edge(
        "merged_tail_cpg8",
        [2, 7, 56, 56],
        &[[8, 3, 1, 1, 1], [7, 3, 1, 1, 1]],
    ),
];

fn column(rows: &[[i64; 5]], i: usize) -> Vec<i64> {
    rows.iter().map(|r| r[i]).collect()
}

/// The problems of the correctness matrix, each with a case label.
pub fn matrix() -> Result<Vec<(String, Problem)>, ProblemError> {
    let mut out = Vec::new();
    for dir in Direction::ALL {
        for dt in DType::ALL {
            for (name, g, c, k) in REGIMES {
                let base = [1i64, 1];
                let p = Problem::new(dir, dt, 2, g, c, k, &[8, 7], &[3, 3], &base, &base, &base)?;
                out.push((name.to_string(), p));
            }
            for Edge(name, [n, g, c, k], rows) in &EDGES {
                let p = Problem::new(
                    dir,
                    dt,
                    *n,
                    *g,
                    *c,
                    *k,
                    &column(rows, 0),
                    &column(rows, 1),
                    &column(rows, 2),
                    &column(rows, 3),
                    &column(rows, 4),
                )?;
                out.push((name.to_string(), p));
            }
        }
    }
    Ok(out)
}

struct Tally {
    passed: usize,
    failed: usize,
    verbose: bool,
}

impl Tally {
    fn record(&mut self, ok: bool, line: String) -> std::io::Result<()> {
        if ok {
            self.passed += 1;
        } else {
            self.failed += 1;
        }
        if !ok || self.verbose {
            let mut out = crate::output::stdout();
            writeln!(out, "{} {line}", if ok { "ok  " } else { "FAIL" })?;
        }
        Ok(())
    }
}

fn inputs(p: &Problem, seed: u64) -> (HostTensor, HostTensor) {
    let ([r0, r1], _) = p.roles();
    (
        HostTensor::random_for(p, r0, seed),
        HostTensor::random_for(p, r1, seed),
    )
}

/// Runs the command.
pub fn run(a: SelftestArgs) -> Result<ExitCode> {
    let mut t = Tally {
        passed: 0,
        failed: 0,
        verbose: a.verbose,
    };
    if a.kernels.is_some() && !a.gpu {
        anyhow::bail!("selftest --kernels selects GPU pool members; it needs --gpu");
    }
    if a.config.is_some() && !a.gpu {
        anyhow::bail!("selftest --config runs a trait config's GPU kernels; it needs --gpu");
    }
    if a.gpu {
        let rt = GpuRuntime::new(0)
            .map_err(|e| anyhow::anyhow!("selftest --gpu: the CUDA backend is not usable: {e}"))?;
        writeln!(crate::output::stdout(), "device: {}", rt.info())?;
        let listed = match &a.config {
            Some(path) => Some(config_kernels(path, gpu_target(&rt).arch)?),
            None => None,
        };
        run_gpu_matrix(
            &rt,
            a.seed,
            &Scope::of(&a)?,
            a.kernels.as_deref(),
            listed.as_deref(),
            &mut t,
        )?;
    } else {
        run_cpu_matrix(a.seed, &Scope::of(&a)?, &mut t)?;
    }
    writeln!(
        crate::output::stdout(),
        "{} passed, {} failed",
        t.passed,
        t.failed
    )?;
    Ok(if t.failed == 0 && t.passed > 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Which cases of the matrix a run takes (`--direction`, `--cases`).
struct Scope {
    direction: Option<Direction>,
    label: Option<String>,
}

impl Scope {
    /// The scope of `a`; an error naming the labels when `--cases` matches none.
    fn of(a: &SelftestArgs) -> Result<Scope> {
        let scope = Scope {
            direction: a.direction,
            label: a.cases.clone(),
        };
        if let Some(text) = &scope.label {
            let labels: std::collections::BTreeSet<String> =
                matrix()?.into_iter().map(|(l, _)| l).collect();
            if !labels.iter().any(|l| l.contains(text.as_str())) {
                anyhow::bail!(
                    "selftest --cases {text:?}: no case label of the matrix contains it; the labels are {}",
                    labels.into_iter().collect::<Vec<_>>().join(", ")
                );
            }
        }
        Ok(scope)
    }

    /// The matrix's cases in this scope.
    fn cases(&self) -> Result<Vec<(String, Problem)>, ProblemError> {
        Ok(matrix()?
            .into_iter()
            .filter(|(l, p)| {
                self.direction.is_none_or(|d| p.direction == d)
                    && self.label.as_deref().is_none_or(|t| l.contains(t))
            })
            .collect())
    }
}

fn run_cpu_matrix(seed: u64, scope: &Scope, t: &mut Tally) -> Result<()> {
    for (label, p) in &scope.cases()? {
        let (in0, in1) = inputs(p, seed);
        let want = reference::reference_tensors(p, &in0, &in1)?;
        let tol = Tolerance::for_problem(p);
        for v in &cpu::CpuVariant::POOL {
            if !v.can_run(p) {
                continue;
            }
            match cpu::run(*v, p, &in0, &in1) {
                Ok(out) => {
                    let c = compare(&out, &want, tol);
                    t.record(
                        c.passed(),
                        format!(
                            "{label:<18} {:<18} {p}  max_abs {:.2e} max_rel {:.2e}",
                            v.name(),
                            c.max_abs_err,
                            c.max_rel_err
                        ),
                    )?;
                }
                Err(e) => t.record(
                    false,
                    format!("{label:<18} {:<18} {p}  error: {e}", v.name()),
                )?,
            }
        }
    }
    Ok(())
}

/// The kernels of the trait config at `path` for `arch` (`selftest --config`).
fn config_kernels(path: &std::path::Path, arch: gconv_kernels::Arch) -> Result<Vec<KernelConfig>> {
    let rep = gconv_tune::traits::build_instances(path, arch, None)
        .map_err(|e| anyhow::anyhow!("selftest --config {}: {e}", path.display()))?;
    rep.kernels
        .iter()
        .map(|k| {
            k.parse::<KernelConfig>()
                .map_err(|e| anyhow::anyhow!("selftest --config {}: {k}: {e}", path.display()))
        })
        .collect()
}

/// Every GPU case: the reference kernel on each matrix problem, and each kernel of the pool
/// catalogue (every family, the problem's direction and dtype) — or of `listed`, a trait
/// config's kernels — that the admission accepts for it. Sources are compiled in parallel
/// first (through the cache), then run in that order.
fn run_gpu_matrix(
    rt: &GpuRuntime,
    seed: u64,
    scope: &Scope,
    only: Option<&str>,
    listed: Option<&[KernelConfig]>,
    t: &mut Tally,
) -> Result<()> {
    let target = gpu_target(rt);
    let mut jobs = Vec::new();
    let mut members = 0usize;
    for (label, p) in scope.cases()? {
        jobs.push((label.clone(), p, gpu_ref::reference_source(&p)));
        let candidates = match listed {
            Some(l) => l
                .iter()
                .filter(|c| c.direction == p.direction && c.dtype == p.dtype)
                .copied()
                .collect(),
            None => pool(p.direction, p.dtype, Families::All),
        };
        for cfg in candidates {
            if only.is_some_and(|text| !cfg.to_string().contains(text)) {
                continue;
            }
            if let Ok(a) = admit(&cfg, &p, &target) {
                jobs.push((label.clone(), p, a.emit()));
                members += 1;
            }
        }
    }
    if let (Some(text), 0) = (only, members) {
        anyhow::bail!(
            "selftest --kernels {text:?}: no pool member with that text in its name runs a case of the matrix"
        );
    }
    if let (Some(_), 0) = (listed, members) {
        anyhow::bail!("selftest --config: no kernel of the trait config runs a case of the matrix");
    }
    writeln!(
        crate::output::stdout(),
        "compiling {} kernels ...",
        jobs.len()
    )?;
    let progress = gconv_tune::Progress::new(jobs.len() as u64, true, "kernels compiled");
    let compiled: Vec<_> = jobs
        .par_iter()
        .map(|(_, _, src)| {
            let r = compile_cached(src, &CompileOptions::default()).map(|_| ());
            progress.inc(1);
            r
        })
        .collect();
    progress.finish_and_clear();
    // Jobs of one problem are adjacent: its inputs and reference are computed once for all of
    // them (the reference kernel and every pool member).
    let mut cached: Option<(Problem, (HostTensor, HostTensor), Vec<f64>)> = None;
    for ((label, p, src), c) in jobs.iter().zip(compiled) {
        let name = &src.kernel_name;
        if let Err(e) = c {
            t.record(false, format!("{label:<18} {name} {p}  compile error: {e}"))?;
            continue;
        }
        if cached.as_ref().is_none_or(|(q, ..)| q != p) {
            let (in0, in1) = inputs(p, seed);
            let want = reference::reference_tensors(p, &in0, &in1)?;
            cached = Some((*p, (in0, in1), want));
        }
        let Some((_, (in0, in1), want)) = cached.as_ref() else {
            continue;
        };
        // Backward-weight: the default (deterministic) kernels must give the same bytes when
        // launched again; the named atomic option is reported, not required to.
        let atomic = name
            .parse::<KernelConfig>()
            .is_ok_and(|c| c.split_k_mode == SplitKMode::Atomic);
        let check = p.direction == Direction::Wgrad;
        match run_gpu(rt, src, p, in0, in1, None, check) {
            Ok(r) => {
                let c = compare(&r.out, want, Tolerance::for_problem(p));
                let repeat = match r.repeatable {
                    Some(true) => "  repeat identical",
                    Some(false) if atomic => "  repeat differs (atomic option)",
                    Some(false) => "  repeat DIFFERS",
                    None => "",
                };
                let deterministic = r.repeatable.unwrap_or(true) || atomic;
                t.record(
                    c.passed() && deterministic,
                    format!(
                        "{label:<18} {name} {p}  max_abs {:.2e} max_rel {:.2e} ({} bad){repeat}",
                        c.max_abs_err, c.max_rel_err, c.failures
                    ),
                )?;
            }
            Err(e) => t.record(false, format!("{label:<18} {name} {p}  error: {e:#}"))?,
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use gconv_kernels::catalogue::directions_with_pools;
    use gconv_kernels::Target;

    /// Every member of every default pool runs at least one case of the matrix on the H200, so
    /// that `selftest --gpu` checks it against the reference. (The depth-streaming members
    /// joined the pool with no case they could run: the GPU matrix skipped them without a word
    /// until the `rank3_cpg8` case.)
    #[test]
    fn every_pool_member_runs_a_case_of_the_matrix() {
        let cases = matrix().expect("the matrix builds");
        let mut uncovered = Vec::new();
        let mut members = 0usize;
        for d in directions_with_pools(Families::All) {
            for dt in DType::ALL {
                for cfg in pool(d, dt, Families::All) {
                    members += 1;
                    let runs = cases.iter().any(|(_, p)| {
                        p.direction == d && p.dtype == dt && admit(&cfg, p, &Target::H200).is_ok()
                    });
                    if !runs {
                        uncovered.push(cfg.to_string());
                    }
                }
            }
        }
        assert!(members > 100, "only {members} pool members");
        assert!(
            uncovered.is_empty(),
            "{} of {members} pool members run no case of the selftest matrix: {uncovered:#?}",
            uncovered.len()
        );
    }

    /// Each merged TMA-fed backward-weight member of the pools runs a case whose G its merge
    /// degree does not divide (a tail block) in bf16 and f16, so that `selftest --gpu` checks
    /// the tail's maps and store mask on the hardware.
    #[test]
    fn every_merged_tma_wgrad_member_runs_a_tail_case() {
        let cases = matrix().expect("the matrix builds");
        let mut checked = 0;
        for dt in [DType::Bf16, DType::F16] {
            for cfg in pool(Direction::Wgrad, dt, Families::All) {
                if cfg.math != gconv_kernels::Math::WgmmaTma || cfg.group_merge < 2 {
                    continue;
                }
                checked += 1;
                let tails: Vec<&str> = cases
                    .iter()
                    .filter(|(l, p)| {
                        l.starts_with("merged_tail")
                            && p.direction == Direction::Wgrad
                            && p.dtype == dt
                            && !p.g.is_multiple_of(u64::from(cfg.group_merge))
                            && admit(&cfg, p, &Target::H200).is_ok()
                    })
                    .map(|(l, _)| l.as_str())
                    .collect();
                assert!(!tails.is_empty(), "{cfg} runs no tail case");
            }
        }
        assert_eq!(
            checked, 6,
            "the merged TMA members of the bf16 and f16 pools"
        );
    }

    /// `selftest --gpu --config` over the TMA trait configs has cases to run: each config's
    /// `wgmmatma` kernels, pointwise (the `pointwise` case) and through im2col copies (the
    /// C/G 128 `halo_cpg128` case), admit cases of the matrix in bf16 and f16.
    #[test]
    fn the_tma_trait_configs_run_cases_of_the_matrix() {
        let cases = matrix().expect("the matrix builds");
        for file in [
            "forward_tma_bf16.json",
            "bwd_data_tma_bf16.json",
            "bwd_weight_tma_bf16.json",
        ] {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("configs/traits")
                .join(file);
            let listed = config_kernels(&path, gconv_kernels::Arch::Sm90a).expect("the config");
            let runs = |suffix: &str| {
                listed
                    .iter()
                    .filter(|c| c.to_string().ends_with(suffix))
                    .flat_map(|c| cases.iter().map(move |(l, p)| (c, l, p)))
                    .filter(|(c, _, p)| {
                        c.direction == p.direction
                            && c.dtype == p.dtype
                            && admit(c, p, &Target::H200).is_ok()
                    })
                    .map(|(_, l, _)| l.clone())
                    .collect::<std::collections::BTreeSet<_>>()
            };
            assert!(runs("_wgmmatma_pw").contains("pointwise"), "{file}");
            assert!(runs("_wgmmatma_gen").contains("halo_cpg128"), "{file}");
        }
    }
}
