//! The character wearing the jacket, playing a clip: one fixed step of the whole pipeline
//! (clip sampling, the rig, the hood pendulum, the cloth step, the bones from the simulation
//! mesh, skinning of the render mesh). Shared by the tuner, `simulate` and the renderer; and
//! what is measured on it ([`metrics`], [`drift`], [`motion`]).

pub mod drift;
pub mod metrics;
pub mod motion;

use std::sync::Arc;
use std::time::Instant;

use glam::{Mat4, Vec3};

use crate::character::{skin, BodyAxis, Character, Ellipsoid, Pose, Role};
use crate::garment::hood::{swing_deg, HoodInput, HoodScratch, Pendulum, MAX_COLLIDERS};
use crate::garment::jacket::{JacketError, JacketFrame, JacketLayout, JacketRig};
use crate::garment::open_indices;
use crate::preset::{Garment, Preset};
use crate::sim::world_motion::carry;
use crate::sim::{
    clear_point_on_sphere, push_out_all_among, swing_clear, Bounds, Cloth, Collider,
    ConstraintKind, FabricParams, FoldError, FoldLine, Frame, LegLines, Shapes, StepInput,
    Topology, WorldMotion,
};

/// The farthest apart two neighbouring reference points in a row may be, x their link's rest
/// length ([`Scene::carry_row_neighbours`]).
const REFERENCE_SPAN: f32 = 1.5;
/// The skirt's [`REFERENCE_SPAN`]: a knee rising under the front of the skirt pushes one
/// reference of the hem ahead of the thigh. With the jackets' span its neighbours' spheres
/// stay round the thigh's sides and a run holds the link between them far over rest; at 1.2
/// they come over the thigh with it. Closer still (1.1, 1.0) draws the spheres so close that
/// a jump's stretch grows.
const SKIRT_REFERENCE_SPAN: f32 = 1.2;
/// Rounds of pushing a reference point out of the body and swinging it back onto the sphere
/// around the reference above before the wider search (see [`swing_clear`]).
const REFERENCE_SWINGS: usize = 6;

/// Why a scene could not be built or changed.
#[derive(Debug, thiserror::Error)]
pub enum SceneError {
    #[error("unknown clip `{name}`; the clips are: {}", .valid.join(", "))]
    UnknownClip { name: String, valid: Vec<String> },
    #[error(transparent)]
    Jacket(#[from] JacketError),
    /// The preset's painted max distances do not fit the garment's grid.
    #[error("preset `{preset}`: field `max_distance_map`: {message}")]
    MaxDistanceMap { preset: String, message: String },
    #[error("the preset's fold lines do not fit the garment: {0}")]
    Fold(#[from] FoldError),
}

/// A triangle mesh in character space.
#[derive(Clone, Copy, Debug)]
pub struct MeshView<'a> {
    pub positions: &'a [Vec3],
    pub normals: &'a [Vec3],
    /// Texture coordinates (empty for the body).
    pub uvs: &'a [[f32; 2]],
    pub indices: &'a [u32],
}

/// What the last step looked like, for plots and metrics.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FrameStats {
    /// Largest vertical stretch of any vertical link, percent of rest length.
    pub vertical_stretch_pct: f32,
    /// Mean vertical stretch over the vertical links, percent.
    pub mean_vertical_stretch_pct: f32,
    /// Largest horizontal stretch, percent.
    pub horizontal_stretch_pct: f32,
    /// Largest distance of a hem particle from its reference point (how far the hem swings
    /// away from the body), metres.
    pub hem_swing_m: f32,
    /// Root mean square of the hem particles' distances from their references, metres.
    pub hem_rms_m: f32,
    /// Fastest hem particle relative to the body, m/s.
    pub hem_speed: f32,
    /// Mean speed relative to the body of edge particles and of interior particles, m/s.
    pub edge_speed: f32,
    pub interior_speed: f32,
    /// Mean kinetic energy per unit mass of the free particles, J/kg (½|v|², v in character
    /// space).
    pub kinetic_energy: f32,
    /// Share of free particles at their max distance (within 1 mm), 0 to 1.
    pub max_distance_saturation: f32,
    /// Deepest penetration of a particle into a body ellipsoid, metres.
    pub max_penetration_m: f32,
    /// Time the cloth step took, seconds.
    pub step_seconds: f32,
    /// Time the whole jacket frame took (clip, rig, hood, cloth, bones), seconds: what a game
    /// pays per character on the CPU. Skinning the meshes for drawing is not in it.
    pub frame_seconds: f32,
    /// Time the last [`Scene::skin_meshes`] took (the detailed jacket and the body), seconds;
    /// 0 until the meshes are first skinned.
    pub skin_seconds: f32,
    /// Resets after a non-finite state since the scene started.
    pub resets: u64,
    /// Links torn since the clip started (or the last reset), with those gone with them
    /// ([`Cloth::torn_count`]).
    pub torn_links: usize,
}

/// The character in the jacket, playing a clip, one fixed step at a time.
pub struct Scene {
    character: Arc<Character>,
    garment: Garment,
    layout: JacketLayout,
    rig: JacketRig,
    cloth: Cloth,
    clip: usize,
    steps: u64,
    pose: Pose,
    model: Vec<Mat4>,
    body_skin: Vec<Mat4>,
    body_pos: Vec<Vec3>,
    body_nrm: Vec<Vec3>,
    frame: JacketFrame,
    jacket_pos: Vec<Vec3>,
    jacket_nrm: Vec<Vec3>,
    /// The skirt's hem smoothed for drawing (scratch, sized once).
    hem_ring: Vec<Vec3>,
    references: Vec<Vec3>,
    prev_offsets: Vec<Vec3>,
    /// How far this step's leg push moved each reference point (scratch, sized with them).
    leg_push: Vec<f32>,
    colliders: Vec<Collider>,
    /// The body's colliders in the form tested four at a time, grown by the margin the
    /// reference points are kept out by.
    body_bounds: Bounds,
    /// The body colliders' bounds with no margin, for the measurements' penetration depth.
    depth_bounds: Bounds,
    /// The character's ellipsoids that collide, the torso's first, then the legs'.
    body_ellipsoids: Vec<usize>,
    /// Of those, how many are the torso's.
    torso_colliders: usize,
    root: Frame,
    /// The root at the last step (the first pose after a reset).
    last_root: Frame,
    /// Where the clip's root motion is placed in the world ([`Scene::teleport`]).
    placement: Frame,
    pendulum: Pendulum,
    /// What the hood keeps out of: the head and neck (fitted to the skin) and the shoulders
    /// (the chest's and the upper arms' upper ellipsoids), bound to their bones.
    hood_ellipsoids: Vec<Ellipsoid>,
    /// What the veil falls on: the same, the head grown to hold its skin (nose and chin).
    veil_ellipsoids: Vec<Ellipsoid>,
    /// Those, posed for this step and for the last (the hood blends them across substeps).
    hood_colliders: Vec<Collider>,
    last_hood_colliders: Vec<Collider>,
    /// The hood's working space.
    hood_scratch: HoodScratch,
    neck: usize,
    /// The pelvis bone: references leave the legs outward from its vertical axis.
    pelvis: usize,
    drag: Option<(usize, Vec3)>,
    stats: FrameStats,
    /// The jacket and body meshes are skinned for the current step ([`Scene::skin_meshes`]).
    skinned: bool,
    vertical: Vec<(u32, u32, f32)>,
    horizontal: Vec<(u32, u32, f32)>,
    /// The preset's fold lines: the cloth is built without the bend links across them.
    fold_lines: Vec<FoldLine>,
    /// The jacket's triangles that draw: all but those across a torn link.
    jacket_indices: Vec<u32>,
    /// The cloth's torn count `jacket_indices` were made for (`None`: make them again).
    indices_torn: Option<usize>,
    /// The skirt's leg lines this step (`None` for another garment).
    leg_lines: Option<LegLines>,
    /// Whether the skirt keeps out of the legs with its leg lines (on unless a test or a
    /// comparison turns them off).
    leg_lines_on: bool,
}

impl Scene {
    /// The preset's garment in its layout fitted to `character` ([`JacketLayout::fitted`],
    /// [`JacketLayout::veil`], [`JacketLayout::skirt`]), tuned by `preset`, playing `clip`.
    pub fn new(
        character: Arc<Character>,
        preset: &Preset,
        clip: &str,
    ) -> Result<Scene, SceneError> {
        let layout = layout_for(&character, preset.garment);
        Self::with_layout(character, preset, clip, layout)
    }

    /// As [`Scene::new`] with a given layout of the preset's garment.
    pub fn with_layout(
        character: Arc<Character>,
        preset: &Preset,
        clip: &str,
        layout: JacketLayout,
    ) -> Result<Scene, SceneError> {
        let clip_index = find_clip(&character, clip)?;
        let rig = JacketRig::new(&character, &layout, preset.garment)?;
        let topology = rig.topology.clone().with_fold_lines(&preset.fold_lines)?;
        let mut cloth = Cloth::new(topology, &preset.params);
        paint(&mut cloth, preset)?;
        let n = rig.topology.len();
        let neck = character.roles.bone(Role::Neck);
        let pelvis = character.roles.bone(Role::Pelvis);
        let mut model = Vec::new();
        character
            .skeleton
            .rest_pose()
            .compute_model(&character.skeleton, &mut model);
        let pendulum = new_pendulum(&rig, model[neck]);
        let hood_ellipsoids = crate::character::head_and_shoulders(&character);
        let mut veil_ellipsoids = hood_ellipsoids.clone();
        crate::garment::veil::cover_head(&character, &mut veil_ellipsoids);
        let vertical = links_of(&rig, ConstraintKind::StretchVertical);
        let horizontal = links_of(&rig, ConstraintKind::StretchHorizontal);
        // The torso and leg ellipsoids, the torso's first: the arms hang beside the jacket
        // inside their sleeves, and their ellipsoids overlap the pinned row under the armpits.
        let is_leg = |name: &str| name.starts_with("thigh") || name.starts_with("calf");
        let colliding = |legs: bool| {
            character
                .ellipsoids
                .iter()
                .enumerate()
                .filter(move |(_, e)| !e.name.starts_with("upperarm") && is_leg(&e.name) == legs)
                .map(|(i, _)| i)
        };
        let torso_colliders = colliding(false).count();
        let body_ellipsoids: Vec<usize> = colliding(false).chain(colliding(true)).collect();
        let frame = rig.new_frame();
        // The most body colliders either garment poses, so no step's bounds allocate.
        let most_colliders = body_ellipsoids.len().max(veil_ellipsoids.len());
        let mut scene = Scene {
            pose: character.skeleton.rest_pose(),
            character,
            garment: preset.garment,
            layout,
            cloth,
            clip: clip_index,
            steps: 0,
            model,
            body_skin: Vec::new(),
            body_pos: Vec::new(),
            body_nrm: Vec::new(),
            frame,
            jacket_pos: Vec::new(),
            jacket_nrm: Vec::new(),
            hem_ring: Vec::new(),
            references: vec![Vec3::ZERO; n],
            prev_offsets: vec![Vec3::ZERO; n],
            leg_push: vec![0.0; n],
            colliders: Vec::new(),
            body_bounds: Bounds::with_capacity(most_colliders),
            depth_bounds: Bounds::with_capacity(most_colliders),
            body_ellipsoids,
            torso_colliders,
            root: Frame::IDENTITY,
            last_root: Frame::IDENTITY,
            placement: Frame::IDENTITY,
            pendulum,
            hood_colliders: Vec::with_capacity(hood_ellipsoids.len()),
            last_hood_colliders: Vec::with_capacity(hood_ellipsoids.len()),
            hood_scratch: HoodScratch::for_points(rig.hood_points.len()),
            hood_ellipsoids,
            veil_ellipsoids,
            neck,
            pelvis,
            drag: None,
            stats: FrameStats::default(),
            skinned: false,
            vertical,
            horizontal,
            fold_lines: preset.fold_lines.clone(),
            jacket_indices: Vec::new(),
            indices_torn: None,
            leg_lines: None,
            leg_lines_on: true,
            rig,
        };
        scene.reset();
        Ok(scene)
    }

    /// The character.
    pub fn character(&self) -> &Character {
        &self.character
    }

    /// The character, shared (to play another preset on it, or measure one in the background).
    pub fn character_arc(&self) -> &Arc<Character> {
        &self.character
    }

    /// The jacket rig.
    pub fn rig(&self) -> &JacketRig {
        &self.rig
    }

    /// The parameters in use.
    pub fn params(&self) -> &FabricParams {
        self.cloth.params()
    }

    /// Applies new parameters from the next step on (no rebuild). A new time step restarts
    /// the clip so that frame N stays N steps from the start.
    pub fn set_params(&mut self, params: &FabricParams) {
        let restart = params.timestep_hz != self.cloth.params().timestep_hz;
        self.cloth.set_params(params);
        if restart {
            self.reset();
        }
    }

    /// Uses `preset`'s painted max distances (none: the curve everywhere) from the next step
    /// on. A map painted on another grid is refused and nothing changes.
    pub fn set_max_distance_map(&mut self, preset: &Preset) -> Result<(), SceneError> {
        paint(&mut self.cloth, preset)
    }

    /// The garment being worn.
    pub fn garment(&self) -> Garment {
        self.garment
    }

    /// Changes the garment: rebuilds the rig and the cloth and restarts the clip. Between the
    /// jacket and the hooded jacket the layout stays; another kind of garment gets its own
    /// layout fitted to the character.
    pub fn set_garment(&mut self, garment: Garment) {
        if garment == self.garment {
            return;
        }
        let jacket = |g: Garment| matches!(g, Garment::Jacket | Garment::HoodedJacket);
        // Past the early return the garment differs: only the two jackets share a shape.
        let reshaped = !(jacket(garment) && jacket(self.garment));
        let layout = if reshaped {
            layout_for(&self.character, garment)
        } else {
            self.layout.clone()
        };
        if let Ok(rig) = JacketRig::new(&self.character, &layout, garment) {
            if reshaped {
                // Another shape: a new cloth (with the same fold lines where the grid still
                // takes them) and buffers sized for it.
                let topology = rig.topology.clone();
                let topology = topology
                    .clone()
                    .with_fold_lines(&self.fold_lines)
                    .unwrap_or(topology);
                self.rebuild_cloth(topology);
                self.references = vec![Vec3::ZERO; rig.topology.len()];
                self.prev_offsets = vec![Vec3::ZERO; rig.topology.len()];
                self.leg_push = vec![0.0; rig.topology.len()];
                self.vertical = links_of(&rig, ConstraintKind::StretchVertical);
                self.horizontal = links_of(&rig, ConstraintKind::StretchHorizontal);
                self.layout = layout;
            }
            let mut rest_model = Vec::new();
            self.character
                .skeleton
                .rest_pose()
                .compute_model(&self.character.skeleton, &mut rest_model);
            self.pendulum = new_pendulum(&rig, rest_model[self.neck]);
            self.hood_scratch = HoodScratch::for_points(rig.hood_points.len());
            self.frame = rig.new_frame();
            self.rig = rig;
            self.garment = garment;
            self.indices_torn = None;
            self.reset();
        }
    }

    /// A new cloth on `topology` with the knobs, the kernel and the painted max distances of
    /// the one it replaces (the paint only where the grid keeps its size).
    fn rebuild_cloth(&mut self, topology: Topology) {
        let kernel = self.cloth.kernel();
        let painted = self.cloth.painted_max_distances().to_vec();
        self.cloth = Cloth::new(topology, self.cloth.params());
        self.cloth.set_kernel(kernel);
        self.cloth.set_painted_max_distances(&painted);
    }

    /// The fold lines the cloth is built with.
    pub fn fold_lines(&self) -> &[FoldLine] {
        &self.fold_lines
    }

    /// Rebuilds the cloth without the bend links across `lines` (and with every other bend
    /// link) and restarts the clip. A line off the grid is refused and changes nothing.
    pub fn set_fold_lines(&mut self, lines: &[FoldLine]) -> Result<(), FoldError> {
        let topology = self.rig.topology.clone().with_fold_lines(lines)?;
        self.rebuild_cloth(topology);
        self.fold_lines = lines.to_vec();
        self.indices_torn = None;
        self.reset();
        Ok(())
    }

    /// The skirt's leg lines this step, whether or not they are on (`None` for another
    /// garment).
    pub fn leg_lines(&self) -> Option<LegLines> {
        self.leg_lines
    }

    /// Turns the skirt's leg lines on or off (on by default; no effect on another garment):
    /// off, the hem is held out of the legs by the collision alone.
    pub fn set_leg_lines(&mut self, on: bool) {
        self.leg_lines_on = on;
    }

    /// Switches to another clip and restarts it.
    pub fn set_clip(&mut self, name: &str) -> Result<(), SceneError> {
        self.clip = find_clip(&self.character, name)?;
        self.reset();
        Ok(())
    }

    /// The clip playing.
    pub fn clip_name(&self) -> &str {
        &self.character.clips[self.clip].name
    }

    /// Every clip the character has.
    pub fn clip_names(&self) -> Vec<String> {
        self.character.clip_names().map(str::to_string).collect()
    }

    /// Back to the start of the clip with the cloth at rest on the first pose.
    pub fn reset(&mut self) {
        self.steps = 0;
        self.placement = Frame::IDENTITY;
        self.drag = None;
        self.pose_at(0.0);
        // The cloth remembers this pose, so the first step moves the character from it.
        let _ = self.cloth.reset_on(&StepInput {
            frame: self.root,
            reference: &self.references,
            colliders: &self.colliders,
            leg_lines: self.leg_lines.as_ref().filter(|_| self.leg_lines_on),
        });
        self.prev_offsets.fill(Vec3::ZERO);
        // The hood starts where it comes to rest: hanging straight down behind the head (from
        // its modelled pose it would first swing down for half a second).
        let hood_origin = self.hood_origin();
        let hanging = hood_origin + Vec3::NEG_Y * self.pendulum.length;
        // The hood's first step, too, moves from this pose.
        self.last_hood_colliders.clone_from(&self.hood_colliders);
        let mut scratch = std::mem::take(&mut self.hood_scratch);
        let input = self.hood_input(hood_origin);
        // Out of the head and shoulders from the first frame (a clip may start bowed).
        let start = self.pendulum.clear(
            hood_origin,
            hanging,
            &input,
            &self.hood_colliders,
            &mut scratch,
        );
        self.hood_scratch = scratch;
        self.pendulum.pos = start;
        self.pendulum.prev = start;
        self.pendulum.last_origin = hood_origin;
        self.pendulum.last_rest = self.hood_rest_dir();
        self.pendulum.touched = start != hanging;
        self.last_root = self.root;
        let hood = self.hood_matrix();
        self.rig.set_hood(hood, &mut self.frame);
        self.update_bones();
        self.measure();
    }

    /// Skins the detailed jacket and the body for the current step, when they are not already:
    /// only what is drawn (or looked at) pays for skinning, so a run of steps between two
    /// pictures, `drift`, and the runs of `fit` and `wedge` skip it (`simulate` skins after
    /// every step, to time it as a window would). Call before [`Scene::body`] and
    /// [`Scene::jacket`].
    pub fn skin_meshes(&mut self) {
        if self.skinned {
            return;
        }
        let start = Instant::now();
        self.rig
            .skin_render(&self.frame, &mut self.jacket_pos, &mut self.jacket_nrm);
        if self.garment == Garment::Skirt {
            let (l, topo) = (&self.layout, self.cloth.topology());
            crate::garment::skirt::smooth_hem(
                &self.cloth.positions()[topo.hem()],
                l.render_grid(),
                (l.render_cols_per_sim, l.render_rows_per_sim),
                l.thickness,
                &mut self.hem_ring,
                &mut self.jacket_pos,
                &self.jacket_nrm,
            );
        }
        self.character
            .skin_matrices(&self.model, &mut self.body_skin);
        skin(
            &self.character.mesh,
            &self.body_skin,
            &mut self.body_pos,
            &mut self.body_nrm,
        );
        let torn = self.cloth.torn_count();
        if self.indices_torn != Some(torn) {
            let cloth = &self.cloth;
            let links = &cloth.topology().links;
            open_indices(
                &self.rig,
                links,
                cloth.torn_links(),
                &mut self.jacket_indices,
            );
            self.indices_torn = Some(torn);
        }
        self.skinned = true;
        self.stats.skin_seconds = start.elapsed().as_secs_f32();
    }

    /// One fixed step of 1 / timestep_hz seconds.
    pub fn step(&mut self) {
        let start = Instant::now();
        self.steps += 1;
        let t = self.time();
        self.pose_at(t);
        self.step_pendulum();
        if let Some((i, target)) = self.drag {
            self.cloth.drag_particle(i, target);
        }
        let cloth_start = Instant::now();
        let input = StepInput {
            frame: self.root,
            reference: &self.references,
            colliders: &self.colliders,
            leg_lines: self.leg_lines.as_ref().filter(|_| self.leg_lines_on),
        };
        // The inputs come from the rig and are always finite; a refusal leaves the cloth as
        // it was for this step.
        let _ = self.cloth.step(&input);
        let step_seconds = cloth_start.elapsed().as_secs_f32();
        self.last_root = self.root;
        self.update_bones();
        // The measurements are the tuner's, not the game's: outside the frame time.
        let frame_seconds = start.elapsed().as_secs_f32();
        self.measure();
        self.stats.step_seconds = step_seconds;
        self.stats.frame_seconds = frame_seconds;
    }

    /// Seconds since the clip start (steps x the fixed step).
    pub fn time(&self) -> f64 {
        self.steps as f64 / self.cloth.params().timestep_hz as f64
    }

    /// Steps since the clip start.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// The character's frame in the world.
    pub fn root(&self) -> Frame {
        self.root
    }

    /// Moves the character in the world by `by` (applied in world space, on top of the clip's
    /// root motion) from the next step on, in one frame: a game's teleport or camera cut. The
    /// pose and the cloth in character space are untouched; the cloth and the hood see the jump
    /// as character motion (a jump past [`crate::sim::TELEPORT_DISTANCE`] or
    /// [`crate::sim::TELEPORT_ANGLE`] is a cut and adds no world motion). Teleports add up;
    /// [`Scene::reset`] puts the character back at the clip's own start.
    pub fn teleport(&mut self, by: Frame) {
        self.placement = by.mul(&self.placement);
    }

    /// The skinned body (character space) as of the last [`Scene::skin_meshes`].
    pub fn body(&self) -> MeshView<'_> {
        debug_assert!(self.skinned, "Scene::body before skin_meshes");
        MeshView {
            positions: &self.body_pos,
            normals: &self.body_nrm,
            uvs: &[],
            indices: &self.character.mesh.indices,
        }
    }

    /// The skinned high-resolution jacket (character space) as of the last
    /// [`Scene::skin_meshes`].
    pub fn jacket(&self) -> MeshView<'_> {
        debug_assert!(self.skinned, "Scene::jacket before skin_meshes");
        MeshView {
            positions: &self.jacket_pos,
            normals: &self.jacket_nrm,
            uvs: &self.rig.render.uvs,
            indices: &self.jacket_indices,
        }
    }

    /// The simulated cloth.
    pub fn cloth(&self) -> &Cloth {
        &self.cloth
    }

    /// Each particle's reference point this step (the centre of its max-distance sphere).
    pub fn references(&self) -> &[Vec3] {
        &self.references
    }

    /// This step's colliders (body ellipsoids, then the ground plane), character space.
    pub fn colliders(&self) -> &[Collider] {
        &self.colliders
    }

    /// The bones on the simulation mesh, character space.
    pub fn sim_bones(&self) -> &[Mat4] {
        &self.frame.sim_bones
    }

    /// The upper jacket bones and other per-frame rig matrices.
    pub fn jacket_frame(&self) -> &JacketFrame {
        &self.frame
    }

    /// The character's bones in character space.
    pub fn model(&self) -> &[Mat4] {
        &self.model
    }

    /// The hood pendulum's end point (character space).
    pub fn hood_pendulum(&self) -> Vec3 {
        self.pendulum.pos
    }

    /// The hood bone (character space): x toward the pendulum's end. The hood's vertices
    /// ([`crate::garment::jacket::RenderMesh::hood`]) and [`JacketRig::hood_points`] ride on it.
    pub fn hood_bone(&self) -> Mat4 {
        self.hood_matrix()
    }

    /// What the hood keeps out of this step (head, neck, shoulders), character space.
    pub fn hood_colliders(&self) -> &[Collider] {
        &self.hood_colliders
    }

    /// The hood pendulum's angle from its rest pose (hanging on the back, carried by the
    /// neck), degrees: what [`FabricParams::hood_swing_limit_deg`] caps.
    pub fn hood_swing_deg(&self) -> f32 {
        swing_deg(self.hood_origin(), self.pendulum.pos, self.hood_rest_dir())
    }

    /// What the last step looked like.
    pub fn frame_stats(&self) -> FrameStats {
        self.stats
    }

    /// Holds a particle at a character-space point while `Some` (a poke with the mouse).
    pub fn drag(&mut self, particle: usize, target: Option<Vec3>) {
        self.drag = target.map(|t| (particle, t));
    }

    fn hood_origin(&self) -> Vec3 {
        self.model[self.neck].transform_point3(self.pendulum.origin_local)
    }

    /// The hood's rest direction this step: its hanging direction at rest, turned with the neck.
    fn hood_rest_dir(&self) -> Vec3 {
        self.model[self.neck]
            .transform_vector3(self.pendulum.rest_local)
            .normalize_or(Vec3::NEG_Y)
    }

    /// The pendulum's inputs for this step's pose.
    fn hood_input(&self, origin: Vec3) -> HoodInput<'_> {
        let p = self.cloth.params();
        HoodInput {
            origin,
            rest_dir: self.hood_rest_dir(),
            gravity: self.root.rotation.inverse() * Vec3::new(0.0, -p.gravity, 0.0),
            across: self.model[self.neck].x_axis.truncate(),
            colliders: &self.hood_colliders,
            last_colliders: &self.last_hood_colliders,
            points: &self.rig.hood_points,
            margin: p.collision_margin,
        }
    }

    /// Samples the clip at `t` and solves everything that depends only on the pose.
    fn pose_at(&mut self, t: f64) {
        let clip = &self.character.clips[self.clip];
        let root = clip.sample(t as f32, &mut self.pose);
        // Untouched unless teleported (`mul` renormalises the rotation).
        self.root = if self.placement == Frame::IDENTITY {
            root
        } else {
            self.placement.mul(&root)
        };
        self.pose
            .compute_model(&self.character.skeleton, &mut self.model);
        let hood = self.hood_matrix();
        self.rig.pose(&self.model, hood, &mut self.frame);
        self.rig.references(&self.frame, &mut self.references);
        self.leg_lines = self.rig.leg_lines(&self.model);
        self.colliders.clear();
        let veil = self.garment == Garment::Veil;
        // The veil falls on the head, the neck and the shoulders.
        let body: &[Ellipsoid] = if veil { &self.veil_ellipsoids } else { &[] };
        let jacket = self
            .body_ellipsoids
            .iter()
            .filter(|_| !veil)
            .map(|&i| &self.character.ellipsoids[i]);
        for e in jacket.chain(body) {
            self.colliders.push(posed_collider(e, &self.model));
        }
        std::mem::swap(&mut self.hood_colliders, &mut self.last_hood_colliders);
        self.hood_colliders.clear();
        for e in self.hood_ellipsoids.iter().take(MAX_COLLIDERS) {
            self.hood_colliders.push(posed_collider(e, &self.model));
        }
        // Keep every reference point outside the body, so the max-distance sphere is centred
        // where the cloth may be (a thigh swinging forward pushes the hem's reference ahead of
        // it instead of swallowing it).
        //
        // First the legs: a point goes outward (away from the pelvis's vertical axis) past
        // every leg ellipsoid on that ray, the ones it is inside and the ones further out. The
        // jacket is outside the legs, so a thigh that has swung through a point leaves it in
        // front of the thigh, not behind it; neighbours go the same way, so a thigh between
        // two columns does not part their references (pushing each to its nearest surface
        // did: the two sides of the thigh, a leg's width apart, and the row tore there).
        let margin = self.cloth.params().collision_margin + 0.005;
        let pinned = &self.rig.topology.pinned;
        // Then the rest: overlapping ellipsoids (hips, upper and lower thigh) can push a point
        // from one into the next, so sweep until nothing moves, a few times at most.
        let body = &self.colliders[..self.body_colliders()];
        self.body_bounds.update(body, margin);
        let bounds = &self.body_bounds;
        let legs = self.torso_colliders.min(body.len())..body.len();
        let legs = if veil { 0..0 } else { legs };
        let has_legs = !legs.is_empty();
        let axis = BodyAxis::of_pelvis(self.model[self.pelvis]);
        let refs = self.references.iter_mut().zip(&mut self.leg_push);
        for ((r, push), _) in refs.zip(pinned).filter(|(_, &p)| !p) {
            let out = axis.outward(*r);
            let t = bounds.furthest_exit(body, legs.clone(), *r, out, margin);
            let pushed = push_out_all_among(body, bounds, *r + out * t, None, margin, 4);
            *push = pushed.distance(*r);
            *r = pushed;
        }
        // Only legs push one reference far from its neighbour (the veil has none).
        if has_legs {
            self.carry_row_neighbours(margin);
        }
        // The skirt's lower rows keep their references out of the leg lines too, so the max
        // distance sphere is centred where the leg lines let the cloth be.
        if let Some(lines) = &self.leg_lines {
            lines.push_references(self.rig.topology.cols, &mut self.references);
        }

        self.keep_references_in_reach(margin);
        self.colliders.push(Collider::Plane {
            point: Vec3::ZERO,
            normal: Vec3::Y,
        });
    }

    /// Down each column, keeps every reference where the hard constraints can reach it:
    /// within rest length +- (its max distance - its upper neighbour's) of the reference
    /// above. Otherwise a thigh pushing one reference far ahead (or a bend squeezing two
    /// together) leaves no point at rest length from the upper particle that is also
    /// within the lower one's max distance, and either the link or the max distance breaks.
    /// Where the corrected point is inside the body, it swings out on the same shell: pushed
    /// out and back onto the shell a few times (so it slides round a leg as the leg moves),
    /// then, where that does not clear it, the search over the whole shell.
    fn keep_references_in_reach(&mut self, margin: f32) {
        let pinned = &self.rig.topology.pinned;
        let body = &self.colliders[..self.body_colliders()];
        let md = self.cloth.max_distances();
        for &(a, b, rest) in &self.vertical {
            let (a, b) = (a as usize, b as usize);
            if pinned[b] {
                continue;
            }
            let slack = (md[b] - md[a]).max(0.0);
            let (top, want) = (self.references[a], self.references[b]);
            let gap = top.distance(want);
            let len = gap.clamp(rest - slack, rest + slack);
            if (len - gap).abs() <= 1e-6 {
                continue;
            }
            let dir = (want - top).normalize_or(Vec3::NEG_Y);
            let x = top + dir * len;
            let (swung, clear) = swing_clear(body, margin, top, len, x, None, REFERENCE_SWINGS);
            self.references[b] = if clear {
                swung
            } else {
                let shapes = Shapes {
                    colliders: body,
                    margin,
                    bounds: Some(&self.body_bounds),
                };
                clear_point_on_sphere(shapes, top, len, x, x, f32::MAX).unwrap_or(x)
            };
        }
    }

    /// Keeps neighbouring reference points in a row within [`REFERENCE_SPAN`] (the skirt's
    /// [`SKIRT_REFERENCE_SPAN`]) x their rest
    /// length: where a leg pushed one far out (a thigh kicked into the hem) and not its
    /// neighbour, the neighbour comes along toward it, and that one's neighbour in turn, so
    /// the row's max-distance spheres stay close enough for its links to keep their length
    /// (a thigh's width between two spheres held the links between them at several times
    /// their rest length in a dodge). The point pushed less moves; a moved point is pushed
    /// out of the body again.
    fn carry_row_neighbours(&mut self, margin: f32) {
        let pinned = &self.rig.topology.pinned;
        let body = &self.colliders[..self.body_colliders()];
        let span_ratio = if self.garment == Garment::Skirt {
            SKIRT_REFERENCE_SPAN
        } else {
            REFERENCE_SPAN
        };
        let forward = self.horizontal.iter();
        for &(a, b, rest) in forward.clone().chain(forward.rev()) {
            let (a, b) = (a as usize, b as usize);
            if pinned[a] || pinned[b] {
                continue;
            }
            let (ra, rb) = (self.references[a], self.references[b]);
            let gap = ra.distance(rb);
            let span = span_ratio * rest;
            if gap <= span {
                continue;
            }
            let (from, to) = if self.leg_push[a] >= self.leg_push[b] {
                (a, b)
            } else {
                (b, a)
            };
            let (rf, rt) = (self.references[from], self.references[to]);
            let carried = rf + (rt - rf) * (span / gap);
            self.references[to] =
                push_out_all_among(body, &self.body_bounds, carried, None, margin, 4);
            self.leg_push[to] = self.leg_push[from];
        }
    }

    /// How many of this step's colliders are the body's (the rest: the ground).
    fn body_colliders(&self) -> usize {
        if self.garment == Garment::Veil {
            self.veil_ellipsoids.len()
        } else {
            self.body_ellipsoids.len()
        }
    }

    fn hood_matrix(&self) -> Mat4 {
        let origin = self.hood_origin();
        let chest_x = self.model[self.neck].x_axis.truncate();
        Pendulum::bone(origin, self.pendulum.pos, chest_x)
    }

    /// The hood's pendulum ([`Pendulum::step`]) after the character's world motion since the
    /// last step (the cloth's fraction and its cuts, [`WorldMotion`]), then its bone.
    fn step_pendulum(&mut self) {
        let p = self.cloth.params();
        // The cloth's world-motion rule: a cut adds no motion.
        let motion = WorldMotion::between(&self.last_root, &self.root);
        if !motion.is_cut() {
            if let Some(m) = motion.fraction(p.world_motion_fraction) {
                carry(&m, &mut self.pendulum.pos, &mut self.pendulum.prev);
            }
        }
        let origin = self.hood_origin();
        let mut scratch = std::mem::take(&mut self.hood_scratch);
        let input = self.hood_input(origin);
        let mut pendulum = self.pendulum;
        pendulum.step(self.cloth.params(), &input, &mut scratch);
        self.hood_scratch = scratch;
        self.pendulum = pendulum;
        let hood = self.hood_matrix();
        self.rig.set_hood(hood, &mut self.frame);
    }

    /// Bones from the simulation mesh, skinning, statistics.
    /// The simulation mesh's bones from the particles; the drawn meshes are now stale.
    fn update_bones(&mut self) {
        self.rig
            .update_bones(self.cloth.positions(), &mut self.frame);
        self.skinned = false;
    }

    fn measure(&mut self) {
        let pos = self.cloth.positions();
        let topo = self.cloth.topology();
        // `previous_positions` are one solver step back: a substep, not the fixed step.
        let dt = self.cloth.params().solver_dt();
        // A torn link is no longer a link: its ends part freely and say nothing about stretch.
        let cloth = &self.cloth;
        let stretch = |links: &[(u32, u32, f32)]| {
            let (mut max, mut sum, mut count) = (0f32, 0f32, 0usize);
            for &(a, b, rest) in links.iter().filter(|l| !cloth.is_torn(l.0, l.1)) {
                let s = (pos[a as usize].distance(pos[b as usize]) / rest - 1.0) * 100.0;
                max = max.max(s);
                sum += s;
                count += 1;
            }
            (max, sum / count.max(1) as f32)
        };
        let (vmax, vmean) = stretch(&self.vertical);
        let (hmax, _) = stretch(&self.horizontal);
        let md = self.cloth.max_distances();
        let (mut hem_max, mut hem_sq, mut hem_speed, mut hem_n) = (0f32, 0f32, 0f32, 0usize);
        let (mut edge_sum, mut edge_n, mut int_sum, mut int_n) = (0f32, 0usize, 0f32, 0usize);
        let (mut ke, mut free, mut saturated) = (0f32, 0usize, 0usize);
        let prev = self.cloth.previous_positions();
        for i in 0..pos.len() {
            if topo.pinned[i] {
                continue;
            }
            free += 1;
            let offset = pos[i] - self.references[i];
            let dist = offset.length();
            let rel_speed = (offset - self.prev_offsets[i]).length() / dt;
            self.prev_offsets[i] = offset;
            let v = (pos[i] - prev[i]) / dt;
            ke += 0.5 * v.length_squared();
            if dist >= md[i] - 1e-3 {
                saturated += 1;
            }
            if topo.hem().contains(&i) {
                hem_max = hem_max.max(dist);
                hem_sq += dist * dist;
                hem_speed = hem_speed.max(rel_speed);
                hem_n += 1;
            }
            if topo.edge[i] {
                edge_sum += rel_speed;
                edge_n += 1;
            } else {
                int_sum += rel_speed;
                int_n += 1;
            }
        }
        let body = &self.colliders[..self.body_colliders()];
        self.depth_bounds.update(body, 0.0);
        let shapes = Shapes {
            colliders: body,
            margin: 0.0,
            bounds: Some(&self.depth_bounds),
        };
        let unpinned = pos.iter().zip(&topo.pinned).filter(|(_, &pinned)| !pinned);
        let penetration = unpinned
            .map(|(p, _)| shapes.deepest(*p))
            .fold(0f32, f32::max);
        self.stats = FrameStats {
            vertical_stretch_pct: vmax,
            mean_vertical_stretch_pct: vmean,
            horizontal_stretch_pct: hmax,
            hem_swing_m: hem_max,
            hem_rms_m: (hem_sq / hem_n.max(1) as f32).sqrt(),
            hem_speed,
            edge_speed: edge_sum / edge_n.max(1) as f32,
            interior_speed: int_sum / int_n.max(1) as f32,
            kinetic_energy: ke / free.max(1) as f32,
            max_distance_saturation: saturated as f32 / free.max(1) as f32,
            max_penetration_m: penetration,
            step_seconds: 0.0,
            frame_seconds: 0.0,
            skin_seconds: self.stats.skin_seconds,
            resets: self.cloth.stats().resets,
            torn_links: self.cloth.torn_count(),
        };
    }
}

/// The hood's pendulum at rest on `rig`, `neck` the neck bone at rest (character space).
fn new_pendulum(rig: &JacketRig, neck: Mat4) -> Pendulum {
    let origin = rig.hood_rest.w_axis.truncate();
    let to_neck = neck.inverse();
    Pendulum {
        pos: rig.hood_pendulum_rest,
        prev: rig.hood_pendulum_rest,
        length: origin.distance(rig.hood_pendulum_rest),
        origin_local: to_neck.transform_point3(origin),
        rest_local: to_neck.transform_vector3(Vec3::NEG_Y),
        last_origin: origin,
        last_rest: Vec3::NEG_Y,
        touched: false,
        reach: rig
            .hood_points
            .iter()
            .map(|p| p.length())
            .fold(0.0, f32::max),
    }
}

/// The layout of `garment` fitted to `character`, as a scene builds it.
pub fn layout_for(character: &Character, garment: Garment) -> JacketLayout {
    match garment {
        Garment::Veil => JacketLayout::veil(character),
        Garment::Skirt => JacketLayout::skirt(character),
        Garment::Jacket | Garment::HoodedJacket => JacketLayout::fitted(character),
    }
}

/// The links of one kind as (upper or left, lower or right, rest length), for the stretch
/// figures.
fn links_of(rig: &JacketRig, kind: ConstraintKind) -> Vec<(u32, u32, f32)> {
    rig.topology
        .links
        .iter()
        .filter(|l| l.kind == kind)
        .map(|l| (l.a, l.b, l.rest))
        .collect()
}

/// `e` posed by `model` as a collider.
fn posed_collider(e: &Ellipsoid, model: &[Mat4]) -> Collider {
    let p = e.posed(model);
    Collider::Ellipsoid {
        center: p.centre,
        rotation: p.rotation,
        radii: p.radii,
    }
}

/// The index of the clip called `name`, or an error listing the clips there are.
/// Hands `preset`'s painted max distances to `cloth`, when the map fits its grid.
fn paint(cloth: &mut Cloth, preset: &Preset) -> Result<(), SceneError> {
    let (cols, rows) = (cloth.topology().cols, cloth.topology().rows);
    let painted = match &preset.max_distance_map {
        None => &[][..],
        Some(map) => {
            if let Some(message) = map.grid_mismatch(cols, rows) {
                let preset = preset.name.clone();
                return Err(SceneError::MaxDistanceMap { preset, message });
            }
            &map.metres[..]
        }
    };
    if cloth.set_painted_max_distances(painted) {
        Ok(())
    } else {
        let message = format!("{} entries for {} particles", painted.len(), cols * rows);
        let preset = preset.name.clone();
        Err(SceneError::MaxDistanceMap { preset, message })
    }
}

pub(crate) fn find_clip(character: &Character, name: &str) -> Result<usize, SceneError> {
    character
        .clips
        .iter()
        .position(|c| c.name == name)
        .ok_or_else(|| SceneError::UnknownClip {
            name: name.to_string(),
            valid: character.clip_names().map(str::to_string).collect(),
        })
}
