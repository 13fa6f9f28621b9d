//! The jacket rig, as the article built it: an upper jacket of procedural bones (shoulder pads
//! that look at the upper arms, side bones that look straight down, kept apart by a position
//! constraint), a low-resolution simulation grid for the lower jacket whose top row is skinned
//! to the chest and the side bones, bones placed on the simulation mesh, and a high-resolution
//! render mesh skinned to those bones.
//!
//! Everything here is in character space (the root's frame). The per-frame functions take
//! their output buffers and allocate nothing once those are sized.

use std::f32::consts::{FRAC_PI_2, PI, TAU};

use glam::{Mat4, Quat, Vec3};
use serde::{Deserialize, Serialize};

use super::nearest::PointGrid;
use super::skirt::LegBones;
use crate::character::{Character, PosedEllipsoid, Role, Roles};
use crate::preset::Garment;
use crate::sim::collision::closest_on_segment;
use crate::sim::{LegLines, Topology, TopologyError};

/// The shape of the jacket's simulation grid and render mesh. Rows are ellipses fitted around
/// the body's torso and thigh ellipsoids at rest, so another character gets a jacket that fits.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct JacketLayout {
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

impl Default for JacketLayout {
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

impl JacketLayout {
    /// The default layout fitted to a character: the top row scaled with the shoulder
    /// height, the hem with the mid-thigh height, the drawn details with the shoulder height
    /// ([`JacketLayout::body_scale`]), each against the built-in character's (on which this
    /// is exactly the default).
    pub fn fitted(character: &Character) -> Self {
        let (shoulder, thigh) = landmarks(character);
        let d = Self::default();
        let k = shoulder / BUILTIN_LANDMARKS.0;
        Self {
            top_height: d.top_height * k,
            hem_height: d.hem_height * (thigh / BUILTIN_LANDMARKS.1),
            body_scale: k,
            ..d
        }
    }
}

/// Errors building a jacket for a character.
#[derive(Debug, thiserror::Error)]
pub enum JacketError {
    #[error("jacket layout: {0}")]
    Layout(String),
    #[error("jacket grid: {0}")]
    Topology(#[from] TopologyError),
}

/// Indices of the character bones the jacket uses.
#[derive(Clone, Copy, Debug)]
pub(super) struct Bones {
    pub(super) pelvis: usize,
    spine: usize,
    pub(super) chest: usize,
    pub(super) neck: usize,
    pub(super) head: usize,
    upperarm: [usize; 2],
    upperarm_twist: [usize; 2],
    forearm: [usize; 2],
    forearm_twist: [usize; 2],
    hand: [usize; 2],
}

impl Bones {
    /// The bones of the roles; a missing twist bone is its arm bone (the sleeve then twists
    /// with the bone itself).
    fn of(roles: &Roles) -> Self {
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

/// Left (+X) and right (-X).
const SIDES: [usize; 2] = [0, 1];

/// The upper jacket's procedural bones for one pose (character space).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UpperJacket {
    /// Shoulder pads, left and right: at the shoulder joint, looking at the upper arm.
    pub shoulder: [Mat4; 2],
    /// Side bones, left and right: at the end of the pad, looking straight down.
    pub side: [Mat4; 2],
}

/// Up to four (driver index, weight) pairs.
pub(super) type Binding = [(u16, f32); 4];

/// Drivers after the character's bones: two shoulder pads, two side bones, the hood.
const EXTRA_DRIVERS: usize = 5;

/// The hood's outer layer: rings from the face opening to the bottom of the bowl, and vertices
/// around each ring (one more closes it).
const HOOD_RINGS: usize = 14;
const HOOD_AROUND: usize = 32;

/// Per-frame matrices of the jacket rig. Sized once by [`JacketRig::new_frame`].
#[derive(Clone, Debug, Default)]
pub struct JacketFrame {
    /// The upper jacket bones.
    pub upper: UpperJacket,
    /// Skin matrices (current x inverse rest) of the drivers: the character's bones, then the
    /// shoulder pads, the side bones and the hood bone.
    pub driver_skin: Vec<Mat4>,
    /// The bones on the simulation mesh (character space).
    pub sim_bones: Vec<Mat4>,
    /// Skin matrices of the render mesh: simulation bones, then the drivers.
    pub render_skin: Vec<Mat4>,
}

impl Default for UpperJacket {
    fn default() -> Self {
        Self {
            shoulder: [Mat4::IDENTITY; 2],
            side: [Mat4::IDENTITY; 2],
        }
    }
}

/// A mesh in character space with texture coordinates.
#[derive(Clone, Debug, Default)]
pub struct RenderMesh {
    pub positions: Vec<Vec3>,
    pub normals: Vec<Vec3>,
    pub uvs: Vec<[f32; 2]>,
    pub indices: Vec<u32>,
    /// Per vertex: indices into [`JacketFrame::render_skin`] and weights.
    pub(super) binding: Vec<Binding>,
    /// The hood's vertices (empty without a hood), every one skinned rigidly to the hood bone.
    pub hood: std::ops::Range<usize>,
    /// Per triangle corner: whether the triangle's winding faces the way of that vertex's
    /// normal at rest (1), the other way (-1), or across it (0: the strips joining the outer
    /// and inner shells at the hem and front edges, which would bend the shells' normals).
    /// See [`JacketRig::skin_render`].
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

/// The rig of a jacket on one character: rest data, built once.
#[derive(Clone, Debug)]
pub struct JacketRig {
    layout: JacketLayout,
    pub(super) bones: Bones,
    char_bones: usize,
    garment: Garment,
    /// The simulation grid.
    pub topology: Topology,
    /// Rest matrices of every driver (character bones, pads, sides, hood).
    pub(super) rest_drivers: Vec<Mat4>,
    rest_drivers_inv: Vec<Mat4>,
    /// Where each shoulder pad looks, in its upper arm's space.
    pad_target_local: [Vec3; 2],
    /// Rest offset of each side bone from its pad, in the pad's space.
    side_offset: [Vec3; 2],
    side_distance: f32,
    /// Per particle: the drivers its rest position is skinned to (the reference pose).
    particle_binding: Vec<Binding>,
    /// (row, col) of every simulation bone: every row but the last, every second column.
    bone_sites: Vec<(usize, usize)>,
    bone_inverse_rest: Vec<Mat4>,
    /// The hood bone's rest matrix (looks at the pendulum's rest position).
    pub hood_rest: Mat4,
    /// The pendulum's rest end point.
    pub hood_pendulum_rest: Vec3,
    /// Points on the hood's outer surface in the hood bone's space (empty without a hood):
    /// what the hood keeps out of the head, neck and shoulders.
    pub hood_points: Vec<Vec3>,
    /// The high-resolution jacket (and hood, when hooded).
    pub render: RenderMesh,
    /// The skirt's legs, for its leg lines (`None` for another garment).
    legs: Option<LegBones>,
}

/// The torso ellipsoid rows: ellipse half-widths and centre per height.
#[derive(Clone, Copy, Debug)]
pub(super) struct Ring {
    pub(super) y: f32,
    pub(super) rx: f32,
    pub(super) rz: f32,
    pub(super) cz: f32,
}

impl JacketRig {
    /// Builds `garment` for `character`: a hooded jacket adds the hood and its pendulum bone;
    /// a veil hangs from the crown (see [`JacketLayout::veil`]) with no upper jacket drawn.
    pub fn new(
        character: &Character,
        layout: &JacketLayout,
        garment: Garment,
    ) -> Result<Self, JacketError> {
        if layout.cols < 5 || layout.cols % 2 == 0 || layout.rows < 3 {
            return Err(JacketError::Layout(format!(
                "needs an odd number of columns of at least 5 and at least 3 rows, got {} x {}",
                layout.cols, layout.rows
            )));
        }
        if !(layout.top_height > layout.hem_height && layout.hem_height > 0.0) {
            return Err(JacketError::Layout(format!(
                "the top row ({} m) must be above the hem ({} m), and the hem above the ground",
                layout.top_height, layout.hem_height
            )));
        }
        if layout.render_cols_per_sim == 0 || layout.render_rows_per_sim == 0 {
            return Err(JacketError::Layout(
                "render resolution must be at least 1".into(),
            ));
        }
        let sk = &character.skeleton;
        let bones = Bones::of(&character.roles);
        let mut model = Vec::new();
        sk.rest_pose().compute_model(sk, &mut model);
        let rings = match garment {
            Garment::Veil => super::veil::rest_rings(character, layout, &model),
            Garment::Skirt => super::skirt::rest_rings(character, layout, &model),
            Garment::Jacket | Garment::HoodedJacket => {
                torso_rings(character, layout, &model, JACKET_RING_FLOOR)
            }
        };
        let rest: Vec<Vec3> = (0..layout.rows)
            .flat_map(|r| (0..layout.cols).map(move |c| (r, c)))
            .map(|(r, c)| surface_point(layout, &rings, c as f32, r as f32))
            .collect();
        let topology = Topology::from_grid(layout.cols, layout.rows, rest)?;
        // The skirt is closed all round: its first and last columns are one seam.
        let topology = match garment {
            Garment::Skirt => topology.with_seam()?,
            _ => topology,
        };

        let pos = |b: usize| model[b].w_axis.truncate();
        let chest = model[bones.chest];
        let mut rest_drivers = model.clone();
        let mut pad_target_local = [Vec3::ZERO; 2];
        let mut side_offset = [Vec3::ZERO; 2];
        let mut side_pos = [Vec3::ZERO; 2];
        let top = rings[0];
        for s in SIDES {
            let shoulder = pos(bones.upperarm[s]);
            let target = shoulder.lerp(pos(bones.forearm[s]), layout.pad_target);
            pad_target_local[s] = model[bones.upperarm[s]].inverse().transform_point3(target);
            // The pad: x axis toward its target, oriented from the chest's frame.
            let (_, chest_rot, _) = chest.to_scale_rotation_translation();
            let x = (target - shoulder).normalize();
            let rot = Quat::from_rotation_arc(chest_rot * Vec3::X, x) * chest_rot;
            let pad = Mat4::from_rotation_translation(rot.normalize(), shoulder);
            // The side bone hangs below the pad's end, at the jacket's top row under the arm.
            let sign = if s == 0 { 1.0 } else { -1.0 };
            side_pos[s] = Vec3::new(sign * top.rx, top.y, top.cz);
            side_offset[s] = pad.inverse().transform_point3(side_pos[s]);
            rest_drivers.push(pad);
        }
        let (_, chest_rot, _) = chest.to_scale_rotation_translation();
        for s in SIDES {
            rest_drivers.push(Mat4::from_rotation_translation(chest_rot, side_pos[s]));
        }
        // The hood: a bone behind the neck looking at a pendulum end behind and below it.
        let neck = pos(bones.neck);
        let k = layout.body_scale;
        let hood_origin = neck + Vec3::new(0.0, 0.02, -0.09) * k;
        let hood_pendulum_rest = hood_origin + Vec3::new(0.0, -0.12, -0.2) * k;
        let hood_rest = look_at_matrix(hood_origin, hood_pendulum_rest);
        rest_drivers.push(hood_rest);
        let rest_drivers_inv: Vec<Mat4> = rest_drivers.iter().map(|m| m.inverse()).collect();

        let mut rig = Self {
            layout: layout.clone(),
            bones,
            char_bones: sk.len(),
            garment,
            topology,
            rest_drivers,
            rest_drivers_inv,
            pad_target_local,
            side_offset,
            side_distance: side_pos[0].distance(side_pos[1]),
            particle_binding: Vec::new(),
            bone_sites: Vec::new(),
            bone_inverse_rest: Vec::new(),
            hood_rest,
            hood_pendulum_rest,
            hood_points: Vec::new(),
            render: RenderMesh::default(),
            legs: (garment == Garment::Skirt).then(|| LegBones::of(character, &model)),
        };
        rig.particle_binding = (0..rig.topology.len())
            .map(|i| rig.reference_binding(rig.topology.rest[i], rig.topology.row_fraction(i)))
            .collect();
        for r in 0..layout.rows - 1 {
            for c in (0..layout.cols).step_by(2) {
                rig.bone_sites.push((r, c));
            }
        }
        let mut rest_bones = Vec::new();
        sim_bones_into(
            &rig.topology,
            &rig.bone_sites,
            &rig.topology.rest,
            &mut rest_bones,
        );
        rig.bone_inverse_rest = rest_bones.iter().map(|m| m.inverse()).collect();
        rig.render = build_render_mesh(&rig, &rings, &RestSkin::new(character, &model));
        rig.render.orient_corners();
        rig.hood_points = hood_points(&rig);
        Ok(rig)
    }

    /// The layout the rig was built from.
    pub fn layout(&self) -> &JacketLayout {
        &self.layout
    }

    /// Where render vertex `v` lies on the simulation grid, as (column, row) coordinates, when
    /// it is on the lower jacket's shells (the first vertices of the render mesh); `None` for
    /// the yoke, collar, sleeves and hood.
    pub fn shell_grid_coords(&self, v: u32) -> Option<(f32, f32)> {
        let (nu, nv) = self.layout.render_grid();
        let k = (v as usize).checked_rem(nu * nv)?;
        ((v as usize) < 2 * nu * nv)
            .then(|| (self.layout.render_u(k % nu), self.layout.render_v(k / nu)))
    }

    /// Whether the rig has the hood.
    pub fn hooded(&self) -> bool {
        self.garment == Garment::HoodedJacket
    }

    /// The garment the rig dresses.
    pub fn garment(&self) -> Garment {
        self.garment
    }

    /// The skirt's leg lines in the pose `model` (`None` for another garment).
    pub fn leg_lines(&self, model: &[Mat4]) -> Option<LegLines> {
        self.legs.map(|l| l.pose(model))
    }

    /// The (row, column) of the particle each simulation bone sits on.
    pub fn sim_bone_sites(&self) -> &[(usize, usize)] {
        &self.bone_sites
    }

    /// The upper jacket at rest.
    pub fn rest_upper(&self) -> UpperJacket {
        let n = self.char_bones;
        UpperJacket {
            shoulder: [self.rest_drivers[n], self.rest_drivers[n + 1]],
            side: [self.rest_drivers[n + 2], self.rest_drivers[n + 3]],
        }
    }

    /// Buffers for [`JacketRig::pose`], sized for this rig.
    pub fn new_frame(&self) -> JacketFrame {
        let drivers = self.char_bones + EXTRA_DRIVERS;
        JacketFrame {
            upper: self.rest_upper(),
            driver_skin: vec![Mat4::IDENTITY; drivers],
            sim_bones: vec![Mat4::IDENTITY; self.bone_sites.len()],
            render_skin: vec![Mat4::IDENTITY; self.bone_sites.len() + drivers],
        }
    }

    /// Solves the upper jacket for a pose (`model`: the character's bones in character
    /// space) and fills the driver skin matrices; `hood` is the hood bone (character space).
    ///
    /// Each shoulder pad follows the chest but turns to look at its target on the upper arm,
    /// so the pad lifts when the arm rises. Each side bone rides at the end of its pad and
    /// takes the chest's orientation (looking straight down, cancelling the pad's turn); a
    /// position constraint then moves the two side bones apart or together to their rest
    /// distance.
    pub fn pose(&self, model: &[Mat4], hood: Mat4, frame: &mut JacketFrame) {
        let n = self.char_bones;
        let chest_delta = model[self.bones.chest] * self.rest_drivers_inv[self.bones.chest];
        let (_, chest_turn, _) = chest_delta.to_scale_rotation_translation();
        let mut side_pos = [Vec3::ZERO; 2];
        for s in SIDES {
            let origin = model[self.bones.upperarm[s]].w_axis.truncate();
            let target = model[self.bones.upperarm[s]].transform_point3(self.pad_target_local[s]);
            let (_, rest_rot, _) = self.rest_drivers[n + s].to_scale_rotation_translation();
            let follow = (chest_turn * rest_rot).normalize();
            let dir = (target - origin).normalize_or_zero();
            let current = follow * Vec3::X;
            let turn = if dir == Vec3::ZERO {
                Quat::IDENTITY
            } else {
                Quat::from_rotation_arc(current, dir)
            };
            frame.upper.shoulder[s] =
                Mat4::from_rotation_translation((turn * follow).normalize(), origin);
            // Only the pad's lift reaches the side bone: sliding it forward or back with the
            // arm would stretch the pinned top row between the sides (up to half again its
            // rest length on a run).
            let carried =
                chest_delta.transform_point3(self.rest_drivers[n + 2 + s].w_axis.truncate());
            let up = chest_turn * Vec3::Y;
            let padded = frame.upper.shoulder[s].transform_point3(self.side_offset[s]);
            side_pos[s] = carried + up * (padded - carried).dot(up);
        }
        let d = side_pos[1] - side_pos[0];
        let len = d.length();
        if len > 1e-6 {
            let fix = d * ((len - self.side_distance) / len * 0.5);
            side_pos[0] += fix;
            side_pos[1] -= fix;
        }
        for s in SIDES {
            let (_, rest_rot, _) = self.rest_drivers[n + 2 + s].to_scale_rotation_translation();
            frame.upper.side[s] =
                Mat4::from_rotation_translation((chest_turn * rest_rot).normalize(), side_pos[s]);
        }
        for (i, m) in model.iter().enumerate().take(n) {
            frame.driver_skin[i] = *m * self.rest_drivers_inv[i];
        }
        let extra = [
            frame.upper.shoulder[0],
            frame.upper.shoulder[1],
            frame.upper.side[0],
            frame.upper.side[1],
            hood,
        ];
        for (k, m) in extra.iter().enumerate() {
            frame.driver_skin[n + k] = *m * self.rest_drivers_inv[n + k];
        }
    }

    /// Updates only the hood bone's skin matrix (after the pendulum moved), leaving the rest of
    /// the pose from [`JacketRig::pose`].
    pub fn set_hood(&self, hood: Mat4, frame: &mut JacketFrame) {
        let k = self.char_bones + 4;
        frame.driver_skin[k] = hood * self.rest_drivers_inv[k];
    }

    /// Each particle's reference point for this pose: its rest position skinned to its
    /// nearest torso bone, plus the lift of its column's top particle (how far the shoulder
    /// pads moved it from where the chest alone would put it). The jacket is parented top
    /// down, as in the article: when the shoulders rise, the whole column's reference rises
    /// with them, so the hard constraints and the max distance agree.
    pub fn references(&self, frame: &JacketFrame, out: &mut [Vec3]) {
        let cols = self.topology.cols;
        let chest = frame.driver_skin[self.bones.chest];
        // The veil hangs from the head and the skirt from the waist, not from the shoulder
        // pads.
        let jacket = matches!(self.garment, Garment::Jacket | Garment::HoodedJacket);
        let particles = self.particle_binding.iter().zip(&self.topology.rest);
        for (i, (b, rest)) in particles.enumerate().take(out.len()) {
            out[i] = blend_point(&frame.driver_skin, b, *rest);
            if i >= cols && jacket {
                // The top row comes first and takes no lift, so its point is its column's.
                let top = self.topology.rest[i % cols];
                let lift = out[i % cols] - chest.transform_point3(top);
                out[i] += lift;
            }
        }
    }

    /// The bones on the simulation mesh for particle positions `pos`, then the render mesh's
    /// skin matrices.
    pub fn update_bones(&self, pos: &[Vec3], frame: &mut JacketFrame) {
        sim_bones_into(&self.topology, &self.bone_sites, pos, &mut frame.sim_bones);
        let nb = self.bone_sites.len();
        for i in 0..nb {
            frame.render_skin[i] = frame.sim_bones[i] * self.bone_inverse_rest[i];
        }
        frame.render_skin[nb..].copy_from_slice(&frame.driver_skin);
    }

    /// Skins the render mesh with `frame.render_skin` into `pos` and `nrm` (resized once); the
    /// normals are the skinned surface's (`RenderMesh::surface_normals`).
    pub fn skin_render(&self, frame: &JacketFrame, pos: &mut Vec<Vec3>, nrm: &mut Vec<Vec3>) {
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

    /// The top row's binding: the two side bones, weighted linearly by how far across the
    /// body the particle sits (half each at the middle, all of one at its side bone). Each
    /// side bone is the chest moved along the chest's up axis by its pad's lift
    /// ([`JacketRig::pose`]), so the row follows the chest and one raised arm tilts it evenly
    /// instead of stretching the two or three links where a steeper blend would change.
    fn top_binding(&self, p: Vec3) -> Binding {
        let side = if p.x >= 0.0 { 0 } else { 1 };
        let side_driver = self.char_bones + 2 + side;
        let reach = self.rest_drivers[side_driver].w_axis.x.abs().max(1e-3);
        let w = (0.5 + 0.5 * p.x.abs() / reach).min(1.0);
        let other = self.char_bones + 3 - side;
        [
            (side_driver as u16, w),
            (other as u16, 1.0 - w),
            (0, 0.0),
            (0, 0.0),
        ]
    }

    /// How a particle's reference point follows the body: its rest position skinned to its
    /// nearest torso bone (pelvis, spine or chest, measured to the bone's segment; the legs
    /// are left out so a swinging thigh does not drag the hem's reference against the hard
    /// constraints — the scene instead keeps references outside the leg ellipsoids), blended
    /// near the top toward the top row's binding so the rows under the shoulders move with
    /// the pinned row. `depth` is 0 at the top row and 1 at the hem.
    fn reference_binding(&self, p: Vec3, depth: f32) -> Binding {
        match self.garment {
            Garment::Veil => return super::veil::reference_binding(self, p, depth),
            Garment::Skirt => return super::skirt::reference_binding(self),
            Garment::Jacket | Garment::HoodedJacket => {}
        }
        let model_pos = |b: usize| self.rest_drivers[b].w_axis.truncate();
        let b = self.bones;
        let segments = [
            (b.pelvis, model_pos(b.pelvis), model_pos(b.spine)),
            (b.spine, model_pos(b.spine), model_pos(b.chest)),
            (b.chest, model_pos(b.chest), model_pos(b.neck)),
        ];
        let nearest = segments
            .iter()
            .map(|&(bone, a, z)| (bone, distance_to_segment(p, a, z)))
            .min_by(|x, y| x.1.total_cmp(&y.1))
            .map(|(bone, _)| bone)
            .unwrap_or(b.chest);
        if depth == 0.0 {
            return self.top_binding(p);
        }
        [(nearest as u16, 1.0), (0, 0.0), (0, 0.0), (0, 0.0)]
    }
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
        let below = pos[(r + 1) * cols + c];
        let left = pos[r * cols + c.saturating_sub(1)];
        let right = pos[r * cols + (c + 1).min(cols - 1)];
        *o = bone_from_axes(p, below - p, right - left);
    }
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
fn mix_bindings(entries: &[(u16, f32)]) -> Binding {
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

/// The body's skin at rest that the lower jacket wraps: the vertices owned by the torso, neck
/// and legs (arms and head left out), in character space.
fn wrapped_skin(character: &Character, model: &[Mat4]) -> Vec<Vec3> {
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
    fn nearest(&self, p: Vec3) -> impl Iterator<Item = usize> {
        self.grid
            .nearest::<SKIN_NEIGHBOURS>(p)
            .into_iter()
            .flatten()
    }

    /// The skinning of the skin nearest `p` (its nearest vertices' weights, merged), as render
    /// skin entries of `rig`.
    fn binding_near(&self, rig: &JacketRig, p: Vec3) -> Binding {
        let entries: Vec<(u16, f32)> = self
            .nearest(p)
            .flat_map(|v| self.joints[v].iter().zip(&self.weights[v]))
            .map(|(&j, &w)| (driver(rig, j as usize), w))
            .collect();
        mix_bindings(&entries)
    }

    /// `p` moved out along the skin's normal until it is at least `gap` outside the skin
    /// (the plane through its nearest vertices); unchanged when it already is.
    fn outside(&self, p: Vec3, gap: f32) -> Vec3 {
        self.height(p)
            .map_or(p, |(depth, normal)| p + normal * (gap - depth).max(0.0))
    }

    /// `p` moved in along the skin's normal until it is at most `gap` outside the skin;
    /// unchanged when it already is.
    fn within(&self, p: Vec3, gap: f32) -> Vec3 {
        self.height(p)
            .map_or(p, |(depth, normal)| p - normal * (depth - gap).max(0.0))
    }

    /// How far `p` lies outside the skin (the plane through its nearest vertices, along
    /// their mean normal), and that normal; `None` where the skin gives no normal.
    fn height(&self, p: Vec3) -> Option<(f32, Vec3)> {
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

/// The rest rings around the torso and the legs of `character` posed by `model` (its rest
/// pose), none smaller than `floor` ([`fit_rings`]): the jacket's and the skirt's.
pub(super) fn torso_rings(
    character: &Character,
    layout: &JacketLayout,
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
    layout: &JacketLayout,
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

/// The smallest ring (half width, front and back of the centre line, metres on the built-in
/// body) a jacket row gets, whatever the ellipsoids there: the jacket hangs loose.
const JACKET_RING_FLOOR: Vec3 = Vec3::new(0.12, 0.08, 0.08);

/// The ellipse around the body ellipsoids' surface near height `y`, at least `floor` (half
/// width, front, back), plus the clearance.
fn ellipsoid_ring(layout: &JacketLayout, posed: &[PosedEllipsoid], y: f32, floor: Vec3) -> Ring {
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

fn ring_at(rings: &[Ring], v: f32) -> Ring {
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
fn column_angle(layout: &JacketLayout, u: f32) -> f32 {
    let gap = layout.front_gap_deg.to_radians();
    gap * 0.5 + (TAU - gap) * u / (layout.cols - 1) as f32 + layout.opening_deg.to_radians()
}

/// The jacket's rest surface at column coordinate `u` and row coordinate `v` (both may be
/// fractional).
pub(super) fn surface_point(layout: &JacketLayout, rings: &[Ring], u: f32, v: f32) -> Vec3 {
    let g = ring_at(rings, v);
    let a = column_angle(layout, u);
    Vec3::new(a.sin() * g.rx, g.y, g.cz + a.cos() * g.rz)
}

fn surface_normal(layout: &JacketLayout, rings: &[Ring], u: f32, v: f32) -> Vec3 {
    let g = ring_at(rings, v);
    let a = column_angle(layout, u);
    Vec3::new(a.sin() / g.rx, 0.0, a.cos() / g.rz).normalize()
}

/// Builds the detailed jacket: a two-layer lower jacket (outer and inner shell joined at the
/// hem and the front edges, so the fabric has thickness), patch pockets and lapels on the outer
/// shell, a yoke over the shoulders up to a collar, sleeves, and the hood when hooded.
fn build_render_mesh(rig: &JacketRig, rings: &[Ring], skin: &RestSkin) -> RenderMesh {
    let mut m = RenderMesh::default();
    add_shells(rig, rings, &mut m);
    match rig.garment {
        Garment::Veil => {
            super::veil::add_crown(rig, rings[0], &mut m);
            return m;
        }
        // The skirt is the tube alone: its waistband is the top row.
        Garment::Skirt => return m,
        Garment::Jacket | Garment::HoodedJacket => {}
    }
    let yoke_top = add_yoke(rig, rings, skin, &mut m);
    add_collar(rig, yoke_top, &mut m);
    for s in SIDES {
        let arm = Arm::new(rig, s);
        add_sleeve(rig, &arm, skin, &mut m);
        add_armhole(rig, &arm, rings[0], skin, &mut m);
    }
    if rig.hooded() {
        build_hood(rig, &mut m, driver(rig, rig.char_bones + 4));
    }
    m
}

/// The render skin index of driver `d` (the simulation bones come first).
pub(super) fn driver(rig: &JacketRig, d: usize) -> u16 {
    (rig.bone_sites.len() + d) as u16
}

/// Skinning of a lower-jacket point at grid coordinates (u, v): bilinear over the bone grid.
fn lower_binding(rig: &JacketRig, u: f32, v: f32) -> Binding {
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

impl JacketLayout {
    /// Vertices of the lower jacket's render grid around the body and down it, per shell.
    pub fn render_grid(&self) -> (usize, usize) {
        (
            (self.cols - 1) * self.render_cols_per_sim + 1,
            (self.rows - 1) * self.render_rows_per_sim + 1,
        )
    }

    /// The simulation column coordinate of render column `i`.
    fn render_u(&self, i: usize) -> f32 {
        i as f32 / self.render_cols_per_sim as f32
    }

    /// The simulation row coordinate of render row `j`.
    fn render_v(&self, j: usize) -> f32 {
        j as f32 / self.render_rows_per_sim as f32
    }
}

/// Raised details on the outer shell at grid coordinates (u, v), as an outward offset
/// (metres): patch pockets and lapels.
fn shell_detail(layout: &JacketLayout, u: f32, v: f32) -> f32 {
    let cols = (layout.cols - 1) as f32;
    let rows = (layout.rows - 1) as f32;
    let mut d = 0.0;
    // Patch pockets on both front sides, two-thirds down.
    for centre in [cols * 0.14, cols * 0.86] {
        let du = (u - centre).abs() / (cols * 0.06);
        let dv = (v - rows * 0.68).abs() / (rows * 0.12);
        if du < 1.0 && dv < 1.0 {
            d += 0.006 * smoothstep(1.0, 0.8, du.max(dv));
        }
    }
    // Lapels: the front edges fold outward near the top.
    let edge = (u.min(cols - u)) / (cols * 0.08);
    let top = 1.0 - (v / (rows * 0.45)).min(1.0);
    d += 0.018 * (1.0 - edge.min(1.0)).powi(2) * top;
    d
}

/// The lower jacket: the outer shell (with its details), then the inner shell half the
/// thickness inside, both skinned to the simulation bones, joined at the hem and the front
/// edges.
fn add_shells(rig: &JacketRig, rings: &[Ring], m: &mut RenderMesh) {
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
                // The veil and the skirt are plain sheets: no pockets or lapels.
                let detail = match rig.garment {
                    Garment::Veil | Garment::Skirt => 0.0,
                    Garment::Jacket | Garment::HoodedJacket => shell_detail(layout, u, v),
                };
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
const SHELL_UV: (f32, f32) = (4.0, 2.0);

/// The inner shell's texture coordinates' offset from the outer one's: the fabric's thickness
/// in texture units, around and down. The strips joining the two shells at the hem and the
/// front edges share their vertices; with the same coordinates on both shells a strip showed
/// one column of the texture stretched across it, as stripes along the front edge. Offset, it
/// shows the weave over the fabric's thickness, as a cut edge does.
fn lining_uv_offset(layout: &JacketLayout, rings: &[Ring]) -> [f32; 2] {
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

/// The yoke: from the top row up over the shoulders to the collar line, skinned from the
/// simulation's top row bones into the chest and the shoulder pads. Returns the index of its
/// top row's first vertex.
fn add_yoke(rig: &JacketRig, rings: &[Ring], skin: &RestSkin, m: &mut RenderMesh) -> u32 {
    let layout = &rig.layout;
    let (nu, _) = layout.render_grid();
    let half = layout.thickness * 0.5;
    let top = rings[0];
    let k = layout.body_scale;
    let yoke_rows = 8;
    let yoke_start = m.positions.len() as u32;
    for j in 0..=yoke_rows {
        let t = j as f32 / yoke_rows as f32;
        for i in 0..nu {
            let u = layout.render_u(i);
            let a = column_angle(layout, u);
            let s = a.sin();
            // The lapels carry on up the yoke, fading out toward the collar: a lapel that
            // stopped at the top row stood out from the yoke in a box-like ledge.
            let low = surface_point(layout, rings, u, 0.0)
                + surface_normal(layout, rings, u, 0.0) * (half + shell_detail(layout, u, 0.0));
            // The collar line: narrow at the neck front and back, out to the shoulder at the sides.
            let high = Vec3::new(
                s * (0.075 + 0.16 * s.abs().powi(3)) * k,
                (1.52 - 0.05 * s.abs()) * k,
                top.cz * 0.3 + a.cos() * 0.085 * k,
            );
            // Bulge outward over the shoulder, then in to the collar (a little: the skin
            // under it already keeps the yoke off the shoulder, see below).
            let p = low.lerp(high, t)
                + Vec3::new(s, 0.25, 0.0).normalize() * (0.015 * (PI * t).sin() * s.abs() * k);
            // The straight line from the top row to the collar runs through the front and
            // back of the arm's root, which the sleeve covers only while the arm hangs: keep
            // the yoke outside the skin there (the sleeve's cap keeps outside the yoke). The
            // top row stays as the shell has it.
            let p = if j == 0 {
                p
            } else {
                skin.outside(p, layout.clearance * 0.5)
            };
            m.push_vertex(
                p,
                Vec3::new(s, 0.6 * t + 0.1, a.cos()).normalize(),
                [u / (layout.cols - 1) as f32 * 4.0, -t * 0.5],
                yoke_binding(rig, skin, p, u, t),
            );
        }
    }
    for j in 0..yoke_rows {
        for i in 0..nu - 1 {
            let a = yoke_start + (j * nu + i) as u32;
            let c = a + nu as u32;
            m.indices.extend_from_slice(&[a, a + 1, c, a + 1, c + 1, c]);
        }
    }
    yoke_start + (yoke_rows * nu) as u32
}

/// Skinning of a yoke vertex at `p`, column `u`, `t` the way up from the top row (0) to the
/// collar line (1): the top row's binding fading out over the lower half, then the skin's
/// under it. Over the shoulders the skin follows the collar bone and the upper arm only in
/// part; a yoke that followed the shoulder pad (the whole upper arm's swing) left the front of
/// the shoulder bare when the arm swung back.
fn yoke_binding(rig: &JacketRig, skin: &RestSkin, p: Vec3, u: f32, t: f32) -> Binding {
    let w_low = (1.0 - t * 2.0).max(0.0);
    let mut entries: Vec<(u16, f32)> = lower_binding(rig, u, 0.0)
        .iter()
        .map(|&(d, w)| (d, w * w_low))
        .collect();
    entries.extend(
        skin.binding_near(rig, p)
            .iter()
            .map(|&(d, w)| (d, w * (1.0 - w_low))),
    );
    mix_bindings(&entries)
}

/// The collar: a low band on the yoke's top edge (its first vertex `yoke_top`) that stands
/// up round the neck and rolls outward, skinned from the yoke's edge into the neck and chest.
/// The yoke's top edge runs round the neck at the front and back but out along the top of the
/// shoulders at the sides; a collar standing all along it made upright walls over the
/// shoulders, so it stands only round the neck and lies flat on the yoke beyond.
fn add_collar(rig: &JacketRig, yoke_top: u32, m: &mut RenderMesh) {
    let layout = &rig.layout;
    let (nu, _) = layout.render_grid();
    let b = rig.bones;
    let scale = layout.body_scale;
    let neck_chest = [(driver(rig, b.neck), 0.5), (driver(rig, b.chest), 0.5)];
    // Per row: the rise and the roll outward at full height, metres on the built-in body.
    let rows = [(0.022, 0.002), (0.036, 0.010), (0.040, 0.024)];
    let collar_start = m.positions.len() as u32;
    for (r, &(rise, roll)) in rows.iter().enumerate() {
        let f = (r + 1) as f32 / rows.len() as f32;
        for i in 0..nu {
            let p0 = m.positions[(yoke_top + i as u32) as usize];
            let n0 = m.normals[(yoke_top + i as u32) as usize];
            let s = column_angle(layout, layout.render_u(i)).sin().abs();
            let stand = 1.0 - smoothstep(0.55, 0.85, s);
            let out = Vec3::new(n0.x, 0.0, n0.z).normalize_or_zero();
            let w = stand * f;
            let mut entries: Vec<(u16, f32)> = m.binding[(yoke_top + i as u32) as usize]
                .iter()
                .map(|&(d, x)| (d, x * (1.0 - w)))
                .collect();
            entries.extend(neck_chest.iter().map(|&(d, x)| (d, x * w)));
            m.push_vertex(
                p0 + (Vec3::Y * rise + out * roll) * (stand * scale),
                n0,
                [layout.render_u(i) * 0.25, -0.6 - 0.1 * f],
                mix_bindings(&entries),
            );
        }
    }
    let rows_of = |r: u32| {
        if r == 0 {
            yoke_top
        } else {
            collar_start + (r - 1) * nu as u32
        }
    };
    for r in 0..rows.len() as u32 {
        for i in 0..(nu - 1) as u32 {
            let a = rows_of(r) + i;
            let c = rows_of(r + 1) + i;
            m.indices.extend_from_slice(&[a, a + 1, c, a + 1, c + 1, c]);
        }
    }
}

/// Vertices around a sleeve or armhole ring.
const SLEEVE_AROUND: usize = 16;

/// One arm at rest, as the sleeve and the armhole see it.
struct Arm {
    side: usize,
    /// The driver bones from the shoulder to the hand: upper arm, its twist bone, forearm, its
    /// twist bone, hand.
    chain: [usize; 5],
    /// The shoulder and the wrist joints (character space).
    start: Vec3,
    end: Vec3,
    /// Unit vectors: along the arm, and two across it.
    axis: Vec3,
    side_axis: Vec3,
    up_axis: Vec3,
}

impl Arm {
    fn new(rig: &JacketRig, s: usize) -> Self {
        let b = rig.bones;
        let chain = [
            b.upperarm[s],
            b.upperarm_twist[s],
            b.forearm[s],
            b.forearm_twist[s],
            b.hand[s],
        ];
        let joint = |k: usize| rig.rest_drivers[chain[k]].w_axis.truncate();
        let (start, end) = (joint(0), joint(4));
        let axis = (end - start).normalize();
        let side_axis = axis.cross(Vec3::Z).normalize_or(Vec3::Y);
        let up_axis = side_axis.cross(axis).normalize();
        Self {
            side: s,
            chain,
            start,
            end,
            axis,
            side_axis,
            up_axis,
        }
    }

    /// The outward direction at angle `phi` around the arm.
    fn around(&self, phi: f32) -> Vec3 {
        self.side_axis * phi.cos() + self.up_axis * phi.sin()
    }

    /// Weights along the arm at fraction `f` from the shoulder joint to the wrist: the upper
    /// arm (its twist bone taking over toward the elbow), a short blend across the elbow, the
    /// forearm (its twist bone toward the wrist); `pad` of the weight goes to the shoulder pad.
    fn binding(&self, rig: &JacketRig, f: f32, pad: f32) -> Binding {
        let chain = &self.chain;
        let joint = |k: usize| rig.rest_drivers[chain[k]].w_axis.truncate();
        let e = joint(0).distance(joint(2)) / joint(0).distance(joint(4)).max(1e-6);
        let twist = smoothstep(e * 0.2, e * 0.8, f);
        let lower = smoothstep(e - 0.06, e + 0.06, f);
        let wrist = smoothstep(e + 0.1, 0.95, f);
        let keep = 1.0 - pad;
        mix_bindings(&[
            (driver(rig, chain[0]), (1.0 - twist) * (1.0 - lower) * keep),
            (driver(rig, chain[1]), twist * (1.0 - lower) * keep),
            (driver(rig, chain[2]), (1.0 - wrist) * lower * keep),
            (driver(rig, chain[3]), wrist * lower * keep),
            (driver(rig, rig.char_bones + self.side), pad),
        ])
    }
}

/// Rings of a sleeve's cap ([`add_sleeve`]).
const CAP_RINGS: usize = 6;

/// A sleeve: a tube from the shoulder to the wrist, skinned along the arm chain.
fn add_sleeve(rig: &JacketRig, arm: &Arm, skin: &RestSkin, m: &mut RenderMesh) {
    let (start, end, axis) = (arm.start, arm.end, arm.axis);
    let k = rig.layout.body_scale;
    let (rings_n, around) = (24 + CAP_RINGS, SLEEVE_AROUND);
    let first = m.positions.len() as u32;
    // How far above the shoulder joint the sleeve starts.
    let tuck = 0.06 * k;
    for j in 0..=rings_n {
        // The first rings round the cap over the shoulder as a quarter of an ellipse, from its
        // top `tuck` above the joint on the arm's line to the sleeve's full width at the
        // joint; the rest run down the arm. Over fewer rings (a point and a ring at 85 % width)
        // the top, pushed out of the skin, would stand as a peak on the shoulder.
        let (t, dome, lift) = if j < CAP_RINGS {
            let a = FRAC_PI_2 * j as f32 / CAP_RINGS as f32;
            (0.0, a.sin(), a.cos())
        } else {
            let t = (j - CAP_RINGS) as f32 / (rings_n - CAP_RINGS) as f32;
            (t, 1.0, 0.0)
        };
        // The sleeve starts inside the shoulder (under the yoke's edge) and flares there,
        // so no skin shows between the yoke and the sleeve.
        let centre = start.lerp(end, t * 0.93) - axis * (tuck * lift);
        // A little extra room around the elbow, so a bent arm does not poke through.
        let elbow = (-((t * 0.93 - 0.5) / 0.08).powi(2)).exp();
        let radius =
            (0.072 - 0.022 * t + 0.02 * (1.0 - t * 6.0).max(0.0) + 0.008 * elbow) * k * dome;
        let binding = arm.binding(rig, t * 0.93, (1.0 - t * 8.0).max(0.0));
        let sleeve_v = (j as f32 - CAP_RINGS as f32) / (rings_n - CAP_RINGS) as f32;
        // The cap stays outside the yoke, which keeps half the clearance off the skin
        // (see `add_yoke`).
        let cap = (1.0 - t * 6.0).max(0.0);
        for i in 0..around {
            let phi = TAU * i as f32 / around as f32;
            let n = arm.around(phi);
            let p = centre + n * radius;
            m.push_vertex(
                p.lerp(skin.outside(p, rig.layout.clearance * 0.75), cap),
                n,
                // Down the sleeve as down the arm, the cap's rings above (before) the first.
                [i as f32 / around as f32 * 2.0, sleeve_v * 3.0],
                binding,
            );
        }
    }
    ring_strip(
        &mut m.indices,
        first,
        rings_n as u32,
        around as u32,
        arm.side == 0,
    );
}

/// The armhole: a band from a loop inside the torso (skinned like the jacket's side under the
/// arm and the yoke over the shoulder) out to a ring just inside the sleeve (skinned like the
/// sleeve there). At rest it hides under the yoke and the sleeve; when the arm swings or rises
/// it stretches across the armpit, so the body never shows between the sleeve and the jacket.
/// `top` is the jacket's top row.
fn add_armhole(rig: &JacketRig, arm: &Arm, top: Ring, skin: &RestSkin, m: &mut RenderMesh) {
    let (s, start, end, axis) = (arm.side, arm.start, arm.end, arm.axis);
    let around = SLEEVE_AROUND;
    let sign = if s == 0 { 1.0 } else { -1.0 };
    // The inner loop lies on the jacket's shell around the arm's root (front and back
    // on the yoke, below on the top row), so the band stays outside the body.
    let k = rig.layout.body_scale;
    let inner_centre = Vec3::new(start.x * 0.65, start.y - 0.05 * k, top.cz);
    let (inner_up, inner_depth) = (0.075 * k, top.rz * 0.95);
    let outer_along = 0.07 * k;
    let outer_t = ((outer_along + 0.06 * k) / (0.93 * start.distance(end))).min(1.0);
    let outer_centre = start + axis * outer_along;
    let outer_radius = (0.072 - 0.022 * outer_t - 0.006) * k;
    let outer_binding = arm.binding(rig, outer_t * 0.93, 0.0);
    let band_rings = 6;
    let band_first = m.positions.len() as u32;
    for j in 0..=band_rings {
        let f = j as f32 / band_rings as f32;
        for i in 0..around {
            let phi = TAU * i as f32 / around as f32;
            let n = arm.around(phi);
            let flat = Vec3::new(0.0, n.y, n.z).normalize_or(Vec3::Y);
            let inner = inner_centre + Vec3::new(0.0, flat.y * inner_up, flat.z * inner_depth);
            let outer = outer_centre + n * outer_radius;
            // Bulge a little outward mid-way, like a sleeve cap.
            let p = inner.lerp(outer, f) + n * (0.012 * (PI * f).sin() * k);
            let normal = (Vec3::new(sign * 0.3, flat.y, flat.z).lerp(n, f)).normalize_or(n);
            // Under the arm the side bone (as the jacket's top row there), elsewhere the skin
            // under the loop, which the yoke over it follows too.
            let under = smoothstep(0.2, 0.9, -flat.y);
            // Over the arm's root the band keeps close to the skin, under the yoke (half
            // the clearance off it) and the sleeve's cap: where it stood further out, its
            // front showed through the yoke as a flap. Under the arm it spans the armpit, and
            // toward the sleeve it is let go (held there, it left the armpit bare as the arm
            // rose).
            let p = p.lerp(
                skin.within(p, rig.layout.clearance * 0.25),
                (1.0 - under) * (1.0 - f * f),
            );
            let mut w = Vec::with_capacity(9);
            w.push((driver(rig, rig.char_bones + 2 + s), under * (1.0 - f)));
            w.extend(
                skin.binding_near(rig, inner)
                    .iter()
                    .map(|&(d, x)| (d, x * (1.0 - under) * (1.0 - f))),
            );
            w.extend(outer_binding.iter().map(|&(d, x)| (d, x * f)));
            m.push_vertex(
                p,
                normal,
                [i as f32 / around as f32 * 2.0, -0.3 + f * 0.4],
                mix_bindings(&w),
            );
        }
    }
    ring_strip(
        &mut m.indices,
        band_first,
        band_rings as u32,
        around as u32,
        s == 0,
    );
}

/// The hood, down: a rounded cowl lying on the upper back, its face opening turned up behind
/// the neck. Two layers (the outer fabric and the lining) of a half ellipsoid whose rim is the
/// face opening, rolled over at the rim, every vertex skinned rigidly to the hood bone so the
/// whole hood swings with the pendulum.
fn build_hood(rig: &JacketRig, m: &mut RenderMesh, hood_driver: u16) {
    let neck = rig.rest_drivers[rig.bones.neck].w_axis.truncate();
    let head = rig.rest_drivers[rig.bones.head].w_axis.truncate();
    // The opening's centre behind the neck, under the head; the bowl hangs from it down the
    // back.
    let k = rig.layout.body_scale;
    let centre = Vec3::new(head.x, neck.y - 0.02 * k, neck.z - 0.165 * k);
    let down = Vec3::new(0.0, -1.0, -0.28).normalize();
    let across = Vec3::X;
    let out = across.cross(down).normalize();
    let (width, depth, length) = (0.125 * k, 0.05 * k, 0.2 * k);
    let thickness = 0.012 * k;
    let (nt, np) = (HOOD_RINGS, HOOD_AROUND);
    let start = m.positions.len();
    let binding: Binding = [(hood_driver, 1.0), (0, 0.0), (0, 0.0), (0, 0.0)];
    // The pendulum hangs straight down once the clip runs (it starts tilted back, its rest
    // position): the hood is shaped for that hanging bone and carried into the rest bone's
    // frame, so it lies on the back while the bone hangs and swings with it.
    let origin = rig.hood_rest.w_axis.truncate();
    let hanging = look_at_matrix(origin, origin - Vec3::Y);
    let to_rest = rig.hood_rest * hanging.inverse();
    // A point on the outer surface: `theta` from the opening (0) to the bottom of the bowl
    // (PI / 2), `phi` around the opening (0 at the left, PI / 2 facing out from the back).
    let surface = |theta: f32, phi: f32| -> (Vec3, Vec3) {
        let (ct, st) = (theta.cos(), theta.sin());
        let (cp, sp) = (phi.cos(), phi.sin());
        // The opening hugs the neck: its sides come forward around it and its back edge
        // rises a little, as a hood's face opening does when it lies folded.
        let wrap = ct.powi(3) * cp * cp;
        let p = centre
            + across * (width * cp * ct)
            + out * (depth * sp * ct)
            + down * (length * st)
            + Vec3::new(0.0, 0.02 * sp.max(0.0), 0.07) * (wrap * k);
        let n = across * (cp * ct / width) + out * (sp * ct / depth) + down * (st / length);
        (p, n.normalize())
    };
    // Outer layer, then the lining (offset inward, facing inward), sharing the rim.
    for layer in 0..2 {
        let first = m.positions.len() as u32;
        for j in 0..=nt {
            let theta = PI * 0.5 * j as f32 / nt as f32;
            for i in 0..=np {
                let phi = TAU * i as f32 / np as f32;
                let (p, n) = surface(theta, phi);
                let (p, n) = if layer == 0 {
                    (p, n)
                } else {
                    (p - n * thickness, -n)
                };
                let (p, n) = (to_rest.transform_point3(p), to_rest.transform_vector3(n));
                m.push_vertex(
                    p,
                    n,
                    [i as f32 / np as f32 * 3.0, j as f32 / nt as f32 * 1.2],
                    binding,
                );
            }
        }
        for j in 0..nt as u32 {
            for i in 0..np as u32 {
                let a = first + j * (np as u32 + 1) + i;
                let c = a + np as u32 + 1;
                if layer == 0 {
                    m.indices.extend_from_slice(&[a, a + 1, c, a + 1, c + 1, c]);
                } else {
                    m.indices.extend_from_slice(&[a, c, a + 1, a + 1, c, c + 1]);
                }
            }
        }
    }
    // The rolled rim of the opening: joins the outer layer to the lining with a small bead.
    let outer_rim = |i: usize| (m.positions.len() - 2 * (nt + 1) * (np + 1) + i) as u32;
    let inner_rim = |i: usize| (m.positions.len() - (nt + 1) * (np + 1) + i) as u32;
    let (o0, i0) = (outer_rim(0), inner_rim(0));
    let bead = m.positions.len() as u32;
    for i in 0..=np {
        let phi = TAU * i as f32 / np as f32;
        let (p, n) = surface(0.0, phi);
        m.push_vertex(
            to_rest.transform_point3(p - n * (thickness * 0.5) - down * (0.012 * k)),
            to_rest.transform_vector3(-down),
            [i as f32 / np as f32 * 3.0, -0.05],
            binding,
        );
    }
    for i in 0..np as u32 {
        let (o, n, k) = (o0 + i, i0 + i, bead + i);
        m.indices.extend_from_slice(&[o, k, o + 1, o + 1, k, k + 1]);
        m.indices.extend_from_slice(&[k, n, k + 1, k + 1, n, n + 1]);
    }
    m.hood = start..m.positions.len();
}

/// A sample of the hood's outer layer (every second ring from the face opening to the bottom
/// of the bowl, every second vertex around), in the hood bone's space: enough to find where
/// the hood meets the head or a shoulder to within a few centimetres, few enough to test every
/// step. The vertices are skinned rigidly to the hood bone, whose rest matrix is `hood_rest`.
fn hood_points(rig: &JacketRig) -> Vec<Vec3> {
    let to_bone = rig.hood_rest.inverse();
    let outer = &rig.render.positions[rig.render.hood.clone()];
    let mut out = Vec::new();
    for j in (0..=HOOD_RINGS).step_by(2) {
        // The bottom ring is one point.
        let step = if j == HOOD_RINGS { HOOD_AROUND } else { 2 };
        for i in (0..HOOD_AROUND).step_by(step) {
            if let Some(p) = outer.get(j * (HOOD_AROUND + 1) + i) {
                out.push(to_bone.transform_point3(*p));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fitted_layout_on_the_builtin_character_is_the_default() {
        let c = Character::builtin();
        assert_eq!(landmarks(&c), BUILTIN_LANDMARKS);
        assert_eq!(JacketLayout::fitted(&c), JacketLayout::default());
    }

    /// Every skin vertex the lower jacket wraps, from its top row to its hem, is inside the
    /// rest surface at its height: the jacket covers the body there (its front opening aside).
    fn assert_the_rest_surface_covers_the_skin(c: &Character, what: &str) {
        let layout = JacketLayout::fitted(c);
        let mut model = Vec::new();
        c.skeleton
            .rest_pose()
            .compute_model(&c.skeleton, &mut model);
        let rings = torso_rings(c, &layout, &model, JACKET_RING_FLOOR);
        let span = layout.top_height - layout.hem_height;
        let (mut outside, mut worst) = (0, 0.0f32);
        for p in wrapped_skin(c, &model) {
            if !(layout.hem_height..=layout.top_height).contains(&p.y) {
                continue;
            }
            let g = ring_at(
                &rings,
                (layout.top_height - p.y) / span * (layout.rows - 1) as f32,
            );
            let e = ((p.x / g.rx).powi(2) + ((p.z - g.cz) / g.rz).powi(2)).sqrt();
            if e > 1.0 + 1e-4 {
                outside += 1;
                worst = worst.max(e);
            }
        }
        assert_eq!(
            outside,
            0,
            "{what}: {outside} skin vertices outside the jacket, up to {:.1} % out",
            (worst - 1.0) * 100.0
        );
    }

    #[test]
    fn the_jacket_covers_the_skin_of_the_builtin_and_of_a_fitted_body() {
        assert_the_rest_surface_covers_the_skin(&Character::builtin(), "built-in");
        // The same body from a file that brings no ellipsoids: they are fitted inside the
        // skin, so the jacket must wrap the skin itself (the hips and the waist poked out).
        let style = cloth_tuner_assets::test_rig::RigStyle {
            clips: Vec::new(),
            ..Default::default()
        };
        let glb = cloth_tuner_assets::test_rig::test_rig_glb(&style);
        let c = Character::from_glb(&glb, "test.glb").unwrap();
        assert_the_rest_surface_covers_the_skin(&c, "fitted");
    }

    /// The collar stands round the neck, not over the shoulders: out past the neck the
    /// jacket at rest (collar, yoke, sleeve caps) keeps within 9 cm of the shoulder joints'
    /// height, while round the neck the collar stands above the yoke's edge. With a collar
    /// raised all along the yoke's edge (out to the shoulders' tips) or open sleeve tubes
    /// standing above the joints, the jacket would reach well over that.
    #[test]
    fn the_collar_stands_round_the_neck_and_not_over_the_shoulders() {
        let c = Character::builtin();
        let rig = JacketRig::new(&c, &JacketLayout::fitted(&c), Garment::Jacket).unwrap();
        let shoulder = BUILTIN_LANDMARKS.0;
        let highest = |keep: &dyn Fn(Vec3) -> bool| {
            rig.render
                .positions
                .iter()
                .filter(|p| keep(**p))
                .fold(f32::MIN, |m, p| m.max(p.y))
        };
        let over_shoulders = highest(&|p| p.x.abs() > 0.12);
        let round_neck = highest(&|p| p.x.abs() < 0.08);
        assert!(
            over_shoulders < shoulder + 0.09,
            "out past the neck the jacket reaches {:.3} m, {:.1} cm above the shoulder joints",
            over_shoulders,
            (over_shoulders - shoulder) * 100.0
        );
        assert!(
            round_neck > 1.52 + 0.03,
            "round the neck the collar reaches only {round_neck:.3} m"
        );
    }

    /// How far the jacket's highest point out past the neck on the side `sign` of the body
    /// (+1 left, -1 right) stands above the highest of its neighbours 3 to 6 cm away
    /// (horizontally): a rounded shoulder drops a little over that distance, a peak a lot.
    fn shoulder_peak_cm(positions: &[Vec3], sign: f32) -> f32 {
        let side = positions.iter().filter(|p| p.x * sign > 0.12);
        let top = side
            .clone()
            .fold(Vec3::MIN, |m, p| if p.y > m.y { *p } else { m });
        let flat = |p: Vec3| Vec3::new(p.x, 0.0, p.z);
        let around = side
            .filter(|p| (0.03..0.06).contains(&flat(**p).distance(flat(top))))
            .fold(f32::MIN, |m, p| m.max(p.y));
        (top.y - around) * 100.0
    }

    #[test]
    fn the_sleeve_caps_round_over_the_shoulders_without_a_peak() {
        let c = Character::builtin();
        for garment in [Garment::Jacket, Garment::HoodedJacket] {
            let rig = JacketRig::new(&c, &JacketLayout::fitted(&c), garment).unwrap();
            for sign in [1.0, -1.0] {
                // A cap closed over two rings to a point pushed out of the skin stands 2 cm proud.
                let peak = shoulder_peak_cm(&rig.render.positions, sign);
                assert!(
                    peak < 1.0,
                    "{garment:?}: the shoulder's top stands {peak:.2} cm over the cloth 3-6 cm round it"
                );
            }
        }
    }

    #[test]
    fn the_edge_strips_show_the_weave_across_the_fabrics_thickness() {
        // The strips joining the shells at the front edges and the hem run from an outer
        // vertex to the inner one under it: their texture coordinates must differ by about
        // the fabric's thickness, or the strip shows one column of the weave as stripes.
        let c = Character::builtin();
        let layout = JacketLayout::fitted(&c);
        let rig = JacketRig::new(&c, &layout, Garment::Jacket).unwrap();
        let (nu, nv) = layout.render_grid();
        let uv = &rig.render.uvs;
        // Texture units per metre, around and down: the whole repeat over the row's length
        // (0.6 to 1.6 m round the body: the front is open) and the jacket's height.
        let height = layout.top_height - layout.hem_height;
        let per_metre = (SHELL_UV.0 / 1.6, SHELL_UV.0 / 0.6, SHELL_UV.1 / height);
        for j in [0, nv / 2, nv - 1] {
            for i in [0, nu - 1] {
                let (outer, inner) = (uv[j * nu + i], uv[nu * nv + j * nu + i]);
                let (du, dv) = (inner[0] - outer[0], inner[1] - outer[1]);
                let t = layout.thickness;
                assert!(
                    (t * per_metre.0 * 0.99..t * per_metre.1 * 1.01).contains(&du.abs()),
                    "edge ({i}, {j}): the strip spans {du} around"
                );
                assert!(
                    (dv.abs() - t * per_metre.2).abs() < 1e-4,
                    "({i}, {j}): {dv}"
                );
            }
        }
    }

    #[test]
    fn bone_from_axes_is_orthonormal_with_x_along_the_first_direction() {
        let m = bone_from_axes(
            Vec3::new(1.0, 2.0, 3.0),
            Vec3::new(0.1, -2.0, 0.3),
            Vec3::new(1.0, 0.4, 0.1),
        );
        let (x, y, z) = (
            m.x_axis.truncate(),
            m.y_axis.truncate(),
            m.z_axis.truncate(),
        );
        for v in [x, y, z] {
            assert!((v.length() - 1.0).abs() < 1e-5);
        }
        assert!(x.dot(y).abs() < 1e-5 && x.dot(z).abs() < 1e-5 && y.dot(z).abs() < 1e-5);
        assert!(x.dot(Vec3::new(0.1, -2.0, 0.3).normalize()) > 0.9999);
        assert!((x.cross(y) - z).length() < 1e-5);
        assert_eq!(m.w_axis.truncate(), Vec3::new(1.0, 2.0, 3.0));
    }
}
