//! Geometry of the heat map: rows (grouped) against columns, one cell a value, coloured by
//! its decade (a log scale) and printed in the cell. Used for the delay-loop probes: probe
//! point against CPU. Like the bar charts, all numbers are formatted with fixed decimals so
//! that the same data always gives the same bytes, and colours come from CSS classes.

use serde::Serialize;

use crate::charts::{Frame, WIDTH, f1};

/// One row: a label and one value (or none) per column.
#[derive(Debug, Clone, PartialEq)]
pub struct HeatRow {
    /// The row's name.
    pub label: String,
    /// One value per column, `None` where there is none.
    pub cells: Vec<Option<f64>>,
}

/// Rows under a common heading (e.g. the probes of one log).
#[derive(Debug, Clone, PartialEq)]
pub struct HeatGroup {
    /// The heading.
    pub label: String,
    /// Its rows.
    pub rows: Vec<HeatRow>,
}

/// A heat map of positive values on a log colour scale.
#[derive(Debug, Clone, PartialEq)]
pub struct Heatmap {
    /// The SVG's id.
    pub id: String,
    /// The map's name, read out by screen readers.
    pub title: String,
    /// What the map shows.
    pub desc: String,
    /// The unit of the values, shown in the legend (e.g. `ms`).
    pub unit: String,
    /// The column headings.
    pub columns: Vec<String>,
    /// The groups of rows, top to bottom.
    pub groups: Vec<HeatGroup>,
}

/// A heat map laid out for the `heatmap` template.
#[derive(Debug, Serialize)]
pub struct HeatmapSvg {
    #[serde(flatten)]
    frame: Frame,
    columns: Vec<TextSvg>,
    /// Group headings and rows in reading order.
    lines: Vec<LineSvg>,
    legend: Vec<CellSvg>,
    legend_title: TextSvg,
}

/// A group heading (no cells) or a row with its label and cells.
#[derive(Debug, Serialize)]
struct LineSvg {
    class: &'static str,
    anchor: &'static str,
    label: TextSvg,
    cells: Vec<CellSvg>,
}

#[derive(Debug, Serialize)]
struct TextSvg {
    x: String,
    y: String,
    text: String,
    /// The whole text when `text` had to be shortened (shown as a tooltip).
    full: Option<String>,
}

impl TextSvg {
    fn new(x: f64, y: f64, text: &str) -> Self {
        TextSvg {
            x: f1(x),
            y: f1(y),
            text: text.to_string(),
            full: None,
        }
    }

    /// A label of at most `max` characters, shortened with `…`.
    fn fitted(x: f64, y: f64, text: &str, max: usize) -> Self {
        if text.chars().count() <= max {
            return Self::new(x, y, text);
        }
        let short: String = text.chars().take(max.saturating_sub(1)).collect();
        TextSvg {
            full: Some(text.to_string()),
            ..Self::new(x, y, &format!("{short}…"))
        }
    }
}

#[derive(Debug, Serialize)]
struct CellSvg {
    x: String,
    y: String,
    width: String,
    height: String,
    text_x: String,
    text_y: String,
    text: String,
    /// `kl-heat-0` (lowest decade) .. `kl-heat-5` (highest).
    class: String,
    /// Light text on the dark shades.
    dark: bool,
}

const ROW: f64 = 24.0;
const HEADING: f64 = 26.0;
const TOP: f64 = 22.0;
const CHAR: f64 = 7.0;
/// The widest the row labels may be; longer labels are shortened.
const MAX_LEFT: f64 = 400.0;
/// Where the legend's swatches start, after its title.
const LEGEND_LEFT: f64 = 110.0;
/// Colour classes: the decades of the data are spread over this many shades.
const SHADES: usize = 6;

/// A value as printed in a cell: three significant digits at most, no exponent.
pub fn cell_text(v: f64) -> String {
    match v.abs() {
        a if a >= 100.0 => format!("{v:.0}"),
        a if a >= 10.0 => format!("{v:.1}"),
        _ => format!("{v:.2}"),
    }
}

/// The decade of a positive value: 0 for [1, 10), -1 for [0.1, 1), ...
fn decade(v: f64) -> i32 {
    // Values are positive and finite here; the clamp keeps a stray one in range.
    v.log10().floor().clamp(-300.0, 300.0) as i32
}

/// The decades the values span, lowest first (none when no value is positive).
fn decades(values: impl Iterator<Item = f64>) -> Option<(i32, i32)> {
    values
        .filter(|v| v.is_finite() && *v > 0.0)
        .map(decade)
        .fold(None, |span, d| match span {
            None => Some((d, d)),
            Some((lo, hi)) => Some((lo.min(d), hi.max(d))),
        })
}

/// The shade of a decade, spread evenly from 0 to `SHADES - 1` over `lo..=hi`.
fn shade(d: i32, lo: i32, hi: i32) -> usize {
    if hi <= lo {
        return SHADES - 1;
    }
    let span = f64::from(hi - lo);
    ((f64::from(d.clamp(lo, hi) - lo) * (SHADES - 1) as f64 / span).round()) as usize
}

/// A power of ten as a reader writes it: `1000`, `0.01`, or `1e12` when far from 1.
fn power_of_ten(e: i32) -> String {
    match e {
        0..=6 => format!("{}", 10u64.pow(e.unsigned_abs())),
        -6..=-1 => format!("{:.*}", e.unsigned_abs() as usize, 10f64.powi(e)),
        _ => format!("1e{e}"),
    }
}

/// The legend: per shade in use, the decades it covers, e.g. `10–100 ms`.
fn legend_labels(lo: i32, hi: i32, unit: &str) -> Vec<(usize, String)> {
    let mut entries: Vec<(usize, i32, i32)> = Vec::new();
    for d in lo..=hi {
        let s = shade(d, lo, hi);
        match entries.last_mut() {
            Some((last, _, top)) if *last == s => *top = d,
            _ => entries.push((s, d, d)),
        }
    }
    entries
        .into_iter()
        .map(|(s, from, to)| {
            (
                s,
                format!("{}–{} {unit}", power_of_ten(from), power_of_ten(to + 1)),
            )
        })
        .collect()
}

impl Heatmap {
    /// Lay the heat map out.
    pub fn layout(&self) -> HeatmapSvg {
        let label_chars = self
            .groups
            .iter()
            .flat_map(|g| &g.rows)
            .map(|r| r.label.chars().count())
            .max()
            .unwrap_or(0);
        let left = (label_chars as f64 * CHAR + 16.0).clamp(80.0, MAX_LEFT);
        let max_chars = ((MAX_LEFT - 16.0) / CHAR) as usize;
        let n = self.columns.len().max(1) as f64;
        let cell_w = ((WIDTH - left - 8.0) / n).clamp(36.0, 96.0);
        let width = (left + cell_w * n + 8.0).max(WIDTH);
        let span = decades(
            self.groups
                .iter()
                .flat_map(|g| &g.rows)
                .flat_map(|r| r.cells.iter().flatten().copied()),
        );
        let cell = |x: f64, y: f64, w: f64, text: String, class: usize| CellSvg {
            x: f1(x + 1.0),
            y: f1(y + 1.0),
            width: f1(w - 2.0),
            height: f1(ROW - 2.0),
            text_x: f1(x + w / 2.0),
            text_y: f1(y + ROW / 2.0 + 4.0),
            text,
            class: format!("kl-heat-{class}"),
            dark: class >= SHADES / 2,
        };
        let columns = self
            .columns
            .iter()
            .enumerate()
            .map(|(i, c)| TextSvg::new(left + cell_w * (i as f64 + 0.5), TOP - 8.0, c))
            .collect();
        let mut lines = Vec::new();
        let mut y = TOP;
        for group in &self.groups {
            lines.push(LineSvg {
                class: "kl-heading",
                anchor: "start",
                label: TextSvg::fitted(4.0, y + HEADING - 8.0, &group.label, 100),
                cells: Vec::new(),
            });
            y += HEADING;
            for row in &group.rows {
                let label = TextSvg::fitted(left - 8.0, y + ROW / 2.0 + 4.0, &row.label, max_chars);
                let mut cells = Vec::new();
                for (i, value) in row.cells.iter().enumerate() {
                    let x = left + cell_w * i as f64;
                    let (text, class) = match (value, span) {
                        (Some(v), Some((lo, hi))) if v.is_finite() && *v > 0.0 => {
                            (cell_text(*v), shade(decade(*v), lo, hi))
                        }
                        (Some(v), _) => (cell_text(*v), 0),
                        (None, _) => continue,
                    };
                    cells.push(cell(x, y, cell_w, text, class));
                }
                lines.push(LineSvg {
                    class: "kl-label",
                    anchor: "end",
                    label,
                    cells,
                });
                y += ROW;
            }
        }
        // The legend: one swatch per decade the data spans.
        y += 12.0;
        let legend_title = TextSvg::new(
            4.0,
            y + ROW / 2.0 + 4.0,
            &format!("{} per decade:", self.unit),
        );
        let legend = span
            .map(|(lo, hi)| {
                let labels = legend_labels(lo, hi, &self.unit);
                let swatch_w = ((width - 8.0 - LEGEND_LEFT) / labels.len() as f64).min(110.0);
                labels
                    .into_iter()
                    .enumerate()
                    .map(|(i, (s, label))| {
                        cell(LEGEND_LEFT + swatch_w * i as f64, y, swatch_w, label, s)
                    })
                    .collect()
            })
            .unwrap_or_default();
        let height = y + ROW + 8.0;
        HeatmapSvg {
            frame: Frame::new(&self.id, &self.title, &self.desc, width, height),
            columns,
            lines,
            legend,
            legend_title,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(values: &[Option<f64>]) -> Heatmap {
        Heatmap {
            id: "h".into(),
            title: "t".into(),
            desc: "d".into(),
            unit: "ms".into(),
            columns: (0..values.len()).map(|i| format!("CPU{i}")).collect(),
            groups: vec![HeatGroup {
                label: "run".into(),
                rows: vec![HeatRow {
                    label: "entry".into(),
                    cells: values.to_vec(),
                }],
            }],
        }
    }

    fn cells(svg: &HeatmapSvg) -> Vec<&CellSvg> {
        svg.lines.iter().flat_map(|l| &l.cells).collect()
    }

    #[test]
    fn shades_follow_the_decades_of_the_data() {
        // 1.6 ms .. 2812 ms spans four decades: 1-10, 10-100, 100-1000, 1000-10000.
        let svg = map(&[Some(1.6), Some(64.0), Some(2812.0), None, Some(0.0)]).layout();
        let cells = cells(&svg);
        let classes: Vec<&str> = cells.iter().map(|c| c.class.as_str()).collect();
        assert_eq!(
            classes,
            ["kl-heat-0", "kl-heat-2", "kl-heat-5", "kl-heat-0"]
        );
        assert_eq!(cells[2].text, "2812");
        assert!(cells[2].dark && !cells[0].dark);
        let legend: Vec<&str> = svg.legend.iter().map(|c| c.text.as_str()).collect();
        assert_eq!(
            legend,
            ["1–10 ms", "10–100 ms", "100–1000 ms", "1000–10000 ms"]
        );
    }

    #[test]
    fn one_decade_and_small_values() {
        let svg = map(&[Some(0.05), Some(0.07)]).layout();
        assert!(cells(&svg).iter().all(|c| c.class == "kl-heat-5"));
        assert_eq!(svg.legend[0].text, "0.01–0.1 ms");
        assert_eq!(cell_text(0.05), "0.05");
        assert_eq!(cell_text(12.34), "12.3");
        let mut long = map(&[Some(1.0)]);
        long.groups[0].rows[0].label = "x".repeat(100);
        let svg = long.layout();
        assert_eq!(
            svg.lines[1].label.text.chars().count(),
            (MAX_LEFT - 16.0) as usize / 7
        );
        assert!(svg.lines[1].label.text.ends_with('…'));
        assert_eq!(
            svg.lines[1].label.full.as_deref(),
            Some("x".repeat(100).as_str())
        );
    }

    #[test]
    fn the_legend_fits_the_width() {
        for values in [vec![Some(1.0), Some(1e5)], vec![Some(1e-9), Some(1e9)]] {
            let svg = map(&values).layout();
            let last = svg.legend.last().unwrap();
            let right = last.x.parse::<f64>().unwrap() + last.width.parse::<f64>().unwrap();
            assert!(
                right <= f64::from(svg.frame.width),
                "{right} > {}",
                svg.frame.width
            );
        }
    }

    #[test]
    fn no_values_no_legend_and_same_bytes_twice() {
        let m = map(&[None, None]);
        assert!(m.layout().legend.is_empty());
        let wide = map(&[Some(f64::MAX), Some(f64::MIN_POSITIVE)]);
        // Decades are clamped to ±300: six shades over 600 decades, 120 each.
        let legend = wide.layout().legend;
        assert_eq!(legend.len(), SHADES, "decades share the six shades");
        assert_eq!(legend[0].text, "1e-300–1e-240 ms");
        assert_eq!(legend[5].text, "1e240–1e301 ms");
        assert_eq!(
            format!("{:?}", wide.layout()),
            format!("{:?}", wide.layout())
        );
    }
}
