//! `--character` and `--bone-map`: which character a command plays on (the built-in one by
//! default), shared by the window, `simulate`, `drift`, `render` and `regress`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::character::{Character, RigError};

/// The character options of a command.
#[derive(Clone, Debug, Default, clap::Args)]
pub struct CharacterArgs {
    /// A glTF 2.0 humanoid (.glb, or .gltf with its buffers) to play instead of the built-in
    /// character; its animations are the clips, by name. Its settings (bone map, ellipsoid
    /// scales) are read from `<name>.cloth-character.json` beside it when there is one.
    #[arg(long, value_name = "FILE")]
    pub character: Option<PathBuf>,
    /// The character's settings file (bone map and ellipsoid scales, see
    /// docs/character-settings.md) instead of the one beside the character.
    #[arg(long, value_name = "FILE", requires = "character")]
    pub bone_map: Option<PathBuf>,
}

impl CharacterArgs {
    /// The character these options name, or the built-in one.
    pub fn load(&self) -> Result<Arc<Character>, RigError> {
        load_character(self.character.as_deref(), self.bone_map.as_deref())
    }

    /// The name pictures of this character carry (its file stem), `None` for the built-in.
    pub fn label(&self) -> Option<String> {
        character_label(self.character.as_deref())
    }
}

/// The character at `path` with the settings `bone_map` (or beside it), or the built-in one
/// when `path` is `None`.
pub fn load_character(
    path: Option<&Path>,
    bone_map: Option<&Path>,
) -> Result<Arc<Character>, RigError> {
    Character::open_or_builtin(path, bone_map).map(Arc::new)
}

/// A character file's stem, the prefix of its pictures' names.
pub fn character_label(path: Option<&Path>) -> Option<String> {
    path.and_then(Path::file_stem)
        .map(|s| s.to_string_lossy().into_owned())
}
