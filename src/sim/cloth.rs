//! The cloth: topology plus the state that changes every step, and the step itself.
//!
//! One solver step ([`Cloth::substep`]), in order (`docs/preset-format.md`, "The step", gives
//! every formula):
//! 1. world motion: a fraction of the character's motion since the last step is fed back as an
//!    inertial offset of the free particles, which live in character space (a cut adds none;
//!    [`super::world_motion`]);
//! 2. pins: the top row goes to its reference points;
//! 3. wind on each triangle ([`super::wind`]);
//! 4. Verlet integration with the particle's own damping (interior, edge, or contact when it
//!    touched a collider last step), gravity and wind;
//! 5. `iterations` relaxation passes: stretch links, then shear/bend links, each group with its
//!    own stiffness, weighted by inverse mass, with the colliders between passes;
//! 6. tearing: a link stretched past the tear ratio leaves the solve ([`super::tear`]);
//!    optionally Provot's deformation limit (torn links left out);
//! 7. explosion check: a non-finite or exploded state resets the cloth to the reference pose
//!    and ends the step;
//! 8. collisions (push out of every collider, remember the contact; a particle deep inside
//!    leaves toward its reference point, the side it belongs on), then every row link near
//!    its reference points that still cuts through an ellipsoid or sphere moved out of it
//!    whole, both ends the same way (not on a cloth given leg lines, whose row pass lifts its
//!    links over the legs);
//! 9. max distance from the reference pose;
//! 10. the hard pass ([`super::hard_pass`]): columns top-down at rest length, moving only the
//!     lower particle, kept out of the colliders and within its max distance by swinging it
//!     around its upper neighbour; then a particle left past its max distance is clamped again
//!     (counted in [`ClothStats`]); its moves stay velocity, and each leader takes the reaction
//!     of its follower's move (dynamic follow-the-leader);
//! 11. the row pass ([`super::row_pass`]), for a cloth closed into a tube ([`Topology::seam`])
//!     or given leg lines ([`StepInput::leg_lines`]): row by row from the top, each row in four
//!     stages:
//!     1. the seam weld ([`super::seam`]): the row's two seam ends, position and previous
//!        position, at their mean;
//!     2. re-hanging and the leg lines ([`super::leg_lines`]): a particle whose upper
//!        neighbour moved goes back to rest length from it, out of the colliders; on the lower
//!        rows each is pushed out of the leg capsules and the web between the legs; a moved
//!        particle goes back within its max distance, still at rest length;
//!     3. lifting over the legs: a row link cutting through a leg capsule is moved out whole,
//!        both ends the same way;
//!     4. the sideways hold, with the deformation limit on: the row's links held to it as the
//!        hard pass holds them, each end moved only along its rest-length sphere.
//!
//! Nothing in [`Cloth::step`] allocates.

use glam::{Quat, Vec3};

use super::bands::{Bands, PARALLEL_MIN_PARTICLES};
use super::broad::{push_out_each, Broad, MASK_BITS};
use super::collision::Collider;
use super::hard_pass::{HardInput, HardPass};
use super::leg_lines::LegLines;
use super::limit::limit_stretch;
use super::painted::painted_or_curve;
use super::params::FabricParams;
use super::relax::{pad, relax, unpad, Kernel, LinkList, Proj, LANES, P4};
use super::row_pass::{RowInput, RowPass};
use super::tear::{Tears, CUT_UP};
use super::topology::{interleave, ConstraintKind, Link, Topology};
use super::wind::{rest_shares, steady_wind, triangle_wind, Air, Gust, WindMesh, WindScratch};
use super::world_motion::{carry, WorldMotion};
use super::Frame;

/// A particle further than this many times its max distance from its reference point (and at
/// least [`EXPLODE_MIN_DISTANCE`]) means the state has exploded.
pub const EXPLODE_FACTOR: f32 = 10.0;
/// The floor of the explosion distance, metres, so a max distance of 0 does not reset on a
/// rounding error.
pub const EXPLODE_MIN_DISTANCE: f32 = 0.1;
/// Colliders the substep buffers hold without growing (more allocate once, on the first step
/// that has them).
const COLLIDER_CAPACITY: usize = 32;
/// Passes of the deformation limit per step.
const LIMIT_PASSES: usize = 2;

/// The most links a pass is relaxed as one list for. Merging the two lists pays where a pass is
/// bound by the latency of its chain of dependent levels (a garment, up to 32 x 32); a
/// larger pass is bound by throughput, where the larger packs of the merged list cost more
/// (64 x 64 and 128 x 128 run slower merged).
const PASS_MAX_LINKS: usize = 1 << 13;

/// The most link visits a step's passes are planned as one list for: about 24 bytes a visit,
/// so the plan stays within a core's 2 MB second-level cache (up to 32 x 32 at 10 passes;
/// 64 x 64 at 5 passes runs slower as one list than pass by pass).
const RUN_MAX_LINKS: usize = 1 << 16;

/// What drives one step: the character's frame and pose, the colliders and, for a garment over
/// the legs, the leg lines. All in character space except `frame`, which places the character
/// in the world.
#[derive(Clone, Copy, Debug)]
pub struct StepInput<'a> {
    /// The character's world frame at the end of this step.
    pub frame: Frame,
    /// Each particle's reference point: its rest position skinned to its bone (character
    /// space). Pinned particles are put exactly here; the others stay within their max
    /// distance of it. One entry per particle.
    pub reference: &'a [Vec3],
    /// Colliders in character space.
    pub colliders: &'a [Collider],
    /// The leg lines in this pose (character space), for a garment hanging over the legs (a
    /// skirt), or `None`. With them (or on a tube, [`Topology::seam`]) every solver step ends
    /// with the row pass, which keeps the rows they hold out of them.
    pub leg_lines: Option<&'a LegLines>,
}

/// Why a step was refused. The cloth is left as it was.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum StepError {
    /// `reference` does not have one point per particle.
    #[error("the step input has {got} reference points, the cloth has {expected} particles")]
    ReferenceCount {
        /// Particles in the cloth.
        expected: usize,
        /// Points given.
        got: usize,
    },
    /// A reference point (this index) is NaN or infinite.
    #[error("reference point {0} is not finite")]
    ReferenceNotFinite(usize),
    /// The character frame has a NaN or infinite component.
    #[error("the character frame is not finite")]
    FrameNotFinite,
    /// A collider (this index) has a non-finite or non-positive size.
    #[error("collider {0} has a non-finite or non-positive size")]
    BadCollider(usize),
    /// The leg lines have a non-finite number or a negative radius.
    #[error("the leg lines have a non-finite number or a negative radius")]
    BadLegLines,
}

/// Counters the caller can read to see what the safety nets did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ClothStats {
    /// Steps taken.
    pub steps: u64,
    /// Times the cloth was reset to the reference pose after a non-finite or exploded state.
    pub resets: u64,
    /// Steps whose world-motion offset was skipped because the character jumped too far.
    pub teleports: u64,
    /// Particle clamps after the hard pass (the hard pass pushed them past their max distance).
    pub post_hard_clamps: u64,
    /// The largest such overshoot, metres.
    pub post_hard_clamp_max: f32,
    /// Particles pushed out of a collider again after the hard pass pulled them in.
    pub post_hard_pushes: u64,
    /// The largest such push, metres.
    pub post_hard_push_max: f32,
}

/// What happened in one step.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepReport {
    /// The state was non-finite or exploded and the cloth was reset to the reference pose.
    pub reset: bool,
    /// Particles touching a collider at the end of the step.
    pub contacts: u32,
}

/// The order in which a relaxation pass visits the links.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SolveOrder {
    /// Top-down sweep, row by row. Stretch: a row's vertical links (pairwise disjoint), then its
    /// horizontal links in four segments swept side by side. Shear/bend: by row and family
    /// (each diagonal, bend links by column class). Consecutive links mostly share no particle
    /// and groups of four independent links are computed side by side. Settles with no more
    /// stretch than build order on a hanging garment (see the solver bench).
    #[default]
    Interleaved,
    /// Plain build order, for comparison.
    Index,
    /// For large cloths, on all cores: the rows in bands of [`BAND_ROWS`](super::BAND_ROWS);
    /// each pass relaxes the even bands side by side, then the odd ones, each band in the
    /// `Interleaved` order (stretch, then shear/bend). Bands of one parity share no particle,
    /// so the result does not depend on the number of threads. [`Cloth::new`] picks it from
    /// [`PARALLEL_MIN_PARTICLES`](super::PARALLEL_MIN_PARTICLES) up; a cloth too short for two
    /// bands is solved `Interleaved`.
    Banded,
}

/// The share of its max distance within which both ends of a row link must lie for the link
/// to be kept out of the colliders whole ([`Cloth::collide_links`]).
const LINK_REACH: f32 = 0.5;

/// A simulated cloth.
#[derive(Clone, Debug)]
pub struct Cloth {
    topo: Topology,
    params: FabricParams,
    stretch: LinkList,
    shear_bend: LinkList,
    /// One pass, the stretch links then the shear/bend links, as one list (the second
    /// stiffness for the shear/bend links): the same result as the two lists one after the
    /// other, and the shear/bend links of the top rows start while the stretch links of the
    /// lower rows are still being relaxed (see `LinkList::levelled`). `None` on a cloth of
    /// more than [`PASS_MAX_LINKS`].
    pass: Option<LinkList>,
    /// Every pass of a step as one list, for a step with no colliders between its passes
    /// (with the number of passes it holds); `None` when the cloth is too large for it.
    run: Option<(u32, LinkList)>,
    /// The same links in bands, for the banded order (`None`: the serial sweep above).
    bands: Option<Bands>,
    /// The order the links are visited in.
    order: SolveOrder,
    /// The kernel projecting the link groups.
    kernel: Kernel,
    /// The positions padded to 16 bytes while the relaxation runs.
    work: Vec<P4>,
    /// The vertical links top-down and the rows, for the hard pass.
    hard: HardPass,
    /// The rest lengths per particle, for the row pass after the hard pass.
    row_pass: RowPass,
    /// Every link sorted top-down for the deformation limit, the lower end taking the whole
    /// correction (the upper one is already solved), or half each on the same row.
    limit: Vec<Proj>,
    /// The row (horizontal stretch) links, for the links' collisions.
    row_links: Vec<(u32, u32)>,
    /// Which links are torn (all whole until something stretches past the tear ratio).
    tears: Tears,
    /// Per particle: on an edge of the cloth, the topology's edges and every particle a torn
    /// stretch link has opened (a tear's lips move as free edges do: their own damping, wind,
    /// world motion and max distance).
    edge: Vec<bool>,
    /// Per particle: inverse mass relative to the hem row (pinned: 0).
    inv_mass: Vec<f32>,
    max_distance: Vec<f32>,
    /// Per particle: the artist's painted max distance, `None` where the curve applies
    /// ([`Cloth::set_painted_max_distances`]).
    painted: Vec<Option<f32>>,
    pos: Vec<Vec3>,
    /// Positions before this solver step's hard pass (for the reactions of its moves, see
    /// `HardPass::react`).
    before_hard: Vec<Vec3>,
    prev: Vec<Vec3>,
    contact: Vec<bool>,
    wind_accel: Vec<Vec3>,
    /// Each particle's share of the rest area: the mass the wind's force is divided by.
    wind_rest_share: Vec<f32>,
    wind_scratch: WindScratch,
    /// Which colliders can reach which particles in this solver step.
    broad: Broad,
    last_frame: Option<Frame>,
    /// The last step's reference points, colliders and leg lines, to interpolate substeps
    /// from.
    last_reference: Vec<Vec3>,
    last_colliders: Vec<Collider>,
    last_leg_lines: Option<LegLines>,
    /// Scratch for one substep's interpolated inputs.
    sub_reference: Vec<Vec3>,
    sub_colliders: Vec<Collider>,
    time: f64,
    stats: ClothStats,
}

impl Cloth {
    /// A cloth at its rest pose. `params` is clamped into range. Cloths of
    /// [`PARALLEL_MIN_PARTICLES`] or more are solved [`SolveOrder::Banded`] on all cores, the
    /// others [`SolveOrder::Interleaved`] on the calling thread.
    pub fn new(topo: Topology, params: &FabricParams) -> Self {
        let order = if topo.len() >= PARALLEL_MIN_PARTICLES {
            SolveOrder::Banded
        } else {
            SolveOrder::Interleaved
        };
        Self::with_order(topo, params, order)
    }

    /// A cloth whose relaxation visits the links in the given order.
    pub fn with_order(topo: Topology, params: &FabricParams, solve_order: SolveOrder) -> Self {
        let n = topo.len();
        let order = |keep: fn(ConstraintKind) -> bool| -> Vec<Proj> {
            let links: Vec<Link> = topo
                .links
                .iter()
                .copied()
                .filter(|l| keep(l.kind))
                .collect();
            let links = match solve_order {
                // Stretch: the row's vertical links (independent, grouped) then its
                // horizontal links in four segments swept side by side (Topology::
                // stretch_sweep_key).
                SolveOrder::Interleaved | SolveOrder::Banded
                    if links.iter().any(|l| l.kind.is_stretch()) =>
                {
                    let mut sorted = links;
                    sorted.sort_by_key(|l| topo.stretch_sweep_key(l));
                    sorted
                }
                SolveOrder::Interleaved | SolveOrder::Banded => {
                    let mut sorted = links;
                    sorted.sort_by_key(|l| topo.sweep_key(l));
                    interleave(&sorted, LANES - 1)
                }
                SolveOrder::Index => links,
            };
            links
                .into_iter()
                .map(|l| Proj::new(l.a, l.b, l.rest))
                .collect()
        };
        let (stretch, shear_bend) = (order(|k| k.is_stretch()), order(|k| !k.is_stretch()));
        let bands = match solve_order {
            SolveOrder::Banded => Bands::new(topo.cols, topo.rows, &stretch, &shear_bend),
            _ => None,
        };
        let pass: Vec<Proj> = stretch
            .iter()
            .copied()
            .chain(shear_bend.iter().map(|&l| Proj { set: 1, ..l }))
            .collect();
        let pass: Vec<Proj> = pass;
        let pass = (pass.len() <= PASS_MAX_LINKS).then(|| LinkList::levelled(pass));
        let (stretch, shear_bend) = (LinkList::levelled(stretch), LinkList::levelled(shear_bend));
        let hard = HardPass::new(&topo);
        let mut limit: Vec<Proj> = topo
            .links
            .iter()
            .filter(|l| !(topo.pinned[l.a as usize] && topo.pinned[l.b as usize]))
            .map(|l| {
                let (wa, wb) = limit_weights(&topo, l.a as usize, l.b as usize);
                Proj {
                    wa,
                    wb,
                    ..Proj::new(l.a, l.b, l.rest)
                }
            })
            .collect();
        limit.sort_by_key(|l| (topo.row(l.a as usize).min(topo.row(l.b as usize)), l.a, l.b));
        let row_links = (topo.links.iter())
            .filter(|l| l.kind == ConstraintKind::StretchHorizontal)
            .filter(|l| !(topo.pinned[l.a as usize] && topo.pinned[l.b as usize]))
            .map(|l| (l.a, l.b))
            .collect();
        let mut cloth = Self {
            row_links,
            limit,
            stretch,
            shear_bend,
            pass,
            run: None,
            order: match (solve_order, &bands) {
                (SolveOrder::Banded, None) => SolveOrder::Interleaved,
                _ => solve_order,
            },
            bands,
            kernel: Kernel::best(),
            work: vec![P4::default(); n],
            hard,
            row_pass: RowPass::new(&topo),
            last_leg_lines: None,
            tears: Tears::new(&topo),
            edge: topo.edge.clone(),
            inv_mass: vec![0.0; n],
            max_distance: vec![0.0; n],
            painted: vec![None; n],
            pos: topo.rest.clone(),
            before_hard: topo.rest.clone(),
            prev: topo.rest.clone(),
            contact: vec![false; n],
            wind_accel: vec![Vec3::ZERO; n],
            wind_rest_share: rest_shares(&topo.rest, &topo.triangles),
            wind_scratch: WindScratch::new(n),
            broad: Broad::new(n),
            last_frame: None,
            last_reference: vec![Vec3::ZERO; n],
            last_colliders: Vec::with_capacity(COLLIDER_CAPACITY),
            sub_reference: vec![Vec3::ZERO; n],
            sub_colliders: Vec::with_capacity(COLLIDER_CAPACITY),
            time: 0.0,
            stats: ClothStats::default(),
            params: FabricParams::default(),
            topo,
        };
        cloth.set_params(params);
        cloth
    }

    /// Applies new parameters from the next step on (clamped into range). Only per-particle
    /// limits and link weights are refreshed, with no allocation, unless the number of passes
    /// changed: then the plan of a whole step's passes is rebuilt.
    pub fn set_params(&mut self, params: &FabricParams) {
        self.params = params.clamped();
        self.refresh_limits();
        self.refresh_weights();
        self.refresh_run();
    }

    /// Rebuilds the list of a whole step's passes when the number of passes changed (from
    /// `pass`, whose weights are current).
    fn refresh_run(&mut self) {
        let passes = self.params.iterations;
        let pass = match &self.pass {
            Some(pass) if self.bands.is_none() && passes >= 2 => pass,
            _ => {
                self.run = None;
                return;
            }
        };
        if pass.len() * passes as usize > RUN_MAX_LINKS {
            self.run = None;
        } else if self.run.as_ref().is_none_or(|(n, _)| *n != passes) {
            let links = pass.links.repeat(passes as usize);
            self.run = Some((passes, LinkList::levelled(links)));
        }
    }

    /// Each particle's max distance and inverse mass from the knobs, the paint and whether it
    /// is on an edge.
    fn refresh_limits(&mut self) {
        let p = &self.params;
        let topo = &self.topo;
        for i in 0..topo.len() {
            // A pinned particle sits on its reference point: paint does not unpin it.
            let painted = self.painted[i].filter(|_| !topo.pinned[i]);
            self.max_distance[i] = painted_or_curve(p, painted, topo.row_fraction(i), self.edge[i]);
            self.inv_mass[i] = p.inv_mass_at(topo.row(i), topo.rows, topo.pinned[i]);
        }
        if p.hard_constraints {
            column_reach(topo, self.tears.cut(), &mut self.max_distance);
        }
    }

    /// Per particle: on an edge of the cloth (the topology's edges, and the lips of every
    /// tear since the last reset).
    pub fn edges(&self) -> &[bool] {
        &self.edge
    }

    /// Makes the free ends of every torn stretch link edges, and their limits an edge's.
    fn open_torn_edges(&mut self) {
        let dead = self.tears.dead();
        for (l, _) in self.topo.links.iter().zip(dead).filter(|(_, &d)| d) {
            if l.kind.is_stretch() {
                for i in [l.a as usize, l.b as usize] {
                    // A pinned particle does not move, edge or not.
                    self.edge[i] |= !self.topo.pinned[i];
                }
            }
        }
        self.refresh_limits();
    }

    /// Every solver link's correction shares from the mass falloff, zero for a torn link (a
    /// projection that moves nothing, so the lists keep their plan); the deformation limit
    /// leaves torn links out the same way.
    fn refresh_weights(&mut self) {
        let (topo, tears) = (&self.topo, &self.tears);
        let falloff = self.params.mass_falloff;
        let serial = [(0, &mut self.stretch), (0, &mut self.shear_bend)];
        let merged = (self.pass.iter_mut()).chain(self.run.iter_mut().map(|(_, list)| list));
        let run = merged.map(|list| (0, list));
        let banded = self.bands.iter_mut().flat_map(|b| b.lists_mut());
        for (start, list) in serial.into_iter().chain(run).chain(banded) {
            for proj in &mut list.links {
                let (a, b) = (proj.a as usize + start, proj.b as usize + start);
                (proj.wa, proj.wb) = if tears.is_dead(a as u32, b as u32) {
                    (0.0, 0.0)
                } else {
                    link_weights(topo, falloff, a, b)
                };
            }
            list.sync_packs();
        }
        for proj in &mut self.limit {
            if tears.is_dead(proj.a, proj.b) {
                (proj.wa, proj.wb) = (0.0, 0.0);
            } else {
                (proj.wa, proj.wb) = limit_weights(topo, proj.a as usize, proj.b as usize);
            }
        }
    }

    /// Links out of the solve since the start or the last reset: torn, or gone with a torn
    /// stretch link.
    pub fn torn_count(&self) -> usize {
        self.tears.count()
    }

    /// Per link of [`Cloth::topology`]: out of the solve (torn, or gone with a torn stretch
    /// link).
    pub fn torn_links(&self) -> &[bool] {
        self.tears.dead()
    }

    /// Whether the link between particles `a` and `b` is out of the solve (torn, or gone with
    /// a torn stretch link); false when there is no such link.
    pub fn is_torn(&self, a: u32, b: u32) -> bool {
        self.tears.is_dead(a, b)
    }

    /// The artist's painted max distances in use, one per particle (`None`: the curve).
    pub fn painted_max_distances(&self) -> &[Option<f32>] {
        &self.painted
    }

    /// Uses the artist's painted max distances (metres, one per particle in the grid's order,
    /// `None` where the curve applies; see [`painted_or_curve`]) from the next step on; an
    /// empty slice goes back to the curve everywhere. Pinned particles keep theirs. Returns
    /// false, changing nothing, when `painted` is neither empty nor one entry per particle.
    pub fn set_painted_max_distances(&mut self, painted: &[Option<f32>]) -> bool {
        match painted.len() {
            0 => self.painted.fill(None),
            n if n == self.painted.len() => self.painted.copy_from_slice(painted),
            _ => return false,
        }
        let params = self.params.clone();
        self.set_params(&params);
        true
    }

    /// The parameters in use (after clamping).
    pub fn params(&self) -> &FabricParams {
        &self.params
    }

    /// Relaxation projections per step (links x iterations), for throughput figures.
    pub fn projections_per_step(&self) -> usize {
        (self.stretch.len() + self.shear_bend.len()) * self.params.iterations as usize
    }

    /// The kernel projecting the relaxation's link groups ([`Kernel::best`] unless set).
    pub fn kernel(&self) -> Kernel {
        self.kernel
    }

    /// Projects the link groups with `kernel` from the next step on, when this CPU runs it
    /// (returns whether it does; otherwise nothing changes). Every kernel gives the same
    /// positions, bit for bit; this is for tests and benches.
    pub fn set_kernel(&mut self, kernel: Kernel) -> bool {
        let ok = kernel.is_available();
        if ok {
            self.kernel = kernel;
        }
        ok
    }

    /// The order the relaxation visits the links in (a `Banded` request on a cloth too short
    /// for two bands reads `Interleaved`).
    pub fn solve_order(&self) -> SolveOrder {
        self.order
    }

    /// The bands of the banded order.
    #[cfg(test)]
    pub(super) fn bands(&self) -> Option<&Bands> {
        self.bands.as_ref()
    }

    /// The topology the cloth was built from.
    pub fn topology(&self) -> &Topology {
        &self.topo
    }

    /// Particle positions in character space.
    pub fn positions(&self) -> &[Vec3] {
        &self.pos
    }

    /// Previous-step positions in character space (velocity is `positions - previous`).
    pub fn previous_positions(&self) -> &[Vec3] {
        &self.prev
    }

    /// Which particles touched a collider in the last step.
    pub fn contacts(&self) -> &[bool] {
        &self.contact
    }

    /// Each particle's max distance from its reference point, metres.
    pub fn max_distances(&self) -> &[f32] {
        &self.max_distance
    }

    /// Each particle's inverse mass relative to the hem (1 at the hem, 0 when pinned).
    pub fn inverse_masses(&self) -> &[f32] {
        &self.inv_mass
    }

    /// Seconds simulated since the start (or the last [`Cloth::reset_to`]).
    pub fn time(&self) -> f64 {
        self.time
    }

    /// What the safety nets have done so far.
    pub fn stats(&self) -> ClothStats {
        self.stats
    }

    /// Puts every particle at rest on `reference` (character space), mends every torn link and
    /// forgets the previous frame and time. Counters are kept. Refuses a reference of the wrong length or with a
    /// non-finite point.
    pub fn reset_to(&mut self, reference: &[Vec3]) -> Result<(), StepError> {
        self.check_reference(reference)?;
        self.rest_on(reference);
        Ok(())
    }

    /// Puts every particle at rest on `input.reference`, like [`Cloth::reset_to`], and keeps
    /// `input` as the last step's inputs: the first step then moves the character from this
    /// pose (world motion and, with substeps, the interpolated inputs start here) instead of
    /// treating its pose as the one it always had. Refuses what [`Cloth::step`] refuses and
    /// leaves the cloth as it was.
    pub fn reset_on(&mut self, input: &StepInput) -> Result<(), StepError> {
        self.check_input(input)?;
        self.rest_on(input.reference);
        self.last_frame = Some(input.frame);
        self.last_reference.copy_from_slice(input.reference);
        self.last_colliders.clear();
        self.last_colliders.extend_from_slice(input.colliders);
        self.last_leg_lines = input.leg_lines.copied();
        Ok(())
    }

    /// Every particle at rest on `reference` (already checked), no previous frame, time 0,
    /// every torn link mended.
    fn rest_on(&mut self, reference: &[Vec3]) {
        if self.tears.count() > 0 {
            self.tears.mend();
            self.refresh_weights();
            self.edge.copy_from_slice(&self.topo.edge);
            self.refresh_limits();
        }
        self.pos.copy_from_slice(reference);
        self.prev.copy_from_slice(reference);
        self.contact.fill(false);
        self.last_frame = None;
        self.time = 0.0;
    }

    /// Overwrites the state: current and previous positions (character space), one per
    /// particle; velocity per step is their difference. For tools and tests that need a given
    /// state. Refuses the wrong length or non-finite values and leaves the cloth as it was.
    pub fn set_positions(&mut self, pos: &[Vec3], prev: &[Vec3]) -> Result<(), StepError> {
        self.check_reference(pos)?;
        self.check_reference(prev)?;
        self.pos.copy_from_slice(pos);
        self.prev.copy_from_slice(prev);
        Ok(())
    }

    /// Moves one free particle to `target` (character space) keeping its previous position, so
    /// the move carries on as velocity: a mouse drag. Pinned particles, out-of-range indices
    /// and non-finite targets are ignored.
    pub fn drag_particle(&mut self, index: usize, target: Vec3) {
        if index < self.pos.len() && !self.topo.pinned[index] && target.is_finite() {
            self.pos[index] = target;
        }
    }

    /// Overwrites positions without the finiteness check (to test the explosion safety net).
    #[cfg(test)]
    pub(crate) fn positions_mut(&mut self) -> &mut [Vec3] {
        &mut self.pos
    }

    fn check_input(&self, input: &StepInput) -> Result<(), StepError> {
        self.check_reference(input.reference)?;
        if !input.frame.is_finite() {
            return Err(StepError::FrameNotFinite);
        }
        if let Some(i) = input.colliders.iter().position(|c| !c.is_valid()) {
            return Err(StepError::BadCollider(i));
        }
        if input.leg_lines.is_some_and(|l| !l.is_valid()) {
            return Err(StepError::BadLegLines);
        }
        Ok(())
    }

    fn check_reference(&self, reference: &[Vec3]) -> Result<(), StepError> {
        if reference.len() != self.pos.len() {
            return Err(StepError::ReferenceCount {
                expected: self.pos.len(),
                got: reference.len(),
            });
        }
        if let Some(i) = reference.iter().position(|p| !p.is_finite()) {
            return Err(StepError::ReferenceNotFinite(i));
        }
        Ok(())
    }

    /// Advances the cloth by one fixed step of `1 / timestep_hz` seconds: `substeps` solver
    /// steps, each seeing the character's frame, the reference points, the colliders and the
    /// leg lines interpolated between the last step's and this one's (linearly; rotations
    /// along the shortest arc). With one substep the inputs are used as given.
    pub fn step(&mut self, input: &StepInput) -> Result<StepReport, StepError> {
        self.check_input(input)?;
        let n = self.params.substeps.max(1);
        let report = if n == 1 {
            self.substep(
                input.frame,
                input.reference,
                input.colliders,
                input.leg_lines,
                self.params.dt(),
                1.0 / self.params.timestep_hz as f64,
            )
        } else {
            let dt = self.params.solver_dt();
            let dt_time = 1.0 / (self.params.timestep_hz as f64 * n as f64);
            // Taken out for the loop (no allocation) and put back after.
            let mut reference = std::mem::take(&mut self.sub_reference);
            let mut colliders = std::mem::take(&mut self.sub_colliders);
            // A cut is decided on the whole step: split into substeps, a jump of a few metres
            // (or a half turn) would pass for motion. Across a cut every substep sees the new
            // frame, so the first one takes the cut and the others no world motion.
            // The last step's inputs are there once a step has run since the start or a reset
            // (the step that remembers the frame also keeps the reference points and colliders).
            let has_last = self.last_frame.is_some();
            let start_frame = self
                .last_frame
                .filter(|last| !WorldMotion::between(last, &input.frame).is_cut());
            let same_colliders = has_last && self.last_colliders.len() == input.colliders.len();
            let mut report = StepReport::default();
            for k in 1..=n {
                let w = k as f32 / n as f32;
                let frame = match start_frame {
                    Some(a) if k < n => a.lerp(&input.frame, w),
                    _ => input.frame,
                };
                if has_last && k < n {
                    for ((o, a), b) in reference
                        .iter_mut()
                        .zip(&self.last_reference)
                        .zip(input.reference)
                    {
                        *o = a.lerp(*b, w);
                    }
                } else {
                    reference.copy_from_slice(input.reference);
                }
                colliders.clear();
                if same_colliders && k < n {
                    colliders.extend(
                        self.last_colliders
                            .iter()
                            .zip(input.colliders)
                            .map(|(a, b)| a.lerp(b, w)),
                    );
                } else {
                    colliders.extend_from_slice(input.colliders);
                }
                let lines = match (&self.last_leg_lines, input.leg_lines) {
                    (Some(a), Some(b)) if has_last && k < n => Some(a.lerp(b, w)),
                    _ => input.leg_lines.copied(),
                };
                let lines = lines.as_ref();
                report = self.substep(frame, &reference, &colliders, lines, dt, dt_time);
            }
            self.sub_reference = reference;
            self.sub_colliders = colliders;
            report
        };
        self.last_reference.copy_from_slice(input.reference);
        self.last_colliders.clear();
        self.last_colliders.extend_from_slice(input.colliders);
        self.last_leg_lines = input.leg_lines.copied();
        self.stats.steps += 1;
        Ok(report)
    }

    /// One solver step of `dt` seconds (`dt_time`, the same in f64, advances the clock). A
    /// banded cloth runs it on the current rayon pool (the global one unless the caller
    /// installed another): one hand-over per solver step, after which the relaxation's bands
    /// and the hard pass's columns are shared out cheaply.
    fn substep(
        &mut self,
        frame: Frame,
        reference: &[Vec3],
        colliders: &[Collider],
        lines: Option<&LegLines>,
        dt: f32,
        dt_time: f64,
    ) -> StepReport {
        if self.bands.is_some() {
            rayon::scope(|_| self.stages(frame, reference, colliders, lines, dt, dt_time))
        } else {
            self.stages(frame, reference, colliders, lines, dt, dt_time)
        }
    }

    /// The solver step's stages in the order the module documentation gives.
    fn stages(
        &mut self,
        frame: Frame,
        reference: &[Vec3],
        colliders: &[Collider],
        lines: Option<&LegLines>,
        dt: f32,
        dt_time: f64,
    ) -> StepReport {
        let p = self.params.clone();
        self.apply_world_motion(frame, &p);
        self.pin(reference);
        if !colliders.is_empty() {
            self.broad
                .update(reference, &self.max_distance, colliders, p.collision_margin);
        }
        // Gravity and wind arrive in world space; the cloth lives in character space.
        let to_local = frame.rotation.inverse();
        self.compute_wind(to_local, &p, dt);
        self.integrate(to_local * Vec3::new(0.0, -p.gravity, 0.0), &p, dt);
        // A garment over the legs lifts its row links out of the legs in the row pass.
        let links = lines.is_none();
        self.relax_passes(colliders, reference, &p, links);
        if self.tears.check(&self.topo, &self.pos, p.tear_ratio) {
            self.refresh_weights();
            self.open_torn_edges();
        }
        if p.deformation_limit {
            self.limit_deformation(p.max_stretch_ratio);
        }
        // Explosion check before the clamps hide it.
        if self.exploded(reference) {
            return self.reset_exploded(reference, dt_time);
        }
        let contacts = self.collide(colliders, reference, p.collision_margin, true, links);
        if p.hard_constraints {
            let input = HardInput {
                reference,
                max_distance: &self.max_distance,
                colliders,
                margin: p.collision_margin,
                sideways: p.deformation_limit.then_some(p.max_stretch_ratio),
                cut: self.tears.cut(),
                broad: Some(&self.broad),
            };
            self.before_hard.copy_from_slice(&self.pos);
            let (pos, contact, stats) = (&mut self.pos, &mut self.contact, &mut self.stats);
            let parallel = self.bands.is_some();
            self.hard
                .run(&self.topo, pos, contact, stats, &input, parallel);
            let (before, prev) = (&self.before_hard, &mut self.prev);
            let cut = self.tears.cut();
            self.hard
                .react(&self.topo, pos, before, prev, p.mass_falloff, cut);
        }
        self.hold_rows(reference, colliders, lines);
        self.time += dt_time;
        StepReport {
            reset: false,
            contacts,
        }
    }

    /// The row pass ([`super::row_pass`]) on the cloth, where it is a tube or has `lines`.
    fn hold_rows(&mut self, reference: &[Vec3], colliders: &[Collider], lines: Option<&LegLines>) {
        if !RowPass::runs(&self.topo, lines) {
            return;
        }
        let p = &self.params;
        let input = RowInput {
            reference,
            max_distance: &self.max_distance,
            colliders,
            margin: p.collision_margin,
            sideways: p.deformation_limit.then_some(p.max_stretch_ratio),
            lines,
        };
        self.row_pass
            .run(&self.topo, &input, &mut self.pos, &mut self.prev);
    }

    /// Moves every free particle (and its previous position, so the offset carries inertia) by
    /// the given fraction of the character's motion since the last step, seen from the
    /// character: a fraction of 1 leaves the particle where it was in the world. A cut is
    /// counted and moves nothing.
    fn apply_world_motion(&mut self, frame: Frame, p: &FabricParams) {
        let Some(last) = self.last_frame.replace(frame) else {
            return;
        };
        let motion = WorldMotion::between(&last, &frame);
        if motion.is_cut() {
            self.stats.teleports += 1;
            return;
        }
        // A character standing still moves nothing (carrying by the identity would only turn
        // a -0 coordinate into +0).
        let moving = |m: &Frame| *m != Frame::IDENTITY;
        let base = motion.fraction(p.world_motion_fraction).filter(moving);
        let edge = motion.fraction(p.edge_world_motion_fraction).filter(moving);
        if base.is_none() && edge.is_none() {
            return;
        }
        for i in 0..self.pos.len() {
            if self.topo.pinned[i] {
                continue;
            }
            let Some(m) = (if self.edge[i] { edge } else { base }) else {
                continue;
            };
            carry(&m, &mut self.pos[i], &mut self.prev[i]);
        }
    }

    /// Pinned particles go to their reference first, so everything after (the wind's triangle
    /// normals included) sees this step's pose, whatever frame the cloth is in.
    // Walks positions, pins and reference points in step.
    #[allow(clippy::needless_range_loop)]
    #[inline]
    fn pin(&mut self, reference: &[Vec3]) {
        for i in 0..self.pos.len() {
            if self.topo.pinned[i] {
                self.pos[i] = reference[i];
                self.prev[i] = reference[i];
            }
        }
    }

    /// Each particle's wind acceleration for this step, from the triangles around it;
    /// `to_local` turns the world's wind into character space.
    #[inline]
    fn compute_wind(&mut self, to_local: Quat, p: &FabricParams, dt: f32) {
        let air = Air {
            wind: to_local * steady_wind(p.wind_direction_deg, p.wind_speed),
            gust: Gust {
                amplitude: p.gust_amplitude,
                frequency: p.gust_frequency,
                time: self.time,
            },
            drag: p.wind_drag,
            dt,
            max_scale: p.edge_wind_scale,
        };
        let mesh = WindMesh {
            triangles: &self.topo.triangles,
            rest: &self.topo.rest,
            rest_share: &self.wind_rest_share,
        };
        triangle_wind(
            &self.pos,
            &self.prev,
            &mesh,
            &air,
            &mut self.wind_accel,
            &mut self.wind_scratch,
        );
    }

    /// Verlet with each particle's own damping, under `gravity` (character space) and its
    /// wind. Reads the contact flags of the last step and clears them: this step's collisions
    /// set them anew.
    #[inline]
    fn integrate(&mut self, gravity: Vec3, p: &FabricParams, dt: f32) {
        let dt2 = dt * dt;
        let topo = &self.topo;
        let particles = (self.pos.iter_mut().zip(&mut self.prev))
            .zip(topo.pinned.iter().zip(&self.edge))
            .zip(self.contact.iter().zip(&self.wind_accel));
        for (((x, prev), (&pinned, &edge)), (&contact, &wind)) in particles {
            if pinned {
                continue;
            }
            let damping = if contact {
                p.contact_damping
            } else if edge {
                p.edge_damping
            } else {
                p.damping
            };
            let wind = if edge { wind * p.edge_wind_scale } else { wind };
            let v = *x - *prev;
            *prev = *x;
            *x = *x + v * (1.0 - damping) + (gravity + wind) * dt2;
        }
        self.contact.fill(false);
    }

    /// `iterations` relaxation passes: the stretch links, then the shear/bend links, each with
    /// its own stiffness, on the padded copy of the positions (left equal to them).
    #[inline]
    fn relax_passes(
        &mut self,
        colliders: &[Collider],
        reference: &[Vec3],
        p: &FabricParams,
        links: bool,
    ) {
        if p.iterations == 0 {
            return;
        }
        pad(&self.pos, &mut self.work);
        self.relax_padded(colliders, reference, p, links);
        unpad(&self.work, &mut self.pos);
    }

    /// The passes of [`Cloth::relax_passes`] on `work` (padded on entry, read back on exit).
    /// Every form gives the same bits: the two lists one after the other, the one list of a
    /// pass, or with no colliders to push between the passes, the one list of them all.
    fn relax_padded(
        &mut self,
        colliders: &[Collider],
        reference: &[Vec3],
        p: &FabricParams,
        links: bool,
    ) {
        let k = [p.stretch_stiffness, p.shear_bend_stiffness];
        // A stiffness of 0 skips its links (no move, not even -0 to +0): only the two lists.
        let together = k.iter().all(|&k| k > 0.0);
        if let (Some((passes, run)), true) = (&self.run, together && colliders.is_empty()) {
            if *passes == p.iterations {
                relax(&mut self.work, run, k, self.kernel);
                return;
            }
        }
        for pass in 0..p.iterations {
            match (&self.bands, &self.pass) {
                (Some(bands), _) => bands.relax(&mut self.work, k[0], k[1], self.kernel),
                (None, Some(list)) if together => relax(&mut self.work, list, k, self.kernel),
                (None, _) => {
                    relax(&mut self.work, &self.stretch, [k[0]; 2], self.kernel);
                    relax(&mut self.work, &self.shear_bend, [k[1]; 2], self.kernel);
                }
            }
            // Contacts inside the loop, so constraints and colliders settle together instead
            // of fighting once at the end (a leg pushing into the cloth lifts it over the leg).
            // The last pass's contacts are the collision stage after the explosion check.
            if !colliders.is_empty() && pass + 1 < p.iterations {
                unpad(&self.work, &mut self.pos);
                self.collide(colliders, reference, p.collision_margin, false, links);
                pad(&self.pos, &mut self.work);
            }
        }
    }

    /// Provot's deformation limit, [`LIMIT_PASSES`] times, on the padded copy of the
    /// positions: the relaxation leaves it equal to them (tearing, in between, reads the
    /// positions and moves nothing); with no relaxation passes it is made here.
    #[inline]
    fn limit_deformation(&mut self, ratio: f32) {
        if self.params.iterations == 0 {
            pad(&self.pos, &mut self.work);
        }
        let mut moved = false;
        for _ in 0..LIMIT_PASSES {
            // A pass that found every link within the limit moved nothing, and the next would
            // find the same.
            if !limit_stretch(&mut self.work, &self.limit, ratio) {
                break;
            }
            moved = true;
        }
        if moved {
            unpad(&self.work, &mut self.pos);
        }
    }

    /// Whether a particle is non-finite or further from its reference point than
    /// [`EXPLODE_FACTOR`] x its max distance (at least [`EXPLODE_MIN_DISTANCE`]).
    #[inline]
    fn exploded(&self, reference: &[Vec3]) -> bool {
        self.pos
            .iter()
            .zip(reference)
            .zip(&self.max_distance)
            .any(|((x, r), &md)| {
                let limit = (md * EXPLODE_FACTOR).max(EXPLODE_MIN_DISTANCE);
                !x.is_finite() || (!surely_within(*x, *r, limit) && x.distance(*r) > limit)
            })
    }

    /// After an explosion: the cloth at rest on the reference pose, counted; the solver step
    /// ends here.
    fn reset_exploded(&mut self, reference: &[Vec3], dt_time: f64) -> StepReport {
        self.pos.copy_from_slice(reference);
        self.prev.copy_from_slice(reference);
        self.contact.fill(false);
        self.stats.resets += 1;
        self.time += dt_time;
        StepReport {
            reset: true,
            contacts: 0,
        }
    }

    /// Pushes every free particle out of every collider (deep ones toward their reference)
    /// and marks the ones that touched; with `clamp`, then puts every particle further than its
    /// max distance from its reference point onto that sphere (both are each particle's own
    /// business, so one walk does both); with `links`, then the row links
    /// ([`Cloth::collide_links`]). Returns how many particles are marked this step.
    fn collide(
        &mut self,
        colliders: &[Collider],
        reference: &[Vec3],
        margin: f32,
        clamp: bool,
        links: bool,
    ) -> u32 {
        // Every per-particle slice cut to one length, so the walk checks no index.
        let n = self.pos.len();
        let (pinned, reference) = (&self.topo.pinned[..n], &reference[..n]);
        let (max_distance, contact) = (&self.max_distance[..n], &mut self.contact[..n]);
        let mut marked = 0;
        for (i, slot) in self.pos.iter_mut().enumerate() {
            let mut x = *slot;
            if !pinned[i] && !colliders.is_empty() {
                let candidates = self.broad.of(i, margin);
                let (y, touched) =
                    push_out_each(colliders, candidates, x, Some(reference[i]), margin);
                x = y;
                contact[i] |= touched;
            }
            if clamp {
                x = clamp_to(x, reference[i], max_distance[i]);
            }
            *slot = x;
            marked += contact[i] as u32;
        }
        if links && !colliders.is_empty() {
            marked += self.collide_links(colliders, reference, margin, clamp);
        }
        marked
    }

    /// Moves every row link that still cuts through a collider out of it whole, both free ends
    /// the same way ([`Collider::link_push`]), marks them as touching and, with `clamp`, puts
    /// them back within their max distance. Pushed out one by one, the two ends of a link a
    /// limb rises between (a thigh into a jacket's hem, an arm into a veil) leave by the two
    /// sides of it, a limb's width apart, and the row stretches round it; moved whole, the row
    /// goes over it. A link lying on a collider cuts into it between its ends, so this also
    /// holds resting cloth a chord's depth further out, and those ends touch: contact damping
    /// holds them as it holds a particle pushed out. A link with an end further from its
    /// reference point than [`LINK_REACH`] of its max distance (a panel a storm blew round a
    /// leg) is left to pass through, as particles may: held on the far side, it hooked on the
    /// thigh and never came back. Returns how many particles it newly marked.
    fn collide_links(
        &mut self,
        colliders: &[Collider],
        reference: &[Vec3],
        margin: f32,
        clamp: bool,
    ) -> u32 {
        let mut marked = 0;
        for &(a, b) in &self.row_links {
            if self.tears.is_dead(a, b) {
                continue;
            }
            let (a, b) = (a as usize, b as usize);
            // Only the colliders that can reach the link where it is; recomputed once it moved.
            let mut reach = self
                .broad
                .of_segment(a, b, self.pos[a], self.pos[b], margin);
            for (k, c) in colliders.iter().enumerate() {
                if k < MASK_BITS && reach >> k & 1 == 0 {
                    continue;
                }
                let Some(push) = c.link_push(self.pos[a], self.pos[b], margin) else {
                    continue;
                };
                let far = |i: usize| {
                    self.pos[i].distance(reference[i]) > LINK_REACH * self.max_distance[i]
                };
                if far(a) || far(b) {
                    continue;
                }
                for i in [a, b] {
                    if self.topo.pinned[i] {
                        continue;
                    }
                    let mut x = self.pos[i] + push;
                    if clamp {
                        x = clamp_to(x, reference[i], self.max_distance[i]);
                    }
                    self.pos[i] = x;
                    marked += u32::from(!self.contact[i]);
                    self.contact[i] = true;
                }
                reach = self
                    .broad
                    .of_segment(a, b, self.pos[a], self.pos[b], margin);
            }
        }
        marked
    }
}

/// With the hard constraints on, no particle may stray further from its reference point than
/// any particle below it in its column: the column is held at rest length, so a particle held
/// close below (a small painted max distance under a larger one) would otherwise have to pull
/// its link long, or the hard pass would have to give. Walking up from the hem, each particle
/// keeps the smaller of its own max distance and the one below it. A curve that grows toward
/// the hem (every shipped preset) is unchanged. Above a torn vertical link (`cut`, see
/// [`Tears::cut`]) the column no longer hangs the particles below, so their limit stays theirs.
fn column_reach(topo: &Topology, cut: &[u8], max_distance: &mut [f32]) {
    for i in (0..topo.len().saturating_sub(topo.cols)).rev() {
        if !topo.pinned[i] && cut[i + topo.cols] & CUT_UP == 0 {
            max_distance[i] = max_distance[i].min(max_distance[i + topo.cols]);
        }
    }
}

/// Whether `x` is closer than `radius` to `center` by its squared distance alone, with a
/// millionth to spare: then `x.distance(center)` (the square root of the same squared
/// distance, correctly rounded) is below `radius` too, and the callers skip the square root.
#[inline(always)]
pub(super) fn surely_within(x: Vec3, center: Vec3, radius: f32) -> bool {
    x.distance_squared(center) < radius * radius * (1.0 - 1e-6)
}

/// Whether `x` is at least `radius` from `center` by its squared distance alone, with a
/// millionth to spare: then `x.distance(center)` is at least `radius` too ([`surely_within`]'s
/// other side).
#[inline(always)]
pub(super) fn surely_beyond(x: Vec3, center: Vec3, radius: f32) -> bool {
    x.distance_squared(center) > radius * radius * (1.0 + 1e-6)
}

/// `x` moved onto the sphere of `radius` around `center` when it is outside it.
#[inline]
pub(super) fn clamp_to(x: Vec3, center: Vec3, radius: f32) -> Vec3 {
    let d = x - center;
    let len2 = d.length_squared();
    if len2 <= radius * radius {
        return x;
    }
    center + d * (radius / len2.sqrt())
}

/// The correction shares of a link's ends: inverse-mass weights summing to 1 (a row weighs
/// `falloff` times the row below it), all to the free end when one is pinned, none when both.
fn link_weights(topo: &Topology, falloff: f32, a: usize, b: usize) -> (f32, f32) {
    match (topo.pinned[a], topo.pinned[b]) {
        (true, true) => (0.0, 0.0),
        (true, false) => (0.0, 1.0),
        (false, true) => (1.0, 0.0),
        (false, false) => {
            // inv_a / inv_b = falloff^(row_a - row_b); computed from the row gap so a tall
            // cloth cannot underflow.
            let ratio = falloff.powi(topo.row(a) as i32 - topo.row(b) as i32);
            let wa = ratio / (1.0 + ratio);
            (wa, 1.0 - wa)
        }
    }
}

/// The deformation limit's correction shares: the lower end takes it all (the upper one is
/// already solved), or half each on the same row.
fn limit_weights(topo: &Topology, a: usize, b: usize) -> (f32, f32) {
    let (ra, rb) = (topo.row(a), topo.row(b));
    if ra == rb {
        (0.5, 0.5)
    } else if ra < rb {
        (0.0, 1.0)
    } else {
        (1.0, 0.0)
    }
}

/// For a link `d` (from one end to the other) of rest length `rest`: the share of `d` by which
/// it is longer than `ratio` x rest, or `None` when it is not (or is degenerate).
pub(super) fn excess(d: Vec3, rest: f32, ratio: f32) -> Option<f32> {
    let limit = rest * ratio;
    // Nearly every link is within the limit: its squared length settles most of them
    // without the square root.
    if surely_within(d, Vec3::ZERO, limit) {
        return None;
    }
    let len = d.length();
    (len > limit && len > 1e-9).then(|| (len - limit) / len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn surely_within_or_beyond_never_says_so_of_a_point_the_distance_puts_on_the_other_side() {
        // Points on and around spheres of many sizes, a few float steps either side of the
        // radius: wherever the squared distance says "within" (or "beyond"), the distance the
        // callers would otherwise take is below the radius (or at least it); and most points
        // well inside (or outside) are caught.
        let (mut caught, mut inside, mut caught_out, mut outside) = (0, 0, 0, 0);
        for k in 0..2000u32 {
            let radius = 1e-3 * 1.37f32.powi((k % 40) as i32);
            let center = Vec3::new(0.3, 1.1, -0.2) * (k % 7) as f32;
            let t = k as f32 * 0.618;
            let dir = Vec3::new(t.cos(), (t * 1.3).sin(), (t * 0.7).cos()).normalize();
            let scale = 1.0 + ((k % 9) as f32 - 4.0) * 1e-7 + ((k % 5) as f32 - 2.0) * 0.1;
            let x = center + dir * radius * scale;
            let d = x.distance(center);
            if surely_within(x, center, radius) {
                assert!(d < radius, "{x} {center} {radius}: {d}");
                caught += 1;
            }
            inside += (d < radius * 0.99) as u32;
            if surely_beyond(x, center, radius) {
                assert!(d >= radius, "{x} {center} {radius}: {d}");
                caught_out += 1;
            }
            outside += (d > radius * 1.01) as u32;
        }
        assert!(caught >= inside, "{caught} of {inside}");
        assert!(
            caught_out >= outside && outside > 0,
            "{caught_out} of {outside}"
        );
    }

    #[test]
    fn the_merged_link_lists_give_the_two_lists_bits_through_knob_changes() {
        // A hanging 14 x 10 cloth stepped with the passes merged into one list (no
        // colliders), and with each pass's two lists one after the other: the same bits,
        // also after the knobs change the weights (mass falloff) and the number of passes.
        let topo = Topology::flat_grid(14, 10, 0.05, Vec3::new(0.0, 1.5, 0.0));
        let rest = topo.rest.clone();
        let params = FabricParams {
            iterations: 4,
            ..FabricParams::default()
        };
        let mut merged = Cloth::new(topo, &params);
        assert!(merged.run.is_some() && merged.pass.is_some());
        let mut separate = merged.clone();
        separate.run = None;
        separate.pass = None;
        let frame = |k: usize| Frame {
            translation: Vec3::new(0.2 * (k as f32 * 0.1).sin(), 0.0, 0.0),
            ..Frame::IDENTITY
        };
        let changed = FabricParams {
            mass_falloff: params.mass_falloff * 1.5,
            iterations: 7,
            ..params.clone()
        };
        for k in 0..90 {
            if k == 45 {
                merged.set_params(&changed);
                separate.set_params(&changed);
                separate.run = None;
            }
            for cloth in [&mut merged, &mut separate] {
                let input = StepInput {
                    frame: frame(k),
                    reference: &rest,
                    colliders: &[],
                    leg_lines: None,
                };
                cloth.step(&input).unwrap();
            }
        }
        assert_eq!(merged.run.as_ref().map(|r| r.0), Some(7));
        let bits = |c: &Cloth| -> Vec<[u32; 3]> {
            c.positions()
                .iter()
                .map(|p| p.to_array().map(f32::to_bits))
                .collect()
        };
        assert_ne!(merged.positions(), &rest[..]);
        assert_eq!(bits(&merged), bits(&separate));
    }

    #[test]
    fn a_torn_vertical_link_frees_the_column_above_from_the_limit_below_it() {
        // 3 x 4, top row pinned. Column 1's hem particle is painted to 0: with the column
        // hung at rest length from above, the particles over it take the same limit.
        let topo = Topology::flat_grid(3, 4, 0.1, Vec3::ZERO);
        let (above, below) = (3 + 1, 2 * 3 + 1);
        let mut cloth = Cloth::new(topo, &FabricParams::default());
        let mut painted = vec![None; 12];
        painted[3 * 3 + 1] = Some(0.0);
        cloth.set_painted_max_distances(&painted);
        assert_eq!(cloth.max_distances()[above], 0.0);
        // The link from row 1 down to row 2 tears: row 1 keeps its own limit.
        let torn = (cloth.topo.links.iter())
            .position(|l| (l.a as usize, l.b as usize) == (above, below))
            .unwrap();
        let topo = cloth.topo.clone();
        cloth.tears.tear(&topo, torn);
        cloth.refresh_limits();
        let own = cloth
            .params
            .max_distance_at(topo.row_fraction(above), false);
        assert_eq!(cloth.max_distances()[above], own);
        assert_eq!(
            cloth.max_distances()[below],
            0.0,
            "still over the painted hem"
        );
    }

    #[test]
    fn link_weights_follow_rows_and_pins() {
        // Rows: 0 pinned, 1, 2. Falloff 2: a row weighs twice the row below it.
        let topo = Topology::flat_grid(2, 3, 0.1, Vec3::ZERO);
        let params = FabricParams {
            mass_falloff: 2.0,
            ..Default::default()
        };
        let cloth = Cloth::new(topo, &params);
        for l in cloth.stretch.links.iter().chain(&cloth.shear_bend.links) {
            let (ra, rb) = (l.a as usize / 2, l.b as usize / 2);
            let (wa, wb) = (l.wa, l.wb);
            if ra == 0 && rb == 0 {
                assert_eq!((wa, wb), (0.0, 0.0));
            } else if ra == 0 {
                assert_eq!((wa, wb), (0.0, 1.0));
            } else if rb == ra + 1 {
                // Upper particle is twice as heavy: it moves a third.
                assert!((wa - 1.0 / 3.0).abs() < 1e-6 && (wb - 2.0 / 3.0).abs() < 1e-6);
            } else {
                assert_eq!((wa, wb), (0.5, 0.5));
            }
        }
        assert_eq!(cloth.inverse_masses(), &[0.0, 0.0, 0.5, 0.5, 1.0, 1.0]);
    }
}
