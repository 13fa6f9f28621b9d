//! The jacket and the hood take the character's world motion by one rule
//! (`sim::WorldMotion`): the same fraction of it, and the same cuts.

use std::sync::Arc;

use cloth_tuner::character::Character;
use cloth_tuner::preset::{Garment, Preset};
use cloth_tuner::scene::Scene;
use cloth_tuner::sim::{Frame, WorldMotion, TELEPORT_ANGLE, TELEPORT_DISTANCE};
use glam::{Quat, Vec3};

/// How far (metres) the turned scene may end from its twin after the cut. The idle stands
/// still, so the cut skips no motion of its own; what is left is rounding. A hood that took
/// the turn as motion would end centimetres from its twin's.
const TOLERANCE: f32 = 1e-3;

fn scene(character: &Arc<Character>, preset: &Preset, clip: &str) -> Scene {
    Scene::new(character.clone(), preset, clip).unwrap()
}

#[test]
fn a_sharp_turn_on_the_spot_is_a_cut_for_the_hood_as_for_the_jacket() {
    // The down jacket has a hood; its world-motion fraction is strictly between 0 and 1, so
    // a turn taken as motion would swing the hood by a fraction of it.
    let character = Arc::new(Character::builtin());
    let mut preset = Preset::load("presets/down_jacket.json").unwrap();
    // The wind blows in the world: it would turn with the character and part the two jackets
    // by most of a millimetre in the step.
    preset.params.wind_speed = 0.0;
    assert_eq!(preset.garment, Garment::HoodedJacket);
    let f = preset.params.world_motion_fraction;
    assert!(f > 0.0 && f < 1.0, "{f}");
    let mut turned = scene(&character, &preset, "idle");
    let mut twin = scene(&character, &preset, "idle");
    for _ in 0..30 {
        turned.step();
        twin.step();
    }
    let before = turned.root();
    // A quarter turn about +Y, no translation: the idle stands on the origin, so the root
    // turns on the spot and only the angle makes it a cut.
    turned.teleport(Frame::new(
        Quat::from_rotation_y(std::f32::consts::FRAC_PI_2),
        Vec3::ZERO,
    ));
    turned.step();
    twin.step();
    let motion = WorldMotion::between(&before, &turned.root());
    assert!(
        motion.delta().translation.length() < TELEPORT_DISTANCE / 4.0,
        "the root jumped {} m",
        motion.delta().translation.length()
    );
    assert!(motion.delta().rotation.angle_between(Quat::IDENTITY) > TELEPORT_ANGLE);
    assert!(motion.is_cut());
    assert_eq!(
        turned.cloth().stats().teleports,
        1,
        "the jacket took no cut"
    );
    assert_eq!(twin.cloth().stats().teleports, 0);

    let end = |s: &Scene| s.hood_pendulum().expect("the down jacket has a hood");
    let hood = end(&turned).distance(end(&twin));
    assert!(
        hood < TOLERANCE,
        "the hood moved {hood} m more than its twin's: it took the turn as motion"
    );
    let cloth = turned
        .cloth()
        .positions()
        .iter()
        .zip(twin.cloth().positions())
        .map(|(a, b)| a.distance(*b))
        .fold(0.0, f32::max);
    assert!(
        cloth < TOLERANCE,
        "a particle ended {cloth} m from its twin's"
    );
}
