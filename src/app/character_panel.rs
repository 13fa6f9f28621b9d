//! The Character window: for the glTF character playing, which bone plays each humanoid role
//! and how large each role's collision ellipsoids are. The window edits a copy of the
//! character's settings; Apply (or letting go of a scale slider) reloads the character with
//! them, Save also writes them to the settings file (`<name>.cloth-character.json` beside the
//! character, or the `--bone-map` file). When a character cannot be opened because its bone
//! names say nothing, the same window opens to name the missing roles, so nobody writes a bone
//! map by hand. When roles came from the skeleton's shape instead of the names, the window
//! opens with them marked, to accept (they go into the bone map) or change.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use eframe::egui;
use egui::{Color32, Ui};

use super::command::Command;
use super::{scene_on, App};
use crate::character::import::GROUND_BONE;
use crate::character::settings::ELLIPSOID_SCALE_RANGE;
use crate::character::{Character, CharacterSettings, RigError, Role};
use crate::render::Overlays;

/// What the Character window edits, and what it knows about the file.
#[derive(Clone, Debug)]
pub struct CharacterEditor {
    /// The character file.
    character: PathBuf,
    /// Where Save writes the settings.
    settings_path: PathBuf,
    /// Every bone of the file, root first, for the pickers, with its depth below the root.
    bones: Vec<(String, usize)>,
    /// The bone each role plays with now; empty while the character does not load.
    playing: BTreeMap<Role, String>,
    /// The roles that own collision ellipsoids, in role order.
    scalable: Vec<Role>,
    /// The settings as edited.
    pub settings: CharacterSettings,
    /// The settings as in the file (what was read or last saved).
    saved: CharacterSettings,
    /// Why the character does not load with these settings.
    problem: Option<String>,
    /// The roles no bone plays yet.
    missing: Vec<Role>,
    /// The roles whose bone the skeleton's shape gave (no name did), to confirm.
    by_shape: Vec<Role>,
}

impl CharacterEditor {
    /// An editor for the character at `path` with `settings` (read from `settings_path`),
    /// knowing nothing of the bones yet.
    fn new(path: &Path, settings_path: PathBuf, settings: CharacterSettings) -> Self {
        Self {
            character: path.to_path_buf(),
            settings_path,
            bones: Vec::new(),
            playing: BTreeMap::new(),
            scalable: Vec::new(),
            saved: settings.clone(),
            settings,
            problem: None,
            missing: Vec::new(),
            by_shape: Vec::new(),
        }
    }

    /// Takes in what the character loaded with: the bones, the roles and the ellipsoids.
    fn now_playing(&mut self, character: &Character) {
        let names: Vec<&str> = character.bone_names().collect();
        self.bones = names
            .iter()
            .zip(character.skeleton.depths())
            .filter(|(n, _)| **n != GROUND_BONE)
            .map(|(n, d)| (n.to_string(), d))
            .collect();
        self.playing = character
            .roles
            .iter()
            .map(|(role, bone)| (role, names[bone].to_string()))
            .collect();
        self.scalable = character
            .roles
            .iter()
            .filter(|&(_, bone)| character.ellipsoids.iter().any(|e| e.bone == bone))
            .map(|(role, _)| role)
            .collect();
        self.problem = None;
        self.missing.clear();
        self.by_shape = character.roles.by_shape();
    }

    /// Takes in why the character did not load; `false` when the error is not about roles.
    fn did_not_load(&mut self, err: &RigError) -> bool {
        let mut found: &[(Role, String)] = &[];
        let mut by_shape: &[Role] = &[];
        let (missing, bones, depths) = match err {
            RigError::MissingRoles {
                missing,
                found: f,
                bones,
                depths,
                ..
            } => {
                found = f.roles.as_slice();
                by_shape = f.by_shape.as_slice();
                (missing.clone(), bones, depths)
            }
            RigError::UnknownBone {
                role,
                bone,
                bones,
                depths,
                ..
            } => {
                self.problem = Some(format!(
                    "The file has no bone `{bone}` (given for {}): pick another.",
                    role.name()
                ));
                (vec![*role], bones, depths)
            }
            _ => return false,
        };
        if matches!(err, RigError::MissingRoles { .. }) {
            self.problem = Some(format!(
                "No bone found for {} role(s). Pick the ones you know and Apply: the spine, \
                 chest and hands follow from the hierarchy once the pelvis, neck and arms are \
                 named.",
                missing.len()
            ));
        }
        self.missing = missing;
        self.bones = bones.iter().cloned().zip(depths.iter().copied()).collect();
        // What was found stays shown, so only the missing roles are left to pick.
        self.playing = found.iter().cloned().collect();
        self.by_shape = by_shape.to_vec();
        true
    }

    /// The character file.
    pub fn character(&self) -> &Path {
        &self.character
    }

    /// Where Save writes the settings.
    pub fn settings_path(&self) -> &Path {
        &self.settings_path
    }

    /// The roles no bone plays yet (the window shows them first, in red).
    pub fn missing(&self) -> &[Role] {
        &self.missing
    }

    /// The roles whose bone came from the skeleton's shape, not from a name (the window marks
    /// them, to accept or change).
    pub fn by_shape(&self) -> &[Role] {
        &self.by_shape
    }

    /// The bone playing `role` now, automatically or as picked (`None` while nothing does).
    pub fn playing(&self, role: Role) -> Option<&str> {
        self.playing.get(&role).map(String::as_str)
    }

    /// Whether the window should open by itself: roles to pick or to confirm.
    pub fn needs_the_artist(&self) -> bool {
        !self.missing.is_empty() || self.unconfirmed() > 0
    }

    /// How many roles found from the shape are still neither accepted nor changed.
    fn unconfirmed(&self) -> usize {
        self.by_shape
            .iter()
            .filter(|r| !self.settings.bones.contains_key(r))
            .count()
    }

    /// Accepts the shape's bones: each role found from the shape and not picked since goes
    /// into the bone map as the bone it plays now.
    pub fn accept_shape(&mut self) {
        for role in &self.by_shape {
            if let Some(bone) = self.playing.get(role) {
                self.settings.bones.entry(*role).or_insert(bone.clone());
            }
        }
    }

    /// Why the character does not load with the edited settings.
    pub fn problem(&self) -> Option<&str> {
        self.problem.as_deref()
    }

    /// The settings differ from the file's.
    pub fn is_dirty(&self) -> bool {
        self.settings != self.saved
    }

    /// The window. Picking a bone edits the settings in place (they are the window's own,
    /// like a typed path); reloading the character is a command.
    fn ui(&mut self, ctx: &egui::Context, overlays: &Overlays, out: &mut Vec<Command>) {
        let name = self
            .character
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut open = true;
        egui::Window::new(format!("Character: {name}"))
            .id(egui::Id::unique("character settings"))
            .open(&mut open)
            .default_width(420.0)
            .show(ctx, |ui| {
                self.header(ui);
                self.shape_notice(ui, out);
                egui::CollapsingHeader::new("Bones")
                    .default_open(self.needs_the_artist())
                    .show(ui, |ui| self.bone_pickers(ui));
                if !self.scalable.is_empty() {
                    egui::CollapsingHeader::new("Collision ellipsoids")
                        .default_open(true)
                        .show(ui, |ui| self.scale_sliders(ui, overlays, out));
                }
                ui.separator();
                self.buttons(ui, out);
            });
        if !open {
            out.push(Command::CloseCharacterSettings);
        }
    }

    fn header(&self, ui: &mut Ui) {
        let dirty = if self.is_dirty() { " (unsaved)" } else { "" };
        ui.label(format!("Settings: {}{dirty}", self.settings_path.display()))
            .on_hover_text(
                "The bone map and ellipsoid scales for this character; simulate, render and \
                 regress read the same file (docs/character-settings.md)",
            );
        if let Some(p) = &self.problem {
            ui.colored_label(ui.visuals().error_fg_color, p);
        }
    }

    /// Which roles the skeleton's shape gave, with the button that accepts them.
    fn shape_notice(&mut self, ui: &mut Ui, out: &mut Vec<Command>) {
        let left = self.unconfirmed();
        if left == 0 {
            return;
        }
        let names: Vec<String> = self.by_shape.iter().map(|r| r.name()).collect();
        ui.colored_label(
            SHAPE_COLOR,
            format!(
                "No bone name says {left} of the roles; they were found from the skeleton's \
                 shape: {}. Check them on the body (they are marked below), then accept them \
                 or pick other bones.",
                names.join(", ")
            ),
        );
        let accept = ui
            .button("Accept the bones found by shape")
            .on_hover_text(format!(
                "Write these bones into the bone map ({}) so the character loads with them \
                 everywhere",
                self.settings_path.display()
            ));
        if accept.clicked() {
            self.accept_shape();
            out.push(Command::ApplyCharacterSettings { save: true });
        }
    }

    /// One row per role: the bone that plays it, found automatically or picked.
    fn bone_pickers(&mut self, ui: &mut Ui) {
        // The roles still to pick come first, then every other role in the usual order.
        let others = Role::REQUIRED
            .into_iter()
            .chain(Role::OPTIONAL)
            .filter(|r| !self.missing.contains(r));
        let roles: Vec<Role> = self.missing.iter().copied().chain(others).collect();
        egui::ScrollArea::vertical()
            .max_height(320.0)
            .show(ui, |ui| {
                egui::Grid::new("roles").striped(true).show(ui, |ui| {
                    for role in roles {
                        self.bone_picker(ui, role);
                        ui.end_row();
                    }
                });
            });
    }

    fn bone_picker(&mut self, ui: &mut Ui, role: Role) {
        let picked = self.settings.bones.contains_key(&role);
        let missing = self.missing.contains(&role) && !picked;
        let by_shape = self.by_shape.contains(&role) && !picked;
        let label = role.name();
        let label_id = if missing {
            ui.colored_label(ui.visuals().error_fg_color, &label).id
        } else if by_shape {
            ui.colored_label(SHAPE_COLOR, &label)
                .on_hover_text("Found from the skeleton's shape: no bone name says it")
                .id
        } else {
            ui.label(&label).id
        };
        let shown = match (self.settings.bones.get(&role), self.playing.get(&role)) {
            (Some(b), _) => b.clone(),
            (None, Some(b)) if by_shape => format!("by shape: {b}"),
            (None, Some(b)) => format!("automatic: {b}"),
            (None, None) if missing => "pick a bone".to_string(),
            (None, None) => "automatic".to_string(),
        };
        let mut choice: Option<Option<String>> = None;
        let combo = egui::ComboBox::from_id_salt(("role", label.as_str()))
            .selected_text(shown)
            .width(240.0)
            .show_ui(ui, |ui| {
                let auto = !self.settings.bones.contains_key(&role);
                if ui
                    .selectable_label(auto, "automatic")
                    .on_hover_text(
                        "Found from the bone names (or the file's VRM roles), else from the \
                         skeleton's shape",
                    )
                    .clicked()
                {
                    choice = Some(None);
                }
                for (bone, depth) in &self.bones {
                    let on = self.settings.bones.get(&role) == Some(bone);
                    // Indented by depth, so the list reads as the hierarchy.
                    let row = ui.horizontal(|ui| {
                        ui.add_space(8.0 * *depth as f32);
                        ui.selectable_label(on, bone)
                    });
                    if row.inner.clicked() {
                        choice = Some(Some(bone.clone()));
                    }
                }
            });
        combo.response.labelled_by(label_id);
        match choice {
            Some(Some(bone)) => {
                self.settings.bones.insert(role, bone);
            }
            Some(None) => {
                self.settings.bones.remove(&role);
            }
            None => {}
        }
    }

    /// A scale per role with ellipsoids; letting go of a slider reloads the character.
    fn scale_sliders(&mut self, ui: &mut Ui, overlays: &Overlays, out: &mut Vec<Command>) {
        let mut shown = overlays.ellipsoids;
        if ui.checkbox(&mut shown, "Show ellipsoids").changed() {
            let mut o = overlays.clone();
            o.ellipsoids = shown;
            out.push(Command::SetOverlays(o));
        }
        let (lo, hi) = ELLIPSOID_SCALE_RANGE;
        for i in 0..self.scalable.len() {
            let role = self.scalable[i];
            let mut s = self.settings.scale(role);
            let r = ui
                .add(
                    egui::Slider::new(&mut s, lo..=hi)
                        .text(role.name())
                        .suffix("×")
                        .fixed_decimals(2)
                        .clamping(egui::SliderClamping::Always),
                )
                .on_hover_text(
                    "Grows or shrinks this body part's collision ellipsoids. Larger holds the \
                     cloth further off the body (a puffier fit, no poke-through); smaller \
                     lets it hug the body. 1× is fitted just inside the skin.",
                );
            if s != self.settings.scale(role) {
                self.set_scale(role, s);
            }
            if r.drag_stopped() || (r.changed() && !r.dragged()) {
                out.push(Command::ApplyCharacterSettings { save: false });
            }
        }
        if ui.button("All to 1×").clicked() {
            self.settings.ellipsoid_scale.clear();
            out.push(Command::ApplyCharacterSettings { save: false });
        }
    }

    /// Sets a role's scale; 1 is the default and is not written.
    pub fn set_scale(&mut self, role: Role, scale: f32) {
        if scale == 1.0 {
            self.settings.ellipsoid_scale.remove(&role);
        } else {
            self.settings.ellipsoid_scale.insert(role, scale);
        }
    }

    fn buttons(&self, ui: &mut Ui, out: &mut Vec<Command>) {
        ui.horizontal(|ui| {
            let apply = ui
                .button("Apply")
                .on_hover_text("Reload the character with these bones and scales");
            if apply.clicked() {
                out.push(Command::ApplyCharacterSettings { save: false });
            }
            let save = ui.button("Save").on_hover_text(format!(
                "Reload the character and write the settings to {}",
                self.settings_path.display()
            ));
            if save.clicked() {
                out.push(Command::ApplyCharacterSettings { save: true });
            }
            let revert = ui.add_enabled(self.is_dirty(), egui::Button::new("Revert"));
            if revert
                .on_hover_text("Back to the settings in the file")
                .clicked()
            {
                out.push(Command::RevertCharacterSettings);
            }
            if !self.missing.is_empty() {
                let still = self
                    .missing
                    .iter()
                    .filter(|r| !self.settings.bones.contains_key(r))
                    .count();
                if still > 0 {
                    ui.colored_label(Color32::from_rgb(230, 160, 60), format!("{still} to pick"));
                }
            }
        });
    }
}

/// The colour of roles found from the skeleton's shape, still to confirm.
const SHAPE_COLOR: Color32 = Color32::from_rgb(230, 160, 60);

/// The `--bone-map` the window was started with (`bone_map`: that character and its map),
/// when `path` is that character.
pub(super) fn bone_map_for<'a>(
    bone_map: Option<&'a (PathBuf, PathBuf)>,
    path: &Path,
) -> Option<&'a Path> {
    bone_map
        .filter(|(character, _)| character == path)
        .map(|(_, map)| map.as_path())
}

/// Loads the glTF character at `path` with its settings (`bone_map`, else the file beside it)
/// and the Character window's state for it: there is one for a character that loaded and for
/// one whose roles are missing (to pick them), none for any other error.
pub(super) fn load_character(
    path: &Path,
    bone_map: Option<&Path>,
) -> (Result<Character, RigError>, Option<CharacterEditor>) {
    let settings = match CharacterSettings::for_character(path, bone_map) {
        Ok(s) => s,
        Err(e) => return (Err(e.into()), None),
    };
    let loaded = Character::load_with(path, &settings);
    let file = CharacterSettings::file_for(path, bone_map);
    let mut editor = CharacterEditor::new(path, file, settings);
    let editor = match &loaded {
        Ok(c) => {
            editor.now_playing(c);
            Some(editor)
        }
        Err(e) => editor.did_not_load(e).then_some(editor),
    };
    (loaded, editor)
}

/// The status line's word on roles found from the skeleton's shape, while some are left to
/// confirm.
pub(super) fn shape_status(editor: &CharacterEditor) -> Option<String> {
    let left = editor.unconfirmed();
    (left > 0).then(|| {
        format!(
            "{left} role(s) found from the skeleton's shape; confirm them in the Character window"
        )
    })
}

impl App {
    /// The Character window, while it is open.
    pub fn character_editor(&self) -> Option<&CharacterEditor> {
        self.character_editor
            .as_ref()
            .filter(|_| self.character_open)
    }

    /// The Character window's state, for tests and tools.
    pub fn character_editor_mut(&mut self) -> Option<&mut CharacterEditor> {
        self.character_editor
            .as_mut()
            .filter(|_| self.character_open)
    }

    pub(super) fn character_window(&mut self, ctx: &egui::Context, out: &mut Vec<Command>) {
        if !self.character_open {
            return;
        }
        if let Some(editor) = self.character_editor.as_mut() {
            editor.ui(ctx, &self.view.overlays, out);
        }
    }

    /// Plays the scene on the glTF character at `path` (`None`: the built-in one): the preset
    /// stays, the clip too where the character has one by that name. On any error the message
    /// names the file and the window keeps playing what it played; when only the roles are
    /// missing, the Character window opens to pick them.
    pub fn open_character(&mut self, path: Option<&Path>) {
        let Some(path) = path else {
            let scene = scene_on(
                Arc::new(Character::builtin()),
                &self.doc.preset,
                self.scene().clip_name(),
            );
            return self.play_character(scene, None);
        };
        match load_character(path, bone_map_for(self.bone_map.as_ref(), path)) {
            (Ok(c), editor) => {
                let scene = scene_on(Arc::new(c), &self.doc.preset, self.scene().clip_name());
                let ok = scene.is_ok();
                if ok {
                    self.character_editor = editor;
                }
                self.play_character(scene, Some(path));
                if let Some(note) = self.character_editor.as_ref().and_then(shape_status) {
                    if ok {
                        self.status = format!("Playing character {}: {note}", path.display());
                        self.character_open = true;
                    }
                }
            }
            (Err(e), None) => self.error = Some(e.to_string()),
            (Err(_), Some(editor)) => {
                self.error = Some(format!(
                    "{}: pick the bones for the missing roles in the Character window",
                    path.display()
                ));
                self.character_editor = Some(editor);
                self.character_open = true;
            }
        }
    }

    /// Switches to `scene` on the character at `path`, or shows why it cannot.
    fn play_character(&mut self, scene: Result<crate::scene::Scene, String>, path: Option<&Path>) {
        match scene {
            Ok(scene) => {
                // A garment belongs to the character it was worn on.
                self.worn = None;
                self.garment_editor.on_worn(None);
                self.playback.replace_scene(scene);
                self.replay_second();
                self.character_path = path.map(Path::to_path_buf);
                if path.is_none() {
                    self.character_editor = None;
                    self.character_open = false;
                }
                self.error = None;
                self.status = match path {
                    Some(p) => format!("Playing character {}", p.display()),
                    None => "Playing the built-in character".to_string(),
                };
            }
            Err(e) => self.error = Some(e),
        }
    }

    /// Shows the Character window for the glTF character playing.
    pub(super) fn show_character_settings(&mut self) {
        if self.character_path.is_some() && self.character_editor.is_some() {
            self.character_open = true;
        } else {
            self.status = "The built-in character has no settings: open a glTF character".into();
        }
    }

    /// Reloads the character with the edited settings (and, with `save`, writes them). The
    /// clip is kept, and so is the moment when paused (playing restarts the clip, as Reset
    /// does, rather than pausing for a fast-forward). A bone map that does not resolve, a bad
    /// scale or a failed write is shown in the window and changes nothing else.
    pub(super) fn apply_character_settings(&mut self, save: bool) {
        let Some(editor) = self.character_editor.as_mut() else {
            return;
        };
        let loaded = Character::load_with(&editor.character, &editor.settings);
        let character = match loaded {
            Ok(c) => c,
            Err(e) => {
                if !editor.did_not_load(&e) {
                    editor.problem = Some(e.to_string());
                }
                return;
            }
        };
        editor.now_playing(&character);
        let scene = scene_on(
            Arc::new(character),
            &self.doc.preset,
            self.playback.scene().clip_name(),
        );
        let scene = match scene {
            Ok(s) => s,
            Err(e) => {
                editor.problem = Some(e);
                return;
            }
        };
        if save {
            if let Err(e) = editor.settings.save(&editor.settings_path) {
                editor.problem = Some(e.to_string());
                return;
            }
            editor.saved = editor.settings.clone();
        }
        let path = editor.character.clone();
        let saved_to = format!("Saved {}", editor.settings_path.display());
        let time = self.playback.scene().time();
        let same = self.character_path.as_deref() == Some(path.as_path());
        let paused = !self.playback.is_playing();
        let worn = self
            .worn
            .as_ref()
            .map(|w| (w.garment.clone(), w.choice.clone()));
        self.play_character(Ok(scene), Some(&path));
        if let Some((garment, choice)) = worn {
            // The same garment on the character with its new settings.
            self.wear_garment(garment, Some(choice));
        }
        if same && paused && time > 0.0 {
            self.playback.seek_to(time);
        }
        if save {
            self.status = saved_to;
        }
    }

    /// Back to the settings in the file, reloaded.
    pub(super) fn revert_character_settings(&mut self) {
        if let Some(editor) = self.character_editor.as_mut() {
            editor.settings = editor.saved.clone();
            self.apply_character_settings(false);
        }
    }
}
