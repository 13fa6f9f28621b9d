//! The ground's cheap look for View > Quality > Fast. On a software rasteriser the ground is
//! most of the 3D view's pixels, and three-d's physical material spends on each of them a
//! Cook-Torrance term per light and four shadow-map taps. The ground is flat and matte
//! (roughness 0.9, its highlights are a few percent of its light), so at Fast it is drawn as
//! its texture times the diffuse light of each light, with one shadow tap: the same floor
//! and the same shadow at half resolution, for a fraction of the work. Full and Balanced, and
//! every headless picture, keep the physical material.

use three_d::{
    lights_shader_source, ColorMapping, EffectMaterialId, Light, LightId, Material, MaterialType,
    Program, RenderStates, Texture2DRef, ToneMapping, Viewer,
};

/// The ground's texture lit by the diffuse part of each light. `Material` for a flat floor
/// facing +Y only.
#[derive(Clone)]
pub struct FlatGroundMaterial {
    /// The floor's albedo texture (sRGB), with its repeat.
    pub texture: Texture2DRef,
}

/// Share of a light a matte dielectric floor diffuses: what Schlick's Fresnel leaves of it
/// (F0 = 0.04) at roughness 0.9, as three-d's physical material computes it head on.
const DIFFUSE_SHARE: f32 = 0.96;

// three-d's light kinds: a base id with bit 0 set for a shadow map (directional) or an
// environment (ambient); its constructors for them are private to the crate.
const DIRECTIONAL: LightId = LightId::DirectionalLightBase;
const DIRECTIONAL_SHADOWED: LightId = LightId(LightId::DirectionalLightBase.0 | 1);
const AMBIENT: LightId = LightId::AmbientLightBase;

impl FlatGroundMaterial {
    /// The GLSL that adds light `i` to `light` (a per-pixel factor on the texture's colour)
    /// or, for a kind the floor does not simplify, its full contribution to `color`.
    fn light_term(i: usize, light: &dyn Light) -> String {
        let id = light.id();
        if id == DIRECTIONAL_SHADOWED {
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
            format!(
                "color += calculate_lighting{i}(surface, pos, N, normalize(cameraPosition - pos), \
                 0.0, 0.9, 1.0);\n"
            )
        }
    }
}

impl Material for FlatGroundMaterial {
    fn fragment_shader_source(&self, lights: &[&dyn Light]) -> String {
        let mut src = lights_shader_source(lights);
        src.push_str(ToneMapping::fragment_shader_source());
        src.push_str(ColorMapping::fragment_shader_source());
        let terms: String = lights
            .iter()
            .enumerate()
            .map(|(i, l)| Self::light_term(i, *l))
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
    vec3 surface = texture(albedoTexture, (albedoTexTransform * vec3(uvs, 1.0)).xy).rgb;
    vec3 light = vec3(0.0);
    vec3 color = vec3(0.0);
    {terms}
    color += surface * light / PI;
    outColor = vec4(color_mapping(tone_mapping(color)), 1.0);
}}
"
        ));
        src
    }

    fn id(&self) -> EffectMaterialId {
        // In the range three-d leaves to materials made outside it.
        EffectMaterialId(0x0c10)
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
