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

/// A laid-out bar chart: the page-width drawing and, for a phone, a narrow one with each
/// label above its bar (`narrow`, which has none itself). The page shows one of the two.
#[derive(Debug, Serialize)]
pub struct HBarSvg {
    #[serde(flatten)]
    frame: Frame,
    /// `wide` or `narrow`: a CSS class that picks the drawing for the screen.
    variant: &'static str,
    /// The labels' `text-anchor`: `end` beside the bars, `start` above them.
    label_anchor: &'static str,
    narrow: Option<Box<HBarSvg>>,
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
    label_y: String,
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
/// The width of a bar chart's phone drawing: a 390 px screen's text column, so that it is
/// shown at about its own size and its 11-12 unit text stays above 10 px.
pub(crate) const NARROW_WIDTH: f64 = 340.0;
const ROW: f64 = 26.0;
/// A row of the phone drawing: the label's line, then the bar.
const STACKED_ROW: f64 = 40.0;
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
    /// Lay the chart out, for the page and for a phone.
    pub fn layout(&self) -> HBarSvg {
        let mut wide = self.plot(WIDTH, false);
        wide.narrow = Some(Box::new(self.plot(NARROW_WIDTH, true)));
        wide
    }

    /// One drawing, `width` units wide; `stacked` puts each label above its bar.
    fn plot(&self, width: f64, stacked: bool) -> HBarSvg {
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
        let left = if stacked {
            6.0
        } else {
            (label_chars as f64 * CHAR + 12.0).clamp(40.0, 260.0)
        };
        let right = width
            - (note_chars as f64 * CHAR + 12.0)
                .clamp(20.0, if stacked { width * 0.45 } else { 200.0 });
        let row = if stacked { STACKED_ROW } else { ROW };
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
        let plot_bottom = TOP + row * self.bars.len() as f64;
        let height = plot_bottom + AXIS;
        let bars = self
            .bars
            .iter()
            .enumerate()
            .map(|(i, b)| {
                // Stacked: the label's line (its baseline 14 units down), then the bar.
                let y = TOP + row * i as f64 + if stacked { 20.0 } else { (ROW - BAR) / 2.0 };
                let (x0, x1) = (x(b.start.min(b.end)), x(b.end.max(b.start)));
                BarSvg {
                    label: b.label.clone(),
                    label_x: f1(if stacked { left } else { left - 6.0 }),
                    label_y: f1(if stacked {
                        y - 6.0
                    } else {
                        y + BAR / 2.0 + 4.0
                    }),
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
        let id = if stacked {
            format!("{}-narrow", self.id)
        } else {
            self.id.clone()
        };
        HBarSvg {
            frame: Frame::new(&id, &self.title, &self.desc, width, height),
            variant: if stacked { "narrow" } else { "wide" },
            label_anchor: if stacked { "start" } else { "end" },
            narrow: None,
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

    fn two_bars() -> HBar {
        HBar {
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
        }
    }

    #[test]
    fn layout_is_deterministic_and_scaled() {
        let chart = two_bars();
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

    #[test]
    fn the_phone_drawing_puts_each_label_above_its_bar_within_its_width() {
        let svg = two_bars().layout();
        assert_eq!((svg.variant, svg.label_anchor), ("wide", "end"));
        let narrow = svg.narrow.as_deref().expect("a phone drawing");
        assert_eq!((narrow.variant, narrow.label_anchor), ("narrow", "start"));
        assert!(narrow.narrow.is_none());
        assert_eq!(narrow.frame.width, NARROW_WIDTH as u32);
        assert_eq!(
            narrow.frame.id, "c-narrow",
            "ids differ from the page drawing's"
        );
        let n = |v: &str| v.parse::<f64>().unwrap();
        for (i, bar) in narrow.bars.iter().enumerate() {
            assert!(n(&bar.label_y) < n(&bar.y), "label {i} above its bar");
            assert_eq!(
                n(&bar.label_x),
                n(&narrow.plot_left),
                "label {i} starts at the plot"
            );
            assert!(n(&bar.x) + n(&bar.width) <= n(&narrow.plot_right) + 0.05);
        }
        assert!(
            n(&narrow.bars[0].y) + n(&narrow.bars[0].height) < n(&narrow.bars[1].label_y) - 8.0
        );
    }
}
