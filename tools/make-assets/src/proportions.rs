//! Body proportions other than the mannequin's, for test rigs shaped like the characters users
//! bring: limb lengths, shoulder, chest, waist and hip widths, limb thickness, how sharply the
//! body's parts blend (a segmented robot), the bind pose's arm angle (A-pose or T-pose) and the
//! height. [`Proportions::default`] is the built-in mannequin exactly: every factor is 1, the
//! arm angle 45° and the height 1.80 m, and the generator then writes the same bytes.
//! [`Proportions::presets`] is the one list of test bodies the tests and the measurements use.

/// How a body differs from the built-in mannequin. Factors multiply the mannequin's own size
/// of that part (1: unchanged); the skeleton and the body's surface follow them, so skin
/// weights (taken from the surface's parts) and the tuner's fitted ellipsoids follow too.
#[derive(Clone, Debug, PartialEq)]
pub struct Proportions {
    /// Standing height, metres (0.5 to 3; default 1.80). The body is built with the other
    /// proportions first, then scaled as a whole to this height.
    pub height: f32,
    /// The bind pose's arm angle below horizontal, degrees (0: T-pose; default 45: the
    /// mannequin's A-pose; at most 80).
    pub arm_drop_deg: f32,
    /// Upper arm and forearm length (0.5 to 2; default 1).
    pub arm_length: f32,
    /// Thigh and shin length (0.5 to 2; default 1). The trunk rides up or down with the hips.
    pub leg_length: f32,
    /// Distance between the shoulder joints, and the shoulders' reach out to them (0.5 to 2;
    /// default 1).
    pub shoulder_width: f32,
    /// Chest width and depth (0.5 to 2; default 1).
    pub chest: f32,
    /// Waist (belly) width and depth (0.3 to 2; default 1).
    pub waist: f32,
    /// Hip width and the hip joints' spacing (0.5 to 2; default 1).
    pub hips: f32,
    /// Thickness of arms and legs (0.5 to 2; default 1).
    pub limbs: f32,
    /// Width of the smooth blend between the body's parts (0.05 to 2; default 1): small values
    /// leave each part a separate segment, as a robot's.
    pub blend: f32,
}

impl Default for Proportions {
    fn default() -> Self {
        Self {
            height: 1.80,
            arm_drop_deg: 45.0,
            arm_length: 1.0,
            leg_length: 1.0,
            shoulder_width: 1.0,
            chest: 1.0,
            waist: 1.0,
            hips: 1.0,
            limbs: 1.0,
            blend: 1.0,
        }
    }
}

impl Proportions {
    /// A segmented robot: parts barely blended, a very narrow waist, thin limbs.
    pub fn robot() -> Self {
        Self {
            waist: 0.6,
            limbs: 0.85,
            blend: 0.2,
            ..Self::default()
        }
    }

    /// A slim mannequin: narrower chest, waist and hips, thinner limbs.
    pub fn slim() -> Self {
        Self {
            chest: 0.87,
            waist: 0.85,
            hips: 0.88,
            limbs: 0.85,
            ..Self::default()
        }
    }

    /// A stylised soldier: broad chest and shoulders over a narrow waist, thick limbs.
    pub fn soldier() -> Self {
        Self {
            shoulder_width: 1.3,
            chest: 1.25,
            waist: 0.8,
            hips: 0.95,
            limbs: 1.15,
            ..Self::default()
        }
    }

    /// The mannequin bound in a T-pose (arms horizontal).
    pub fn t_pose() -> Self {
        Self {
            arm_drop_deg: 0.0,
            ..Self::default()
        }
    }

    /// Arms a fifth longer.
    pub fn long_arms() -> Self {
        Self {
            arm_length: 1.2,
            ..Self::default()
        }
    }

    /// Legs a fifth shorter (at the mannequin's height, so the trunk is longer by comparison).
    pub fn short_legs() -> Self {
        Self {
            leg_length: 0.8,
            ..Self::default()
        }
    }

    /// The mannequin at 1.5 m.
    pub fn short() -> Self {
        Self {
            height: 1.5,
            ..Self::default()
        }
    }

    /// The mannequin at 2.0 m.
    pub fn tall() -> Self {
        Self {
            height: 2.0,
            ..Self::default()
        }
    }

    /// The test bodies, by name: the one list the tests and the measurements share. The
    /// mannequin's own A-pose is the default; these are the bodies that differ from it.
    pub fn presets() -> Vec<(&'static str, Self)> {
        vec![
            ("robot", Self::robot()),
            ("slim", Self::slim()),
            ("soldier", Self::soldier()),
            ("t_pose", Self::t_pose()),
            ("long_arms", Self::long_arms()),
            ("short_legs", Self::short_legs()),
            ("short", Self::short()),
            ("tall", Self::tall()),
        ]
    }

    /// The first field outside its range, as `(field, value, allowed range)`.
    pub fn out_of_range(&self) -> Option<(&'static str, f32, &'static str)> {
        let fields = [
            ("height", self.height, 0.5, 3.0, "0.5 to 3 m"),
            (
                "arm_drop_deg",
                self.arm_drop_deg,
                0.0,
                80.0,
                "0 to 80 degrees",
            ),
            ("arm_length", self.arm_length, 0.5, 2.0, "0.5 to 2"),
            ("leg_length", self.leg_length, 0.5, 2.0, "0.5 to 2"),
            ("shoulder_width", self.shoulder_width, 0.5, 2.0, "0.5 to 2"),
            ("chest", self.chest, 0.5, 2.0, "0.5 to 2"),
            ("waist", self.waist, 0.3, 2.0, "0.3 to 2"),
            ("hips", self.hips, 0.5, 2.0, "0.5 to 2"),
            ("limbs", self.limbs, 0.5, 2.0, "0.5 to 2"),
            ("blend", self.blend, 0.05, 2.0, "0.05 to 2"),
        ];
        fields
            .into_iter()
            .find(|&(_, v, lo, hi, _)| !(lo..=hi).contains(&v))
            .map(|(name, v, _, _, range)| (name, v, range))
    }

    /// How far the trunk rides up (metres, before the height scale) on legs of this length.
    pub fn hip_rise(&self) -> f32 {
        (self.leg_length - 1.0) * (crate::body::THIGH_LEN + crate::body::CALF_LEN)
    }

    /// The scale that brings the body built with these proportions to [`Self::height`]: 1
    /// exactly for the mannequin's legs at 1.80 m.
    pub fn height_scale(&self) -> f32 {
        self.height / (crate::body::HEIGHT + self.hip_rise())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body::{self, b};
    use glam::Vec3;

    /// The body of `p` on a coarse grid, scaled to its height.
    fn body_of(p: &Proportions) -> (Vec<body::BoneDef>, body::BodyMesh) {
        let mut bones = body::bones_with(p);
        let mut mesh = body::body_mesh_with(&bones, 0.03, p);
        let k = p.height_scale();
        mesh.positions.iter_mut().for_each(|v| *v *= k);
        bones.iter_mut().for_each(|bone| bone.pos *= k);
        (bones, mesh)
    }

    /// The widest the skin owned (most weighted) by `bone` reaches from the middle, metres.
    fn half_width(mesh: &body::BodyMesh, bone: usize) -> f32 {
        mesh.positions
            .iter()
            .zip(&mesh.joints)
            .filter(|(_, j)| j[0] as usize == bone)
            .map(|(v, _)| v.x.abs())
            .fold(0.0, f32::max)
    }

    #[test]
    fn every_test_body_is_as_tall_as_it_says() {
        for (name, p) in Proportions::presets() {
            let (_, mesh) = body_of(&p);
            let top = mesh.positions.iter().map(|v| v.y).fold(f32::MIN, f32::max);
            assert!((top - p.height).abs() < 0.03, "{name}: {top} m tall");
        }
    }

    #[test]
    fn the_t_pose_holds_the_arms_level_and_long_arms_reach_further() {
        let (t, _) = body_of(&Proportions::t_pose());
        for side in 0..2 {
            let (shoulder, hand) = (t[b::upperarm(side)].pos, t[b::hand(side)].pos);
            assert!(
                (hand.y - shoulder.y).abs() < 1e-4,
                "side {side}: {hand} {shoulder}"
            );
            assert!(hand.x.abs() > shoulder.x.abs() + 0.5);
        }
        let reach = |p: &Proportions| {
            let bones = body::bones_with(p);
            bones[b::hand(0)].pos.distance(bones[b::upperarm(0)].pos)
        };
        let ratio = reach(&Proportions::long_arms()) / reach(&Proportions::default());
        assert!((ratio - 1.2).abs() < 1e-4, "{ratio}");
    }

    #[test]
    fn the_soldier_is_broad_at_the_chest_over_a_narrow_waist_and_the_robot_narrower_still() {
        let (_, mannequin) = body_of(&Proportions::default());
        let (_, soldier) = body_of(&Proportions::soldier());
        let (_, robot) = body_of(&Proportions::robot());
        let chest = |m: &body::BodyMesh| half_width(m, b::CHEST);
        let waist = |m: &body::BodyMesh| half_width(m, b::SPINE);
        assert!(chest(&soldier) > chest(&mannequin) * 1.15);
        assert!(waist(&soldier) < waist(&mannequin) * 0.9);
        assert!(waist(&robot) < waist(&mannequin) * 0.7);
    }

    #[test]
    fn short_legs_keep_the_height_with_the_hips_lower() {
        let (legs, _) = body_of(&Proportions::short_legs());
        let (mannequin, _) = body_of(&Proportions::default());
        let hip = |bones: &[body::BoneDef]| bones[b::thigh(0)].pos.y;
        assert!(
            hip(&legs) < hip(&mannequin) - 0.07,
            "{} {}",
            hip(&legs),
            hip(&mannequin)
        );
        assert_eq!(mannequin[b::ROOT].pos, Vec3::ZERO);
    }

    #[test]
    fn a_value_out_of_range_is_named_with_its_range() {
        assert_eq!(Proportions::default().out_of_range(), None);
        for (_, p) in Proportions::presets() {
            assert_eq!(p.out_of_range(), None);
        }
        let bad = Proportions {
            waist: 0.1,
            ..Proportions::default()
        };
        assert_eq!(bad.out_of_range(), Some(("waist", 0.1, "0.3 to 2")));
    }
}
