//! The learned selector's commands: `gconv train` (sweep CSVs → model directory, with
//! cross-validated metrics), `gconv validate` (a model against a measured oracle CSV) and
//! `gconv select` (a model's ranking of the pool on one problem, with the reason each refused
//! member was refused). The work is `gconv_learn`'s; this file reads the inputs and prints.

use anyhow::{bail, Context, Result};
use clap::Args;
use gconv_kernels::catalogue::{self, Families};
use gconv_kernels::Target;
use gconv_learn::evaluate::{breakdown, geometry_key, NEAR_TIE};
use gconv_learn::{cross_validate, evaluate, Dataset, Model, Outcome, TrainOptions};
use gconv_problem::Problem;
use gconv_tune::csv::read_rows_lenient;
use gconv_tune::SweepRow;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// Arguments of `gconv train`.
#[derive(Args, Debug)]
pub struct TrainArgs {
    /// Sweep or bench CSVs with the measurements (the oracle data).
    #[arg(long, required = true, num_args = 1..)]
    pub data: Vec<PathBuf>,
    /// The model directory to write (booster.json.gz, pairwise.json.gz, meta.json).
    #[arg(long)]
    pub output: PathBuf,
    /// Cross-validation folds over problem geometries (0: no cross-validation; at most the
    /// number of geometries).
    #[arg(long, default_value_t = 5)]
    pub folds: u32,
    /// Trees (1 to 100000).
    #[arg(long, default_value_t = TrainOptions::default().trees)]
    pub trees: usize,
    /// Depth of each tree (1 to 16).
    #[arg(long, default_value_t = TrainOptions::default().max_depth)]
    pub depth: usize,
    /// Learning rate (above 0, at most 1).
    #[arg(long, default_value_t = TrainOptions::default().learning_rate, value_parser = parse_f32)]
    pub learning_rate: f32,
    /// Emphasis on fast kernels: a sample of slowdown label l weighs 1 / (1 + W·l).
    #[arg(long, default_value_t = TrainOptions::default().top_weight, value_parser = parse_f32)]
    pub top_weight: f32,
    /// Train slowdown labels (ln of latency over the problem's best) above this as this; 0:
    /// no cap.
    #[arg(long, default_value_t = TrainOptions::default().label_cap, value_parser = parse_f32)]
    pub label_cap: f32,
    /// The share of the rows each tree is grown on (above 0, at most 1; 1: every row,
    /// deterministic).
    #[arg(long, default_value_t = TrainOptions::default().subsample, value_parser = parse_f32)]
    pub subsample: f32,
    /// The share of the features each tree may split on (above 0, at most 1; 1: every
    /// feature).
    #[arg(long, default_value_t = TrainOptions::default().colsample)]
    pub colsample: f64,
    /// The seed of the row and column sampling.
    #[arg(long, default_value_t = TrainOptions::default().seed)]
    pub seed: u64,
    /// Train the first model only, without the pairwise model that re-orders its 8 finalists
    /// (the re-ranking: `models/h200/README.md`).
    #[arg(long)]
    pub no_rerank: bool,
    /// Validation CSVs to keep unseen: every problem of `--data` whose geometry (the key
    /// without direction and dtype) appears in one of these is left out of the training and
    /// the cross-validation, so that `gconv validate` on these files still scores problems the
    /// model never saw.
    #[arg(long, num_args = 1..)]
    pub holdout: Vec<PathBuf>,
    /// Write the problems left out for coverage (rows for less than 90 % of the pool members
    /// the gate admits there), one key per line: a problems file for `gconv bench` to measure
    /// them again over the current pool.
    #[arg(long)]
    pub uncovered: Option<PathBuf>,
}

/// A 32-bit float option: a finite number too large for an f32 (`1e300`) is refused with the
/// text given, instead of becoming `inf` and being reported as such; NaN and the infinities
/// pass, for the option's own range check to refuse by name.
fn parse_f32(s: &str) -> Result<f32, String> {
    let v: f64 = s.parse().map_err(|_| format!("{s:?} is not a number"))?;
    if v.is_finite() && (v as f32).is_infinite() {
        return Err(format!(
            "{s} is out of range for a 32-bit float (at most {:e} in magnitude)",
            f32::MAX
        ));
    }
    Ok(v as f32)
}

/// Arguments of `gconv validate`.
#[derive(Args, Debug)]
pub struct ValidateArgs {
    /// CSVs with the measured oracle (problems the model was not trained on).
    #[arg(long, required = true, num_args = 1..)]
    pub oracle: Vec<PathBuf>,
    /// The model directory.
    #[arg(long)]
    pub model: PathBuf,
    /// Worst problems listed.
    #[arg(long, default_value_t = 8)]
    pub worst: usize,
    /// List every unseen problem whose oracle is not among the model's five first: the oracle,
    /// its rank, whether `auto` may choose it, how far the best of the five first and the first
    /// are from it, and how many measured members are within 2 % of it (a near-tie).
    #[arg(long)]
    pub misses: bool,
    /// Write the plots (predicted vs measured scatter, efficiency CDF of the model and the
    /// rule; PNG and SVG) of the unseen problems into this directory.
    #[arg(long)]
    pub plots: Option<PathBuf>,
}

/// Arguments of `gconv select`.
#[derive(Args, Debug)]
pub struct SelectArgs {
    /// The problem key.
    #[arg(long)]
    pub problem: String,
    /// The model directory (default: the model shipped in the binary, the one `auto` uses).
    #[arg(long)]
    pub model: Option<PathBuf>,
    /// Candidates listed (at least 1).
    #[arg(long, default_value_t = 5, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub top: usize,
}

/// Rows of every CSV, saying how many each gave and whether one ends in a cut row.
fn read_all(paths: &[PathBuf], out: &mut impl Write) -> Result<Vec<SweepRow>> {
    let mut rows = Vec::new();
    for p in paths {
        let (r, tail) = read_rows_lenient(p)?;
        if let Some(t) = tail {
            crate::output::note!("note: {}: skipped its cut last row, {t}", p.display());
        }
        writeln!(out, "  {:>7} rows  {}", r.len(), p.display())?;
        rows.extend(r);
    }
    Ok(rows)
}

fn dataset(paths: &[PathBuf], out: &mut impl Write) -> Result<Dataset> {
    let rows = read_all(paths, out)?;
    let ds = Dataset::from_pool_rows(&rows, &Target::H200);
    writeln!(
        out,
        "dataset: {} samples on {} problems (left out: {} unparsed names, {} not admitted any more, {} problems with < 2 ok kernels, {} problems whose rows cover < {:.0}% of the admitted pool, {} rows of another device than their problem's kept one; {} repeated pairs merged)",
        ds.len(),
        ds.problems.len(),
        ds.unparsed,
        ds.not_admitted,
        ds.too_few,
        ds.incomplete,
        100.0 * gconv_learn::dataset::MIN_POOL_COVERAGE,
        ds.other_device,
        ds.repeated
    )?;
    if !ds.uncovered.is_empty() {
        writeln!(
            out,
            "  left out for coverage: {} problem(s); the members most often without a row there: {}",
            ds.uncovered.len(),
            most_missing(&ds, 5)
        )?;
    }
    if ds.is_empty() {
        bail!("no problem has two verified ok kernel rows: nothing to learn from or to rank");
    }
    Ok(ds)
}

/// The `n` pool members missing from the most problems left out for coverage, with their
/// counts (`name (count), …`).
fn most_missing(ds: &Dataset, n: usize) -> String {
    let mut count: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for m in ds.uncovered.values().flatten() {
        *count.entry(m.as_str()).or_default() += 1;
    }
    let mut by: Vec<(&str, usize)> = count.into_iter().collect();
    by.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    by.iter()
        .take(n)
        .map(|(m, c)| format!("{m} ({c})"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn print_outcomes(out: &mut impl Write, outcomes: &[Outcome], worst: usize) -> Result<()> {
    for (label, m) in breakdown(outcomes) {
        writeln!(out, "  {label:<22} {m}")?;
    }
    // The hand rule on the problems where its choice was measured (top-k is not defined for
    // it: only its top-1 counts).
    let rule: Vec<Outcome> = outcomes.iter().filter_map(Outcome::of_rule).collect();
    let model_there: Vec<Outcome> = outcomes
        .iter()
        .filter(|o| o.rule.is_some())
        .cloned()
        .collect();
    for ((label, r), (_, m)) in breakdown(&rule).into_iter().zip(breakdown(&model_there)) {
        if label == "all" || label.starts_with("direction") {
            writeln!(
                out,
                "  rule vs model, {label:<16} {:>4} problems: rule efficiency geomean {:.3} P10 {:.3} worst {:.3} top-1 {:.3}; model geomean {:.3} P10 {:.3} worst {:.3} top-1 {:.3}",
                r.problems, r.geomean, r.p10, r.worst, r.top1, m.geomean, m.p10, m.worst, m.top1
            )?;
        }
    }
    let mut v: Vec<&Outcome> = outcomes.iter().collect();
    v.sort_by(|a, b| a.efficiency().total_cmp(&b.efficiency()));
    for o in v.iter().take(worst).filter(|o| o.efficiency() < 1.0) {
        writeln!(
            out,
            "  worst {:.3} {}: chose {} ({:.4} ms), oracle {} ({:.4} ms, ranked {} of {})",
            o.efficiency(),
            o.problem,
            o.chosen.0,
            o.chosen.1,
            o.oracle.0,
            o.oracle.1,
            o.oracle_rank,
            o.candidates
        )?;
    }
    Ok(())
}

/// Every outcome whose oracle is not among the model's five first, by problem key.
fn print_misses(out: &mut impl Write, outcomes: &[Outcome]) -> Result<()> {
    let mut v: Vec<&Outcome> = outcomes.iter().filter(|o| o.oracle_rank > 5).collect();
    v.sort_by_key(|o| o.problem.to_string());
    writeln!(
        out,
        "  top-5 misses: {} of {} (near-tie: within {:.0}% of the oracle)",
        v.len(),
        outcomes.len(),
        100.0 * NEAR_TIE
    )?;
    for o in v {
        let who = if o.oracle_eligible {
            String::new()
        } else {
            format!(
                ", not a candidate of auto; the fastest candidate ranked {}",
                o.eligible_oracle_rank
            )
        };
        writeln!(
            out,
            "  miss {}: oracle {} ({:.4} ms, ranked {} of {}{who}); the five first's best {:.3}x it, the first {:.3}x; {} measured members within {:.0}% of it",
            o.problem,
            o.oracle.0,
            o.oracle.1,
            o.oracle_rank,
            o.candidates,
            o.top5_best_ms / o.oracle.1,
            o.chosen.1 / o.oracle.1,
            o.near_oracle,
            100.0 * NEAR_TIE
        )?;
    }
    Ok(())
}

/// Runs `gconv train`.
pub fn train(a: TrainArgs) -> Result<ExitCode> {
    if let Some(path) = &a.uncovered {
        gconv_tune::outfile::check_output_file(path)?;
    }
    let mut out = crate::output::stdout();
    let mut ds = dataset(&a.data, &mut out)?;
    if let Some(path) = &a.uncovered {
        let keys: String = ds.uncovered.keys().map(|k| format!("{k}\n")).collect();
        std::fs::write(path, keys).with_context(|| format!("writing {}", path.display()))?;
        writeln!(
            out,
            "wrote the {} problem(s) left out for coverage to {}",
            ds.uncovered.len(),
            path.display()
        )?;
    }
    if !a.holdout.is_empty() {
        writeln!(out, "holdout (geometries kept out of training):")?;
        let held: std::collections::BTreeSet<String> = read_all(&a.holdout, &mut out)?
            .iter()
            .map(|r| geometry_key(&r.problem))
            .collect();
        let before = ds.problems.len();
        ds.problems
            .retain(|_, s| !held.contains(&geometry_key(&s[0].problem)));
        writeln!(
            out,
            "holdout: {} geometries; {} of {} training problems share one and are left out",
            held.len(),
            before - ds.problems.len(),
            before
        )?;
        if ds.is_empty() {
            bail!("every training problem shares a geometry with the holdout files: nothing to learn from");
        }
    }
    let options = TrainOptions {
        trees: a.trees,
        max_depth: a.depth,
        learning_rate: a.learning_rate,
        top_weight: a.top_weight,
        label_cap: a.label_cap,
        subsample: a.subsample,
        colsample: a.colsample,
        seed: a.seed,
        rerank: !a.no_rerank,
        ..TrainOptions::default()
    };
    if a.folds > 0 {
        let t = Instant::now();
        let cv = cross_validate(&ds, a.folds, options)?;
        writeln!(
            out,
            "cross-validation, {} folds over problem geometries ({:.1} s):",
            a.folds,
            t.elapsed().as_secs_f64()
        )?;
        print_outcomes(&mut out, &cv, 5)?;
    }
    let t = Instant::now();
    let samples: Vec<_> = ds.samples().collect();
    let model = Model::train(&samples, options)?;
    model.save(&a.output)?;
    writeln!(
        out,
        "trained on {} samples of {} problems in {:.1} s; wrote {} (features {}, pool {})",
        model.meta.samples,
        model.meta.problems,
        t.elapsed().as_secs_f64(),
        a.output.display(),
        model.meta.feature_hash,
        model.meta.pool_hash
    )?;
    Ok(ExitCode::SUCCESS)
}

/// Runs `gconv validate`.
pub fn validate(a: ValidateArgs) -> Result<ExitCode> {
    let mut out = crate::output::stdout();
    let model = load(&a.model)?;
    let ds = dataset(&a.oracle, &mut out)?;
    let (unseen, seen): (Vec<Outcome>, Vec<Outcome>) = evaluate(&model, &ds)
        .into_iter()
        .partition(|o| !model.trained_on(&o.problem));
    writeln!(
        out,
        "model {} ({} samples of {} problems) against the measured oracle, on the {} problems whose geometry it was not trained on:",
        a.model.display(),
        model.meta.samples,
        model.meta.problems,
        unseen.len()
    )?;
    if unseen.is_empty() {
        writeln!(out, "  (none)")?;
    } else {
        print_outcomes(&mut out, &unseen, a.worst)?;
        if a.misses {
            print_misses(&mut out, &unseen)?;
        }
    }
    if let Some(dir) = &a.plots {
        let mut unseen_ds = ds.clone();
        unseen_ds
            .problems
            .retain(|_, s| !model.trained_on(&s[0].problem));
        let pairs = gconv_learn::evaluate::slowdowns(&model, &unseen_ds);
        let files = gconv_learn::plots::write_plots(
            dir,
            &pairs,
            &unseen,
            &format!("{} unseen problems", unseen.len()),
        )?;
        for f in files {
            writeln!(out, "plot     {}", f.display())?;
        }
    }
    if !seen.is_empty() {
        writeln!(
            out,
            "and on the {} problems whose geometry it was trained on (not a validation):",
            seen.len()
        )?;
        print_outcomes(&mut out, &seen, 0)?;
    }
    Ok(ExitCode::SUCCESS)
}

fn load(dir: &Path) -> Result<Model> {
    Model::load(dir).with_context(|| format!("cannot use the model in {}", dir.display()))
}

/// Runs `gconv select`.
pub fn select(a: SelectArgs) -> Result<ExitCode> {
    let problem: Problem = a.problem.parse()?;
    let loaded;
    let (model, which) = match &a.model {
        Some(dir) => {
            loaded = load(dir)?;
            (&loaded, dir.display().to_string())
        }
        None => (
            gconv_learn::select::shipped()
                .map_err(|e| anyhow::anyhow!("the shipped model cannot be used: {e}"))?,
            "the shipped model (models/h200)".to_string(),
        ),
    };
    let target = Target::H200;
    if catalogue::pool(problem.direction, problem.dtype, Families::All).is_empty() {
        bail!(
            "no kernel pool exists for {} {}",
            problem.direction,
            problem.dtype
        );
    }
    if let Err(why) = gconv_learn::select::covers(model, &problem, &target) {
        crate::output::note!("note: `auto` would use the rule here: {why}; the ranking below is the model's all the same");
    }
    let t = Instant::now();
    let ranking = gconv_learn::select::rank(model, &problem, &target, Families::All);
    let cold = t.elapsed();
    // The ranking again, warm (caches and pages touched), the median of 21.
    let mut warm: Vec<f64> = (0..21)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(gconv_learn::select::rank(
                model,
                &problem,
                &target,
                Families::All,
            ));
            t.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    warm.sort_by(f64::total_cmp);
    // `auto` keeps its decisions for the process: the second decision is a lookup.
    let _ = gconv_learn::select::choose(&problem, &target, Families::All);
    let t = Instant::now();
    std::hint::black_box(gconv_learn::select::choose(
        &problem,
        &target,
        Families::All,
    ));
    let again = t.elapsed();
    let mut out = crate::output::stdout();
    writeln!(
        out,
        "problem {problem}: {} candidates ranked by {which} in {:.0} µs cold, {:.0} µs warm (median of 21); `auto` decides it again in {:.1} µs (the process keeps its decisions)",
        ranking.ranked.len(),
        cold.as_secs_f64() * 1e6,
        warm[warm.len() / 2],
        again.as_secs_f64() * 1e6
    )?;
    if model.reranks() {
        writeln!(
            out,
            "  (places 2 to {} in the order of the model's pairwise re-ranking; the predictions are the first model's)",
            gconv_learn::model::RERANKED
        )?;
    }
    let best = ranking.ranked.first().map(|r| r.predicted).unwrap_or(0.0);
    for (i, r) in ranking.ranked.iter().take(a.top).enumerate() {
        writeln!(
            out,
            "  {:>2}. {}  predicted {:.3}x the first",
            i + 1,
            r.admitted.config(),
            (r.predicted - best).exp()
        )?;
    }
    for (name, why) in ranking.left_out.iter().take(a.top) {
        writeln!(out, "  not a candidate: {name}: {why}")?;
    }
    if ranking.left_out.len() > a.top {
        writeln!(
            out,
            "  ... and {} more not candidates",
            ranking.left_out.len() - a.top
        )?;
    }
    if ranking.ranked.is_empty() {
        bail!("no eligible pool member runs {problem}");
    }
    Ok(ExitCode::SUCCESS)
}
