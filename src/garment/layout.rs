//! The shape every grid garment shares: its layout (rows and columns of the simulation grid,
//! the heights of its top row and hem, the render resolution) and the rings fitted round the
//! body that place the grid's particles at rest, with the body's skin the rings cover.

use std::f32::consts::{PI, TAU};

use glam::{Mat4, Vec3};
use serde::{Deserialize, Serialize};

use crate::character::{Character, PosedEllipsoid, Role};

/// The shape of the jacket's simulation grid and render mesh. Rows are ellipses fitted around
/// the body's torso and thigh ellipsoids at rest, so another character gets a jacket that fits.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GridLayout {
    /// Particles around the body (odd, so bones land on both front edges). Default 17.
    pub cols: usize,
    /// Particles from the top row to the hem. Default 10.
    pub rows: usize,
    /// Height of the top (pinned) row at rest, metres. Default 1.36.
    pub top_height: f32,
    /// Height of the hem at rest, metres (mid-thigh). Default 0.70.
    pub hem_height: f32,
    /// Arc left open at the front between the two front edges, degrees. Default 40.
    pub front_gap_deg: f32,
    /// Gap kept between the body's ellipsoids and the cloth at rest, metres. Default 0.03.
    pub clearance: f32,
    /// Where on the upper arm the shoulder pad looks, as a fraction from shoulder to elbow.
    /// Default 0.4.
    pub pad_target: f32,
    /// Render columns per simulation column. Default 4.
    pub render_cols_per_sim: usize,
    /// Render rows per simulation row. Default 4.
    pub render_rows_per_sim: usize,
    /// Fabric thickness in the render mesh (shows at the hem and front edges), metres.
    /// Default 0.008.
    pub thickness: f32,
    /// Size of the body relative to the built-in character (its shoulder height over the
    /// built-in's): scales the collar, hood, sleeves, armholes and the smallest rings, which
    /// are drawn to the built-in body's measure. Default 1.
    pub body_scale: f32,
    /// Where the opening faces, degrees around the body from the front toward the left: 0
    /// for the jacket's open front, 180 for a veil open at the back. Default 0.
    pub opening_deg: f32,
}

impl Default for GridLayout {
    fn default() -> Self {
        // The grid the preset's fold lines are checked against.
        let (cols, rows) = crate::preset::Garment::Jacket.grid();
        Self {
            cols,
            rows,
            top_height: 1.36,
            hem_height: 0.70,
            front_gap_deg: 40.0,
            clearance: 0.03,
            pad_target: 0.4,
            render_cols_per_sim: 4,
            render_rows_per_sim: 4,
            thickness: 0.008,
            body_scale: 1.0,
            opening_deg: 0.0,
        }
    }
}

/// The built-in character's landmarks at rest ([`landmarks`]), which the default layout is
/// drawn to: the mean height of its shoulder joints and the height halfway from its hip joints
/// to its knees, metres.
pub(super) const BUILTIN_LANDMARKS: (f32, f32) = (1.445, 0.735);

/// A character's shoulder height and mid-thigh height at rest (means of left and right).
pub fn landmarks(character: &Character) -> (f32, f32) {
    let sk = &character.skeleton;
    let mut model = Vec::new();
    sk.rest_pose().compute_model(sk, &mut model);
    let roles = &character.roles;
    let y =
        |l: Role, r: Role| (model[roles.bone(l)].w_axis.y + model[roles.bone(r)].w_axis.y) * 0.5;
    let hip = y(Role::ThighL, Role::ThighR);
    let knee = y(Role::ShinL, Role::ShinR);
    (y(Role::UpperarmL, Role::UpperarmR), (hip + knee) * 0.5)
}

/// The torso ellipsoid rows: ellipse half-widths and centre per height.
#[derive(Clone, Copy, Debug)]
pub(super) struct Ring {
    pub(super) y: f32,
    pub(super) rx: f32,
    pub(super) rz: f32,
    pub(super) cz: f32,
}

/// The body's skin at rest that the lower jacket wraps: the vertices owned by the torso, neck
/// and legs (arms and head left out), in character space.
pub(super) fn wrapped_skin(character: &Character, model: &[Mat4]) -> Vec<Vec3> {
    let wrapped = |r: Role| {
        matches!(
            r,
            Role::Pelvis
                | Role::Spine
                | Role::Chest
                | Role::Neck
                | Role::ThighL
                | Role::ThighR
                | Role::ShinL
                | Role::ShinR
        )
    };
    skin_of(character, model, wrapped)
}

/// The body's skin vertices owned by the roles `wrapped` accepts, posed by `model`, in
/// character space.
pub(super) fn skin_of(
    character: &Character,
    model: &[Mat4],
    wrapped: impl Fn(Role) -> bool,
) -> Vec<Vec3> {
    let mesh = &character.mesh;
    let owner = crate::character::vertex_roles(&character.skeleton, mesh, &character.roles);
    let mut skin = Vec::new();
    character.skin_matrices(model, &mut skin);
    (0..mesh.vertex_count())
        .filter(|&v| owner[v].is_some_and(&wrapped))
        .map(|v| {
            let p = mesh.positions[v];
            mesh.joints[v]
                .iter()
                .zip(&mesh.weights[v])
                .filter(|(_, &w)| w != 0.0)
                .map(|(&j, &w)| skin[j as usize].transform_point3(p) * w)
                .sum()
        })
        .collect()
}

/// The rest rings around the torso and the legs of `character` posed by `model` (its rest
/// pose), none smaller than `floor` ([`fit_rings`]): the jacket's and the skirt's.
pub(super) fn torso_rings(
    character: &Character,
    layout: &GridLayout,
    model: &[Mat4],
    floor: Vec3,
) -> Vec<Ring> {
    let posed: Vec<PosedEllipsoid> = character
        .ellipsoids
        .iter()
        .filter(|e| !e.name.starts_with("upperarm"))
        .map(|e| e.posed(model))
        .collect();
    fit_rings(layout, &posed, &wrapped_skin(character, model), floor)
}

/// Ellipses around the torso at each simulation row: the body ellipsoids' extent at that
/// height plus the clearance, widened where the skin between this row and the next (`skin`)
/// would still poke out: fitted ellipsoids stay inside the skin, and a waist or a belly is
/// not an ellipse. The skin may reach the jacket's mid-surface; the outer shell, half the
/// fabric's thickness further out, is what shows. Below the widest row the jacket hangs
/// straight (never narrower). No ring is smaller than `floor` (see [`ellipsoid_ring`]) on the
/// built-in body.
pub(super) fn fit_rings(
    layout: &GridLayout,
    posed: &[PosedEllipsoid],
    skin: &[Vec3],
    floor: Vec3,
) -> Vec<Ring> {
    let rows = layout.rows;
    let spacing = (layout.top_height - layout.hem_height) / (rows - 1) as f32;
    let k = layout.body_scale;
    let mut rings: Vec<Ring> = (0..rows)
        .map(|r| {
            let t = r as f32 / (rows - 1) as f32;
            let y = layout.top_height + (layout.hem_height - layout.top_height) * t;
            let ring = ellipsoid_ring(layout, posed, y, floor * k);
            // The skin between this row and its neighbours (the yoke covers what is above the
            // top row).
            let near = skin.iter().filter(|p| {
                (p.y - y).abs() <= spacing && (layout.hem_height..=layout.top_height).contains(&p.y)
            });
            widen_to_cover(ring, near)
        })
        .collect();
    // Hang straight below the widest point: never narrower than the row above.
    for r in 1..rows {
        let above = rings[r - 1];
        let widest = rings[..r].iter().map(|g| g.rx).fold(0.0, f32::max);
        if rings[r].rx < widest && r > rows / 3 {
            rings[r].rx = rings[r].rx.max(above.rx);
            rings[r].rz = rings[r].rz.max(above.rz);
        }
    }
    rings
}

/// The ellipse around the body ellipsoids' surface near height `y`, at least `floor` (half
/// width, front, back), plus the clearance.
fn ellipsoid_ring(layout: &GridLayout, posed: &[PosedEllipsoid], y: f32, floor: Vec3) -> Ring {
    let k = layout.body_scale;
    let (mut max_x, mut front, mut back) = (floor.x, floor.y, floor.z);
    // Sample each ellipsoid's surface; keep points within a band around this height.
    for e in posed {
        for p in surface_samples(e) {
            if (p.y - y).abs() < 0.03 * k {
                max_x = max_x.max(p.x.abs());
                front = front.max(p.z);
                back = back.max(-p.z);
            }
        }
    }
    Ring {
        y,
        rx: max_x + layout.clearance,
        rz: (front + back) * 0.5 + layout.clearance,
        cz: (front - back) * 0.5,
    }
}

/// Points spread over the surface of `e` (48 around, 23 from top to bottom, the poles left
/// out): what the rings are fitted around.
pub(super) fn surface_samples(e: &PosedEllipsoid) -> impl Iterator<Item = Vec3> + '_ {
    (0..48).flat_map(move |i| {
        let phi = TAU * i as f32 / 48.0;
        (1..24).map(move |j| {
            let theta = PI * j as f32 / 24.0;
            let unit = Vec3::new(
                theta.sin() * phi.cos(),
                theta.cos(),
                theta.sin() * phi.sin(),
            );
            e.from_unit_sphere(unit)
        })
    })
}

/// `ring` grown about its centre, keeping its proportions, just enough that every point is
/// inside it (seen from above); unchanged when they already are.
fn widen_to_cover<'a>(ring: Ring, points: impl Iterator<Item = &'a Vec3>) -> Ring {
    let mut grow = 1.0f32;
    for p in points {
        let e = ((p.x / ring.rx).powi(2) + ((p.z - ring.cz) / ring.rz).powi(2)).sqrt();
        grow = grow.max(e);
    }
    if grow > 1.0 {
        Ring {
            rx: ring.rx * grow,
            rz: ring.rz * grow,
            ..ring
        }
    } else {
        ring
    }
}

pub(super) fn ring_at(rings: &[Ring], v: f32) -> Ring {
    let v = v.clamp(0.0, (rings.len() - 1) as f32);
    let i = (v.floor() as usize).min(rings.len() - 2);
    let t = v - i as f32;
    let (a, b) = (rings[i], rings[i + 1]);
    Ring {
        y: a.y + (b.y - a.y) * t,
        rx: a.rx + (b.rx - a.rx) * t,
        rz: a.rz + (b.rz - a.rz) * t,
        cz: a.cz + (b.cz - a.cz) * t,
    }
}

/// The angle around the body of column coordinate `u` (0 = left front edge).
pub(super) fn column_angle(layout: &GridLayout, u: f32) -> f32 {
    let gap = layout.front_gap_deg.to_radians();
    gap * 0.5 + (TAU - gap) * u / (layout.cols - 1) as f32 + layout.opening_deg.to_radians()
}

/// The jacket's rest surface at column coordinate `u` and row coordinate `v` (both may be
/// fractional).
pub(super) fn surface_point(layout: &GridLayout, rings: &[Ring], u: f32, v: f32) -> Vec3 {
    let g = ring_at(rings, v);
    let a = column_angle(layout, u);
    Vec3::new(a.sin() * g.rx, g.y, g.cz + a.cos() * g.rz)
}

pub(super) fn surface_normal(layout: &GridLayout, rings: &[Ring], u: f32, v: f32) -> Vec3 {
    let g = ring_at(rings, v);
    let a = column_angle(layout, u);
    Vec3::new(a.sin() / g.rx, 0.0, a.cos() / g.rz).normalize()
}

impl GridLayout {
    /// Vertices of the lower jacket's render grid around the body and down it, per shell.
    pub fn render_grid(&self) -> (usize, usize) {
        (
            (self.cols - 1) * self.render_cols_per_sim + 1,
            (self.rows - 1) * self.render_rows_per_sim + 1,
        )
    }

    /// The simulation column coordinate of render column `i`.
    pub(super) fn render_u(&self, i: usize) -> f32 {
        i as f32 / self.render_cols_per_sim as f32
    }

    /// The simulation row coordinate of render row `j`.
    pub(super) fn render_v(&self, j: usize) -> f32 {
        j as f32 / self.render_rows_per_sim as f32
    }
}
