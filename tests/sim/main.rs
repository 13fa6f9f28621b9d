//! The cloth solver and the preset file: one test binary for the layer (`cargo test --test sim`), a module per
//! former test file.

mod determinism;
mod extremes;
mod free_panel;
mod kernels;
mod preset_fuzz;
mod preset_schema;
mod sweep;
mod tear;
