//! cloth-tuner: a real-time cloth simulation for character garments, built the way Remedy
//! built Alan Wake's tweed jacket, plus the tools to tune it.
//!
//! With `default-features = false` this crate is the cloth solver ([`sim`]) and the fabric
//! preset file ([`preset`], with [`files`], its atomic saves) only: no window, no GL, no
//! character, nothing an engine would not want. The features add the engines' files
//! (`export`), the character, its garments and the scene (`rig`), the command line (`cli`) and
//! the window (`gui`).

pub mod files;
pub mod preset;
pub mod sim;

#[cfg(feature = "export")]
pub mod export;
#[cfg(feature = "rig")]
pub mod tune;

#[cfg(feature = "rig")]
pub mod character;
#[cfg(feature = "rig")]
pub mod garment;
#[cfg(feature = "rig")]
pub mod scene;

#[cfg(feature = "cli")]
pub mod cli;

#[cfg(feature = "gui")]
pub mod app;
#[cfg(feature = "gui")]
pub mod picture;
#[cfg(feature = "gui")]
pub mod render;

/// The text of a caught panic's payload (the character loader's boundary, the viewport's
/// drawing).
#[cfg(feature = "rig")]
pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic with no message".to_string()
    }
}
