//! The document: the preset being tuned, the file it belongs to, what was last saved there and
//! the undo history of its knobs. Nothing here knows about the window or the simulation; the
//! app applies the returned changes to the playing scene.

use std::path::{Path, PathBuf};

use super::undo::Undo;
use crate::preset::{Garment, Look, MaxDistanceMap, Preset};
use crate::sim::{FabricParams, FoldLine};

/// What undo steps through and Revert to saved puts back: the knobs, the look, the painted
/// max distances, the garment and its fold lines (the name stays as typed).
#[derive(Clone, Debug, PartialEq)]
pub struct Edits {
    params: FabricParams,
    look: Look,
    map: Option<MaxDistanceMap>,
    garment: Garment,
    fold_lines: Vec<FoldLine>,
}

impl Edits {
    fn of(p: &Preset) -> Self {
        Self {
            params: p.params.clone(),
            look: p.look,
            map: p.max_distance_map.clone(),
            garment: p.garment,
            fold_lines: p.fold_lines.clone(),
        }
    }

    fn put_into(self, p: &mut Preset) {
        p.params = self.params;
        p.look = self.look;
        p.max_distance_map = self.map;
        p.garment = self.garment;
        p.fold_lines = self.fold_lines;
    }
}

/// How many recent files the preset picker lists.
const RECENT_LIMIT: usize = 8;

/// The preset, its file and its history.
#[derive(Clone, Debug)]
pub struct Document {
    /// The preset being tuned; its `params` are the live knobs.
    pub(super) preset: Preset,
    /// The preset as last loaded or saved (the title's `*` compares against it).
    saved: Preset,
    path: Option<PathBuf>,
    recent: Vec<PathBuf>,
    undo: Undo<Edits>,
}

impl Document {
    /// A document for `preset`, loaded from `path` (saved as it is).
    pub fn new(preset: Preset, path: Option<PathBuf>, recent: Vec<PathBuf>) -> Self {
        Self {
            saved: preset.clone(),
            preset,
            path,
            recent,
            undo: Undo::default(),
        }
    }

    pub fn preset(&self) -> &Preset {
        &self.preset
    }

    /// The preset as last loaded or saved.
    pub fn saved(&self) -> &Preset {
        &self.saved
    }

    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Files opened or saved lately, newest first.
    pub fn recent(&self) -> &[PathBuf] {
        &self.recent
    }

    pub fn undo_history(&self) -> &Undo<Edits> {
        &self.undo
    }

    /// True when the preset has changes not saved to its file.
    pub fn is_dirty(&self) -> bool {
        self.preset != self.saved
    }

    /// The window title: the preset's name, `*` when unsaved, and the file's name.
    pub fn title(&self) -> String {
        let file = self
            .path
            .as_ref()
            .and_then(|p| p.file_name())
            .map(|f| format!(" ({})", f.to_string_lossy()))
            .unwrap_or_default();
        let star = if self.is_dirty() { " *" } else { "" };
        format!("{}{star}{file} - cloth-tuner", self.preset.name)
    }

    /// Puts another preset in (opened, or new when `path` is `None`): it counts as saved, the
    /// undo history is forgotten and the file joins the recent list.
    pub fn replace(&mut self, preset: Preset, path: Option<PathBuf>) {
        self.saved = preset.clone();
        self.preset = preset;
        if let Some(p) = &path {
            self.remember(p.clone());
        }
        self.path = path;
        self.undo.clear();
    }

    /// Marks the whole preset as unsaved work (a new preset, or one restored from an autosave
    /// whose file is gone).
    pub fn mark_unsaved(&mut self) {
        self.saved = Preset::default();
    }

    fn remember(&mut self, path: PathBuf) {
        self.recent.retain(|p| p != &path);
        self.recent.insert(0, path);
        self.recent.truncate(RECENT_LIMIT);
    }

    /// The preset as it would be written to `path`: saved to a new file, a preset the artist
    /// has not renamed is named after that file.
    pub fn to_save_as(&self, path: &Path) -> Preset {
        let mut preset = self.preset.clone();
        let new_file = self.path.as_deref() != Some(path);
        if new_file && self.path.is_some() && self.saved.name == preset.name {
            if let Some(stem) = path.file_stem() {
                let stem = stem.to_string_lossy().replace('_', " ");
                if !stem.is_empty() {
                    preset.name = capitalise(&stem);
                }
            }
        }
        preset
    }

    /// `preset` was written to `path`: it is the document's file and saved state now.
    pub fn saved_to(&mut self, preset: Preset, path: &Path) {
        self.preset = preset.clone();
        self.saved = preset;
        self.path = Some(path.to_path_buf());
        self.remember(path.to_path_buf());
    }

    /// Replaces the whole preset (name, garment, fold lines, look, paint and knobs) as one
    /// undoable step.
    pub fn set_preset(&mut self, preset: Preset) {
        let before = self.edits();
        self.preset = preset;
        if before != self.edits() {
            self.undo.push(before);
        }
    }

    fn edits(&self) -> Edits {
        Edits::of(&self.preset)
    }

    fn set_edits(&mut self, edits: Edits) {
        edits.put_into(&mut self.preset);
    }

    /// Changes the preset with `change`: one undo step at once, or with `pointer_down` part of
    /// the gesture that becomes one step on release.
    fn edit(&mut self, pointer_down: bool, change: impl FnOnce(&mut Preset)) {
        let before = self.edits();
        change(&mut self.preset);
        self.undo.track(&before, &self.edits(), pointer_down);
    }

    /// Another garment, as one undo step (its fold lines and paint stay in the preset; the
    /// scene uses them where its grid takes them).
    pub fn edit_garment(&mut self, garment: Garment) {
        self.edit(false, |p| p.garment = garment);
    }

    /// Another list of fold lines, as one undo step.
    pub fn edit_fold_lines(&mut self, lines: Vec<FoldLine>) {
        self.edit(false, |p| p.fold_lines = lines);
    }

    /// One frame of painting the max distance: a stroke (press to release) is one undo step;
    /// with `pointer_down` false (Clear paint) the change is a step at once.
    pub fn edit_max_distance_map(&mut self, map: Option<MaxDistanceMap>, pointer_down: bool) {
        self.edit(pointer_down, |p| p.max_distance_map = map);
    }

    /// One frame of editing the look; a slider gesture is one undo step on release.
    pub fn edit_look(&mut self, look: Look, pointer_down: bool) {
        self.edit(pointer_down, |p| p.look = look);
    }

    /// One frame of knob editing from the parameter panel: `reset_one` when a knob was reset to
    /// its saved value (one step at once), else a slider gesture that is one step on release.
    pub fn edit_params(&mut self, params: FabricParams, reset_one: bool, pointer_down: bool) {
        if reset_one {
            self.undo.push(self.edits());
            self.preset.params = params;
        } else {
            self.edit(pointer_down, |p| p.params = params);
        }
    }

    /// Ends a slider gesture when the pointer was let go in a frame with no edit.
    pub fn settle_gesture(&mut self, pointer_down: bool) {
        let now = self.edits();
        self.undo.track(&now, &now, pointer_down);
    }

    /// Puts back what was saved (knobs, look, paint, garment and fold lines; the name stays as
    /// typed), as one undoable step. Returns true when anything changed.
    pub fn revert_to_saved(&mut self) -> bool {
        let before = self.edits();
        Edits::of(&self.saved).put_into(&mut self.preset);
        let changed = before != self.edits();
        if changed {
            self.undo.push(before);
        }
        changed
    }

    /// Steps the edits back. Returns true when they changed.
    pub fn undo(&mut self) -> bool {
        match self.undo.undo(&self.edits()) {
            Some(e) => {
                self.set_edits(e);
                true
            }
            None => false,
        }
    }

    /// Steps the edits forward again. Returns true when they changed.
    pub fn redo(&mut self) -> bool {
        match self.undo.redo(&self.edits()) {
            Some(e) => {
                self.set_edits(e);
                true
            }
            None => false,
        }
    }
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tweed() -> Preset {
        super::super::shipped(0)
    }

    #[test]
    fn saving_an_unrenamed_preset_to_a_new_file_names_it_after_the_file() {
        let mut doc = Document::new(tweed(), Some(PathBuf::from("tweed.json")), Vec::new());
        let out = doc.to_save_as(Path::new("/tmp/heavy_wool.json"));
        assert_eq!(out.name, "Heavy wool");
        doc.preset.name = "Mine".into();
        assert_eq!(
            doc.to_save_as(Path::new("/tmp/heavy_wool.json")).name,
            "Mine"
        );
        let same = doc.to_save_as(Path::new("tweed.json"));
        assert_eq!(same.name, "Mine");
    }

    #[test]
    fn a_saved_preset_is_clean_and_first_in_the_recent_list() {
        let mut doc = Document::new(tweed(), None, vec![PathBuf::from("a.json")]);
        doc.preset.params.damping *= 2.0;
        assert!(doc.is_dirty());
        assert!(doc.title().contains(" *"));
        let p = doc.to_save_as(Path::new("b.json"));
        doc.saved_to(p, Path::new("b.json"));
        assert!(!doc.is_dirty());
        assert_eq!(
            doc.recent(),
            [PathBuf::from("b.json"), PathBuf::from("a.json")]
        );
        assert_eq!(
            doc.title(),
            format!("{} (b.json) - cloth-tuner", doc.preset.name)
        );
    }

    #[test]
    fn revert_is_one_undo_step_and_undo_redo_report_a_change() {
        let mut doc = Document::new(tweed(), None, Vec::new());
        let saved = doc.preset.params.clone();
        let mut edited = saved.clone();
        edited.damping = 0.2;
        doc.edit_params(edited.clone(), false, false);
        assert!(doc.revert_to_saved());
        assert_eq!(doc.preset.params, saved);
        assert!(!doc.revert_to_saved(), "nothing left to revert");
        assert!(doc.undo());
        assert_eq!(doc.preset.params, edited);
        assert!(doc.redo());
        assert_eq!(doc.preset.params, saved);
        assert!(!doc.redo());
    }

    #[test]
    fn a_look_edit_is_an_undo_step_like_a_knob() {
        let mut doc = Document::new(tweed(), None, Vec::new());
        let mut red = doc.preset.look;
        red.colour = crate::preset::Colour([200, 20, 20]);
        doc.edit_look(red, false);
        assert!(doc.is_dirty());
        assert!(doc.undo());
        assert_eq!(doc.preset.look, Look::TWEED);
        assert!(doc.redo());
        assert_eq!(doc.preset.look, red);
    }

    #[test]
    fn fold_lines_and_garment_are_undone_and_reverted_with_the_knobs() {
        use crate::sim::{FoldAxis, FoldLine};
        let mut doc = Document::new(tweed(), None, Vec::new());
        let line = FoldLine {
            axis: FoldAxis::Row,
            index: 4,
        };
        doc.edit_fold_lines(vec![line]);
        doc.edit_garment(Garment::Skirt);
        assert!(doc.undo());
        assert_eq!(doc.preset.garment, Garment::Jacket);
        assert_eq!(doc.preset.fold_lines, vec![line]);
        assert!(doc.undo());
        assert!(doc.preset.fold_lines.is_empty());
        assert!(!doc.is_dirty());
        assert!(doc.redo() && doc.redo());
        assert!(doc.revert_to_saved());
        assert!(!doc.is_dirty(), "garment and fold lines as saved");
        assert!(doc.undo());
        assert_eq!(
            (doc.preset.garment, doc.preset.fold_lines.clone()),
            (Garment::Skirt, vec![line])
        );
    }
}
