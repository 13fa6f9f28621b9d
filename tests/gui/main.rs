//! The tuner window, driven in egui_kittest and, for the real binary, under Xvfb: one test binary for the layer (`cargo test --test gui`), a module per
//! former test file.

#[path = "../common/mod.rs"]
mod common;

mod app;
mod character;
mod compare;
mod garment;
mod paint;
mod playback;
mod recovery;
mod recovery_xvfb;
mod tools;
mod xvfb;
