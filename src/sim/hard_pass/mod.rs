//! The hard pass, the last stage of a solver step: every column of vertical stretch links is put
//! at exactly its rest length, top-down, moving only the lower particle of each link, which is
//! kept within its max distance and out of the colliders by swinging it on the sphere around
//! its upper neighbour (the searches on that sphere are in this module too). With the
//! deformation limit on, each row is held to it sideways as soon as it is placed. Last, the
//! safety net: a particle the pass left past its max distance is clamped again and counted.
//! After the pass, each leader takes the reaction of the moves it made its follower take
//! (`HardPass::react`).
//!
//! The pass decides where a particle goes with corrections that move continuously with the
//! positions (never a choice between discrete alternatives), so two runs a rounding error
//! apart stay close.

mod sphere;

use glam::Vec3;

pub use sphere::{clear_point_on_sphere, least_deep_point_on_sphere, swing_clear};

use super::broad::{Broad, Candidates, Shapes};
use super::cloth::{clamp_to, excess, surely_within, ClothStats};
use super::collision::{push_out_all, Collider};
use super::tear::{CUT_RIGHT, CUT_UP};
use super::topology::{ConstraintKind, Link, Topology};
use sphere::{swing_clear_among, swing_within_reach, Rim, Swing};

/// How deep (metres, past the collider's surface, margin not counted) the hard pass may leave a
/// particle to keep its link at rest length and within its max distance, where no point is both
/// clear and within reach.
pub const HARD_TOLERATED_DEPTH: f32 = 0.005;
/// Collision corrections per particle inside the hard pass.
const HARD_COLLISION_PASSES: usize = 6;
/// More collision corrections for a particle those left inside a collider, before the wider
/// searches (see [`rescue`]).
const RESCUE_COLLISION_PASSES: usize = 12;
/// Sweeps over the colliders when a particle is pushed out after all, off its rest length.
const FINAL_COLLISION_SWEEPS: usize = 4;
/// Most passes of the sideways limit over a row (it stops at the first pass that finds every
/// link within the limit, give or take `SIDEWAYS_TOLERANCE`). A leg between two hem
/// particles leaves a dozen links over the limit whose excess the passes slide along the row
/// link by link, so a few passes leave the tweed's hem far over the limit after a sprint
/// stop; 64 with the overshoot of [`sideways_share`] bring it within. Nearly every row stops
/// after its first pass.
pub(crate) const SIDEWAYS_PASSES: usize = 64;
/// How far past the deformation limit (share of rest length) a link may still be when the
/// sideways limit stops. A link pulled onto the limit can come out a rounding error over it;
/// pulled only that far, 303 rows of the tweed's sprint_stop ran all 16 passes for that.
const SIDEWAYS_TOLERANCE: f32 = 1e-3;
/// How far below the deformation limit [`sideways_share`] pulls an over-long link, as a share
/// of how far over it was: 1, as far below as over (successive over-relaxation at 2).
pub(crate) const SIDEWAYS_OVERSHOOT: f32 = 1.0;
/// Collision swings per correction in the sideways limit.
const SIDEWAYS_COLLISION_PASSES: usize = 2;
/// Columns per block when the pass runs on several threads.
const COLUMN_BLOCK: usize = 32;

/// What the hard pass holds the particles to besides their columns: this solver step's
/// reference points, max distances and colliders.
#[derive(Clone, Copy, Debug)]
pub(crate) struct HardInput<'a> {
    /// Each particle's reference point (character space).
    pub(crate) reference: &'a [Vec3],
    /// Each particle's max distance from its reference point, metres.
    pub(crate) max_distance: &'a [f32],
    /// Colliders in character space.
    pub(crate) colliders: &'a [Collider],
    /// Added to every collider's size, metres.
    pub(crate) margin: f32,
    /// The deformation limit's stretch ratio when it is on: each row is held to it sideways.
    pub(crate) sideways: Option<f32>,
    /// Per particle: which of its stretch links are torn ([`CUT_UP`]: the one from above, which
    /// the pass then does not hang it from; [`CUT_RIGHT`]: the one to its right, which the
    /// sideways limit then leaves alone). Empty: nothing torn.
    pub(crate) cut: &'a [u8],
    /// This solver step's broad phase for `colliders` and `margin` (`None`: every particle is
    /// tested against every collider).
    pub(crate) broad: Option<&'a Broad>,
}

impl HardInput<'_> {
    /// Whether particle `i`'s stretch link marked `bit` is torn.
    #[inline]
    fn is_cut(&self, i: usize, bit: u8) -> bool {
        self.cut.get(i).is_some_and(|c| c & bit != 0)
    }

    /// The colliders, with this step's bounds where there is a broad phase.
    fn shapes(&self) -> Shapes<'_> {
        Shapes {
            colliders: self.colliders,
            margin: self.margin,
            bounds: self.broad.map(Broad::bounds),
        }
    }

    /// Particle `i`'s swing out of the colliders, tested against only those that can reach it.
    #[inline]
    fn swing_clear(&self, i: usize, at: Swing, x: Vec3) -> (Vec3, bool) {
        if self.colliders.is_empty() {
            return (x, true);
        }
        let candidates = self.broad.map_or(Candidates::ALL, |b| b.of(i, self.margin));
        swing_clear_among(self.colliders, candidates, self.margin, at, x)
    }
}

/// The links the hard pass walks, built once from the topology.
#[derive(Clone, Debug)]
pub(crate) struct HardPass {
    /// Vertical stretch links, top-down.
    links: Vec<Link>,
    /// Horizontal stretch links by row (`row_links[row_start[r]..row_start[r + 1]]`), for the
    /// sideways limit.
    row_links: Vec<Link>,
    row_start: Vec<usize>,
    /// Per particle: its upper neighbour and the rest length to it (`u32::MAX` for the top
    /// row).
    up: Vec<(u32, f32)>,
    /// The columns when `links` are a whole grid's, row by row (link `k` joins particle `k` to
    /// `k + columns`): then the columns can be placed side by side.
    columns: Option<usize>,
}

impl HardPass {
    /// The hard links of `topo` and, for the sideways limit, its rows.
    pub(crate) fn new(topo: &Topology) -> Self {
        let links = topo.hard_links();
        let row_links = topo.links_top_down(ConstraintKind::StretchHorizontal);
        let row_start = (0..=topo.rows)
            .map(|r| row_links.partition_point(|l| topo.row(l.a as usize) < r))
            .collect();
        let mut up = vec![(u32::MAX, 0.0f32); topo.len()];
        for l in &links {
            up[l.b as usize] = (l.a, l.rest);
        }
        let cols = topo.cols;
        let grid = links.len() + cols == topo.len()
            && (links.iter().enumerate())
                .all(|(k, l)| l.a as usize == k && l.b as usize == k + cols);
        Self {
            links,
            row_links,
            row_start,
            up,
            columns: grid.then_some(cols),
        }
    }

    /// Places every particle below the top row at rest length from its upper neighbour (see
    /// [`place`]), rows held to the deformation limit where it is on, then clamps what ended
    /// past its max distance. Marks the contacts it leaves and counts its safety nets.
    ///
    /// With `parallel`, on a grid and with the deformation limit off (each particle then
    /// depends only on the one above it), blocks of columns are placed side by side on the
    /// current rayon pool: the same positions, contacts and counts as one after another.
    pub(crate) fn run(
        &self,
        topo: &Topology,
        pos: &mut [Vec3],
        contact: &mut [bool],
        stats: &mut ClothStats,
        input: &HardInput,
        parallel: bool,
    ) {
        match self.columns {
            Some(cols) if parallel && input.sideways.is_none() && pos.len() == contact.len() => {
                let shared = Shared {
                    pos: pos.as_mut_ptr(),
                    contact: contact.as_mut_ptr(),
                };
                let blocks = cols.div_ceil(COLUMN_BLOCK);
                let placed = self.place_blocks(&shared, 0..blocks, cols, input);
                stats.post_hard_pushes += placed.post_hard_pushes;
                stats.post_hard_push_max = stats.post_hard_push_max.max(placed.post_hard_push_max);
            }
            _ => self.place_serially(topo, pos, contact, stats, input),
        }
        // Every particle left the hard pass outside the colliders (each is placed, and pushed
        // out where needed, before anything below it), so what remains is the max-distance
        // safety net.
        clamp_again(pos, input, stats);
    }

    /// The velocities the pass leaves, as dynamic follow-the-leader does (Müller, Kim and
    /// Chentanez, "Fast Simulation of Inextensible Hair and Fur", VRIPHYS 2012): every move the
    /// pass made (`pos` against `before`, the positions it started from) stays velocity, as any
    /// constraint's correction does, and each leader takes the reaction of the move it made its
    /// follower take, along the link, weighted by their masses (`falloff`, the mass ratio of a
    /// row to the row below it), by moving its previous position in `prev`.
    ///
    /// The pass is follow-the-leader: each particle is put at rest length from the one above,
    /// which does not move. The lower rows so take momentum from every correction that the
    /// upper rows hand down, and nothing takes it back: kept as velocity, whole or in part,
    /// those moves feed a swinging panel more energy than it started with, and it does not come
    /// to rest. With the reaction, what a link's correction gives the follower along the link
    /// it takes from the leader, in proportion to their masses, as a rigid link between them
    /// would. Only the share along the link reacts: the swings within the max
    /// distance and out of the colliders are not the link's doing. A pinned leader (the top
    /// row) and a torn link take none.
    pub(crate) fn react(
        &self,
        topo: &Topology,
        pos: &[Vec3],
        before: &[Vec3],
        prev: &mut [Vec3],
        falloff: f32,
        cut: &[u8],
    ) {
        for l in &self.links {
            let (a, b) = (l.a as usize, l.b as usize);
            if topo.pinned[a] || cut.get(b).is_some_and(|c| c & CUT_UP != 0) {
                continue;
            }
            let along = (pos[b] - pos[a]).normalize_or_zero();
            let moved = (pos[b] - before[b]).dot(along);
            // The follower's mass over the leader's, from the row gap as the relaxation's
            // weights are (a steep falloff over many rows would underflow the masses).
            let ratio = falloff.powi(topo.row(a) as i32 - topo.row(b) as i32);
            prev[a] += along * (moved * ratio);
        }
    }

    /// Column blocks `blocks` (of [`COLUMN_BLOCK`]), halved and handed to other threads; the
    /// counts of what [`place`] did, summed (and the largest push) in a fixed tree.
    fn place_blocks(
        &self,
        shared: &Shared,
        blocks: std::ops::Range<usize>,
        cols: usize,
        input: &HardInput,
    ) -> ClothStats {
        if blocks.len() > 1 {
            let mid = blocks.start + blocks.len() / 2;
            let (low, high) = rayon::join(
                || self.place_blocks(shared, blocks.start..mid, cols, input),
                || self.place_blocks(shared, mid..blocks.end, cols, input),
            );
            return ClothStats {
                post_hard_pushes: low.post_hard_pushes + high.post_hard_pushes,
                post_hard_push_max: low.post_hard_push_max.max(high.post_hard_push_max),
                ..ClothStats::default()
            };
        }
        let mut stats = ClothStats::default();
        let (first, last) = (
            blocks.start * COLUMN_BLOCK,
            (blocks.end * COLUMN_BLOCK).min(cols),
        );
        for row in self.links.chunks_exact(cols) {
            for l in &row[first..last] {
                let (a, b) = (l.a as usize, l.b as usize);
                if input.is_cut(b, CUT_UP) {
                    continue;
                }
                // SAFETY: `a` and `b` are in this block's columns (link `k` joins `k` and
                // `k + cols`, checked when the pass was built) and below the positions' length
                // (every hard link comes from the topology the buffers were sized by). Blocks
                // own disjoint columns, so no other thread reads or writes these particles
                // while this block runs, and no reference into the buffers is held meanwhile.
                unsafe {
                    let (top, below) = (*shared.pos.add(a), *shared.pos.add(b));
                    let mut touched = *shared.contact.add(b);
                    if let Some(x) = place(l, top, below, input, &mut touched, &mut stats) {
                        *shared.pos.add(b) = x;
                    }
                    *shared.contact.add(b) = touched;
                }
            }
        }
        stats
    }

    /// Every link in order, one after another; with the deformation limit on, each row held to
    /// it sideways as soon as it is placed.
    fn place_serially(
        &self,
        topo: &Topology,
        pos: &mut [Vec3],
        contact: &mut [bool],
        stats: &mut ClothStats,
        input: &HardInput,
    ) {
        for (k, l) in self.links.iter().enumerate() {
            let b = l.b as usize;
            let (top, below) = (pos[l.a as usize], pos[b]);
            // A torn column: the particle stays where the relaxation left it.
            if !input.is_cut(b, CUT_UP) {
                let Some(x) = place(l, top, below, input, &mut contact[b], stats) else {
                    continue;
                };
                pos[b] = x;
            }
            // A row is complete when the next link starts a lower one: with the deformation
            // limit on, hold its sideways links to the limit too before the row below is
            // placed from it.
            if let Some(ratio) = input.sideways {
                let row = topo.row(b);
                if self
                    .links
                    .get(k + 1)
                    .is_none_or(|n| topo.row(n.b as usize) != row)
                {
                    self.limit_row_sideways(row, pos, input, ratio);
                }
            }
        }
    }

    /// Holds the row's horizontal links to `ratio` x rest ([`hold_row_sideways`]), each end
    /// moved only along the sphere around its upper neighbour (so the column keeps its rest
    /// length), then swung on that sphere back within its max distance and out of the
    /// colliders; an end that cannot be cleared that way stays where it was.
    fn limit_row_sideways(&self, row: usize, pos: &mut [Vec3], input: &HardInput, ratio: f32) {
        let links = &self.row_links[self.row_start[row]..self.row_start[row + 1]];
        let link = |k: usize| {
            let l = &links[k];
            let (a, b) = (l.a as usize, l.b as usize);
            (!input.is_cut(a, CUT_RIGHT)).then_some((a, b, l.rest))
        };
        let move_end =
            |i, target, other, pos: &mut [Vec3]| self.move_end(i, target, other, pos, input);
        hold_row_sideways(links.len(), link, ratio, SIDEWAYS_OVERSHOOT, pos, move_end);
    }

    /// Moves particle `i` toward `target`, only along the sphere around its upper neighbour
    /// (so its column keeps its rest length), then swung on that sphere back within its max
    /// distance and out of the colliders; where swinging does not clear it, the clear point
    /// on the sphere nearest to where it was headed, if that still brings it nearer to `other`
    /// (the link's other end). Returns whether it moved; where nothing clears it, it stays
    /// where it was.
    fn move_end(
        &self,
        i: usize,
        target: Vec3,
        other: Vec3,
        pos: &mut [Vec3],
        input: &HardInput,
    ) -> bool {
        let (t, rest) = self.up[i];
        if t == u32::MAX || input.is_cut(i, CUT_UP) {
            return false;
        }
        let top = pos[t as usize];
        let mut y = top + (target - top).normalize_or(pos[i] - top) * rest;
        let (r, md) = (input.reference[i], input.max_distance[i]);
        if y.distance_squared(r) > md * md {
            y = swing_within_reach(top, rest, y, r, md);
        }
        let at = Swing {
            top,
            rest,
            anchor: Some(r),
            passes: SIDEWAYS_COLLISION_PASSES,
        };
        let (mut y, mut clear) = input.swing_clear(i, at, y);
        if !clear {
            let was = pos[i].distance(other);
            if let Some(z) = clear_point_on_sphere(input.shapes(), top, rest, y, r, md)
                .filter(|z| z.distance(other) < was)
            {
                (y, clear) = (z, true);
            }
        }
        if clear && y.distance_squared(r) <= md * md {
            pos[i] = y;
            return true;
        }
        false
    }
}

/// For a row link `d` (from one end to the other) of rest length `rest` longer than `ratio` x
/// rest: the share of `d` the sideways limit takes off it, and whether it was more than
/// 0.1 % of the rest length over. The link is pulled `overshoot` x as far below the limit as it
/// was over it (never below its rest length; the hard pass's is [`SIDEWAYS_OVERSHOOT`]): the
/// passes are Gauss-Seidel sweeps along a chain, where pulling a link only to the limit hands most of its excess to its neighbours and a row
/// held at one end by a leg took hundreds of passes to settle; overshooting (successive
/// over-relaxation at 2) settles it in tens. A link below the limit is left alone, so the
/// overshoot never pushes anything apart. `None` when it is within the limit.
pub(crate) fn sideways_share(
    d: Vec3,
    rest: f32,
    ratio: f32,
    overshoot: f32,
) -> Option<(f32, bool)> {
    let s = excess(d, rest, ratio)?;
    let len = d.length();
    let over = s * len;
    let target = (rest * ratio - over * overshoot).max(rest);
    Some(((len - target) / len, over > SIDEWAYS_TOLERANCE * rest))
}

/// Holds one row's horizontal links to `ratio` x rest: up to [`SIDEWAYS_PASSES`] passes over
/// the `n` links (`link(k)`: its ends and rest length, `None` for one left out), each link
/// longer than the limit pulled [`sideways_share`] (with `overshoot`) shorter, half from each
/// end, until every link is within the tolerance. `move_end(i, target, other, pos)` moves end
/// `i` toward `target` as far as the caller's constraints let it (`other` is the link's other
/// end) and says whether it moved. Where one end cannot move (pinned, held by its max distance
/// or a collider) the other takes the whole correction; where the second cannot, the first
/// tries the rest: half each would leave a chain held at one end stretched after every pass.
pub(crate) fn hold_row_sideways(
    n: usize,
    link: impl Fn(usize) -> Option<(usize, usize, f32)>,
    ratio: f32,
    overshoot: f32,
    pos: &mut [Vec3],
    mut move_end: impl FnMut(usize, Vec3, Vec3, &mut [Vec3]) -> bool,
) {
    for _ in 0..SIDEWAYS_PASSES {
        let mut over = false;
        for (a, b, rest) in (0..n).filter_map(&link) {
            let d = pos[b] - pos[a];
            let Some((s, far)) = sideways_share(d, rest, ratio, overshoot) else {
                continue;
            };
            over |= far;
            let half = d * (s * 0.5);
            let moved_a = move_end(a, pos[a] + half, pos[b], pos);
            let share = if moved_a { half } else { half * 2.0 };
            let moved_b = move_end(b, pos[b] - share, pos[a], pos);
            if moved_a && !moved_b {
                move_end(a, pos[a] + half, pos[b], pos);
            }
        }
        if !over {
            break;
        }
    }
}

/// Where the hard pass puts the lower particle `b` of link `l`: at rest length from its upper
/// neighbour `a` (already placed), toward where it is, then on that sphere within its max
/// distance and out of the colliders where any point is both; where none is, the least deep
/// point within reach if that is shallow (a contact), else pushed out after all (a contact,
/// counted), off its rest length. `None` when the link has no length to take a direction
/// from: the particle stays where it is.
#[inline]
fn place(
    l: &Link,
    top: Vec3,
    below: Vec3,
    input: &HardInput,
    contact: &mut bool,
    stats: &mut ClothStats,
) -> Option<Vec3> {
    let b = l.b as usize;
    let d = below - top;
    let len = d.length();
    if len <= 1e-9 {
        return None;
    }
    let mut x = top + d * (l.rest / len);
    // Keep it within its max distance where the rest length allows: swing it on the sphere
    // around its upper neighbour toward its reference point.
    let (r, md) = (input.reference[b], input.max_distance[b]);
    if x.distance_squared(r) > md * md {
        x = swing_within_reach(top, l.rest, x, r, md);
    }
    // Keep the particle out of the body while it stays at rest length: push it out, then swing
    // it back onto the sphere around its upper neighbour, so the column wraps around a leg
    // instead of passing through it.
    let at = Swing {
        top,
        rest: l.rest,
        anchor: Some(r),
        passes: HARD_COLLISION_PASSES,
    };
    let (swung, clear) = input.swing_clear(b, at, x);
    // Clear and within reach: nearly every particle, nearly every step.
    if clear && swung.distance_squared(r) <= md * md {
        return Some(swung);
    }
    Some(rescue(at, swung, clear, b, input, contact, stats))
}

/// The rest of [`place`] for particle `b`, which the swing `at` left at `x`, inside a collider
/// (not `clear`) or past its max distance: out of line, so the common case stays small.
#[cold]
#[inline(never)]
fn rescue(
    at: Swing,
    mut x: Vec3,
    mut clear: bool,
    b: usize,
    input: &HardInput,
    contact: &mut bool,
    stats: &mut ClothStats,
) -> Vec3 {
    let (top, rest) = (at.top, at.rest);
    let (r, md) = (input.reference[b], input.max_distance[b]);
    // A swing that has not cleared it yet is usually a hair from doing so: carry on swinging
    // first. The wider searches below pick among fixed directions, and a particle a rounding
    // error either side of clearing in the first passes would land millimetres apart, and a
    // millionth of damping would grow to centimetres (`tests/garment/chaos.rs`).
    if !clear {
        let (y, done) = input.swing_clear(
            b,
            Swing {
                passes: RESCUE_COLLISION_PASSES,
                ..at
            },
            x,
        );
        if done && y.distance_squared(r) <= md * md {
            return y;
        }
    }
    // A swing out of the body can carry it past its max distance. Then the nearest point that
    // is both clear and within reach is where the collider's surface crosses the rim of the
    // reachable cap: walk the rim from the point nearest to it, so the particle slides along
    // both limits instead of jumping to wherever the wider search below lands.
    if clear && x.distance_squared(r) > md * md {
        if let Some(y) = Rim::new(top, rest, x, r, md)
            .and_then(|rim| rim.clear_point(input.colliders, input.margin))
        {
            x = y;
        }
    }
    // Still past it: not clear either.
    clear &= x.distance_squared(r) <= md * md;
    // Where swinging did not clear it (a leg sweeping through the open front can wrap the
    // column further than a few swings reach), search the whole rest-length sphere for the
    // clear point nearest to where it was headed.
    if !clear {
        if let Some(y) = clear_point_on_sphere(input.shapes(), top, rest, x, r, md) {
            x = y;
            clear = true;
        }
    }
    // Where no point at rest length is both clear and within the max distance, the link keeps
    // its length and the max distance holds, at the least deep point if that is shallow.
    // Deeper than that, push it out after all (and count it): the particles below are then
    // placed from here, so only this link is off.
    if !clear {
        let (y, depth) = least_deep_point_on_sphere(input.colliders, top, rest, x, r, md);
        x = y;
        if depth <= HARD_TOLERATED_DEPTH {
            clear = true;
            *contact = true;
        }
    }
    if !clear {
        let swung = x;
        x = push_out_all(
            input.colliders,
            x,
            Some(r),
            input.margin,
            FINAL_COLLISION_SWEEPS,
        );
        if x != swung {
            *contact = true;
            stats.post_hard_pushes += 1;
            stats.post_hard_push_max = stats.post_hard_push_max.max(x.distance(swung));
        }
    }
    x
}

/// The positions and contact flags, shared by the threads of a column-parallel hard pass,
/// each of which touches only its own columns' particles.
struct Shared {
    pos: *mut Vec3,
    contact: *mut bool,
}

// SAFETY: the pointers are only dereferenced by `HardPass::place_blocks`, whose blocks read and
// write disjoint sets of particles (their own columns) while the buffers' owner waits in
// `HardPass::run`.
unsafe impl Sync for Shared {}

/// The safety net, last: nothing ends beyond its max distance. A particle more than 10 um past
/// it is clamped again and counted, with its overshoot.
// Walks positions, references and max distances in step.
#[allow(clippy::needless_range_loop)]
fn clamp_again(pos: &mut [Vec3], input: &HardInput, stats: &mut ClothStats) {
    let (reference, max_distance) = (input.reference, input.max_distance);
    for i in 0..pos.len() {
        if surely_within(pos[i], reference[i], max_distance[i]) {
            continue;
        }
        let over = pos[i].distance(reference[i]) - max_distance[i];
        if over > 1e-5 {
            pos[i] = clamp_to(pos[i], reference[i], max_distance[i]);
            stats.post_hard_clamps += 1;
            stats.post_hard_clamp_max = stats.post_hard_clamp_max.max(over);
        }
    }
}

#[cfg(test)]
mod tests;
