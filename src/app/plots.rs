//! Rolling plots of the last ten seconds of simulation measurements.

use eframe::egui;
use std::collections::VecDeque;

use egui::{Color32, Mesh, Pos2, Rect, Shape, Ui};
use egui_plot::{
    ClosestElem, Line, Plot, PlotBounds, PlotGeometry, PlotItem, PlotItemBase, PlotPoints,
    PlotTransform,
};

use crate::scene::FrameStats;

/// How much history the plots keep, seconds of simulation time.
pub const WINDOW_SECONDS: f64 = 10.0;

/// One plotted measurement: its name, unit and how to read it from [`FrameStats`].
pub struct Metric {
    pub name: &'static str,
    pub unit: &'static str,
    /// Decimals in the label: a count has none.
    pub decimals: usize,
    /// The plot's scale reaches at least this far above zero (in `unit`), so a measurement
    /// that stays at its noise floor (the vertical stretch under hard constraints, a few
    /// millionths of a percent) draws as the flat line it is, not as noise blown up to fill
    /// the plot.
    pub least_top: f64,
    pub read: fn(&FrameStats) -> f64,
}

impl Metric {
    /// The values a plot of `line` (from [`History::points`]) shows at least, low and high:
    /// zero, [`Metric::least_top`] and every point.
    fn y_extent(&self, line: &[[f64; 2]]) -> [f64; 2] {
        line.iter().fold([0.0, self.least_top], |[lo, hi], p| {
            [lo.min(p[1]), hi.max(p[1])]
        })
    }
}

/// Every plotted measurement, in display order.
pub const METRICS: [Metric; 7] = [
    Metric {
        name: "Vertical stretch",
        unit: "%",
        decimals: 3,
        least_top: 1.0,
        read: |s| s.vertical_stretch_pct as f64,
    },
    Metric {
        name: "Horizontal stretch",
        unit: "%",
        decimals: 3,
        least_top: 1.0,
        read: |s| s.horizontal_stretch_pct as f64,
    },
    Metric {
        name: "Hem swing",
        unit: "m",
        decimals: 3,
        least_top: 0.05,
        read: |s| s.hem_swing_m as f64,
    },
    Metric {
        name: "Kinetic energy",
        unit: "J/kg",
        decimals: 3,
        least_top: 0.05,
        read: |s| s.kinetic_energy as f64,
    },
    Metric {
        name: "Max-distance saturation",
        unit: "%",
        decimals: 3,
        least_top: 1.0,
        read: |s| s.max_distance_saturation as f64 * 100.0,
    },
    Metric {
        name: "Torn links",
        unit: "links",
        decimals: 0,
        least_top: 1.0,
        read: |s| s.torn_links as f64,
    },
    Metric {
        name: "Time per step",
        unit: "ms",
        decimals: 3,
        least_top: 0.1,
        read: |s| s.step_seconds as f64 * 1000.0,
    },
];

/// The samples, oldest first: simulation time and the step's measurements.
#[derive(Default)]
pub struct History {
    samples: VecDeque<(f64, FrameStats)>,
}

impl History {
    /// Adds a sample and drops those older than the window. A time earlier than the last
    /// sample (a reset, a new clip) starts the history afresh.
    pub fn push(&mut self, t: f64, stats: FrameStats) {
        if !t.is_finite() {
            return;
        }
        if self.samples.back().is_some_and(|(last, _)| t < *last) {
            self.samples.clear();
        }
        self.samples.push_back((t, stats));
        while self
            .samples
            .front()
            .is_some_and(|(first, _)| t - first > WINDOW_SECONDS)
        {
            self.samples.pop_front();
        }
    }

    pub fn clear(&mut self) {
        self.samples.clear();
    }

    pub fn len(&self) -> usize {
        self.samples.len()
    }

    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    /// The latest sample's measurements.
    pub fn last(&self) -> Option<&FrameStats> {
        self.samples.back().map(|(_, s)| s)
    }

    /// The line of one measurement for a plot `columns` pixels wide: the samples in
    /// `columns / 2` runs, each drawn as its lowest and highest value in time order, so every
    /// peak stays and the line has at most one point per pixel column (egui tessellates, and
    /// a software rasteriser draws, every segment; more points would not show).
    fn points(&self, m: &Metric, columns: usize) -> Vec<[f64; 2]> {
        let runs = (columns / 2).max(1);
        let per_run = self.samples.len().div_ceil(runs).max(1);
        let mut out = Vec::with_capacity(2 * runs);
        let mut run: Option<([f64; 2], [f64; 2])> = None;
        for (i, (t, s)) in self.samples.iter().enumerate() {
            let p = [*t, (m.read)(s)];
            if p[1].is_finite() {
                run = Some(match run {
                    None => (p, p),
                    Some((lo, hi)) => (
                        if p[1] < lo[1] { p } else { lo },
                        if p[1] > hi[1] { p } else { hi },
                    ),
                });
            }
            if (i + 1) % per_run == 0 || i + 1 == self.samples.len() {
                if let Some((lo, hi)) = run.take() {
                    let (a, b) = if lo[0] <= hi[0] { (lo, hi) } else { (hi, lo) };
                    out.push(a);
                    if b != a {
                        out.push(b);
                    }
                }
            }
        }
        out
    }

    /// Draws one small plot per measurement, three per row; hovering shows values.
    pub fn ui(&self, ui: &mut Ui) {
        let width = ((ui.available_width() - 16.0) / 3.0).max(120.0);
        let rows = METRICS.len().div_ceil(3) as f32;
        let height = ((ui.available_height() - 12.0) / rows).clamp(50.0, 160.0);
        egui::Grid::new("plots").num_columns(3).show(ui, |ui| {
            for (i, m) in METRICS.iter().enumerate() {
                let last = self.last().map(|s| (m.read)(s)).unwrap_or(0.0);
                let unit = m.unit;
                ui.vertical(|ui| {
                    ui.label(format!("{}: {:.*} {}", m.name, m.decimals, last, unit));
                    let line = self.points(m, width as usize);
                    let [lo, hi] = m.y_extent(&line);
                    Plot::new(("plot", i))
                        .include_y(lo)
                        .include_y(hi)
                        .width(width)
                        .height(height - 18.0)
                        .allow_drag(false)
                        .allow_zoom(false)
                        .allow_scroll(false)
                        .show_axes([false, true])
                        .label_formatter(move |hover| {
                            let p = match hover {
                                egui_plot::HoverPosition::NearDataPoint { position, .. } => {
                                    position
                                }
                                egui_plot::HoverPosition::Elsewhere { position } => position,
                            };
                            Some(format!("t {:.2} s\n{:.4} {}", p.x, p.y, unit))
                        })
                        .show(ui, |plot_ui| {
                            plot_ui.add(Trace::new(m.name, line));
                        });
                });
                if i % 3 == 2 {
                    ui.end_row();
                }
            }
        });
    }
}

/// The colour of a plot's trace (egui_plot's first automatic colour).
fn trace_color() -> Color32 {
    egui::ecolor::Hsva::new(0.0, 0.85, 0.5, 1.0).into()
}

/// Width of a trace, points (egui_plot's line width).
const TRACE_WIDTH: f32 = 1.5;

/// A plot's line drawn as one flat mesh: each step between neighbouring points at most two
/// pixels apart is the box around it, a steeper step the quad along it. Drawn this way the
/// dense zigzag of a jittery measurement is a few hundred small boxes; as a stroked path
/// (egui's mitred, anti-aliased joins) it is thousands of long thin triangles, which on a
/// software rasteriser cost more than the 3D view's body. Hovering works as on a line: the
/// points are the inner line's.
struct Trace<'a> {
    line: Line<'a>,
}

impl Trace<'_> {
    fn new(name: &str, points: Vec<[f64; 2]>) -> Self {
        Self {
            line: Line::new(name, PlotPoints::from(points)).color(trace_color()),
        }
    }

    fn points(&self) -> &[egui_plot::PlotPoint] {
        match self.line.geometry() {
            PlotGeometry::Points(p) => p,
            _ => &[],
        }
    }
}

/// Adds the trace through `screen` (points in x order) to `mesh`, `width` thick.
fn trace_mesh(screen: &[Pos2], width: f32, color: Color32, mesh: &mut Mesh) {
    let half = width / 2.0;
    for w in screen.windows(2) {
        let (a, b) = (w[0], w[1]);
        if b.x - a.x <= 2.0 {
            let x1 = b.x.max(a.x + 1.0);
            let (lo, hi) = (a.y.min(b.y) - half, a.y.max(b.y) + half);
            mesh.add_colored_rect(
                Rect::from_min_max(Pos2::new(a.x, lo), Pos2::new(x1, hi)),
                color,
            );
        } else {
            let along = (b - a).normalized();
            let side = egui::vec2(-along.y, along.x) * half;
            let i = mesh.vertices.len() as u32;
            for p in [a - side, a + side, b + side, b - side] {
                mesh.colored_vertex(p, color);
            }
            mesh.add_triangle(i, i + 1, i + 2);
            mesh.add_triangle(i, i + 2, i + 3);
        }
    }
}

impl PlotItem for Trace<'_> {
    fn shapes(&self, _ui: &Ui, transform: &PlotTransform, shapes: &mut Vec<Shape>) {
        let screen: Vec<Pos2> = self
            .points()
            .iter()
            .map(|p| transform.position_from_point(p))
            .collect();
        let width = if self.highlighted() {
            2.0 * TRACE_WIDTH
        } else {
            TRACE_WIDTH
        };
        let mut mesh = Mesh::default();
        trace_mesh(&screen, width, self.color(), &mut mesh);
        shapes.push(Shape::mesh(mesh));
    }

    fn initialize(&mut self, x_range: std::ops::RangeInclusive<f64>) {
        self.line.initialize(x_range);
    }

    fn color(&self) -> Color32 {
        PlotItem::color(&self.line)
    }

    fn base(&self) -> &PlotItemBase {
        self.line.base()
    }

    fn base_mut(&mut self) -> &mut PlotItemBase {
        self.line.base_mut()
    }

    fn geometry(&self) -> PlotGeometry<'_> {
        self.line.geometry()
    }

    fn bounds(&self) -> PlotBounds {
        self.line.bounds()
    }

    fn find_closest(&self, point: Pos2, transform: &PlotTransform) -> Option<ClosestElem> {
        self.line.find_closest(point, transform)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_ten_seconds_and_restarts_on_rewind() {
        let mut h = History::default();
        for i in 0..1200 {
            h.push(i as f64 / 60.0, FrameStats::default());
        }
        assert!(h.len() <= 601 && h.len() >= 600, "{}", h.len());
        h.push(0.0, FrameStats::default());
        assert_eq!(h.len(), 1);
        h.push(f64::NAN, FrameStats::default());
        assert_eq!(h.len(), 1);
    }

    #[test]
    fn a_plot_draws_at_most_a_point_per_pixel_column_and_keeps_every_peak() {
        let mut h = History::default();
        for i in 0..600 {
            let hem_swing_m = match i {
                137 => 0.9,
                401 => -0.4,
                _ => (i as f32 * 0.05).sin() * 0.1,
            };
            let stats = FrameStats {
                hem_swing_m,
                ..FrameStats::default()
            };
            h.push(i as f64 / 60.0, stats);
        }
        let hem = &METRICS[2];
        assert_eq!(hem.name, "Hem swing");
        let line = h.points(hem, 200);
        assert!(line.len() <= 200 && line.len() >= 150, "{}", line.len());
        let peak = line.iter().map(|p| p[1]).fold(f64::MIN, f64::max);
        let dip = line.iter().map(|p| p[1]).fold(f64::MAX, f64::min);
        assert!(
            (peak - 0.9).abs() < 1e-6 && (dip + 0.4).abs() < 1e-6,
            "{peak} {dip}"
        );
        assert!(line.windows(2).all(|w| w[0][0] < w[1][0]), "in time order");
        assert_eq!(
            h.points(hem, 2000).len(),
            600,
            "a wide plot shows every sample"
        );
    }

    #[test]
    fn a_measurement_at_its_noise_floor_draws_flat_and_a_real_one_fills_its_plot() {
        let mut h = History::default();
        for i in 0..600 {
            let wobble = (i as f32 * 0.37).sin();
            let stats = FrameStats {
                // Hard constraints: the columns at rest length to a few millionths of a %.
                vertical_stretch_pct: 1e-6 * wobble.abs(),
                horizontal_stretch_pct: 6.0 + 2.0 * wobble,
                hem_swing_m: 0.1 * wobble,
                ..FrameStats::default()
            };
            h.push(i as f64 / 60.0, stats);
        }
        // The share of its plot's height the trace spans.
        let filled = |m: &Metric| {
            let line = h.points(m, 200);
            let [lo, hi] = m.y_extent(&line);
            let (a, b) = line
                .iter()
                .fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p[1]), b.max(p[1])));
            (b - a) / (hi - lo)
        };
        assert!(filled(&METRICS[0]) < 1e-5, "{}", filled(&METRICS[0]));
        assert!(filled(&METRICS[1]) > 0.45, "{}", filled(&METRICS[1]));
        // A swing either side of rest: the scale holds both sides and zero.
        assert!(filled(&METRICS[2]) > 0.95, "{}", filled(&METRICS[2]));
        // Every plot has a scale to draw on, even with nothing in it yet.
        for m in &METRICS {
            let [lo, hi] = m.y_extent(&[]);
            assert!(lo == 0.0 && hi > 0.0, "{}", m.name);
        }
    }

    /// The bounding box of each triangle of `mesh`.
    fn triangle_boxes(mesh: &Mesh) -> Vec<Rect> {
        mesh.indices
            .chunks(3)
            .map(|t| Rect::from_points(&[0, 1, 2].map(|k| mesh.vertices[t[k] as usize].pos)))
            .collect()
    }

    #[test]
    fn a_dense_trace_is_small_boxes_through_every_sample_and_a_sparse_one_follows_its_slope() {
        // A jittery measurement: one sample per pixel column, swinging the plot's full height.
        let zigzag: Vec<Pos2> = (0..300)
            .map(|i| Pos2::new(10.0 + i as f32, if i % 2 == 0 { 5.0 } else { 95.0 }))
            .collect();
        let mut mesh = Mesh::default();
        trace_mesh(&zigzag, TRACE_WIDTH, Color32::RED, &mut mesh);
        let boxes = triangle_boxes(&mesh);
        assert_eq!(boxes.len(), 2 * (zigzag.len() - 1), "two triangles a step");
        for b in &boxes {
            assert!(
                b.width() <= 2.0 && b.height() <= 90.0 + TRACE_WIDTH + 1e-3,
                "{b:?}"
            );
        }
        for p in &zigzag {
            assert!(
                boxes.iter().any(|b| b.contains(*p)),
                "the trace reaches {p:?}"
            );
        }
        // Few samples far apart (the history's first seconds): a sloped band, not a box.
        let sparse = [Pos2::new(0.0, 0.0), Pos2::new(100.0, 50.0)];
        let mut mesh = Mesh::default();
        trace_mesh(&sparse, TRACE_WIDTH, Color32::RED, &mut mesh);
        let area: f32 = mesh
            .indices
            .chunks(3)
            .map(|t| {
                let [a, b, c] = [0, 1, 2].map(|k| mesh.vertices[t[k] as usize].pos);
                ((b - a).x * (c - a).y - (b - a).y * (c - a).x).abs() / 2.0
            })
            .sum();
        let length = (sparse[1] - sparse[0]).length();
        assert!((area - length * TRACE_WIDTH).abs() < 1e-2, "{area}");
    }
}
