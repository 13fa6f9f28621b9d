//! Painting the max distance per particle in the viewport: the brush's settings and panel, and
//! one stroke (press to release) turned into the preset's [`MaxDistanceMap`].
//!
//! A stroke is computed from the map as it was when the stroke began, and each particle
//! remembers the strongest brush weight it got during the stroke: dragging back and forth over
//! a particle, or a slower frame rate, gives the same result as one pass. So one stroke is one
//! change of the map, and one undo step.

use eframe::egui;
use egui::{Slider, Ui};
use glam::Vec3;

use super::App;
use crate::preset::MaxDistanceMap;
use crate::sim::Topology;

/// What a stroke does to the particles under the brush.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BrushMode {
    /// Moves the max distance toward the brush's value.
    #[default]
    Paint,
    /// Moves it toward the mean of its grid neighbours.
    Smooth,
    /// Back to the curve (the entry becomes `null`).
    Erase,
}

impl BrushMode {
    /// Every mode, in the panel's order.
    pub const ALL: [BrushMode; 3] = [BrushMode::Paint, BrushMode::Smooth, BrushMode::Erase];

    /// The panel's label.
    pub fn label(self) -> &'static str {
        match self {
            BrushMode::Paint => "Paint",
            BrushMode::Smooth => "Smooth",
            BrushMode::Erase => "Erase",
        }
    }
}

/// The brush: whether dragging on the jacket paints, and how.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Brush {
    /// Dragging in the viewport paints instead of orbiting.
    pub on: bool,
    pub mode: BrushMode,
    /// Radius around the particle under the pointer, metres (character space). Full effect
    /// at the centre, falling linearly to none at the radius.
    pub radius_m: f32,
    /// The max distance [`BrushMode::Paint`] moves toward, metres.
    pub value_m: f32,
    /// How far one stroke moves a particle at the brush's centre toward the value (or the
    /// neighbours' mean), 0 to 1: 1 sets it.
    pub strength: f32,
}

impl Default for Brush {
    fn default() -> Self {
        Self {
            on: false,
            mode: BrushMode::Paint,
            radius_m: 0.12,
            value_m: 0.05,
            strength: 1.0,
        }
    }
}

/// Radii the panel offers, metres.
const RADIUS_RANGE: std::ops::RangeInclusive<f32> = 0.01..=0.6;

/// One stroke, from press to release.
#[derive(Clone, Debug)]
pub struct Stroke {
    /// The map's entries when the stroke began (all `None` without a map).
    start: Vec<Option<f32>>,
    /// Each particle's max distance when the stroke began (painted or the curve's).
    before: Vec<f32>,
    /// The strongest brush weight each particle got so far, 0 to 1.
    weight: Vec<f32>,
}

impl Stroke {
    /// A stroke over a cloth whose max distances are `before` (one per particle), painted
    /// with `map` so far.
    pub fn begin(map: Option<&MaxDistanceMap>, before: &[f32]) -> Self {
        let start = match map {
            Some(m) if m.metres.len() == before.len() => m.metres.clone(),
            _ => vec![None; before.len()],
        };
        Self {
            start,
            before: before.to_vec(),
            weight: vec![0.0; before.len()],
        }
    }

    /// The brush at `centre` (character space) over particles at `positions`: each free
    /// particle within the radius gets `1 - distance / radius`, if more than it had.
    pub fn dab(&mut self, brush: &Brush, centre: Vec3, positions: &[Vec3], topo: &Topology) {
        let r = brush.radius_m.max(1e-4);
        for (i, (w, p)) in self.weight.iter_mut().zip(positions).enumerate() {
            if topo.pinned.get(i).copied().unwrap_or(true) {
                continue;
            }
            let near = 1.0 - p.distance(centre) / r;
            if near > *w {
                *w = near;
            }
        }
    }

    /// The map the stroke has made so far on `topo`'s grid; `None` when nothing is painted
    /// (erased everywhere: the preset goes back to having no map).
    pub fn result(&self, brush: &Brush, topo: &Topology) -> Option<MaxDistanceMap> {
        let max = MaxDistanceMap::max_metres();
        let metres: Vec<Option<f32>> = (0..self.start.len())
            .map(|i| {
                let w = self.weight[i];
                if w <= 0.0 {
                    return self.start[i];
                }
                let toward = |target: f32| {
                    let v = self.before[i];
                    Some((v + (target - v) * brush.strength.clamp(0.0, 1.0) * w).clamp(0.0, max))
                };
                match brush.mode {
                    BrushMode::Paint => toward(brush.value_m),
                    BrushMode::Smooth => toward(self.neighbour_mean(i, topo)),
                    BrushMode::Erase => None,
                }
            })
            .collect();
        let map = MaxDistanceMap {
            cols: topo.cols,
            rows: topo.rows,
            metres,
        };
        (!map.is_blank()).then_some(map)
    }

    /// The mean max distance of `i`'s neighbours on the grid (left, right, above, below) when
    /// the stroke began.
    fn neighbour_mean(&self, i: usize, topo: &Topology) -> f32 {
        let (row, col) = (topo.row(i), topo.col(i));
        let mut sum = 0.0;
        let mut n = 0.0;
        let mut add = |r: usize, c: usize| {
            if let Some(v) = self.before.get(r * topo.cols + c) {
                sum += v;
                n += 1.0;
            }
        };
        if col > 0 {
            add(row, col - 1);
        }
        if col + 1 < topo.cols {
            add(row, col + 1);
        }
        if row > 0 {
            add(row - 1, col);
        }
        if row + 1 < topo.rows {
            add(row + 1, col);
        }
        if n > 0.0 {
            sum / n
        } else {
            self.before[i]
        }
    }
}

impl App {
    /// The brush over the cloth at `centre` (character space): begins a stroke when none is
    /// under way, and puts the stroke's map in the document (one undo step on release) and in
    /// the playing cloth.
    pub(super) fn paint_dab(&mut self, ctx: &egui::Context, centre: Vec3) {
        let cloth = self.playback.scene().cloth();
        let map = self.doc.preset.max_distance_map.as_ref();
        let stroke = self
            .view
            .stroke
            .get_or_insert_with(|| Stroke::begin(map, cloth.max_distances()));
        stroke.dab(
            &self.view.brush,
            centre,
            cloth.positions(),
            cloth.topology(),
        );
        let map = stroke.result(&self.view.brush, cloth.topology());
        let pointer_down = ctx.input(|i| i.pointer.any_down());
        self.set_max_distance_map(map, pointer_down);
    }

    /// Where cloth particle `i` was on the screen in the last frame drawn, for tests and tools
    /// that paint or poke it as the artist would.
    pub fn particle_on_screen(&self, i: usize) -> Option<egui::Pos2> {
        let p = *self.playback.scene().cloth().positions().get(i)?;
        self.view.viewport.screen_pos(p)
    }

    /// The brush as the paint panel set it.
    pub fn brush(&self) -> Brush {
        self.view.brush
    }

    /// A new painted map for the document and the cloth.
    pub(super) fn set_max_distance_map(&mut self, map: Option<MaxDistanceMap>, pointer_down: bool) {
        self.doc.edit_max_distance_map(map, pointer_down);
        self.sync_max_distance_map();
    }

    /// Hands the document's painted max distances to the playing cloth. A map painted on
    /// another grid stays in the document (saving keeps the artist's work) and the error says
    /// why the cloth plays the curve.
    pub(super) fn sync_max_distance_map(&mut self) {
        let scene = self.playback.scene_mut();
        if let Err(e) = scene.set_max_distance_map(&self.doc.preset) {
            self.error = Some(e.to_string());
        }
    }
}

/// What the paint panel asks for.
#[derive(Clone, Debug, PartialEq)]
pub enum PaintAction {
    /// New brush settings.
    Brush(Brush),
    /// Every particle back to the curve (one undo step).
    Clear,
}

/// The panel: the brush on or off, its mode, radius, value and strength, and how many
/// particles are painted.
pub fn paint_panel(
    ui: &mut Ui,
    brush: &Brush,
    map: Option<&MaxDistanceMap>,
) -> Option<PaintAction> {
    let mut b = *brush;
    let mut action = None;
    egui::CollapsingHeader::new("Paint max distance")
        .default_open(false)
        .show(ui, |ui| {
            ui.checkbox(&mut b.on, "Paint max distance (drag on the jacket)")
                .on_hover_text(
                    "Dragging in the viewport paints the particles under the brush instead of \
                     turning the camera; the max-distance spheres show the result. One stroke \
                     is one undo step; Save writes the paint into the preset.",
                );
            ui.horizontal(|ui| {
                for m in BrushMode::ALL {
                    ui.radio_value(&mut b.mode, m, m.label());
                }
            });
            ui.add(Slider::new(&mut b.radius_m, RADIUS_RANGE).text("Brush radius").suffix(" m"));
            ui.add_enabled(
                b.mode == BrushMode::Paint,
                Slider::new(&mut b.value_m, 0.0..=MaxDistanceMap::max_metres())
                    .text("Brush value")
                    .suffix(" m")
                    .max_decimals(3),
            )
            .on_hover_text("The max distance Paint moves the particles toward; final, not scaled by the edge knob");
            ui.add_enabled(
                b.mode != BrushMode::Erase,
                Slider::new(&mut b.strength, 0.0..=1.0).text("Brush strength"),
            )
            .on_hover_text("How far one stroke moves a particle at the brush's centre: 1 sets it");
            let painted = map.map_or(0, |m| m.metres.iter().filter(|v| v.is_some()).count());
            ui.horizontal(|ui| {
                ui.label(format!("{painted} particles painted"));
                if ui
                    .add_enabled(painted > 0, egui::Button::new("Clear paint"))
                    .clicked()
                {
                    action = Some(PaintAction::Clear);
                }
            });
        });
    if action.is_none() && b != *brush {
        action = Some(PaintAction::Brush(b));
    }
    action
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sheet() -> Topology {
        Topology::flat_grid(5, 4, 0.1, Vec3::ZERO)
    }

    #[test]
    fn a_stroke_paints_under_the_brush_and_leaves_the_rest_and_the_pinned_row() {
        let topo = sheet();
        let before: Vec<f32> = (0..topo.len()).map(|i| 0.1 + 0.01 * i as f32).collect();
        let brush = Brush {
            on: true,
            radius_m: 0.15,
            value_m: 0.0,
            ..Brush::default()
        };
        let mut s = Stroke::begin(None, &before);
        // Dabbing twice on the same place is the same as once.
        s.dab(&brush, topo.rest[7], &topo.rest, &topo);
        s.dab(&brush, topo.rest[7], &topo.rest, &topo);
        let map = s.result(&brush, &topo).unwrap();
        assert_eq!(map.metres[7], Some(0.0), "full strength at the centre");
        let side = map.metres[8].unwrap();
        assert!(side > 0.0 && side < before[8], "{side}");
        assert_eq!(map.metres[2], None, "the pinned row is not painted");
        assert_eq!(map.metres[19], None, "out of reach");
    }

    #[test]
    fn erase_goes_back_to_the_curve_and_smooth_moves_toward_the_neighbours() {
        let topo = sheet();
        let before = vec![0.2; topo.len()];
        let mut map = MaxDistanceMap::new(5, 4);
        map.metres[12] = Some(0.6);
        let mut spiked = before.clone();
        spiked[12] = 0.6;
        let smooth = Brush {
            mode: BrushMode::Smooth,
            radius_m: 0.05,
            ..Brush::default()
        };
        let mut s = Stroke::begin(Some(&map), &spiked);
        s.dab(&smooth, topo.rest[12], &topo.rest, &topo);
        let m = s.result(&smooth, &topo).unwrap();
        let v = m.metres[12].unwrap();
        assert!((v - 0.2).abs() < 1e-6, "{v}: the neighbours' mean");
        let erase = Brush {
            mode: BrushMode::Erase,
            ..smooth
        };
        let mut s = Stroke::begin(Some(&map), &spiked);
        s.dab(&erase, topo.rest[12], &topo.rest, &topo);
        assert_eq!(s.result(&erase, &topo), None, "nothing painted is no map");
    }
}
