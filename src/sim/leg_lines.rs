//! The leg lines of "Cloth Physics in K.I.S.A", as plain geometry: per leg the hip-knee and
//! knee-ankle segments with one radius a little larger than the leg (four capsules), the strip
//! between the two legs (the web), and the vertical axis the garment hangs around. A tube
//! hanging over the legs (a skirt) keeps its lower rows out of them in the row pass after each
//! solver step's hard pass ([`super::row_pass`]), and its reference points are pushed out of them the same way
//! before the step ([`LegLines::push_references`]), so the max-distance sphere is centred where
//! the cloth may be.
//!
//! The caller poses the lines every step from its skeleton (the hip, knee and ankle joints in
//! character space) and passes them in [`StepInput::leg_lines`](super::StepInput::leg_lines),
//! the way it passes the colliders; substeps see them interpolated as they see the colliders.

use glam::{Mat4, Vec3};

use super::cloth::surely_beyond;
use super::collision::{closest_between_segments, closest_on_segment};

/// How far past the leg lines' radius a push takes a point (a share of the radius).
const PUSH_PAST: f32 = 1.02;

/// A garment's vertical axis through the pelvis: the joint, its up and its forward direction
/// in a pose. Reference points and a skirt's rows leave the legs outward from it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BodyAxis {
    /// The pelvis joint, character space.
    pub centre: Vec3,
    /// The pelvis's up direction.
    pub up: Vec3,
    /// The pelvis's forward direction: outward for a point on the axis.
    pub forward: Vec3,
}

impl BodyAxis {
    /// The axis of the pelvis's model matrix `pelvis`.
    pub fn of_pelvis(pelvis: Mat4) -> Self {
        Self {
            centre: pelvis.w_axis.truncate(),
            up: pelvis.y_axis.truncate().normalize_or(Vec3::Y),
            forward: pelvis.z_axis.truncate().normalize_or(Vec3::Z),
        }
    }

    /// The horizontal direction from the axis out to `p` (`forward` where `p` is on it).
    pub fn outward(&self, p: Vec3) -> Vec3 {
        let d = p - self.centre;
        (d - self.up * d.dot(self.up)).normalize_or(self.forward)
    }
}

/// Which rows the leg lines hold, as fractions of the way down the cloth (0 the top row, 1 the
/// hem): row `r` of `rows` is held from a fraction `f` when `r >= (rows - 1) f`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LegRows {
    /// From here down, each particle that moved, or is inside a capsule or the web, is pushed
    /// out of them (the rows above lie on the hips, where the collision holds them).
    pub push_from: f32,
    /// From here down, a row's links that cut through a capsule are lifted out of it whole,
    /// and the row's reference points go out over the legs ([`LegLines::push_references`]).
    /// A thigh raised to a stride lifts the rows just under the hips too, so this can start
    /// higher than `push_from`.
    pub lift_from: f32,
}

/// The leg lines for one pose: four capsules of one radius (each leg's hip-knee and
/// knee-ankle segments), the web between the legs, the garment's axis and the rows they hold.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LegLines {
    /// How far from the lines the cloth is kept, metres.
    radius: f32,
    /// The garment's axis. Reference points leave the legs away from it
    /// ([`LegLines::push_references`]), and a link the legs' line runs through is lifted away
    /// from it ([`LegLines::link_depth`]).
    axis: BodyAxis,
    /// The rows the lines hold.
    rows: LegRows,
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

impl LegLines {
    /// Leg lines through `joints` (hip, knee and ankle of the left leg, then of the right),
    /// keeping the cloth `radius` from them, for a garment around `axis`, holding `rows`.
    pub fn new(joints: [[Vec3; 3]; 2], radius: f32, axis: BodyAxis, rows: LegRows) -> Self {
        let [[h0, k0, a0], [h1, k1, a1]] = joints;
        Self {
            radius,
            axis,
            rows,
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

    /// The garment's axis.
    pub fn axis(&self) -> BodyAxis {
        self.axis
    }

    /// The rows the lines hold.
    pub fn rows(&self) -> LegRows {
        self.rows
    }

    /// Whether every number is finite and the radius is not negative (what a step accepts).
    pub fn is_valid(&self) -> bool {
        let points = self.joints().into_iter().flatten();
        let axis = [self.axis.centre, self.axis.up, self.axis.forward];
        points.chain(axis).all(Vec3::is_finite)
            && self.radius.is_finite()
            && self.radius >= 0.0
            && self.rows.push_from.is_finite()
            && self.rows.lift_from.is_finite()
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
    /// through the link, away from the garment's axis and up, as the reference points leave
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

    /// Pushes the reference points of the rows that go over the legs ([`LegRows::lift_from`];
    /// `cols` particles a row) out of the legs away from the garment's axis and from between
    /// them: what the caller does to its reference points before
    /// the step, so the max-distance spheres are centred where the row pass lets the cloth be.
    pub fn push_references(&self, cols: usize, reference: &mut [Vec3]) {
        let rows = reference.len() / cols;
        for (i, r) in reference.iter_mut().enumerate() {
            *r = self.push_reference(i / cols, rows, *r);
        }
    }

    /// A reference point `p` on row `r` of `rows`: on the rows that go over the legs,
    /// pushed out of the legs away from the garment's axis ([`Self::push_outward`]) and from
    /// between them.
    fn push_reference(&self, r: usize, rows: usize, p: Vec3) -> Vec3 {
        if !self.lifts_row(r, rows) {
            return p;
        }
        self.out_of_gap(self.push_outward(p))
    }

    /// The way over the legs from `p`: the garment's outward direction there and up together
    /// (turned square to a leg, the way out of it; [`Self::push_outward`]).
    fn over(&self, p: Vec3) -> Vec3 {
        self.axis.outward(p) + self.axis.up
    }

    /// `p` moved out past every leg segment (hip-knee, knee-ankle; of the lines' radius) that
    /// it is inside or that lies further out on its way out: along [`Self::over`], turned
    /// square to the segment. The skirt goes round the outside of the legs and hangs over
    /// them, so a thigh raised under its front leaves the reference over and in front of it
    /// rather than under it, and two neighbours on either side of the thigh's line go the
    /// same way (pushed to their nearest surface, they went to its two sides, a thigh's width
    /// apart, and their links tore across it). A leg hanging straight down is pushed along
    /// `out` alone.
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

    /// The lines `w` of the way from `self` to `to`, for a substep: the joints, the radius and
    /// the axis's centre linearly, its directions linearly then normalised (`to`'s where that
    /// is degenerate); `to`'s rows.
    pub(crate) fn lerp(&self, to: &LegLines, w: f32) -> LegLines {
        let (a, b) = (self.joints(), to.joints());
        let joints = [0, 1].map(|s| [0, 1, 2].map(|k| a[s][k].lerp(b[s][k], w)));
        let (p, q) = (self.axis, to.axis);
        let axis = BodyAxis {
            centre: p.centre.lerp(q.centre, w),
            up: p.up.lerp(q.up, w).normalize_or(q.up),
            forward: p.forward.lerp(q.forward, w).normalize_or(q.forward),
        };
        let radius = self.radius + (to.radius - self.radius) * w;
        LegLines::new(joints, radius, axis, to.rows)
    }

    /// Whether row `r` of `rows` is one the lines push out of the legs
    /// ([`LegRows::push_from`]).
    pub(crate) fn pushes_row(&self, r: usize, rows: usize) -> bool {
        r as f32 >= (rows - 1) as f32 * self.rows.push_from
    }

    /// Whether row `r` of `rows` goes over the legs ([`LegRows::lift_from`]).
    pub(crate) fn lifts_row(&self, r: usize, rows: usize) -> bool {
        r as f32 >= (rows - 1) as f32 * self.rows.lift_from
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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The distance from `p` to the segment `a`-`b`.
    fn distance_to_segment(p: Vec3, a: Vec3, b: Vec3) -> f32 {
        p.distance(closest_on_segment(p, a, b))
    }

    /// Leg lines with the right thigh raised forward (knee 35 cm ahead of the hip, 20 cm
    /// lower) and the left leg hanging straight, around a pelvis at 0.9 m facing +z, holding
    /// the rows from half way down and lifting them from three tenths.
    pub(crate) fn raised_right_thigh() -> LegLines {
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
            LegRows {
                push_from: 0.5,
                lift_from: 0.3,
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
        // The rows above the lifted rows keep their references.
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

    #[test]
    fn lines_between_two_poses_go_through_the_poses_between() {
        let raised = raised_right_thigh();
        let leg = |x: f32| [0.85, 0.45, 0.05].map(|y| Vec3::new(x, y, 0.0));
        let hanging = LegLines::new(
            [leg(0.09), leg(-0.09)],
            0.12,
            raised.axis(),
            LegRows::default(),
        );
        assert_eq!(raised.lerp(&hanging, 1.0).joints(), hanging.joints());
        let half = raised.lerp(&hanging, 0.5);
        for (side, leg) in half.joints().iter().enumerate() {
            for (k, p) in leg.iter().enumerate() {
                let want = raised.joints()[side][k].lerp(hanging.joints()[side][k], 0.5);
                assert_eq!(*p, want);
            }
        }
        assert!((half.radius() - 0.11).abs() < 1e-6);
        assert_eq!(half.rows(), hanging.rows());
    }

    #[test]
    fn a_point_inside_a_capsule_or_between_the_legs_is_pushed_out_of_both() {
        let lines = raised_right_thigh();
        // Inside the left shin's capsule, 4 cm from its line; and on the web between the
        // hanging left leg and the raised right one, 2 cm behind the strip.
        let in_shin = Vec3::new(0.05, 0.3, 0.0);
        let on_web = Vec3::new(0.0, 0.6, 0.1);
        assert!(lines.between(on_web));
        for p in [in_shin, on_web] {
            let out = lines.push_out(p);
            let [[h, k, a], _] = lines.joints();
            let d = distance_to_segment(out, h, k).min(distance_to_segment(out, k, a));
            assert!(d >= lines.radius, "{p} -> {out}: {d} from the left leg");
            assert!(!lines.between(out), "{p} -> {out}: still between the legs");
        }
        // A point clear of both stays where it is.
        let clear = Vec3::new(0.4, 0.5, 0.0);
        assert_eq!(lines.push_out(clear), clear);
    }
}
