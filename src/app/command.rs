//! What the artist asked for, as values. The panels, keys and dialogs only read the app and
//! push [`Command`]s during the UI pass; [`App::apply`] carries them out after it, so no panel
//! sees the state change half-way through a frame (a clip switched under the timeline, a
//! preset replaced under the parameter panel).

use std::path::PathBuf;

use eframe::egui;
use glam::Vec3;

use super::compare::CompareMode;
use super::paint::Brush;
use super::{App, FileTask, Pending};
use crate::export::Engine;
use crate::preset::Garment;
use crate::preset::Look;
use crate::render::{Overlays, Quality, View};
use crate::sim::{FabricParams, FoldLine};

/// One thing the artist asked for.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// A new, unsaved preset from shipped preset `i` (asks first about unsaved changes).
    NewFrom(usize),
    /// Open a preset file (asks first about unsaved changes).
    Open(PathBuf),
    /// Save to the preset's file, or ask where when it has none.
    Save,
    SaveAs(PathBuf),
    /// Show the typed-path dialog for a task.
    AskPath(FileTask),
    /// Offer the native file dialog for a task.
    Browse(FileTask),
    /// Play the scene on the glTF character at this path (`None`: the built-in one), keeping
    /// the preset and, where the character has it, the clip.
    OpenCharacter(Option<PathBuf>),
    /// Show the Character window (bones and ellipsoid scales) for the glTF character.
    ShowCharacterSettings,
    CloseCharacterSettings,
    /// Reload the character with the Character window's settings; `save` also writes them.
    ApplyCharacterSettings {
        save: bool,
    },
    /// Back to the character settings in the file.
    RevertCharacterSettings,
    /// The Garment window shown or closed (File > Open garment…).
    ShowGarment(bool),
    /// List the skinned meshes of this glTF file in the Garment window.
    GarmentFile(PathBuf),
    /// The glTF character wears this garment (its grid settings from the file beside it).
    WearGarment(super::GarmentRef),
    /// Back to the preset's template garment.
    TakeOffGarment,
    /// Lay the worn garment's grid again with these settings.
    SetGridChoice(crate::garment::imported::GridChoice),
    /// Write the worn garment's grid settings beside it.
    SaveGarmentSettings,
    /// Back to the grid settings in the file.
    RevertGarmentSettings,
    /// Write the preset's settings for an engine at this path (files beside it too).
    ExportFor(Engine, PathBuf),
    /// Write the garment worn, rigged with its cloth bones, as a glTF binary at this path.
    ExportRigged(PathBuf),
    /// File > Bake clips… shown or closed.
    ShowBake(bool),
    /// Bake the clips as set up in the Bake window.
    RunBake,
    DismissExportReport,
    ClosePathDialog,
    /// Close the window (asks first about unsaved changes).
    Quit,
    /// The answer to "discard unsaved changes?": go ahead (`true`) or keep them.
    AnswerDiscard(bool),
    Rename(String),
    SetGarment(Garment),
    /// The garment's fold lines after an edit in the panel.
    SetFoldLines(Vec<FoldLine>),
    /// The parameter panel's knobs after this frame: `reset_one` when a knob was reset to its
    /// saved value, `pointer_down` while a slider gesture may still be going on.
    EditParams {
        params: FabricParams,
        reset_one: bool,
        pointer_down: bool,
    },
    Undo,
    Redo,
    RevertToSaved,
    SetClip(String),
    TogglePlay,
    /// Pause and take one fixed step.
    Step,
    Reset,
    SetSpeed(f32),
    SetLooping(bool),
    /// Scrub the timeline to this many seconds from the clip start.
    Seek(f64),
    /// Hold a particle at a character-space point (`None` lets go).
    Drag {
        particle: usize,
        target: Option<Vec3>,
    },
    SetOverlays(Overlays),
    /// The paint panel's brush settings.
    SetBrush(Brush),
    /// The brush over the particle nearest the pointer, at this character-space point (the
    /// first of a stroke begins it).
    PaintDab(Vec3),
    /// The stroke ended (pointer released).
    PaintEnd,
    /// Every particle back to the max-distance curve (one undo step).
    ClearPaint,
    /// The preset's look (pattern, colour, sheerness).
    SetLook(Look),
    /// View > Quality.
    SetQuality(Quality),
    SetView(View),
    FrameCharacter,
    SetFollow(bool),
    Screenshot,
    DismissError,
    /// The answer to the autosave offer: restore it (`true`) or throw it away.
    AnswerRestore(bool),
    DismissSaveError,
    DismissResetNotice,
    /// Play this preset file as B beside the edited one (A/B).
    OpenSecond(PathBuf),
    /// Play shipped preset `i` as B.
    SecondFromShipped(usize),
    /// The knobs go to the other preset of the comparison.
    SwapCompare,
    SetCompareMode(CompareMode),
    ShowCompareTable(bool),
    /// End the comparison (asks first when the other preset has unsaved changes).
    CloseCompare,
    /// Tools > Wedge shown or closed.
    ShowWedge(bool),
    /// Run the wedge as set up in its window.
    RunWedge,
    /// Load this wedge cell's knobs (one undo step).
    WedgeCell(usize),
    /// Tools > Fit shown or closed.
    ShowFit(bool),
    /// Run the fit as set up in its window.
    RunFit,
    /// Load the fit's best knobs (one undo step).
    ApplyFit,
}

impl App {
    /// Carries out one command.
    pub fn apply(&mut self, ctx: &egui::Context, command: Command) {
        let playback = &mut self.playback;
        match command {
            Command::NewFrom(i) => self.guarded(ctx, Pending::NewFrom(i)),
            Command::Open(p) => self.guarded(ctx, Pending::Open(p)),
            Command::Quit => self.guarded(ctx, Pending::Quit),
            Command::AnswerDiscard(go) => self.answer_discard(ctx, go),
            Command::Save => self.save(),
            Command::SaveAs(p) => self.save_as(&p),
            Command::AskPath(task) => self.ask_path(task),
            Command::Browse(task) => self.native_pick(task),
            Command::OpenCharacter(path) => self.open_character(path.as_deref()),
            Command::ShowCharacterSettings => self.show_character_settings(),
            Command::CloseCharacterSettings => self.character_open = false,
            Command::ApplyCharacterSettings { save } => self.apply_character_settings(save),
            Command::RevertCharacterSettings => self.revert_character_settings(),
            Command::ShowGarment(open) => self.garment_editor.open = open,
            Command::GarmentFile(path) => self.garment_editor.set_file(&path),
            Command::WearGarment(g) => self.wear_garment(g, None),
            Command::TakeOffGarment => self.take_off_garment(),
            Command::SetGridChoice(choice) => self.relay_garment(choice),
            Command::SaveGarmentSettings => self.save_garment_settings(),
            Command::RevertGarmentSettings => self.revert_garment_settings(),
            Command::ExportFor(engine, path) => self.export_for(engine, &path),
            Command::ExportRigged(path) => self.export_rigged(&path),
            Command::ShowBake(open) => self.show_bake(open),
            Command::RunBake => self.run_bake(),
            Command::DismissExportReport => self.export_report = None,
            Command::ClosePathDialog => self.path_dialog = None,
            Command::Screenshot => self.screenshot(ctx),
            Command::DismissError => self.error = None,
            Command::AnswerRestore(restore) => self.answer_restore(ctx, restore),
            Command::DismissSaveError => self.dismiss_save_error(),
            Command::DismissResetNotice => self.dismiss_reset_notice(),
            Command::OpenSecond(path) => self.open_second(&path),
            Command::SecondFromShipped(i) => {
                let path = None;
                self.start_compare(super::shipped(i), path);
            }
            Command::SwapCompare => self.swap_compare(),
            Command::SetCompareMode(mode) => self.view.compare_mode = mode,
            Command::ShowCompareTable(open) => self.show_compare_table(open),
            Command::CloseCompare => self.guarded(ctx, Pending::CloseCompare),
            Command::ShowWedge(open) => self.tools.wedge.open = open,
            Command::RunWedge => self.run_wedge(),
            Command::WedgeCell(i) => self.load_wedge_cell(i),
            Command::ShowFit(open) => self.tools.fit.open = open,
            Command::RunFit => self.run_fit(),
            Command::ApplyFit => self.apply_fit(),
            Command::Rename(name) => self.doc.preset.name = name,
            Command::SetGarment(g) => {
                self.doc.edit_garment(g);
                self.sync_scene();
            }
            Command::SetFoldLines(lines) => match playback.set_fold_lines(&lines) {
                Ok(()) => self.doc.edit_fold_lines(lines),
                Err(e) => self.status = e,
            },
            Command::EditParams {
                params,
                reset_one,
                pointer_down,
            } => {
                self.doc.edit_params(params, reset_one, pointer_down);
                self.sync_scene();
            }
            Command::Undo => self.undo(),
            Command::Redo => self.redo(),
            Command::RevertToSaved => {
                if self.doc.revert_to_saved() {
                    self.sync_scene();
                }
            }
            Command::SetClip(name) => self.set_clip(&name),
            Command::TogglePlay => playback.set_playing(!playback.is_playing()),
            Command::Step => playback.single_step(),
            Command::Reset => playback.reset(),
            Command::SetSpeed(s) => playback.speed = s,
            Command::SetLooping(on) => playback.looping = on,
            Command::Seek(t) => playback.seek_to(t),
            Command::Drag { particle, target } => playback.scene_mut().drag(particle, target),
            Command::SetOverlays(o) => self.view.overlays = o,
            Command::SetBrush(b) => self.view.brush = b,
            Command::PaintDab(centre) => self.paint_dab(ctx, centre),
            Command::PaintEnd => self.view.stroke = None,
            Command::ClearPaint => self.set_max_distance_map(None, false),
            Command::SetLook(look) => {
                let pointer_down = ctx.input(|i| i.pointer.any_down());
                self.doc.edit_look(look, pointer_down);
            }
            Command::SetQuality(q) => self.view.quality = q,
            Command::SetView(view) => {
                let root = playback.scene().root().rotation;
                let facing = root.to_euler(glam::EulerRot::YXZ).0;
                self.view.camera.set_view(view, facing);
            }
            Command::FrameCharacter => {
                let height = playback.scene().character().height();
                self.view.camera.frame_character(height);
            }
            Command::SetFollow(on) => self.view.camera.follow = on,
        }
    }
}
