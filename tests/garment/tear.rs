//! Tearing and fold lines on the built-in character's jacket: the drawn mesh opens where the
//! cloth tore, the stats count it, Reset mends it, and a preset's fold lines reach the cloth.

use std::sync::Arc;

use cloth_tuner::character::Character;
use cloth_tuner::garment::open_indices;
use cloth_tuner::preset::Preset;
use cloth_tuner::scene::Scene;
use cloth_tuner::sim::{ConstraintKind, FoldAxis, FoldLine};

fn tweed() -> Preset {
    Preset::load("presets/tweed.json").unwrap()
}

fn scene(preset: &Preset) -> Scene {
    Scene::new(Arc::new(Character::builtin()), preset, "idle").unwrap()
}

/// The triangles of `all` that are not in `open` (as sorted triples).
fn hidden(all: &[u32], open: &[u32]) -> Vec<[u32; 3]> {
    let kept: std::collections::HashSet<[u32; 3]> =
        open.chunks_exact(3).map(|t| [t[0], t[1], t[2]]).collect();
    all.chunks_exact(3)
        .map(|t| [t[0], t[1], t[2]])
        .filter(|t| !kept.contains(t))
        .collect()
}

#[test]
fn the_render_mesh_hides_the_triangles_across_a_torn_link_and_only_those() {
    let scene = scene(&tweed());
    let rig = scene.rig();
    let links = &scene.cloth().topology().links;
    let cols = rig.topology.cols;
    let all = &rig.render.indices;
    let mut out = Vec::new();
    // Nothing torn: the whole mesh.
    open_indices(rig, links, &vec![false; links.len()], &mut out);
    assert_eq!(&out, all);
    // Tear the horizontal link between columns 4 and 5 on row 5.
    let (c, r) = (4usize, 5usize);
    let a = (r * cols + c) as u32;
    let k = links
        .iter()
        .position(|l| l.kind == ConstraintKind::StretchHorizontal && l.a == a)
        .unwrap();
    let mut torn = vec![false; links.len()];
    torn[k] = true;
    open_indices(rig, links, &torn, &mut out);
    let gone = hidden(all, &out);
    assert!(!gone.is_empty(), "no triangle stopped drawing");
    assert_eq!(out.len() + gone.len() * 3, all.len());
    // Every hidden triangle lies on the lower jacket around the link's middle, within half a
    // cell across it.
    for t in &gone {
        for &v in t {
            let (u, w) = rig.shell_grid_coords(v).expect("a shell vertex");
            assert!((c as f32..=(c + 1) as f32).contains(&u), "column {u}");
            assert!((w - r as f32).abs() <= 0.5, "row {w}");
        }
    }
}

#[test]
fn a_jump_tears_a_weak_jacket_open_and_reset_mends_it() {
    let mut preset = tweed();
    // A loose weave: soft stretch links and no deformation limit, so a jump pulls some of
    // them past the ratio (the shipped tweed's links stay within 10 % of their length).
    preset.params.tear_ratio = 1.1;
    preset.params.stretch_stiffness = 0.3;
    preset.params.deformation_limit = false;
    let character = Arc::new(Character::builtin());
    let mut scene = Scene::new(character.clone(), &preset, "jump").unwrap();
    let full = scene.rig().render.indices.len();
    for _ in 0..120 {
        scene.step();
    }
    let torn = scene.cloth().torn_count();
    assert!(torn > 0, "a jump at tear ratio 1.1 tore nothing");
    let stats = scene.frame_stats();
    assert_eq!(stats.torn_links, torn);
    // The stretch read-outs measure the links that are still there: a torn link's ends part
    // freely, and counting them would read as a jacket stretched to shreds.
    let cloth = scene.cloth();
    let pos = cloth.positions();
    let max_of = |kind: ConstraintKind, torn: bool| {
        cloth
            .topology()
            .links
            .iter()
            .zip(cloth.torn_links())
            .filter(|(l, &dead)| l.kind == kind && dead == torn)
            .map(|(l, _)| (pos[l.a as usize].distance(pos[l.b as usize]) / l.rest - 1.0) * 100.0)
            .fold(f32::MIN, f32::max)
    };
    let mut beyond = false;
    for (kind, read) in [
        (ConstraintKind::StretchVertical, stats.vertical_stretch_pct),
        (
            ConstraintKind::StretchHorizontal,
            stats.horizontal_stretch_pct,
        ),
    ] {
        let live = max_of(kind, false).max(0.0);
        assert!(
            (read - live).abs() < 1e-3,
            "{kind:?} reads {read} %, the live links {live} %"
        );
        beyond |= max_of(kind, true) > read;
    }
    assert!(
        beyond,
        "no torn link is longer than the reading: the test shows nothing"
    );
    scene.skin_meshes();
    assert!(
        scene.jacket().indices.len() < full,
        "the drawn jacket did not open"
    );
    // Reset mends every link and the jacket draws whole again.
    scene.reset();
    assert_eq!(scene.cloth().torn_count(), 0);
    assert_eq!(scene.frame_stats().torn_links, 0);
    scene.skin_meshes();
    assert_eq!(scene.jacket().indices.len(), full);
    // The shipped tweed (tearing off) comes through the same jump whole.
    let mut whole = Scene::new(character, &tweed(), "jump").unwrap();
    for _ in 0..120 {
        whole.step();
    }
    assert_eq!(whole.cloth().torn_count(), 0);
}

#[test]
fn a_presets_fold_lines_take_the_bend_links_across_them_out_of_the_jacket() {
    let plain = scene(&tweed());
    let mut preset = tweed();
    preset.fold_lines = vec![
        FoldLine {
            axis: FoldAxis::Row,
            index: 4,
        },
        FoldLine {
            axis: FoldAxis::Column,
            index: 8,
        },
    ];
    let mut folded = scene(&preset);
    let topo = &plain.rig().topology;
    let before = plain.cloth().topology().links.len();
    assert_eq!(before, topo.links.len());
    assert_eq!(
        before - folded.cloth().topology().links.len(),
        topo.cols + topo.rows
    );
    assert_eq!(folded.fold_lines(), &preset.fold_lines[..]);
    // Editing them in the tuner rebuilds the cloth; a line off the grid changes nothing.
    folded.set_fold_lines(&[]).unwrap();
    assert_eq!(folded.cloth().topology().links.len(), before);
    let off = FoldLine {
        axis: FoldAxis::Row,
        index: topo.rows - 1,
    };
    let e = folded.set_fold_lines(&[off]).unwrap_err();
    assert!(e.to_string().contains("1 to 8"), "{e}");
    assert_eq!(folded.cloth().topology().links.len(), before);
}
