//! The garments on the built-in character and test rigs: the guarantees of each on every clip, tearing, world motion, drift and painted max distances: one test binary for the layer (`cargo test --test garment`), a module per
//! former test file.

#[path = "../jacket_checks/mod.rs"]
mod jacket_checks;

mod bad_garments;
mod bodies;
mod chaos;
mod coverage;
mod drift;
mod hood;
mod imported;
mod jacket;
mod painted_max_distance;
mod settings;
mod skirt;
mod tear;
mod veil;
mod world_motion;
