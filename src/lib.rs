//! cloth-tuner: a real-time cloth simulation for character garments, built the way Remedy
//! built Alan Wake's tweed jacket, plus the tools to tune it.
//!
//! With `default-features = false` this crate is the cloth solver ([`sim`]) and the fabric
//! preset file ([`preset`]) only: no window, no GL, nothing an engine would not want.

pub mod export;
pub mod files;
pub mod preset;
pub mod sim;
pub mod tune;

#[cfg(feature = "rig")]
pub mod rig;

#[cfg(feature = "cli")]
pub mod cli;

#[cfg(feature = "gui")]
pub mod app;
#[cfg(feature = "gui")]
pub mod picture;
#[cfg(feature = "gui")]
pub mod render;
