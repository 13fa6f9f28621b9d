//! Whether the drawn garment covers the body: the skin that shows through it.
//!
//! At rest, the body's vertices the grid should cover are those of the torso and the legs
//! between the grid's top row and its hem, and round the body between its first and last
//! columns (a jacket's front opening is not covered). Each is paired with the nearest vertex
//! of the garment's outer surface (on the grid's surface, its normal facing away from the
//! body's axis). In a pose, a body vertex shows when it lies outside its garment vertex's
//! tangent plane: further out along the garment's normal than the garment.

use std::f32::consts::TAU;

use glam::Vec3;

use crate::character::{Character, Role};
use crate::garment::GarmentRig;

/// Body vertices the garment should cover, each with the garment vertex that covers it.
#[derive(Clone, Debug, Default)]
pub struct Coverage {
    pairs: Vec<(u32, u32)>,
}

/// How far outside its garment vertex's tangent plane a body vertex may lie before it counts
/// as showing, metres: the drawn mesh is flat between vertices a few centimetres apart.
const SHOW_TOLERANCE_M: f32 = 0.003;

impl Coverage {
    /// The pairs for `rig` on `character` at rest (`axis`: the body's vertical axis, x and z).
    pub fn new(character: &Character, rig: &GarmentRig, axis: (f32, f32)) -> Self {
        let topo = &rig.topology;
        let (cols, rows) = (topo.cols, topo.rows);
        let row_y =
            |r: usize| (0..cols).map(|c| topo.rest[r * cols + c].y).sum::<f32>() / cols as f32;
        let (top, hem) = (row_y(0), row_y(rows - 1));
        let angle = |p: Vec3| (p.x - axis.0).atan2(p.z - axis.1);
        let mid = rows / 2 * cols;
        let (first, last) = (topo.rest[mid], topo.rest[mid + cols - 1]);
        let start = angle(first);
        let span = if first.distance(last) < 1e-4 {
            TAU
        } else {
            (angle(last) - start).rem_euclid(TAU)
        };
        let render = &rig.render;
        let outer: Vec<usize> = (0..render.vertex_count())
            .filter(|&v| rig.shell_grid_coords(v as u32).is_some())
            .filter(|&v| {
                let p = render.positions[v];
                let out = Vec3::new(p.x - axis.0, 0.0, p.z - axis.1);
                render.normals[v].dot(out) > 0.0
            })
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
        let grid =
            crate::garment::PointGrid::new(outer.iter().map(|&v| render.positions[v]).collect());
        let pairs = (0..body.len())
            .filter(|&b| covered(owner[b]))
            .filter(|&b| (hem..=top).contains(&body[b].y))
            .filter(|&b| (angle(body[b]) - start).rem_euclid(TAU) <= span)
            .filter_map(|b| {
                let k = grid.nearest::<1>(body[b])[0]?;
                Some((b as u32, outer[k] as u32))
            })
            .collect();
        Self { pairs }
    }

    /// How many body vertices the garment should cover.
    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    /// Whether the garment covers no body vertex (a veil's over the head and shoulders).
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// The share of those that show through the drawn garment, percent: `body` the skinned
    /// body, `garment` and `normals` the skinned garment.
    pub fn showing_pct(&self, body: &[Vec3], garment: &[Vec3], normals: &[Vec3]) -> f32 {
        if self.pairs.is_empty() {
            return 0.0;
        }
        let showing = self
            .pairs
            .iter()
            .filter(|&&(b, g)| {
                let (b, g) = (b as usize, g as usize);
                (body[b] - garment[g]).dot(normals[g]) > SHOW_TOLERANCE_M
            })
            .count();
        100.0 * showing as f32 / self.pairs.len() as f32
    }
}
