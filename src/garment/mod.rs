//! What dresses a character: the garment templates (the jacket and its hood, the veil, the
//! skirt), each a low-resolution simulation grid fitted to the body, the bones placed on it and
//! a detailed render mesh skinned to those bones and to the body's.

pub mod hood;
pub mod jacket;
mod nearest;
pub mod skirt;
mod torn_mesh;
pub mod veil;

pub use torn_mesh::open_indices;
