//! The floor under the character. On a software rasteriser the ground is most of the 3D
//! view's pixels, so two things keep its pixels cheap:
//!
//! - [`Ground`] draws the patch where the key light's shadow can fall with the shadow map and
//!   the rest of the floor without it. Outside that patch every shadow-map tap reads "lit"
//!   (outside the map, or an empty texel), so the picture is the same; the taps are skipped.
//! - [`FloorMaterial`] works three-d's physical look out for a flat floor; its cheap look for View > Quality > Fast: three-d's
//!   physical material spends on each pixel a specular term per light and four shadow-map
//!   taps, while the floor is flat and matte (roughness 0.9, its highlights a few percent of
//!   its light), so at Fast it is drawn as its texture times the diffuse light of each light,
//!   with one shadow tap. Full and Balanced, and every headless picture, keep the physical
//!   material.

use three_d::{
    lights_shader_source, AxisAlignedBoundingBox, Camera, ColorMapping, Context, CpuMesh,
    CpuTexture, EffectMaterialId, Indices, Light, LightId, Material, MaterialType, Mesh, Positions,
    Program, RenderStates, RenderTarget, ScissorBox, Texture2DRef, TextureData, ToneMapping, Vec3,
    Viewer,
};

use super::fabric;
use super::lit;

/// Half the floor's side, metres: 80 m across.
const HALF_SIDE: f32 = 40.0;

/// The floor's texture repeats once per this many metres.
const REPEAT_M: f32 = 2.0;

/// A rectangle on the floor, world metres: `[x_min, x_max, z_min, z_max]`.
pub type Patch = [f32; 4];

/// Where on the floor (height 0) the key light's shadow map can darken anything: the casters'
/// box (as three-d fits the map to it) carried along the light (`toward`, from the light into
/// the scene) onto the floor, widened by what a tap reads beside its point (three-d's taps
/// sit 0.001 of the map's side apart; a texel is `1 / map_texels` of it, and the map is as
/// wide as the box's diagonal). The whole floor when the light grazes it or the box is not
/// finite. Only the parts of the casters above the floor cast onto it.
pub fn shadow_patch(casters: AxisAlignedBoundingBox, toward: Vec3, map_texels: u32) -> Patch {
    const EVERYWHERE: Patch = [f32::MIN, f32::MAX, f32::MIN, f32::MAX];
    let (lo, hi) = (casters.min(), casters.max());
    let down = toward.y / toward.x.hypot(toward.y).hypot(toward.z);
    let grazing = down.is_nan() || down >= -0.05;
    if casters.is_empty() || grazing {
        return EVERYWHERE;
    }
    let side = (hi - lo).x.hypot((hi - lo).y).hypot((hi - lo).z);
    let margin = side * (0.002 + 2.0 / map_texels.max(1) as f32) + 0.01;
    let mut patch = [f32::MAX, f32::MIN, f32::MAX, f32::MIN];
    for i in 0..8 {
        let pick = |bit: usize, a: f32, b: f32| if i & bit == 0 { a } else { b };
        let (x, y, z) = (
            pick(1, lo.x, hi.x),
            pick(2, lo.y, hi.y),
            pick(4, lo.z, hi.z),
        );
        let t = -y.max(0.0) / toward.y;
        let (fx, fz) = (x + toward.x * t, z + toward.z * t);
        patch = [
            patch[0].min(fx),
            patch[1].max(fx),
            patch[2].min(fz),
            patch[3].max(fz),
        ];
    }
    let widened = [
        patch[0] - margin,
        patch[1] + margin,
        patch[2] - margin,
        patch[3] + margin,
    ];
    if widened.iter().all(|v| v.is_finite()) {
        widened
    } else {
        EVERYWHERE
    }
}

/// The floor as a 3 x 3 grid of rectangles, local metres: the middle one is `patch` (clamped
/// to the floor) and the eight round it the rest. The two meshes share the grid's corners
/// exactly, so together they cover every pixel of the floor once. Texture coordinates are
/// those of one 80 m square.
fn floor_pieces(patch: Option<Patch>) -> (CpuMesh, CpuMesh) {
    let inside = |v: f32| v.clamp(-HALF_SIDE, HALF_SIDE);
    let [x0, x1, z0, z1] = patch.map(|p| p.map(inside)).unwrap_or([0.0; 4]);
    let xs = [-HALF_SIDE, x0, x1.max(x0), HALF_SIDE];
    let zs = [-HALF_SIDE, z0, z1.max(z0), HALF_SIDE];
    let mut positions = Vec::with_capacity(16);
    let mut uvs = Vec::with_capacity(16);
    for z in zs {
        for x in xs {
            positions.push(three_d::vec3(x, 0.0, z));
            uvs.push(three_d::vec2(
                (x + HALF_SIDE) / REPEAT_M,
                (z + HALF_SIDE) / REPEAT_M,
            ));
        }
    }
    let mut middle = Vec::new();
    let mut rest = Vec::new();
    for row in 0..3u32 {
        for col in 0..3u32 {
            let a = row * 4 + col;
            let quad = [a, a + 4, a + 5, a + 5, a + 1, a];
            if (row, col) == (1, 1) {
                middle.extend(quad);
            } else {
                rest.extend(quad);
            }
        }
    }
    let mesh = |indices: Vec<u32>| CpuMesh {
        positions: Positions::F32(positions.clone()),
        indices: Indices::U32(indices),
        normals: Some(vec![three_d::vec3(0.0, 1.0, 0.0); 16]),
        uvs: Some(uvs.clone()),
        ..Default::default()
    };
    (mesh(middle), mesh(rest))
}

/// The floor: its two looks and its two pieces (where the key light's shadow can fall, and
/// the rest), kept between pictures and rebuilt when the patch or the floor's place changes.
pub struct Ground {
    ctx: Context,
    /// three-d's physical look, and the cheap one (View > Quality > Fast).
    physical: FloorMaterial,
    flat: FloorMaterial,
    /// The shadow's patch and the rest, and what they were built for.
    pieces: Option<(Mesh, Mesh)>,
    built_for: Option<(Option<Patch>, [f32; 2])>,
}

impl Ground {
    /// The floor's texture and looks on `ctx`.
    pub fn new(ctx: &Context) -> Self {
        let texture = CpuTexture {
            name: "ground".into(),
            data: TextureData::RgbaU8(fabric::ground_texture(256)),
            width: 256,
            height: 256,
            ..Default::default()
        };
        // As three-d's physical material keeps an 8-bit albedo: linear, for the lighting.
        let mut texture = texture;
        texture.data.to_linear_srgb();
        let texture = Texture2DRef::from_cpu_texture(ctx, &texture);
        let physical = FloorMaterial {
            texture: texture.clone(),
            highlights: true,
        };
        let flat = FloorMaterial {
            texture,
            highlights: false,
        };
        Self {
            ctx: ctx.clone(),
            physical,
            flat,
            pieces: None,
            built_for: None,
        }
    }

    /// Centres the floor at (`x`, `z`), world metres, and splits it around `patch` (world;
    /// `None`: there is no shadow map, the whole floor is drawn without one).
    pub fn place(&mut self, x: f32, z: f32, patch: Option<Patch>) {
        let local = patch.map(|[x0, x1, z0, z1]| [x0 - x, x1 - x, z0 - z, z1 - z]);
        if self.built_for != Some((local, [x, z])) || self.pieces.is_none() {
            let (middle, rest) = floor_pieces(local);
            let at = three_d::Mat4::from_translation(three_d::vec3(x, 0.0, z));
            let mut middle = Mesh::new(&self.ctx, &middle);
            let mut rest = Mesh::new(&self.ctx, &rest);
            middle.set_transformation(at);
            rest.set_transformation(at);
            self.pieces = Some((middle, rest));
            self.built_for = Some((local, [x, z]));
        }
    }

    /// Draws the floor: the patch with `shadowed` lights, the rest with `plain` ones (the same
    /// lights without the shadow map); `flat` picks the cheap look.
    pub fn draw(
        &self,
        target: &RenderTarget,
        scissor: ScissorBox,
        camera: &Camera,
        flat: bool,
        shadowed: &[&dyn Light],
        plain: &[&dyn Light],
    ) {
        let Some((middle, rest)) = &self.pieces else {
            return;
        };
        let material: &dyn Material = if flat { &self.flat } else { &self.physical };
        target
            .render_partially_with_material(scissor, material, camera, [middle], shadowed)
            .render_partially_with_material(scissor, material, camera, [rest], plain);
    }
}

/// The floor's look: three-d's physical material (Blinn, metallic 0, roughness 0.9) worked
/// out for a flat floor facing +Y, or with `highlights` off the cheap matte look (the diffuse
/// part of each light, one shadow tap) for View > Quality > Fast. The normal and the material's
/// constants are known, so what three-d computes per pixel from uniforms and varyings is
/// folded by the shader compiler; the picture is three-d's within rounding.
#[derive(Clone)]
pub struct FloorMaterial {
    /// The floor's albedo texture (sRGB), with its repeat.
    pub texture: Texture2DRef,
    /// Specular highlights and four shadow taps (three-d's physical look); off: diffuse light
    /// and one tap.
    pub highlights: bool,
}

/// The floor's roughness (three-d's physical material, Blinn model).
const ROUGHNESS: f32 = 0.9;

/// Share of a light a matte dielectric floor diffuses: what Schlick's Fresnel leaves of it
/// (F0 = 0.04) at roughness 0.9, as three-d's physical material computes it head on.
const DIFFUSE_SHARE: f32 = 0.96;

// three-d's light kinds: a base id with bit 0 set for a shadow map (directional) or an
// environment (ambient); its constructors for them are private to the crate.
const DIRECTIONAL: LightId = LightId::DirectionalLightBase;
const DIRECTIONAL_SHADOWED: LightId = LightId(LightId::DirectionalLightBase.0 | 1);
const AMBIENT: LightId = LightId::AmbientLightBase;

/// three-d's `calculate_light` for the Blinn model with metallic 0, the normal +Y and
/// roughness `ROUGHNESS` (F0 0.04; `fresnel_schlick_roughness`, `blinn_specular`).
const FLOOR_LIGHT: &str = "
vec3 floor_light(vec3 light_color, vec3 L, vec3 V, vec3 surface)
{
    const float F0 = 0.04;
    const float k = 1.999 / (ROUGHNESS * ROUGHNESS);
    float NdL = max(0.001, L.y);
    vec3 H = normalize(L + V);
    float NdH = max(0.001, H.y);
    float HdV = max(0.001, dot(H, V));
    float fresnel = F0 + (max(1.0 - ROUGHNESS, F0) - F0) * pow(saturate(1.0 - HdV), 5.0);
    float specular = min(1.0, 3.0 * 0.0398 * k) * pow(NdH, min(10000.0, k)) * fresnel;
    vec3 diffuse = (1.0 - fresnel) * surface / PI;
    return (diffuse + specular) * light_color * NdL;
}
";

impl FloorMaterial {
    /// The GLSL that adds light `i`: to `color` (a lit colour) or, for the matte look, to
    /// `light` (a factor on the texture's colour).
    fn light_term(&self, i: usize, light: &dyn Light) -> String {
        let id = light.id();
        let highlights = self.highlights;
        if id == DIRECTIONAL_SHADOWED && highlights {
            format!(
                "color += floor_light(color{i}, -direction{i}, V, surface) \
                 * calculate_shadow(-direction{i}, N, shadowMap{i}, shadowMVP{i}, pos);\n"
            )
        } else if id == DIRECTIONAL && highlights {
            format!("color += floor_light(color{i}, -direction{i}, V, surface);\n")
        } else if id == DIRECTIONAL_SHADOWED {
            format!(
                "light += color{i} * max(dot(N, -direction{i}), 0.0) * diffuse_share \
                 * is_visible(-direction{i}, N, shadowMap{i}, shadowMVP{i} * vec4(pos, 1.0), \
                 vec2(0.0));\n"
            )
        } else if id == DIRECTIONAL {
            format!("light += color{i} * max(dot(N, -direction{i}), 0.0) * diffuse_share;\n")
        } else if id == AMBIENT {
            "light += ambientColor * PI;\n".to_string()
        } else {
            format!("color += calculate_lighting{i}(surface, pos, N, V, 0.0, ROUGHNESS, 1.0);\n")
        }
    }
}

impl Material for FloorMaterial {
    fn fragment_shader_source(&self, lights: &[&dyn Light]) -> String {
        let mut src = lights_shader_source(lights);
        src.push_str(ToneMapping::fragment_shader_source());
        src.push_str(ColorMapping::fragment_shader_source());
        src.push_str(&format!("const float ROUGHNESS = {ROUGHNESS:.4};\n"));
        src.push_str(FLOOR_LIGHT);
        let terms: String = lights
            .iter()
            .enumerate()
            .map(|(i, l)| self.light_term(i, *l))
            .collect();
        src.push_str(&format!(
            "
uniform vec3 cameraPosition;
uniform sampler2D albedoTexture;
uniform mat3 albedoTexTransform;
in vec3 pos;
in vec2 uvs;
layout (location = 0) out vec4 outColor;

void main()
{{
    const float diffuse_share = {DIFFUSE_SHARE:.4};
    vec3 N = vec3(0.0, 1.0, 0.0);
    vec3 V = normalize(cameraPosition - pos);
    vec3 surface = texture(albedoTexture, (albedoTexTransform * vec3(uvs, 1.0)).xy).rgb;
    vec3 light = vec3(0.0);
    vec3 color = vec3(0.0);
    {terms}
    color += surface * light / PI;
    outColor = vec4(color_mapping(tone_mapping(color)), 1.0);
}}
"
        ));
        lit::specialise_tone_mapping(&src).unwrap_or(src)
    }

    fn id(&self) -> EffectMaterialId {
        // In the range three-d leaves to materials made outside it.
        EffectMaterialId(0x0c10 | self.highlights as u16)
    }

    fn use_uniforms(&self, program: &Program, viewer: &dyn Viewer, lights: &[&dyn Light]) {
        viewer.tone_mapping().use_uniforms(program);
        viewer.color_mapping().use_uniforms(program);
        program.use_uniform_if_required("cameraPosition", viewer.position());
        for (i, light) in lights.iter().enumerate() {
            light.use_uniforms(program, i as u32);
        }
        program.use_uniform("albedoTexTransform", self.texture.transformation);
        program.use_texture("albedoTexture", &self.texture);
    }

    fn render_states(&self) -> RenderStates {
        RenderStates::default()
    }

    fn material_type(&self) -> MaterialType {
        MaterialType::Opaque
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn area(mesh: &CpuMesh) -> f32 {
        let (Positions::F32(p), Indices::U32(ix)) = (&mesh.positions, &mesh.indices) else {
            panic!("floor pieces are f32 positions with u32 indices");
        };
        ix.chunks(3)
            .map(|t| {
                let (a, b, c) = (p[t[0] as usize], p[t[1] as usize], p[t[2] as usize]);
                let (u, v) = (b - a, c - a);
                (u.z * v.x - u.x * v.z) / 2.0
            })
            .sum()
    }

    #[test]
    fn every_floor_point_a_caster_can_shade_lies_in_the_patch() {
        let toward = three_d::vec3(-0.5, -1.0, -0.6);
        let lo = three_d::vec3(-0.3, -0.1, 0.9);
        let hi = three_d::vec3(0.3, 1.8, 1.9);
        let patch = shadow_patch(
            AxisAlignedBoundingBox::new_with_positions(&[lo, hi]),
            toward,
            1024,
        );
        for i in 0..=4 {
            for j in 0..=4 {
                for k in 0..=4 {
                    let f = |a: f32, b: f32, n: i32| a + (b - a) * n as f32 / 4.0;
                    let p = three_d::vec3(f(lo.x, hi.x, i), f(0.0, hi.y, j), f(lo.z, hi.z, k));
                    let t = -p.y / toward.y;
                    let (x, z) = (p.x + toward.x * t, p.z + toward.z * t);
                    assert!(
                        patch[0] < x && x < patch[1] && patch[2] < z && z < patch[3],
                        "the shadow of {p:?} at ({x}, {z}) is outside {patch:?}"
                    );
                }
            }
        }
        // The light comes from the +x, +z side and above: the patch reaches out to -x, -z.
        assert!(patch[0] < -1.0 && patch[1] < 0.4, "{patch:?}");
        assert!(patch[2] < -0.1 && patch[3] < 2.0, "{patch:?}");
    }

    #[test]
    fn a_light_along_the_floor_can_shade_all_of_it() {
        let lo = three_d::vec3(-0.3, 0.0, -0.3);
        let hi = three_d::vec3(0.3, 1.8, 0.3);
        let boxed = AxisAlignedBoundingBox::new_with_positions(&[lo, hi]);
        let patch = shadow_patch(boxed, three_d::vec3(1.0, 0.0, 0.2), 1024);
        assert!(patch[0] < -HALF_SIDE && patch[1] > HALF_SIDE, "{patch:?}");
        let patch = shadow_patch(boxed, three_d::vec3(f32::NAN, -1.0, 0.0), 1024);
        assert!(patch[2] < -HALF_SIDE && patch[3] > HALF_SIDE, "{patch:?}");
    }

    #[test]
    fn the_two_pieces_cover_the_floor_once() {
        let side = 2.0 * HALF_SIDE;
        for patch in [
            None,
            Some([-1.2, 0.3, -0.5, 1.9]),
            Some([30.0, 55.0, -60.0, -39.0]),
            Some([f32::MIN, f32::MAX, f32::MIN, f32::MAX]),
        ] {
            let (middle, rest) = floor_pieces(patch);
            let (m, r) = (area(&middle), area(&rest));
            assert!(m >= 0.0 && r >= 0.0, "{patch:?}: every triangle faces up");
            assert!((m + r - side * side).abs() < 1e-2, "{patch:?}: {m} + {r}");
            let expected = patch.map_or(0.0, |[x0, x1, z0, z1]| {
                let c = |v: f32| v.clamp(-HALF_SIDE, HALF_SIDE);
                (c(x1) - c(x0)) * (c(z1) - c(z0))
            });
            assert!(
                (m - expected).abs() < 1e-3,
                "{patch:?}: middle {m}, expected {expected}"
            );
        }
    }
}
