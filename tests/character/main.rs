//! What drives a character: loading, import, clips, roles (by name and by the skeleton's shape),
//! settings and the loader under fuzzing: one test binary for the layer (`cargo test --test character`), a module per
//! former test file.

#[path = "../jacket_checks/mod.rs"]
mod jacket_checks;

mod assets;
mod body;
mod clips;
mod fuzz;
mod import;
mod roles;
mod settings;
