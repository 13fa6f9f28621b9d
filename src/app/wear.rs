//! The artist's own garment in the window: which skinned mesh the character wears (File > Open
//! garment…), from the character's file or a file of its own, built into the simulation grid and
//! the cloth bones with the grid settings beside it; taking it off; and what the window
//! remembers of it with the character. The Garment window's widgets are in `garment_panel`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::character_panel::bone_map_for;
use super::{scene_on_outfit, App};
use crate::character::{Character, CharacterSettings, WornMesh};
use crate::garment::imported::{GridChoice, ImportedGarment};
use crate::scene::Outfit;

/// A garment the artist picked: a skinned mesh (a node's or its mesh's name) in the
/// character's own file (`file: None`) or in a glTF file of its own.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GarmentRef {
    pub file: Option<PathBuf>,
    pub mesh: String,
}

/// The garment the window remembers, with the character it was worn on: it is worn again at
/// start only on that character.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RememberedGarment {
    pub character: PathBuf,
    pub garment: GarmentRef,
}

/// The garment being worn: what it is, the file its settings sit beside, and its grid.
#[derive(Clone, Debug)]
pub(super) struct Worn {
    pub garment: GarmentRef,
    /// The file the garment is in (the character's or its own): its settings file sits
    /// beside it.
    pub file: PathBuf,
    /// The grid as laid now, and as in the settings file.
    pub choice: GridChoice,
    pub saved: GridChoice,
    pub built: Arc<ImportedGarment>,
    /// The body and the garment's mesh it was built from, to lay the grid again without
    /// reading the files again.
    pub character: Arc<Character>,
    pub mesh: Arc<WornMesh>,
}

impl Worn {
    /// The garment's settings file.
    pub fn settings_path(&self) -> PathBuf {
        GridChoice::path_beside(&self.file, self.built.name())
    }
}

impl App {
    /// The glTF character playing and the garment it wears (`None`: the preset's template).
    pub fn worn_garment(&self) -> Option<&GarmentRef> {
        self.worn.as_ref().map(|w| &w.garment)
    }

    /// The grid settings of the garment worn, as laid now.
    pub fn garment_choice(&self) -> Option<&GridChoice> {
        self.worn.as_ref().map(|w| &w.choice)
    }

    /// The garment worn, built on the character.
    pub fn imported_garment(&self) -> Option<&ImportedGarment> {
        self.worn.as_ref().map(|w| &*w.built)
    }

    /// Whether the garment's grid settings differ from its settings file.
    pub fn garment_settings_dirty(&self) -> bool {
        self.worn.as_ref().is_some_and(|w| w.choice != w.saved)
    }

    /// What the character wears in every scene the window builds.
    pub(super) fn outfit(&self) -> Outfit {
        self.worn
            .as_ref()
            .map_or(Outfit::Template, |w| Outfit::Garment(w.built.clone()))
    }

    /// Dresses the glTF character playing in `garment`, with the grid settings beside it
    /// (`choice` instead, when given). The clip and the preset stay. On any error the message
    /// names the file and the problem, and the window keeps playing what it played.
    pub fn wear_garment(&mut self, garment: GarmentRef, choice: Option<GridChoice>) {
        match self.dress(&garment, choice) {
            Ok(worn) => self.play_worn(worn),
            Err(e) => self.garment_problem(e),
        }
    }

    /// Plays the character in `worn` from the clip's start, or shows why it cannot.
    fn play_worn(&mut self, worn: Worn) {
        let scene = scene_on_outfit(
            worn.character.clone(),
            &Outfit::Garment(worn.built.clone()),
            &self.doc.preset,
            self.scene().clip_name(),
        );
        match scene {
            Ok(scene) => {
                self.status = format!("Wearing {}", worn.built.name());
                self.worn = Some(worn);
                self.playback.replace_scene(scene);
                self.replay_second();
                self.garment_editor.on_worn(self.worn.as_ref());
                self.error = None;
            }
            Err(e) => self.garment_problem(e),
        }
    }

    /// Back to the preset's template garment on the same character.
    pub fn take_off_garment(&mut self) {
        if self.worn.take().is_some() {
            let path = self.character_path.clone();
            self.open_character(path.as_deref());
            self.garment_editor.on_worn(None);
            self.status = "Wearing the preset's template".into();
        }
    }

    /// The garment worn, its grid laid again as `choice` says (the settings file is not
    /// written until Save).
    pub fn relay_garment(&mut self, choice: GridChoice) {
        let Some(worn) = &self.worn else {
            return;
        };
        if let Err(e) = choice.check() {
            return self.garment_problem(e);
        }
        match ImportedGarment::new(&worn.character, &worn.mesh, &choice) {
            Ok(built) => {
                let relaid = Worn {
                    choice,
                    built: Arc::new(built),
                    ..worn.clone()
                };
                self.play_worn(relaid);
            }
            Err(e) => self.garment_problem(format!("{}: {e}", worn.file.display())),
        }
    }

    /// Writes the garment's grid settings beside it (atomically).
    pub fn save_garment_settings(&mut self) {
        let Some(worn) = self.worn.as_mut() else {
            return;
        };
        let path = worn.settings_path();
        match worn.choice.save(&path) {
            Ok(()) => {
                worn.saved = worn.choice.clone();
                self.status = format!("Saved {}", path.display());
            }
            Err(e) => self.garment_problem(e.to_string()),
        }
    }

    /// Lays the grid as in the settings file again.
    pub fn revert_garment_settings(&mut self) {
        if let Some(saved) = self.worn.as_ref().map(|w| w.saved.clone()) {
            self.relay_garment(saved);
        }
    }

    /// The message for a garment that cannot be worn: in the Garment window and the status bar.
    fn garment_problem(&mut self, message: String) {
        self.garment_editor.problem = Some(message.clone());
        self.error = Some(message);
    }

    /// The character (reloaded without the garment when it is in its file) and the garment
    /// built on it.
    fn dress(&self, garment: &GarmentRef, choice: Option<GridChoice>) -> Result<Worn, String> {
        let Some(character_path) = self.character_path.clone() else {
            return Err(
                "the built-in character wears the preset's templates only: open a glTF \
                        character (File > Open character…) to wear your own garment"
                    .into(),
            );
        };
        let (character, worn, file) = self.read_worn(garment, &character_path)?;
        let saved = GridChoice::load_beside(&file, &worn.name).map_err(|e| e.to_string())?;
        let choice = choice.unwrap_or_else(|| saved.clone());
        let built = ImportedGarment::new(&character, &worn, &choice)
            .map_err(|e| format!("{}: {e}", file.display()))?;
        Ok(Worn {
            garment: garment.clone(),
            file,
            choice,
            saved,
            built: Arc::new(built),
            character,
            mesh: Arc::new(worn),
        })
    }

    /// The character and the garment's mesh, and the file the garment is in.
    fn read_worn(
        &self,
        garment: &GarmentRef,
        character_path: &Path,
    ) -> Result<(Arc<Character>, WornMesh, PathBuf), String> {
        // The Character window's settings when it has them for this character (they may not
        // be saved yet), else the file's.
        let settings = match &self.character_editor {
            Some(e) if e.character() == character_path => e.settings.clone(),
            _ => CharacterSettings::for_character(
                character_path,
                bone_map_for(self.bone_map.as_ref(), character_path),
            )
            .map_err(|e| e.to_string())?,
        };
        match &garment.file {
            None => {
                let (c, worn) =
                    Character::load_wearing_with(character_path, &settings, &garment.mesh)
                        .map_err(|e| e.to_string())?;
                Ok((Arc::new(c), worn, character_path.to_path_buf()))
            }
            Some(file) => {
                // The body as loaded with no garment taken out of it.
                let character = Character::load_with(character_path, &settings)
                    .map(Arc::new)
                    .map_err(|e| e.to_string())?;
                let mesh = (!garment.mesh.is_empty()).then_some(garment.mesh.as_str());
                let worn = character
                    .read_garment(file, mesh)
                    .map_err(|e| e.to_string())?;
                Ok((character, worn, file.clone()))
            }
        }
    }

    /// What the window remembers of the garment worn.
    pub(super) fn remembered_garment(&self) -> Option<RememberedGarment> {
        let character = self.character_path.clone()?;
        self.worn.as_ref().map(|w| RememberedGarment {
            character,
            garment: w.garment.clone(),
        })
    }

    /// Wears the remembered garment again when it was worn on the character now playing.
    pub(super) fn restore_garment(&mut self, remembered: Option<&RememberedGarment>) {
        let Some(r) = remembered else {
            return;
        };
        if self.character_path.as_deref() == Some(r.character.as_path()) {
            self.wear_garment(r.garment.clone(), None);
            if let Some(e) = self.error.take() {
                self.error = Some(format!("{e}; wearing the preset's template"));
            }
        }
    }
}
