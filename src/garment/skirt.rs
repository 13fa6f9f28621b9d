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
//! artist's long garments), and the hem
//! smoothed for drawing.

use std::any::Any;

use glam::{Mat4, Vec3};

use super::layout::{landmarks, surface_samples, torso_rings, GridLayout, Ring, BUILTIN_LANDMARKS};
use super::legs::LegBones;
use super::rig::{
    add_shells, rest_model, ring_rest, Binding, GarmentRig, RenderMesh, RestSkin, RigFrame, Tailor,
};
use super::{Body, Garment, GarmentError, Posed};
use crate::character::{Character, PosedEllipsoid, Role};
use crate::preset::Garment as Template;
use crate::sim::{Cloth, LegLines, LegRows};

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
        // Eight render columns a grid column: on a round hem the spline turns under 3
        // degrees a segment ([`smooth_hem`]).
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

    /// The tube alone: its waistband is the top row.
    fn add_parts(&self, rig: &GarmentRig, rings: &[Ring], _skin: &RestSkin, m: &mut RenderMesh) {
        add_shells(rig, rings, self, m);
    }
}

/// The rows the skirt's leg lines hold ([`LEG_LINE_ROWS`], [`OVER_LEGS_ROWS`]).
const SKIRT_LEG_ROWS: LegRows = LegRows {
    push_from: LEG_LINE_ROWS,
    lift_from: OVER_LEGS_ROWS,
};

/// A point on the closed centripetal Catmull-Rom spline through `loop_pts` (the last joined
/// back to the first) at parameter `u` (point `k` at `u = k`): through every point, with a
/// tangent continuous between them. Centripetal (knots spaced by the square root of the
/// distance between points): where a stride bunches two hem particles together beside a
/// long segment, the uniform spline overshoots into a kink or a loop, this one does not.
pub fn catmull_rom_loop(loop_pts: &[Vec3], u: f32) -> Vec3 {
    let n = loop_pts.len() as i64;
    let k = u.floor();
    let s = u - k;
    let at = |d: i64| loop_pts[(k as i64 + d).rem_euclid(n) as usize];
    let (p0, p1, p2, p3) = (at(-1), at(0), at(1), at(2));
    // Knot steps; a floor keeps coincident points from dividing by zero.
    let step = |a: Vec3, b: Vec3| a.distance(b).sqrt().max(1e-4);
    let t1 = step(p0, p1);
    let t2 = t1 + step(p1, p2);
    let t3 = t2 + step(p2, p3);
    let t = t1 + (t2 - t1) * s;
    // Barry and Goldman's pyramid: lerps between the points at the knots, then between those.
    let mix = |a: Vec3, b: Vec3, ta: f32, tb: f32| a + (b - a) * ((t - ta) / (tb - ta));
    let a1 = mix(p0, p1, 0.0, t1);
    let a2 = mix(p1, p2, t1, t2);
    let a3 = mix(p2, p3, t2, t3);
    let b1 = mix(a1, a2, 0.0, t2);
    let b2 = mix(a2, a3, t1, t3);
    mix(b1, b2, t1, t2)
}

/// Laplacian passes over the hem ring before the spline: a simulated hem of 16 particles
/// turns up to 60-100 degrees at a particle on a stride, which a spline through the
/// particles only spreads over a few drawn segments. Three passes round such a corner over
/// its neighbours too.
const HEM_SMOOTHING_PASSES: usize = 3;

/// The share of the way to its neighbours' midpoint a hem point moves in one pass (0.5: the
/// plain Laplacian step that does not overshoot).
const HEM_SMOOTHING_STEP: f32 = 0.5;

/// `ring` (the hem particles, a closed loop) smoothed for drawing into `out` (resized once):
/// `HEM_SMOOTHING_PASSES` Laplacian passes, each point kept within `limit` of its particle
/// so the drawn hem stays on the simulated one (the skirt keeps it within the fabric's
/// thickness: a hem drawn further off would leave the particles the leg lines and the
/// collisions placed).
pub fn smooth_ring(ring: &[Vec3], limit: f32, out: &mut Vec<Vec3>) {
    out.clear();
    out.extend_from_slice(ring);
    let n = ring.len();
    if n < 3 {
        return;
    }
    for _ in 0..HEM_SMOOTHING_PASSES {
        // In place, keeping the point before this one as it was before the pass (a Jacobi
        // pass: the result does not depend on where around the loop it starts).
        let first = out[0];
        let mut before = out[n - 1];
        for k in 0..n {
            let here = out[k];
            let after = if k + 1 < n { out[k + 1] } else { first };
            let moved = here.lerp((before + after) * 0.5, HEM_SMOOTHING_STEP);
            let off = moved - ring[k];
            out[k] = ring[k] + off.clamp_length_max(limit);
            before = here;
        }
    }
}

/// The smooth hem of "Cloth Physics in K.I.S.A": the drawn skirt's hem (render row `nv - 1` of both shells, `nu`
/// vertices around each) follows the Catmull-Rom spline through the hem particles
/// (`hem`, one row of the grid; its last is the welded seam, the same as its first) smoothed
/// by [`smooth_ring`] within the fabric's `thickness` of them (into `ring`, a buffer kept
/// between frames), half the `thickness` outside and inside it; the render rows of the last
/// simulation row above it (`rows_per_sim` of them) take a share of the same move that grows
/// toward the hem, so the skinned sheet bends into it. `cols_per_sim` render columns span a
/// grid column.
fn smooth_hem(
    hem: &[Vec3],
    (nu, nv): (usize, usize),
    (cols_per_sim, rows_per_sim): (usize, usize),
    thickness: f32,
    ring: &mut Vec<Vec3>,
    pos: &mut [Vec3],
    nrm: &[Vec3],
) {
    smooth_ring(&hem[..hem.len() - 1], thickness, ring);
    let half = thickness * 0.5;
    for shell in 0..2 {
        let base = shell * nu * nv;
        for i in 0..nu {
            let h = base + (nv - 1) * nu + i;
            let u = i as f32 / cols_per_sim as f32;
            // Each shell's normals face away from the other (the inner one's inward).
            let want = catmull_rom_loop(ring, u) + nrm[h] * half;
            let delta = want - pos[h];
            for s in 0..=rows_per_sim.min(nv - 1) {
                let share = 1.0 - s as f32 / rows_per_sim as f32;
                pos[h - s * nu] += delta * share;
            }
        }
    }
}

/// The skirt's reference points keep its [`REFERENCE_SPAN`](super::REFERENCE_SPAN) closer: a
/// knee rising under the front of the skirt pushes one reference of the hem ahead of the
/// thigh. With the jackets' span its neighbours' spheres stay round the thigh's sides and a run
/// holds the link between them far over rest; at 1.2 they come over the thigh with it. Closer
/// still (1.1, 1.0) draws the spheres so close that a jump's stretch grows.
const SKIRT_REFERENCE_SPAN: f32 = 1.2;

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
    /// The hem smoothed for drawing (scratch, sized once).
    hem_ring: Vec<Vec3>,
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
            hem_ring: Vec::new(),
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

    fn reference_span(&self) -> f32 {
        SKIRT_REFERENCE_SPAN
    }

    fn pose(&mut self, posed: &Posed, frame: &mut RigFrame, references: &mut [Vec3]) {
        self.rig.pose(posed.model, &[], frame);
        self.rig.references(frame, references);
        self.lines = self.legs.pose(posed.model, SKIRT_LEG_ROWS);
    }

    /// The lower rows keep their references out of the leg lines too, so the max distance
    /// sphere is centred where the leg lines let the cloth be.
    fn keep_references(&self, references: &mut [Vec3]) {
        self.lines
            .push_references(self.rig.topology.cols, references);
    }

    fn leg_lines(&self) -> Option<&LegLines> {
        self.lines_on.then_some(&self.lines)
    }

    fn skin(&mut self, frame: &RigFrame, cloth: &Cloth, pos: &mut Vec<Vec3>, nrm: &mut Vec<Vec3>) {
        self.rig.skin_render(frame, pos, nrm);
        let (l, topo) = (&self.rig.layout, cloth.topology());
        smooth_hem(
            &cloth.positions()[topo.hem()],
            l.render_grid(),
            (l.render_cols_per_sim, l.render_rows_per_sim),
            l.thickness,
            &mut self.hem_ring,
            pos,
            nrm,
        );
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}
