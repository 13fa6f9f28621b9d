//! three-d's physical material with its run-time switches compiled into the shader.
//!
//! three-d's lit shaders choose the lighting model (Phong, Blinn, three Cook-Torrance
//! variants) and the tone mapping curve (Reinhard, ACES, filmic) with `if`s on uniforms. A GPU
//! jumps over the branches not taken; Mesa's llvmpipe, the software renderer of machines with
//! no GPU driver, runs every branch for every pixel and keeps one result, so most of a lit
//! pixel's work was thrown away. [`Lit`] draws the same picture with the material's lighting
//! model as a constant (the compiler drops the other models) and with the tone mapping cut
//! to the one curve this renderer's cameras use.

use std::ops::{Deref, DerefMut};

use three_d::{
    Context, CpuMaterial, EffectMaterialId, GeometryFunction, Light, LightingModel, Material,
    MaterialType, NormalDistributionFunction, PhysicalMaterial, Program, RenderStates, ToneMapping,
    Viewer,
};

/// A [`PhysicalMaterial`] drawn by a shader specialised to its lighting model. Reads and
/// writes the material's fields through `Deref`.
#[derive(Clone)]
pub struct Lit(pub PhysicalMaterial);

impl Lit {
    /// An opaque material from its CPU description.
    pub fn opaque(ctx: &Context, cpu: &CpuMaterial) -> Self {
        Self(PhysicalMaterial::new_opaque(ctx, cpu))
    }

    /// A see-through material (blended, drawn after the opaque ones).
    pub fn transparent(ctx: &Context, cpu: &CpuMaterial) -> Self {
        Self(PhysicalMaterial::new_transparent(ctx, cpu))
    }
}

impl Deref for Lit {
    type Target = PhysicalMaterial;
    fn deref(&self) -> &PhysicalMaterial {
        &self.0
    }
}

impl DerefMut for Lit {
    fn deref_mut(&mut self) -> &mut PhysicalMaterial {
        &mut self.0
    }
}

/// three-d's number for a lighting model in its shaders (`lightingModel`).
fn model_number(model: LightingModel) -> u32 {
    use GeometryFunction::SmithSchlickGGX as Smith;
    match model {
        LightingModel::Phong => 1,
        LightingModel::Blinn => 2,
        LightingModel::Cook(NormalDistributionFunction::Blinn, Smith) => 3,
        LightingModel::Cook(NormalDistributionFunction::Beckmann, Smith) => 4,
        LightingModel::Cook(NormalDistributionFunction::TrowbridgeReitzGGX, Smith) => 5,
    }
}

/// The ACES curve alone, as three-d computes it. The uniform stays (three-d's viewer sets it
/// on every lit program) and a camera with another curve shows magenta rather than a
/// silently different picture; the renderer's cameras keep three-d's default, ACES.
const ACES_ONLY: &str = "
        uniform uint toneMappingType;

        vec3 tone_mapping(vec3 color) {
            if (toneMappingType != 2u) {
                return vec3(1.0, 0.0, 1.0);
            }
            color = color*(2.51*color + .03) / (color*(2.43*color + .59) + .14);
            return clamp(color, 0.0, 1.0);
        }
        ";

/// `source` (a three-d lit fragment shader) with `model` compiled in and ACES as its only
/// tone mapping. `None` when the source does not have the switches this expects (a three-d
/// update changed them), so the caller keeps three-d's own shader.
pub fn specialise(source: &str, model: LightingModel) -> Option<String> {
    const MODEL: &str = "uniform uint lightingModel;";
    if !source.contains(MODEL) {
        return None;
    }
    let constant = format!("const uint lightingModel = {}u;", model_number(model));
    specialise_tone_mapping(&source.replace(MODEL, &constant))
}

/// `source` (a fragment shader with three-d's tone mapping) with ACES as its only curve, or
/// `None` when three-d's tone mapping is not in it.
pub fn specialise_tone_mapping(source: &str) -> Option<String> {
    let tone = ToneMapping::fragment_shader_source();
    source
        .contains(tone)
        .then(|| source.replace(tone, ACES_ONLY))
}

impl Material for Lit {
    fn fragment_shader_source(&self, lights: &[&dyn Light]) -> String {
        let source = self.0.fragment_shader_source(lights);
        specialise(&source, self.0.lighting_model).unwrap_or(source)
    }

    fn id(&self) -> EffectMaterialId {
        // In the range three-d leaves to materials made outside it: one program per
        // lighting model and texture set (the low five bits are three-d's texture flags).
        let textures = self.0.id().0 & 0x1f;
        let model = model_number(self.0.lighting_model) as u16;
        EffectMaterialId(0x0d00 | (model << 5) | textures)
    }

    fn use_uniforms(&self, program: &Program, viewer: &dyn Viewer, lights: &[&dyn Light]) {
        self.0.use_uniforms(program, viewer, lights)
    }

    fn render_states(&self) -> RenderStates {
        self.0.render_states()
    }

    fn material_type(&self) -> MaterialType {
        self.0.material_type()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// three-d's own shader for an untextured physical material (no GL context needed).
    fn physical_source() -> String {
        PhysicalMaterial::default().fragment_shader_source(&[])
    }

    #[test]
    fn the_lighting_model_and_tone_curve_are_compiled_in() {
        let source = physical_source();
        let s = specialise(&source, LightingModel::Blinn).expect("three-d's switches are found");
        assert!(!s.contains("uniform uint lightingModel"));
        assert!(s.contains("const uint lightingModel = 2u;"));
        assert!(s.contains("uniform uint toneMappingType"));
        assert!(
            !s.contains("toneMappingType == 3u"),
            "filmic branch left in"
        );
    }

    #[test]
    fn an_unexpected_shader_is_left_as_it_is() {
        assert!(specialise("void main() {}", LightingModel::Blinn).is_none());
    }
}
