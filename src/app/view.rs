//! How the scene is looked at: the camera, the overlays, the 3D viewport and the frame-rate
//! meter, with the View menu that changes them. (The fabric's look belongs to the preset.)

use eframe::egui;
use egui::Ui;

use super::command::Command;
use super::compare::CompareMode;
use super::paint::{Brush, Stroke};
use super::viewport::Viewport;
use crate::render::{OrbitCamera, Overlays, Quality, View};

/// Seconds between two frame-rate lines on stderr (`--report-fps`).
const FPS_REPORT_SECONDS: f64 = 3.0;

/// The view's state.
pub struct ViewState {
    pub camera: OrbitCamera,
    pub overlays: Overlays,
    /// View > Quality, as chosen (Automatic resolves per renderer when drawing).
    pub quality: Quality,
    /// Compare > side by side or ghost.
    pub compare_mode: CompareMode,
    pub viewport: Viewport,
    pub fps: FpsMeter,
    /// The max-distance brush (dragging paints instead of orbiting while it is on).
    pub brush: Brush,
    /// The paint stroke under way, from press to release.
    pub stroke: Option<Stroke>,
}

/// A smoothed frame rate, printed now and then when asked to.
#[derive(Clone, Debug, Default)]
pub struct FpsMeter {
    fps: f64,
    last: Option<f64>,
    report: bool,
    reported_at: f64,
}

impl FpsMeter {
    /// A meter that prints the rate to stderr every few seconds when `report` is set.
    pub fn new(report: bool) -> Self {
        Self {
            report,
            ..Self::default()
        }
    }

    /// A frame drawn at clock time `now`.
    pub fn frame(&mut self, now: f64) {
        if let Some(last) = self.last {
            let dt = now - last;
            if dt > 0.0 && dt.is_finite() {
                let inst = 1.0 / dt;
                self.fps = if self.fps == 0.0 {
                    inst
                } else {
                    self.fps * 0.9 + inst * 0.1
                };
            }
        }
        self.last = Some(now);
        if self.report && now - self.reported_at > FPS_REPORT_SECONDS {
            self.reported_at = now;
            eprintln!("cloth-tuner: {:.1} fps", self.fps);
        }
    }

    pub fn fps(&self) -> f64 {
        self.fps
    }
}

impl ViewState {
    /// View > Quality: one entry per level; Automatic says what it picked on this renderer.
    fn quality_menu(&self, ui: &mut Ui, out: &mut Vec<Command>) {
        let renderer = self.viewport.gl_renderer();
        let software = self.viewport.software_renderer();
        ui.label("Quality");
        let mut q = self.quality;
        for level in Quality::ALL {
            let label = if level == Quality::Automatic {
                format!(
                    "Automatic ({} on {renderer})",
                    level.resolve(software).label()
                )
            } else {
                level.label().to_string()
            };
            ui.radio_value(&mut q, level, label)
                .on_hover_text(level.tooltip());
        }
        if q != self.quality {
            out.push(Command::SetQuality(q));
        }
    }

    /// The View menu: layers, quality and the camera.
    pub fn menu(&self, ui: &mut Ui, out: &mut Vec<Command>) {
        let mut o = self.overlays.clone();
        ui.checkbox(&mut o.body, "Body");
        ui.checkbox(&mut o.jacket, "Jacket");
        ui.checkbox(&mut o.shadows, "Shadows");
        ui.separator();
        ui.checkbox(
            &mut o.sim_mesh,
            "Simulation mesh (stretch blue, shear/bend orange, fold lines magenta)",
        );
        ui.checkbox(&mut o.edge_particles, "Edge particles");
        ui.checkbox(&mut o.pinned_particles, "Pinned particles");
        ui.checkbox(&mut o.ellipsoids, "Collision ellipsoids");
        ui.checkbox(&mut o.max_distance, "Max-distance spheres");
        ui.checkbox(&mut o.sim_bones, "Bones from the simulation mesh");
        ui.checkbox(&mut o.wind_arrow, "Wind arrow");
        ui.checkbox(&mut o.stretch_heat_map, "Stretch heat map");
        if ui.button("All overlays on").clicked() {
            o.set_all_debug(true);
        }
        if ui.button("All overlays off").clicked() {
            o.set_all_debug(false);
        }
        if o != self.overlays {
            out.push(Command::SetOverlays(o));
        }
        ui.separator();
        self.quality_menu(ui, out);
        ui.separator();
        for (label, view) in [
            ("Front view", View::Front),
            ("Side view", View::Side),
            ("Back view", View::Back),
        ] {
            if ui.button(label).clicked() {
                out.push(Command::SetView(view));
            }
        }
        if ui.button("Frame character (F)").clicked() {
            out.push(Command::FrameCharacter);
        }
        let mut follow = self.camera.follow;
        ui.checkbox(&mut follow, "Camera follows the character");
        if follow != self.camera.follow {
            out.push(Command::SetFollow(follow));
        }
    }
}
