//! The model on committed oracle data: training is deterministic, a saved model predicts
//! exactly what it predicted before saving, a model of another feature set is refused, and
//! cross-validation scores every problem once.

use gconv_kernels::Target;
use gconv_learn::model::SCREEN;
use gconv_learn::{cross_validate, evaluate, Dataset, Model, TrainOptions};
use gconv_tune::read_rows;
use std::path::PathBuf;

fn data() -> Dataset {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/oracle/h200");
    let rows = read_rows(&root.join("wgrad_2d.shard-0-of-8.csv.gz")).expect("committed data");
    Dataset::from_rows(&rows, &Target::H200)
}

fn small() -> TrainOptions {
    TrainOptions {
        trees: 40,
        ..TrainOptions::default()
    }
}

#[test]
fn training_is_deterministic_and_saved_models_predict_the_same() {
    let ds = data();
    assert!(ds.problems.len() >= 30, "{} problems", ds.problems.len());
    let samples: Vec<_> = ds.samples().collect();
    let a = Model::train(&samples, small()).unwrap();
    let b = Model::train(&samples, small()).unwrap();
    let rows: Vec<&[f64]> = samples.iter().map(|s| s.features.as_slice()).collect();
    let pa = a.predict(&rows);
    assert_eq!(pa, b.predict(&rows), "same data, same options, same model");
    assert_eq!(
        pa,
        a.predict_with_booster(&rows),
        "the flat forest predicts forust's bits"
    );
    let dir = tempfile::tempdir().unwrap();
    a.save(dir.path()).unwrap();
    let c = Model::load(dir.path()).unwrap();
    assert_eq!(
        c.predict(&rows),
        pa,
        "a loaded model predicts exactly the same"
    );
    assert_eq!(c.meta, a.meta);
    assert!(c.trained_on(&samples[0].problem));
    // It learned something: on its training data it ranks far better than chance.
    let outcomes = evaluate(&c, &ds);
    let geo: f64 =
        (outcomes.iter().map(|o| o.efficiency().ln()).sum::<f64>() / outcomes.len() as f64).exp();
    assert!(geo > 0.9, "training-set efficiency {geo}");
    // Another feature set is refused with a message that says what to do.
    let meta = dir.path().join("meta.json");
    let text = std::fs::read_to_string(&meta).unwrap();
    let changed = text.replace(&a.meta.feature_hash, "0000000000000000");
    std::fs::write(&meta, changed).unwrap();
    let e = Model::load(dir.path()).unwrap_err().to_string();
    assert!(e.contains("retrain"), "{e}");
    // A damaged booster file is an error, not a panic.
    std::fs::write(&meta, text).unwrap();
    std::fs::write(dir.path().join("booster.json.gz"), b"not gzip").unwrap();
    assert!(Model::load(dir.path()).is_err());
}

#[test]
fn cross_validation_scores_every_problem_once_on_held_out_geometries() {
    let ds = data();
    let cv = cross_validate(&ds, 3, small()).unwrap();
    assert_eq!(cv.len(), ds.problems.len());
    let mut keys: Vec<String> = cv.iter().map(|o| o.problem.to_string()).collect();
    keys.sort();
    keys.dedup();
    assert_eq!(keys.len(), cv.len());
    for o in &cv {
        assert!(o.efficiency() > 0.0 && o.efficiency() <= 1.0, "{o:?}");
        assert!(o.oracle_rank >= 1 && o.oracle_rank <= o.candidates);
    }
    assert!(cross_validate(&ds, 1, small()).is_err());
}

/// The oracle is the fastest of every measured member: made a member `auto` may not choose
/// (an atomic split-K twin's place), it is a top-5 miss ranked past the candidates, and
/// `eligible_oracle_rank` is where the model ranks the fastest candidate instead (as a plain
/// ranking of the candidates finds it); where the oracle is a candidate the two ranks agree.
/// `near_oracle` counts the members within `NEAR_TIE` of the oracle's latency.
#[test]
fn an_oracle_auto_cannot_choose_is_a_miss_and_the_fastest_candidate_is_ranked_apart() {
    use gconv_learn::evaluate::NEAR_TIE;
    let ds = data();
    let samples: Vec<_> = ds.samples().collect();
    let model = Model::train(&samples, small()).unwrap();
    let fastest = |s: &[gconv_learn::Sample], only_eligible: bool| {
        (0..s.len())
            .filter(|&i| s[i].eligible || !only_eligible)
            .min_by(|&a, &b| s[a].latency_ms.total_cmp(&s[b].latency_ms))
            .unwrap()
    };
    let mut demoted = ds.clone();
    for s in demoted.problems.values_mut() {
        let i = fastest(s, false);
        s[i].eligible = false;
    }
    let before = evaluate(&model, &ds);
    let after = evaluate(&model, &demoted);
    assert_eq!(before.len(), after.len());
    let (mut misses, mut atomic) = (0, 0);
    for ((o, a), s) in before.iter().zip(&after).zip(demoted.problems.values()) {
        // These old backward-weight rows have atomic split-K winners of their own.
        if o.oracle_eligible {
            assert_eq!(o.eligible_oracle_rank, o.oracle_rank, "{}", o.problem);
        } else {
            assert!(o.eligible_oracle_rank < o.oracle_rank, "{}", o.problem);
            atomic += 1;
        }
        let lat = s[fastest(s, false)].latency_ms;
        let near = s
            .iter()
            .filter(|x| x.latency_ms <= lat * (1.0 + NEAR_TIE))
            .count();
        assert_eq!(
            (o.near_oracle, a.near_oracle),
            (near, near),
            "{}",
            o.problem
        );
        let candidates: Vec<usize> = (0..s.len()).filter(|&i| s[i].eligible).collect();
        if candidates.is_empty() {
            continue;
        }
        assert!(!a.oracle_eligible, "{}", a.problem);
        assert_eq!(a.oracle_rank, candidates.len() + 1, "{}", a.problem);
        let rows: Vec<&[f64]> = candidates
            .iter()
            .map(|&i| s[i].features.as_slice())
            .collect();
        let order: Vec<usize> = model
            .ranking(&rows)
            .into_iter()
            .map(|r| candidates[r.0])
            .collect();
        let best = fastest(s, true);
        let want = order.iter().position(|&i| i == best).unwrap() + 1;
        assert_eq!(a.eligible_oracle_rank, want, "{}", a.problem);
        misses += usize::from(a.oracle_rank > 5);
    }
    let m = gconv_learn::Metrics::of(&after.iter().collect::<Vec<_>>()).unwrap();
    assert!(misses > 20 && atomic > 0, "{misses} {atomic}");
    assert!(m.top5_eligible > m.top5, "{m}");
}

/// The plots render with the embedded font only: PNG files with their signature and SVG files
/// whose text is there (no system font is looked up).
#[test]
fn plots_render_without_system_fonts() {
    let ds = data();
    let samples: Vec<_> = ds.samples().collect();
    let model = Model::train(&samples, small()).unwrap();
    let outcomes = evaluate(&model, &ds);
    let pairs = gconv_learn::evaluate::slowdowns(&model, &ds);
    assert_eq!(pairs.len(), ds.len());
    let dir = tempfile::tempdir().unwrap();
    let files = gconv_learn::plots::write_plots(dir.path(), &pairs, &outcomes, "test").unwrap();
    assert_eq!(files.len(), 4);
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        if f.extension().is_some_and(|e| e == "png") {
            assert_eq!(&bytes[1..4], b"PNG", "{}", f.display());
            assert!(
                bytes.len() > 10_000,
                "{}: {} bytes",
                f.display(),
                bytes.len()
            );
        } else {
            let text = String::from_utf8(bytes).unwrap();
            assert!(
                text.contains("<text") && text.contains("test:"),
                "{}",
                f.display()
            );
        }
    }
}

/// The screening cascade's choice written out plainly from whole-forest and first-trees
/// predictions: at each stage of `SCREEN` (when more rows are left than it keeps) the rows are
/// sorted by their sum of the first `trees` trees (ties: the earlier row) and the rest are set
/// aside; of the rows left, the lowest full prediction is the choice.
fn reference_choice(model: &Model, rows: &[&[f64]]) -> Option<usize> {
    let mut live: Vec<usize> = (0..rows.len()).collect();
    for st in SCREEN {
        if live.len() <= st.keep {
            continue;
        }
        let part = model.predict_first(rows, st.trees);
        live.sort_by(|&a, &b| part[a].total_cmp(&part[b]).then(a.cmp(&b)));
        live.truncate(st.keep);
    }
    let full = model.predict(rows);
    live.into_iter()
        .min_by(|&a, &b| full[a].total_cmp(&full[b]).then(a.cmp(&b)))
}

/// The ranking written out plainly: the cascade's choice, then every other row by its full
/// prediction (ties: the earlier row).
fn reference_ranking(model: &Model, rows: &[&[f64]]) -> Vec<usize> {
    let Some(first) = reference_choice(model, rows) else {
        return Vec::new();
    };
    let full = model.predict(rows);
    let mut rest: Vec<usize> = (0..rows.len()).filter(|&i| i != first).collect();
    rest.sort_by(|&a, &b| full[a].total_cmp(&full[b]).then(a.cmp(&b)));
    std::iter::once(first).chain(rest).collect()
}

/// `order` is `reference` (the plainly written first-model ranking), but for places 2 to
/// `RERANKED`, which a model with a pairwise model re-orders among themselves.
fn assert_ranking(model: &Model, order: &[usize], reference: &[usize]) {
    if !model.reranks() {
        assert_eq!(order, reference);
        return;
    }
    let k = order.len().min(gconv_learn::model::RERANKED);
    assert_eq!(order.first(), reference.first());
    assert_eq!(order[k..], reference[k..]);
    let (mut a, mut b) = (order[..k].to_vec(), reference[..k].to_vec());
    a.sort_unstable();
    b.sort_unstable();
    assert_eq!(a, b);
}

/// The fast paths give forust's answers and the cascade's: the complete-tree forest predicts
/// forust's bits with the shipped model (300 trees of depth 6) and a deeper one of fewer trees
/// than the cascade's last cut, `ranking` is the plainly written one on every problem (the
/// cascade's choice, then the rest by their full predictions, each row carrying its full
/// prediction), and `best` — what `auto` calls — is the first of it and the plainly written
/// cascade's choice.
#[test]
fn screened_ranking_best_and_complete_trees_agree_with_forust() {
    let ds = data();
    let samples: Vec<_> = ds.samples().collect();
    let deep = Model::train(
        &samples,
        TrainOptions {
            trees: 60,
            max_depth: 9,
            ..TrainOptions::default()
        },
    )
    .unwrap();
    let shipped = gconv_learn::select::shipped().expect("the shipped model loads");
    assert_eq!(shipped.trees(), 300);
    let mut picks = 0;
    let mut screened = 0;
    for model in [shipped, &deep] {
        let all: Vec<&[f64]> = samples.iter().map(|s| s.features.as_slice()).collect();
        assert_eq!(model.predict(&all), model.predict_with_booster(&all));
        // Missing values go where forust's missing branches send them.
        let holes: Vec<Vec<f64>> = samples
            .iter()
            .take(200)
            .enumerate()
            .map(|(i, s)| {
                let mut f = s.features.clone();
                for j in (i % 7..f.len()).step_by(5) {
                    f[j] = f64::NAN;
                }
                f
            })
            .collect();
        let holes: Vec<&[f64]> = holes.iter().map(|r| r.as_slice()).collect();
        assert_eq!(model.predict(&holes), model.predict_with_booster(&holes));
        let ranked: Vec<usize> = model.ranking(&holes).into_iter().map(|r| r.0).collect();
        assert_ranking(model, &ranked, &reference_ranking(model, &holes));
        assert_eq!(model.best(&holes), ranked.first().copied());
        assert_eq!(model.best(&holes), reference_choice(model, &holes));
        for rows in ds.problems.values() {
            let rows: Vec<&[f64]> = rows.iter().map(|s| s.features.as_slice()).collect();
            let ranking = model.ranking(&rows);
            let order: Vec<usize> = ranking.iter().map(|r| r.0).collect();
            assert_ranking(model, &order, &reference_ranking(model, &rows));
            assert_eq!(model.best(&rows), order.first().copied());
            assert_eq!(model.best(&rows), reference_choice(model, &rows));
            let full = model.predict(&rows);
            for &(i, p) in &ranking {
                assert_eq!(p.to_bits(), full[i].to_bits(), "row {i}");
            }
            let finalists = rows.len().min(SCREEN[SCREEN.len() - 1].keep);
            screened += usize::from(rows.len() > finalists);
            picks += 1;
        }
        assert_eq!(model.best(&[]), None);
        assert!(model.ranking(&[]).is_empty());
    }
    assert!(picks > 60, "{picks}");
    assert!(screened > 30, "only {screened} problems went through a cut");
}

/// A model trained on bf16 alone decides f16 too (its trees cannot split on the constant dtype
/// columns) but not f32; a model whose trees split on the dtype (here bf16 and f32 samples
/// whose labels differ by dtype) decides only the dtypes it was trained on.
#[test]
fn a_bf16_model_decides_f16_unless_its_trees_split_on_the_dtype() {
    use gconv_learn::features::FEATURES;
    use gconv_problem::DType;
    let ds = data();
    let samples: Vec<_> = ds.samples().cloned().collect();
    assert!(samples.iter().all(|s| s.problem.dtype == DType::Bf16));
    let refs: Vec<_> = samples.iter().collect();
    let bf16 = Model::train(&refs, small()).unwrap();
    assert!(bf16.decides_dtype(DType::Bf16));
    assert!(bf16.decides_dtype(DType::F16));
    assert!(!bf16.decides_dtype(DType::F32));
    let col = FEATURES.iter().position(|f| f == "p_dtype").unwrap();
    let f32_twins: Vec<_> = samples
        .iter()
        .map(|s| {
            let mut t = s.clone();
            t.problem.dtype = DType::F32;
            t.features[col] = 0.0;
            t.label += 1.0;
            t
        })
        .collect();
    let mixed: Vec<_> = samples.iter().chain(&f32_twins).collect();
    let split = Model::train(&mixed, small()).unwrap();
    assert!(split.decides_dtype(DType::Bf16) && split.decides_dtype(DType::F32));
    assert!(
        !split.decides_dtype(DType::F16),
        "its trees split on the dtype"
    );
}

/// The pairwise re-ranking: it keeps `auto`'s choice first (the ranking's first is
/// `Model::best`, with or without it), re-orders only places 2 to `RERANKED` (the rest is the
/// first model's order), changes that order somewhere, and a saved model re-ranks the same
/// after loading; its file must be there exactly when the options say the model re-ranks.
#[test]
fn the_pairwise_model_reorders_places_two_to_eight_and_keeps_the_choice() {
    use gconv_learn::model::RERANKED;
    let ds = data();
    let samples: Vec<_> = ds.samples().collect();
    let with = Model::train(&samples, small()).unwrap();
    let without = Model::train(
        &samples,
        TrainOptions {
            rerank: false,
            ..small()
        },
    )
    .unwrap();
    assert!(with.reranks() && !without.reranks());
    let dir = tempfile::tempdir().unwrap();
    with.save(dir.path()).unwrap();
    let loaded = Model::load(dir.path()).unwrap();
    let mut moved = 0;
    for s in ds.problems.values() {
        let rows: Vec<&[f64]> = s.iter().map(|x| x.features.as_slice()).collect();
        let a: Vec<usize> = with.ranking(&rows).into_iter().map(|r| r.0).collect();
        let b: Vec<usize> = without.ranking(&rows).into_iter().map(|r| r.0).collect();
        assert_eq!(a[0], with.best(&rows).unwrap(), "the choice stays first");
        assert_eq!(a[0], b[0], "the same first model, the same choice");
        let k = a.len().min(RERANKED);
        let (mut ha, mut hb) = (a[..k].to_vec(), b[..k].to_vec());
        ha.sort_unstable();
        hb.sort_unstable();
        assert_eq!(ha, hb, "the same first {k}, re-ordered");
        assert_eq!(a[k..], b[k..], "the rest in the first model's order");
        moved += usize::from(a != b);
        let c: Vec<usize> = loaded.ranking(&rows).into_iter().map(|r| r.0).collect();
        assert_eq!(a, c, "a loaded model re-ranks the same");
    }
    assert!(
        moved > 0,
        "the pairwise model moved no candidate on any problem"
    );
    // meta.json and the pairwise file must agree.
    let pairwise = dir.path().join("pairwise.json.gz");
    let bytes = std::fs::read(&pairwise).unwrap();
    std::fs::remove_file(&pairwise).unwrap();
    let e = Model::load(dir.path()).unwrap_err().to_string();
    assert!(e.contains("pairwise.json.gz is missing"), "{e}");
    std::fs::write(&pairwise, b"not gzip").unwrap();
    assert!(Model::load(dir.path()).is_err());
    std::fs::write(&pairwise, bytes).unwrap();
    // Saving the model without one removes the file, so the directory stays consistent.
    without.save(dir.path()).unwrap();
    assert!(!pairwise.exists());
    assert!(!Model::load(dir.path()).unwrap().reranks());
}
