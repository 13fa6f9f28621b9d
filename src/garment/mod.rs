//! What dresses a character: the garments, each a low-resolution simulation grid fitted to the
//! body, the bones placed on it and a detailed render mesh skinned to those bones and to the
//! body's.
//!
//! A garment is a type implementing [`Garment`], in its own file: the templates
//! [`jacket::Jacket`], [`hood::HoodedJacket`], [`veil::Veil`], [`skirt::Skirt`], and the
//! artist's own, [`imported::ImportedGarment`]. It owns its grid layout, how its
//! reference points follow the body, its render mesh, what it collides with, and whatever it
//! does each step besides the cloth (the hood's pendulum, the skirt's leg lines), with the
//! state that needs. What they all share is here and in [`layout`] (the grid's shape and the
//! rings fitted round the body) and [`rig`] (the drivers, the bones on the grid, the skinned
//! render mesh). [`dress`] is the one place that turns a preset's garment into one; a new
//! garment adds its file and a line there.
//!
//! The scene ([`crate::scene::Scene`]) holds the character, one garment and its cloth; a
//! garment holds nothing of the scene's, so a second one (a coat over a skirt) would be a
//! second garment with its own cloth.

pub mod hood;
pub mod imported;
pub mod jacket;
pub mod layout;
pub mod legs;
mod nearest;
pub mod rig;
pub mod settings;
pub mod skirt;
mod torn_mesh;
pub mod veil;

use std::any::Any;

use glam::{Mat4, Vec3};

use crate::character::{Character, Ellipsoid};
use crate::preset::Garment as Template;
use crate::sim::{Cloth, FabricParams, Frame, LegLines};

pub use layout::GridLayout;
pub use rig::{Binding, GarmentError, GarmentRig, RenderMesh, RigFrame};
pub use torn_mesh::open_indices;

/// How far apart two neighbouring reference points in a row may be, x their link's rest
/// length, unless a garment says otherwise ([`Garment::reference_span`]).
pub const REFERENCE_SPAN: f32 = 1.5;

/// The [`REFERENCE_SPAN`] of a garment hung from the hips over the legs (the skirt template,
/// and the artist's garment whose hem hangs over the thighs): closer, because a knee rising
/// under the front pushes one reference of a lower row ahead of the thigh. With the jackets'
/// span its neighbours' spheres stay round the thigh's sides and a run holds the link between
/// them far over rest; at 1.2 they come over the thigh with it. Closer still (1.1, 1.0) draws
/// the spheres so close that a jump's stretch grows.
pub const OVER_LEGS_REFERENCE_SPAN: f32 = 1.2;

/// The character's pose in one step, as a garment sees it.
#[derive(Clone, Copy)]
pub struct Posed<'a> {
    /// The character's bones, character space.
    pub model: &'a [Mat4],
    /// The character's frame in the world this step and at the last one.
    pub root: Frame,
    pub last_root: Frame,
    /// The fabric's knobs.
    pub params: &'a FabricParams,
}

/// The character's ellipsoids a garment's cloth keeps out of: those of the torso first, then
/// the legs' (`torso..`): the scene pushes reference points outward past the legs.
#[derive(Clone, Debug, Default)]
pub struct Body {
    pub ellipsoids: Vec<Ellipsoid>,
    /// How many of them are the torso's.
    pub torso: usize,
}

impl Body {
    /// The torso's and the legs' ellipsoids of `character`. The arms hang beside the garment
    /// inside their sleeves, and their ellipsoids overlap the pinned row under the armpits, so
    /// they are left out.
    pub fn torso_and_legs(character: &Character) -> Self {
        let is_leg = |name: &str| name.starts_with("thigh") || name.starts_with("calf");
        let colliding = |legs: bool| {
            character
                .ellipsoids
                .iter()
                .filter(move |e| !e.name.starts_with("upperarm") && is_leg(&e.name) == legs)
                .cloned()
        };
        let ellipsoids: Vec<Ellipsoid> = colliding(false).chain(colliding(true)).collect();
        Self {
            torso: colliding(false).count(),
            ellipsoids,
        }
    }

    /// Ellipsoids with no legs among them.
    pub fn without_legs(ellipsoids: Vec<Ellipsoid>) -> Self {
        Self {
            torso: ellipsoids.len(),
            ellipsoids,
        }
    }
}

/// A garment on one character. Built once ([`dress`]); each step the scene calls
/// [`Garment::pose`], then holds the reference points out of the body and of the legs the
/// garment hangs over ([`Garment::held_over_legs`]), then [`Garment::before_cloth`] and the cloth's step with the garment's
/// [`Garment::leg_lines`]; [`Garment::skin`] when the garment is drawn.
pub trait Garment: Any + Send + Sync {
    /// The preset's name for this garment when it is one of the templates (`None`: the
    /// artist's own, [`imported::ImportedGarment`]).
    fn template(&self) -> Option<Template>;

    /// The rig: grid, drivers, bones on the grid, render mesh.
    fn rig(&self) -> &GarmentRig;

    /// What the cloth keeps out of.
    fn body(&self) -> &Body;

    /// The leg lines a garment hung over the legs holds its reference points out of (the
    /// skirt's, the artist's garment whose hem hangs over the thighs), whether or not the
    /// cloth's row pass is given them ([`Garment::leg_lines`]); `None` for one that ends above
    /// the legs. After pushing the reference points out of the body and carrying neighbours
    /// along, the scene pushes the lower rows' reference points out of these lines, so the max
    /// distance sphere is centred where the lines let the cloth be. Pushed over a lunging
    /// thigh and then down their columns, such a garment's rows' reference points part past
    /// what the cloth can span (a long coat's rows at several times their length on a dodge and
    /// a jump, a skirt's beside its seam on a sprint stop), so the scene carries them together
    /// once more after the column reach, within the closer [`OVER_LEGS_REFERENCE_SPAN`]. The
    /// jackets are not: carried again, a hem held round a raised knee was pulled across it.
    fn held_over_legs(&self) -> Option<&LegLines> {
        None
    }

    /// How far apart two neighbouring reference points in a row may be, x their link's rest
    /// length (see [`crate::scene::Scene`]): closer for a garment hung over the legs
    /// ([`Garment::held_over_legs`]).
    fn reference_span(&self) -> f32 {
        match self.held_over_legs() {
            Some(_) => OVER_LEGS_REFERENCE_SPAN,
            None => REFERENCE_SPAN,
        }
    }

    /// Poses the garment's drivers for this step's pose (`frame`) and writes each particle's
    /// reference point (the centre of its max-distance sphere) into `references`.
    fn pose(&mut self, posed: &Posed, frame: &mut RigFrame, references: &mut [Vec3]);

    /// Back to the start of a clip, posed by the last [`Garment::pose`].
    fn reset(&mut self, _posed: &Posed, _frame: &mut RigFrame) {}

    /// What the garment does in a step before the cloth's (the hood's pendulum).
    fn before_cloth(&mut self, _posed: &Posed, _frame: &mut RigFrame) {}

    /// The leg lines the cloth keeps this step's lower rows out of (the skirt's), for its
    /// step input ([`crate::sim::StepInput::leg_lines`]).
    fn leg_lines(&self) -> Option<&LegLines> {
        None
    }

    /// Skins the render mesh for drawing into `pos` and `nrm` (resized once).
    fn skin(&mut self, frame: &RigFrame, _cloth: &Cloth, pos: &mut Vec<Vec3>, nrm: &mut Vec<Vec3>) {
        self.rig().skin_render(frame, pos, nrm);
    }

    /// The garment as [`Any`], to reach what only one kind has ([`crate::scene::Scene::worn`]).
    fn as_any(&self) -> &dyn Any;
    fn as_any_mut(&mut self) -> &mut dyn Any;
}

/// The layout of `template` fitted to `character`, as a scene builds it.
pub fn fitted_layout(character: &Character, template: Template) -> GridLayout {
    match template {
        Template::Veil => veil::layout(character),
        Template::Skirt => skirt::layout(character),
        Template::Jacket | Template::HoodedJacket => jacket::fitted_layout(character),
    }
}

/// `template` on `character` in `layout`: the registry of garments.
pub fn dress(
    character: &Character,
    template: Template,
    layout: &GridLayout,
) -> Result<Box<dyn Garment>, GarmentError> {
    Ok(match template {
        Template::Jacket => Box::new(jacket::Jacket::new(character, layout)?),
        Template::HoodedJacket => Box::new(hood::HoodedJacket::new(character, layout)?),
        Template::Veil => Box::new(veil::Veil::new(character, layout)?),
        Template::Skirt => Box::new(skirt::Skirt::new(character, layout)?),
    })
}

/// The grid and rest area of `template` on the built-in character, as a scene builds it: what
/// an engine export describes when no character is given.
#[cfg(feature = "export")]
pub fn builtin_grid(template: Template) -> crate::export::GridSize {
    let character = Character::builtin_ref();
    let layout = fitted_layout(character, template);
    let garment = dress(character, template, &layout)
        .expect("the built-in garments build on the built-in character (tests/garment/)");
    crate::export::GridSize::of_topology(&garment.rig().topology)
}
