//! Tools for comparing fabrics: naming knobs and their sweeps on the command line and in the
//! tuner ([`knobs`]), contact sheets over a grid of knob values (`wedge`, with the `gui`
//! feature: it draws), the metrics a fit aims at (`targets`) and a search for the knob values
//! that meet them (`fit`).

#[cfg(feature = "rig")]
pub mod fit;
pub mod knobs;
#[cfg(feature = "rig")]
pub mod targets;
#[cfg(feature = "gui")]
pub mod wedge;
