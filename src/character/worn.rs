//! A garment in a glTF file of its own: its skinned mesh, its joints matched to the character's
//! bones by name, and its bind pose placed on the character's.
//!
//! The file's joints are matched to the character's bones with the role matcher's tolerance
//! (case, separators and a `prefix:` or `prefix|` dropped). The similarity (scale, rotation,
//! offset) that best lays the matched joints at rest on the character's (Horn's closed form,
//! least squares) carries the garment into character space, whatever the file's units, up axis
//! or armature; a matched joint left more than [`BIND_TOLERANCE_M`] from its bone is an error
//! that names it, as is a weighted joint the character does not have.

use std::path::Path;

use glam::{Mat3, Quat, Vec3};

use super::import::{
    inverse_binds, is_named, read_node, read_nodes, rest_world, skinned_nodes, Skinning,
};
use super::load::guarded;
use super::mesh::WornMesh;
use super::roles::words;
use super::source::Source;
use super::{Character, RigError};

/// How far a garment file's joint may lie from the character's bone of the same name once the
/// garment is placed, metres.
pub const BIND_TOLERANCE_M: f32 = 0.01;

impl Character {
    /// The garment in the file at `path`: its skinned mesh called `mesh` (the file's only one
    /// when `None`), placed on this character at its bind pose.
    pub fn read_garment(&self, path: &Path, mesh: Option<&str>) -> Result<WornMesh, RigError> {
        let src = Source::open(path)?;
        let name = path.display().to_string();
        guarded(&name, || read(&src, mesh, self))
    }
}

/// The matching key of a joint or bone name: its words, lowercase, after any `prefix:` or
/// `prefix|`.
fn key(name: &str) -> String {
    let tail = name.rsplit([':', '|']).next().unwrap_or(name);
    words(tail).join("_")
}

fn read(src: &Source, mesh: Option<&str>, character: &Character) -> Result<WornMesh, RigError> {
    let skin = src
        .doc
        .skins()
        .next()
        .ok_or_else(|| src.err("no skin: the garment's mesh is bound to no skeleton"))?;
    let nodes = read_nodes(src, &skin)?;
    let world = rest_world(&nodes);
    let ibm = inverse_binds(src, &skin, skin.joints().count())?;
    let skinning = Skinning::new(&skin, &nodes, &world, &ibm);
    let node = pick_mesh(src, &skin, mesh)?;
    let joint_names: Vec<String> = skin
        .joints()
        .map(|n| n.name().unwrap_or("").to_string())
        .collect();
    let to_bone = match_joints(character, &joint_names);
    let joint_world: Vec<Vec3> = skin
        .joints()
        .map(|n| world[n.index()].w_axis.truncate())
        .collect();
    let placement = place_on(src, character, &joint_names, &to_bone, &joint_world)?;
    let name = node
        .name()
        .or_else(|| node.mesh().and_then(|m| m.name()))
        .unwrap_or("garment")
        .to_string();
    let bone = |j: usize| {
        to_bone[j].map(|b| b as u16).ok_or_else(|| {
            format!(
                "the garment's joint `{}` is not in the character's skeleton",
                joint_names[j]
            )
        })
    };
    let to_character = |p, n| (placement.point(p), placement.rotation * n);
    read_node(src, &node, &skinning, &name, to_character, bone)
}

/// The skinned mesh node called `name`, or the file's only one.
fn pick_mesh<'a>(
    src: &'a Source,
    skin: &'a gltf::Skin,
    name: Option<&str>,
) -> Result<gltf::Node<'a>, RigError> {
    let mut all = skinned_nodes(src, skin);
    match name {
        Some(name) => all.find(|n| is_named(n, name)).ok_or_else(|| {
            src.err(format!(
                "no skinned mesh called `{name}` in the garment's file"
            ))
        }),
        None => {
            let first = all.next().ok_or_else(|| src.err("no skinned mesh"))?;
            if all.next().is_some() {
                return Err(src.err(
                    "the file has several skinned meshes: say which is the garment (--garment-mesh)",
                ));
            }
            Ok(first)
        }
    }
}

/// Per joint of the garment's skin, the character's bone of the same name ([`key`]).
fn match_joints(character: &Character, joints: &[String]) -> Vec<Option<usize>> {
    let bones: Vec<String> = character.bone_names().map(key).collect();
    joints
        .iter()
        .map(|j| {
            let k = key(j);
            (!k.is_empty())
                .then(|| bones.iter().position(|b| *b == k))
                .flatten()
        })
        .collect()
}

/// A similarity: `point(p) = scale * rotation * p + offset`.
struct Similarity {
    scale: f32,
    rotation: Quat,
    offset: Vec3,
}

impl Similarity {
    fn point(&self, p: Vec3) -> Vec3 {
        self.rotation * p * self.scale + self.offset
    }
}

/// The similarity laying the matched joints (`joint_world`, the file's rest pose) on the
/// character's bones at rest, checked to [`BIND_TOLERANCE_M`].
fn place_on(
    src: &Source,
    character: &Character,
    names: &[String],
    to_bone: &[Option<usize>],
    joint_world: &[Vec3],
) -> Result<Similarity, RigError> {
    let sk = &character.skeleton;
    let mut model = Vec::new();
    sk.rest_pose().compute_model(sk, &mut model);
    let pairs: Vec<(usize, Vec3, Vec3)> = to_bone
        .iter()
        .enumerate()
        .filter_map(|(j, b)| b.map(|b| (j, joint_world[j], model[b].w_axis.truncate())))
        .collect();
    if pairs.len() < 3 {
        return Err(src.err(format!(
            "only {} of the garment's joints have a bone of the same name in the character: \
             at least 3 are needed to place it",
            pairs.len()
        )));
    }
    let fit = horn(&pairs.iter().map(|p| (p.1, p.2)).collect::<Vec<_>>());
    let off: Vec<String> = pairs
        .iter()
        .filter_map(|&(j, a, b)| {
            let d = fit.point(a).distance(b);
            (d > BIND_TOLERANCE_M).then(|| format!("`{}` {:.1} cm", names[j], d * 100.0))
        })
        .collect();
    if !off.is_empty() {
        return Err(src.err(format!(
            "the garment's bind pose disagrees with the character's by more than {} cm at: {}",
            BIND_TOLERANCE_M * 100.0,
            off.join(", ")
        )));
    }
    Ok(fit)
}

/// The similarity taking the first points of `pairs` onto the second in least squares
/// (Horn 1987: the rotation is the quaternion of the largest eigenvalue of a 4 x 4 matrix of
/// the centred cross-covariance; the scale the ratio of the spreads).
fn horn(pairs: &[(Vec3, Vec3)]) -> Similarity {
    let n = pairs.len() as f32;
    let ca = pairs.iter().map(|p| p.0).sum::<Vec3>() / n;
    let cb = pairs.iter().map(|p| p.1).sum::<Vec3>() / n;
    let mut m = Mat3::ZERO;
    let (mut sa, mut sb) = (0.0, 0.0);
    for &(a, b) in pairs {
        let (a, b) = (a - ca, b - cb);
        m += Mat3::from_cols(a * b.x, a * b.y, a * b.z);
        sa += a.length_squared();
        sb += b.length_squared();
    }
    // m.col(j)[i] = sum a_i b_j
    let s = |i: usize, j: usize| m.col(j)[i];
    let k = [
        [
            s(0, 0) + s(1, 1) + s(2, 2),
            s(1, 2) - s(2, 1),
            s(2, 0) - s(0, 2),
            s(0, 1) - s(1, 0),
        ],
        [
            s(1, 2) - s(2, 1),
            s(0, 0) - s(1, 1) - s(2, 2),
            s(0, 1) + s(1, 0),
            s(2, 0) + s(0, 2),
        ],
        [
            s(2, 0) - s(0, 2),
            s(0, 1) + s(1, 0),
            -s(0, 0) + s(1, 1) - s(2, 2),
            s(1, 2) + s(2, 1),
        ],
        [
            s(0, 1) - s(1, 0),
            s(2, 0) + s(0, 2),
            s(1, 2) + s(2, 1),
            -s(0, 0) - s(1, 1) + s(2, 2),
        ],
    ];
    let q = largest_eigenvector(k);
    let rotation = Quat::from_xyzw(q[1], q[2], q[3], q[0]).normalize();
    let scale = if sa > 0.0 { (sb / sa).sqrt() } else { 1.0 };
    Similarity {
        scale,
        rotation,
        offset: cb - rotation * ca * scale,
    }
}

/// The eigenvector of the symmetric 4 x 4 matrix `k` with the largest eigenvalue, by power
/// iteration on `k` shifted by its Gershgorin bound (so every eigenvalue is positive and the
/// largest dominates).
fn largest_eigenvector(k: [[f32; 4]; 4]) -> [f32; 4] {
    let shift = k
        .iter()
        .map(|row| row.iter().map(|x| x.abs()).sum::<f32>())
        .fold(0.0, f32::max);
    let mut v = [1.0f32, 0.1, 0.01, 0.001];
    for _ in 0..200 {
        let mut w = [0.0f32; 4];
        for (i, wi) in w.iter_mut().enumerate() {
            *wi = (0..4).map(|j| k[i][j] * v[j]).sum::<f32>() + shift * v[i];
        }
        let len = w.iter().map(|x| x * x).sum::<f32>().sqrt();
        if len <= 0.0 || !len.is_finite() {
            break;
        }
        v = w.map(|x| x / len);
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn horn_recovers_a_similarity() {
        let rotation =
            Quat::from_rotation_x(std::f32::consts::FRAC_PI_2) * Quat::from_rotation_y(0.4);
        let truth = Similarity {
            scale: 0.01,
            rotation,
            offset: Vec3::new(0.2, -0.1, 0.3),
        };
        let pts = [
            Vec3::new(0.0, 100.0, 0.0),
            Vec3::new(20.0, 140.0, -3.0),
            Vec3::new(-20.0, 140.0, -3.0),
            Vec3::new(9.0, 50.0, 2.0),
            Vec3::new(-9.0, 50.0, 4.0),
        ];
        let pairs: Vec<(Vec3, Vec3)> = pts.iter().map(|&p| (p, truth.point(p))).collect();
        let fit = horn(&pairs);
        for (a, b) in pairs {
            assert!(fit.point(a).distance(b) < 1e-4, "{} vs {b}", fit.point(a));
        }
        assert!((fit.scale - 0.01).abs() < 1e-6);
    }

    #[test]
    fn joint_names_match_across_prefixes_case_and_separators() {
        assert_eq!(key("mixamorig:LeftUpLeg"), key("left_up_leg"));
        assert_eq!(key("Armature|spine_01"), key("Spine01"));
        assert_ne!(key("thigh_l"), key("thigh_r"));
    }

    #[test]
    fn a_matrix_column_holds_one_point_times_one_coordinate() {
        let m = Mat3::from_cols(Vec3::new(1.0, 2.0, 3.0), Vec3::ZERO, Vec3::ZERO);
        assert_eq!(m.col(0)[1], 2.0);
    }
}
