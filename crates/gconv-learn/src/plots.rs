//! The validation plots, each as PNG and SVG: predicted against measured slowdown (one point per
//! measured kernel; log scale on both axes) and the efficiency CDF of the model and of the hand
//! rule over the problems. Text is drawn with DejaVu Sans embedded in the binary (the `dejavu`
//! crate, registered with plotters' `ab_glyph` font backend), so no system font is needed.

use crate::error::LearnError;
use crate::evaluate::Outcome;
use plotters::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Registers the embedded font once; an error names what failed.
fn font() -> Result<(), LearnError> {
    static DONE: OnceLock<Result<(), String>> = OnceLock::new();
    DONE.get_or_init(|| {
        plotters::style::register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular())
            .map_err(|_| "the embedded DejaVu Sans font does not parse".to_string())
    })
    .clone()
    .map_err(LearnError::Model)
}

fn plot_err(path: &Path, e: impl std::fmt::Display) -> LearnError {
    LearnError::Model(format!("cannot draw {}: {e}", path.display()))
}

/// One (measured, predicted) slowdown pair: `exp` of the labels.
pub type Pair = (f64, f64);

fn draw_scatter<DB: DrawingBackend>(
    root: DrawingArea<DB, plotters::coord::Shift>,
    pairs: &[Pair],
    title: &str,
) -> Result<(), String> {
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let hi = pairs
        .iter()
        .flat_map(|(a, b)| [*a, *b])
        .fold(1.0f64, f64::max)
        .clamp(1.5, 1e3);
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(56)
        .build_cartesian_2d((1.0f64..hi).log_scale(), (1.0f64..hi).log_scale())
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .x_desc("measured latency / problem's best")
        .y_desc("predicted")
        .label_style(("sans-serif", 14))
        .draw()
        .map_err(|e| e.to_string())?;
    chart
        .draw_series(LineSeries::new([(1.0, 1.0), (hi, hi)], BLACK.mix(0.5)))
        .map_err(|e| e.to_string())?;
    chart
        .draw_series(pairs.iter().map(|&(m, p)| {
            Circle::new(
                (m.clamp(1.0, hi), p.clamp(1.0, hi)),
                2,
                BLUE.mix(0.35).filled(),
            )
        }))
        .map_err(|e| e.to_string())?;
    root.present().map_err(|e| e.to_string())
}

fn cdf(mut v: Vec<f64>) -> Vec<(f64, f64)> {
    v.sort_by(f64::total_cmp);
    let n = v.len().max(1) as f64;
    v.iter()
        .enumerate()
        .map(|(i, e)| (*e, (i + 1) as f64 / n))
        .collect()
}

fn draw_cdf<DB: DrawingBackend>(
    root: DrawingArea<DB, plotters::coord::Shift>,
    outcomes: &[Outcome],
    title: &str,
) -> Result<(), String> {
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let model = cdf(outcomes.iter().map(|o| o.efficiency()).collect());
    let rule = cdf(outcomes
        .iter()
        .filter_map(|o| o.of_rule().map(|r| r.efficiency()))
        .collect());
    let lo = model
        .iter()
        .chain(&rule)
        .map(|p| p.0)
        .fold(1.0f64, f64::min)
        .clamp(0.0, 0.9);
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(56)
        .build_cartesian_2d(lo..1.0f64, 0.0f64..1.0f64)
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .x_desc("efficiency (oracle latency / chosen latency)")
        .y_desc("fraction of problems at or below")
        .label_style(("sans-serif", 14))
        .draw()
        .map_err(|e| e.to_string())?;
    for (pts, color, name) in [(&model, BLUE, "model"), (&rule, RED, "rule")] {
        if pts.is_empty() {
            continue;
        }
        let mut step = Vec::with_capacity(pts.len() * 2 + 1);
        let mut prev = 0.0;
        for &(x, y) in pts.iter() {
            step.push((x, prev));
            step.push((x, y));
            prev = y;
        }
        chart
            .draw_series(LineSeries::new(step, color.stroke_width(2)))
            .map_err(|e| e.to_string())?
            .label(format!("{name} ({} problems)", pts.len()))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], color));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .label_font(("sans-serif", 14))
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|e| e.to_string())?;
    root.present().map_err(|e| e.to_string())
}

/// Writes `scatter.{png,svg}` (predicted against measured slowdown) and
/// `efficiency_cdf.{png,svg}` into `dir` (created); returns the files written.
pub fn write_plots(
    dir: &Path,
    pairs: &[Pair],
    outcomes: &[Outcome],
    title: &str,
) -> Result<Vec<PathBuf>, LearnError> {
    font()?;
    std::fs::create_dir_all(dir).map_err(|e| LearnError::io(dir, e))?;
    let size = (800, 600);
    let mut out = Vec::new();
    let scatter_title = format!("{title}: predicted vs measured slowdown");
    let cdf_title = format!("{title}: efficiency CDF");
    // Each plot in both formats: the same drawing on the bitmap and on the SVG backend.
    macro_rules! png_and_svg {
        ($name:literal, $draw:ident, $data:expr, $title:expr) => {
            for ext in ["png", "svg"] {
                let p = dir.join(format!("{}.{ext}", $name));
                let drawn = if ext == "png" {
                    $draw(
                        BitMapBackend::new(&p, size).into_drawing_area(),
                        $data,
                        $title,
                    )
                } else {
                    $draw(SVGBackend::new(&p, size).into_drawing_area(), $data, $title)
                };
                drawn.map_err(|e| plot_err(&p, e))?;
                out.push(p);
            }
        };
    }
    png_and_svg!("scatter", draw_scatter, pairs, &scatter_title);
    png_and_svg!("efficiency_cdf", draw_cdf, outcomes, &cdf_title);
    Ok(out)
}
