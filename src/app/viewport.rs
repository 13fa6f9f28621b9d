//! The 3D viewport: camera input, poking the cloth, and the paint callback that hands a
//! snapshot of the scene to [`Renderer::draw`] on eframe's GL context.

use eframe::egui;
use std::sync::{Arc, Mutex};

use egui::{PointerButton, Rect, Sense, Ui};
use glam::{Mat4, Vec3};

use super::command::Command;
use crate::render::quality::{is_software_renderer, ScaledView};
use crate::render::{
    scene_data, ClothData, FabricLook, MeshData, OrbitCamera, Overlays, Quality, Renderer,
    SceneData,
};
use crate::rig::Scene;
use crate::sim::{Collider, Topology};

/// An owned triangle mesh (copied out of the simulation for the paint callback).
#[derive(Clone, Debug, Default)]
pub struct OwnedMesh {
    pub positions: Vec<Vec3>,
    pub normals: Vec<Vec3>,
    pub uvs: Vec<[f32; 2]>,
    pub indices: Arc<Vec<u32>>,
}

impl OwnedMesh {
    fn view(&self) -> MeshData<'_> {
        MeshData {
            positions: &self.positions,
            normals: &self.normals,
            uvs: &self.uvs,
            indices: &self.indices,
        }
    }
}

/// An owned copy of the cloth for drawing.
#[derive(Clone, Debug)]
pub struct OwnedCloth {
    pub positions: Vec<Vec3>,
    pub topology: Arc<Topology>,
    pub references: Vec<Vec3>,
    pub max_distances: Vec<f32>,
}

/// Everything the paint callback needs, owned.
#[derive(Clone, Debug, Default)]
pub struct Snapshot {
    pub root: Mat4,
    pub body: Option<OwnedMesh>,
    pub jacket: Option<OwnedMesh>,
    pub cloth: Option<OwnedCloth>,
    pub colliders: Vec<Collider>,
    pub sim_bones: Vec<Mat4>,
    pub wind: Vec3,
    pub look: FabricLook,
}

impl Snapshot {
    fn scene(&self) -> SceneData<'_> {
        SceneData {
            root: self.root,
            body: self.body.as_ref().map(OwnedMesh::view),
            jacket: self.jacket.as_ref().map(OwnedMesh::view),
            cloth: self.cloth.as_ref().map(|c| ClothData {
                positions: &c.positions,
                topology: &c.topology,
                references: &c.references,
                max_distances: &c.max_distances,
            }),
            colliders: &self.colliders,
            sim_bones: &self.sim_bones,
            wind: self.wind,
            look: self.look,
        }
    }
}

/// A particle held by ctrl+drag.
#[derive(Clone, Copy, Debug)]
struct Poke {
    particle: usize,
    /// Distance from the eye along the view direction at which the particle is held.
    depth: f32,
}

/// The viewport's state.
pub struct Viewport {
    renderer: Option<Arc<Mutex<Renderer>>>,
    /// The offscreen picture of a scaled-down view (View > Quality below Full).
    scaled: Arc<Mutex<Option<ScaledView>>>,
    /// `GL_RENDERER`, and whether it is a software rasteriser.
    gl_renderer: String,
    software: bool,
    /// View > Quality, as chosen.
    quality: Quality,
    error: Option<String>,
    rect: Option<Rect>,
    body_indices: Arc<Vec<u32>>,
    jacket_indices: Arc<Vec<u32>>,
    topology: Option<Arc<Topology>>,
    poke: Option<Poke>,
    /// Set by the paint callback when drawing panicked; the 3D view stays off after that.
    failure: Arc<Mutex<Option<String>>>,
    /// The failure was handed to the app already.
    failure_reported: bool,
    /// Test hook (`CLOTH_TUNER_TEST_PANIC_IN_DRAW=<seconds>`): drawing panics once this long
    /// after the viewport was made.
    panic_at: Option<std::time::Instant>,
}

impl Viewport {
    /// Sets up the renderer on eframe's GL context; with no GL (tests) the viewport shows a
    /// note instead.
    pub fn new(gl: Option<Arc<eframe::glow::Context>>) -> Self {
        use eframe::glow::HasContext as _;
        // SAFETY: a plain query on the context eframe made current for this thread.
        let gl_renderer = gl
            .as_ref()
            .map(|gl| unsafe { gl.get_parameter_string(eframe::glow::RENDERER) })
            .unwrap_or_else(|| "no OpenGL".to_string());
        let software = is_software_renderer(&gl_renderer);
        let (renderer, error) = match gl {
            None => (None, Some("no OpenGL context".to_string())),
            Some(gl) => match three_d::Context::from_gl_context(gl) {
                Ok(ctx) => (Some(Arc::new(Mutex::new(Renderer::new(&ctx)))), None),
                Err(e) => (
                    None,
                    Some(format!("three-d cannot use the GL context: {e}")),
                ),
            },
        };
        Self {
            renderer,
            scaled: Arc::new(Mutex::new(None)),
            gl_renderer,
            software,
            quality: Quality::default(),
            error,
            rect: None,
            body_indices: Arc::new(Vec::new()),
            jacket_indices: Arc::new(Vec::new()),
            topology: None,
            poke: None,
            failure: Arc::new(Mutex::new(None)),
            failure_reported: false,
            panic_at: std::env::var("CLOTH_TUNER_TEST_PANIC_IN_DRAW")
                .ok()
                .and_then(|s| s.trim().parse::<f64>().ok())
                .filter(|s| s.is_finite() && *s >= 0.0)
                .map(|s| std::time::Instant::now() + std::time::Duration::from_secs_f64(s)),
        }
    }

    /// Sets View > Quality for the frames drawn from now on.
    pub fn set_quality(&mut self, quality: Quality) {
        self.quality = quality;
    }

    /// The OpenGL renderer's name (`GL_RENDERER`).
    pub fn gl_renderer(&self) -> &str {
        &self.gl_renderer
    }

    /// Whether the renderer is a software rasteriser (View > Quality's Automatic draws fewer
    /// pixels there).
    pub fn software_renderer(&self) -> bool {
        self.software
    }

    /// Why drawing stopped (a panic inside the 3D drawing), if it did.
    pub fn failure(&self) -> Option<String> {
        self.failure.lock().ok().and_then(|f| f.clone())
    }

    /// A drawing failure not handed out before (once per failure).
    pub fn take_new_failure(&mut self) -> Option<String> {
        if self.failure_reported {
            return None;
        }
        let f = self.failure();
        self.failure_reported = f.is_some();
        f
    }

    /// Records a drawing failure as the paint callback does (for tests without OpenGL).
    pub fn record_failure(&self, message: &str) {
        record(&self.failure, message.to_string());
    }

    /// Why there is no 3D view, if there is none.
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// Where the viewport was drawn last frame (points).
    pub fn rect(&self) -> Option<Rect> {
        self.rect
    }

    /// Copies what the picture needs out of the scene ([`scene_data`]), keeping the index
    /// buffers and the topology shared while they do not change.
    pub fn snapshot(&mut self, scene: &Scene, look: FabricLook) -> Snapshot {
        if self.renderer.is_none() || self.failure_reported {
            return Snapshot::default();
        }
        let data = scene_data(scene, look);
        let own = |mesh: Option<MeshData>, cache: &mut Arc<Vec<u32>>| {
            mesh.map(|mesh| {
                refresh(cache, mesh.indices);
                owned(&mesh, cache)
            })
        };
        let body = own(data.body, &mut self.body_indices);
        let jacket = own(data.jacket, &mut self.jacket_indices);
        let cloth = data.cloth.map(|c| {
            let topology = self.shared_topology(c.topology);
            OwnedCloth {
                positions: c.positions.to_vec(),
                topology,
                references: c.references.to_vec(),
                max_distances: c.max_distances.to_vec(),
            }
        });
        Snapshot {
            root: data.root,
            body,
            jacket,
            cloth,
            colliders: data.colliders.to_vec(),
            sim_bones: data.sim_bones.to_vec(),
            wind: data.wind,
            look: data.look,
        }
    }

    /// The topology behind an `Arc`, copied only when the cloth was rebuilt.
    fn shared_topology(&mut self, topo: &Topology) -> Arc<Topology> {
        match &self.topology {
            Some(t)
                if t.len() == topo.len()
                    && t.links.len() == topo.links.len()
                    && t.rest == topo.rest =>
            {
                t.clone()
            }
            _ => {
                let t = Arc::new(topo.clone());
                self.topology = Some(t.clone());
                t
            }
        }
    }

    /// Draws the viewport and moves the camera; poking a particle of the cloth (`positions`,
    /// character space) is pushed as a [`Command::Drag`].
    pub fn ui(
        &mut self,
        ui: &mut Ui,
        camera: &mut OrbitCamera,
        overlays: &Overlays,
        snapshot: Snapshot,
        positions: &[Vec3],
        out: &mut Vec<Command>,
    ) {
        let rect = ui.available_rect_before_wrap();
        let response = ui.allocate_rect(rect, Sense::click_and_drag());
        self.rect = Some(rect);
        self.pointer_input(ui, &response, camera, &snapshot.root, positions, out);
        self.paint(ui, rect, camera, overlays, snapshot);
        ui.painter().text(
            rect.left_bottom() + egui::vec2(8.0, -8.0),
            egui::Align2::LEFT_BOTTOM,
            "drag: orbit · shift/middle drag: pan · wheel: zoom · F: frame · ctrl+drag: poke the cloth",
            egui::FontId::proportional(12.0),
            egui::Color32::from_gray(230),
        );
    }

    /// The mouse over the view: ctrl + left drag holds the nearest particle under the pointer
    /// (a [`Command::Drag`] each frame, `None` on release), other drags orbit or pan, the
    /// wheel zooms. `root` is the character's frame.
    fn pointer_input(
        &mut self,
        ui: &Ui,
        response: &egui::Response,
        camera: &mut OrbitCamera,
        root: &Mat4,
        positions: &[Vec3],
        out: &mut Vec<Command>,
    ) {
        let rect = response.rect;
        let followed = root.w_axis.truncate();
        let aspect = rect.width() / rect.height().max(1.0);
        let (ctrl, shift) = ui.input(|i| (i.modifiers.command, i.modifiers.shift));
        if response.drag_started_by(PointerButton::Primary) && ctrl {
            if let Some(pointer) = response.interact_pointer_pos() {
                self.poke = pick(camera, followed, aspect, rect, pointer, root, positions);
            }
        }
        if let Some(poke) = self.poke {
            if !response.dragged_by(PointerButton::Primary) {
                out.push(Command::Drag {
                    particle: poke.particle,
                    target: None,
                });
                self.poke = None;
            } else if let Some(pointer) = response.interact_pointer_pos() {
                let (o, d) = camera.ray(followed, aspect, to_ndc(rect, pointer));
                let (_, _, fwd) = camera.basis();
                let world = o + d * (poke.depth / d.dot(fwd).max(1e-3));
                let local = root.inverse().transform_point3(world);
                if local.is_finite() {
                    out.push(Command::Drag {
                        particle: poke.particle,
                        target: Some(local),
                    });
                }
            }
        } else if response.dragged_by(PointerButton::Middle)
            || (response.dragged_by(PointerButton::Primary) && shift)
        {
            let d = response.drag_delta();
            camera.pan(d.x, d.y, rect.height());
        } else if response.dragged_by(PointerButton::Primary) && !ctrl {
            let d = response.drag_delta();
            camera.orbit(d.x, d.y);
        }
        if response.hovered() {
            let scroll = ui.input(|i| i.smooth_scroll_delta.y);
            if scroll != 0.0 {
                camera.zoom(scroll / 50.0);
            }
        }
    }

    /// The 3D view in `rect`, drawn by a paint callback on eframe's GL context; or, with no
    /// renderer or after drawing failed, a note saying why.
    fn paint(
        &self,
        ui: &Ui,
        rect: Rect,
        camera: &OrbitCamera,
        overlays: &Overlays,
        snapshot: Snapshot,
    ) {
        let failed = self.failure();
        if let (Some(at), None) = (self.panic_at, &failed) {
            // The test hook: make sure a frame is drawn when it is due, even when idle.
            let now = std::time::Instant::now();
            ui.ctx()
                .request_repaint_after(at.saturating_duration_since(now));
        }
        match &self.renderer {
            Some(renderer) if failed.is_none() => {
                let job = PaintJob {
                    renderer: renderer.clone(),
                    scaled: self.scaled.clone(),
                    failure: self.failure.clone(),
                    panic_at: self.panic_at,
                    camera: camera.clone(),
                    overlays: overlays.clone(),
                    quality: self.quality.resolve(self.software),
                    snapshot,
                };
                ui.painter().add(egui::PaintCallback {
                    rect,
                    callback: Arc::new(eframe::egui_glow::CallbackFn::new(
                        move |info, _painter| job.run(&info),
                    )),
                });
            }
            _ => {
                ui.painter()
                    .rect_filled(rect, 0.0, egui::Color32::from_rgb(70, 76, 82));
                let why = match &failed {
                    Some(f) => format!(
                        "3D view stopped: drawing failed ({f}).\nThe parameters are kept: save them, then restart the tuner."
                    ),
                    None => format!(
                        "3D viewport off ({})",
                        self.error.as_deref().unwrap_or("no renderer")
                    ),
                };
                ui.painter().text(
                    rect.center(),
                    egui::Align2::CENTER_CENTER,
                    why,
                    egui::FontId::proportional(16.0),
                    egui::Color32::from_gray(220),
                );
            }
        }
    }
}

/// One frame of the 3D view, as the paint callback draws it on eframe's GL thread.
struct PaintJob {
    renderer: Arc<Mutex<Renderer>>,
    scaled: Arc<Mutex<Option<ScaledView>>>,
    failure: Arc<Mutex<Option<String>>>,
    panic_at: Option<std::time::Instant>,
    camera: OrbitCamera,
    overlays: Overlays,
    /// Resolved for this renderer (never Automatic).
    quality: Quality,
    snapshot: Snapshot,
}

impl PaintJob {
    fn run(&self, info: &egui::PaintCallbackInfo) {
        let vp = info.viewport_in_pixels();
        let [sw, sh] = info.screen_size_px;
        let (Ok(mut r), Ok(mut scaled)) = (self.renderer.lock(), self.scaled.lock()) else {
            return;
        };
        let ctx = r.context().clone();
        let target = three_d::RenderTarget::screen(&ctx, sw, sh);
        let viewport = three_d::Viewport {
            x: vp.left_px,
            y: vp.from_bottom_px,
            width: vp.width_px.max(0) as u32,
            height: vp.height_px.max(0) as u32,
        };
        // A panic inside the drawing must not take the window (and the artist's unsaved
        // parameters) down: catch it, remember why, and stop drawing the 3D view.
        let drawn = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            if self
                .panic_at
                .is_some_and(|t| std::time::Instant::now() >= t)
            {
                panic!("test panic in drawing (CLOTH_TUNER_TEST_PANIC_IN_DRAW)");
            }
            r.shadow_map_size = self.quality.shadow_map_size();
            ScaledView::draw(
                &mut scaled,
                &ctx,
                &target,
                viewport,
                self.quality.scale(),
                |target, viewport| {
                    r.draw(
                        target,
                        viewport,
                        &self.camera,
                        &self.snapshot.scene(),
                        &self.overlays,
                    )
                },
            );
        }));
        if let Err(payload) = drawn {
            record(&self.failure, panic_message(payload.as_ref()));
        }
    }
}

/// Keeps the first failure.
fn record(failure: &Mutex<Option<String>>, message: String) {
    let mut f = match failure.lock() {
        Ok(f) => f,
        Err(poisoned) => poisoned.into_inner(),
    };
    if f.is_none() {
        *f = Some(message);
    }
}

/// The text of a panic's payload.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic with no message".to_string()
    }
}

/// Keeps a shared copy of an index list, copying only when it changed.
fn refresh(cache: &mut Arc<Vec<u32>>, indices: &[u32]) {
    if cache.as_slice() != indices {
        *cache = Arc::new(indices.to_vec());
    }
}

fn owned(mesh: &MeshData, indices: &Arc<Vec<u32>>) -> OwnedMesh {
    OwnedMesh {
        positions: mesh.positions.to_vec(),
        normals: mesh.normals.to_vec(),
        uvs: mesh.uvs.to_vec(),
        indices: indices.clone(),
    }
}

fn to_ndc(rect: Rect, p: egui::Pos2) -> [f32; 2] {
    [
        (p.x - rect.left()) / rect.width().max(1.0) * 2.0 - 1.0,
        1.0 - (p.y - rect.top()) / rect.height().max(1.0) * 2.0,
    ]
}

/// The particle nearest the pointer on screen (within 30 points), and its depth.
fn pick(
    camera: &OrbitCamera,
    followed: Vec3,
    aspect: f32,
    rect: Rect,
    pointer: egui::Pos2,
    root: &Mat4,
    positions: &[Vec3],
) -> Option<Poke> {
    let target = to_ndc(rect, pointer);
    let px_per_ndc = rect.width().max(1.0) * 0.5;
    let eye = camera.eye(followed);
    let (_, _, fwd) = camera.basis();
    let mut best: Option<(f32, Poke)> = None;
    for (i, p) in positions.iter().enumerate() {
        let world = root.transform_point3(*p);
        let Some(ndc) = camera.project(followed, aspect, world) else {
            continue;
        };
        let dx = (ndc[0] - target[0]) * px_per_ndc;
        let dy = (ndc[1] - target[1]) * px_per_ndc / aspect.max(1e-3);
        let d = (dx * dx + dy * dy).sqrt();
        if d < 30.0 && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((
                d,
                Poke {
                    particle: i,
                    depth: (world - eye).dot(fwd),
                },
            ));
        }
    }
    best.map(|(_, p)| p)
}
