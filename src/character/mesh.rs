//! The skinned body mesh and linear-blend skinning on the CPU.

use glam::{Mat4, Vec3};

/// A triangle mesh bound to a skeleton. All vectors have one entry per vertex except
/// `indices` (three per triangle, counter-clockwise seen from outside). Positions and
/// normals are in character space at the bind (rest) pose.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SkinnedMesh {
    /// Bind-pose positions, metres.
    pub positions: Vec<Vec3>,
    /// Bind-pose unit normals.
    pub normals: Vec<Vec3>,
    /// Triangle list.
    pub indices: Vec<u32>,
    /// Up to four bone indices per vertex (unused slots have weight 0).
    pub joints: Vec<[u16; 4]>,
    /// Weights of those bones; they sum to 1.
    pub weights: Vec<[f32; 4]>,
}

/// The most vertices a garment ([`WornMesh`]) may have: a file holding more is refused before
/// its vertices are read.
pub const MAX_GARMENT_VERTICES: usize = 1_000_000;

/// A skinned mesh of the character's file that is not its body (a garment), in character space
/// at the bind pose, with its joints as the character's bones.
#[derive(Clone, Debug, Default)]
pub struct WornMesh {
    /// The mesh's name in the file (its node's, else the mesh's).
    pub name: String,
    pub mesh: SkinnedMesh,
    /// Per vertex, the first texture coordinates (0, 0 where the file has none).
    pub uvs: Vec<[f32; 2]>,
    /// Its primitives, texture coordinate sets and materials as the file had them.
    pub look: super::MeshLook,
}

impl SkinnedMesh {
    /// Number of vertices.
    pub fn vertex_count(&self) -> usize {
        self.positions.len()
    }
}

/// Linear-blend skinning: `out_pos[v] = Σ w·M[j]·p`, `out_nrm[v]` likewise with the blended
/// rotation, renormalised. `skin_matrices[j]` = model matrix of bone `j` × its inverse bind
/// matrix (see [`crate::character::Character::skin_matrices`]); results are in character space.
/// The outputs are resized to the vertex count (allocating only when too small). A joint
/// index with no matrix counts as the identity.
pub fn skin(
    mesh: &SkinnedMesh,
    skin_matrices: &[Mat4],
    out_pos: &mut Vec<Vec3>,
    out_nrm: &mut Vec<Vec3>,
) {
    use rayon::prelude::*;
    let n = mesh.positions.len();
    out_pos.resize(n, Vec3::ZERO);
    out_nrm.resize(n, Vec3::ZERO);
    let skin_run = |first: usize, pos: &mut [Vec3], nrm: &mut [Vec3]| {
        for (i, (p, n)) in pos.iter_mut().zip(nrm.iter_mut()).enumerate() {
            (*p, *n) = skin_vertex(mesh, skin_matrices, first + i);
        }
    };
    if n < PARALLEL_SKIN_VERTICES {
        skin_run(0, out_pos, out_nrm);
        return;
    }
    // Each vertex is independent, so splitting the work changes no result.
    out_pos
        .par_chunks_mut(SKIN_CHUNK)
        .zip(out_nrm.par_chunks_mut(SKIN_CHUNK))
        .enumerate()
        .for_each(|(chunk, (pos, nrm))| skin_run(chunk * SKIN_CHUNK, pos, nrm));
}

/// Vertices skinned together on one core: enough that handing them to another core costs far
/// less than skinning them.
const SKIN_CHUNK: usize = 4096;

/// Smallest mesh skinned on all cores: below it, waking the other cores costs about what
/// they save (the built-in body, 9,500 vertices, measured no faster).
const PARALLEL_SKIN_VERTICES: usize = 16_384;

/// One vertex of [`skin`]: its position and unit normal. The bone matrices are blended first
/// and the blend applied once (the same sum as blending the transformed points, in fewer
/// operations: a vertex most often has one or two bones).
#[inline]
fn skin_vertex(mesh: &SkinnedMesh, skin_matrices: &[Mat4], v: usize) -> (Vec3, Vec3) {
    let p = mesh.positions[v];
    let nrm = mesh.normals.get(v).copied().unwrap_or(Vec3::Y);
    let (joints, weights) = match (mesh.joints.get(v), mesh.weights.get(v)) {
        (Some(j), Some(w)) => (*j, *w),
        _ => return (p, nrm),
    };
    let mut blend = Mat4::ZERO;
    let mut total = 0.0;
    for k in 0..4 {
        let w = weights[k];
        if w == 0.0 {
            continue;
        }
        let m = skin_matrices
            .get(joints[k] as usize)
            .unwrap_or(&Mat4::IDENTITY);
        blend += *m * w;
        total += w;
    }
    if total == 0.0 {
        (p, nrm)
    } else {
        (
            blend.transform_point3(p),
            blend.transform_vector3(nrm).normalize_or_zero(),
        )
    }
}
