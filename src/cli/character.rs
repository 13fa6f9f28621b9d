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
/// when `path` is `None`. Roles found from the skeleton's shape are named on stderr: a
/// command never plays a guess silently.
pub fn load_character(
    path: Option<&Path>,
    bone_map: Option<&Path>,
) -> Result<Arc<Character>, RigError> {
    let character = Character::open_or_builtin(path, bone_map)?;
    if let (Some(path), Some(note)) = (path, shape_note(&character)) {
        eprintln!("cloth-tuner: {}: {note}", path.display());
    }
    Ok(Arc::new(character))
}

/// What to tell the artist about roles found from the skeleton's shape, if any were.
fn shape_note(character: &Character) -> Option<String> {
    let roles = character.roles.by_shape();
    if roles.is_empty() {
        return None;
    }
    let names: Vec<String> = roles.iter().map(|r| r.name()).collect();
    Some(format!(
        "no bone name says {}: found from the skeleton's shape; confirm them in the \
         Character window (File > Character settings…) or write them in a bone map \
         (docs/your-character.md)",
        names.join(", ")
    ))
}

/// A character file's stem, the prefix of its pictures' names.
pub fn character_label(path: Option<&Path>) -> Option<String> {
    path.and_then(Path::file_stem)
        .map(|s| s.to_string_lossy().into_owned())
}
