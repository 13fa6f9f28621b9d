//! The character wearing the jacket, playing a clip: one fixed step of the whole pipeline
//! (clip sampling, the rig, the hood pendulum, the cloth step, the bones from the simulation
//! mesh, skinning of the render mesh). Shared by the tuner, `simulate` and the renderer; and
//! what is measured on it ([`metrics`], [`drift`], [`motion`]).

pub mod coverage;
pub mod drift;
pub mod metrics;
pub mod motion;

use std::sync::Arc;
use std::time::Instant;

use glam::{Mat4, Vec3};

use crate::character::{skin, BodyAxis, Character, Pose, Role, SkinnedMesh};
use crate::garment::hood::HoodedJacket;
use crate::garment::imported::ImportedGarment;
use crate::garment::skirt::Skirt;
use crate::garment::{
    dress, fitted_layout, open_indices, Garment, GarmentError, GarmentRig, GridLayout, Posed,
    RigFrame,
};
use crate::preset::{Garment as Template, Preset};
use crate::sim::{
    clear_point_on_sphere, push_out_all_among, swing_clear, twin, Bounds, Cloth, Collider,
    ConstraintKind, FabricParams, FoldError, FoldLine, Frame, LegLines, Shapes, StepInput,
    Topology,
};
use coverage::Coverage;
/// Rounds of pushing a reference point out of the body and swinging it back onto the sphere
/// around the reference above before the wider search (see [`swing_clear`]).
const REFERENCE_SWINGS: usize = 6;

/// Why a scene could not be built or changed.
#[derive(Debug, thiserror::Error)]
pub enum SceneError {
    #[error("unknown clip `{name}`; the clips are: {}", .valid.join(", "))]
    UnknownClip { name: String, valid: Vec<String> },
    #[error(transparent)]
    Garment(#[from] GarmentError),
    /// The preset's painted max distances do not fit the garment's grid.
    #[error("preset `{preset}`: field `max_distance_map`: {message}")]
    MaxDistanceMap { preset: String, message: String },
    #[error("the preset's fold lines do not fit the garment: {0}")]
    Fold(#[from] FoldError),
    /// A pose given to [`Scene::step_posed`] with a matrix count that is not the skeleton's.
    #[error("a pose of {given} bone matrices; the character has {bones} bones")]
    PoseLength { given: usize, bones: usize },
    #[error("cannot play the baked clip: {0}")]
    Baked(String),
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

/// What the character wears in a run: the template its preset names, or a garment built for
/// it (the artist's own, [`ImportedGarment`]).
#[derive(Clone, Debug, Default)]
pub enum Outfit {
    #[default]
    Template,
    Garment(Arc<ImportedGarment>),
}

impl Outfit {
    /// `character` in this outfit, tuned by `preset`, playing `clip`.
    pub fn scene(
        &self,
        character: Arc<Character>,
        preset: &Preset,
        clip: &str,
    ) -> Result<Scene, SceneError> {
        match self {
            Outfit::Template => Scene::new(character, preset, clip),
            Outfit::Garment(g) => Scene::wearing(character, Box::new((**g).clone()), preset, clip),
        }
    }

    /// The columns and rows of the grid `character` wears in this outfit under a preset of
    /// `template` (what a painted max-distance map must match).
    pub fn grid_size(&self, character: &Character, template: Template) -> (usize, usize) {
        match self {
            Outfit::Template => {
                let g = fitted_layout(character, template);
                (g.cols, g.rows)
            }
            Outfit::Garment(g) => (g.grid().cols, g.grid().rows),
        }
    }
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

/// The character in its garment, playing a clip, one fixed step at a time.
pub struct Scene {
    character: Arc<Character>,
    garment: Box<dyn Garment>,
    cloth: Cloth,
    clip: usize,
    steps: u64,
    pose: Pose,
    model: Vec<Mat4>,
    body_skin: Vec<Mat4>,
    body_pos: Vec<Vec3>,
    body_nrm: Vec<Vec3>,
    frame: RigFrame,
    jacket_pos: Vec<Vec3>,
    jacket_nrm: Vec<Vec3>,
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
    root: Frame,
    /// The root at the last step (the first pose after a reset).
    last_root: Frame,
    /// Where the clip's root motion is placed in the world ([`Scene::teleport`]).
    placement: Frame,
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
    /// The body's vertices the garment should cover, with the garment's that cover them.
    coverage: Coverage,
    /// Playing a baked clip ([`Scene::play_baked`]): the garment's mesh as its file skins it,
    /// drawn by the clip's bones (the cloth bones among them) instead of the simulation.
    baked: Option<Arc<SkinnedMesh>>,
}

impl Scene {
    /// The preset's garment in its layout fitted to `character` ([`fitted_layout`]), tuned by
    /// `preset`, playing `clip`.
    pub fn new(
        character: Arc<Character>,
        preset: &Preset,
        clip: &str,
    ) -> Result<Scene, SceneError> {
        let layout = fitted_layout(&character, preset.garment);
        Self::with_layout(character, preset, clip, layout)
    }

    /// As [`Scene::new`] with a given layout of the preset's garment.
    pub fn with_layout(
        character: Arc<Character>,
        preset: &Preset,
        clip: &str,
        layout: GridLayout,
    ) -> Result<Scene, SceneError> {
        let garment = dress(&character, preset.garment, &layout)?;
        Self::wearing(character, garment, preset, clip)
    }

    /// `character` in `garment` (built for it: a template from [`dress`] or the artist's own,
    /// [`crate::garment::imported::ImportedGarment`]), tuned by `preset` (its garment field is
    /// not read), playing `clip`.
    pub fn wearing(
        character: Arc<Character>,
        garment: Box<dyn Garment>,
        preset: &Preset,
        clip: &str,
    ) -> Result<Scene, SceneError> {
        let clip_index = find_clip(&character, clip)?;
        let topology = garment
            .rig()
            .topology
            .clone()
            .with_fold_lines(&preset.fold_lines)?;
        let mut cloth = Cloth::new(topology, &preset.params);
        paint(&mut cloth, preset)?;
        let mut model = Vec::new();
        character
            .skeleton
            .rest_pose()
            .compute_model(&character.skeleton, &mut model);
        let mut scene = Scene {
            pose: character.skeleton.rest_pose(),
            pelvis: character.roles.bone(Role::Pelvis),
            character,
            frame: garment.rig().new_frame(),
            garment,
            cloth,
            clip: clip_index,
            steps: 0,
            model,
            body_skin: Vec::new(),
            body_pos: Vec::new(),
            body_nrm: Vec::new(),
            jacket_pos: Vec::new(),
            jacket_nrm: Vec::new(),
            references: Vec::new(),
            prev_offsets: Vec::new(),
            leg_push: Vec::new(),
            colliders: Vec::new(),
            body_bounds: Bounds::default(),
            depth_bounds: Bounds::default(),
            root: Frame::IDENTITY,
            last_root: Frame::IDENTITY,
            placement: Frame::IDENTITY,
            drag: None,
            stats: FrameStats::default(),
            skinned: false,
            vertical: Vec::new(),
            horizontal: Vec::new(),
            fold_lines: preset.fold_lines.clone(),
            jacket_indices: Vec::new(),
            indices_torn: None,
            coverage: Coverage::default(),
            baked: None,
        };
        scene.size_for_garment();
        scene.reset();
        Ok(scene)
    }

    /// Sizes the buffers that follow the garment's grid and body (once per garment, so no
    /// step allocates).
    fn size_for_garment(&mut self) {
        let rig = self.garment.rig();
        let n = rig.topology.len();
        self.references = vec![Vec3::ZERO; n];
        self.prev_offsets = vec![Vec3::ZERO; n];
        self.leg_push = vec![0.0; n];
        self.vertical = links_of(rig, ConstraintKind::StretchVertical);
        self.horizontal = links_of(rig, ConstraintKind::StretchHorizontal);
        let colliders = self.garment.body().ellipsoids.len();
        self.body_bounds = Bounds::with_capacity(colliders);
        self.depth_bounds = Bounds::with_capacity(colliders);
        self.colliders = Vec::with_capacity(colliders + 1);
        self.frame = rig.new_frame();
        let mut rest = Vec::new();
        let sk = &self.character.skeleton;
        sk.rest_pose().compute_model(sk, &mut rest);
        let pelvis = rest[self.pelvis].w_axis;
        self.coverage = Coverage::new(&self.character, rig, (pelvis.x, pelvis.z));
    }

    /// The body's vertices the garment should cover, with the garment's that cover them.
    pub fn coverage(&self) -> &Coverage {
        &self.coverage
    }

    /// The share of the body's vertices the garment should cover that show through the drawn
    /// garment, percent ([`Coverage`]), as of the last [`Scene::skin_meshes`].
    pub fn skin_showing_pct(&mut self) -> f32 {
        debug_assert!(self.skinned, "Scene::skin_showing_pct before skin_meshes");
        let pelvis = self.model[self.pelvis].w_axis;
        self.coverage
            .showing_pct(&self.body_pos, &self.jacket_pos, (pelvis.x, pelvis.z))
    }

    /// The character.
    pub fn character(&self) -> &Character {
        &self.character
    }

    /// The character, shared (to play another preset on it, or measure one in the background).
    pub fn character_arc(&self) -> &Arc<Character> {
        &self.character
    }

    /// The garment's rig.
    pub fn rig(&self) -> &GarmentRig {
        self.garment.rig()
    }

    /// The garment being worn.
    pub fn worn(&self) -> &dyn Garment {
        self.garment.as_ref()
    }

    /// The garment being worn, when it is a `G` (the hood of a [`HoodedJacket`], the leg lines
    /// of a [`Skirt`]).
    pub fn worn_as<G: Garment>(&self) -> Option<&G> {
        self.garment.as_any().downcast_ref()
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

    /// The template being worn (`None`: the artist's own garment).
    pub fn garment(&self) -> Option<Template> {
        self.garment.template()
    }

    /// Changes the garment: rebuilds the rig and the cloth and restarts the clip. Between the
    /// jacket and the hooded jacket the layout stays; another kind of garment gets its own
    /// layout fitted to the character. A garment that cannot be built changes nothing.
    pub fn set_garment(&mut self, template: Template) {
        let current = self.garment.template();
        if Some(template) == current {
            return;
        }
        let jacket =
            |g: Option<Template>| matches!(g, Some(Template::Jacket | Template::HoodedJacket));
        // Past the early return the garment differs: only the two jackets share a shape.
        let reshaped = !(jacket(Some(template)) && jacket(current));
        let layout = if reshaped {
            fitted_layout(&self.character, template)
        } else {
            self.rig().layout().clone()
        };
        let Ok(garment) = dress(&self.character, template, &layout) else {
            return;
        };
        if reshaped {
            // Another shape: a new cloth (with the same fold lines where the grid still
            // takes them).
            let topology = garment.rig().topology.clone();
            let topology = topology
                .clone()
                .with_fold_lines(&self.fold_lines)
                .unwrap_or(topology);
            self.rebuild_cloth(topology);
        }
        self.garment = garment;
        self.size_for_garment();
        self.indices_torn = None;
        self.reset();
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
        let topology = self.rig().topology.clone().with_fold_lines(lines)?;
        self.rebuild_cloth(topology);
        self.fold_lines = lines.to_vec();
        self.indices_torn = None;
        self.reset();
        Ok(())
    }

    /// The skirt's leg lines this step, whether or not they are on (`None` for another
    /// garment).
    pub fn leg_lines(&self) -> Option<LegLines> {
        self.worn_as::<Skirt>().map(Skirt::lines)
    }

    /// Turns the skirt's leg lines on or off (on by default; no effect on another garment):
    /// off, the hem is held out of the legs by the collision alone.
    pub fn set_leg_lines(&mut self, on: bool) {
        if let Some(skirt) = self.garment.as_any_mut().downcast_mut::<Skirt>() {
            skirt.set_leg_lines(on);
        }
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
        self.settle();
    }

    /// As [`Scene::reset`] on a pose the caller gives instead of the clip's first (see
    /// [`Scene::step_posed`]); a `model` of the wrong length is refused and nothing changes.
    pub fn reset_posed(&mut self, model: &[Mat4], root: Frame) -> Result<(), SceneError> {
        self.set_pose(model, root)?;
        self.steps = 0;
        self.placement = Frame::IDENTITY;
        self.drag = None;
        self.pose_garment();
        self.settle();
        Ok(())
    }

    /// The cloth at rest on the current pose, the garment's own state reset to it.
    fn settle(&mut self) {
        // The cloth remembers this pose, so the first step moves the character from it.
        let _ = self.cloth.reset_on(&StepInput {
            frame: self.root,
            reference: &self.references,
            colliders: &self.colliders,
            leg_lines: self.garment.leg_lines(),
        });
        self.prev_offsets.fill(Vec3::ZERO);
        let posed = Posed {
            model: &self.model,
            root: self.root,
            last_root: self.last_root,
            params: self.cloth.params(),
        };
        self.garment.reset(&posed, &mut self.frame);
        self.last_root = self.root;
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
        self.character
            .skin_matrices(&self.model, &mut self.body_skin);
        match &self.baked {
            Some(worn) => skin(
                worn,
                &self.body_skin,
                &mut self.jacket_pos,
                &mut self.jacket_nrm,
            ),
            None => self.garment.skin(
                &self.frame,
                &self.cloth,
                &mut self.jacket_pos,
                &mut self.jacket_nrm,
            ),
        }
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
                self.garment.rig(),
                links,
                cloth.torn_links(),
                &mut self.jacket_indices,
            );
            self.indices_torn = Some(torn);
        }
        self.skinned = true;
        self.stats.skin_seconds = start.elapsed().as_secs_f32();
    }

    /// Plays the garment as a baked clip moves it instead of simulating it: `worn` is the
    /// garment's mesh as the character's file skins it (a baked file's: to the body bones and
    /// the cloth bones, whose keys are the clip's), which must be the mesh the garment was
    /// built on. From here each step poses the character and skips the cloth; the drawn garment
    /// is `worn` skinned by the clip's pose alone, as an engine plays the file.
    pub fn play_baked(&mut self, worn: Arc<SkinnedMesh>) -> Result<(), SceneError> {
        let drawn = self.garment.rig().render.positions.len();
        if worn.positions.len() != drawn {
            return Err(SceneError::Baked(format!(
                "the baked mesh has {} vertices, the garment {drawn}",
                worn.positions.len()
            )));
        }
        self.baked = Some(worn);
        self.skinned = false;
        Ok(())
    }

    /// Whether the garment plays a baked clip ([`Scene::play_baked`]).
    pub fn is_baked(&self) -> bool {
        self.baked.is_some()
    }

    /// One fixed step of 1 / timestep_hz seconds.
    pub fn step(&mut self) {
        let start = Instant::now();
        self.steps += 1;
        let t = self.time();
        self.pose_at(t);
        if self.baked.is_some() {
            // The clip moves the cloth bones; nothing is simulated.
            self.last_root = self.root;
            self.skinned = false;
            self.stats.frame_seconds = start.elapsed().as_secs_f32();
            return;
        }
        let step_seconds = self.step_cloth();
        // The measurements are the tuner's, not the game's: outside the frame time.
        let frame_seconds = start.elapsed().as_secs_f32();
        self.measure();
        self.stats.step_seconds = step_seconds;
        self.stats.frame_seconds = frame_seconds;
    }

    /// One fixed step on a pose the caller gives instead of the clip's: `model` holds every
    /// bone's character-space matrix (one per bone of the skeleton, as
    /// [`crate::character::Pose::compute_model`] gives them) and `root` the character's world
    /// frame. What [`Scene::step`] does after sampling the clip, so a game driving the garment
    /// from its own animation (the garment runtime, `export::runtime`) runs the
    /// tool's code. It takes no measurements ([`Scene::frame_stats`] stays as it was). A
    /// `model` of the wrong length is refused and nothing changes.
    pub fn step_posed(&mut self, model: &[Mat4], root: Frame) -> Result<(), SceneError> {
        self.set_pose(model, root)?;
        self.steps += 1;
        self.pose_garment();
        self.step_cloth();
        Ok(())
    }

    /// Takes the caller's pose (see [`Scene::step_posed`]).
    fn set_pose(&mut self, model: &[Mat4], root: Frame) -> Result<(), SceneError> {
        if model.len() != self.model.len() {
            return Err(SceneError::PoseLength {
                given: model.len(),
                bones: self.model.len(),
            });
        }
        self.model.copy_from_slice(model);
        self.root = root;
        Ok(())
    }

    /// The posed step's garment, cloth and bones: what follows the pose in [`Scene::step`]
    /// and [`Scene::step_posed`]. Returns the seconds the cloth step took.
    fn step_cloth(&mut self) -> f32 {
        let posed = Posed {
            model: &self.model,
            root: self.root,
            last_root: self.last_root,
            params: self.cloth.params(),
        };
        self.garment.before_cloth(&posed, &mut self.frame);
        if let Some((i, target)) = self.drag {
            self.cloth.drag_particle(i, target);
        }
        let cloth_start = Instant::now();
        let input = StepInput {
            frame: self.root,
            reference: &self.references,
            colliders: &self.colliders,
            leg_lines: self.garment.leg_lines(),
        };
        // The inputs come from the rig and are always finite; a refusal leaves the cloth as
        // it was for this step.
        let _ = self.cloth.step(&input);
        let step_seconds = cloth_start.elapsed().as_secs_f32();
        self.last_root = self.root;
        self.update_bones();
        step_seconds
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

    /// Whether the meshes were skinned since the last step ([`Scene::skin_meshes`]).
    pub fn is_skinned(&self) -> bool {
        self.skinned
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
            uvs: &self.garment.rig().render.uvs,
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

    /// The garment's per-frame rig matrices.
    pub fn rig_frame(&self) -> &RigFrame {
        &self.frame
    }

    /// The character's bones in character space.
    pub fn model(&self) -> &[Mat4] {
        &self.model
    }

    /// The hood pendulum's end point (character space); `None` without a hood.
    pub fn hood_pendulum(&self) -> Option<Vec3> {
        self.worn_as::<HoodedJacket>()
            .map(HoodedJacket::pendulum_end)
    }

    /// The hood bone (character space): x toward the pendulum's end. The hood's vertices
    /// ([`crate::garment::RenderMesh::hood`]) and [`HoodedJacket::hood_points`] ride on it.
    /// `None` without a hood.
    pub fn hood_bone(&self) -> Option<Mat4> {
        self.worn_as::<HoodedJacket>().map(|h| h.bone(&self.model))
    }

    /// What the hood keeps out of this step (head, neck, shoulders), character space; empty
    /// without a hood.
    pub fn hood_colliders(&self) -> &[Collider] {
        self.worn_as::<HoodedJacket>()
            .map_or(&[], HoodedJacket::colliders)
    }

    /// The hood pendulum's angle from its rest pose (hanging on the back, carried by the
    /// neck), degrees: what [`FabricParams::hood_swing_limit_deg`] caps. `None` without a
    /// hood.
    pub fn hood_swing_deg(&self) -> Option<f32> {
        self.worn_as::<HoodedJacket>()
            .map(|h| h.swing_deg(&self.model))
    }

    /// What the last step looked like.
    pub fn frame_stats(&self) -> FrameStats {
        self.stats
    }

    /// Holds a particle at a character-space point while `Some` (a poke with the mouse).
    pub fn drag(&mut self, particle: usize, target: Option<Vec3>) {
        self.drag = target.map(|t| (particle, t));
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
        self.pose_garment();
    }

    /// Solves everything that depends only on the pose (`model` and `root`): the garment's
    /// drivers and reference points, the colliders, the references kept out of the body.
    fn pose_garment(&mut self) {
        let posed = Posed {
            model: &self.model,
            root: self.root,
            last_root: self.last_root,
            params: self.cloth.params(),
        };
        self.garment
            .pose(&posed, &mut self.frame, &mut self.references);
        self.colliders.clear();
        for e in &self.garment.body().ellipsoids {
            self.colliders.push(e.posed_collider(&self.model));
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
        let pinned = &self.garment.rig().topology.pinned;
        // Then the rest: overlapping ellipsoids (hips, upper and lower thigh) can push a point
        // from one into the next, so sweep until nothing moves, a few times at most.
        let body = &self.colliders[..self.body_colliders()];
        self.body_bounds.update(body, margin);
        let bounds = &self.body_bounds;
        let legs = self.garment.body().torso.min(body.len())..body.len();
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
        let over_legs = self.garment.held_over_legs();
        if let Some(lines) = over_legs {
            let cols = self.garment.rig().topology.cols;
            lines.push_references(cols, &mut self.references);
        }
        let over_legs = over_legs.is_some();

        self.keep_references_in_reach(margin);
        if has_legs && over_legs {
            self.carry_row_neighbours(margin);
            self.keep_references_in_reach(margin);
        }
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
        let pinned = &self.garment.rig().topology.pinned;
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

    /// Keeps neighbouring reference points in a row within the garment's
    /// [`Garment::reference_span`] x their rest length: where a leg pushed one far out (a thigh kicked into the hem) and not its
    /// neighbour, the neighbour comes along toward it, and that one's neighbour in turn, so
    /// the row's max-distance spheres stay close enough for its links to keep their length
    /// (a thigh's width between two spheres held the links between them at several times
    /// their rest length in a dodge). The point pushed less moves; a moved point is pushed
    /// out of the body again.
    fn carry_row_neighbours(&mut self, margin: f32) {
        let topo = &self.garment.rig().topology;
        let pinned = &topo.pinned;
        let body = &self.colliders[..self.body_colliders()];
        let span_ratio = self.garment.reference_span();
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
            let carried = push_out_all_among(body, &self.body_bounds, carried, None, margin, 4);
            // A closed garment's seam is one particle with two references: they go together,
            // or its two max-distance spheres part and hold the welded particle's links long.
            for k in [to, twin(topo, to / topo.cols, to)] {
                self.references[k] = carried;
                self.leg_push[k] = self.leg_push[from];
            }
        }
    }

    /// How many of this step's colliders are the body's (the rest: the ground).
    fn body_colliders(&self) -> usize {
        self.garment.body().ellipsoids.len()
    }

    /// The simulation mesh's bones from the particles; the drawn meshes are now stale.
    fn update_bones(&mut self) {
        self.garment
            .rig()
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

/// The links of one kind as (upper or left, lower or right, rest length), for the stretch
/// figures.
fn links_of(rig: &GarmentRig, kind: ConstraintKind) -> Vec<(u32, u32, f32)> {
    rig.topology
        .links
        .iter()
        .filter(|l| l.kind == kind)
        .map(|l| (l.a, l.b, l.rest))
        .collect()
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
