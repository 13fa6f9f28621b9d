//! The row pass, the last stage of every solver step for a cloth closed into a tube
//! ([`Topology::seam`]) or given leg lines ([`StepInput::leg_lines`](super::StepInput)): row
//! by row from the top, after the hard pass,
//! 1. the seam weld ([`super::seam`]): the row's two seam ends at their mean;
//! 2. re-hanging and the leg lines ([`super::leg_lines`]): each particle whose upper neighbour
//!    moved goes back to its rest length from it, swung out of the colliders; on the rows the
//!    leg lines push, each is pushed out of the leg capsules and the web between the legs,
//!    swung back onto that sphere after each push; a particle moved either way goes back
//!    within its max distance on the same sphere;
//! 3. lifting over the legs: on the rows the leg lines lift, a link that cuts through a
//!    capsule is moved out of it whole, both ends the same way ([`Hold::lift_links`]);
//! 4. the sideways hold, with the deformation limit on: the row's links longer than the limit
//!    pulled together by the hard pass's rule ([`hold_row_sideways`]), each end moved only along
//!    its rest-length sphere, outside the colliders and the leg lines, within its max distance
//!    ([`Hold::limit_row`]).
//!
//! So the vertical links stay at rest length, every particle outside the colliders and within
//! its max distance, and neither the weld nor the leg lines leave a row's neighbours pulled
//! apart (the hard pass holds the rows sideways before the weld and the leg lines move them,
//! so the rows are held again here). `docs/preset-format.md` ("The step") gives the formulas.

use glam::Vec3;

#[cfg(test)]
use super::collision::closest_on_segment;
use super::collision::Collider;
use super::hard_pass::{hold_row_sideways, swing_clear};
use super::leg_lines::LegLines;
use super::seam::{twin, weld_row};
use super::topology::{ConstraintKind, Topology};

/// How far below the deformation limit the row pass's sideways hold pulls an over-long row
/// link, as a share of how far over it was (`sideways_share`, the hard pass's rule:
/// overshooting settles a row held at one end by a leg in far fewer passes). Less than the
/// hard pass's 1: pulled only to the limit (0), a skirt's hem on the walk stays over 10 %
/// long; pulled as far below as over (1), neighbours are drawn so close that the hem's corners
/// are sharper than the drawn spline can round within the fabric's thickness, and at 0.75 a
/// particle ends inside the body on an imported character's sprint stop.
const SIDEWAYS_OVERSHOOT: f32 = 0.6;

/// How many times [`Hold::lift_links`] goes along a row: lifting one link can push its
/// neighbour's end into the leg.
const LIFT_ROUNDS: usize = 4;

/// Swings out of the colliders each time the row pass puts a particle on its rest-length
/// sphere.
const SWINGS: usize = 4;

/// Rounds of pushing a particle out of the leg lines and swinging it back onto its sphere.
const LEG_PUSH_ROUNDS: usize = 8;

/// What the row pass holds the particles to in this solver step.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RowInput<'a> {
    /// Each particle's reference point (the centre of its max-distance sphere).
    pub(crate) reference: &'a [Vec3],
    /// Each particle's max distance from its reference point, metres.
    pub(crate) max_distance: &'a [f32],
    /// The colliders, in character space.
    pub(crate) colliders: &'a [Collider],
    /// Added to every collider's size, metres.
    pub(crate) margin: f32,
    /// The deformation limit's stretch ratio when it is on: each row's horizontal links are
    /// held to it.
    pub(crate) sideways: Option<f32>,
    /// The leg lines this step, if any.
    pub(crate) lines: Option<&'a LegLines>,
}

/// The rest lengths the row pass holds the particles to, built once from the topology, and
/// its scratch.
#[derive(Clone, Debug)]
pub(crate) struct RowPass {
    /// Per particle, the rest length of the vertical stretch link into it from above (0 on
    /// the top row).
    down: Vec<f32>,
    /// Per particle, the rest length of the horizontal stretch link to its right neighbour
    /// (0 on the last column).
    across: Vec<f32>,
    /// Per column, whether the pass moved the particle on the row it is walking.
    moved: Vec<bool>,
}

impl RowPass {
    /// The rest lengths of `topo`'s stretch links, per particle.
    pub(crate) fn new(topo: &Topology) -> Self {
        let mut down = vec![0.0; topo.len()];
        let mut across = vec![0.0; topo.len()];
        for l in &topo.links {
            match l.kind {
                ConstraintKind::StretchVertical => down[l.b as usize] = l.rest,
                ConstraintKind::StretchHorizontal => across[l.a as usize] = l.rest,
                _ => {}
            }
        }
        Self {
            down,
            across,
            moved: vec![false; topo.cols],
        }
    }

    /// Whether a step runs the pass: the cloth is a tube, or there are leg lines.
    pub(crate) fn runs(topo: &Topology, lines: Option<&LegLines>) -> bool {
        topo.seam || lines.is_some()
    }

    /// The pass over `pos` and `prev` (see the module documentation), row by row from the
    /// top.
    pub(crate) fn run(
        &mut self,
        topo: &Topology,
        input: &RowInput,
        pos: &mut [Vec3],
        prev: &mut [Vec3],
    ) {
        let (cols, rows) = (topo.cols, topo.rows);
        let hold = Hold {
            down: &self.down,
            across: &self.across,
            input,
        };
        let moved = &mut self.moved;
        moved.fill(false);
        let lines = input.lines;
        let row_lines = |r: usize| lines.filter(|l| l.pushes_row(r, rows));
        for r in 1..rows {
            let first = r * cols;
            if weld_row(topo, r, pos, prev) {
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
                let (p, pushed, _) = hold.place(i, pos[i - cols], pos[i], *moved, row_lines(r));
                *moved |= pushed;
                pos[i] = p;
            }
            // The seam's ends are one particle (the same inputs place them alike; this keeps
            // it so).
            let last = first + cols - 1;
            if moved[0] && twin(topo, r, first) == last {
                pos[last] = pos[first];
            }
            if let Some(lines) = lines.filter(|l| l.lifts_row(r, rows)) {
                hold.lift_links(topo, r, lines, pos, moved);
            }
            if let Some(ratio) = input.sideways {
                hold.limit_row(topo, r, ratio, row_lines(r), pos, moved);
            }
        }
    }
}

/// The row pass's view of one step: the rest lengths and the step's inputs.
struct Hold<'a> {
    down: &'a [f32],
    across: &'a [f32],
    input: &'a RowInput<'a>,
}

/// Puts particle `k` of row `r` at `p` and marks its column in `moved`; the seam's two ends
/// move together ([`twin`]).
fn set_seam_aware(
    topo: &Topology,
    r: usize,
    k: usize,
    p: Vec3,
    pos: &mut [Vec3],
    moved: &mut [bool],
) {
    let first = r * topo.cols;
    for k in [k, twin(topo, r, k)] {
        pos[k] = p;
        moved[k - first] = true;
    }
}

impl Hold<'_> {
    /// Where particle `i` (hanging from `above`, now at `p`) goes: with `swing`, onto its rest
    /// length sphere around `above` and swung round the colliders where that is inside; with
    /// `lines`, out of the legs and from between them, swung back onto the sphere after each
    /// push; then, where it moved, back within its max distance on the same sphere. Returns
    /// the point, whether it moved and whether the last swing left it clear of the colliders.
    fn place(
        &self,
        i: usize,
        above: Vec3,
        p: Vec3,
        swing: bool,
        lines: Option<&LegLines>,
    ) -> (Vec3, bool, bool) {
        let input = self.input;
        let rest = self.down[i];
        let onto = |p: Vec3| above + (p - above).normalize_or(Vec3::NEG_Y) * rest;
        // On the rest length sphere, swung round the colliders where it would be inside.
        let clear = |p: Vec3| {
            let colliders = input.colliders;
            swing_clear(colliders, input.margin, above, rest, onto(p), None, SWINGS)
        };
        let (mut p, mut clear_of_body) = (p, true);
        let mut moved = swing;
        if swing {
            (p, clear_of_body) = clear(p);
        }
        if let Some(lines) = lines {
            // The swing can bring the point back in: push and swing a few times.
            for _ in 0..LEG_PUSH_ROUNDS {
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
            let (centre, radius) = (input.reference[i], input.max_distance[i]);
            if p.distance(centre) > radius {
                p = on_both_spheres(p, (above, rest), (centre, radius))
                    .unwrap_or_else(|| onto(centre));
            }
        }
        (p, moved, clear_of_body)
    }

    /// Particle `k` moved toward `target` as [`Hold::place`] swings it (on its rest-length
    /// sphere round the particle above, out of the legs with `lines`, within its max
    /// distance), or `None` where it is pinned or ends in a collider: the swing did not clear
    /// it, or the max distance step after the swing took it back in.
    fn place_clear(
        &self,
        topo: &Topology,
        k: usize,
        target: Vec3,
        lines: Option<&LegLines>,
        pos: &[Vec3],
    ) -> Option<Vec3> {
        if topo.pinned[k] {
            return None;
        }
        let (p, _, clear) = self.place(k, pos[k - topo.cols], target, true, lines);
        let colliders = self.input.colliders;
        let inside = colliders.iter().any(|b| b.penetration(p, 0.0) > 0.0);
        (clear && !inside).then_some(p)
    }

    /// Row `r`'s links that cut through a leg's capsule lifted out of it whole: both ends
    /// moved the same way ([`LegLines::link_depth`]), each only as [`Hold::place`] lets it,
    /// kept where the link then cuts less deep. Pushed out of the legs one by one, a link's
    /// two ends went to the two sides of a thigh rising between them, a thigh's width apart,
    /// and the rows tore open around it; lifted whole, the row goes over the thigh.
    fn lift_links(
        &self,
        topo: &Topology,
        r: usize,
        lines: &LegLines,
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
                    self.place_clear(topo, k, target, Some(lines), pos)
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
    /// ([`hold_row_sideways`]), half each end (the whole correction on one end where the
    /// other cannot move), each end moved only as [`Hold::place`] lets it (on its sphere,
    /// outside the colliders and the leg lines, within its max distance) and kept only where
    /// that brings it nearer the other end. The seam's two ends move as one. Marks in `moved`
    /// the columns it moved.
    fn limit_row(
        &self,
        topo: &Topology,
        r: usize,
        ratio: f32,
        lines: Option<&LegLines>,
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
            match self.place_clear(topo, i, target, lines, pos) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{BodyAxis, LegRows};

    /// A tube of 9 columns and 5 rows 10 cm apart around the y axis, 25 cm in radius, hanging
    /// from a pinned row at 1 m, its first and last columns one seam.
    fn tube() -> Topology {
        let (cols, rows) = (9, 5);
        let rest = (0..rows)
            .flat_map(|r| {
                (0..cols).map(move |c| {
                    let a = std::f32::consts::TAU * c as f32 / (cols - 1) as f32;
                    Vec3::new(0.25 * a.sin(), 1.0 - 0.1 * r as f32, 0.25 * a.cos())
                })
            })
            .collect();
        Topology::from_grid(cols, rows, rest)
            .unwrap()
            .with_seam()
            .unwrap()
    }

    /// Two legs hanging straight down at x = +-9 cm, 10 cm leg lines held from the top row.
    fn legs() -> LegLines {
        let leg = |x: f32| [1.05, 0.6, 0.1].map(|y| Vec3::new(x, y, 0.0));
        let axis = BodyAxis {
            centre: Vec3::new(0.0, 1.05, 0.0),
            up: Vec3::Y,
            forward: Vec3::Z,
        };
        let rows = LegRows {
            push_from: 0.0,
            lift_from: 0.0,
        };
        LegLines::new([leg(0.09), leg(-0.09)], 0.1, axis, rows)
    }

    /// The row pass over `pos` (previous positions equal to them) with the reference points
    /// at rest, a max distance of 30 cm and no colliders.
    fn run(topo: &Topology, lines: Option<&LegLines>, sideways: Option<f32>, pos: &mut [Vec3]) {
        let md = vec![0.3; topo.len()];
        let input = RowInput {
            reference: &topo.rest,
            max_distance: &md,
            colliders: &[],
            margin: 0.0,
            sideways,
            lines,
        };
        let mut prev = pos.to_vec();
        RowPass::new(topo).run(topo, &input, pos, &mut prev);
    }

    #[test]
    fn a_particle_inside_a_leg_capsule_ends_outside_it_at_rest_length_from_the_one_above() {
        let topo = tube();
        let lines = legs();
        let mut pos = topo.rest.clone();
        // The hem particle at the side (column 2, x = 25 cm) pushed in to 3 cm from the left
        // leg's line.
        let (i, above) = (4 * 9 + 2, 3 * 9 + 2);
        pos[i] = Vec3::new(0.12, pos[i].y, 0.0);
        let [left, _] = lines.joints();
        let from_leg = |p: Vec3| p.distance(closest_on_segment(p, left[1], left[2]));
        assert!(from_leg(pos[i]) < lines.radius());
        run(&topo, Some(&lines), None, &mut pos);
        assert!(from_leg(pos[i]) >= lines.radius(), "{}", pos[i]);
        assert!(!lines.between(pos[i]));
        let rest = topo.rest[i].distance(topo.rest[above]);
        assert!((pos[i].distance(pos[above]) - rest).abs() < 1e-5);
        // The rest of the tube was clear of the legs and stays where it was (the seam's ends
        // but for rounding, welded and hung again).
        let moved = (0..topo.len()).filter(|&k| pos[k].distance(topo.rest[k]) > 1e-6);
        assert_eq!(moved.collect::<Vec<_>>(), vec![i]);
    }

    #[test]
    fn the_sideways_hold_brings_a_stretched_row_back_to_the_limit() {
        let topo = tube();
        let mut pos = topo.rest.clone();
        // Row 1's column 4 (the back) swung 45 degrees sideways round the pinned particle
        // above it: its column at rest length, one of its row links far over 1.1 x rest.
        let (i, above) = (9 + 4, 4);
        let turn = glam::Quat::from_rotation_z(0.8);
        pos[i] = pos[above] + turn * (pos[i] - pos[above]);
        let links = |pos: &[Vec3]| {
            (9..17)
                .map(|a| pos[a].distance(pos[a + 1]) / topo.rest[a].distance(topo.rest[a + 1]))
                .fold(0.0f32, f32::max)
        };
        assert!(links(&pos) > 1.25, "{}", links(&pos));
        run(&topo, None, Some(1.1), &mut pos);
        assert!(links(&pos) < 1.1 * 1.002, "{}", links(&pos));
        // Every column is still at rest length.
        for k in 9..topo.len() {
            let rest = topo.rest[k].distance(topo.rest[k - 9]);
            assert!((pos[k].distance(pos[k - 9]) - rest).abs() < 1e-5, "{k}");
        }
        // Without the limit the swung particle is left where it was.
        let mut free = topo.rest.clone();
        free[i] = free[above] + turn * (free[i] - free[above]);
        let swung = free[i];
        run(&topo, None, None, &mut free);
        assert_eq!(free[i], swung);
    }
}
