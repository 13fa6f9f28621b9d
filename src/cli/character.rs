//! `--character` and `--bone-map`: which character a command plays on (the built-in one by
//! default), shared by the window, `simulate`, `drift`, `render` and `regress`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::character::{Character, RigError};
use crate::garment::imported::{GridChoice, ImportedGarment};
use crate::scene::Outfit;

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
    /// The garment the character wears instead of the preset's template: the skinned mesh of
    /// this name (a node's or its mesh's) in the character's file. It is not part of the body
    /// (its skin, ellipsoids and coverage come from the other meshes); its lower part becomes
    /// the simulation grid and the cloth bones (see docs/your-garment.md).
    #[arg(long, value_name = "NAME", requires = "character")]
    pub garment_mesh: Option<String>,
}

impl CharacterArgs {
    /// The character these options name, or the built-in one.
    pub fn load(&self) -> Result<Arc<Character>, RigError> {
        load_character(self.character.as_deref(), self.bone_map.as_deref())
    }

    /// The character these options name and what it wears: with `--garment-mesh`, that mesh
    /// of its file as its garment; else the preset's template.
    pub fn load_outfit(&self) -> Result<(Arc<Character>, Outfit), RigError> {
        let (Some(path), Some(name)) = (&self.character, &self.garment_mesh) else {
            return Ok((self.load()?, Outfit::Template));
        };
        let (character, worn) = Character::open_wearing(path, self.bone_map.as_deref(), name)?;
        let garment =
            ImportedGarment::new(&character, &worn, &GridChoice::default()).map_err(|e| {
                RigError::Format {
                    path: path.display().to_string(),
                    reason: e.to_string(),
                }
            })?;
        Ok((Arc::new(character), Outfit::Garment(Arc::new(garment))))
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
