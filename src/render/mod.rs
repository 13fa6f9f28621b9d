//! The 3D view, built from CPU data with three-d. One [`Renderer::draw`] serves the window's
//! viewport (inside an egui paint callback sharing eframe's GL context) and any offscreen
//! render target: it takes a three-d render target, a viewport in pixels, an [`OrbitCamera`]
//! and a [`SceneData`] borrowed from the simulation. Nothing here knows about egui.

pub mod camera;
pub mod cull;
pub mod fabric;
pub mod ground;
pub mod headless;
pub mod key_light;
pub mod lit;
pub mod lod;
pub mod quality;
pub mod trails;

use glam::{Mat4 as GMat4, Quat, Vec3 as GVec3};
use serde::{Deserialize, Serialize};
use three_d::{
    AmbientLight, Camera, ClearState, Context, CpuMaterial, CpuMesh, CpuTexture, Cull,
    DirectionalLight, Geometry, Gm, Indices, InstancedMesh, Instances, Light, MaterialType, Mesh,
    Object, Positions, RenderTarget, ScissorBox, Srgba, TextureData, Viewport,
};

use crate::scene::Scene;
use crate::sim::{Collider, FoldAxis, FoldLine, Topology};
pub use camera::{GarmentView, OrbitCamera, View};
pub use fabric::FabricLook;
use lit::Lit;
pub use quality::Quality;

/// Which debug overlays are drawn. Persisted with the window state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Overlays {
    /// The simulation mesh: stretch constraints in blue, shear/bend in orange, fold lines in
    /// magenta; torn links are not drawn.
    pub sim_mesh: bool,
    /// Edge particles (hem, front opening) in yellow.
    pub edge_particles: bool,
    /// Pinned (skinned) particles in red.
    pub pinned_particles: bool,
    /// Collision ellipsoids, translucent.
    pub ellipsoids: bool,
    /// Each particle's max-distance sphere around its reference point.
    pub max_distance: bool,
    /// The bones placed on the simulation mesh, as small axes.
    pub sim_bones: bool,
    /// An arrow showing the wind's direction and strength.
    pub wind_arrow: bool,
    /// Colour the cloth by how much it stretches (blue none, red 10 % or more).
    pub stretch_heat_map: bool,
    /// Draw the character's body.
    pub body: bool,
    /// Draw the jacket's render mesh.
    pub jacket: bool,
    /// Shadows from the key light (costly on software GL).
    pub shadows: bool,
}

impl Default for Overlays {
    fn default() -> Self {
        Self {
            sim_mesh: false,
            edge_particles: false,
            pinned_particles: false,
            ellipsoids: false,
            max_distance: false,
            sim_bones: false,
            wind_arrow: true,
            stretch_heat_map: false,
            body: true,
            jacket: true,
            shadows: true,
        }
    }
}

impl Overlays {
    /// Turns every debug overlay on (or off), leaving body, jacket and shadows alone.
    pub fn set_all_debug(&mut self, on: bool) {
        self.sim_mesh = on;
        self.edge_particles = on;
        self.pinned_particles = on;
        self.ellipsoids = on;
        self.max_distance = on;
        self.sim_bones = on;
        self.wind_arrow = on;
        self.stretch_heat_map = on;
    }
}

/// A triangle mesh in character space, borrowed.
#[derive(Clone, Copy, Debug)]
pub struct MeshData<'a> {
    pub positions: &'a [GVec3],
    pub normals: &'a [GVec3],
    /// Texture coordinates (may be empty).
    pub uvs: &'a [[f32; 2]],
    pub indices: &'a [u32],
}

/// What [`Renderer::draw`] needs from a scene, borrowed: the one way a scene becomes a
/// picture, for the viewport and the headless pictures alike. Skins the scene's meshes first
/// when this step has not been drawn yet.
pub fn scene_data(scene: &mut Scene, look: FabricLook) -> SceneData<'_> {
    scene.skin_meshes();
    let scene: &Scene = scene;
    let root = scene.root();
    let p = scene.params();
    let dir = p.wind_direction_deg.to_radians();
    let body = scene.body();
    let jacket = scene.jacket();
    let cloth = scene.cloth();
    SceneData {
        root: root.matrix(),
        body: Some(MeshData {
            positions: body.positions,
            normals: body.normals,
            uvs: body.uvs,
            indices: body.indices,
        }),
        jacket: Some(MeshData {
            positions: jacket.positions,
            normals: jacket.normals,
            uvs: jacket.uvs,
            indices: jacket.indices,
        }),
        cloth: Some(ClothData {
            positions: cloth.positions(),
            topology: cloth.topology(),
            references: scene.references(),
            max_distances: cloth.max_distances(),
            torn: cloth.torn_links(),
            edges: cloth.edges(),
            fold_lines: scene.fold_lines(),
        }),
        colliders: scene.colliders(),
        hood_colliders: scene.hood_colliders(),
        sim_bones: scene.sim_bones(),
        wind: GVec3::new(dir.sin(), 0.0, dir.cos()) * p.wind_speed,
        look,
    }
}

/// The simulated cloth, borrowed (character space).
#[derive(Clone, Copy, Debug)]
pub struct ClothData<'a> {
    pub positions: &'a [GVec3],
    pub topology: &'a Topology,
    /// Each particle's reference point (centre of its max-distance sphere).
    pub references: &'a [GVec3],
    /// Each particle's max distance, metres.
    pub max_distances: &'a [f32],
    /// Per link of `topology`: torn (not drawn); empty when nothing is.
    pub torn: &'a [bool],
    /// Per particle: on an edge (the topology's, or opened by a tear).
    pub edges: &'a [bool],
    /// The garment's fold lines, drawn along their row or column.
    pub fold_lines: &'a [FoldLine],
}

/// Everything one picture shows.
#[derive(Clone, Copy, Debug)]
pub struct SceneData<'a> {
    /// Character space to world (root motion).
    pub root: GMat4,
    pub body: Option<MeshData<'a>>,
    pub jacket: Option<MeshData<'a>>,
    pub cloth: Option<ClothData<'a>>,
    /// Colliders, character space.
    pub colliders: &'a [Collider],
    /// What the hood keeps out of (head, neck, shoulders) on a hooded jacket, character space;
    /// empty otherwise.
    pub hood_colliders: &'a [Collider],
    /// Bones from the simulation mesh, character space.
    pub sim_bones: &'a [GMat4],
    /// Wind velocity in the world, m/s.
    pub wind: GVec3,
    pub look: FabricLook,
}

fn v3(v: GVec3) -> three_d::Vec3 {
    three_d::vec3(v.x, v.y, v.z)
}

fn m4(m: GMat4) -> three_d::Mat4 {
    three_d::Mat4::from(m.to_cols_array_2d())
}

fn srgba(r: u8, g: u8, b: u8, a: u8) -> Srgba {
    Srgba::new(r, g, b, a)
}

/// A GPU mesh kept in step with CPU data that changes every frame.
struct LiveMesh {
    gm: Gm<Mesh, Lit>,
    vertices: usize,
    index_key: (usize, u64),
}

fn index_key(indices: &[u32]) -> (usize, u64) {
    let sum = indices.iter().enumerate().fold(0u64, |s, (i, &v)| {
        s.wrapping_add((v as u64 + 1) * (i as u64 % 7 + 1))
    });
    (indices.len(), sum)
}

fn cpu_mesh(data: &MeshData, uv_repeat: [f32; 2]) -> CpuMesh {
    let n = data.positions.len();
    let normals = (data.normals.len() == n).then(|| data.normals.iter().map(|&v| v3(v)).collect());
    let uvs = (data.uvs.len() == n).then(|| {
        data.uvs
            .iter()
            .map(|uv| three_d::vec2(uv[0] * uv_repeat[0], uv[1] * uv_repeat[1]))
            .collect()
    });
    CpuMesh {
        positions: Positions::F32(data.positions.iter().map(|&v| v3(v)).collect()),
        indices: Indices::U32(data.indices.to_vec()),
        normals,
        uvs,
        ..Default::default()
    }
}

/// `body`'s triangles wound outwards when it is a closed solid, worked out once per index set
/// (`cache`: the last index set's answer).
type Outward = Option<((usize, u64), Option<Vec<u32>>)>;

fn body_outward<'a>(cache: &'a mut Outward, body: &MeshData) -> Option<&'a [u32]> {
    let key = index_key(body.indices);
    if cache.as_ref().is_none_or(|(k, _)| *k != key) {
        let outward = mesh_ok(body)
            .then(|| cull::outward_indices(body.positions, body.indices))
            .flatten();
        *cache = Some((key, outward));
    }
    cache.as_ref().and_then(|(_, o)| o.as_deref())
}

/// True when a mesh is usable: indices in range, finite positions, whole triangles.
fn mesh_ok(data: &MeshData) -> bool {
    let n = data.positions.len() as u32;
    n > 0
        && data.indices.len() % 3 == 0
        && !data.indices.is_empty()
        && data.indices.iter().all(|&i| i < n)
        && data.positions.iter().all(|p| p.is_finite())
}

impl LiveMesh {
    fn update(
        slot: &mut Option<LiveMesh>,
        ctx: &Context,
        data: &MeshData,
        material: impl FnOnce() -> Lit,
        uv_repeat: [f32; 2],
    ) {
        if !mesh_ok(data) {
            *slot = None;
            return;
        }
        let key = index_key(data.indices);
        let mut rebuild = match slot {
            Some(m) => m.vertices != data.positions.len() || m.index_key != key,
            None => true,
        };
        if let (Some(m), false) = (slot.as_mut(), rebuild) {
            // three-d 0.19's `set_positions` and `set_normals` check the length against the
            // mesh's index count, so on an indexed mesh they always refuse (and the picture
            // froze at the first frame). The partial setters from offset 0 write the whole
            // buffer; a mesh they refuse is rebuilt.
            let pos: Vec<_> = data.positions.iter().map(|&v| v3(v)).collect();
            rebuild = m.gm.geometry.set_positions_partially(0, &pos).is_err();
            if !rebuild && data.normals.len() == data.positions.len() {
                let nrm: Vec<_> = data.normals.iter().map(|&v| v3(v)).collect();
                rebuild = m.gm.geometry.set_normals_partially(0, &nrm).is_err();
            }
        }
        if rebuild {
            let mesh = Mesh::new(ctx, &cpu_mesh(data, uv_repeat));
            *slot = Some(LiveMesh {
                gm: Gm::new(mesh, material()),
                vertices: data.positions.len(),
                index_key: key,
            });
        }
    }
}

/// Instanced shapes for one overlay colour.
struct Shapes {
    gm: Gm<InstancedMesh, Lit>,
    count: usize,
}

impl Shapes {
    fn new(ctx: &Context, mesh: &CpuMesh, color: Srgba, transparent: bool) -> Self {
        let cpu = CpuMaterial {
            albedo: color,
            roughness: 0.7,
            metallic: 0.0,
            ..Default::default()
        };
        let mut material = if transparent {
            Lit::transparent(ctx, &cpu)
        } else {
            Lit::opaque(ctx, &cpu)
        };
        material.emissive = if transparent {
            srgba(0, 0, 0, 255)
        } else {
            srgba(color.r / 3, color.g / 3, color.b / 3, 255)
        };
        if transparent {
            material.render_states.write_mask = three_d::WriteMask::COLOR;
            material.render_states.cull = Cull::Back;
        }
        Self {
            gm: Gm::new(
                InstancedMesh::new(ctx, &Instances::default(), mesh),
                material,
            ),
            count: 0,
        }
    }

    fn set(&mut self, root: GMat4, transforms: &[GMat4]) {
        self.count = transforms.len();
        self.gm.geometry.set_transformation(m4(root));
        self.gm.geometry.set_instances(&Instances {
            transformations: transforms.iter().map(|&m| m4(m)).collect(),
            ..Default::default()
        });
    }
}

/// A cylinder from `a` to `b` of radius `r` (three-d's unit cylinder runs along +X, 0..1).
fn segment(a: GVec3, b: GVec3, r: f32) -> Option<GMat4> {
    let d = b - a;
    let len = d.length();
    if len <= 1e-6 || !len.is_finite() {
        return None;
    }
    let rot = Quat::from_rotation_arc(GVec3::X, d / len);
    Some(GMat4::from_scale_rotation_translation(
        GVec3::new(len, r, r),
        rot,
        a,
    ))
}

fn ball(c: GVec3, r: f32) -> GMat4 {
    GMat4::from_scale_rotation_translation(GVec3::splat(r), Quat::IDENTITY, c)
}

/// The renderer: GPU resources for one scene, kept between frames.
pub struct Renderer {
    ctx: Context,
    ground: ground::Ground,
    /// Draw the ground with its cheap diffuse look (View > Quality > Fast).
    pub flat_ground: bool,
    body: Option<LiveMesh>,
    jacket: Option<LiveMesh>,
    /// The jacket's look and its material (made once per look: the fabric's texture is
    /// drawn on the CPU).
    jacket_look: Option<(FabricLook, Lit)>,
    /// The see-through jacket of an A/B comparison's ghost.
    ghost: Option<LiveMesh>,
    heat: Option<Gm<Mesh, three_d::ColorMaterial>>,
    /// The body's triangles wound outwards ([`cull::outward_indices`]; `None`: not a closed
    /// solid, both sides drawn), for the index set they were worked out for. Kept across
    /// `forget_scene`: a batch of pictures works them out once.
    body_outward: Outward,
    /// Coarser triangle sets of the body and the jacket, drawn where they look the same
    /// (`coarse_meshes`).
    body_coarse: lod::Coarse,
    jacket_coarse: lod::Coarse,
    /// Draw the body and the jacket with fewer triangles wherever that moves their surface
    /// by under half a pixel ([`lod`]; View > Quality below Full). Off: every triangle, as
    /// headless pictures are drawn.
    pub coarse_meshes: bool,
    stretch_links: Shapes,
    shear_links: Shapes,
    fold_lines: Shapes,
    edge_particles: Shapes,
    pinned_particles: Shapes,
    ellipsoids: Shapes,
    max_distance: Shapes,
    bone_x: Shapes,
    bone_y: Shapes,
    bone_z: Shapes,
    wind: Shapes,
    key: key_light::KeyLight,
    /// The key light without a shadow map: for the floor outside `shadow_patch`.
    key_plain: DirectionalLight,
    /// Where on the floor the key light's shadow map can darken it (`None`: no map).
    shadow_patch: Option<ground::Patch>,
    fill: DirectionalLight,
    ambient: AmbientLight,
    /// The background colour, linear 0..1.
    pub background: [f32; 3],
    /// Side of the key light's shadow map, texels (1024 unless View > Quality says less).
    pub shadow_map_size: u32,
    /// While the character moves, the shadow map is redrawn every this many pictures (1:
    /// every picture; View > Quality > Fast: 2). A picture whose shadow casters and root did
    /// not move since the map was drawn reuses it whatever this says.
    pub shadow_interval: u32,
    /// What the key light's shadow map was drawn from.
    shadow_source: ShadowSource,
    /// How many pictures ago the key light's shadow map was drawn; `None`: no map.
    shadow_age: Option<u32>,
}

/// What a shadow map depends on: its size, the root and the casters' vertices (character
/// space, body then jacket). Equal sources give the same map. Kept as a copy and compared
/// exactly: a few hundred kilobytes, far cheaper than the pass it saves.
#[derive(Default)]
struct ShadowSource {
    size: u32,
    root: GMat4,
    casters: Vec<GVec3>,
}

impl ShadowSource {
    fn matches(&self, size: u32, root: GMat4, meshes: &[&[GVec3]]) -> bool {
        let mut at = 0;
        self.size == size
            && self.root == root
            && self.casters.len() == meshes.iter().map(|m| m.len()).sum::<usize>()
            && meshes.iter().all(|m| {
                at += m.len();
                self.casters[at - m.len()..at] == **m
            })
    }

    fn record(&mut self, size: u32, root: GMat4, meshes: &[&[GVec3]]) {
        self.size = size;
        self.root = root;
        self.casters.clear();
        for m in meshes {
            self.casters.extend_from_slice(m);
        }
    }
}

impl Renderer {
    /// Creates the GPU resources on a three-d context (eframe's, or an offscreen one).
    pub fn new(ctx: &Context) -> Self {
        let cyl = CpuMesh::cylinder(6);
        let sph = CpuMesh::sphere(10);
        let sph_fine = CpuMesh::sphere(16);
        let arrow = CpuMesh::arrow(0.8, 0.5, 12);
        Self {
            ctx: ctx.clone(),
            ground: ground::Ground::new(ctx),
            flat_ground: false,
            body: None,
            jacket: None,
            jacket_look: None,
            ghost: None,
            heat: None,
            body_outward: None,
            body_coarse: lod::Coarse::default(),
            jacket_coarse: lod::Coarse::default(),
            coarse_meshes: false,
            stretch_links: Shapes::new(ctx, &cyl, srgba(60, 140, 255, 255), false),
            shear_links: Shapes::new(ctx, &cyl, srgba(255, 150, 40, 255), false),
            fold_lines: Shapes::new(ctx, &cyl, srgba(235, 40, 220, 255), false),
            edge_particles: Shapes::new(ctx, &sph, srgba(250, 220, 40, 255), false),
            pinned_particles: Shapes::new(ctx, &sph, srgba(230, 40, 40, 255), false),
            ellipsoids: Shapes::new(ctx, &sph_fine, srgba(80, 220, 160, 70), true),
            max_distance: Shapes::new(ctx, &sph, srgba(200, 120, 255, 28), true),
            bone_x: Shapes::new(ctx, &cyl, srgba(235, 60, 60, 255), false),
            bone_y: Shapes::new(ctx, &cyl, srgba(60, 210, 80, 255), false),
            bone_z: Shapes::new(ctx, &cyl, srgba(70, 110, 245, 255), false),
            wind: Shapes::new(ctx, &arrow, srgba(120, 200, 255, 255), false),
            key: key_light::KeyLight::like(ctx, &key_light(ctx)),
            key_plain: key_light(ctx),
            shadow_patch: None,
            fill: DirectionalLight::new(
                ctx,
                0.7,
                srgba(200, 215, 255, 255),
                three_d::vec3(0.7, -0.35, 0.8),
            ),
            ambient: AmbientLight::new(ctx, 0.35, srgba(210, 220, 235, 255)),
            background: [0.30, 0.33, 0.36],
            shadow_map_size: 1024,
            shadow_interval: 1,
            shadow_source: ShadowSource::default(),
            shadow_age: None,
        }
    }

    /// Draws one picture of `scene` into `target`, inside `viewport` (pixels, origin at the
    /// bottom left of the target), as seen by `camera`. Clears the viewport first.
    pub fn draw(
        &mut self,
        target: &RenderTarget,
        viewport: Viewport,
        camera: &OrbitCamera,
        scene: &SceneData,
        overlays: &Overlays,
    ) {
        if viewport.width == 0 || viewport.height == 0 {
            return;
        }
        let (cam, followed, root) = view_of(viewport, camera, scene);
        let pixels_per_metre = if self.coarse_meshes {
            // The character's nearest parts: a metre nearer than the point followed.
            let eye = camera.eye(followed).distance(followed);
            lod::pixels_per_metre(viewport.height, camera.fov_deg, eye - 1.0)
        } else {
            f32::INFINITY
        };
        self.update_meshes(root, scene, overlays, pixels_per_metre);
        self.update_overlays(root, scene, overlays);
        self.update_shadows(root, scene, overlays);
        self.place_ground(followed);

        let mut objects: Vec<&dyn Object> = Vec::new();
        for m in [&self.body, &self.jacket].into_iter().flatten() {
            objects.push(&m.gm);
        }
        if let Some(h) = &self.heat {
            objects.push(h);
        }
        let shapes: [(&Shapes, bool); 3] = [
            (&self.wind, overlays.wind_arrow),
            (&self.ellipsoids, overlays.ellipsoids),
            (&self.max_distance, overlays.max_distance),
        ];
        for (s, on) in shapes {
            if on && s.count > 0 {
                objects.push(&s.gm);
            }
        }
        // The simulation mesh, its particles and bones lie on or under the jacket: they are
        // drawn in a second pass over the picture (depth cleared), so they always show, still
        // hiding each other front to back.
        let on_top: [(&Shapes, bool); 8] = [
            (&self.stretch_links, overlays.sim_mesh),
            (&self.shear_links, overlays.sim_mesh),
            (&self.fold_lines, overlays.sim_mesh),
            (&self.edge_particles, overlays.edge_particles),
            (&self.pinned_particles, overlays.pinned_particles),
            (&self.bone_x, overlays.sim_bones),
            (&self.bone_y, overlays.sim_bones),
            (&self.bone_z, overlays.sim_bones),
        ];
        let top_objects: Vec<&dyn Object> = on_top
            .into_iter()
            .filter(|(s, on)| *on && s.count > 0)
            .map(|(s, _)| &s.gm as &dyn Object)
            .collect();
        let lights: [&dyn Light; 3] = [&self.key, &self.fill, &self.ambient];
        let plain: [&dyn Light; 3] = [&self.key_plain, &self.fill, &self.ambient];
        let scissor = ScissorBox::from(viewport);
        let [r, g, b] = self.background;
        // The opaque character and overlays go first and the ground after them, so the
        // ground's costly lit pixels behind the character fail the depth test before they are
        // shaded (on a software rasteriser that is time; the picture is the same). See-through
        // things still come last, over the ground.
        let (opaque, after): (Vec<&dyn Object>, Vec<&dyn Object>) = objects
            .into_iter()
            .partition(|o| o.material_type() != MaterialType::Transparent);
        target
            .clear_partially(scissor, ClearState::color_and_depth(r, g, b, 1.0, 1.0))
            .render_partially(scissor, &cam, opaque, &lights);
        self.ground
            .draw(target, scissor, &cam, self.flat_ground, &lights, &plain);
        target.render_partially(scissor, &cam, after, &lights);
        if !top_objects.is_empty() {
            target
                .clear_partially(scissor, ClearState::depth(1.0))
                .render_partially(scissor, &cam, top_objects, &lights);
        }
    }

    /// Draws only the jacket of `scene`, see-through and tinted, over what `target` already
    /// holds inside `viewport` (an A/B comparison's ghost over the other preset's picture): the
    /// depth already there hides it behind the body, and nothing is cleared.
    pub fn draw_ghost(
        &mut self,
        target: &RenderTarget,
        viewport: Viewport,
        camera: &OrbitCamera,
        scene: &SceneData,
    ) {
        if viewport.width == 0 || viewport.height == 0 {
            return;
        }
        let (cam, _, root) = view_of(viewport, camera, scene);
        let ctx = self.ctx.clone();
        match scene.jacket {
            Some(jacket) => LiveMesh::update(
                &mut self.ghost,
                &ctx,
                &jacket,
                || ghost_material(&ctx),
                [1.0; 2],
            ),
            None => self.ghost = None,
        }
        let Some(ghost) = self.ghost.as_mut() else {
            return;
        };
        ghost.gm.geometry.set_transformation(m4(root));
        let lights: [&dyn Light; 3] = [&self.key, &self.fill, &self.ambient];
        target.render_partially(ScissorBox::from(viewport), &cam, [&ghost.gm], &lights);
    }

    /// The body and jacket meshes from this frame's data, placed at the character's root,
    /// with the triangles that look the same at `pixels_per_metre` ([`lod::Coarse::pick`]).
    fn update_meshes(
        &mut self,
        root: GMat4,
        scene: &SceneData,
        overlays: &Overlays,
        pixels_per_metre: f32,
    ) {
        let ctx = self.ctx.clone();
        match scene.body.filter(|_| overlays.body) {
            Some(body) => {
                let outward = body_outward(&mut self.body_outward, &body);
                let closed = outward.is_some();
                let material = || {
                    let mut m = Lit::opaque(
                        &ctx,
                        &CpuMaterial {
                            albedo: srgba(168, 174, 184, 255),
                            roughness: 0.55,
                            metallic: 0.0,
                            ..Default::default()
                        },
                    );
                    // A closed body shows only its front faces: the back ones are skipped
                    // before they are set up (the picture is the same).
                    if closed {
                        m.render_states.cull = Cull::Back;
                    }
                    m
                };
                let indices = outward.unwrap_or(body.indices);
                let body = MeshData {
                    indices: self
                        .body_coarse
                        .pick(body.positions, indices, pixels_per_metre),
                    ..body
                };
                LiveMesh::update(&mut self.body, &ctx, &body, material, [1.0, 1.0]);
            }
            None => self.body = None,
        }
        let look = scene.look;
        let material = match &self.jacket_look {
            Some((kept, material)) if *kept == look => material,
            _ => {
                self.jacket = None;
                &self
                    .jacket_look
                    .insert((look, jacket_material(&ctx, look)))
                    .1
            }
        };
        match scene
            .jacket
            .filter(|_| overlays.jacket && !overlays.stretch_heat_map)
        {
            Some(jacket) => LiveMesh::update(
                &mut self.jacket,
                &ctx,
                &MeshData {
                    indices: self.jacket_coarse.pick(
                        jacket.positions,
                        jacket.indices,
                        pixels_per_metre,
                    ),
                    ..jacket
                },
                || material.clone(),
                look.repeat(),
            ),
            None => self.jacket = None,
        }
        for m in [&mut self.body, &mut self.jacket].into_iter().flatten() {
            m.gm.geometry.set_transformation(m4(root));
        }
    }

    /// The ground is 80 m across: it moves with the character (`followed`, world) in whole
    /// 10 m steps (whole texture repeats, so the tiles stay put), so a long walk never runs off
    /// its edge.
    fn place_ground(&mut self, followed: GVec3) {
        let step = |v: f32| (v / 10.0).round() * 10.0;
        self.ground
            .place(step(followed.x), step(followed.z), self.shadow_patch);
    }

    /// The key light's shadow map from the body and jacket only (the ground would stretch
    /// it), or none. Drawing it is a pass over every caster vertex, so a map drawn from the
    /// same casters is kept, and while they move it is redrawn every `shadow_interval`
    /// pictures.
    fn update_shadows(&mut self, root: GMat4, scene: &SceneData, overlays: &Overlays) {
        // Each caster with the faces its material draws: a closed body its front faces only.
        let casters: Vec<key_light::Caster> = [&self.body, &self.jacket]
            .into_iter()
            .flatten()
            .map(|m| {
                (
                    &m.gm.geometry as &dyn Geometry,
                    m.gm.material.render_states.cull,
                )
            })
            .collect();
        if !overlays.shadows || casters.is_empty() {
            self.drop_shadow_map();
            return;
        }
        let meshes: Vec<&[GVec3]> = [
            scene.body.filter(|_| overlays.body),
            scene
                .jacket
                .filter(|_| overlays.jacket && !overlays.stretch_heat_map),
        ]
        .into_iter()
        .flatten()
        .map(|m| m.positions)
        .collect();
        let size = self.shadow_map_size;
        let keep = self.shadow_age.is_some_and(|age| {
            self.shadow_source.matches(size, root, &meshes)
                || (self.shadow_source.size == size && age + 1 < self.shadow_interval)
        });
        if keep {
            self.shadow_age = self.shadow_age.map(|age| age + 1);
            return;
        }
        match self.key.generate_shadow_map(size, &casters) {
            Err(e) => {
                eprintln!("cloth-tuner: shadow map failed: {e}");
                self.drop_shadow_map();
            }
            Ok(bounds) => {
                self.shadow_source.record(size, root, &meshes);
                self.shadow_age = Some(0);
                self.shadow_patch = Some(ground::shadow_patch(bounds, self.key.direction, size));
            }
        }
    }

    fn drop_shadow_map(&mut self) {
        self.key.clear_shadow_map();
        self.shadow_age = None;
        self.shadow_patch = None;
    }

    /// Drops the meshes and the shadow map, keeping the textures and materials, so the next
    /// picture depends only on its own scene (three-d's meshes keep the bounds of every pose
    /// they were given, and the shadow map is fitted to those bounds).
    pub fn forget_scene(&mut self) {
        self.body = None;
        self.jacket = None;
        self.ghost = None;
        self.heat = None;
        self.drop_shadow_map();
    }

    /// Triangles of the body and the jacket as last drawn (fewer with `coarse_meshes`).
    pub fn character_triangles(&self) -> usize {
        [&self.body, &self.jacket]
            .into_iter()
            .flatten()
            .map(|m| m.index_key.0 / 3)
            .sum()
    }

    /// The three-d context the renderer draws with.
    pub fn context(&self) -> &Context {
        &self.ctx
    }

    fn update_overlays(&mut self, root: GMat4, scene: &SceneData, o: &Overlays) {
        let mut stretch = Vec::new();
        let mut shear = Vec::new();
        let mut folds = Vec::new();
        let mut edges = Vec::new();
        let mut pinned = Vec::new();
        let mut maxd = Vec::new();
        self.heat = None;
        if let Some(cloth) = scene.cloth {
            let topo = cloth.topology;
            let pos = cloth.positions;
            let n = pos.len();
            if o.sim_mesh {
                for (k, l) in topo.links.iter().enumerate() {
                    let (a, b) = (l.a as usize, l.b as usize);
                    // A torn link is gone from the cloth: the overlay shows the opening.
                    if a < n && b < n && !cloth.torn.get(k).copied().unwrap_or(false) {
                        let (list, r) = if l.kind.is_stretch() {
                            (&mut stretch, 0.0035)
                        } else {
                            (&mut shear, 0.0018)
                        };
                        if let Some(m) = segment(pos[a], pos[b], r) {
                            list.push(m);
                        }
                    }
                }
                fold_segments(topo, pos, cloth.fold_lines, &mut folds);
            }
            for ((p, &edge), &pin) in pos.iter().zip(cloth.edges).zip(&topo.pinned) {
                if o.edge_particles && edge {
                    edges.push(ball(*p, 0.012));
                }
                if o.pinned_particles && pin {
                    pinned.push(ball(*p, 0.013));
                }
            }
            if o.max_distance {
                for (c, &r) in cloth.references.iter().zip(cloth.max_distances) {
                    if r > 1e-4 && r.is_finite() && c.is_finite() {
                        maxd.push(ball(*c, r));
                    }
                }
            }
            if o.stretch_heat_map {
                self.heat = heat_mesh(&self.ctx, &cloth).map(|mut gm| {
                    gm.geometry.set_transformation(m4(root));
                    gm
                });
            }
        }
        self.stretch_links.set(root, &stretch);
        self.shear_links.set(root, &shear);
        self.fold_lines.set(root, &folds);
        self.edge_particles.set(root, &edges);
        self.pinned_particles.set(root, &pinned);
        self.max_distance.set(root, &maxd);

        let ell: Vec<GMat4> = if o.ellipsoids {
            scene
                .colliders
                .iter()
                .chain(scene.hood_colliders)
                .filter(|c| c.is_valid())
                .filter_map(|c| match *c {
                    Collider::Ellipsoid {
                        center,
                        rotation,
                        radii,
                    } => Some(GMat4::from_scale_rotation_translation(
                        radii, rotation, center,
                    )),
                    Collider::Sphere { center, radius } => Some(ball(center, radius)),
                    _ => None,
                })
                .collect()
        } else {
            Vec::new()
        };
        self.ellipsoids.set(root, &ell);

        let (mut bx, mut by, mut bz) = (Vec::new(), Vec::new(), Vec::new());
        if o.sim_bones {
            for b in scene.sim_bones.iter().filter(|b| b.is_finite()) {
                let p = b.w_axis.truncate();
                let len = 0.06;
                let axes = [
                    (&mut bx, b.x_axis.truncate()),
                    (&mut by, b.y_axis.truncate()),
                    (&mut bz, b.z_axis.truncate()),
                ];
                for (list, axis) in axes {
                    if let Some(m) = segment(p, p + axis.normalize_or_zero() * len, 0.004) {
                        list.push(m);
                    }
                }
            }
        }
        self.bone_x.set(root, &bx);
        self.bone_y.set(root, &by);
        self.bone_z.set(root, &bz);

        // Wind arrow: in the world, beside the character at head height, length by speed.
        let mut wind = Vec::new();
        let speed = scene.wind.length();
        if o.wind_arrow && speed > 1e-3 && speed.is_finite() {
            let dir = scene.wind / speed;
            let len = (0.5 + speed * 0.05).min(1.5);
            let at = root.w_axis.truncate() + GVec3::new(0.0, 2.1, 0.0) - dir * len * 0.5;
            let rot = Quat::from_rotation_arc(GVec3::X, dir);
            wind.push(GMat4::from_scale_rotation_translation(
                GVec3::new(len, 0.08, 0.08),
                rot,
                at,
            ));
        }
        self.wind.set(GMat4::IDENTITY, &wind);
    }
}

/// The camera for `viewport`, the point it follows and the character's frame (identity
/// when the scene's is broken), shared by the full picture and the ghost.
fn view_of(viewport: Viewport, camera: &OrbitCamera, scene: &SceneData) -> (Camera, GVec3, GMat4) {
    let followed = scene.root.w_axis.truncate();
    let followed = if followed.is_finite() {
        followed
    } else {
        GVec3::ZERO
    };
    let cam = Camera::new_perspective(
        viewport,
        v3(camera.eye(followed)),
        v3(camera.target(followed)),
        three_d::vec3(0.0, 1.0, 0.0),
        three_d::degrees(camera.fov_deg.clamp(5.0, 120.0)),
        0.05,
        200.0,
    );
    let root = if scene.root.is_finite() {
        scene.root
    } else {
        GMat4::IDENTITY
    };
    (cam, followed, root)
}

/// The ghost's fabric: a cool, see-through tint that reads apart from any fabric look, seen
/// from both sides, leaving the depth of the picture under it alone.
/// The warm key light from above, in front and to the left; it casts the shadows.
fn key_light(ctx: &Context) -> DirectionalLight {
    DirectionalLight::new(
        ctx,
        2.4,
        srgba(255, 246, 230, 255),
        three_d::vec3(-0.5, -1.0, -0.6),
    )
}

fn ghost_material(ctx: &Context) -> Lit {
    let cpu = CpuMaterial {
        albedo: srgba(120, 205, 255, 110),
        roughness: 0.8,
        metallic: 0.0,
        ..Default::default()
    };
    let mut m = Lit::transparent(ctx, &cpu);
    m.emissive = srgba(30, 60, 90, 255);
    m.render_states.cull = Cull::None;
    m.render_states.write_mask = three_d::WriteMask::COLOR;
    m
}

fn jacket_material(ctx: &Context, look: FabricLook) -> Lit {
    let size = 256;
    let tex = CpuTexture {
        name: format!("{look:?}"),
        data: TextureData::RgbaU8(look.texture(size)),
        width: size as u32,
        height: size as u32,
        ..Default::default()
    };
    let cpu = CpuMaterial {
        albedo: Srgba::WHITE,
        albedo_texture: Some(tex),
        roughness: look.roughness(),
        metallic: 0.0,
        ..Default::default()
    };
    let mut m = if look.translucent() {
        Lit::transparent(ctx, &cpu)
    } else {
        Lit::opaque(ctx, &cpu)
    };
    // Cloth is a sheet: both sides are seen (inside of the jacket, through the veil).
    m.render_states.cull = Cull::None;
    if look.translucent() {
        m.render_states.write_mask = three_d::WriteMask::COLOR;
    }
    m
}

/// Per-particle stretch: the largest `length / rest - 1` over the particle's stretch links.
pub fn particle_stretch(positions: &[GVec3], topology: &Topology) -> Vec<f32> {
    let mut s = vec![0.0f32; positions.len()];
    for l in topology.links.iter().filter(|l| l.kind.is_stretch()) {
        let (a, b) = (l.a as usize, l.b as usize);
        if a < positions.len() && b < positions.len() && l.rest > 0.0 {
            let e = positions[a].distance(positions[b]) / l.rest - 1.0;
            if e.is_finite() {
                s[a] = s[a].max(e);
                s[b] = s[b].max(e);
            }
        }
    }
    s
}

/// Blue (no stretch) through green and yellow to red (10 % or more).
pub fn heat_color(stretch: f32) -> [u8; 3] {
    let t = if stretch.is_finite() {
        (stretch / 0.10).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let stops = [
        [40.0, 80.0, 230.0],
        [40.0, 200.0, 90.0],
        [240.0, 220.0, 40.0],
        [230.0, 40.0, 30.0],
    ];
    let x = t * 3.0;
    let i = (x.floor() as usize).min(2);
    let f = x - i as f32;
    let c = |k: usize| stops[i][k] + (stops[i + 1][k] - stops[i][k]) * f;
    [c(0).round() as u8, c(1).round() as u8, c(2).round() as u8]
}

/// Thick segments along each fold line's row or column (between neighbouring particles).
fn fold_segments(topo: &Topology, pos: &[GVec3], lines: &[FoldLine], out: &mut Vec<GMat4>) {
    let n = pos.len().min(topo.len());
    for line in lines {
        let (count, step, first) = match line.axis {
            FoldAxis::Row => (topo.cols, 1, line.index * topo.cols),
            FoldAxis::Column => (topo.rows, topo.cols, line.index),
        };
        for k in 1..count {
            let (a, b) = (first + (k - 1) * step, first + k * step);
            if b < n {
                out.extend(segment(pos[a], pos[b], 0.005));
            }
        }
    }
}

fn heat_mesh(ctx: &Context, cloth: &ClothData) -> Option<Gm<Mesh, three_d::ColorMaterial>> {
    let pos = cloth.positions;
    let n = pos.len();
    if n == 0 || pos.iter().any(|p| !p.is_finite()) {
        return None;
    }
    let indices: Vec<u32> = cloth
        .topology
        .triangles
        .iter()
        .filter(|t| t.iter().all(|&i| (i as usize) < n))
        .flatten()
        .copied()
        .collect();
    if indices.is_empty() {
        return None;
    }
    let stretch = particle_stretch(pos, cloth.topology);
    let colors = stretch
        .iter()
        .map(|&s| {
            let [r, g, b] = heat_color(s);
            srgba(r, g, b, 255)
        })
        .collect();
    let mut cpu = CpuMesh {
        positions: Positions::F32(pos.iter().map(|&p| v3(p)).collect()),
        indices: Indices::U32(indices),
        colors: Some(colors),
        ..Default::default()
    };
    cpu.compute_normals();
    let mut material = three_d::ColorMaterial::default();
    material.render_states.cull = Cull::None;
    Some(Gm::new(Mesh::new(ctx, &cpu), material))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_body_is_closed_so_its_back_faces_are_skipped() {
        let character = std::sync::Arc::new(crate::character::Character::builtin());
        let plain = crate::preset::Preset::load("presets/tweed.json").unwrap();
        let mut scene = Scene::new(character, &plain, "walk").unwrap();
        scene.step();
        let body = scene_data(&mut scene, plain.look).body.expect("a body");
        let outward = cull::outward_indices(body.positions, body.indices).expect("closed");
        let turned = (outward.chunks(3).zip(body.indices.chunks(3)))
            .filter(|(a, b)| a != b)
            .count();
        assert!(
            turned < 20,
            "{turned} triangles turned: the body is wound outwards"
        );
    }

    #[test]
    fn the_collision_overlay_gets_the_hoods_colliders_on_a_hooded_jacket_only() {
        let character = std::sync::Arc::new(crate::character::Character::builtin());
        let hooded = crate::preset::Preset::load("presets/down_jacket.json").unwrap();
        let plain = crate::preset::Preset::load("presets/tweed.json").unwrap();
        let mut scene = Scene::new(character.clone(), &hooded, "walk").unwrap();
        scene.step();
        let expected = scene.hood_colliders().to_vec();
        assert!(!expected.is_empty(), "the hood keeps out of something");
        let data = scene_data(&mut scene, hooded.look);
        assert_eq!(data.hood_colliders, expected.as_slice());
        let mut scene = Scene::new(character, &plain, "walk").unwrap();
        scene.step();
        assert!(scene_data(&mut scene, plain.look).hood_colliders.is_empty());
    }

    #[test]
    fn heat_colours_run_blue_to_red() {
        assert_eq!(heat_color(0.0), [40, 80, 230]);
        assert_eq!(heat_color(0.5), [230, 40, 30]);
        assert_eq!(heat_color(f32::NAN), [40, 80, 230]);
    }

    #[test]
    fn stretch_is_measured_per_particle() {
        let topo = Topology::flat_grid(3, 3, 0.1, GVec3::ZERO);
        let mut pos = topo.rest.clone();
        pos[8].y -= 0.01; // the corner's vertical link stretches 10 %
        let s = particle_stretch(&pos, &topo);
        assert!((s[8] - 0.1).abs() < 0.02, "{}", s[8]);
        assert_eq!(s[0], 0.0);
    }

    #[test]
    fn broken_meshes_are_refused() {
        let p = [GVec3::ZERO, GVec3::X, GVec3::Y];
        let ok = MeshData {
            positions: &p,
            normals: &[],
            uvs: &[],
            indices: &[0, 1, 2],
        };
        assert!(mesh_ok(&ok));
        assert!(!mesh_ok(&MeshData {
            indices: &[0, 1, 3],
            ..ok
        }));
        assert!(!mesh_ok(&MeshData {
            indices: &[0, 1],
            ..ok
        }));
        assert!(segment(GVec3::ZERO, GVec3::ZERO, 0.1).is_none());
    }
}
