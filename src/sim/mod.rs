//! The cloth simulation, in three tiers: [`Topology`] (built once), [`FabricParams`] (live
//! knobs) and the per-step state inside [`Cloth`]. No window, no GL: a game engine can depend on
//! this module and [`crate::preset`] alone.
//!
//! A cloth is a grid of particles in character space: build a [`Topology`] from its rest
//! positions (row 0 is pinned), a [`Cloth`] from the topology and a fabric, then call
//! [`Cloth::step`] at the fabric's fixed rate ([`FixedStep`] turns frame times into steps) with
//! the character's world [`Frame`], each particle's reference point (its rest position skinned
//! to the character) and the [`Collider`]s. A garment closed into a tube
//! ([`Topology::with_seam`]) or hanging over the legs ([`LegLines`]) ends each solver step
//! with the row pass. `docs/preset-format.md` describes the step.
//!
//! ```
//! use cloth_tuner::sim::{Cloth, Collider, FabricParams, FixedStep, Frame, StepInput, Topology};
//! use glam::{Quat, Vec3};
//!
//! // A 6 x 5 sheet, 5 cm apart, hanging from a row at 1.2 m.
//! let topology = Topology::flat_grid(6, 5, 0.05, Vec3::new(-0.125, 1.2, 0.2));
//! let rest = topology.rest.clone();
//! let params = FabricParams::default();
//! let mut cloth = Cloth::new(topology, &params);
//! let mut clock = FixedStep::new(params.timestep_hz, 4);
//! let body = [Collider::Sphere { center: Vec3::new(0.0, 1.0, 0.0), radius: 0.15 }];
//! let mut walked = 0.0;
//! for _frame in 0..30 {
//!     for _ in 0..clock.advance(1.0 / 60.0) {
//!         walked += 1.4 * clock.dt() as f32; // walking forward at 1.4 m/s
//!         let frame = Frame::new(Quat::IDENTITY, Vec3::new(0.0, 0.0, walked));
//!         let input = StepInput { frame, reference: &rest, colliders: &body, leg_lines: None };
//!         cloth.step(&input)?;
//!     }
//! }
//! assert_eq!(cloth.stats().steps, 30);
//! let hem = &cloth.positions()[4 * 6..];
//! assert!(hem.iter().all(|p| p.is_finite()));
//! # Ok::<(), cloth_tuner::sim::StepError>(())
//! ```

// The engine-facing API: every public item is documented.
#![warn(missing_docs)]

mod bands;
mod broad;
mod cloth;
pub mod collision;
mod fixed_step;
pub mod fold;
mod frame;
pub mod hard_pass;
mod leg_lines;
mod limit;
pub mod mass;
pub mod painted;
pub mod params;
mod relax;
mod row_pass;
mod seam;
mod tear;
pub mod topology;
pub mod wind;
pub mod world_motion;

pub use bands::{BAND_ROWS, PARALLEL_MIN_PARTICLES};
pub use cloth::{
    Cloth, ClothStats, SolveOrder, StepError, StepInput, StepReport, EXPLODE_FACTOR,
    EXPLODE_MIN_DISTANCE,
};
pub use collision::Collider;
pub use fixed_step::FixedStep;
pub use fold::{FoldAxis, FoldError, FoldLine};
pub use frame::Frame;
pub use leg_lines::{BodyAxis, LegLines, LegRows};
pub use params::{FabricParams, ParamError, ParamGroup, ParamKind, ParamMut, ParamSpec};
pub use relax::Kernel;
pub use topology::{ConstraintKind, Link, Topology, TopologyError};
pub use world_motion::{WorldMotion, TELEPORT_ANGLE, TELEPORT_DISTANCE};

// The searches the rig shares with the solver: the scene keeps its reference points out of
// the body with them, the hood its points.
#[cfg(feature = "rig")]
pub(crate) use broad::{push_out_all_among, push_out_masked, Bounds, Shapes};
#[cfg(feature = "rig")]
pub(crate) use hard_pass::{clear_point_on_sphere, swing_clear};
pub(crate) use seam::twin;

#[cfg(test)]
mod tests;

/// A fixed sequence of numbers in [-1, 1] for tests (xorshift32 from `seed`, which must not be
/// 0): the same cases every run.
#[cfg(test)]
pub(crate) fn test_noise(seed: u32) -> impl FnMut() -> f32 {
    let mut state = seed;
    move || {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        state as f32 / u32::MAX as f32 * 2.0 - 1.0
    }
}
