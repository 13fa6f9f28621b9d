//! The skirt (the skirt of "Cloth Physics in K.I.S.A", simulated with the jacket's system): the
//! same grid, bones and skinned render sheet as the lower jacket, hung from the waist instead
//! of the chest and closed all round. Its rows are rings fitted around the hips and the legs
//! like the jacket's; its first and last columns sit on the same seam at the back
//! ([`Topology::with_seam`](crate::sim::Topology::with_seam)), welded by the cloth after every
//! step, so the tube has no opening. The top row is pinned to the pelvis.
//!
//! The skirt's lower rows keep out of the legs with the article's leg lines
//! ([`LegLines`], the cloth's row pass): capsules a little wider than the legs along the
//! hip-knee and knee-ankle segments, and the web between the two legs, so the hem never hangs
//! between the legs. What is the skirt's own is here: its rest rings, its reference binding,
//! the leg lines posed from the character's bones every step ([`LegBones`], shared with the
//! artist's long garments), and the hem rounded for drawing by bones of its own, so that a
//! baked clip plays it as the tuner draws it.

use std::any::Any;

use glam::{Mat4, Vec3};

use super::layout::{landmarks, surface_samples, torso_rings, GridLayout, Ring, BUILTIN_LANDMARKS};
use super::legs::LegBones;
use super::rig::{
    add_shells, hem_binding, mix_bindings, rest_model, ring_rest, Binding, GarmentRig, RenderMesh,
    RestSkin, RigFrame, Tailor,
};
use super::{Body, Garment, GarmentError, Posed};
use crate::character::{Character, PosedEllipsoid, Role};
use crate::preset::Garment as Template;
use crate::sim::{LegLines, LegRows};

/// The smallest ring of a skirt's row (half width, front, back, metres on the built-in body).
const RING_FLOOR: Vec3 = Vec3::new(0.1, 0.07, 0.07);

/// How far above the knee joint the hem hangs at rest, metres on the built-in body.
const HEM_ABOVE_KNEES: f32 = 0.03;

/// The hem's size over the widest row's (a flared skirt): a stride spreads the knees, and a
/// raised thigh lifts the front over it, further than a straight tube around the hips goes
/// round, and the rows cannot stretch to follow. With the rows lifted over the legs whole
/// (the cloth's row pass), [`BODY_EASE`] and [`OVER_LEGS_ROWS`], this flare is the smallest
/// that keeps the sprint stop's, jump's and dodge's rows within 9 % with the shipped knobs,
/// and with the damping +20 %, the hem's max distance +12 % or the world motion +50 %.
const HEM_FLARE: f32 = 1.9;

/// How far up the skirt the leg lines reach: the rows from this fraction of the way down to
/// the hem (the rows above lie on the hips, where the collision already holds them).
const LEG_LINE_ROWS: f32 = 0.5;

/// How far up the skirt its rows go over the legs: from this fraction of the way down to the
/// hem, their links are lifted over a leg whole and their reference points pushed out over it
/// ([`LegRows::lift_from`]). Higher than the leg lines' own rows ([`LEG_LINE_ROWS`]): a thigh
/// raised to a sprint's stride lifts the rows just under the hips too, so those rows, and
/// their reference points, must go over the thigh as well or they stretch far at the stride's
/// peak.
const OVER_LEGS_ROWS: f32 = 0.3;

/// The skirt's layout on `character`: pinned around the waist (the spine joint's height),
/// hanging to just above the knees, closed all round with the seam at the back.
pub fn layout(character: &Character) -> GridLayout {
    let (shoulder, _) = landmarks(character);
    let k = shoulder / BUILTIN_LANDMARKS.0;
    let (waist, knee) = waist_and_knee(character);
    // The grid fold lines and painted maps are checked against.
    let (cols, rows) = Template::Skirt.grid();
    GridLayout {
        cols,
        rows,
        top_height: waist,
        hem_height: knee + HEM_ABOVE_KNEES * k,
        front_gap_deg: 0.0,
        clearance: 0.015 * k,
        // Eight render columns a grid column: the hem rounded by its bones turns a few
        // degrees a segment ([`round_hem`]).
        render_cols_per_sim: 8,
        render_rows_per_sim: 4,
        thickness: 0.004 * k,
        body_scale: k,
        opening_deg: 180.0,
        ..GridLayout::default()
    }
}

/// The heights of the waist (the spine joint) and of the knees (mean of the shin joints) at
/// rest.
fn waist_and_knee(character: &Character) -> (f32, f32) {
    let sk = &character.skeleton;
    let mut model = Vec::new();
    sk.rest_pose().compute_model(sk, &mut model);
    let y = |r: Role| model[character.roles.bone(r)].w_axis.y;
    (y(Role::Spine), (y(Role::ShinL) + y(Role::ShinR)) * 0.5)
}

/// How far outside the body's ellipsoids (metres on the built-in body) every rest ring keeps
/// its particles: the collision margin the hard pass and the references keep (up to 3 cm) and
/// ease over the thighs, so the skirt hangs at rest length where the collision puts it and
/// a thigh rising under it finds cloth to lift: less ease leaves the sprint stop's and the
/// jump's rows too short to go over the thigh at the stride's peak.
const BODY_EASE: f32 = 0.055;

/// The skirt's rest rings on `character` posed by `model` (its rest pose): around the hips
/// and both legs with [`BODY_EASE`] ([`cover_body`]), never narrower below the widest row (the
/// cloth hangs from the hips), flaring below it to [`HEM_FLARE`] times its size at the hem.
fn rest_rings(character: &Character, layout: &GridLayout, model: &[Mat4]) -> Vec<Ring> {
    let mut rings = torso_rings(character, layout, model, RING_FLOOR);
    let posed: Vec<PosedEllipsoid> = (character.ellipsoids.iter())
        .filter(|e| !e.name.starts_with("upperarm"))
        .map(|e| e.posed(model))
        .collect();
    let band = (layout.top_height - layout.hem_height) / (layout.rows - 1) as f32 * 0.5;
    for ring in rings.iter_mut() {
        *ring = cover_body(*ring, &posed, band, BODY_EASE * layout.body_scale);
    }
    let size = |g: &Ring| g.rx + g.rz;
    let most = rings.iter().map(size).fold(0.0, f32::max);
    let widest = rings.iter().position(|g| size(g) >= most).unwrap_or(0);
    let below = (rings.len() - 1).saturating_sub(widest).max(1) as f32;
    for k in widest + 1..rings.len() {
        let above = rings[k - 1];
        let ring = &mut rings[k];
        // Hang straight: a row below the widest is at least as wide as the one above it.
        ring.rx = ring.rx.max(above.rx);
        ring.rz = ring.rz.max(above.rz);
    }
    let top = rings[widest];
    for (k, ring) in rings.iter_mut().enumerate().skip(widest + 1) {
        let grow = 1.0 + (HEM_FLARE - 1.0) * (k - widest) as f32 / below;
        ring.rx = ring.rx.max(top.rx * grow);
        ring.rz = ring.rz.max(top.rz * grow);
    }
    rings
}

/// `ring` grown about its centre (its proportions kept) until the surface of every ellipsoid
/// in `posed` within `band` of its height, moved `ease` further out from the ellipsoid's axis,
/// is inside it seen from above. The fitted ring is an ellipse through the body's widest,
/// frontmost and backmost points, which cuts through two thighs side by side at their
/// front and back corners; there the collision held the cloth out past its rest length.
fn cover_body(ring: Ring, posed: &[PosedEllipsoid], band: f32, ease: f32) -> Ring {
    let mut grow = 1.0f32;
    for e in posed {
        for p in surface_samples(e) {
            if (p.y - ring.y).abs() > band {
                continue;
            }
            let out = Vec3::new(p.x - e.centre.x, 0.0, p.z - e.centre.z).normalize_or_zero();
            let q = p + out * ease;
            let x = q.x / ring.rx;
            let z = (q.z - ring.cz) / ring.rz;
            grow = grow.max((x * x + z * z).sqrt());
        }
    }
    Ring {
        rx: ring.rx * grow,
        rz: ring.rz * grow,
        ..ring
    }
}

/// How a skirt particle's reference point follows the body: rigidly with the pelvis, the
/// waistband (pinned) and the rows below alike; the legs swing under it and the collision and
/// the leg lines keep the cloth out of them.
struct SkirtCut;

impl Tailor for SkirtCut {
    fn reference_binding(&self, rig: &GarmentRig, _i: usize, _p: Vec3, _depth: f32) -> Binding {
        [(rig.bones.pelvis as u16, 1.0), (0, 0.0), (0, 0.0), (0, 0.0)]
    }

    /// The skirt is closed all round: its first and last columns are one seam.
    fn closed(&self) -> bool {
        true
    }

    /// The hem carries bones on every particle: the drawn hem is rounded by them.
    fn hem_bones(&self) -> bool {
        true
    }

    /// The tube alone (its waistband is the top row), its hem bound to the hem bones
    /// ([`round_hem`]).
    fn add_parts(&self, rig: &GarmentRig, rings: &[Ring], _skin: &RestSkin, m: &mut RenderMesh) {
        add_shells(rig, rings, self, m);
        round_hem(rig, m);
    }
}

/// The round hem of "Cloth Physics in K.I.S.A", carried by the bones: the drawn skirt's hem
/// (render row `nv - 1` of both shells) is skinned to the hem bones ([`hem_binding`]), so it
/// passes every hem particle (within half the fabric's thickness, the shells' offset) and
/// rounds the 16-sided polygon the simulation has between them; the render rows of the last
/// simulation row above it take a share of that binding that grows toward the hem, so the
/// sheet bends into it. Skinning alone draws it: a baked clip plays the same hem.
fn round_hem(rig: &GarmentRig, m: &mut RenderMesh) {
    let layout = &rig.layout;
    let (nu, nv) = layout.render_grid();
    let rows = layout.render_rows_per_sim.min(nv - 1);
    for shell in 0..2 {
        for s in 0..rows {
            let share = 1.0 - s as f32 / layout.render_rows_per_sim as f32;
            let row = shell * nu * nv + (nv - 1 - s) * nu;
            for i in 0..nu {
                let hem = hem_binding(rig, layout.render_u(i));
                let entries: Vec<(u16, f32)> = (m.binding[row + i].iter())
                    .map(|&(j, w)| (j, w * (1.0 - share)))
                    .chain(hem.iter().map(|&(j, w)| (j, w * share)))
                    .collect();
                m.binding[row + i] = mix_bindings(&entries);
            }
        }
    }
}

/// The rows the skirt's leg lines hold ([`LEG_LINE_ROWS`], [`OVER_LEGS_ROWS`]).
const SKIRT_LEG_ROWS: LegRows = LegRows {
    push_from: LEG_LINE_ROWS,
    lift_from: OVER_LEGS_ROWS,
};

/// The skirt on one character: its rig, what it collides with, its legs, and the state of its
/// pass after the cloth's step.
#[derive(Clone, Debug)]
pub struct Skirt {
    rig: GarmentRig,
    body: Body,
    legs: LegBones,
    /// The leg lines this step.
    lines: LegLines,
    /// Whether the skirt keeps out of the legs with its leg lines (on unless a test or a
    /// comparison turns them off).
    lines_on: bool,
}

impl Skirt {
    /// The skirt on `character` in `layout` ([`layout`] fits one).
    pub fn new(character: &Character, layout: &GridLayout) -> Result<Self, GarmentError> {
        GarmentRig::check_layout(layout)?;
        let model = rest_model(character);
        let rings = rest_rings(character, layout, &model);
        let rest = ring_rest(layout, &rings);
        let rig = GarmentRig::new(character, &model, layout, (rest, &rings), &[], &SkirtCut)?;
        let legs = LegBones::of(character, &model);
        Ok(Self {
            lines: legs.pose(&model, SKIRT_LEG_ROWS),
            rig,
            body: Body::torso_and_legs(character),
            legs,
            lines_on: true,
        })
    }

    /// The leg lines this step, whether or not they are on.
    pub fn lines(&self) -> LegLines {
        self.lines
    }

    /// Turns the leg lines on or off (on by default): off, the hem is held out of the legs by
    /// the collision alone.
    pub fn set_leg_lines(&mut self, on: bool) {
        self.lines_on = on;
    }
}

impl Garment for Skirt {
    fn template(&self) -> Option<Template> {
        Some(Template::Skirt)
    }

    fn rig(&self) -> &GarmentRig {
        &self.rig
    }

    fn body(&self) -> &Body {
        &self.body
    }

    fn pose(&mut self, posed: &Posed, frame: &mut RigFrame, references: &mut [Vec3]) {
        self.rig.pose(posed.model, &[], frame);
        self.rig.references(frame, references);
        self.lines = self.legs.pose(posed.model, SKIRT_LEG_ROWS);
    }

    fn held_over_legs(&self) -> Option<&LegLines> {
        Some(&self.lines)
    }

    fn leg_lines(&self) -> Option<&LegLines> {
        self.lines_on.then_some(&self.lines)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}
