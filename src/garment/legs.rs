//! The legs a garment keeps its lower rows out of, posed from the character's bones: what the
//! skirt and the artist's long garments (a skirt, a long coat) give the cloth's row pass as
//! its leg lines ([`LegLines`]) every step. One copy of the rule that finds the hip, knee and
//! ankle bones and the legs' radius on any character.

use glam::{Mat4, Vec3};

use super::layout::skin_of;
use super::rig::distance_to_segment;
use crate::character::{BodyAxis, Character, Role};
use crate::sim::{LegLines, LegRows};

/// The leg lines' radius over the leg's own (its skin's distance from the bone line): a little
/// wider, so the hem clears the leg rather than grazing it.
pub const LEG_LINE_GROWTH: f32 = 1.15;

/// What a garment's rig needs to pose the leg lines: the hip, knee and ankle bones of each leg
/// and the radius.
#[derive(Clone, Copy, Debug)]
pub struct LegBones {
    bones: [[usize; 3]; 2],
    pelvis: usize,
    radius: f32,
}

impl LegBones {
    /// The legs of `character` posed by `model` (its rest pose): the ankle is the shin's first
    /// child (the foot); a shin with none ends as far below the knee as the knee is below the
    /// hip. The radius is the thighs' skin's largest distance from the hip-knee line at rest
    /// (ignoring the few farthest vertices, the buttocks' and the groin's), grown by
    /// [`LEG_LINE_GROWTH`].
    pub fn of(character: &Character, model: &[Mat4]) -> Self {
        let roles = &character.roles;
        let sk = &character.skeleton;
        let leg = |thigh: Role, shin: Role| {
            let (t, s) = (roles.bone(thigh), roles.bone(shin));
            let foot = (0..sk.len()).find(|&b| sk.parent(b) == Some(s));
            [t, s, foot.unwrap_or(usize::MAX)]
        };
        let bones = [
            leg(Role::ThighL, Role::ShinL),
            leg(Role::ThighR, Role::ShinR),
        ];
        let mut radius = 0f32;
        for (side, role) in [Role::ThighL, Role::ThighR].into_iter().enumerate() {
            let [hip, knee, _] = joints(&bones[side], model);
            let mut d: Vec<f32> = skin_of(character, model, |r| r == role)
                .iter()
                .map(|p| distance_to_segment(*p, hip, knee))
                .collect();
            d.sort_by(f32::total_cmp);
            if let Some(&q) = d.get(d.len() * 9 / 10) {
                radius = radius.max(q);
            }
        }
        let fallback = 0.07 * model_scale(&bones[0], model);
        let radius = if radius > 0.0 { radius } else { fallback };
        Self {
            bones,
            pelvis: roles.bone(Role::Pelvis),
            radius: radius * LEG_LINE_GROWTH,
        }
    }

    /// The leg lines in the pose `model`: the joints and the pelvis's axis as plain geometry
    /// for the cloth, holding `rows`.
    pub fn pose(&self, model: &[Mat4], rows: LegRows) -> LegLines {
        LegLines::new(
            [joints(&self.bones[0], model), joints(&self.bones[1], model)],
            self.radius,
            BodyAxis::of_pelvis(model[self.pelvis]),
            rows,
        )
    }

    /// The mean height of the hips and of the knees in the pose `model`, metres.
    pub fn hip_and_knee_heights(&self, model: &[Mat4]) -> (f32, f32) {
        let [[h0, k0, _], [h1, k1, _]] = self.bones.map(|b| joints(&b, model));
        ((h0.y + h1.y) * 0.5, (k0.y + k1.y) * 0.5)
    }
}

/// Hip, knee and ankle of one leg in the pose `model` ([`LegBones::of`]).
fn joints(bones: &[usize; 3], model: &[Mat4]) -> [Vec3; 3] {
    let at = |b: usize| model[b].w_axis.truncate();
    let (hip, knee) = (at(bones[0]), at(bones[1]));
    let ankle = if bones[2] == usize::MAX {
        knee + (knee - hip)
    } else {
        at(bones[2])
    };
    [hip, knee, ankle]
}

/// The hip-knee length: the fallback radius's measure when the thigh has no skin.
fn model_scale(bones: &[usize; 3], model: &[Mat4]) -> f32 {
    let [hip, knee, _] = joints(bones, model);
    hip.distance(knee) / 0.45
}
