//! The learned selector's commands: `gconv train` (sweep CSVs → model directory, with
//! cross-validated metrics), `gconv validate` (a model against a measured oracle CSV) and
//! `gconv select` (a model's ranking of the pool on one problem, with the reason each refused
//! member was refused). The work is `gconv_learn`'s; this file reads the inputs and prints.

use anyhow::{bail, Context, Result};
use clap::Args;
use gconv_kernels::catalogue::{self, Families};
use gconv_kernels::{admit, Target};
use gconv_learn::evaluate::breakdown;
use gconv_learn::features::{features, Context as Candidates};
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
    /// The model directory to write (booster.json, meta.json).
    #[arg(long)]
    pub output: PathBuf,
    /// Cross-validation folds over problem geometries (0: no cross-validation).
    #[arg(long, default_value_t = 5)]
    pub folds: u32,
    /// Trees.
    #[arg(long, default_value_t = TrainOptions::default().trees)]
    pub trees: usize,
    /// Depth of each tree.
    #[arg(long, default_value_t = TrainOptions::default().max_depth)]
    pub depth: usize,
    /// Learning rate.
    #[arg(long, default_value_t = TrainOptions::default().learning_rate)]
    pub learning_rate: f32,
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
}

/// Arguments of `gconv select`.
#[derive(Args, Debug)]
pub struct SelectArgs {
    /// The problem key.
    #[arg(long)]
    pub problem: String,
    /// The model directory.
    #[arg(long)]
    pub model: PathBuf,
    /// Candidates listed.
    #[arg(long, default_value_t = 5)]
    pub top: usize,
}

/// Rows of every CSV, saying how many each gave and whether one ends in a cut row.
fn read_all(paths: &[PathBuf], out: &mut impl Write) -> Result<Vec<SweepRow>> {
    let mut rows = Vec::new();
    for p in paths {
        let (r, tail) = read_rows_lenient(p)?;
        if let Some(t) = tail {
            eprintln!("note: {}: skipped its cut last row, {t}", p.display());
        }
        writeln!(out, "  {:>7} rows  {}", r.len(), p.display())?;
        rows.extend(r);
    }
    Ok(rows)
}

fn dataset(paths: &[PathBuf], out: &mut impl Write) -> Result<Dataset> {
    let rows = read_all(paths, out)?;
    let ds = Dataset::from_rows(&rows, &Target::H200);
    writeln!(
        out,
        "dataset: {} samples on {} problems (left out: {} unparsed names, {} not admitted any more, {} problems with < 2 ok kernels; {} repeated pairs merged)",
        ds.len(),
        ds.problems.len(),
        ds.unparsed,
        ds.not_admitted,
        ds.too_few,
        ds.repeated
    )?;
    if ds.is_empty() {
        bail!("no problem has two verified ok kernel rows: nothing to learn from or to rank");
    }
    Ok(ds)
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
                "  rule vs model, {label:<13} {:>4} problems: rule efficiency geomean {:.3} P10 {:.3} worst {:.3} top-1 {:.3}; model geomean {:.3} P10 {:.3} worst {:.3} top-1 {:.3}",
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

/// Runs `gconv train`.
pub fn train(a: TrainArgs) -> Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    let ds = dataset(&a.data, &mut out)?;
    let options = TrainOptions {
        trees: a.trees,
        max_depth: a.depth,
        learning_rate: a.learning_rate,
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
    let mut out = std::io::stdout().lock();
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
    let model = load(&a.model)?;
    let target = Target::H200;
    let pool = catalogue::pool(problem.direction, problem.dtype, Families::All);
    if pool.is_empty() {
        bail!(
            "no kernel pool exists for {} {}",
            problem.direction,
            problem.dtype
        );
    }
    let t = Instant::now();
    let mut admitted = Vec::new();
    let mut refused = Vec::new();
    for cfg in &pool {
        match admit(cfg, &problem, &target) {
            Ok(ad) => admitted.push(ad),
            Err(r) => refused.push((cfg.to_string(), r)),
        }
    }
    let ctx = Candidates::of(&problem, &target);
    let t_gate = t.elapsed();
    let rows: Vec<Vec<f64>> = admitted.iter().map(|a| features(a, &ctx)).collect();
    let t_feat = t.elapsed();
    let refs: Vec<&[f64]> = rows.iter().map(|r| r.as_slice()).collect();
    let pred = model.predict(&refs);
    let elapsed = t.elapsed();
    // The decision again, warm (what `auto` pays in a process that has decided before): the
    // median of 21 repetitions of gate, candidate context, features and model.
    let mut warm: Vec<f64> = (0..21)
        .map(|_| {
            let t = Instant::now();
            let adm: Vec<_> = pool
                .iter()
                .filter_map(|c| admit(c, &problem, &target).ok())
                .collect();
            let ctx = Candidates::of(&problem, &target);
            let rows: Vec<Vec<f64>> = adm.iter().map(|a| features(a, &ctx)).collect();
            let refs: Vec<&[f64]> = rows.iter().map(|r| r.as_slice()).collect();
            std::hint::black_box(model.predict(&refs));
            t.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    warm.sort_by(f64::total_cmp);
    let mut order: Vec<usize> = (0..admitted.len()).collect();
    order.sort_by(|&x, &y| pred[x].total_cmp(&pred[y]));
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "problem {problem}: {} of {} pool members admitted, ranked in {:.0} µs cold (gate and context {:.0}, features {:.0}, model {:.0}), {:.0} µs warm (median of 21)",
        admitted.len(),
        pool.len(),
        elapsed.as_secs_f64() * 1e6,
        t_gate.as_secs_f64() * 1e6,
        (t_feat - t_gate).as_secs_f64() * 1e6,
        (elapsed - t_feat).as_secs_f64() * 1e6,
        warm[warm.len() / 2]
    )?;
    let best = order.first().map(|&i| pred[i]).unwrap_or(0.0);
    for (rank, &i) in order.iter().take(a.top).enumerate() {
        writeln!(
            out,
            "  {:>2}. {}  predicted {:.3}x the best ({:+.3} log)",
            rank + 1,
            admitted[i].config(),
            (pred[i] - best).exp(),
            pred[i]
        )?;
    }
    for (name, r) in refused.iter().take(a.top) {
        writeln!(out, "  refused {name}: {}: {r}", r.reason())?;
    }
    if refused.len() > a.top {
        writeln!(out, "  ... and {} more refused", refused.len() - a.top)?;
    }
    if admitted.is_empty() {
        bail!("no pool member runs {problem}");
    }
    Ok(ExitCode::SUCCESS)
}
