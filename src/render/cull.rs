//! Which meshes may skip their back faces. Seen from outside, a closed solid whose triangles
//! all face outwards shows only front faces, so culling the back ones changes no pixel and
//! saves setting up half its triangles (on a software rasteriser, time). [`outward_indices`]
//! winds every triangle of such a mesh outwards (turning a triangle changes nothing drawn
//! without culling) or says the mesh is not made of closed solids.

use std::collections::HashMap;

use glam::Vec3;

/// `indices` with every triangle wound to face out of the solid it bounds, when the triangles
/// form closed solids that can each be wound consistently (vertices at the same place are one
/// corner, as a mesh split for its normals has them; solids may touch along an edge, as the
/// body's hips and thighs do). `None` for an open or degenerate mesh: keep drawing both sides.
pub fn outward_indices(positions: &[Vec3], indices: &[u32]) -> Option<Vec<u32>> {
    if indices.is_empty() || indices.len() % 3 != 0 {
        return None;
    }
    let mut corner = HashMap::new();
    let welded: Vec<u32> = (positions.iter())
        .map(|p| {
            let next = corner.len() as u32;
            *corner.entry(p.to_array().map(f32::to_bits)).or_insert(next)
        })
        .collect();
    let tris: Vec<[u32; 3]> = (indices.chunks_exact(3))
        .map(|t| [0, 1, 2].map(|k| welded.get(t[k] as usize).copied().unwrap_or(u32::MAX)))
        .collect();
    let bad = |t: &[u32; 3]| t.contains(&u32::MAX) || t[0] == t[1] || t[1] == t[2] || t[0] == t[2];
    if tris.iter().any(bad) {
        return None;
    }
    let edges = edge_uses(&tris);
    let (mut flip, patch) = patches(&tris, &edges)?;
    let count = patch.iter().max().map_or(0, |&p| p as usize + 1);
    // A patch must close on its own, so its volume does not depend on where it is measured
    // from: every edge it runs one way it also runs back.
    let mut balance: HashMap<(u32, (u32, u32)), i32> = HashMap::new();
    for &(edge, t, from_lower) in &edges {
        let way = if from_lower ^ flip[t as usize] { 1 } else { -1 };
        *balance.entry((patch[t as usize], edge)).or_insert(0) += way;
    }
    if balance.values().any(|&b| b != 0) {
        return None;
    }
    let mut volume = vec![0.0f64; count];
    for (t, tri) in indices.chunks_exact(3).enumerate() {
        let [a, b, c] = [0, 1, 2].map(|k| positions[tri[k] as usize].as_dvec3());
        let v = a.dot(b.cross(c)) / 6.0;
        volume[patch[t] as usize] += if flip[t] { -v } else { v };
    }
    if volume.iter().any(|v| !v.is_finite() || *v == 0.0) {
        return None;
    }
    for (t, f) in flip.iter_mut().enumerate() {
        *f ^= volume[patch[t] as usize] < 0.0;
    }
    let mut out = indices.to_vec();
    for (t, _) in flip.iter().enumerate().filter(|(_, &f)| f) {
        out.swap(3 * t + 1, 3 * t + 2);
    }
    Some(out)
}

/// Every (edge, triangle, whether the triangle runs the edge from its lower corner), sorted by
/// edge.
fn edge_uses(tris: &[[u32; 3]]) -> Vec<((u32, u32), u32, bool)> {
    let mut edges = Vec::with_capacity(tris.len() * 3);
    for (t, tri) in tris.iter().enumerate() {
        for k in 0..3 {
            let (a, b) = (tri[k], tri[(k + 1) % 3]);
            edges.push(((a.min(b), a.max(b)), t as u32, a < b));
        }
    }
    edges.sort_unstable_by_key(|e| e.0);
    edges
}

/// Per triangle, whether to turn it and which patch it is in: the triangles reached across
/// edges shared by exactly two of them, turned so that the two run the edge in opposite
/// directions. `None` when a patch cannot be wound consistently.
fn patches(tris: &[[u32; 3]], edges: &[((u32, u32), u32, bool)]) -> Option<(Vec<bool>, Vec<u32>)> {
    let mut next: Vec<Vec<(u32, bool)>> = vec![Vec::new(); tris.len()];
    for pair in edges.chunk_by(|x, y| x.0 == y.0) {
        // An edge of more than two triangles is where solids touch: not crossed.
        if let [(_, t, dt), (_, u, du)] = pair {
            // Turned relative to each other when they run the edge the same way.
            next[*t as usize].push((*u, dt == du));
            next[*u as usize].push((*t, dt == du));
        }
    }
    let mut flip: Vec<Option<bool>> = vec![None; tris.len()];
    let mut patch = vec![0u32; tris.len()];
    let (mut count, mut stack) = (0, Vec::new());
    for start in 0..tris.len() {
        if flip[start].is_some() {
            continue;
        }
        flip[start] = Some(false);
        stack.push(start);
        while let Some(t) = stack.pop() {
            patch[t] = count;
            let ft = flip[t]?;
            for &(u, turned) in &next[t] {
                let want = ft ^ turned;
                match flip[u as usize] {
                    None => {
                        flip[u as usize] = Some(want);
                        stack.push(u as usize);
                    }
                    Some(f) if f != want => return None,
                    Some(_) => {}
                }
            }
        }
        count += 1;
    }
    Some((flip.into_iter().collect::<Option<_>>()?, patch))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A unit cube's eight corners and its twelve triangles wound outwards.
    fn cube() -> (Vec<Vec3>, Vec<u32>) {
        let p = (0..8)
            .map(|i| Vec3::new((i & 1) as f32, ((i >> 1) & 1) as f32, ((i >> 2) & 1) as f32))
            .collect();
        #[rustfmt::skip]
        let i = vec![
            0, 2, 1, 1, 2, 3, // z = 0, facing -z
            4, 5, 6, 5, 7, 6, // z = 1
            0, 1, 4, 1, 5, 4, // y = 0
            2, 6, 3, 3, 6, 7, // y = 1
            0, 4, 2, 2, 4, 6, // x = 0
            1, 3, 5, 3, 7, 5, // x = 1
        ];
        (p, i)
    }

    fn volume(p: &[Vec3], i: &[u32]) -> f32 {
        i.chunks(3)
            .map(|t| p[t[0] as usize].dot(p[t[1] as usize].cross(p[t[2] as usize])) / 6.0)
            .sum()
    }

    #[test]
    fn a_closed_solid_keeps_its_outward_winding_and_a_turned_triangle_is_turned_back() {
        let (p, i) = cube();
        assert!((volume(&p, &i) - 1.0).abs() < 1e-6, "the cube faces out");
        assert_eq!(outward_indices(&p, &i), Some(i.clone()));
        let mut turned = i.clone();
        turned.swap(7, 8);
        assert_eq!(outward_indices(&p, &turned), Some(i.clone()));
        // Inside out: every triangle turned.
        let inside_out: Vec<u32> = i.chunks(3).flat_map(|t| [t[0], t[2], t[1]]).collect();
        assert_eq!(outward_indices(&p, &inside_out), Some(i));
    }

    #[test]
    fn open_or_split_meshes_are_not_culled_unless_their_corners_meet() {
        let (p, i) = cube();
        // A face missing: open.
        assert_eq!(outward_indices(&p, &i[6..]), None);
        // Every triangle with its own three vertices at the same places: still one solid.
        let split_p: Vec<Vec3> = i.iter().map(|&k| p[k as usize]).collect();
        let split_i: Vec<u32> = (0..i.len() as u32).collect();
        assert_eq!(outward_indices(&split_p, &split_i), Some(split_i.clone()));
        // Two cubes apart, one inside out: each faces out after.
        let mut two_p = p.clone();
        two_p.extend(p.iter().map(|v| *v + Vec3::X * 3.0));
        let mut two_i = i.clone();
        two_i.extend(i.chunks(3).flat_map(|t| [t[0] + 8, t[2] + 8, t[1] + 8]));
        let fixed = outward_indices(&two_p, &two_i).unwrap();
        assert!((volume(&two_p, &fixed[..36]) - 1.0).abs() < 1e-5);
        assert!(
            (volume(&two_p, &fixed[36..]) - 1.0).abs() < 1e-5,
            "{fixed:?}"
        );
        // Two cubes touching along an edge (four triangles on it), one inside out: each
        // closes on its own and faces out after.
        let mut touch_p = p.clone();
        touch_p.extend(p.iter().map(|v| *v + Vec3::new(1.0, 1.0, 0.0)));
        let at = |v: Vec3| touch_p.iter().position(|w| *w == v).unwrap() as u32;
        let mut touch_i = i.clone();
        touch_i.extend(i.chunks(3).flat_map(|t| {
            let moved = |k: u32| at(p[k as usize] + Vec3::new(1.0, 1.0, 0.0));
            [moved(t[0]), moved(t[2]), moved(t[1])]
        }));
        let fixed = outward_indices(&touch_p, &touch_i).expect("touching solids are closed");
        assert!((volume(&touch_p, &fixed[..36]) - 1.0).abs() < 1e-5);
        assert!((volume(&touch_p, &fixed[36..]) - 1.0).abs() < 1e-5);
        // A degenerate triangle or an index out of range: not culled.
        assert_eq!(outward_indices(&p, &[0, 0, 1]), None);
        assert_eq!(outward_indices(&p, &[0, 1, 99]), None);
    }
}
