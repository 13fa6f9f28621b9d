//! `--character`, `--bone-map`, `--garment` and `--garment-mesh`: which character a command
//! plays on (the built-in one by default) and what it wears (the preset's template by
//! default), shared by the window and every windowless command (`simulate`, `drift`,
//! `render`, `regress`, `wedge`, `fit`).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::character::{Character, RigError, SkinnedMesh, WornMesh};
use crate::garment::imported::{GridChoice, ImportedGarment};
use crate::scene::Outfit;

/// The character options of a command.
#[derive(Clone, Debug, Default, PartialEq, clap::Args)]
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
    #[arg(long, value_name = "NAME")]
    pub garment_mesh: Option<String>,
    /// The garment the character wears, in a glTF file of its own (with `--garment-mesh` when
    /// the file has several skinned meshes): its joints are matched to the character's bones
    /// by name and its bind pose must lie on the character's within 1 cm.
    #[arg(long, value_name = "FILE")]
    pub garment: Option<PathBuf>,
}

impl CharacterArgs {
    fn load_body(&self) -> Result<Arc<Character>, RigError> {
        load_character(self.character.as_deref(), self.bone_map.as_deref())
    }

    /// The character these options name and what it wears: with `--garment-mesh`, that mesh
    /// of its file as its garment; else the preset's template.
    pub fn load_outfit(&self) -> Result<(Arc<Character>, Outfit), RigError> {
        let (character, worn, file) = match (&self.garment, &self.garment_mesh) {
            (Some(file), mesh) => {
                let character = self.load_body()?;
                let worn = character.read_garment(file, mesh.as_deref())?;
                (character, worn, file.clone())
            }
            (None, Some(name)) => {
                let Some(path) = &self.character else {
                    return Err(RigError::Format {
                        path: "the built-in character".into(),
                        reason: "--garment-mesh names a mesh of the character's file: give \
                                 --character, or the garment's own file with --garment"
                            .into(),
                    });
                };
                let (c, worn) = Character::open_wearing(path, self.bone_map.as_deref(), name)?;
                (Arc::new(c), worn, path.clone())
            }
            (None, None) => return Ok((self.load_body()?, Outfit::Template)),
        };
        let outfit = outfit_of(&character, &worn, &file)?;
        Ok((character, outfit))
    }

    /// The baked (or rigged) file `--character` names, wearing its own garment
    /// (`extras.cloth_tuner.garment`, or `--garment-mesh`) on the grid it was baked on, and
    /// that garment's mesh as the file skins it, for [`crate::scene::Scene::play_baked`].
    pub fn load_baked(&self) -> anyhow::Result<(Arc<Character>, Outfit, Arc<SkinnedMesh>)> {
        let Some(path) = &self.character else {
            anyhow::bail!("--baked plays a file `bake` wrote: give it as --character BAKED.glb");
        };
        if self.garment.is_some() {
            anyhow::bail!("--baked plays the garment inside the baked file: drop --garment");
        }
        let (name, choice) = crate::export::rigged::rigged_garment(path)?;
        let name = self.garment_mesh.clone().unwrap_or(name);
        let (character, worn) = Character::open_wearing(path, self.bone_map.as_deref(), &name)?;
        let garment = ImportedGarment::new(&character, &worn, &choice)
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        let outfit = Outfit::Garment(Arc::new(garment));
        Ok((Arc::new(character), outfit, Arc::new(worn.mesh)))
    }

    /// The name pictures of this character carry: its file stem (none for the built-in),
    /// then the garment's (its file stem, else its mesh name) when it wears one, joined by
    /// `_`; `None` for the built-in character in the template.
    pub fn label(&self) -> Option<String> {
        let garment = match (&self.garment, &self.garment_mesh) {
            (Some(file), _) => character_label(Some(file)),
            (None, mesh) => mesh.clone(),
        };
        let parts: Vec<String> = character_label(self.character.as_deref())
            .into_iter()
            .chain(garment)
            .collect();
        (!parts.is_empty()).then(|| parts.join("_"))
    }
}

/// `character` wearing `worn`, read from `file`: the grid and the bones built on it as the
/// garment settings file beside `file` says (the defaults where there is none), or an error
/// naming the file.
pub fn outfit_of(character: &Character, worn: &WornMesh, file: &Path) -> Result<Outfit, RigError> {
    let choice = GridChoice::load_beside(file, &worn.name).map_err(|e| RigError::Format {
        path: GridChoice::path_beside(file, &worn.name)
            .display()
            .to_string(),
        reason: e.to_string(),
    })?;
    let garment = ImportedGarment::new(character, worn, &choice).map_err(|e| RigError::Format {
        path: file.display().to_string(),
        reason: e.to_string(),
    })?;
    Ok(Outfit::Garment(Arc::new(garment)))
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
