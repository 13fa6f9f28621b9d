//! The key light: three-d's directional light, whose shadow map we draw ourselves. three-d
//! draws a directional light's map with both faces of every caster and a new texture each
//! time; on a software rasteriser the map is a quarter of a picture, most of it setting up
//! triangles. A caster that is a closed solid wound outwards ([`super::cull`]) needs only the
//! faces towards the light (the nearest surface along a ray into a solid is one of them), and
//! a map of the same size reuses the last one's texture: the same map, for less work.

use three_d::{
    render_with_material, AxisAlignedBoundingBox, Camera, ClearState, Context, Cull, DepthMaterial,
    DepthTexture2D, DirectionalLight, Geometry, InnerSpace, Light, LightId, Mat4, MetricSpace,
    Program, RenderStates, RendererError, Srgba, Vec3, Viewport, Wrapping, WriteMask,
};

/// A directional light with an optional shadow map: the same shader, uniforms and id as
/// three-d's `DirectionalLight`, so every material lights with it as with that one.
pub struct KeyLight {
    ctx: Context,
    pub intensity: f32,
    pub color: Srgba,
    /// From the light into the scene.
    pub direction: Vec3,
    /// The map and the matrix from world space to its texture coordinates and depth.
    shadow: Option<(DepthTexture2D, Mat4)>,
    /// The last map's texture, drawn into again by the next map of the same size.
    spare: Option<DepthTexture2D>,
}

/// A caster of the shadow map and the faces it is drawn with (`Cull::Back` only for a closed
/// solid wound outwards).
pub type Caster<'a> = (&'a dyn Geometry, Cull);

impl KeyLight {
    /// The light `like` is (intensity, colour, direction), with no shadow map yet.
    pub fn like(ctx: &Context, like: &DirectionalLight) -> Self {
        Self {
            ctx: ctx.clone(),
            intensity: like.intensity,
            color: like.color,
            direction: like.direction,
            shadow: None,
            spare: None,
        }
    }

    /// No shadows until the next map.
    pub fn clear_shadow_map(&mut self) {
        if let Some((texture, _)) = self.shadow.take() {
            self.spare = Some(texture);
        }
    }

    /// Draws the shadow map (`size` texels square) of `casters`, fitted to their bounds as
    /// three-d fits its own: an orthographic view along the light from the bounds' centre, as
    /// wide and as deep as their diagonal; returns those bounds. No casters (or empty bounds):
    /// no map.
    pub fn generate_shadow_map(
        &mut self,
        size: u32,
        casters: &[Caster],
    ) -> Result<AxisAlignedBoundingBox, RendererError> {
        let mut bounds = AxisAlignedBoundingBox::EMPTY;
        for (g, _) in casters {
            bounds.expand_with_aabb(g.aabb());
        }
        self.clear_shadow_map();
        if bounds.is_empty() || size == 0 {
            return Ok(bounds);
        }
        let centre = bounds.center();
        let depth = bounds.distance_max(centre);
        let camera = Camera::new_orthographic(
            Viewport::new_at_origo(size, size),
            centre,
            centre + self.direction.normalize(),
            up_for(self.direction),
            bounds.max().distance(bounds.min()),
            -depth,
            depth,
        );
        let texture = match self.spare.take() {
            Some(t) if t.width() == size && t.height() == size => t,
            _ => DepthTexture2D::new::<f32>(
                &self.ctx,
                size,
                size,
                Wrapping::ClampToEdge,
                Wrapping::ClampToEdge,
            ),
        };
        let frustum = camera.frustum();
        texture
            .as_depth_target()
            .clear(ClearState::default())
            .write::<RendererError>(|| {
                for &(geometry, cull) in casters.iter().filter(|(g, _)| frustum.contains(g.aabb()))
                {
                    let material = DepthMaterial {
                        render_states: RenderStates {
                            write_mask: WriteMask::DEPTH,
                            cull,
                            ..Default::default()
                        },
                        ..Default::default()
                    };
                    render_with_material(&self.ctx, &camera, geometry, &material, &[])?;
                }
                Ok(())
            })?;
        // From clip space (-1..1) to texture coordinates and depth (0..1).
        let bias = Mat4::new(
            0.5, 0.0, 0.0, 0.0, 0.0, 0.5, 0.0, 0.0, 0.0, 0.0, 0.5, 0.0, 0.5, 0.5, 0.5, 1.0,
        );
        self.shadow = Some((texture, bias * camera.projection() * camera.view()));
        Ok(bounds)
    }
}

/// three-d's choice of "up" for a view along `direction`.
fn up_for(direction: Vec3) -> Vec3 {
    let x = Vec3::new(1.0, 0.0, 0.0);
    if x.dot(direction).abs() > 0.9 {
        Vec3::new(0.0, 1.0, 0.0).cross(direction).normalize()
    } else {
        x.cross(direction).normalize()
    }
}

impl Light for KeyLight {
    fn shader_source(&self, i: u32) -> String {
        // three-d's directional light, word for word (the programs are shared by its id).
        if self.shadow.is_some() {
            format!(
                "
                    uniform sampler2D shadowMap{i};
                    uniform mat4 shadowMVP{i};

                    uniform vec3 color{i};
                    uniform vec3 direction{i};

                    vec3 calculate_lighting{i}(vec3 surface_color, vec3 position, vec3 normal, vec3 view_direction, float metallic, float roughness, float occlusion)
                    {{
                        return calculate_light(color{i}, -direction{i}, surface_color, view_direction, normal, metallic, roughness)
                            * calculate_shadow(-direction{i}, normal, shadowMap{i}, shadowMVP{i}, position);
                    }}

                "
            )
        } else {
            format!(
                "
                    uniform vec3 color{i};
                    uniform vec3 direction{i};

                    vec3 calculate_lighting{i}(vec3 surface_color, vec3 position, vec3 normal, vec3 view_direction, float metallic, float roughness, float occlusion)
                    {{
                        return calculate_light(color{i}, -direction{i}, surface_color, view_direction, normal, metallic, roughness);
                    }}

                "
            )
        }
    }

    fn use_uniforms(&self, program: &Program, i: u32) {
        if let Some((texture, matrix)) = &self.shadow {
            program.use_depth_texture(&format!("shadowMap{i}"), texture);
            program.use_uniform(&format!("shadowMVP{i}"), *matrix);
        }
        program.use_uniform(
            &format!("color{i}"),
            self.color.to_linear_srgb().truncate() * self.intensity,
        );
        program.use_uniform(&format!("direction{i}"), self.direction.normalize());
    }

    fn id(&self) -> LightId {
        let shadowed = self.shadow.is_some() as u8;
        LightId(LightId::DirectionalLightBase.0 | shadowed)
    }
}
