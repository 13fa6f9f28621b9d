//! The cloth simulation, in three tiers: [`Topology`] (built once), [`FabricParams`] (live
//! knobs) and the per-step state inside [`Cloth`]. No window, no GL: a game engine can depend on
//! this module and [`crate::preset`] alone.

mod cloth;
pub mod collision;
mod fixed_step;
mod frame;
pub mod params;
pub mod topology;
pub mod wind;

pub use cloth::{
    Cloth, ClothStats, SolveOrder, StepError, StepInput, StepReport, EXPLODE_FACTOR,
    EXPLODE_MIN_DISTANCE, TELEPORT_ANGLE, TELEPORT_DISTANCE,
};
pub use collision::Collider;
pub use fixed_step::FixedStep;
pub use frame::Frame;
pub use params::{FabricParams, ParamGroup, ParamKind, ParamSpec};
pub use topology::{ConstraintKind, Link, Topology, TopologyError};

#[cfg(test)]
mod tests;
