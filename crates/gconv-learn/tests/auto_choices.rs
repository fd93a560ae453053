//! `auto`'s choices pinned: every problem of the registry (`gconv problems`, each key once) in
//! bf16, f16 and f32, through `select::choose` with every family and with each family alone,
//! its choice and who made it; for the bf16 problems with every family also a fingerprint of
//! the model's whole ranking (`select::rank`: every candidate's name and full prediction), so
//! that a change to the gate, the cost models, the features or the trees that would move a
//! validation metric shows here too. The golden file is `tests/golden/auto_choices.txt.gz` (gzip: 16,000 lines).
//!
//! A change that is meant to change choices (a retrained model, a new pool member) rewrites it
//! on purpose: `GCONV_BLESS=1 cargo test --release -p gconv-learn --test auto_choices`, and the
//! commit says so. A speed-up of the decision path must leave it as it is.

use flate2::read::GzDecoder;
use flate2::write::GzEncoder;
use flate2::Compression;
use gconv_kernels::catalogue::Families;
use gconv_kernels::{Family, Target};
use gconv_learn::select::{choose, rank, shipped, Source};
use gconv_problem::{DType, Problem};
use std::collections::BTreeSet;
use std::fmt::Write;
use std::io::{Read, Write as _};

const GOLDEN: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/golden/auto_choices.txt.gz"
);

/// FNV-1a, 64 bits: a fingerprint that needs no dependency and is the same on every machine.
fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// One line per (problem, families): `key families kernel source [ranking fingerprint]`.
fn choices() -> String {
    let model = shipped().expect("the shipped model loads");
    let keys: BTreeSet<String> = gconv_tune::registry::registry()
        .iter()
        .flat_map(|e| e.problems())
        .map(|p| p.to_string())
        .collect();
    let mut out = String::new();
    let t = Target::H200;
    for key in &keys {
        let p: Problem = key.parse().expect("a registry key parses");
        for dtype in [DType::Bf16, DType::F16, DType::F32] {
            let p = Problem { dtype, ..p };
            for (name, fam) in [
                ("all", Families::All),
                ("igemm", Families::Only(Family::Igemm)),
                ("direct", Families::Only(Family::Direct)),
            ] {
                let (kernel, source) = match choose(&p, &t, fam) {
                    Some(c) => (
                        c.admitted.config().to_string(),
                        match c.source {
                            Source::Model => "model".to_string(),
                            other => other.to_string().replace(' ', "_"),
                        },
                    ),
                    None => ("none".to_string(), "-".to_string()),
                };
                write!(out, "{p} {name} {kernel} {source}").expect("a string");
                if dtype == DType::Bf16 && name == "all" {
                    let r = rank(model, &p, &t, fam);
                    let mut text = String::new();
                    for c in &r.ranked {
                        // 12 significant digits: every bit that can move a ranking, and not
                        // the last bits of a libm that another machine may round differently.
                        write!(text, "{} {:.11e};", c.admitted.config(), c.predicted)
                            .expect("a string");
                    }
                    for (name, why) in &r.left_out {
                        write!(text, "{name} {why};").expect("a string");
                    }
                    write!(out, " {:016x}", fnv(&text)).expect("a string");
                }
                out.push('\n');
            }
        }
    }
    out
}

/// Every registry problem's `auto` choice (and bf16 ranking) is the golden file's.
#[test]
fn auto_choices_are_the_golden_ones() {
    let got = choices();
    if std::env::var_os("GCONV_BLESS").is_some_and(|v| v == "1") {
        let mut z = GzEncoder::new(Vec::new(), Compression::best());
        z.write_all(got.as_bytes()).expect("gzip in memory");
        std::fs::write(GOLDEN, z.finish().expect("gzip in memory")).expect("the golden file");
        return;
    }
    let mut want = String::new();
    GzDecoder::new(
        std::fs::File::open(GOLDEN)
            .expect("tests/golden/auto_choices.txt.gz (GCONV_BLESS=1 writes it)"),
    )
    .read_to_string(&mut want)
    .expect("the golden file is gzip text");
    let diff: Vec<String> = want
        .lines()
        .zip(got.lines())
        .filter(|(w, g)| w != g)
        .take(20)
        .map(|(w, g)| format!("  want {w}\n  got  {g}"))
        .collect();
    assert!(
        diff.is_empty() && want.lines().count() == got.lines().count(),
        "auto's choices moved ({} lines golden, {} now; GCONV_BLESS=1 accepts a change meant to \
         move them):\n{}",
        want.lines().count(),
        got.lines().count(),
        diff.join("\n")
    );
}
