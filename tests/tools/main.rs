//! The tools: engine exports, fit, wedge, regression pictures and the window's levels of detail: one test binary for the layer (`cargo test --test tools`), a module per
//! former test file.

#[path = "../common/mod.rs"]
mod common;

mod baked;
mod engine_garment;
mod export_engines;
mod fit;
mod garment_commands;
mod jolt_wasm;
mod regress;
mod render_lod;
mod rigged;
mod wedge;
