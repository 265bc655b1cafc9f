//! A tiny SVG chart builder: escaping, linear and log scales with their
//! ticks, and one [`Chart`] rendered as an inline `<svg>` whose every data
//! point is a `<circle class="pt">` inside its series' `<g class="series">`
//! (the DOM contract of docs/html.md).
//!
//! Hand-made rather than a plotting crate's backend: the markup is ours to
//! promise (classes and data attributes a test counts), it needs no font or
//! system library, and the page stays small.

use std::fmt::Write;

/// The chart's size in SVG units; the page scales it to its column.
const WIDTH: f64 = 900.0;
const HEIGHT: f64 = 330.0;
/// Room for the y ticks and title, the x ticks and title, and the title.
const LEFT: f64 = 78.0;
const RIGHT: f64 = 18.0;
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

/// How an axis maps values to positions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScaleKind {
    /// Evenly spaced values.
    Linear,
    /// Evenly spaced powers of ten; values at or below 0 are left out.
    Log10,
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

/// A map from a domain of values to a range of pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scale {
    kind: ScaleKind,
    lo: f64,
    hi: f64,
    px_lo: f64,
    px_hi: f64,
}

impl Scale {
    /// `domain` onto `range`; a log scale's domain is clamped above 0 and an
    /// empty domain widened, so that every value maps somewhere finite.
    pub fn new(kind: ScaleKind, domain: (f64, f64), range: (f64, f64)) -> Scale {
        let (mut lo, mut hi) = domain;
        if kind == ScaleKind::Log10 {
            lo = lo.max(f64::MIN_POSITIVE);
            hi = hi.max(lo);
            if hi <= lo {
                hi = lo * 10.0;
            }
        } else if hi <= lo {
            hi = lo + 1.0;
        }
        Scale {
            kind,
            lo,
            hi,
            px_lo: range.0,
            px_hi: range.1,
        }
    }

    /// The pixel of `v` (clamped into the domain).
    pub fn map(&self, v: f64) -> f64 {
        let v = v.clamp(self.lo, self.hi);
        let t = match self.kind {
            ScaleKind::Linear => (v - self.lo) / (self.hi - self.lo),
            ScaleKind::Log10 => (v.log10() - self.lo.log10()) / (self.hi.log10() - self.lo.log10()),
        };
        self.px_lo + t * (self.px_hi - self.px_lo)
    }

    /// The tick values inside the domain.
    pub fn ticks(&self) -> Vec<f64> {
        match self.kind {
            ScaleKind::Linear => linear_ticks(self.lo, self.hi, 6),
            ScaleKind::Log10 => log_ticks(self.lo, self.hi),
        }
    }
}

/// About `target` ticks on a 1-2-5 step that cover `[lo, hi]`, every one
/// inside it.
pub fn linear_ticks(lo: f64, hi: f64, target: usize) -> Vec<f64> {
    if !(lo.is_finite() && hi.is_finite()) || hi <= lo {
        return vec![lo];
    }
    let raw = (hi - lo) / target.max(1) as f64;
    let magnitude = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * magnitude)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * magnitude);
    // A hair of slack, so that 0.3 / 0.1 = 2.9999999999999996 still ends on 0.3.
    let first = (lo / step - 1e-9).ceil() as i64;
    let last = (hi / step + 1e-9).floor() as i64;
    // Multiplying the index (not adding steps) keeps 0.3 from reading 0.30000000000000004.
    (first..=last).map(|i| i as f64 * step).collect()
}

/// The powers of ten inside `[lo, hi]`; with fewer than two, the 2 and 5
/// multiples too, so that a narrow log axis still has labels.
pub fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    if !(lo > 0.0 && hi >= lo && hi.is_finite()) {
        return Vec::new();
    }
    let from = lo.log10().floor() as i32;
    let to = hi.log10().ceil() as i32;
    let inside = |v: &f64| *v >= lo * (1.0 - 1e-9) && *v <= hi * (1.0 + 1e-9);
    let powers: Vec<f64> = (from..=to).map(|e| 10f64.powi(e)).filter(inside).collect();
    if powers.len() >= 2 {
        return powers;
    }
    (from..=to)
        .flat_map(|e| [1.0, 2.0, 5.0].map(|m| m * 10f64.powi(e)))
        .filter(inside)
        .collect()
}

/// A number for a tick or a table: `24k`, `1.5M`, `0.05`, `12`.
pub fn format_number(v: f64) -> String {
    let abs = v.abs();
    let (scaled, suffix) = if abs >= 1e6 {
        (v / 1e6, "M")
    } else if abs >= 1e4 {
        (v / 1e3, "k")
    } else {
        (v, "")
    };
    let text = if scaled.abs() >= 100.0 || scaled == scaled.trunc() {
        format!("{scaled:.0}")
    } else if scaled.abs() >= 1.0 {
        format!("{scaled:.2}")
    } else {
        format!("{scaled:.4}")
    };
    let text = if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    };
    format!("{text}{suffix}")
}

/// `1/(1-q)` written as the percentile q: 1 → `0%`, 10 → `90%`, 1000 → `99.9%`.
pub fn format_percentile(x: f64) -> String {
    if x <= 1.0 {
        return "0%".into();
    }
    let percent = 100.0 * (1.0 - 1.0 / x);
    // As many decimals as the nines need: 99.99 % has two.
    let decimals = (x.log10().round() as i32 - 2).max(0) as usize;
    format!("{percent:.decimals$}%")
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

/// A labelled stretch of the x axis (a phase).
#[derive(Debug, Clone, PartialEq)]
pub struct Band {
    /// Start, in x units.
    pub from: f64,
    /// End, in x units.
    pub to: f64,
    /// `WARM-UP`, `RUN #1`.
    pub label: String,
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
            .flat_map(|s| s.points.iter().map(|p| p.1));
        let x = Scale::new(self.x.kind, self.x.domain(xs), (LEFT, WIDTH - RIGHT));
        let y = Scale::new(self.y.kind, self.y.domain(ys), (HEIGHT - BOTTOM, TOP));
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
            " data-points=\"{}\" viewBox=\"0 0 {WIDTH} {HEIGHT}\" role=\"img\" aria-label=\"{}\">",
            self.point_count(),
            escape(&self.title)
        );
        self.render_bands(&mut out, &x);
        self.render_axes(&mut out, &x, &y);
        for s in &self.series {
            render_series(&mut out, s, &x, &y);
        }
        out.push_str("</svg>\n");
        self.render_legend(&mut out);
        out.push_str("</figure>\n");
        out
    }

    fn render_bands(&self, out: &mut String, x: &Scale) {
        for (i, b) in self.bands.iter().enumerate() {
            let (x0, x1) = (x.map(b.from), x.map(b.to));
            let _ = writeln!(
                out,
                "<g class=\"band\" data-band=\"{label}\"><rect class=\"band-{shade}\" x=\"{x0:.1}\" y=\"{TOP}\" width=\"{w:.1}\" height=\"{h}\"/><text class=\"band-label\" x=\"{tx:.1}\" y=\"{ty}\">{label}</text></g>",
                label = escape(&b.label),
                shade = i % 2,
                w = (x1 - x0).max(0.0),
                h = HEIGHT - TOP - BOTTOM,
                tx = x0 + 4.0,
                ty = TOP + 12.0,
            );
        }
    }

    fn render_axes(&self, out: &mut String, x: &Scale, y: &Scale) {
        let (bottom, right) = (HEIGHT - BOTTOM, WIDTH - RIGHT);
        out.push_str("<g class=\"axis x\">");
        for t in self.x.ticks(x) {
            let px = x.map(t);
            let _ = write!(
                out,
                "<line class=\"grid\" x1=\"{px:.1}\" y1=\"{TOP}\" x2=\"{px:.1}\" y2=\"{bottom}\"/><text class=\"tick\" x=\"{px:.1}\" y=\"{ty}\" text-anchor=\"middle\">{}</text>",
                escape(&self.x.label(t)),
                ty = bottom + 16.0
            );
        }
        let _ = writeln!(
            out,
            "<line class=\"frame\" x1=\"{LEFT}\" y1=\"{bottom}\" x2=\"{right}\" y2=\"{bottom}\"/><text class=\"axis-title\" x=\"{cx}\" y=\"{ty}\" text-anchor=\"middle\">{}</text></g>",
            escape(&self.x.title),
            cx = (LEFT + right) / 2.0,
            ty = HEIGHT - 10.0
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
            "<line class=\"frame\" x1=\"{LEFT}\" y1=\"{TOP}\" x2=\"{LEFT}\" y2=\"{bottom}\"/><text class=\"axis-title\" x=\"16\" y=\"{cy}\" text-anchor=\"middle\" transform=\"rotate(-90 16 {cy})\">{}</text></g>",
            escape(&self.y.title),
            cy = (TOP + bottom) / 2.0
        );
    }

    fn render_legend(&self, out: &mut String) {
        let mut seen: Vec<(&str, &str, Option<&str>)> = Vec::new();
        out.push_str("<ul class=\"legend\">");
        for s in &self.series {
            let key = (s.legend.as_str(), s.colour, s.dash);
            if seen.contains(&key) {
                continue;
            }
            seen.push(key);
            let _ = write!(
                out,
                "<li><svg class=\"swatch\" width=\"28\" height=\"10\" viewBox=\"0 0 28 10\"><line x1=\"1\" y1=\"5\" x2=\"27\" y2=\"5\" stroke=\"{}\" stroke-width=\"3\"{}/></svg>{}</li>",
                s.colour,
                dash_attribute(s.dash),
                escape(&s.legend)
            );
        }
        out.push_str("</ul>\n");
    }
}

fn dash_attribute(dash: Option<&str>) -> String {
    dash.map(|d| format!(" stroke-dasharray=\"{d}\""))
        .unwrap_or_default()
}

fn render_series(out: &mut String, s: &Series, x: &Scale, y: &Scale) {
    let _ = write!(
        out,
        "<g class=\"series\" data-series=\"{}\" data-points=\"{}\"",
        escape(&s.name),
        s.points.len()
    );
    for (name, value) in &s.data {
        let _ = write!(out, " data-{name}=\"{}\"", escape(value));
    }
    let _ = write!(out, "><title>{}</title>", escape(&s.legend));
    let mapped: Vec<(f64, f64)> = s
        .points
        .iter()
        .map(|&(a, b)| (x.map(a), y.map(b)))
        .collect();
    if mapped.len() > 1 {
        out.push_str("<polyline class=\"line\" points=\"");
        for (i, (px, py)) in mapped.iter().enumerate() {
            let sep = if i == 0 { "" } else { " " };
            let _ = write!(out, "{sep}{px:.1},{py:.1}");
        }
        let _ = write!(
            out,
            "\" fill=\"none\" stroke=\"{}\"{}/>",
            s.colour,
            dash_attribute(s.dash)
        );
    }
    // Dense series get smaller dots, so the line stays readable.
    let r = if mapped.len() > 120 { 1.4 } else { 2.6 };
    for (px, py) in &mapped {
        let _ = write!(
            out,
            "<circle class=\"pt\" cx=\"{px:.1}\" cy=\"{py:.1}\" r=\"{r}\" fill=\"{}\"/>",
            s.colour
        );
    }
    out.push_str("</g>\n");
}

#[cfg(test)]
mod tests {
    use super::{
        Axis, Chart, Scale, ScaleKind, Series, escape, format_number, format_percentile,
        linear_ticks, log_ticks,
    };

    #[test]
    fn escapes_markup_and_quotes() {
        assert_eq!(
            escape(r#"<script>alert("x") & 'y'</script>"#),
            "&lt;script&gt;alert(&quot;x&quot;) &amp; &#39;y&#39;&lt;/script&gt;"
        );
        assert_eq!(escape("a\u{0}b"), "a\u{FFFD}b");
    }

    #[test]
    fn linear_ticks_step_by_one_two_five_inside_the_domain() {
        assert_eq!(
            linear_ticks(0.0, 10.0, 5),
            vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0]
        );
        assert_eq!(linear_ticks(0.0, 0.3, 3).len(), 4);
        let t = linear_ticks(3.0, 97_000.0, 6);
        assert_eq!(t.first(), Some(&20_000.0));
        assert!(t.iter().all(|v| (3.0..=97_000.0).contains(v)), "{t:?}");
        assert_eq!(linear_ticks(5.0, 5.0, 6), vec![5.0]);
    }

    #[test]
    fn log_ticks_are_powers_of_ten_or_their_multiples_when_narrow() {
        assert_eq!(log_ticks(1.0, 1000.0), vec![1.0, 10.0, 100.0, 1000.0]);
        assert_eq!(log_ticks(0.02, 0.9), vec![0.02, 0.05, 0.1, 0.2, 0.5]);
        assert!(log_ticks(0.0, 10.0).is_empty());
    }

    #[test]
    fn scales_map_the_domain_onto_the_range() {
        let lin = Scale::new(ScaleKind::Linear, (0.0, 10.0), (100.0, 200.0));
        assert_eq!(lin.map(0.0), 100.0);
        assert_eq!(lin.map(5.0), 150.0);
        assert_eq!(lin.map(20.0), 200.0, "clamped");
        let log = Scale::new(ScaleKind::Log10, (1.0, 1000.0), (0.0, 300.0));
        assert!((log.map(10.0) - 100.0).abs() < 1e-9);
        assert!((log.map(100.0) - 200.0).abs() < 1e-9);
        // An empty domain is widened rather than divided by zero.
        let flat = Scale::new(ScaleKind::Linear, (4.0, 4.0), (0.0, 10.0));
        assert!(flat.map(4.0).is_finite());
    }

    #[test]
    fn numbers_and_percentiles_read_short() {
        assert_eq!(format_number(24_000.0), "24k");
        assert_eq!(format_number(1_500_000.0), "1.5M");
        assert_eq!(format_number(0.05), "0.05");
        assert_eq!(format_number(2.5), "2.5");
        assert_eq!(format_number(300.0), "300");
        assert_eq!(format_percentile(1.0), "0%");
        assert_eq!(format_percentile(10.0), "90%");
        assert_eq!(format_percentile(100.0), "99%");
        assert_eq!(format_percentile(1000.0), "99.9%");
        assert_eq!(format_percentile(1e5), "99.999%");
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
