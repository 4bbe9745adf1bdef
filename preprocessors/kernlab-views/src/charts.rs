//! Geometry of the SVG charts: everything is computed here and formatted with fixed
//! decimals, so that the same data always gives the same bytes. Colours come from CSS
//! classes (see the crate's `assets/kernlab.css`), so the charts follow the reader's mdBook theme.

use serde::Serialize;

/// One horizontal bar, from `start` to `end` on the value axis.
#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    /// The bar's name, left of the axis.
    pub label: String,
    /// Where the bar starts, in the axis' unit.
    pub start: f64,
    /// Where it ends.
    pub end: f64,
    /// Text shown after the bar (usually the value).
    pub note: String,
    /// A CSS class suffix: `kl-bar-<class>`.
    pub class: &'static str,
}

/// A horizontal bar chart (also used for timelines and ranges).
#[derive(Debug, Clone, PartialEq)]
pub struct HBar {
    /// The SVG's id (its title and description ids derive from it).
    pub id: String,
    /// The chart's name, read out by screen readers.
    pub title: String,
    /// What the chart shows, in a sentence or two.
    pub desc: String,
    /// The value axis' label.
    pub axis_label: String,
    /// The bars, top to bottom.
    pub bars: Vec<Bar>,
}

/// What every chart's `<svg>` element carries: ids for its title and description (read by
/// screen readers), and its size.
#[derive(Debug, Serialize)]
pub(crate) struct Frame {
    id: String,
    title: String,
    desc: String,
    pub(crate) width: u32,
    height: u32,
    view_box: String,
}

impl Frame {
    pub(crate) fn new(id: &str, title: &str, desc: &str, width: f64, height: f64) -> Self {
        let (width, height) = (width as u32, height as u32);
        Frame {
            id: id.to_string(),
            title: title.to_string(),
            desc: desc.to_string(),
            width,
            height,
            view_box: format!("0 0 {width} {height}"),
        }
    }
}

/// A bar chart laid out for the `hbar` template.
#[derive(Debug, Serialize)]
pub struct HBarSvg {
    #[serde(flatten)]
    frame: Frame,
    plot_left: String,
    plot_right: String,
    plot_bottom: String,
    axis_label: String,
    axis_label_x: String,
    axis_label_y: String,
    ticks: Vec<TickSvg>,
    bars: Vec<BarSvg>,
}

#[derive(Debug, Serialize)]
struct TickSvg {
    x: String,
    label: String,
    y1: String,
    y2: String,
    label_y: String,
}

#[derive(Debug, Serialize)]
struct BarSvg {
    label: String,
    label_x: String,
    text_y: String,
    x: String,
    y: String,
    width: String,
    height: String,
    note: String,
    note_x: String,
    class: &'static str,
}

/// The width of every chart: the text column of an mdBook page.
pub(crate) const WIDTH: f64 = 720.0;
const ROW: f64 = 26.0;
const BAR: f64 = 16.0;
const TOP: f64 = 10.0;
const AXIS: f64 = 40.0;
const CHAR: f64 = 7.2;

/// A coordinate as the SVG shows it: one decimal, so that the same data gives the same bytes.
pub(crate) fn f1(v: f64) -> String {
    format!("{v:.1}")
}

/// A "nice" step for about `target` ticks over `[0, max]`.
pub fn nice_step(max: f64, target: usize) -> f64 {
    if max <= 0.0 || !max.is_finite() {
        return 1.0;
    }
    let raw = max / target as f64;
    let magnitude = 10f64.powf(raw.log10().floor());
    let fraction = raw / magnitude;
    let nice = if fraction <= 1.0 {
        1.0
    } else if fraction <= 2.0 {
        2.0
    } else if fraction <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * magnitude
}

/// Tick label: as few decimals as the step needs.
fn tick_label(v: f64, step: f64) -> String {
    let decimals = if step >= 1.0 {
        0
    } else {
        (-step.log10().floor()) as usize
    };
    format!("{v:.decimals$}")
}

impl HBar {
    /// Lay the chart out.
    pub fn layout(&self) -> HBarSvg {
        let label_chars = self
            .bars
            .iter()
            .map(|b| b.label.chars().count())
            .max()
            .unwrap_or(0);
        let note_chars = self
            .bars
            .iter()
            .map(|b| b.note.chars().count())
            .max()
            .unwrap_or(0);
        let left = (label_chars as f64 * CHAR + 12.0).clamp(40.0, 260.0);
        let right = WIDTH - (note_chars as f64 * CHAR + 12.0).clamp(20.0, 200.0);
        let max = self
            .bars
            .iter()
            .map(|b| b.end.max(b.start))
            .fold(0.0_f64, f64::max);
        let step = nice_step(max, 6);
        let top_value = if max <= 0.0 {
            1.0
        } else {
            (max / step).ceil() * step
        };
        let scale = (right - left) / top_value;
        let x = |v: f64| left + v.max(0.0) * scale;
        let plot_bottom = TOP + ROW * self.bars.len() as f64;
        let height = plot_bottom + AXIS;
        let bars = self
            .bars
            .iter()
            .enumerate()
            .map(|(i, b)| {
                let y = TOP + ROW * i as f64 + (ROW - BAR) / 2.0;
                let (x0, x1) = (x(b.start.min(b.end)), x(b.end.max(b.start)));
                BarSvg {
                    label: b.label.clone(),
                    label_x: f1(left - 6.0),
                    text_y: f1(y + BAR / 2.0 + 4.0),
                    x: f1(x0),
                    y: f1(y),
                    width: f1((x1 - x0).max(1.0)),
                    height: f1(BAR),
                    note: b.note.clone(),
                    note_x: f1(x1 + 4.0),
                    class: b.class,
                }
            })
            .collect();
        let ticks = (0..)
            .map(|i| i as f64 * step)
            .take_while(|v| *v <= top_value + step / 2.0)
            .map(|v| TickSvg {
                x: f1(x(v)),
                label: tick_label(v, step),
                y1: f1(TOP),
                y2: f1(plot_bottom),
                label_y: f1(plot_bottom + 14.0),
            })
            .collect();
        HBarSvg {
            frame: Frame::new(&self.id, &self.title, &self.desc, WIDTH, height),
            plot_left: f1(left),
            plot_right: f1(right),
            plot_bottom: f1(plot_bottom),
            axis_label: self.axis_label.clone(),
            axis_label_x: f1((left + right) / 2.0),
            axis_label_y: f1(plot_bottom + 32.0),
            ticks,
            bars,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nice_steps() {
        assert_eq!(nice_step(16.6, 6), 5.0);
        assert_eq!(nice_step(0.09, 6), 0.02);
        assert_eq!(nice_step(5800.0, 6), 1000.0);
        assert_eq!(nice_step(0.0, 6), 1.0);
    }

    #[test]
    fn layout_is_deterministic_and_scaled() {
        let chart = HBar {
            id: "c".into(),
            title: "t".into(),
            desc: "d".into(),
            axis_label: "s".into(),
            bars: vec![
                Bar {
                    label: "CPU1".into(),
                    start: 0.0,
                    end: 10.0,
                    note: "10 s".into(),
                    class: "slow",
                },
                Bar {
                    label: "CPU2".into(),
                    start: 10.0,
                    end: 12.5,
                    note: "2.5 s".into(),
                    class: "fast",
                },
            ],
        };
        let a = format!("{:?}", chart.layout());
        let b = format!("{:?}", chart.layout());
        assert_eq!(a, b);
        let svg = chart.layout();
        assert_eq!(svg.ticks.len(), 4, "0, 5, 10, 15: {:?}", svg.ticks);
        assert_eq!(
            svg.bars[1].x,
            svg.bars[0]
                .note_x
                .parse::<f64>()
                .map(|v| f1(v - 4.0))
                .unwrap()
        );
    }
}
