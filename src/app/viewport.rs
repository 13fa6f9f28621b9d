//! The 3D viewport: camera input, poking the cloth, and the paint callback that hands a
//! snapshot of the scene to [`Renderer::draw`] on eframe's GL context.

use eframe::egui;
use std::sync::{Arc, Mutex};

use egui::{PointerButton, Rect, Sense, Ui};
use glam::{Mat4, Vec3};

use super::command::Command;
use super::compare::CompareMode;
use crate::render::quality::{is_software_renderer, ScaledView};
use crate::render::{
    scene_data, ClothData, FabricLook, MeshData, OrbitCamera, Overlays, Quality, Renderer,
    SceneData,
};
use crate::scene::Scene;
use crate::sim::{Collider, FoldLine, Topology};

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
    pub torn: Vec<bool>,
    pub edges: Vec<bool>,
    pub fold_lines: Vec<FoldLine>,
}

/// Everything the paint callback needs, owned.
#[derive(Clone, Debug, Default)]
pub struct Snapshot {
    pub root: Mat4,
    pub body: Option<OwnedMesh>,
    pub jacket: Option<OwnedMesh>,
    pub cloth: Option<OwnedCloth>,
    pub colliders: Vec<Collider>,
    pub hood_colliders: Vec<Collider>,
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
                torn: &c.torn,
                edges: &c.edges,
                fold_lines: &c.fold_lines,
            }),
            colliders: &self.colliders,
            hood_colliders: &self.hood_colliders,
            sim_bones: &self.sim_bones,
            wind: self.wind,
            look: self.look,
        }
    }
}

/// The other preset of an A/B comparison, as the viewport shows it.
pub struct OtherView {
    pub snapshot: Snapshot,
    pub mode: CompareMode,
    /// What the A and B sides are called.
    pub labels: [String; 2],
    /// The knobs edit B (else A).
    pub editing_b: bool,
}

/// What one paint callback draws: a scene with one of the two renderers, and maybe a ghost
/// over it with the other.
struct Picture {
    snapshot: Snapshot,
    /// 0: the edited preset's renderer, 1: the other one's.
    side: usize,
    ghost: Option<Snapshot>,
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
    /// The other preset's renderer in an A/B comparison (made when first needed): each keeps
    /// its own meshes and fabric between frames.
    other_renderer: Option<Arc<Mutex<Renderer>>>,
    /// The offscreen picture of a scaled-down view (View > Quality below Full), per renderer.
    scaled: [Arc<Mutex<Option<ScaledView>>>; 2],
    /// `GL_RENDERER`, and whether it is a software rasteriser.
    gl_renderer: String,
    software: bool,
    /// View > Quality, as chosen.
    quality: Quality,
    error: Option<String>,
    rect: Option<Rect>,
    /// What snapshots share between frames: the edited preset's, and the other's.
    caches: [SnapshotCache; 2],
    poke: Option<Poke>,
    /// The max-distance brush is on: a plain left drag paints instead of orbiting.
    pub painting: bool,
    /// The camera and the character's frame of the last frame drawn, to place particles on
    /// the screen ([`Viewport::screen_pos`]).
    last_view: Option<(OrbitCamera, Mat4)>,
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
            other_renderer: None,
            scaled: [Arc::new(Mutex::new(None)), Arc::new(Mutex::new(None))],
            gl_renderer,
            software,
            quality: Quality::default(),
            error,
            rect: None,
            caches: Default::default(),
            poke: None,
            painting: false,
            last_view: None,
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

    /// The View > Quality level in effect: Automatic resolved for this renderer.
    pub fn quality(&self) -> Quality {
        self.quality.resolve(self.software)
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
    pub fn snapshot(&mut self, scene: &mut Scene, look: FabricLook) -> Snapshot {
        if self.renderer.is_none() || self.failure_reported {
            return Snapshot::default();
        }
        self.caches[0].snapshot(scene, look)
    }

    /// [`Viewport::snapshot`] of an A/B comparison's other scene.
    pub fn snapshot_other(&mut self, scene: &mut Scene, look: FabricLook) -> Snapshot {
        if self.renderer.is_none() || self.failure_reported {
            return Snapshot::default();
        }
        self.caches[1].snapshot(scene, look)
    }

    /// Draws the viewport and moves the camera; poking a particle of `cloth` is pushed as a
    /// [`Command::Drag`], painting it as a [`Command::PaintDab`]. With `other`, the A/B comparison:
    /// side by side (A left) or the other preset as a ghost over the edited one.
    pub fn ui(
        &mut self,
        ui: &mut Ui,
        camera: &mut OrbitCamera,
        overlays: &Overlays,
        (snapshot, other): (Snapshot, Option<OtherView>),
        cloth: Pickable<'_>,
        out: &mut Vec<Command>,
    ) {
        let rect = ui.available_rect_before_wrap();
        let response = ui.allocate_rect(rect, Sense::click_and_drag());
        self.rect = Some(rect);
        let split = other
            .as_ref()
            .filter(|o| o.mode == CompareMode::SideBySide)
            .map(|o| {
                let (left, right) = rect.split_left_right_at_fraction(0.5);
                if o.editing_b {
                    (right, left)
                } else {
                    (left, right)
                }
            });
        let edited_rect = split.map_or(rect, |(edited, _)| edited);
        self.last_view = Some((camera.clone(), snapshot.root));
        self.pointer_input(&response, edited_rect, camera, cloth, out);
        if other.is_some() && self.other_renderer.is_none() {
            self.other_renderer = self.renderer.as_ref().and_then(|r| {
                let ctx = r.lock().ok()?.context().clone();
                Some(Arc::new(Mutex::new(Renderer::new(&ctx))))
            });
        }
        match (other, split) {
            (Some(o), Some((edited, other_rect))) => {
                let (a, b) = (&o.labels[0], &o.labels[1]);
                let (edited_label, other_label) = if o.editing_b { (b, a) } else { (a, b) };
                let primary = Picture {
                    snapshot,
                    side: 0,
                    ghost: None,
                };
                self.paint(ui, edited, camera, overlays, primary);
                let second = Picture {
                    snapshot: o.snapshot,
                    side: 1,
                    ghost: None,
                };
                self.paint(ui, other_rect, camera, overlays, second);
                side_label(
                    ui,
                    edited,
                    &format!("{edited_label}  (the knobs edit this one)"),
                );
                side_label(ui, other_rect, other_label);
                ui.painter().vline(
                    rect.center().x,
                    rect.y_range(),
                    egui::Stroke::new(2.0, egui::Color32::from_gray(20)),
                );
            }
            (Some(o), None) => {
                let (edited_label, ghost_label) = if o.editing_b {
                    (&o.labels[1], &o.labels[0])
                } else {
                    (&o.labels[0], &o.labels[1])
                };
                let picture = Picture {
                    snapshot,
                    side: 0,
                    ghost: Some(o.snapshot),
                };
                self.paint(ui, rect, camera, overlays, picture);
                side_label(
                    ui,
                    rect,
                    &format!(
                        "{edited_label}  (the knobs edit this one)\n{ghost_label}: the blue ghost"
                    ),
                );
            }
            (None, _) => {
                let picture = Picture {
                    snapshot,
                    side: 0,
                    ghost: None,
                };
                self.paint(ui, rect, camera, overlays, picture);
            }
        }
        let hint = if self.painting {
            "drag: paint max distance · shift/middle drag: pan · wheel: zoom · F: frame · ctrl+drag: poke the cloth"
        } else {
            "drag: orbit · shift/middle drag: pan · wheel: zoom · F: frame · ctrl+drag: poke the cloth"
        };
        ui.painter().text(
            rect.left_bottom() + egui::vec2(8.0, -8.0),
            egui::Align2::LEFT_BOTTOM,
            hint,
            egui::FontId::proportional(12.0),
            egui::Color32::from_gray(230),
        );
    }

    /// The mouse over the view: ctrl + left drag holds the nearest particle in sight under the
    /// pointer (a [`Command::Drag`] each frame, `None` on release), a left drag with the brush
    /// on paints there, other drags orbit or pan, the wheel zooms.
    fn pointer_input(
        &mut self,
        response: &egui::Response,
        rect: Rect,
        camera: &mut OrbitCamera,
        cloth: Pickable<'_>,
        out: &mut Vec<Command>,
    ) {
        let (root, positions) = (&cloth.root, cloth.positions);
        let followed = root.w_axis.truncate();
        let aspect = rect.width() / rect.height().max(1.0);
        let (ctrl, shift) = response
            .ctx
            .input(|i| (i.modifiers.command, i.modifiers.shift));
        let painting = self.painting && !ctrl && !shift;
        if painting {
            if response.dragged_by(PointerButton::Primary) {
                let pointer = response.interact_pointer_pos();
                let hit = pointer.and_then(|p| pick(camera, aspect, rect, p, &cloth));
                if let Some(hit) = hit {
                    out.push(Command::PaintDab(positions[hit.particle]));
                }
            }
            if response.drag_stopped_by(PointerButton::Primary) {
                out.push(Command::PaintEnd);
            }
        } else if response.drag_started_by(PointerButton::Primary) && ctrl {
            if let Some(pointer) = response.interact_pointer_pos() {
                self.poke = pick(camera, aspect, rect, pointer, &cloth);
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
        } else if response.dragged_by(PointerButton::Primary) && !ctrl && !painting {
            let d = response.drag_delta();
            camera.orbit(d.x, d.y);
        }
        if response.hovered() {
            let scroll = response.ctx.input(|i| i.smooth_scroll_delta.y);
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
        picture: Picture,
    ) {
        let failed = self.failure();
        if let (Some(at), None) = (self.panic_at, &failed) {
            // The test hook: make sure a frame is drawn when it is due, even when idle.
            let now = std::time::Instant::now();
            ui.ctx()
                .request_repaint_after(at.saturating_duration_since(now));
        }
        let renderers = [&self.renderer, &self.other_renderer];
        let other = self.other_renderer.clone();
        match renderers[picture.side.min(1)] {
            Some(renderer) if failed.is_none() => {
                let job = PaintJob {
                    renderer: renderer.clone(),
                    scaled: self.scaled[picture.side.min(1)].clone(),
                    failure: self.failure.clone(),
                    panic_at: self.panic_at,
                    camera: camera.clone(),
                    overlays: overlays.clone(),
                    quality: self.quality(),
                    snapshot: picture.snapshot,
                    ghost: other.zip(picture.ghost),
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

/// Index buffers and the topology, shared between a scene's snapshots while they do not change.
#[derive(Default)]
struct SnapshotCache {
    body_indices: Arc<Vec<u32>>,
    jacket_indices: Arc<Vec<u32>>,
    topology: Option<Arc<Topology>>,
}

impl SnapshotCache {
    fn snapshot(&mut self, scene: &mut Scene, look: FabricLook) -> Snapshot {
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
                torn: c.torn.to_vec(),
                edges: c.edges.to_vec(),
                fold_lines: c.fold_lines.to_vec(),
            }
        });
        Snapshot {
            root: data.root,
            body,
            jacket,
            cloth,
            colliders: data.colliders.to_vec(),
            hood_colliders: data.hood_colliders.to_vec(),
            sim_bones: data.sim_bones.to_vec(),
            wind: data.wind,
            look: data.look,
        }
    }

    /// The topology behind an `Arc`, copied only when the cloth was rebuilt.
    fn shared_topology(&mut self, topo: &Topology) -> Arc<Topology> {
        match &self.topology {
            Some(t)
                // Fold lines change which links there are, not how many.
                if t.len() == topo.len() && t.links == topo.links && t.rest == topo.rest =>
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
    /// The other preset's jacket, drawn see-through over this one by its own renderer.
    ghost: Option<(Arc<Mutex<Renderer>>, Snapshot)>,
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
            r.shadow_interval = self.quality.shadow_interval();
            r.flat_ground = self.quality.flat_ground();
            r.coarse_meshes = self.quality.coarse_meshes();
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
                    );
                    if let Some((other, ghost)) = &self.ghost {
                        if let Ok(mut other) = other.lock() {
                            other.draw_ghost(target, viewport, &self.camera, &ghost.scene());
                        }
                    }
                },
            );
        }));
        if let Err(payload) = drawn {
            record(&self.failure, crate::panic_message(payload.as_ref()));
        }
    }
}

/// A side's name at its top left, on a dark band so it reads over any picture.
fn side_label(ui: &Ui, rect: Rect, text: &str) {
    let painter = ui.painter();
    let galley = painter.layout_no_wrap(
        text.to_string(),
        egui::FontId::proportional(14.0),
        egui::Color32::from_gray(240),
    );
    let at = rect.left_top() + egui::vec2(8.0, 8.0);
    let band = Rect::from_min_size(at, galley.size()).expand(4.0);
    painter.rect_filled(band, 3.0, egui::Color32::from_black_alpha(150));
    painter.galley(at, galley, egui::Color32::from_gray(240));
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

impl Viewport {
    /// Where a point in character space was on the screen in the last frame drawn (`None`
    /// before the first frame or behind the camera): for tools and tests that point at a
    /// particle as the artist would.
    pub fn screen_pos(&self, p: Vec3) -> Option<egui::Pos2> {
        let (camera, root) = self.last_view.as_ref()?;
        let rect = self.rect?;
        let aspect = rect.width() / rect.height().max(1.0);
        let ndc = camera.project(root.w_axis.truncate(), aspect, root.transform_point3(p))?;
        Some(egui::pos2(
            rect.left() + (ndc[0] + 1.0) * 0.5 * rect.width(),
            rect.top() + (1.0 - ndc[1]) * 0.5 * rect.height(),
        ))
    }
}

fn to_ndc(rect: Rect, p: egui::Pos2) -> [f32; 2] {
    [
        (p.x - rect.left()) / rect.width().max(1.0) * 2.0 - 1.0,
        1.0 - (p.y - rect.top()) / rect.height().max(1.0) * 2.0,
    ]
}

/// What the pointer can pick: the cloth's particles and the body that hides some of them,
/// character space, and the character's frame.
pub struct Pickable<'a> {
    pub root: Mat4,
    pub positions: &'a [Vec3],
    pub colliders: &'a [Collider],
}

impl<'a> Pickable<'a> {
    /// The playing scene's cloth and body, as they are now.
    pub fn of(scene: &'a Scene) -> Self {
        let root = scene.root();
        Self {
            root: root.matrix(),
            positions: scene.cloth().positions(),
            colliders: scene.colliders(),
        }
    }
}

/// How far inside the body's shapes a line of sight must pass to count as hidden, metres:
/// cloth lying on the body, seen edge-on, stays pickable.
const SIGHT_INSET: f32 = 0.01;

/// The particle nearest the pointer on screen (within 30 points) that the body does not hide
/// from the camera (a particle on the far side of the jacket, behind the torso, is never
/// painted or grabbed through it), and its depth.
fn pick(
    camera: &OrbitCamera,
    aspect: f32,
    rect: Rect,
    pointer: egui::Pos2,
    cloth: &Pickable<'_>,
) -> Option<Poke> {
    let followed = cloth.root.w_axis.truncate();
    let target = to_ndc(rect, pointer);
    let px_per_ndc = rect.width().max(1.0) * 0.5;
    let eye = camera.eye(followed);
    let eye_local = cloth.root.inverse().transform_point3(eye);
    let (_, _, fwd) = camera.basis();
    let in_sight = |p: Vec3| {
        !cloth
            .colliders
            .iter()
            .any(|c| c.hides(eye_local, p, SIGHT_INSET))
    };
    let mut best: Option<(f32, Poke)> = None;
    for (i, p) in cloth.positions.iter().enumerate() {
        let world = cloth.root.transform_point3(*p);
        let Some(ndc) = camera.project(followed, aspect, world) else {
            continue;
        };
        let dx = (ndc[0] - target[0]) * px_per_ndc;
        let dy = (ndc[1] - target[1]) * px_per_ndc / aspect.max(1e-3);
        let d = (dx * dx + dy * dy).sqrt();
        if d < 30.0 && best.is_none_or(|(bd, _)| d < bd) && in_sight(*p) {
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
