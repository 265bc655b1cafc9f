//! A tiny SVG chart builder: escaping, linear and log scales with their
//! ticks, and one [`Chart`] rendered as an inline `<svg>` whose every data
//! point is a `<circle class="pt">` inside its series' `<g class="series">`
//! (the DOM contract of docs/html.md).
//!
//! Hand-made rather than a plotting crate's backend: the markup is ours to
//! promise (classes and data attributes a test counts), it needs no font or
//! system library, and the page stays small.

use std::fmt::Write;

use crate::report::html::marks;
use crate::report::html::scale::{Scale, ScaleKind, format_number, format_percentile};

/// The chart's size in SVG units; the page scales it to its column.
const WIDTH: f64 = 900.0;
const HEIGHT: f64 = 330.0;
/// Room for the y ticks and title, the x ticks and title, and the title.
const LEFT: f64 = 78.0;
const RIGHT: f64 = 40.0;
const TOP: f64 = 34.0;
const BOTTOM: f64 = 52.0;

/// Escapes text for HTML and SVG, in element content and in quoted
/// attributes alike.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // A control character is not allowed in HTML text; it shows as a
            // replacement mark rather than break the document.
            c if c.is_control() && c != '\n' && c != '\t' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// How an axis writes its tick labels.
#[derive(Debug, Clone, PartialEq)]
pub enum TickFormat {
    /// A number, shortened with k and M.
    Number,
    /// HdrHistogram's percentile axis: the value is 1/(1-q), the label q
    /// (`90%`, `99%`, `99.9%`).
    Percentile,
    /// One label per whole value from 0 (a sweep's cells).
    Labels(Vec<String>),
}

/// One axis: its scale kind, title and tick labels; the domain is the
/// data's unless fixed.
#[derive(Debug, Clone, PartialEq)]
pub struct Axis {
    /// Under or beside the axis.
    pub title: String,
    /// Linear or log.
    pub kind: ScaleKind,
    /// How ticks read.
    pub format: TickFormat,
    /// Start a linear axis at 0 whatever the data.
    pub from_zero: bool,
}

impl Axis {
    /// A linear axis of numbers.
    pub fn linear(title: &str) -> Axis {
        Axis {
            title: title.into(),
            kind: ScaleKind::Linear,
            format: TickFormat::Number,
            from_zero: false,
        }
    }

    /// A linear axis that starts at 0.
    pub fn from_zero(title: &str) -> Axis {
        Axis {
            from_zero: true,
            ..Axis::linear(title)
        }
    }

    /// A log axis of numbers.
    pub fn log(title: &str) -> Axis {
        Axis {
            kind: ScaleKind::Log10,
            ..Axis::linear(title)
        }
    }

    fn domain(&self, values: impl Iterator<Item = f64>) -> (f64, f64) {
        let mut lo = f64::INFINITY;
        let mut hi = f64::NEG_INFINITY;
        for v in values.filter(|v| v.is_finite()) {
            if self.kind == ScaleKind::Log10 && v <= 0.0 {
                continue;
            }
            lo = lo.min(v);
            hi = hi.max(v);
        }
        if let TickFormat::Labels(labels) = &self.format {
            // Half a slot either side, so the first and last cells are not on the frame.
            return (-0.5, labels.len().max(1) as f64 - 0.5);
        }
        if lo > hi {
            return (0.0, 1.0);
        }
        match self.kind {
            ScaleKind::Linear if self.from_zero => (lo.min(0.0), hi * 1.05),
            ScaleKind::Linear => (lo, hi),
            // Out to the powers of ten around the data, so the axis ends on labels.
            ScaleKind::Log10 => (
                10f64.powf(lo.log10().floor()),
                10f64.powf(hi.log10().ceil()),
            ),
        }
    }

    fn label(&self, v: f64) -> String {
        match &self.format {
            TickFormat::Number => format_number(v),
            TickFormat::Percentile => format_percentile(v),
            TickFormat::Labels(labels) => labels
                .get(v.round().max(0.0) as usize)
                .cloned()
                .unwrap_or_default(),
        }
    }

    fn ticks(&self, scale: &Scale) -> Vec<f64> {
        match &self.format {
            TickFormat::Labels(labels) => (0..labels.len()).map(|i| i as f64).collect(),
            _ => scale.ticks(),
        }
    }
}

/// One series: its points, drawn as a line through circles.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// `data-series`: what the series is (`Totals`, `p99`).
    pub name: String,
    /// The legend's text.
    pub legend: String,
    /// More `data-*` attributes (`data-file`, `data-phase`), names without `data-`.
    pub data: Vec<(&'static str, String)>,
    /// A CSS colour.
    pub colour: &'static str,
    /// A `stroke-dasharray`, or none for a solid line.
    pub dash: Option<&'static str>,
    /// `(x, y)` in the axes' units.
    pub points: Vec<(f64, f64)>,
}

/// A labelled stretch of the x axis (a phase of one file).
#[derive(Debug, Clone, PartialEq)]
pub struct Band {
    /// Start, in x units.
    pub from: f64,
    /// End, in x units.
    pub to: f64,
    /// `WARM-UP`, `RUN #1`.
    pub label: String,
    /// The file whose phase it is (`data-file`): with several files each
    /// has its own row of bands, in its colour.
    pub file: String,
    /// The file's colour.
    pub colour: &'static str,
}

/// How a chart draws its series.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Plot {
    /// A line through the points: one quantity over a continuous x.
    Lines,
    /// A bar per point, the series of one x side by side: separate
    /// things (a suite's tests) that a line would wrongly join.
    Bars,
}

/// A vertical bar from `lo` to `hi` at `x`: a cell's slowest to fastest run.
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorBar {
    /// Where, in x units.
    pub x: f64,
    /// The low end, in y units.
    pub lo: f64,
    /// The high end.
    pub hi: f64,
    /// Its series' colour.
    pub colour: &'static str,
    /// `data-*` attributes (`data-file`, `data-cell`, `data-spread`).
    pub data: Vec<(&'static str, String)>,
    /// The tooltip: what the bar spans.
    pub title: String,
}

/// One chart.
#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    /// `data-chart`: which chart (`ops-per-second`).
    pub kind: &'static str,
    /// The heading above it.
    pub title: String,
    /// More `data-*` attributes of the `<svg>` (`data-op`).
    pub data: Vec<(&'static str, String)>,
    /// Horizontal.
    pub x: Axis,
    /// Vertical.
    pub y: Axis,
    /// Phases shaded behind the data.
    pub bands: Vec<Band>,
    /// The data.
    pub series: Vec<Series>,
    /// Lines or bars.
    pub plot: Plot,
    /// Run-to-run ranges drawn over the points.
    pub error_bars: Vec<ErrorBar>,
}

impl Chart {
    /// Every point of every series.
    pub fn point_count(&self) -> usize {
        self.series.iter().map(|s| s.points.len()).sum()
    }

    /// The `<figure>`: heading, `<svg>` and legend.
    pub fn render(&self) -> String {
        let xs = self
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.0))
            .chain(self.bands.iter().flat_map(|b| [b.from, b.to]));
        let ys = self
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.1))
            .chain(self.error_bars.iter().flat_map(|b| [b.lo, b.hi]));
        let frame = Frame::of(marks::band_rows(&self.bands).len());
        let x = Scale::new(self.x.kind, self.x.domain(xs), (LEFT, WIDTH - RIGHT));
        let y = Scale::new(self.y.kind, self.y.domain(ys), (frame.bottom(), frame.top));
        let mut out = String::new();
        let _ = write!(
            out,
            "<figure class=\"chart-box\"><figcaption>{}</figcaption>\n<svg class=\"chart\" data-chart=\"{}\"",
            escape(&self.title),
            self.kind
        );
        for (name, value) in &self.data {
            let _ = write!(out, " data-{name}=\"{}\"", escape(value));
        }
        let _ = writeln!(
            out,
            " data-points=\"{}\" viewBox=\"0 0 {WIDTH} {height}\" role=\"img\" aria-label=\"{}\">",
            self.point_count(),
            escape(&self.title),
            height = frame.height
        );
        marks::bands(&mut out, &self.bands, &x, &frame);
        self.render_axes(&mut out, &x, &y, &frame);
        let coincides = marks::series(&mut out, self, &x, &y, &frame);
        marks::error_bars(&mut out, &self.error_bars, &x, &y);
        out.push_str("</svg>\n");
        marks::legend(&mut out, &self.series, &coincides);
        out.push_str("</figure>\n");
        out
    }

    fn render_axes(&self, out: &mut String, x: &Scale, y: &Scale, frame: &Frame) {
        let (top, bottom, right) = (frame.top, frame.bottom(), WIDTH - RIGHT);
        out.push_str("<g class=\"axis x\">");
        let ticks = self.x.ticks(x);
        // Named ticks placed so that they never run into each other.
        let placed = match &self.x.format {
            TickFormat::Labels(labels) => {
                let slot = (right - LEFT) / labels.len().max(1) as f64;
                Some(crate::report::html::ticks::place(labels, slot))
            }
            _ => None,
        };
        for (i, t) in ticks.into_iter().enumerate() {
            let px = x.map(t);
            let (shown, row, title) = match placed.as_ref().and_then(|p| p.get(i)) {
                Some(p) => (p.shown.clone(), p.row, p.cut.then(|| self.x.label(t))),
                None => (self.x.label(t), 0, None),
            };
            let title = title
                .map(|t| format!("<title>{}</title>", escape(&t)))
                .unwrap_or_default();
            let _ = write!(
                out,
                "<line class=\"grid\" x1=\"{px:.1}\" y1=\"{top}\" x2=\"{px:.1}\" y2=\"{bottom}\"/><text class=\"tick\" x=\"{px:.1}\" y=\"{ty}\" text-anchor=\"middle\">{title}{}</text>",
                escape(&shown),
                ty = bottom + 16.0 + 13.0 * f64::from(row)
            );
        }
        let _ = writeln!(
            out,
            "<line class=\"frame\" x1=\"{LEFT}\" y1=\"{bottom}\" x2=\"{right}\" y2=\"{bottom}\"/><text class=\"axis-title\" x=\"{cx}\" y=\"{ty}\" text-anchor=\"middle\">{}</text></g>",
            escape(&self.x.title),
            cx = (LEFT + right) / 2.0,
            ty = frame.height - 10.0
        );
        out.push_str("<g class=\"axis y\">");
        for t in self.y.ticks(y) {
            let py = y.map(t);
            let _ = write!(
                out,
                "<line class=\"grid\" x1=\"{LEFT}\" y1=\"{py:.1}\" x2=\"{right}\" y2=\"{py:.1}\"/><text class=\"tick\" x=\"{tx}\" y=\"{ty:.1}\" text-anchor=\"end\">{}</text>",
                escape(&self.y.label(t)),
                tx = LEFT - 6.0,
                ty = py + 4.0
            );
        }
        let _ = writeln!(
            out,
            "<line class=\"frame\" x1=\"{LEFT}\" y1=\"{top}\" x2=\"{LEFT}\" y2=\"{bottom}\"/><text class=\"axis-title\" x=\"16\" y=\"{cy}\" text-anchor=\"middle\" transform=\"rotate(-90 16 {cy})\">{}</text></g>",
            escape(&self.y.title),
            cy = (top + bottom) / 2.0
        );
    }
}

/// Where the plot sits in the `<svg>`: rows of per-file bands push it down
/// and the `<svg>` grows by as much, so the plot keeps its height.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Frame {
    /// The plot's top edge.
    pub top: f64,
    /// The whole `<svg>`'s height.
    pub height: f64,
}

impl Frame {
    /// With `band_rows` rows of per-file bands above the plot.
    pub fn of(band_rows: usize) -> Frame {
        let rows = band_rows as f64 * marks::BAND_ROW;
        Frame {
            top: TOP + rows,
            height: HEIGHT + rows,
        }
    }

    /// The plot's bottom edge (the x axis).
    pub fn bottom(&self) -> f64 {
        self.height - BOTTOM
    }

    /// Where the band rows start.
    pub fn band_top(&self) -> f64 {
        TOP
    }
}

#[cfg(test)]
mod tests {
    use super::{Axis, Chart, Plot, Series, escape};

    #[test]
    fn escapes_markup_and_quotes() {
        assert_eq!(
            escape(r#"<script>alert("x") & 'y'</script>"#),
            "&lt;script&gt;alert(&quot;x&quot;) &amp; &#39;y&#39;&lt;/script&gt;"
        );
        assert_eq!(escape("a\u{0}b"), "a\u{FFFD}b");
    }

    #[test]
    fn a_chart_has_one_circle_per_point_and_escapes_its_names() {
        let chart = Chart {
            kind: "ops-per-second",
            title: "<b>".into(),
            data: vec![("op", "x\"y".into())],
            x: Axis::linear("s"),
            y: Axis::log("ms"),
            bands: Vec::new(),
            plot: Plot::Lines,
            error_bars: Vec::new(),
            series: vec![Series {
                name: "<script>".into(),
                legend: "a & b".into(),
                data: vec![("file", "f.json".into())],
                colour: "#123456",
                dash: None,
                points: vec![(0.0, 1.0), (1.0, 10.0), (2.0, 0.0)],
            }],
        };
        let html = chart.render();
        assert_eq!(html.matches("<circle class=\"pt\"").count(), 3);
        assert!(html.contains("data-series=\"&lt;script&gt;\" data-points=\"3\""));
        assert!(html.contains("data-op=\"x&quot;y\""));
        assert!(!html.contains("<script>") && !html.contains("<b>"));
        assert!(!html.contains("NaN") && !html.contains("inf"), "{html}");
    }
}
