//! The body mesh, skinning and collision ellipsoids of the built-in character.
#![cfg(feature = "rig")]

use cloth_tuner::character::{skin, Character};
use glam::{Mat4, Vec3};

/// Point-in-mesh test: ray parity along three skewed directions, majority vote (a ray that
/// grazes an edge can miscount).
fn inside(pos: &[Vec3], idx: &[u32], p: Vec3) -> bool {
    let dirs = [
        Vec3::new(1.0, 0.0123, 0.0071),
        Vec3::new(-0.0131, 0.0093, 1.0),
        Vec3::new(0.0117, 1.0, -0.0151),
    ];
    dirs.iter()
        .filter(|d| parity(pos, idx, p, d.normalize()))
        .count()
        >= 2
}

fn parity(pos: &[Vec3], idx: &[u32], p: Vec3, dir: Vec3) -> bool {
    let mut hits = 0;
    for tri in idx.chunks_exact(3) {
        let (a, b, c) = (
            pos[tri[0] as usize],
            pos[tri[1] as usize],
            pos[tri[2] as usize],
        );
        let e1 = b - a;
        let e2 = c - a;
        let h = dir.cross(e2);
        let det = e1.dot(h);
        if det.abs() < 1e-12 {
            continue;
        }
        let f = 1.0 / det;
        let s = p - a;
        let u = f * s.dot(h);
        if !(0.0..=1.0).contains(&u) {
            continue;
        }
        let q = s.cross(e1);
        let v = f * dir.dot(q);
        if v < 0.0 || u + v > 1.0 {
            continue;
        }
        if f * e2.dot(q) > 0.0 {
            hits += 1;
        }
    }
    hits % 2 == 1
}

#[test]
fn skin_weights_are_normalised_and_valid() {
    let ch = Character::builtin();
    let m = &ch.mesh;
    assert_eq!(m.positions.len(), m.normals.len());
    assert_eq!(m.positions.len(), m.weights.len());
    assert_eq!(m.positions.len(), m.joints.len());
    assert_eq!(m.indices.len() % 3, 0);
    for (w, j) in m.weights.iter().zip(m.joints.iter()) {
        let sum: f32 = w.iter().sum();
        assert!((sum - 1.0).abs() < 1e-5, "weights sum to {sum}");
        assert!(w.iter().all(|&x| (0.0..=1.0).contains(&x)));
        assert!(j.iter().all(|&b| (b as usize) < ch.skeleton.len()));
    }
    for n in &m.normals {
        assert!((n.length() - 1.0).abs() < 1e-3);
    }
    // Every bone that should deform skin has some.
    for name in [
        "pelvis",
        "spine",
        "chest",
        "neck",
        "head",
        "upperarm_twist_l",
        "forearm_twist_r",
        "hand_l",
        "foot_r",
        "clavicle_l",
    ] {
        let b = ch.skeleton.find(name).unwrap() as u16;
        let any = m
            .joints
            .iter()
            .zip(m.weights.iter())
            .any(|(j, w)| (0..4).any(|k| j[k] == b && w[k] > 0.2));
        assert!(any, "{name} influences no vertex");
    }
}

#[test]
fn mesh_is_a_closed_outward_facing_person_sized_surface() {
    let ch = Character::builtin();
    let m = &ch.mesh;
    let (lo, hi) = m
        .positions
        .iter()
        .fold((Vec3::splat(9.0), Vec3::splat(-9.0)), |(l, h), p| {
            (l.min(*p), h.max(*p))
        });
    assert!((hi.y - 1.80).abs() < 0.03, "height {}", hi.y);
    assert!(lo.y > -0.01 && lo.y < 0.02, "soles at {}", lo.y);
    // Every edge is shared by exactly two triangles (watertight), and faces point outwards.
    let mut edges = std::collections::HashMap::new();
    let mut outward = 0;
    for tri in m.indices.chunks_exact(3) {
        for k in 0..3 {
            let (a, b) = (tri[k], tri[(k + 1) % 3]);
            *edges.entry((a.min(b), a.max(b))).or_insert(0) += 1;
        }
        let p: Vec<Vec3> = tri.iter().map(|&i| m.positions[i as usize]).collect();
        let n: Vec3 = tri.iter().map(|&i| m.normals[i as usize]).sum();
        if (p[1] - p[0]).cross(p[2] - p[0]).dot(n) > 0.0 {
            outward += 1;
        }
    }
    let mut hist = std::collections::BTreeMap::new();
    for c in edges.values() {
        *hist.entry(*c).or_insert(0) += 1;
    }
    // Closed: every edge is used an even number of times. Surface nets may pinch a handful
    // of edges (four faces) where two sheets of skin nearly touch.
    assert!(
        edges.values().all(|&c| c % 2 == 0),
        "mesh is not closed: {hist:?}"
    );
    assert!(
        hist.get(&4).copied().unwrap_or(0) < 20,
        "too many pinched edges: {hist:?}"
    );
    assert_eq!(outward, m.indices.len() / 3);
    // Points that must be inside the body, and some that must not.
    for p in [
        Vec3::new(0.0, 1.3, 0.0),
        Vec3::new(0.0, 1.7, 0.0),
        Vec3::new(0.095, 0.7, 0.0),
        Vec3::new(-0.095, 0.3, 0.0),
    ] {
        assert!(inside(&m.positions, &m.indices, p), "{p} should be inside");
    }
    for p in [
        Vec3::new(0.0, 0.5, 0.0),
        Vec3::new(0.0, 1.3, 0.3),
        Vec3::new(0.3, 1.2, 0.0),
    ] {
        assert!(
            !inside(&m.positions, &m.indices, p),
            "{p} should be outside"
        );
    }
}

#[test]
fn rest_pose_skinning_reproduces_the_bind_pose() {
    let ch = Character::builtin();
    let pose = ch.skeleton.rest_pose();
    let (mut model, mut sk, mut pos, mut nrm) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    pose.compute_model(&ch.skeleton, &mut model);
    ch.skin_matrices(&model, &mut sk);
    for m in &sk {
        assert!(m.abs_diff_eq(Mat4::IDENTITY, 1e-5));
    }
    skin(&ch.mesh, &sk, &mut pos, &mut nrm);
    for (a, b) in pos.iter().zip(ch.mesh.positions.iter()) {
        assert!((*a - *b).length() < 1e-5);
    }
}

#[test]
fn ellipsoids_sit_inside_the_body_and_are_not_too_stretched() {
    let ch = Character::builtin();
    let m = &ch.mesh;
    let (mut model, mut sk, mut pos, mut nrm) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let pose = ch.skeleton.rest_pose();
    pose.compute_model(&ch.skeleton, &mut model);
    assert_eq!(ch.ellipsoids.len(), 15);
    for e in &ch.ellipsoids {
        let p = e.posed(&model);
        assert!(
            inside(&m.positions, &m.indices, p.centre),
            "{} centre outside the body",
            e.name
        );
        let ratio = e.radii.max_element() / e.radii.min_element();
        assert!(ratio < 2.5, "{} elongation {ratio}", e.name);
        // The tips of the principal axes lie near the skin (within 3 cm) or inside the body
        // (where the trunk continues), never far out in the air.
        for axis in [
            Vec3::X,
            Vec3::NEG_X,
            Vec3::Y,
            Vec3::NEG_Y,
            Vec3::Z,
            Vec3::NEG_Z,
        ] {
            let tip = p.from_unit_sphere(axis);
            let d = m
                .positions
                .iter()
                .map(|v| (*v - tip).length())
                .fold(f32::MAX, f32::min);
            let ok = d < 0.03 || inside(&m.positions, &m.indices, tip);
            assert!(ok, "{}: axis tip {axis} is {d} m outside the skin", e.name);
        }
    }
    let chest = ch.ellipsoid("chest").unwrap();
    assert_eq!(chest.bone, ch.skeleton.find("chest").unwrap());
    // The ellipsoids follow their bones: raise the arms and the upper-arm ellipsoid stays on
    // the skinned arm.
    let clip = ch.clip("arms_raise").unwrap();
    let mut pose = ch.skeleton.rest_pose();
    clip.sample(1.5, &mut pose);
    pose.compute_model(&ch.skeleton, &mut model);
    ch.skin_matrices(&model, &mut sk);
    skin(&ch.mesh, &sk, &mut pos, &mut nrm);
    let arm = ch.ellipsoid("upperarm_l_lower").unwrap().posed(&model);
    assert!(arm.centre.y > 1.5, "arm raised: {}", arm.centre);
    assert!(inside(&pos, &m.indices, arm.centre));
}
