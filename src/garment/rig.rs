//! What every grid garment shares once built: the rig (the character's bones and the
//! garment's own drivers, the bones on the simulation grid, the render mesh skinned to both),
//! its per-frame matrices, the two shells of the grid's render mesh, and the skin of the body
//! at rest that render parts lying on it take their skinning from.
//!
//! Everything here is in character space (the root's frame). The per-frame functions take
//! their output buffers and allocate nothing once those are sized.

use glam::{Mat4, Vec3};

use super::layout::{surface_normal, surface_point, GridLayout, Ring};
use super::nearest::PointGrid;
use crate::character::{Character, Role, Roles};
use crate::sim::collision::closest_on_segment;
use crate::sim::{Topology, TopologyError};

/// Errors building a garment for a character.
#[derive(Debug, thiserror::Error)]
pub enum GarmentError {
    #[error("jacket layout: {0}")]
    Layout(String),
    #[error("jacket grid: {0}")]
    Topology(#[from] TopologyError),
}

/// Indices of the character bones the garments use.
#[derive(Clone, Copy, Debug)]
pub(super) struct Bones {
    pub(super) pelvis: usize,
    pub(super) spine: usize,
    pub(super) chest: usize,
    pub(super) neck: usize,
    pub(super) head: usize,
    pub(super) upperarm: [usize; 2],
    pub(super) upperarm_twist: [usize; 2],
    pub(super) forearm: [usize; 2],
    pub(super) forearm_twist: [usize; 2],
    pub(super) hand: [usize; 2],
}

impl Bones {
    /// The bones of the roles; a missing twist bone is its arm bone (the sleeve then twists
    /// with the bone itself).
    pub(super) fn of(roles: &Roles) -> Self {
        let pair = |l: Role, r: Role| [roles.bone(l), roles.bone(r)];
        let or = |l: Role, r: Role, fallback: [usize; 2]| {
            [
                roles.get(l).unwrap_or(fallback[0]),
                roles.get(r).unwrap_or(fallback[1]),
            ]
        };
        let upperarm = pair(Role::UpperarmL, Role::UpperarmR);
        let forearm = pair(Role::ForearmL, Role::ForearmR);
        Bones {
            pelvis: roles.bone(Role::Pelvis),
            spine: roles.bone(Role::Spine),
            chest: roles.bone(Role::Chest),
            neck: roles.bone(Role::Neck),
            head: roles.bone(Role::Head),
            upperarm,
            upperarm_twist: or(Role::UpperarmTwistL, Role::UpperarmTwistR, upperarm),
            forearm,
            forearm_twist: or(Role::ForearmTwistL, Role::ForearmTwistR, forearm),
            hand: pair(Role::HandL, Role::HandR),
        }
    }
}

/// Up to four (index, weight) pairs: a particle's into the rig's drivers, a render vertex's
/// into [`RigFrame::render_skin`].
pub type Binding = [(u16, f32); 4];

/// Per-frame matrices of a garment's rig. Sized once by [`GarmentRig::new_frame`].
#[derive(Clone, Debug, Default)]
pub struct RigFrame {
    /// Skin matrices (current x inverse rest) of the drivers: the character's bones, then the
    /// garment's own.
    pub driver_skin: Vec<Mat4>,
    /// The bones on the simulation mesh (character space).
    pub sim_bones: Vec<Mat4>,
    /// Skin matrices of the render mesh: simulation bones, then the drivers.
    pub render_skin: Vec<Mat4>,
}

/// A mesh in character space with texture coordinates.
#[derive(Clone, Debug, Default)]
pub struct RenderMesh {
    pub positions: Vec<Vec3>,
    pub normals: Vec<Vec3>,
    pub uvs: Vec<[f32; 2]>,
    pub indices: Vec<u32>,
    /// Per vertex: indices into [`RigFrame::render_skin`] and weights.
    pub(super) binding: Vec<Binding>,
    /// The hood's vertices (empty without a hood), every one skinned rigidly to the hood bone.
    pub hood: std::ops::Range<usize>,
    /// Per triangle corner: whether the triangle's winding faces the way of that vertex's
    /// normal at rest (1), the other way (-1), or across it (0: the strips joining the outer
    /// and inner shells at the hem and front edges, which would bend the shells' normals).
    /// See [`GarmentRig::skin_render`].
    corner_sign: Vec<[i8; 3]>,
}

impl RenderMesh {
    /// Adds one vertex: rest position and normal (character space), texture coordinates and
    /// skinning.
    pub(super) fn push_vertex(&mut self, p: Vec3, n: Vec3, uv: [f32; 2], binding: Binding) {
        self.positions.push(p);
        self.normals.push(n);
        self.uvs.push(uv);
        self.binding.push(binding);
    }

    /// Number of vertices.
    pub fn vertex_count(&self) -> usize {
        self.positions.len()
    }

    /// Per vertex, its skinning: indices into [`RigFrame::render_skin`] (the simulation bones,
    /// then the drivers) and weights.
    pub fn binding(&self) -> &[Binding] {
        &self.binding
    }

    /// Fills [`RenderMesh::corner_sign`] from the rest positions and normals.
    fn orient_corners(&mut self) {
        self.corner_sign = self
            .indices
            .chunks_exact(3)
            .map(|t| {
                let p = |k: usize| self.positions[t[k] as usize];
                let face = (p(1) - p(0)).cross(p(2) - p(0)).normalize_or_zero();
                std::array::from_fn(|k| {
                    let c = face.dot(self.normals[t[k] as usize]);
                    // Half a right angle or more off the normal: an edge strip, left out.
                    if c > 0.5 {
                        1
                    } else if c < -0.5 {
                        -1
                    } else {
                        0
                    }
                })
            })
            .collect();
    }

    /// Replaces the skinned normals `nrm` with the normals of the skinned surface `pos`: each
    /// vertex's triangles' normals weighted by their area, turned the way its own normal
    /// faces. The bones on the coarse simulation grid turn the rest normals in steps, which
    /// shaded the coat in flat boards; the surface's own normals shade it as it bends.
    /// Allocates nothing.
    fn surface_normals(&self, pos: &[Vec3], nrm: &mut [Vec3]) {
        // A trace of the skinned normal stays, for a vertex whose triangles add up to nothing
        // (far below any triangle's weight: render triangles are about 1e-4 m²).
        for n in nrm.iter_mut() {
            *n *= 1e-9;
        }
        for (t, signs) in self.indices.chunks_exact(3).zip(&self.corner_sign) {
            let (a, b, c) = (t[0] as usize, t[1] as usize, t[2] as usize);
            let face = (pos[b] - pos[a]).cross(pos[c] - pos[a]);
            for (&v, &sign) in [a, b, c].iter().zip(signs) {
                nrm[v] += face * f32::from(sign);
            }
        }
        for n in nrm.iter_mut() {
            *n = n.normalize_or(Vec3::Y);
        }
    }
}

/// What a garment says while its rig is built: how each particle's reference point follows the
/// body, the raised details of the outer shell, and the parts of the render mesh beyond the
/// grid's two shells (a yoke, sleeves, a crown, a hood).
pub(super) trait Tailor {
    /// How particle `i`, at rest position `p`, follows the body (its reference point's
    /// skinning, indices into the rig's drivers); `depth` is 0 at the top row and 1 at the hem.
    fn reference_binding(&self, rig: &GarmentRig, i: usize, p: Vec3, depth: f32) -> Binding;

    /// The outer shell's outward offset at grid coordinates (u, v), metres: 0 for a plain
    /// sheet.
    fn shell_detail(&self, _layout: &GridLayout, _u: f32, _v: f32) -> f32 {
        0.0
    }

    /// Adds the garment's render mesh to `m`: a template's two shells over its rest `rings`
    /// ([`add_shells`]) and its other parts.
    fn add_parts(&self, rig: &GarmentRig, rings: &[Ring], skin: &RestSkin, m: &mut RenderMesh);

    /// Whether the grid closes round the body: its first and last columns are one seam, welded
    /// by the cloth ([`Topology::with_seam`]).
    fn closed(&self) -> bool {
        false
    }

    /// Whether the hem row carries bones too, one on every particle after the article's
    /// ([`GarmentRig::sim_bone_sites`]), so that a drawn hem bound to them ([`hem_binding`])
    /// is one the bones carry (the skirt's round hem).
    fn hem_bones(&self) -> bool {
        false
    }

    /// Where render vertex `v` lies on the simulation grid, as (column, row) coordinates, when
    /// it is on the grid's surface; by default the two shells [`add_shells`] made first.
    fn grid_coords(&self, rig: &GarmentRig, v: u32) -> Option<(f32, f32)> {
        let (nu, nv) = rig.layout.render_grid();
        let k = (v as usize).checked_rem(nu * nv)?;
        ((v as usize) < 2 * nu * nv)
            .then(|| (rig.layout.render_u(k % nu), rig.layout.render_v(k / nu)))
    }
}

/// The rig of a grid garment on one character: rest data, built once. The drivers are the
/// character's bones followed by the garment's own (a jacket's shoulder pads, side bones and
/// hood bone); the simulation bones sit on the grid's particles; the render mesh is skinned to
/// both.
#[derive(Clone, Debug)]
pub struct GarmentRig {
    pub(super) layout: GridLayout,
    pub(super) bones: Bones,
    pub(super) char_bones: usize,
    /// The simulation grid.
    pub topology: Topology,
    /// Rest matrices of every driver (the character's bones, then the garment's own).
    pub(super) rest_drivers: Vec<Mat4>,
    pub(super) rest_drivers_inv: Vec<Mat4>,
    /// Per particle: the drivers its rest position is skinned to (the reference pose).
    particle_binding: Vec<Binding>,
    /// (row, col) of every simulation bone: every row but the last, every second column.
    bone_sites: Vec<(usize, usize)>,
    bone_inverse_rest: Vec<Mat4>,
    /// The high-resolution garment.
    pub render: RenderMesh,
    /// Per render vertex, where it lies on the simulation grid ([`GarmentRig::shell_grid_coords`]).
    grid_coords: Vec<Option<(f32, f32)>>,
}

impl GarmentRig {
    /// Refuses a layout no garment can be built on.
    pub fn check_layout(layout: &GridLayout) -> Result<(), GarmentError> {
        if layout.cols < 5 || layout.cols % 2 == 0 || layout.rows < 3 {
            return Err(GarmentError::Layout(format!(
                "needs an odd number of columns of at least 5 and at least 3 rows, got {} x {}",
                layout.cols, layout.rows
            )));
        }
        if !(layout.top_height > layout.hem_height && layout.hem_height > 0.0) {
            return Err(GarmentError::Layout(format!(
                "the top row ({} m) must be above the hem ({} m), and the hem above the ground",
                layout.top_height, layout.hem_height
            )));
        }
        if layout.render_cols_per_sim == 0 || layout.render_rows_per_sim == 0 {
            return Err(GarmentError::Layout(
                "render resolution must be at least 1".into(),
            ));
        }
        Ok(())
    }

    /// Builds the rig of a garment on `character` (posed at rest by `model`): its grid's
    /// particles at `rest` (row by row, `layout.cols` a row), its own drivers at rest
    /// (`extra_rest`, after the character's bones), and what `tailor` says of it (a template
    /// passes the rest `rings` its grid lies on, one per row, for its render mesh).
    pub(super) fn new(
        character: &Character,
        model: &[Mat4],
        layout: &GridLayout,
        (rest, rings): (Vec<Vec3>, &[Ring]),
        extra_rest: &[Mat4],
        tailor: &dyn Tailor,
    ) -> Result<Self, GarmentError> {
        let topology = Topology::from_grid(layout.cols, layout.rows, rest)?;
        let topology = if tailor.closed() {
            topology.with_seam()?
        } else {
            topology
        };
        let mut rest_drivers = model.to_vec();
        rest_drivers.extend_from_slice(extra_rest);
        let rest_drivers_inv: Vec<Mat4> = rest_drivers.iter().map(|m| m.inverse()).collect();
        let mut rig = Self {
            layout: layout.clone(),
            bones: Bones::of(&character.roles),
            char_bones: character.skeleton.len(),
            topology,
            rest_drivers,
            rest_drivers_inv,
            particle_binding: Vec::new(),
            bone_sites: Vec::new(),
            bone_inverse_rest: Vec::new(),
            render: RenderMesh::default(),
            grid_coords: Vec::new(),
        };
        rig.particle_binding = (0..rig.topology.len())
            .map(|i| {
                let (p, depth) = (rig.topology.rest[i], rig.topology.row_fraction(i));
                tailor.reference_binding(&rig, i, p, depth)
            })
            .collect();
        for r in 0..layout.rows - 1 {
            for c in (0..layout.cols).step_by(2) {
                rig.bone_sites.push((r, c));
            }
        }
        if tailor.hem_bones() {
            rig.bone_sites
                .extend((0..layout.cols).map(|c| (layout.rows - 1, c)));
        }
        let mut rest_bones = Vec::new();
        sim_bones_into(
            &rig.topology,
            &rig.bone_sites,
            &rig.topology.rest,
            &mut rest_bones,
        );
        rig.bone_inverse_rest = rest_bones.iter().map(|m| m.inverse()).collect();
        let mut m = RenderMesh::default();
        tailor.add_parts(&rig, rings, &RestSkin::new(character, model), &mut m);
        m.orient_corners();
        rig.grid_coords = (0..m.vertex_count() as u32)
            .map(|v| tailor.grid_coords(&rig, v))
            .collect();
        rig.render = m;
        Ok(rig)
    }

    /// The layout the rig was built from.
    pub fn layout(&self) -> &GridLayout {
        &self.layout
    }

    /// Where render vertex `v` lies on the simulation grid, as (column, row) coordinates, when
    /// it is on the grid's surface (a template's shells); `None` for the garment's other parts
    /// (yoke, collar, sleeves, hood, crown, what stays on the body's bones).
    pub fn shell_grid_coords(&self, v: u32) -> Option<(f32, f32)> {
        self.grid_coords.get(v as usize).copied().flatten()
    }

    /// The (row, column) of the particle each simulation bone sits on.
    pub fn sim_bone_sites(&self) -> &[(usize, usize)] {
        &self.bone_sites
    }

    /// The simulation bones at rest (character space), in [`GarmentRig::sim_bone_sites`]'
    /// order.
    pub fn rest_sim_bones(&self) -> Vec<Mat4> {
        let mut out = Vec::new();
        sim_bones_into(
            &self.topology,
            &self.bone_sites,
            &self.topology.rest,
            &mut out,
        );
        out
    }

    /// The rest matrices of the drivers (character space): the character's bones, then the
    /// garment's own ([`GarmentRig::character_bones`] of them are the character's).
    pub fn rest_drivers(&self) -> &[Mat4] {
        &self.rest_drivers
    }

    /// How many of the drivers are the character's bones.
    pub fn character_bones(&self) -> usize {
        self.char_bones
    }

    /// How particle `i`'s reference point follows the drivers.
    pub fn particle_binding(&self, i: usize) -> &Binding {
        &self.particle_binding[i]
    }

    /// The character bone the garment's own driver `k` hangs from: the torso bone (pelvis,
    /// spine, chest, neck, head) nearest it at rest. A jacket's pads and side bones come out
    /// under the chest or the neck, a hood's bone under the head.
    pub fn driver_parent(&self, k: usize) -> usize {
        let at = |d: usize| self.rest_drivers[d].w_axis.truncate();
        let p = at(self.char_bones + k);
        let b = self.bones;
        [b.pelvis, b.spine, b.chest, b.neck, b.head]
            .into_iter()
            .min_by(|&x, &y| at(x).distance(p).total_cmp(&at(y).distance(p)))
            .unwrap_or(b.chest)
    }

    /// Buffers for [`GarmentRig::pose`], sized for this rig.
    pub fn new_frame(&self) -> RigFrame {
        let drivers = self.rest_drivers.len();
        RigFrame {
            driver_skin: vec![Mat4::IDENTITY; drivers],
            sim_bones: vec![Mat4::IDENTITY; self.bone_sites.len()],
            render_skin: vec![Mat4::IDENTITY; self.bone_sites.len() + drivers],
        }
    }

    /// Fills the drivers' skin matrices for a pose: `model` the character's bones, `extra`
    /// the garment's own drivers (both character space).
    pub fn pose(&self, model: &[Mat4], extra: &[Mat4], frame: &mut RigFrame) {
        let n = self.char_bones;
        for (i, m) in model.iter().enumerate().take(n) {
            frame.driver_skin[i] = *m * self.rest_drivers_inv[i];
        }
        for (k, m) in extra.iter().enumerate() {
            self.set_extra(k, *m, frame);
        }
    }

    /// Updates the skin matrix of the garment's own driver `k` alone (a hood bone after its
    /// pendulum moved), leaving the rest of the pose from [`GarmentRig::pose`].
    pub fn set_extra(&self, k: usize, m: Mat4, frame: &mut RigFrame) {
        let d = self.char_bones + k;
        frame.driver_skin[d] = m * self.rest_drivers_inv[d];
    }

    /// Each particle's reference point for this pose: its rest position skinned by its
    /// binding.
    pub fn references(&self, frame: &RigFrame, out: &mut [Vec3]) {
        let particles = self.particle_binding.iter().zip(&self.topology.rest);
        for (o, (b, rest)) in out.iter_mut().zip(particles) {
            *o = blend_point(&frame.driver_skin, b, *rest);
        }
    }

    /// The bones on the simulation mesh for particle positions `pos`, then the render mesh's
    /// skin matrices.
    pub fn update_bones(&self, pos: &[Vec3], frame: &mut RigFrame) {
        sim_bones_into(&self.topology, &self.bone_sites, pos, &mut frame.sim_bones);
        let nb = self.bone_sites.len();
        for i in 0..nb {
            frame.render_skin[i] = frame.sim_bones[i] * self.bone_inverse_rest[i];
        }
        frame.render_skin[nb..].copy_from_slice(&frame.driver_skin);
    }

    /// Skins the render mesh with `frame.render_skin` into `pos` and `nrm` (resized once); the
    /// normals are the skinned surface's (`RenderMesh::surface_normals`).
    pub fn skin_render(&self, frame: &RigFrame, pos: &mut Vec<Vec3>, nrm: &mut Vec<Vec3>) {
        let mesh = &self.render;
        pos.resize(mesh.positions.len(), Vec3::ZERO);
        nrm.resize(mesh.positions.len(), Vec3::ZERO);
        for (i, b) in mesh.binding.iter().enumerate() {
            let mut m = Mat4::ZERO;
            for &(j, w) in b {
                if w != 0.0 {
                    m += frame.render_skin[j as usize] * w;
                }
            }
            pos[i] = m.transform_point3(mesh.positions[i]);
            nrm[i] = m.transform_vector3(mesh.normals[i]).normalize_or_zero();
        }
        mesh.surface_normals(pos, nrm);
    }
}

/// The rest positions of a template's grid: each row on its ring, `layout.cols` a row.
pub(super) fn ring_rest(layout: &GridLayout, rings: &[Ring]) -> Vec<Vec3> {
    (0..layout.rows)
        .flat_map(|r| (0..layout.cols).map(move |c| (r, c)))
        .map(|(r, c)| surface_point(layout, rings, c as f32, r as f32))
        .collect()
}

/// The character's bones posed at rest, character space.
pub(super) fn rest_model(character: &Character) -> Vec<Mat4> {
    let sk = &character.skeleton;
    let mut model = Vec::new();
    sk.rest_pose().compute_model(sk, &mut model);
    model
}

/// Bones on the simulation mesh: one on each `(row, col)` site; x axis toward the particle
/// below, y axis from the left neighbour to the right one (the particle itself at an edge),
/// z = x × y, orthonormalised.
pub fn sim_bones_into(
    topo: &Topology,
    sites: &[(usize, usize)],
    pos: &[Vec3],
    out: &mut Vec<Mat4>,
) {
    out.resize(sites.len(), Mat4::IDENTITY);
    let cols = topo.cols;
    for (o, &(r, c)) in out.iter_mut().zip(sites) {
        let p = pos[r * cols + c];
        let (down, left, right) = if r + 1 < topo.rows {
            let left = pos[r * cols + c.saturating_sub(1)];
            let right = pos[r * cols + (c + 1).min(cols - 1)];
            (pos[(r + 1) * cols + c] - p, left, right)
        } else {
            // A hem bone: down is on from the particle above; across a seam its neighbours
            // are on the seam's other side, so the drawn hem is as round there as elsewhere.
            let (l, r_) = match (topo.seam, c) {
                (true, 0) => (cols - 2, 1),
                (true, c) if c + 1 == cols => (c - 1, 1),
                _ => (c.saturating_sub(1), (c + 1).min(cols - 1)),
            };
            let above = pos[(r - 1) * cols + c];
            (p - above, pos[r * cols + l], pos[r * cols + r_])
        };
        *o = bone_from_axes(p, down, right - left);
    }
}

/// Skinning of a hem point at grid column `u` to the hem bones ([`Tailor::hem_bones`]): the
/// two on either side, weighted by a smoothstep of the way between them. At a particle the
/// point is its bone's alone and leaves it along the bone's y axis (from the particle's left
/// neighbour to its right one), so the drawn hem meets every hem particle with a tangent
/// from its neighbours, as a Catmull-Rom spline does, and never with a corner; the weights are
/// never negative, as a skin's must be.
pub(super) fn hem_binding(rig: &GarmentRig, u: f32) -> Binding {
    let cols = rig.layout.cols;
    let first = rig.bone_sites.len() - cols;
    let u = u.clamp(0.0, (cols - 1) as f32);
    let c0 = (u.floor() as usize).min(cols - 2);
    let s = u - c0 as f32;
    let w = s * s * (3.0 - 2.0 * s);
    [
        ((first + c0) as u16, 1.0 - w),
        ((first + c0 + 1) as u16, w),
        (0, 0.0),
        (0, 0.0),
    ]
}

/// An orthonormal bone at `origin` with x along `x_dir` and y as close to `y_dir` as an
/// orthonormal frame allows (Gram-Schmidt), z = x × y.
pub fn bone_from_axes(origin: Vec3, x_dir: Vec3, y_dir: Vec3) -> Mat4 {
    let x = x_dir.normalize_or(Vec3::NEG_Y);
    let mut y = y_dir - x * x.dot(y_dir);
    if y.length_squared() < 1e-12 {
        y = x.any_orthonormal_vector();
    }
    let y = y.normalize();
    let z = x.cross(y);
    Mat4::from_cols(
        x.extend(0.0),
        y.extend(0.0),
        z.extend(0.0),
        origin.extend(1.0),
    )
}

/// A rotation+translation whose x axis points from `origin` to `target`, keeping world up as
/// close to its y axis as possible.
pub fn look_at_matrix(origin: Vec3, target: Vec3) -> Mat4 {
    bone_from_axes(origin, target - origin, Vec3::X)
}

pub(super) fn blend_point(skin: &[Mat4], b: &Binding, p: Vec3) -> Vec3 {
    let mut out = Vec3::ZERO;
    for &(j, w) in b {
        if w != 0.0 {
            out += skin[j as usize].transform_point3(p) * w;
        }
    }
    out
}

/// Up to four of the heaviest (driver, weight) pairs, the same driver merged, normalised.
pub(super) fn mix_bindings(entries: &[(u16, f32)]) -> Binding {
    let mut out: Binding = [(0, 0.0); 4];
    let mut merged: Vec<(u16, f32)> = Vec::with_capacity(entries.len());
    for &(d, w) in entries.iter().filter(|e| e.1 > 0.0) {
        match merged.iter_mut().find(|e| e.0 == d) {
            Some(e) => e.1 += w,
            None => merged.push((d, w)),
        }
    }
    merged.sort_by(|a, b| b.1.total_cmp(&a.1));
    let sum: f32 = merged.iter().take(4).map(|e| e.1).sum();
    for (o, e) in out.iter_mut().zip(&merged) {
        *o = (e.0, e.1 / sum.max(1e-6));
    }
    out
}

/// Triangles joining `rings + 1` consecutive rings of `around` vertices each (closed around),
/// starting at vertex `first`; `flip` turns them to face the other way (the left side mirrors
/// the right).
pub(super) fn ring_strip(indices: &mut Vec<u32>, first: u32, rings: u32, around: u32, flip: bool) {
    for j in 0..rings {
        for i in 0..around {
            let a = first + j * around + i;
            let b = first + j * around + (i + 1) % around;
            let (c, d) = (a + around, b + around);
            if flip {
                indices.extend_from_slice(&[a, b, c, b, d, c]);
            } else {
                indices.extend_from_slice(&[a, c, b, b, c, d]);
            }
        }
    }
}

pub(super) fn smoothstep(e0: f32, e1: f32, x: f32) -> f32 {
    let t = ((x - e0) / (e1 - e0)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// The distance from `p` to the segment `a`-`b`.
pub(super) fn distance_to_segment(p: Vec3, a: Vec3, b: Vec3) -> f32 {
    p.distance(closest_on_segment(p, a, b))
}

/// The body's skin at rest with the bones each vertex follows: render-mesh parts that lie on
/// the skin (the yoke over the shoulders) take the skinning of the skin under them, so the
/// skin cannot move out from under them.
pub(super) struct RestSkin {
    /// The positions, sorted into cells for [`RestSkin::nearest`].
    grid: PointGrid,
    normals: Vec<Vec3>,
    joints: Vec<[u16; 4]>,
    weights: Vec<[f32; 4]>,
}

/// How many of the nearest skin vertices [`RestSkin`] blends: enough to smooth over one
/// vertex's odd weights or normal, few enough to stay local (about 3 cm on the built-in body).
const SKIN_NEIGHBOURS: usize = 16;

impl RestSkin {
    /// The skin of `character` posed by `model` (its rest pose).
    pub(super) fn new(character: &Character, model: &[Mat4]) -> Self {
        let mut matrices = Vec::new();
        character.skin_matrices(model, &mut matrices);
        let (mut positions, mut normals) = (Vec::new(), Vec::new());
        crate::character::skin(&character.mesh, &matrices, &mut positions, &mut normals);
        Self {
            grid: PointGrid::new(positions),
            normals,
            joints: character.mesh.joints.clone(),
            weights: character.mesh.weights.clone(),
        }
    }

    /// The skin vertices nearest `p`, nearest first (ties by index).
    pub(super) fn nearest(&self, p: Vec3) -> impl Iterator<Item = usize> {
        self.grid
            .nearest::<SKIN_NEIGHBOURS>(p)
            .into_iter()
            .flatten()
    }

    /// The skinning of the skin nearest `p` (its nearest vertices' weights, merged), as render
    /// skin entries of `rig`.
    pub(super) fn binding_near(&self, rig: &GarmentRig, p: Vec3) -> Binding {
        let entries: Vec<(u16, f32)> = self
            .nearest(p)
            .flat_map(|v| self.joints[v].iter().zip(&self.weights[v]))
            .map(|(&j, &w)| (driver(rig, j as usize), w))
            .collect();
        mix_bindings(&entries)
    }

    /// `p` moved out along the skin's normal until it is at least `gap` outside the skin
    /// (the plane through its nearest vertices); unchanged when it already is.
    pub(super) fn outside(&self, p: Vec3, gap: f32) -> Vec3 {
        self.height(p)
            .map_or(p, |(depth, normal)| p + normal * (gap - depth).max(0.0))
    }

    /// `p` moved in along the skin's normal until it is at most `gap` outside the skin;
    /// unchanged when it already is.
    pub(super) fn within(&self, p: Vec3, gap: f32) -> Vec3 {
        self.height(p)
            .map_or(p, |(depth, normal)| p - normal * (depth - gap).max(0.0))
    }

    /// How far `p` lies outside the skin (the plane through its nearest vertices, along
    /// their mean normal), and that normal; `None` where the skin gives no normal.
    pub(super) fn height(&self, p: Vec3) -> Option<(f32, Vec3)> {
        let (mut centre, mut normal, mut n) = (Vec3::ZERO, Vec3::ZERO, 0.0);
        for v in self.nearest(p) {
            centre += self.grid.points()[v];
            normal += self.normals[v];
            n += 1.0;
        }
        let normal = normal.normalize_or_zero();
        if n == 0.0 || normal == Vec3::ZERO {
            return None;
        }
        Some(((p - centre / n).dot(normal), normal))
    }
}

/// The render skin index of driver `d` (the simulation bones come first).
pub(super) fn driver(rig: &GarmentRig, d: usize) -> u16 {
    (rig.bone_sites.len() + d) as u16
}

/// Skinning of a lower-jacket point at grid coordinates (u, v): bilinear over the bone grid.
pub(super) fn lower_binding(rig: &GarmentRig, u: f32, v: f32) -> Binding {
    let layout = &rig.layout;
    let nb = rig.bone_sites.len();
    let bone_cols = layout.cols.div_ceil(2);
    let bone_rows = layout.rows - 1;
    let bu = (u / 2.0).clamp(0.0, (bone_cols - 1) as f32);
    let bv = v.clamp(0.0, (bone_rows - 1) as f32);
    let (i0, j0) = (
        (bu.floor() as usize).min(bone_cols.saturating_sub(2)),
        (bv.floor() as usize).min(bone_rows.saturating_sub(2)),
    );
    let (fu, fv) = (
        (bu - i0 as f32).clamp(0.0, 1.0),
        (bv - j0 as f32).clamp(0.0, 1.0),
    );
    let idx = |i: usize, j: usize| (j * bone_cols + i).min(nb - 1) as u16;
    let i1 = (i0 + 1).min(bone_cols - 1);
    let j1 = (j0 + 1).min(bone_rows - 1);
    [
        (idx(i0, j0), (1.0 - fu) * (1.0 - fv)),
        (idx(i1, j0), fu * (1.0 - fv)),
        (idx(i0, j1), (1.0 - fu) * fv),
        (idx(i1, j1), fu * fv),
    ]
}

/// The lower jacket: the outer shell (with its details), then the inner shell half the
/// thickness inside, both skinned to the simulation bones, joined at the hem and the front
/// edges.
pub(super) fn add_shells(
    rig: &GarmentRig,
    rings: &[Ring],
    tailor: &dyn Tailor,
    m: &mut RenderMesh,
) {
    let layout = &rig.layout;
    let (nu, nv) = layout.render_grid();
    let half = layout.thickness * 0.5;
    let lining = lining_uv_offset(layout, rings);
    for shell in 0..2 {
        let sign = if shell == 0 { 1.0 } else { -1.0 };
        let [du, dv] = if shell == 0 { [0.0; 2] } else { lining };
        for j in 0..nv {
            for i in 0..nu {
                let (u, v) = (layout.render_u(i), layout.render_v(j));
                let n = surface_normal(layout, rings, u, v);
                let detail = tailor.shell_detail(layout, u, v);
                let offset = if shell == 0 { half + detail } else { -half };
                m.push_vertex(
                    surface_point(layout, rings, u, v) + n * offset,
                    n * sign,
                    [
                        u / (layout.cols - 1) as f32 * SHELL_UV.0 + du,
                        v / (layout.rows - 1) as f32 * SHELL_UV.1 + dv,
                    ],
                    lower_binding(rig, u, v),
                );
            }
        }
        let base = (shell * nu * nv) as u32;
        for j in 0..nv - 1 {
            for i in 0..nu - 1 {
                let a = base + (j * nu + i) as u32;
                let b = a + 1;
                let c = a + nu as u32;
                let d = c + 1;
                if shell == 0 {
                    m.indices.extend_from_slice(&[a, c, b, b, c, d]);
                } else {
                    m.indices.extend_from_slice(&[a, b, c, b, d, c]);
                }
            }
        }
    }
    join_shells(nu, nv, &mut m.indices);
}

/// How many times the fabric's texture repeats around the lower jacket and down it.
pub(super) const SHELL_UV: (f32, f32) = (4.0, 2.0);

/// The inner shell's texture coordinates' offset from the outer one's: the fabric's thickness
/// in texture units, around and down. The strips joining the two shells at the hem and the
/// front edges share their vertices; with the same coordinates on both shells a strip showed
/// one column of the texture stretched across it, as stripes along the front edge. Offset, it
/// shows the weave over the fabric's thickness, as a cut edge does.
fn lining_uv_offset(layout: &GridLayout, rings: &[Ring]) -> [f32; 2] {
    let (nu, nv) = layout.render_grid();
    let v = layout.render_v(nv / 2);
    let around: f32 = (0..nu - 1)
        .map(|i| {
            let (a, b) = (layout.render_u(i), layout.render_u(i + 1));
            surface_point(layout, rings, a, v).distance(surface_point(layout, rings, b, v))
        })
        .sum();
    let down = (layout.top_height - layout.hem_height).max(1e-3);
    [
        layout.thickness * SHELL_UV.0 / around.max(1e-3),
        layout.thickness * SHELL_UV.1 / down,
    ]
}

/// Triangles joining the outer shell (the first `nu` x `nv` vertices) to the inner one (the
/// next) along the hem and both front edges.
fn join_shells(nu: usize, nv: usize, indices: &mut Vec<u32>) {
    let outer = |i: usize, j: usize| (j * nu + i) as u32;
    let inner = |i: usize, j: usize| (nu * nv + j * nu + i) as u32;
    for i in 0..nu - 1 {
        let j = nv - 1;
        indices.extend_from_slice(&[
            outer(i, j),
            inner(i, j),
            outer(i + 1, j),
            outer(i + 1, j),
            inner(i, j),
            inner(i + 1, j),
        ]);
    }
    for j in 0..nv - 1 {
        for (i, flip) in [(0usize, false), (nu - 1, true)] {
            let q = [outer(i, j), outer(i, j + 1), inner(i, j), inner(i, j + 1)];
            if flip {
                indices.extend_from_slice(&[q[0], q[1], q[2], q[2], q[1], q[3]]);
            } else {
                indices.extend_from_slice(&[q[0], q[2], q[1], q[1], q[2], q[3]]);
            }
        }
    }
}
