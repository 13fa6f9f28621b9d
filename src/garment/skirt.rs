//! The skirt (the skirt of "Cloth Physics in K.I.S.A", simulated with the jacket's system): the same grid,
//! bones and skinned render sheet as the lower jacket, hung from the waist instead of the
//! chest and closed all round. Its rows are rings fitted around the hips and the legs like the
//! jacket's; its first and last columns sit on the same seam at the back and are welded
//! together after every step, so the tube has no opening. The top row is pinned to the
//! pelvis.
//!
//! After the other constraints the skirt's lower rows keep out of the legs with the article's
//! leg lines ([`LegLines`]): capsules a little wider than the legs along the hip-knee and
//! knee-ankle segments, and the web between the two legs, so the hem never hangs between the
//! legs.

use std::any::Any;

use glam::{Mat4, Vec3};

use super::layout::{
    landmarks, skin_of, surface_samples, torso_rings, GridLayout, Ring, BUILTIN_LANDMARKS,
};
use super::rig::{
    add_shells, closest_on_segment, distance_to_segment, rest_model, ring_rest, Binding,
    GarmentRig, RenderMesh, RestSkin, RigFrame, Tailor,
};
use super::{Body, Garment, GarmentError, Posed};
use crate::character::{BodyAxis, Character, PosedEllipsoid, Role};
use crate::preset::Garment as Template;
use crate::sim::{
    closest_between_segments, hold_row_sideways, surely_beyond, swing_clear, Cloth, Collider,
    ConstraintKind, Topology,
};

/// The smallest ring of a skirt's row (half width, front, back, metres on the built-in body).
const RING_FLOOR: Vec3 = Vec3::new(0.1, 0.07, 0.07);

/// How far above the knee joint the hem hangs at rest, metres on the built-in body.
const HEM_ABOVE_KNEES: f32 = 0.03;

/// The hem's size over the widest row's (a flared skirt): a stride spreads the knees, and a
/// raised thigh lifts the front over it, further than a straight tube around the hips goes
/// round, and the rows cannot stretch to follow. With the rows lifted over the legs whole
/// ([`Hold::lift_links`]), [`BODY_EASE`] and [`OVER_LEGS_ROWS`], this flare is the smallest
/// that keeps the sprint stop's, jump's and dodge's rows within 9 % with the shipped knobs,
/// and with the damping +20 %, the hem's max distance +12 % or the world motion +50 %.
const HEM_FLARE: f32 = 1.9;

/// The leg lines' radius over the leg's own (its skin's distance from the bone line): a little
/// wider, so the hem clears the leg rather than grazing it.
const LEG_LINE_GROWTH: f32 = 1.15;

/// How far past the leg lines' radius a push takes a point (a share of the radius).
const PUSH_PAST: f32 = 1.02;

/// How far up the skirt the leg lines reach: the rows from this fraction of the way down to
/// the hem (the rows above lie on the hips, where the collision already holds them).
const LEG_LINE_ROWS: f32 = 0.5;

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

    /// The tube alone: its waistband is the top row.
    fn add_parts(&self, rig: &GarmentRig, rings: &[Ring], _skin: &RestSkin, m: &mut RenderMesh) {
        add_shells(rig, rings, self, m);
    }
}

/// The article's leg lines for one pose: per leg the hip, knee and ankle joints (character
/// space) and a radius a little larger than the leg.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LegLines {
    /// How far from the lines the cloth is kept, metres.
    radius: f32,
    /// The skirt's axis. Reference points leave the legs away from it
    /// (`LegLines::push_references`), and a link the legs' line runs through is lifted away
    /// from it ([`LegLines::link_depth`]).
    axis: BodyAxis,
    /// The four segments (the left leg's hip-knee and knee-ankle, then the right's), with
    /// what every test of them needs, worked out once a pose.
    segments: [Segment; 4],
}

/// One leg segment from `a` to `b`: its direction (unit, or zero where it has no length),
/// its midpoint and half its length.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Segment {
    a: Vec3,
    b: Vec3,
    axis: Vec3,
    mid: Vec3,
    half: f32,
}

impl Segment {
    fn new(a: Vec3, b: Vec3) -> Self {
        Self {
            a,
            b,
            axis: (b - a).normalize_or_zero(),
            mid: (a + b) * 0.5,
            half: 0.5 * a.distance(b),
        }
    }

    /// Whether the ray from `p` along `way` surely stays clear of the capsule of `radius`
    /// around the segment: `p` is outside the capsule's bounding sphere (with 10 um to spare)
    /// and the ray does not head toward its centre, so it only gets further from it.
    #[inline]
    fn surely_missed_by(&self, p: Vec3, way: Vec3, radius: f32) -> bool {
        let to_mid = self.mid - p;
        let bound = self.half + radius + 1e-5;
        to_mid.length_squared() > bound * bound && to_mid.dot(way) <= 0.0
    }

    /// Whether `p` is surely further than `reach` from the segment: further than that from
    /// its bounding sphere, with 10 um to spare for rounding (so the exact test, from the
    /// segment's nearest point, would say so too).
    #[inline]
    fn surely_beyond(&self, p: Vec3, reach: f32) -> bool {
        let bound = self.half + reach + 1e-5;
        p.distance_squared(self.mid) > bound * bound
    }
}

/// What the rig needs to pose the leg lines: the hip, knee and ankle bones of each leg and
/// the radius.
#[derive(Clone, Copy, Debug)]
struct LegBones {
    bones: [[usize; 3]; 2],
    pelvis: usize,
    radius: f32,
}

impl LegBones {
    /// The legs of `character`: the ankle is the shin's first child (the foot); a shin with
    /// none ends as far below the knee as the knee is below the hip. The radius is the thighs'
    /// skin's largest distance from the hip-knee line at rest (ignoring the few farthest
    /// vertices, the buttocks' and the groin's), grown by [`LEG_LINE_GROWTH`].
    fn of(character: &Character, model: &[Mat4]) -> Self {
        let roles = &character.roles;
        let sk = &character.skeleton;
        let leg = |thigh: Role, shin: Role| {
            let (t, s) = (roles.bone(thigh), roles.bone(shin));
            let foot = (0..sk.len()).find(|&b| sk.parent(b) == Some(s));
            [t, s, foot.unwrap_or(usize::MAX)]
        };
        let bones = [
            leg(Role::ThighL, Role::ShinL),
            leg(Role::ThighR, Role::ShinR),
        ];
        let mut radius = 0f32;
        for (side, role) in [Role::ThighL, Role::ThighR].into_iter().enumerate() {
            let [hip, knee, _] = joints(&bones[side], model);
            let mut d: Vec<f32> = skin_of(character, model, |r| r == role)
                .iter()
                .map(|p| distance_to_segment(*p, hip, knee))
                .collect();
            d.sort_by(f32::total_cmp);
            if let Some(&q) = d.get(d.len() * 9 / 10) {
                radius = radius.max(q);
            }
        }
        let fallback = 0.07 * model_scale(&bones[0], model);
        let radius = if radius > 0.0 { radius } else { fallback };
        Self {
            bones,
            pelvis: roles.bone(Role::Pelvis),
            radius: radius * LEG_LINE_GROWTH,
        }
    }

    /// The leg lines in the pose `model`.
    fn pose(&self, model: &[Mat4]) -> LegLines {
        LegLines::new(
            [joints(&self.bones[0], model), joints(&self.bones[1], model)],
            self.radius,
            BodyAxis::of_pelvis(model[self.pelvis]),
        )
    }
}

/// Hip, knee and ankle of one leg in the pose `model` ([`LegBones::of`]).
fn joints(bones: &[usize; 3], model: &[Mat4]) -> [Vec3; 3] {
    let at = |b: usize| model[b].w_axis.truncate();
    let (hip, knee) = (at(bones[0]), at(bones[1]));
    let ankle = if bones[2] == usize::MAX {
        knee + (knee - hip)
    } else {
        at(bones[2])
    };
    [hip, knee, ankle]
}

/// The hip-knee length: the fallback radius's measure when the thigh has no skin.
fn model_scale(bones: &[usize; 3], model: &[Mat4]) -> f32 {
    let [hip, knee, _] = joints(bones, model);
    hip.distance(knee) / 0.45
}

impl LegLines {
    /// Leg lines through `joints` (hip, knee and ankle of the left leg, then of the right),
    /// keeping the cloth `radius` from them, for a skirt around `axis`.
    pub fn new(joints: [[Vec3; 3]; 2], radius: f32, axis: BodyAxis) -> Self {
        let [[h0, k0, a0], [h1, k1, a1]] = joints;
        Self {
            radius,
            axis,
            segments: [
                Segment::new(h0, k0),
                Segment::new(k0, a0),
                Segment::new(h1, k1),
                Segment::new(k1, a1),
            ],
        }
    }

    /// Hip, knee and ankle of the left leg, then of the right.
    pub fn joints(&self) -> [[Vec3; 3]; 2] {
        [0, 1].map(|side| {
            let (thigh, shin) = self.leg(side);
            [thigh.a, thigh.b, shin.b]
        })
    }

    /// One leg's segments (0 left, 1 right): hip-knee and knee-ankle.
    fn leg(&self, side: usize) -> (&Segment, &Segment) {
        (&self.segments[2 * side], &self.segments[2 * side + 1])
    }

    /// How far from the lines the cloth is kept, metres.
    pub fn radius(&self) -> f32 {
        self.radius
    }

    /// Where one leg's line crosses height `y`: on the hip-knee segment above the knee, the
    /// knee-ankle one below (clamped to the ends).
    pub fn at_height(&self, side: usize, y: f32) -> Vec3 {
        let (thigh, shin) = self.leg(side);
        let seg = if y >= thigh.b.y { thigh } else { shin };
        let (a, b) = (seg.a, seg.b);
        let dy = b.y - a.y;
        let t = if dy.abs() < 1e-6 {
            0.0
        } else {
            ((y - a.y) / dy).clamp(0.0, 1.0)
        };
        a.lerp(b, t)
    }

    /// Whether `p` is between the legs as one sees it: seen from above at `p`'s height, it
    /// lies in the gap between the two legs (on the segment joining the two leg lines, past
    /// both legs' radius from their lines), within the lines' radius of that segment.
    pub fn between(&self, p: Vec3) -> bool {
        self.across(p).is_some()
    }

    /// The horizontal push that takes `p` out of the strip between the legs ([`Self::between`])
    /// to the side of it that `p` is on, or `None` where it is not between the legs.
    pub fn across(&self, p: Vec3) -> Option<Vec3> {
        let flat = |v: Vec3| Vec3::new(v.x, 0.0, v.z);
        let (l, r) = (flat(self.at_height(0, p.y)), flat(self.at_height(1, p.y)));
        let q = flat(p);
        let lr = r - l;
        let len2 = lr.length_squared();
        if len2 < 1e-8 {
            return None;
        }
        // Only the gap between the legs' capsules: beside a leg the capsule holds the cloth.
        let t = (q - l).dot(lr) / len2;
        let end = self.radius / len2.sqrt();
        if !(end..=1.0 - end).contains(&t) {
            return None;
        }
        let off = q - (l + lr * t);
        let d = off.length();
        if d >= self.radius {
            return None;
        }
        // On the strip's line itself: out to the front (+z), where the skirt's front hangs.
        let side = Vec3::new(-lr.z, 0.0, lr.x).normalize();
        let dir = if d > 1e-6 {
            off / d
        } else if side.z >= 0.0 {
            side
        } else {
            -side
        };
        // A little past the edge: the swing back to rest length pulls the point back a
        // little.
        Some(dir * (self.radius * PUSH_PAST - d))
    }

    /// Pushes `p` out of both legs' capsules (hip-knee and knee-ankle, of the lines' radius)
    /// to the nearest surface, and out of the strip between them.
    pub fn push_out(&self, p: Vec3) -> Vec3 {
        let mut p = p;
        for seg in &self.segments {
            let c = closest_on_segment(p, seg.a, seg.b);
            let d = p.distance(c);
            if d < self.radius && d > 1e-6 {
                p = c + (p - c) * (self.radius * PUSH_PAST / d);
            }
        }
        self.out_of_gap(p)
    }

    /// How deep the straight link from `p` to `q` cuts into the legs' capsules at its deepest,
    /// and the way out: from the leg's line to the link's nearest point (where the line runs
    /// through the link, away from the skirt's axis and up, as the reference points leave
    /// them). `None` where it cuts none.
    pub fn link_depth(&self, p: Vec3, q: Vec3) -> Option<(f32, Vec3)> {
        let mut deepest: Option<(f32, Vec3)> = None;
        let (mid, half) = ((p + q) * 0.5, p.distance(q) * 0.5);
        let reach = self.radius + half;
        for seg in &self.segments {
            let (a, b) = (seg.a, seg.b);
            // Most links are far from most of the legs: the segment's bounding sphere rules
            // them out, or a point's distance, its square alone where that settles it.
            if seg.surely_beyond(mid, reach) {
                continue;
            }
            let c = closest_on_segment(mid, a, b);
            if surely_beyond(mid, c, reach) || mid.distance(c) >= reach {
                continue;
            }
            let (on_link, on_leg) = closest_between_segments(p, q, a, b);
            let off = on_link - on_leg;
            let d = off.length();
            if d >= self.radius || deepest.is_some_and(|(k, _)| k >= self.radius - d) {
                continue;
            }
            let out = if d > 1e-5 {
                off / d
            } else {
                let up = self.axis.up;
                square_to(self.over(on_link), seg.axis).normalize_or(up)
            };
            deepest = Some((self.radius * PUSH_PAST - d, out));
        }
        deepest
    }

    /// `p` out of the strip between the legs ([`Self::across`]).
    fn out_of_gap(&self, p: Vec3) -> Vec3 {
        match self.across(p) {
            Some(push) => p + push,
            None => p,
        }
    }

    /// Pushes the references of the skirt's lower rows (`cols` a row) out of the legs and
    /// from between them ([`Self::push_reference`]).
    fn push_references(&self, cols: usize, reference: &mut [Vec3]) {
        let rows = reference.len() / cols;
        for (i, r) in reference.iter_mut().enumerate() {
            *r = self.push_reference(i / cols, rows, *r);
        }
    }

    /// A reference point `p` on row `r` of `rows`: on the rows that go over the legs
    /// ([`OVER_LEGS_ROWS`]), pushed out of the legs away from the skirt's axis
    /// ([`Self::push_outward`]) and from between them.
    fn push_reference(&self, r: usize, rows: usize, p: Vec3) -> Vec3 {
        if !over_legs(r, rows) {
            return p;
        }
        self.out_of_gap(self.push_outward(p))
    }

    /// The way over the legs from `p`: the skirt's outward direction there and up together
    /// (turned square to a leg, the way out of it; [`Self::push_outward`]).
    fn over(&self, p: Vec3) -> Vec3 {
        self.axis.outward(p) + self.axis.up
    }

    /// `p` moved out past every leg segment (hip-knee, knee-ankle; of the lines' radius) that
    /// it is inside or that lies further out on its way out: along [`Self::over`], turned
    /// square to the segment. The skirt goes round
    /// the outside of the legs and hangs over them, so a thigh raised under its front leaves
    /// the reference over and in front of it rather than under it, and two neighbours on
    /// either side of the thigh's line go the same way (pushed to their nearest surface,
    /// they went to its two sides, a thigh's width apart, and their links tore across it).
    /// A leg hanging straight down is pushed along `out` alone.
    fn push_outward(&self, p: Vec3) -> Vec3 {
        let radius = self.radius * PUSH_PAST;
        let over = self.over(p);
        let mut p = p;
        // Leaving one segment can put the point in the other at the knee: a few rounds.
        for _ in 0..4 {
            let mut moved = false;
            for seg in &self.segments {
                if let Some(q) = exit_square_to(p, over, seg, radius) {
                    p = q;
                    moved = true;
                }
            }
            if !moved {
                break;
            }
        }
        p
    }

    /// Whether row `r` of `rows` is one the leg lines hold ([`LEG_LINE_ROWS`]).
    fn push_row(&self, r: usize, rows: usize) -> bool {
        r as f32 >= (rows - 1) as f32 * LEG_LINE_ROWS
    }
}

/// How far below the deformation limit the skirt's sideways hold pulls an over-long row link,
/// as a share of how far over it was (`sideways_share`, the hard pass's rule: overshooting
/// settles a row held at one end by a leg in far fewer passes). Less than the hard pass's 1:
/// pulled only to the limit (0), the walk's hem stays over 10 % long; pulled as far below as
/// over (1), neighbours are drawn so close that the hem's corners are sharper than the drawn
/// spline can round within the fabric's thickness (rig_skirt's drawn-hem check), and at 0.75
/// a particle ends inside the body on an imported character's sprint stop.
const SIDEWAYS_OVERSHOOT: f32 = 0.6;

/// How far up the skirt its rows go over the legs: from this fraction of the way down to the
/// hem, their links are lifted over a leg whole ([`Hold::lift_links`]) and their reference
/// points pushed out over it ([`LegLines::push_reference`]). Higher than the leg lines' own
/// rows ([`LEG_LINE_ROWS`]): a thigh raised to a sprint's stride lifts the rows just under the
/// hips too, so those rows, and their reference points, must go over the thigh as well or
/// they stretch far at the stride's peak.
const OVER_LEGS_ROWS: f32 = 0.3;

/// Whether row `r` of `rows` goes over the legs ([`OVER_LEGS_ROWS`]).
fn over_legs(r: usize, rows: usize) -> bool {
    r as f32 >= (rows - 1) as f32 * OVER_LEGS_ROWS
}

/// How many times [`Hold::lift_links`] goes along a row: lifting one link can push its
/// neighbour's end into the leg.
const LIFT_ROUNDS: usize = 4;

/// What the skirt's pass after the step holds its particles to: per particle the vertical
/// link's rest length into it from above (0 on the top row), the horizontal link's to its
/// right neighbour (0 on the last column) and its reference point (the centre of its max
/// distance sphere), and outside the body.
pub struct Hold<'a> {
    pub rest: &'a [f32],
    pub across: &'a [f32],
    pub reference: &'a [Vec3],
    /// The body's colliders and the margin kept from them.
    pub body: &'a [Collider],
    pub margin: f32,
    /// The deformation limit's stretch ratio when it is on: each row's horizontal links are
    /// held to it as the hard pass holds them ([`after_step`]).
    pub sideways: Option<f32>,
}

/// The skirt's pass after the cloth's step (after its hard pass), row by row from the top:
/// welds the row's seam (`weld_pair`); puts each particle whose upper neighbour moved back
/// at its rest length from it, outside the body; with `lines`, pushes the lower rows out of
/// the legs and from between them ([`LegLines::push_out`]); then, with the deformation limit
/// on, pulls the row's links longer than the limit together along the same spheres. So the
/// vertical links stay hard, every particle outside the body and within its max distance
/// (`md`) of its reference, and neither the weld nor the leg lines leave a row's neighbours
/// pulled apart (the hard pass holds the rows before the weld and the leg lines move them,
/// so the rows are held again here). `moved` is scratch, a flag per column (resized once).
pub fn after_step(
    lines: Option<&LegLines>,
    topo: &Topology,
    md: &[f32],
    hold: &Hold,
    pos: &mut [Vec3],
    prev: &mut [Vec3],
    moved: &mut Vec<bool>,
) {
    let (cols, rows) = (topo.cols, topo.rows);
    moved.clear();
    moved.resize(cols, false);
    let row_lines = |r: usize| lines.filter(|l| l.push_row(r, rows));
    for r in 1..rows {
        let first = r * cols;
        if !(topo.pinned[first] || topo.pinned[first + cols - 1]) {
            weld_pair(first, first + cols - 1, pos, prev);
            // The welded seam moved.
            moved[0] = true;
            moved[cols - 1] = true;
        }
        for (c, moved) in moved.iter_mut().enumerate() {
            let i = first + c;
            if topo.pinned[i] {
                *moved = false;
                continue;
            }
            let (p, pushed, _) = hold.place(i, pos[i - cols], pos[i], *moved, row_lines(r), md);
            *moved |= pushed;
            pos[i] = p;
        }
        // The seam's ends are one particle (the same inputs place them alike; this keeps it so).
        if moved[0] {
            pos[first + cols - 1] = pos[first];
        }
        if let Some(lines) = lines.filter(|_| over_legs(r, rows)) {
            hold.lift_links(topo, r, lines, md, pos, moved);
        }
        if let Some(ratio) = hold.sideways {
            hold.limit_row(topo, r, ratio, row_lines(r), md, pos, moved);
        }
    }
}

/// Welds the skirt's seam on one row: the first and last columns start at the same place and
/// carry no link between them, so after each step both take their mean, position and previous
/// position (so the seam keeps one velocity).
fn weld_pair(first: usize, last: usize, pos: &mut [Vec3], prev: &mut [Vec3]) {
    for v in [&mut *pos, &mut *prev] {
        let mid = (v[first] + v[last]) * 0.5;
        v[first] = mid;
        v[last] = mid;
    }
}

/// Puts particle `k` of row `r` at `p` and marks its column in `moved`; the seam's two ends
/// (the row's first and last columns, unless pinned) are one particle and move together.
fn set_seam_aware(
    topo: &Topology,
    r: usize,
    k: usize,
    p: Vec3,
    pos: &mut [Vec3],
    moved: &mut [bool],
) {
    let (cols, first) = (topo.cols, r * topo.cols);
    let last = first + cols - 1;
    let seam = !(topo.pinned[first] || topo.pinned[last]);
    let twin = match k {
        _ if !seam => k,
        k if k == first => last,
        k if k == last => first,
        _ => k,
    };
    for k in [k, twin] {
        pos[k] = p;
        moved[k - first] = true;
    }
}

impl Hold<'_> {
    /// Where particle `i` (hanging from `above`, now at `p`) goes: with `swing`, onto its rest
    /// length sphere around `above` and swung round the body where that is inside; with
    /// `lines`, out of the legs and from between them, swung back onto the sphere after each
    /// push; then, where it moved, back within its max distance on the same sphere. Returns
    /// the point, whether it moved and whether the last swing left it clear of the body.
    fn place(
        &self,
        i: usize,
        above: Vec3,
        p: Vec3,
        swing: bool,
        lines: Option<&LegLines>,
        md: &[f32],
    ) -> (Vec3, bool, bool) {
        let rest = self.rest[i];
        let onto = |p: Vec3| above + (p - above).normalize_or(Vec3::NEG_Y) * rest;
        // On the rest length sphere, swung round the body where it would be inside.
        let clear = |p: Vec3| swing_clear(self.body, self.margin, above, rest, onto(p), None, 4);
        let (mut p, mut clear_of_body) = (p, true);
        let mut moved = swing;
        if swing {
            (p, clear_of_body) = clear(p);
        }
        if let Some(lines) = lines {
            // The swing can bring the point back in: push and swing a few times.
            for _ in 0..8 {
                let pushed = lines.push_out(p);
                if pushed == p {
                    break;
                }
                moved = true;
                (p, clear_of_body) = clear(pushed);
                // Still between the legs: the swing pulled it back along the line to the
                // particle above. Turn it on its sphere far enough across instead.
                if let Some(push) = lines.across(p) {
                    (p, clear_of_body) = clear(turn_across(above, rest, p, push));
                }
            }
        }
        if moved {
            // Back inside the max distance, the nearest point of its sphere on the rest
            // length sphere round the particle above.
            let (centre, radius) = (self.reference[i], md[i]);
            if p.distance(centre) > radius {
                p = on_both_spheres(p, (above, rest), (centre, radius))
                    .unwrap_or_else(|| onto(centre));
            }
        }
        (p, moved, clear_of_body)
    }

    /// Particle `k` moved toward `target` as [`Hold::place`] swings it (on its rest-length
    /// sphere round the particle above, out of the legs with `lines`, within its max
    /// distance), or `None` where it is pinned or ends in the body: the swing did not clear
    /// it, or the max distance step after the swing took it back in.
    fn place_clear(
        &self,
        topo: &Topology,
        k: usize,
        target: Vec3,
        lines: Option<&LegLines>,
        md: &[f32],
        pos: &[Vec3],
    ) -> Option<Vec3> {
        if topo.pinned[k] {
            return None;
        }
        let (p, _, clear) = self.place(k, pos[k - topo.cols], target, true, lines, md);
        let inside = self.body.iter().any(|b| b.penetration(p, 0.0) > 0.0);
        (clear && !inside).then_some(p)
    }

    /// Row `r`'s links that cut through a leg's capsule lifted out of it whole: both ends
    /// moved the same way ([`LegLines::link_depth`]), each only as [`Hold::place`] lets it,
    /// kept where the link then cuts less deep. Pushed out of the legs one by one, a link's
    /// two ends went to the two sides of a thigh rising between them, a thigh's width apart,
    /// and the rows tore open around it; lifted whole, the row goes over the thigh.
    #[allow(clippy::too_many_arguments)]
    fn lift_links(
        &self,
        topo: &Topology,
        r: usize,
        lines: &LegLines,
        md: &[f32],
        pos: &mut [Vec3],
        moved: &mut [bool],
    ) {
        let cols = topo.cols;
        let first = r * cols;
        for _ in 0..LIFT_ROUNDS {
            let mut lifted = false;
            for c in 0..cols - 1 {
                let (i, j) = (first + c, first + c + 1);
                if self.across[i] <= 0.0 {
                    continue;
                }
                let Some((depth, out)) = lines.link_depth(pos[i], pos[j]) else {
                    continue;
                };
                let end = |k: usize| {
                    let target = pos[k] + out * depth;
                    self.place_clear(topo, k, target, Some(lines), md, pos)
                        .unwrap_or(pos[k])
                };
                let (pi, pj) = (end(i), end(j));
                let after = lines.link_depth(pi, pj).map_or(0.0, |(d, _)| d);
                if after >= depth {
                    continue;
                }
                for (k, p) in [(i, pi), (j, pj)] {
                    if p != pos[k] {
                        set_seam_aware(topo, r, k, p, pos, moved);
                    }
                }
                lifted = true;
            }
            if !lifted {
                break;
            }
        }
    }

    /// Row `r`'s horizontal links longer than `ratio` x rest pulled together, past the limit
    /// by [`SIDEWAYS_OVERSHOOT`] of their excess by the hard pass's own loop
    /// ([`hold_row_sideways`]), half each end
    /// (the whole correction on one end where the other cannot move), each end moved only as
    /// [`Hold::place`] lets it (on its sphere, outside the body and the leg lines, within its
    /// max distance) and kept only where that brings it nearer the other end. The seam's two
    /// ends move as one. Marks in `moved` the columns it moved.
    #[allow(clippy::too_many_arguments)]
    fn limit_row(
        &self,
        topo: &Topology,
        r: usize,
        ratio: f32,
        lines: Option<&LegLines>,
        md: &[f32],
        pos: &mut [Vec3],
        moved: &mut [bool],
    ) {
        let cols = topo.cols;
        let first = r * cols;
        let link = |c: usize| {
            let rest = self.across[first + c];
            (rest > 0.0).then_some((first + c, first + c + 1, rest))
        };
        let move_end = |i: usize, target: Vec3, other: Vec3, pos: &mut [Vec3]| {
            // Kept only nearer the other end.
            match self.place_clear(topo, i, target, lines, md, pos) {
                Some(p) if p.distance(other) < pos[i].distance(other) => {
                    set_seam_aware(topo, r, i, p, pos, moved);
                    true
                }
                _ => false,
            }
        };
        hold_row_sideways(cols - 1, link, ratio, SIDEWAYS_OVERSHOOT, pos, move_end);
    }
}

/// `v` less its part along the unit direction `u` of a segment: square to it (`v` as it is
/// where `u` is zero, a segment with no length).
fn square_to(v: Vec3, u: Vec3) -> Vec3 {
    v - u * v.dot(u)
}

/// Where the ray from `p` along `toward` turned square to the segment `(a, b)` leaves the
/// capsule of `radius` around it, or `None` where the ray misses it or it lies behind `p`.
/// Square to the segment, the ray keeps its place along it, so the capsule's cross-section
/// it meets is one circle (round the segment's line, or round its nearer end beyond it).
fn exit_square_to(p: Vec3, toward: Vec3, seg: &Segment, radius: f32) -> Option<Vec3> {
    let (a, b) = (seg.a, seg.b);
    let way = square_to(toward, seg.axis);
    // Most points are outside the segment's bounding sphere and head away from it.
    if seg.surely_missed_by(p, way, radius) {
        return None;
    }
    let dir = way.normalize_or_zero();
    if dir == Vec3::ZERO {
        return None;
    }
    let q = p - closest_on_segment(p, a, b);
    let along = q.dot(dir);
    let disc = along * along - (q.length_squared() - radius * radius);
    if disc < 0.0 {
        return None;
    }
    let t = -along + disc.sqrt();
    (t > 0.0).then(|| p + dir * t)
}

/// `p`, on the sphere of radius `rest` around `above`, turned on that sphere (the least turn)
/// until it has moved `push` further along `push`'s direction (or as far as the sphere allows).
fn turn_across(above: Vec3, rest: f32, p: Vec3, push: Vec3) -> Vec3 {
    let n = push.normalize_or_zero();
    let u0 = (p - above).normalize_or(Vec3::NEG_Y);
    let k = (u0.dot(n) + push.length() / rest.max(1e-6)).min(1.0);
    let tangent = (u0 - n * u0.dot(n)).normalize_or_zero();
    above + (tangent * (1.0 - k * k).max(0.0).sqrt() + n * k) * rest
}

/// The point nearest `p` on the circle where the spheres `a` and `b` (centre, radius) meet,
/// or `None` where they do not.
fn on_both_spheres(p: Vec3, a: (Vec3, f32), b: (Vec3, f32)) -> Option<Vec3> {
    let ((ca, ra), (cb, rb)) = (a, b);
    let d = ca.distance(cb);
    if d < 1e-6 || d > ra + rb || d < (ra - rb).abs() {
        return None;
    }
    let e = (cb - ca) / d;
    let along = (ra * ra - rb * rb + d * d) / (2.0 * d);
    let centre = ca + e * along;
    let h = (ra * ra - along * along).max(0.0).sqrt();
    let off = p - centre;
    let w = (off - e * off.dot(e)).normalize_or(e.any_orthonormal_vector());
    Some(centre + w * h * 0.9999)
}

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
    /// Per particle, the rest length of the vertical link into it from above (0 on the top
    /// row) and of the horizontal link to its right (0 on the last column): what the pass
    /// after the step holds its columns and rows to.
    vertical_rest: Vec<f32>,
    across_rest: Vec<f32>,
    /// The pass's scratch: which columns it moved.
    moved: Vec<bool>,
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
        let n = rig.topology.len();
        let (mut vertical_rest, mut across_rest) = (vec![0.0; n], vec![0.0; n]);
        for l in &rig.topology.links {
            match l.kind {
                ConstraintKind::StretchVertical => vertical_rest[l.b as usize] = l.rest,
                ConstraintKind::StretchHorizontal => across_rest[l.a as usize] = l.rest,
                _ => {}
            }
        }
        let legs = LegBones::of(character, &model);
        Ok(Self {
            lines: legs.pose(&model),
            rig,
            body: Body::torso_and_legs(character),
            legs,
            lines_on: true,
            vertical_rest,
            across_rest,
            moved: Vec::new(),
            hem_ring: Vec::new(),
        })
    }

    /// The leg lines this step, whether or not they are on.
    pub fn leg_lines(&self) -> LegLines {
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
        self.lines = self.legs.pose(posed.model);
    }

    /// The lower rows keep their references out of the leg lines too, so the max distance
    /// sphere is centred where the leg lines let the cloth be.
    fn keep_references(&self, references: &mut [Vec3]) {
        self.lines
            .push_references(self.rig.topology.cols, references);
    }

    fn after_cloth(&mut self, cloth: &mut Cloth, references: &[Vec3], body: &[Collider]) {
        let lines = Some(self.lines).filter(|_| self.lines_on);
        let p = cloth.params();
        let hold = Hold {
            rest: &self.vertical_rest,
            across: &self.across_rest,
            reference: references,
            body,
            margin: p.collision_margin,
            sideways: p.deformation_limit.then_some(p.max_stretch_ratio),
        };
        let moved = &mut self.moved;
        cloth.adjust_positions(|topo, md, pos, prev| {
            after_step(lines.as_ref(), topo, md, &hold, pos, prev, moved)
        });
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Leg lines with the right thigh raised forward (knee 35 cm ahead of the hip, 20 cm
    /// lower) and the left leg hanging straight, around a pelvis at 0.9 m facing +z.
    fn raised_right_thigh() -> LegLines {
        LegLines::new(
            [
                [
                    Vec3::new(0.09, 0.85, 0.0),
                    Vec3::new(0.09, 0.45, 0.0),
                    Vec3::new(0.09, 0.05, 0.0),
                ],
                [
                    Vec3::new(-0.09, 0.85, 0.0),
                    Vec3::new(-0.09, 0.65, 0.35),
                    Vec3::new(-0.09, 0.25, 0.3),
                ],
            ],
            0.1,
            BodyAxis {
                centre: Vec3::new(0.0, 0.9, 0.0),
                up: Vec3::Y,
                forward: Vec3::Z,
            },
        )
    }

    /// The segment tests that let a link's depth and a reference's push pass a segment over
    /// only ever pass over what the exact tests would: a point `surely_beyond` is that far
    /// from the segment, and a ray `surely_missed_by` never comes within the capsule. Checked
    /// on points and rays around every segment of the raised thigh's lines, many of them
    /// grazing the bounds.
    #[test]
    fn a_segment_is_passed_over_only_where_the_exact_test_would_pass_it() {
        let lines = raised_right_thigh();
        let mut next = crate::sim::test_noise(0x2545_f491);
        let (mut beyond, mut missed) = (0, 0);
        for seg in &lines.segments {
            for _ in 0..20_000 {
                let scale = 0.1 + 0.5 * next().abs();
                let p = seg.mid + Vec3::new(next(), next(), next()) * scale;
                let reach = 0.05 + 0.1 * next().abs();
                if seg.surely_beyond(p, reach) {
                    beyond += 1;
                    assert!(distance_to_segment(p, seg.a, seg.b) >= reach, "{p}");
                }
                let way = Vec3::new(next(), next(), next());
                if seg.surely_missed_by(p, way, reach) {
                    missed += 1;
                    let clear = (0..=200).all(|k| {
                        let x = p + way.normalize() * (k as f32 * 0.01);
                        distance_to_segment(x, seg.a, seg.b) >= reach
                    });
                    assert!(clear, "ray from {p} along {way} meets the capsule");
                }
            }
        }
        // Both pass a good share over, or the test proves nothing.
        assert!(beyond > 10_000 && missed > 5_000, "{beyond} {missed}");
    }

    /// The distance from `p` to the right thigh's line.
    fn from_right_thigh(lines: &LegLines, p: Vec3) -> f32 {
        let [hip, knee, _] = lines.joints()[1];
        distance_to_segment(p, hip, knee)
    }

    #[test]
    fn references_under_a_raised_thigh_go_over_it_together() {
        let lines = raised_right_thigh();
        // Two neighbouring references under the thigh's line, one either side of it.
        let (a, b) = (Vec3::new(-0.05, 0.7, 0.2), Vec3::new(-0.13, 0.7, 0.2));
        let rows = 10;
        let (pa, pb) = (
            lines.push_reference(rows - 1, rows, a),
            lines.push_reference(rows - 1, rows, b),
        );
        for (before, after) in [(a, pa), (b, pb)] {
            assert!(
                from_right_thigh(&lines, after) >= lines.radius,
                "{before} -> {after} is still in the thigh"
            );
            // Over the thigh: above where its line passes at that depth.
            let line_y = 0.85 - 0.2 * after.z / 0.35;
            assert!(after.y > line_y, "{before} -> {after}: under the thigh");
        }
        assert!(
            pa.distance(pb) < 0.12,
            "neighbours parted: {pa} and {pb} (were {} apart)",
            a.distance(b)
        );
        // The rows above the leg lines' rows keep their references.
        assert_eq!(lines.push_reference(1, rows, a), a);
    }

    #[test]
    fn a_link_across_a_thigh_is_lifted_away_from_its_line() {
        let lines = raised_right_thigh();
        // Ends outside the thigh on either side, the link between them just above its line.
        let (p, q) = (Vec3::new(0.03, 0.77, 0.15), Vec3::new(-0.21, 0.77, 0.15));
        assert!(from_right_thigh(&lines, p) > lines.radius);
        assert!(from_right_thigh(&lines, q) > lines.radius);
        let (depth, out) = lines.link_depth(p, q).expect("the link cuts the thigh");
        assert!(depth > 0.05 && depth < lines.radius * PUSH_PAST, "{depth}");
        assert!(out.y > 0.5, "the way out is up over the thigh: {out}");
        // Moved that far that way, the link clears the thigh.
        let lifted = lines.link_depth(p + out * depth, q + out * depth);
        assert!(
            lifted.is_none_or(|(d, _)| d < 1e-3),
            "still in the thigh: {lifted:?}"
        );
        // A link beside the legs cuts nothing.
        let (p, q) = (Vec3::new(-0.35, 0.6, 0.0), Vec3::new(-0.35, 0.6, -0.1));
        assert_eq!(lines.link_depth(p, q), None);
    }
}
