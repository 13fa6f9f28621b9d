//! The garments' shape (closed or open where they should be, enclosing the body they cover),
//! their exporter-like data (split seams, transferred weights) and the two files they go into.

use std::sync::OnceLock;

use glam::{Mat4, Quat, Vec3};
use serde_json::Value;

use super::*;
use crate::test_rig::{bone_names, test_rig_glb, test_rig_gltf, Naming};

/// The built-in body and each garment made around it, made once for all the tests.
struct Fixture {
    bones: Vec<BoneDef>,
    body: BodyMesh,
    garments: Vec<(GarmentKind, GarmentMesh)>,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let bones = body::bones();
        let body = body::body_mesh(&bones);
        let garments = GarmentKind::ALL
            .iter()
            .map(|&k| (k, garment_mesh(k, &bones, &body)))
            .collect();
        Fixture {
            bones,
            body,
            garments,
        }
    })
}

fn garment(kind: GarmentKind) -> &'static GarmentMesh {
    let f = fixture();
    &f.garments.iter().find(|(k, _)| *k == kind).unwrap().1
}

/// Angle round the body's axis from the front (+Z) towards the left (+X), degrees in
/// (-180, 180].
fn angle(p: Vec3) -> f32 {
    p.x.atan2(p.z - AXIS_Z).to_degrees()
}

/// The vertices welded by position: for each vertex, the index of the first vertex at the
/// same place.
fn welded(g: &GarmentMesh) -> Vec<u32> {
    let mut first: std::collections::BTreeMap<[u32; 3], u32> = Default::default();
    g.positions
        .iter()
        .enumerate()
        .map(|(i, p)| {
            *first
                .entry(p.to_array().map(f32::to_bits))
                .or_insert(i as u32)
        })
        .collect()
}

/// Edges (welded) used by exactly one triangle.
fn boundary_edges(g: &GarmentMesh) -> Vec<(u32, u32)> {
    let weld = welded(g);
    let mut count: std::collections::BTreeMap<(u32, u32), usize> = Default::default();
    for t in g.indices.chunks_exact(3) {
        for k in 0..3 {
            let (a, b) = (weld[t[k] as usize], weld[t[(k + 1) % 3] as usize]);
            *count.entry((a.min(b), a.max(b))).or_default() += 1;
        }
    }
    count
        .into_iter()
        .filter(|&(_, n)| n == 1)
        .map(|(e, _)| e)
        .collect()
}

/// The widest angular gap, degrees, between the vertices at the hem (within 5 mm of the
/// lowest), and the angle at its middle.
fn hem_gap(g: &GarmentMesh) -> (f32, f32) {
    let low = g.positions.iter().map(|p| p.y).fold(f32::MAX, f32::min);
    let mut angles: Vec<f32> = g
        .positions
        .iter()
        .filter(|p| p.y < low + 0.005)
        .map(|&p| angle(p))
        .collect();
    angles.sort_by(f32::total_cmp);
    let mut widest = (angles[0] + 360.0 - angles[angles.len() - 1], 180.0);
    for w in angles.windows(2) {
        if w[1] - w[0] > widest.0 {
            widest = (w[1] - w[0], 0.5 * (w[0] + w[1]));
        }
    }
    let mid = angles[0] + 360.0 - 0.5 * widest.0;
    if widest.1 == 180.0 {
        widest.1 = if mid > 180.0 { mid - 360.0 } else { mid };
    }
    widest
}

#[test]
fn the_skirt_is_a_closed_loop_from_the_waist_to_above_the_knees() {
    let f = fixture();
    let g = garment(GarmentKind::Skirt);
    let (gap, _) = hem_gap(g);
    assert!(gap < 10.0, "the skirt's hem has a gap of {gap}°");
    // Its only edges are the waistband and the hem: no open seam down its side.
    let (low, high) = g
        .positions
        .iter()
        .fold((f32::MAX, f32::MIN), |(l, h), p| (l.min(p.y), h.max(p.y)));
    for (a, b) in boundary_edges(g) {
        for v in [a, b] {
            let y = g.positions[v as usize].y;
            assert!(
                y < low + 1e-4 || y > high - 1e-4,
                "an open edge at height {y} between the waist and the hem"
            );
        }
    }
    assert!(
        (high - f.bones[b::SPINE].pos.y).abs() < 1e-4,
        "waist at {high}"
    );
    let knee = f.bones[b::calf(0)].pos.y;
    assert!(
        low > knee && low < knee + 0.12,
        "hem at {low}, knee at {knee}"
    );
}

#[test]
fn the_coat_and_the_jacket_are_open_at_the_front() {
    for kind in [GarmentKind::LongCoat, GarmentKind::ShortJacket] {
        let g = garment(kind);
        let (gap, middle) = hem_gap(g);
        assert!((30.0..=40.0).contains(&gap), "{kind:?}: front gap {gap}°");
        assert!(
            middle.abs() < 1.0,
            "{kind:?}: the gap is centred at {middle}°"
        );
        // Nothing of the garment crosses the opening at any height.
        let inside = g
            .positions
            .iter()
            .filter(|&&p| angle(p).abs() < 0.5 * gap - 0.5)
            .count();
        assert_eq!(inside, 0, "{kind:?}: vertices in the front opening");
        // The front edges are open edges from the collar to the hem.
        let edge_heights: Vec<f32> = boundary_edges(g)
            .iter()
            .map(|&(a, _)| g.positions[a as usize])
            .filter(|p| (angle(*p).abs() - 0.5 * gap).abs() < 0.5)
            .map(|p| p.y)
            .collect();
        let span = edge_heights.iter().fold(f32::MIN, |a, &b| a.max(b))
            - edge_heights.iter().fold(f32::MAX, |a, &b| a.min(b));
        let height = g.positions.iter().fold(f32::MIN, |a, p| a.max(p.y))
            - g.positions.iter().fold(f32::MAX, |a, p| a.min(p.y));
        assert!(
            span > height - 0.05,
            "{kind:?}: front edges span {span} of {height}"
        );
    }
}

#[test]
fn the_coat_reaches_mid_shin_and_hangs_straight_below_the_hips() {
    let f = fixture();
    let g = garment(GarmentKind::LongCoat);
    let low = g.positions.iter().map(|p| p.y).fold(f32::MAX, f32::min);
    let (knee, ankle) = (f.bones[b::calf(0)].pos.y, f.bones[b::foot(0)].pos.y);
    assert!(low > ankle + 0.1 && low < knee - 0.1, "hem at {low}");
    // At the back, below the hips, each row is at least as far from the axis as the one
    // above.
    let hips = f.bones[b::thigh(0)].pos.y;
    let mut back: Vec<Vec3> = g
        .positions
        .iter()
        .copied()
        .filter(|&p| p.x.abs() < 1e-4 && p.z < AXIS_Z && p.y < hips)
        .collect();
    back.sort_by(|a, b| b.y.total_cmp(&a.y));
    assert!(back.len() > 10);
    for w in back.windows(2) {
        assert!(w[1].z <= w[0].z + 1e-6, "narrower below {}", w[0].y);
    }
}

/// Arm bones of one side (the sleeve's).
fn arm_weight(f: &Fixture, v: usize, side: usize) -> f32 {
    let bones = [
        b::upperarm(side),
        b::upperarm_twist(side),
        b::forearm(side),
        b::forearm_twist(side),
        b::hand(side),
    ];
    (0..4)
        .filter(|&k| bones.contains(&(f.body.joints[v][k] as usize)))
        .map(|k| f.body.weights[v][k])
        .sum()
}

/// The farthest distance along the ray at which it crosses one of the triangles `tris`.
fn farthest_hit(g: &GarmentMesh, tris: &[u32], origin: Vec3, dir: Vec3) -> Option<f32> {
    let mut best: Option<f32> = None;
    for &t in tris {
        let [a, b, c] = [0, 1, 2].map(|k| g.positions[g.indices[3 * t as usize + k] as usize]);
        let (e1, e2) = (b - a, c - a);
        let p = dir.cross(e2);
        let det = e1.dot(p);
        if det.abs() < 1e-12 {
            continue;
        }
        let s = origin - a;
        let u = s.dot(p) / det;
        let q = s.cross(e1);
        let v = dir.dot(q) / det;
        if u < 0.0 || v < 0.0 || u + v > 1.0 {
            continue;
        }
        let d = e2.dot(q) / det;
        if d > 0.0 && best.is_none_or(|x| d > x) {
            best = Some(d);
        }
    }
    best
}

/// Triangles binned by their extent along `axis` from `origin`, in 1 cm bins from `lo`.
fn bins(g: &GarmentMesh, origin: Vec3, axis: Vec3, lo: f32, count: usize) -> Vec<Vec<u32>> {
    let mut out = vec![Vec::new(); count];
    for (t, tri) in g.indices.chunks_exact(3).enumerate() {
        let keys = [0, 1, 2].map(|k| (g.positions[tri[k] as usize] - origin).dot(axis));
        let bin = |k: f32| (((k - lo) / 0.01).floor().max(0.0) as usize).min(count - 1);
        let (k0, k1) = (
            keys.iter().copied().fold(f32::MAX, f32::min),
            keys.iter().copied().fold(f32::MIN, f32::max),
        );
        for slot in &mut out[bin(k0)..=bin(k1)] {
            slot.push(t as u32);
        }
    }
    out
}

/// Clearance every covered body vertex must have inside the garment, metres.
const CLEARANCE: f32 = 0.01;

/// The body vertices the garment should cover but does not (seen from outside along the
/// ray from the body's axis, for the trunk and legs, or the arm's, for the arms, no part of
/// the garment lies at least [`CLEARANCE`] beyond them), and how many it should cover: those
/// within its height band and outside its front opening, and along the arms up to the
/// sleeves' ends.
fn uncovered(kind: GarmentKind, g: &GarmentMesh) -> (Vec<Vec3>, usize) {
    let f = fixture();
    let (low, high) = g
        .positions
        .iter()
        .fold((f32::MAX, f32::MIN), |(l, h), p| (l.min(p.y), h.max(p.y)));
    let half_gap = if kind == GarmentKind::Skirt {
        0.0
    } else {
        0.5 * hem_gap(g).0
    };
    let by_height = bins(g, Vec3::ZERO, Vec3::Y, 0.0, 200);
    // Per side: the sleeve's end (the farthest garment vertex along the arm near its axis),
    // and the triangles binned along the arm.
    let sleeves: Vec<(Vec3, Vec3, f32, Vec<Vec<u32>>)> = (0..2)
        .map(|side| {
            let shoulder = f.bones[b::upperarm(side)].pos;
            let axis = body::arm_dir(side);
            let reach = g
                .positions
                .iter()
                .map(|q| *q - shoulder)
                .filter(|d| (*d - axis * d.dot(axis)).length() < 0.12)
                .map(|d| d.dot(axis))
                .fold(f32::MIN, f32::max);
            (shoulder, axis, reach, bins(g, shoulder, axis, -0.5, 150))
        })
        .collect();
    let mut missed = Vec::new();
    let mut checked = 0;
    for (v, &p) in f.body.positions.iter().enumerate() {
        let (origin, tris) = match (0..2).find(|&s| arm_weight(f, v, s) >= 0.5) {
            None => {
                if p.y < low + 0.01 || p.y > high - 0.01 || angle(p).abs() < half_gap + 3.0 {
                    continue;
                }
                let bin = &by_height[((p.y / 0.01) as usize).min(199)];
                (Vec3::new(0.0, p.y, AXIS_Z), bin)
            }
            Some(side) => {
                let (shoulder, axis, reach, by_arm) = &sleeves[side];
                let t = (p - *shoulder).dot(*axis);
                if kind == GarmentKind::Skirt || t < SLEEVE_CLAMP + 0.03 || t > reach - 0.01 {
                    continue;
                }
                let bin = &by_arm[(((t + 0.5) / 0.01) as usize).min(149)];
                (*shoulder + *axis * t, bin)
            }
        };
        checked += 1;
        let r = (p - origin).length();
        let dir = (p - origin) / r;
        if farthest_hit(g, tris, origin, dir).is_none_or(|hit| hit < r + CLEARANCE) {
            missed.push(p);
        }
    }
    (missed, checked)
}

#[test]
fn each_garment_encloses_the_body_where_it_covers_it() {
    for (kind, g) in &fixture().garments {
        let (missed, checked) = uncovered(*kind, g);
        assert!(
            checked > 1500,
            "{kind:?}: only {checked} body vertices checked"
        );
        assert!(
            missed.is_empty(),
            "{kind:?}: {} body vertices show through, e.g. {:?}",
            missed.len(),
            &missed[..missed.len().min(5)]
        );
    }
}

#[test]
fn a_garment_pulled_inside_the_body_fails_the_enclosure_check() {
    let g = garment(GarmentKind::ShortJacket);
    let mut shrunk = g.clone();
    for (p, n) in shrunk.positions.iter_mut().zip(&g.normals) {
        *p -= *n * 0.04;
    }
    assert!(uncovered(GarmentKind::ShortJacket, &shrunk).0.len() > 100);
}

#[test]
fn weights_sum_to_one_and_name_real_joints() {
    let f = fixture();
    for (kind, g) in &f.garments {
        assert_eq!(g.joints.len(), g.positions.len());
        assert_eq!(g.weights.len(), g.positions.len());
        for (j, w) in g.joints.iter().zip(&g.weights) {
            let sum: f32 = w.iter().sum();
            assert!(
                (sum - 1.0).abs() <= 1e-6,
                "{kind:?}: weights {w:?} sum to {sum}"
            );
            for k in 0..4 {
                assert!(
                    w[k] >= 0.0 && (j[k] as usize) < f.bones.len(),
                    "{kind:?}: {j:?} {w:?}"
                );
                let repeated = (0..k).any(|m| j[m] == j[k] && w[m] > 0.0 && w[k] > 0.0);
                assert!(!repeated, "{kind:?}: a joint twice in {j:?} {w:?}");
            }
        }
    }
    // Transferred from the nearest skin: the coat's hem follows the shins, the jacket's cuffs
    // the forearms.
    let main = |g: &GarmentMesh, v: usize| g.joints[v][0] as usize;
    let coat = garment(GarmentKind::LongCoat);
    let low = coat.positions.iter().map(|p| p.y).fold(f32::MAX, f32::min);
    for (v, p) in coat.positions.iter().enumerate() {
        // (Off the back seam, where the two sides' shins are equally near.)
        if p.y < low + 1e-4 && p.x.abs() > 0.03 {
            let side = if p.x > 0.0 { 0 } else { 1 };
            assert_eq!(main(coat, v), b::calf(side), "coat hem at {p}");
        }
    }
    let jacket = garment(GarmentKind::ShortJacket);
    let cuffs = jacket
        .positions
        .iter()
        .enumerate()
        .filter(|(_, p)| p.x.abs() > 0.5);
    for (v, p) in cuffs {
        let side = if p.x > 0.0 { 0 } else { 1 };
        let forearm = [b::forearm(side), b::forearm_twist(side), b::hand(side)];
        assert!(
            forearm.contains(&main(jacket, v)),
            "cuff at {p}: {:?}",
            jacket.joints[v]
        );
    }
}

/// Pairs of vertices at the same place with different UVs (a seam's two sides).
fn split_pairs(g: &GarmentMesh) -> Vec<(usize, usize)> {
    let weld = welded(g);
    (0..g.positions.len())
        .filter(|&v| weld[v] as usize != v)
        .map(|v| (weld[v] as usize, v))
        .filter(|&(a, v)| g.uvs[a] != g.uvs[v])
        .collect()
}

#[test]
fn the_seams_split_vertices_as_exporters_write_them() {
    for (kind, g) in &fixture().garments {
        let pairs = split_pairs(g);
        // Every welded vertex is a seam's: no two vertices share a place and a UV.
        let welds = welded(g)
            .iter()
            .enumerate()
            .filter(|(v, w)| **w as usize != *v)
            .count();
        assert_eq!(
            pairs.len(),
            welds,
            "{kind:?}: duplicated vertices that are no seam"
        );
        let back: Vec<Vec3> = pairs
            .iter()
            .map(|&(a, _)| g.positions[a])
            .filter(|p| p.x.abs() < 1e-4 && p.z < AXIS_Z)
            .collect();
        let span = back.iter().fold(f32::MIN, |a, p| a.max(p.y))
            - back.iter().fold(f32::MAX, |a, p| a.min(p.y));
        let height = g.positions.iter().fold(f32::MIN, |a, p| a.max(p.y))
            - g.positions.iter().fold(f32::MAX, |a, p| a.min(p.y));
        assert!(
            back.len() > 20 && span > height - 0.1,
            "{kind:?}: back seam {} vertices over {span} m",
            back.len()
        );
        // The sleeves' seams run under the arms, on both sides.
        if *kind != GarmentKind::Skirt {
            for s in [1.0, -1.0] {
                let under_arm = pairs
                    .iter()
                    .filter(|&&(a, _)| g.positions[a].x * s > 0.1)
                    .count();
                assert!(
                    under_arm > 20,
                    "{kind:?}: {under_arm} split vertices along the sleeve at {s}"
                );
            }
        }
    }
}

#[test]
fn the_winding_is_consistent_and_the_normals_point_out() {
    let f = fixture();
    for (kind, g) in &f.garments {
        let weld = welded(g);
        let mut directed = std::collections::BTreeSet::new();
        for t in g.indices.chunks_exact(3) {
            let [a, b, c] = [0, 1, 2].map(|k| t[k] as usize);
            for k in 0..3 {
                let edge = (weld[t[k] as usize], weld[t[(k + 1) % 3] as usize]);
                assert!(
                    directed.insert(edge),
                    "{kind:?}: edge {edge:?} wound the same way twice"
                );
            }
            let face = (g.positions[b] - g.positions[a]).cross(g.positions[c] - g.positions[a]);
            let n = g.normals[a] + g.normals[b] + g.normals[c];
            assert!(
                face.dot(n) > 0.0,
                "{kind:?}: a triangle at {} faces against its normals",
                g.positions[a]
            );
        }
        for (p, n) in g.positions.iter().zip(&g.normals) {
            assert!((n.length() - 1.0).abs() < 1e-4, "{kind:?}: normal {n}");
            // Below the arms' reach, the body part faces away from the axis.
            if p.y < 0.95 || p.x.abs() < 0.1 {
                let radial = Vec3::new(p.x, 0.0, p.z - AXIS_Z);
                assert!(n.dot(radial) > 0.0, "{kind:?}: normal {n} at {p} faces in");
            }
        }
        // Along the forearms, the sleeves face away from the arm's axis.
        for side in 0..2 {
            let shoulder = f.bones[b::upperarm(side)].pos;
            let axis = body::arm_dir(side);
            for (p, n) in g.positions.iter().zip(&g.normals) {
                let d = *p - shoulder;
                let radial = d - axis * d.dot(axis);
                if d.dot(axis) > body::UPPERARM_LEN && radial.length() < 0.1 {
                    assert!(
                        n.dot(radial) > 0.0,
                        "{kind:?}: sleeve normal {n} at {p} faces in"
                    );
                }
            }
        }
    }
}

/// A rig written the way another tool writes one: Mixamo names, centimetres, Z-up data under
/// an armature that turns it back, finger bones, a coarse body.
fn exported_style(garments: Vec<GarmentKind>) -> RigStyle {
    let quarter = std::f32::consts::FRAC_PI_2;
    RigStyle {
        naming: Naming::Mixamo,
        units_per_metre: 100.0,
        rotation: Quat::from_rotation_x(quarter),
        armature: Some((Quat::from_rotation_x(-quarter), Vec3::splat(0.01))),
        clips: Vec::new(),
        cell: 0.03,
        fingers: 2,
        garments,
        ..RigStyle::default()
    }
}

/// The expected garment as a file of `style` holds it: made around that style's body, then
/// transformed as its body is.
fn styled_garment(kind: GarmentKind, style: &RigStyle) -> GarmentMesh {
    let bones = body::bones();
    let skin = body::body_mesh_at(&bones, style.cell);
    let mut g = garment_mesh(kind, &bones, &skin);
    let f = style.scale * style.units_per_metre;
    g.transform(style.rotation, |p| style.rotation * p * f);
    g
}

/// An accessor's data as little-endian 4-byte or 2-byte values.
fn accessor_bytes<'a>(doc: &Value, bin: &'a [u8], accessor: &Value) -> &'a [u8] {
    let a = &doc["accessors"][accessor.as_u64().unwrap() as usize];
    let view = &doc["bufferViews"][a["bufferView"].as_u64().unwrap() as usize];
    let start = view["byteOffset"].as_u64().unwrap() as usize;
    &bin[start..start + view["byteLength"].as_u64().unwrap() as usize]
}

fn floats(doc: &Value, bin: &[u8], accessor: &Value) -> Vec<f32> {
    accessor_bytes(doc, bin, accessor)
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn u16s(doc: &Value, bin: &[u8], accessor: &Value) -> Vec<u16> {
    accessor_bytes(doc, bin, accessor)
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect()
}

/// The mesh node called `name`, its mesh's only primitive.
fn mesh_node<'a>(doc: &'a Value, name: &str) -> (&'a Value, &'a Value) {
    let nodes = doc["nodes"].as_array().unwrap();
    let node = nodes
        .iter()
        .find(|n| n["name"] == name && n.get("mesh").is_some());
    let node = node.unwrap_or_else(|| panic!("no mesh node {name}"));
    let mesh = &doc["meshes"][node["mesh"].as_u64().unwrap() as usize];
    assert_eq!(mesh["name"], name);
    (node, &mesh["primitives"][0])
}

#[test]
fn garments_in_the_characters_file_are_bound_to_the_bodys_skin() {
    let style = exported_style(vec![GarmentKind::LongCoat, GarmentKind::Skirt]);
    let (doc, bin) = crate::split_glb(&test_rig_glb(&style)).unwrap();
    let scene = doc["scenes"][0]["nodes"].as_array().unwrap();
    let (body_node, _) = mesh_node(&doc, "body");
    assert_eq!(body_node["skin"], 0);
    for kind in [GarmentKind::LongCoat, GarmentKind::Skirt] {
        let (node, primitive) = mesh_node(&doc, kind.name());
        assert_eq!(node["skin"], 0, "{kind:?} bound to the body's skin");
        let index = doc["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .position(|n| n == node);
        assert!(
            scene.contains(&Value::from(index.unwrap())),
            "{kind:?} in the scene"
        );
        let expected = styled_garment(kind, &style);
        let attributes = &primitive["attributes"];
        let pos = floats(&doc, &bin, &attributes["POSITION"]);
        let want: Vec<f32> = expected
            .positions
            .iter()
            .flat_map(|p| p.to_array())
            .collect();
        assert_eq!(
            pos, want,
            "{kind:?}: positions in the file's units and axes"
        );
        // The body's skin lists the bones in order: the joints are the bone indices.
        let joints = u16s(&doc, &bin, &attributes["JOINTS_0"]);
        let want: Vec<u16> = expected.joints.iter().flatten().copied().collect();
        assert_eq!(joints, want, "{kind:?}: joints");
        let uv = floats(&doc, &bin, &attributes["TEXCOORD_0"]);
        assert_eq!(uv.len(), 2 * expected.positions.len());
        let material = &doc["materials"][primitive["material"].as_u64().unwrap() as usize];
        assert_eq!(material["name"], "fabric");
    }
    assert_eq!(doc["buffers"][0]["byteLength"], bin.len());
    // The .gltf form holds the same document with its buffer outside.
    let (json, external) = test_rig_gltf(&style, "rig.bin");
    let gltf: Value = serde_json::from_slice(&json).unwrap();
    assert_eq!(gltf["meshes"], doc["meshes"]);
    assert_eq!(external, bin);
}

#[test]
fn a_garment_file_round_trips_with_its_joints_in_another_order() {
    let style = exported_style(Vec::new());
    let kind = GarmentKind::ShortJacket;
    let (doc, bin) = crate::split_glb(&garment_file_glb(kind, &style)).unwrap();
    let meshes = doc["meshes"].as_array().unwrap();
    assert_eq!(meshes.len(), 1, "the garment alone, no body");
    let (node, primitive) = mesh_node(&doc, kind.name());
    assert_eq!(node["skin"], 0);
    let skin = &doc["skins"][0];
    let joints: Vec<usize> = skin["joints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j.as_u64().unwrap() as usize)
        .collect();
    let n = b::COUNT + 2 * style.fingers;
    assert_eq!(
        joints,
        (0..n).rev().collect::<Vec<_>>(),
        "joints listed last bone first"
    );
    let names = bone_names(Naming::Mixamo);
    for (i, name) in names.iter().enumerate() {
        assert_eq!(
            doc["nodes"][i]["name"],
            name.as_str(),
            "bone {i} named as the body's"
        );
    }
    // Each vertex's joints, through the reordered list, are the garment's bones.
    let expected = styled_garment(kind, &style);
    let slots = u16s(&doc, &bin, &primitive["attributes"]["JOINTS_0"]);
    let weights = floats(&doc, &bin, &primitive["attributes"]["WEIGHTS_0"]);
    for (v, (j, w)) in expected.joints.iter().zip(&expected.weights).enumerate() {
        for k in 0..4 {
            assert_eq!(weights[4 * v + k], w[k]);
            if w[k] > 0.0 {
                assert_eq!(
                    joints[slots[4 * v + k] as usize],
                    j[k] as usize,
                    "vertex {v}"
                );
            }
        }
    }
    let pos = floats(&doc, &bin, &primitive["attributes"]["POSITION"]);
    let want: Vec<f32> = expected
        .positions
        .iter()
        .flat_map(|p| p.to_array())
        .collect();
    assert_eq!(pos, want);
    // Each inverse bind matrix, in the skin's order, undoes its bone's place in the file.
    let ibm = floats(&doc, &bin, &skin["inverseBindMatrices"]);
    let f = style.units_per_metre;
    for (slot, &bone) in joints.iter().enumerate().filter(|(_, &b)| b < b::COUNT) {
        let at = style.rotation * body::bones()[bone].pos * f;
        let m = Mat4::from_cols_slice(&ibm[16 * slot..16 * slot + 16]);
        assert!(
            m.transform_point3(at).length() < 1e-3,
            "bone {bone} at slot {slot}"
        );
    }
    // Same transforms as the body's file: the armature above the root.
    let armature = doc["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["name"] == "Armature");
    assert_eq!(armature.unwrap()["children"], serde_json::json!([b::ROOT]));
}

#[test]
fn an_offset_moves_the_garment_files_bind_pose_and_not_the_garment() {
    let style = exported_style(Vec::new());
    let kind = GarmentKind::Skirt;
    let offset = Vec3::new(0.0, 0.02, 0.0);
    let (doc, bin) = crate::split_glb(&garment_file_glb(kind, &style)).unwrap();
    let (moved, moved_bin) =
        crate::split_glb(&garment_file_glb_with_offset(kind, &style, offset)).unwrap();
    let (_, primitive) = mesh_node(&doc, kind.name());
    let (_, moved_primitive) = mesh_node(&moved, kind.name());
    let pos = |d: &Value, b: &[u8], p: &Value| floats(d, b, &p["attributes"]["POSITION"]);
    assert_eq!(
        pos(&doc, &bin, primitive),
        pos(&moved, &moved_bin, moved_primitive)
    );
    let ibm = |d: &Value, b: &[u8]| floats(d, b, &d["skins"][0]["inverseBindMatrices"]);
    let (before, after) = (ibm(&doc, &bin), ibm(&moved, &moved_bin));
    let n = before.len() / 16;
    let shift = style.rotation * offset * style.units_per_metre;
    for slot in 0..n {
        let m0 = Mat4::from_cols_slice(&before[16 * slot..16 * slot + 16]);
        let m1 = Mat4::from_cols_slice(&after[16 * slot..16 * slot + 16]);
        let moved_by = m0.w_axis.truncate() - m1.w_axis.truncate();
        // The root (last in the skin's list) stays; every other joint moves by the offset.
        let want = if slot == n - 1 { Vec3::ZERO } else { shift };
        assert!(
            (moved_by - want).length() < 1e-3,
            "slot {slot} moved by {moved_by}"
        );
    }
}

#[test]
fn generating_twice_gives_identical_bytes() {
    let style = exported_style(vec![GarmentKind::ShortJacket]);
    assert!(test_rig_glb(&style) == test_rig_glb(&style));
    let kind = GarmentKind::LongCoat;
    assert!(garment_file_glb(kind, &style) == garment_file_glb(kind, &style));
    let f = fixture();
    assert!(garment_mesh(kind, &f.bones, &f.body) == *garment(kind));
}

#[test]
fn a_rig_without_garments_has_no_garment_in_its_file() {
    let style = exported_style(Vec::new());
    let (doc, _) = crate::split_glb(&test_rig_glb(&style)).unwrap();
    assert_eq!(doc["meshes"].as_array().unwrap().len(), 1);
    assert_eq!(doc["materials"].as_array().unwrap().len(), 1);
}
