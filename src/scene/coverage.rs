//! Whether the drawn garment covers the body: the skin that shows through it.
//!
//! At rest, the body's vertices the grid should cover are those of the torso and the legs
//! between the grid's top row and its hem, and round the body between its first and last
//! columns (a jacket's front opening is not covered). In a pose, each is looked at from
//! outside, along the horizontal line from the pelvis's vertical axis through it (as a camera
//! circling the character at its height would): it shows through when it lies further out
//! than the garment's outer surface (the triangles on the grid's surface whose normals faced
//! away from the axis at rest) on that line. Where no garment triangle crosses the line (below
//! a hem lifted by a knee, in a front swung open), the garment does not cover it in that pose
//! and it does not count.
//!
//! The garment's outer surface is drawn once per measurement into a map round the axis: per
//! angle and height, the largest distance from the axis of a garment triangle there. The map
//! is kept between measurements, so measuring every step allocates nothing once it has grown
//! to the garment's height.

use std::f32::consts::{PI, TAU};

use glam::Vec3;

use crate::character::{Character, Role};
use crate::garment::GarmentRig;

/// Body vertices the garment should cover, and the garment's outer surface.
#[derive(Clone, Debug, Default)]
pub struct Coverage {
    /// The body vertices the garment covers at rest.
    body: Vec<u32>,
    /// The garment's outer-surface triangles (render vertex indices).
    outer: Vec<[u32; 3]>,
    /// The last measurement's map of the outer surface ([`RadiusMap`]).
    map: RadiusMap,
}

/// How far outside the garment's surface a body vertex may lie before it counts as showing,
/// metres: the drawn mesh is flat between vertices a few centimetres apart.
const SHOW_TOLERANCE_M: f32 = 0.003;

/// The map's cells round the axis (one and a half degrees each: 4 mm at a waist's radius).
const MAP_ANGLES: usize = 240;

/// The angle one map cell spans, radians.
const MAP_CELL_ANGLE: f32 = TAU / MAP_ANGLES as f32;

/// The map's cell height, metres.
const MAP_CELL_HEIGHT: f32 = 0.01;

impl Coverage {
    /// The covered body vertices and the outer surface of `rig` on `character` at rest
    /// (`axis`: the body's vertical axis, x and z).
    pub fn new(character: &Character, rig: &GarmentRig, axis: (f32, f32)) -> Self {
        let topo = &rig.topology;
        let (cols, rows) = (topo.cols, topo.rows);
        let row_y =
            |r: usize| (0..cols).map(|c| topo.rest[r * cols + c].y).sum::<f32>() / cols as f32;
        let (top, hem) = (row_y(0), row_y(rows - 1));
        let angle = |p: Vec3| cylindrical(p, axis).0;
        let mid = rows / 2 * cols;
        let (first, last) = (topo.rest[mid], topo.rest[mid + cols - 1]);
        let start = angle(first);
        let span = if first.distance(last) < 1e-4 {
            TAU
        } else {
            (angle(last) - start).rem_euclid(TAU)
        };
        let render = &rig.render;
        let outer: Vec<bool> = (0..render.vertex_count())
            .map(|v| {
                let p = render.positions[v];
                let out = Vec3::new(p.x - axis.0, 0.0, p.z - axis.1);
                rig.shell_grid_coords(v as u32).is_some() && render.normals[v].dot(out) > 0.0
            })
            .collect();
        let outer: Vec<[u32; 3]> = render
            .indices
            .chunks_exact(3)
            .map(|t| [t[0], t[1], t[2]])
            .filter(|t| t.iter().all(|&v| outer[v as usize]))
            .collect();
        if outer.is_empty() {
            return Self::default();
        }
        let owner =
            crate::character::vertex_roles(&character.skeleton, &character.mesh, &character.roles);
        let covered = |r: Option<Role>| {
            matches!(
                r,
                Some(
                    Role::Pelvis
                        | Role::Spine
                        | Role::Chest
                        | Role::ThighL
                        | Role::ThighR
                        | Role::ShinL
                        | Role::ShinR
                )
            )
        };
        let body = &character.mesh.positions;
        let body = (0..body.len())
            .filter(|&b| covered(owner[b]))
            .filter(|&b| (hem..=top).contains(&body[b].y))
            .filter(|&b| (angle(body[b]) - start).rem_euclid(TAU) <= span)
            .map(|b| b as u32)
            .collect();
        Self {
            body,
            outer,
            map: RadiusMap::default(),
        }
    }

    /// How many body vertices the garment should cover.
    pub fn len(&self) -> usize {
        self.body.len()
    }

    /// Whether the garment covers no body vertex (a veil's over the head and shoulders).
    pub fn is_empty(&self) -> bool {
        self.body.is_empty() || self.outer.is_empty()
    }

    /// The share of those that show through the drawn garment, percent: `body` the skinned
    /// body, `garment` the skinned garment, `axis` the pelvis's vertical axis (x, z) in this
    /// pose.
    pub fn showing_pct(&mut self, body: &[Vec3], garment: &[Vec3], axis: (f32, f32)) -> f32 {
        if self.is_empty() {
            return 0.0;
        }
        self.map.draw(&self.outer, garment, axis);
        let map = &self.map;
        let showing = self
            .body
            .iter()
            .filter(|&&b| {
                let (a, y, r) = cylindrical(body[b as usize], axis);
                map.at(a, y)
                    .is_some_and(|outside| r > outside + SHOW_TOLERANCE_M)
            })
            .count();
        100.0 * showing as f32 / self.body.len() as f32
    }
}

/// A point's angle round the axis (radians, 0 toward +z, as [`Coverage::new`] measures),
/// height and distance from the axis.
fn cylindrical(p: Vec3, axis: (f32, f32)) -> (f32, f32, f32) {
    let (x, z) = (p.x - axis.0, p.z - axis.1);
    (x.atan2(z), p.y, x.hypot(z))
}

/// Per angle round the axis and height, the largest distance from the axis of the garment's
/// outer surface there (`NaN` where it has none).
#[derive(Clone, Debug, Default)]
struct RadiusMap {
    bottom: f32,
    rows: usize,
    radius: Vec<f32>,
}

impl RadiusMap {
    /// Redraws the map from `triangles` of the mesh at `pos`, in the cells it already has
    /// where they are enough.
    fn draw(&mut self, triangles: &[[u32; 3]], pos: &[Vec3], axis: (f32, f32)) {
        let ys = triangles.iter().flatten().map(|&v| pos[v as usize].y);
        let (bottom, top) = ys.fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), y| {
            (lo.min(y), hi.max(y))
        });
        let rows = if bottom.is_finite() && top.is_finite() {
            (((top - bottom) / MAP_CELL_HEIGHT) as usize + 1).min(4096)
        } else {
            0
        };
        self.bottom = bottom;
        self.rows = rows;
        self.radius.clear();
        self.radius.resize(rows * MAP_ANGLES, f32::NAN);
        for t in triangles {
            self.fill(t.map(|v| cylindrical(pos[v as usize], axis)));
        }
    }

    /// The map's column and row of angle `a` and height `y` (the row may be out of the map).
    fn cell(&self, a: f32, y: f32) -> (isize, isize) {
        (
            ((a + PI) / MAP_CELL_ANGLE).floor() as isize,
            ((y - self.bottom) / MAP_CELL_HEIGHT).floor() as isize,
        )
    }

    /// The garment's distance from the axis at angle `a` and height `y`, if it is there.
    fn at(&self, a: f32, y: f32) -> Option<f32> {
        let (c, r) = self.cell(a, y);
        if r < 0 || r as usize >= self.rows {
            return None;
        }
        let c = c.rem_euclid(MAP_ANGLES as isize) as usize;
        let v = self.radius[r as usize * MAP_ANGLES + c];
        (!v.is_nan()).then_some(v)
    }

    /// Draws one triangle (each corner's angle, height and distance from the axis): every cell
    /// whose centre it covers, seen from the axis, takes the triangle's distance there where
    /// that is further out than what the cell holds.
    fn fill(&mut self, [p0, mut p1, mut p2]: [(f32, f32, f32); 3]) {
        // Angles within half a turn of the first corner's, so a triangle across the map's
        // edge (behind the body) stays one triangle.
        for p in [&mut p1, &mut p2] {
            p.0 = p0.0 + (p.0 - p0.0 + PI).rem_euclid(TAU) - PI;
        }
        let area = (p1.0 - p0.0) * (p2.1 - p0.1) - (p2.0 - p0.0) * (p1.1 - p0.1);
        if area.abs() < 1e-9 || !area.is_finite() {
            return;
        }
        let (c0, r0) = self.cell(p0.0.min(p1.0).min(p2.0), p0.1.min(p1.1).min(p2.1));
        let (c1, r1) = self.cell(p0.0.max(p1.0).max(p2.0), p0.1.max(p1.1).max(p2.1));
        for r in r0.max(0)..=r1.min(self.rows as isize - 1) {
            let y = self.bottom + (r as f32 + 0.5) * MAP_CELL_HEIGHT;
            for c in c0..=c1.min(c0 + MAP_ANGLES as isize) {
                let a = (c as f32 + 0.5) * MAP_CELL_ANGLE - PI;
                let w1 = ((a - p0.0) * (p2.1 - p0.1) - (p2.0 - p0.0) * (y - p0.1)) / area;
                let w2 = ((p1.0 - p0.0) * (y - p0.1) - (a - p0.0) * (p1.1 - p0.1)) / area;
                if w1 < 0.0 || w2 < 0.0 || w1 + w2 > 1.0 {
                    continue;
                }
                let radius = p0.2 + w1 * (p1.2 - p0.2) + w2 * (p2.2 - p0.2);
                let k = r as usize * MAP_ANGLES + c.rem_euclid(MAP_ANGLES as isize) as usize;
                let cell = &mut self.radius[k];
                if cell.is_nan() || radius > *cell {
                    *cell = radius;
                }
            }
        }
    }
}
