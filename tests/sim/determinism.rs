//! Same inputs, same build: bit-identical positions. Regression screenshots depend on it.

use cloth_tuner::preset::Preset;
use cloth_tuner::sim::{Cloth, Collider, Frame, StepInput, Topology};
use glam::{Quat, Vec3};

/// A moving, turning character with a body ellipsoid and gusty wind: every code path.
fn run(steps: usize) -> Vec<Vec3> {
    let params = Preset::load("presets/veil.json").unwrap().params;
    let topo = Topology::flat_grid(12, 10, 0.06, Vec3::new(-0.33, 1.5, 0.12));
    let rest = topo.rest.clone();
    let mut cloth = Cloth::new(topo, &params);
    let body = [
        Collider::Ellipsoid {
            center: Vec3::new(0.0, 1.1, 0.0),
            rotation: Quat::from_rotation_y(0.2),
            radii: Vec3::new(0.2, 0.35, 0.14),
        },
        Collider::Plane {
            point: Vec3::ZERO,
            normal: Vec3::Y,
        },
    ];
    for step in 0..steps {
        let t = step as f32 / 60.0;
        let frame = Frame::new(
            Quat::from_rotation_y((t * 2.0).sin()),
            Vec3::new((t * 3.0).sin(), 0.0, 2.0 * t),
        );
        cloth
            .step(&StepInput {
                frame,
                reference: &rest,
                colliders: &body,
                leg_lines: None,
            })
            .unwrap();
    }
    cloth.positions().to_vec()
}

#[test]
fn two_runs_of_600_steps_are_bit_identical() {
    let a = run(600);
    let b = run(600);
    let bits = |v: &[Vec3]| -> Vec<[u32; 3]> {
        v.iter()
            .map(|p| [p.x.to_bits(), p.y.to_bits(), p.z.to_bits()])
            .collect()
    };
    assert_eq!(bits(&a), bits(&b));
    // And the cloth did move: this is not two copies of the rest pose.
    let rest = Topology::flat_grid(12, 10, 0.06, Vec3::new(-0.33, 1.5, 0.12)).rest;
    assert!(a.iter().zip(&rest).any(|(p, r)| p.distance(*r) > 0.05));
}
