//! What a [`Chart`] draws inside its frame, and its legend: the phase bands
//! (one shaded row per file when several files overlay), each series as a
//! line or as bars through its `<circle class="pt">` points, the error bars,
//! and a legend entry for every series that has points.
//!
//! Two series whose points fall on the same pixels would hide one another
//! while the legend lists both; the later one is drawn dashed, with smaller
//! dots, so the earlier shows through its gaps, and the legend says which
//! entry it coincides with (docs/html.md).

use std::fmt::Write;

use crate::report::html::scale::Scale;
use crate::report::html::svg::{Band, Chart, ErrorBar, Frame, Plot, Series, escape};

/// The height of one file's row of bands, SVG units.
pub const BAND_ROW: f64 = 16.0;

/// Two points closer than this (pixels, either way) are drawn on one another.
const SAME_PIXEL: f64 = 1.0;

/// The dash of a series drawn over one it coincides with: long enough gaps
/// for the colour beneath to show.
const OVER_DASH: &str = "5 5";

/// The share of an x slot the bars of one x take together.
const BAR_SLOT: f64 = 0.8;

/// The files of `bands` in the order met: one row each when there are
/// several; none with one file, whose bands shade the whole plot.
pub fn band_rows(bands: &[Band]) -> Vec<&str> {
    let mut files: Vec<&str> = Vec::new();
    for b in bands {
        if !files.contains(&b.file.as_str()) {
            files.push(&b.file);
        }
    }
    if files.len() > 1 { files } else { Vec::new() }
}

/// The bands: with one file shaded behind the whole plot; with several,
/// each file's phases in its own row above the plot, in its colour, with
/// a thin line down the plot where each of its phases starts.
pub fn bands(out: &mut String, bands: &[Band], x: &Scale, frame: &Frame) {
    let rows = band_rows(bands);
    for (i, b) in bands.iter().enumerate() {
        let (x0, x1) = (x.map(b.from), x.map(b.to));
        let w = (x1 - x0).max(0.0);
        let label = escape(&b.label);
        let file = escape(&b.file);
        let open = format!("<g class=\"band\" data-band=\"{label}\" data-file=\"{file}\">");
        let Some(row) = rows.iter().position(|f| *f == b.file) else {
            let _ = writeln!(
                out,
                "{open}<rect class=\"band-{shade}\" x=\"{x0:.1}\" y=\"{top}\" width=\"{w:.1}\" height=\"{h}\"/><text class=\"band-label\" x=\"{tx:.1}\" y=\"{ty}\">{label}</text></g>",
                shade = i % 2,
                top = frame.top,
                h = frame.bottom() - frame.top,
                tx = x0 + 4.0,
                ty = frame.top + 12.0,
            );
            continue;
        };
        let y0 = frame.band_top() + row as f64 * BAND_ROW;
        let _ = writeln!(
            out,
            "{open}<title>{file}: {label}</title><rect class=\"band-row\" x=\"{x0:.1}\" y=\"{y0}\" width=\"{w:.1}\" height=\"{h}\" fill=\"{c}\" fill-opacity=\"{o}\"/><line class=\"band-edge\" x1=\"{x0:.1}\" y1=\"{y0}\" x2=\"{x0:.1}\" y2=\"{bottom}\" stroke=\"{c}\"/><text class=\"band-label\" x=\"{tx:.1}\" y=\"{ty}\">{label}</text></g>",
            h = BAND_ROW - 2.0,
            c = b.colour,
            // Alternate phases of a row differ in shade, as the one-file bands do.
            o = if i % 2 == 0 { 0.18 } else { 0.30 },
            bottom = frame.bottom(),
            tx = x0 + 4.0,
            ty = y0 + 11.0,
        );
    }
}

fn dash_attribute(dash: Option<&str>) -> String {
    dash.map(|d| format!(" stroke-dasharray=\"{d}\""))
        .unwrap_or_default()
}

/// True when `a` and `b` have as many points and each pair is on the same pixels.
fn same_pixels(a: &[(f64, f64)], b: &[(f64, f64)]) -> bool {
    !a.is_empty()
        && a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(p, q)| (p.0 - q.0).abs() <= SAME_PIXEL && (p.1 - q.1).abs() <= SAME_PIXEL)
}

/// Every series of `chart`; returns, per series, the index of an earlier
/// series (with another legend) it is drawn over, if any.
pub fn series(
    out: &mut String,
    chart: &Chart,
    x: &Scale,
    y: &Scale,
    frame: &Frame,
) -> Vec<Option<usize>> {
    let drawn: Vec<usize> = (0..chart.series.len())
        .filter(|&i| !chart.series[i].points.is_empty())
        .collect();
    let mut mapped: Vec<Vec<(f64, f64)>> = Vec::with_capacity(chart.series.len());
    for (i, s) in chart.series.iter().enumerate() {
        // Bars of one x stand side by side, in the order of the series drawn.
        let offset = match (chart.plot, drawn.iter().position(|&d| d == i)) {
            (Plot::Bars, Some(k)) => {
                let width = BAR_SLOT / drawn.len() as f64;
                (k as f64 - (drawn.len() as f64 - 1.0) / 2.0) * width
            }
            _ => 0.0,
        };
        mapped.push(
            s.points
                .iter()
                .map(|&(a, b)| (x.map(a + offset), y.map(b)))
                .collect(),
        );
    }
    let mut coincides = vec![None; chart.series.len()];
    for i in 0..chart.series.len() {
        coincides[i] = (0..i).find(|&j| {
            chart.series[j].legend != chart.series[i].legend && same_pixels(&mapped[j], &mapped[i])
        });
    }
    let bar_px = match chart.plot {
        Plot::Bars => (x.map(BAR_SLOT / drawn.len().max(1) as f64) - x.map(0.0)).abs() * 0.9,
        Plot::Lines => 0.0,
    };
    for (i, s) in chart.series.iter().enumerate() {
        let over = coincides[i].map(|j| chart.series[j].legend.as_str());
        one_series(out, s, &mapped[i], chart.plot, bar_px, frame, over);
    }
    coincides
}

fn one_series(
    out: &mut String,
    s: &Series,
    mapped: &[(f64, f64)],
    plot: Plot,
    bar_px: f64,
    frame: &Frame,
    over: Option<&str>,
) {
    let _ = write!(
        out,
        "<g class=\"series\" data-series=\"{}\" data-points=\"{}\" data-legend=\"{}\"",
        escape(&s.name),
        s.points.len(),
        escape(&s.legend)
    );
    for (name, value) in &s.data {
        let _ = write!(out, " data-{name}=\"{}\"", escape(value));
    }
    if let Some(other) = over {
        let _ = write!(out, " data-coincides=\"{}\"", escape(other));
    }
    let _ = write!(out, "><title>{}</title>", escape(&s.legend));
    let dash = if over.is_some() {
        Some(OVER_DASH)
    } else {
        s.dash
    };
    match plot {
        Plot::Lines if mapped.len() > 1 => {
            out.push_str("<polyline class=\"line\" points=\"");
            for (i, (px, py)) in mapped.iter().enumerate() {
                let sep = if i == 0 { "" } else { " " };
                let _ = write!(out, "{sep}{px:.1},{py:.1}");
            }
            let _ = write!(
                out,
                "\" fill=\"none\" stroke=\"{}\"{}/>",
                s.colour,
                dash_attribute(dash)
            );
        }
        Plot::Lines => {}
        Plot::Bars => {
            for (px, py) in mapped {
                let _ = write!(
                    out,
                    "<rect class=\"bar\" x=\"{:.1}\" y=\"{py:.1}\" width=\"{bar_px:.1}\" height=\"{:.1}\" fill=\"{}\" fill-opacity=\"0.55\" stroke=\"{}\"{}/>",
                    px - bar_px / 2.0,
                    (frame.bottom() - py).max(0.0),
                    s.colour,
                    s.colour,
                    dash_attribute(s.dash)
                );
            }
        }
    }
    // Dense series get smaller dots, so the line stays readable; a series
    // drawn over another gets smaller ones still, so the dots beneath show
    // as rings.
    let r = if mapped.len() > 120 { 1.4 } else { 2.6 };
    let r = if over.is_some() { r * 0.55 } else { r };
    for (px, py) in mapped {
        let _ = write!(
            out,
            "<circle class=\"pt\" cx=\"{px:.1}\" cy=\"{py:.1}\" r=\"{r:.2}\" fill=\"{}\"/>",
            s.colour
        );
    }
    out.push_str("</g>\n");
}

/// Each error bar: a vertical line from `lo` to `hi` with a cap at each end.
pub fn error_bars(out: &mut String, bars: &[ErrorBar], x: &Scale, y: &Scale) {
    const CAP: f64 = 5.0;
    for b in bars {
        let (px, lo, hi) = (x.map(b.x), y.map(b.lo), y.map(b.hi));
        out.push_str("<g class=\"error-bar\"");
        for (name, value) in &b.data {
            let _ = write!(out, " data-{name}=\"{}\"", escape(value));
        }
        let _ = writeln!(
            out,
            "><title>{t}</title><line x1=\"{px:.1}\" y1=\"{lo:.1}\" x2=\"{px:.1}\" y2=\"{hi:.1}\" stroke=\"{c}\" stroke-width=\"1.4\"/><line x1=\"{a:.1}\" y1=\"{lo:.1}\" x2=\"{z:.1}\" y2=\"{lo:.1}\" stroke=\"{c}\" stroke-width=\"1.4\"/><line x1=\"{a:.1}\" y1=\"{hi:.1}\" x2=\"{z:.1}\" y2=\"{hi:.1}\" stroke=\"{c}\" stroke-width=\"1.4\"/></g>",
            t = escape(&b.title),
            c = b.colour,
            a = px - CAP,
            z = px + CAP,
        );
    }
}

/// One entry per legend text, colour and dash among the series that have
/// points (a series without any would name a line that is not there); an
/// entry drawn over another says so.
pub fn legend(out: &mut String, series: &[Series], coincides: &[Option<usize>]) {
    let mut seen: Vec<(&str, &str, Option<&str>)> = Vec::new();
    out.push_str("<ul class=\"legend\">");
    for s in series {
        let key = (s.legend.as_str(), s.colour, s.dash);
        if s.points.is_empty() || seen.contains(&key) {
            continue;
        }
        seen.push(key);
        // The entry's series (one per phase of a file): drawn over another
        // line in all of them, or only in some, which the entry names.
        let same: Vec<usize> = (0..series.len())
            .filter(|&k| {
                let t = &series[k];
                !t.points.is_empty() && (t.legend.as_str(), t.colour, t.dash) == key
            })
            .collect();
        let overs: Vec<(usize, usize)> = same
            .iter()
            .filter_map(|&k| Some((k, coincides.get(k).copied().flatten()?)))
            .collect();
        let whole = !overs.is_empty() && overs.len() == same.len();
        let over = overs.first().map(|&(_, j)| &series[j]);
        let dash = if whole { Some(OVER_DASH) } else { s.dash };
        let _ = write!(
            out,
            "<li data-legend=\"{l}\"><svg class=\"swatch\" width=\"28\" height=\"10\" viewBox=\"0 0 28 10\"><line x1=\"1\" y1=\"5\" x2=\"27\" y2=\"5\" stroke=\"{}\" stroke-width=\"3\"{}/></svg>{l}",
            s.colour,
            dash_attribute(dash),
            l = escape(&s.legend)
        );
        match over {
            Some(other) if whole => {
                let _ = write!(
                    out,
                    " <em class=\"coincides\">(on the line of {}, drawn dashed over it)</em>",
                    escape(&other.legend)
                );
            }
            Some(other) => {
                let phases: Vec<&str> = overs
                    .iter()
                    .filter_map(|&(k, _)| {
                        series[k]
                            .data
                            .iter()
                            .find(|(n, _)| *n == "phase")
                            .map(|(_, v)| v.as_str())
                    })
                    .collect();
                let part = if phases.is_empty() {
                    "in part".to_string()
                } else {
                    format!("in {}", phases.join(", "))
                };
                let _ = write!(
                    out,
                    " <em class=\"coincides\">({} on the line of {}, drawn dashed over it)</em>",
                    escape(&part),
                    escape(&other.legend)
                );
            }
            None => {}
        }
        out.push_str("</li>");
    }
    out.push_str("</ul>\n");
}
