//! Tools for comparing fabrics: naming knobs and their sweeps on the command line and in the
//! tuner ([`knobs`]), contact sheets over a grid of knob values (`wedge`) and a search for the
//! knob values that meet target metrics (`fit`).

#[cfg(feature = "rig")]
pub mod fit;
pub mod knobs;
#[cfg(feature = "rig")]
pub mod targets;
