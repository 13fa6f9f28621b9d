//! Tearing and fold lines on small hand-built cloths: what an artist pulling the fabric apart
//! or creasing it would check (issue 18, item 2).

use cloth_tuner::sim::{
    Cloth, ConstraintKind, FabricParams, FoldAxis, FoldLine, Frame, StepInput, Topology,
};
use glam::Vec3;

const COLS: usize = 8;
const ROWS: usize = 6;
const SPACING: f32 = 0.05;

/// A sheet whose pinned top row is pulled apart: the left half goes left, the right half
/// right, `speed` m/s each, for `steps` steps. Returns the cloth and its torn count after each
/// step.
fn pulled_apart(tear_ratio: f32, steps: usize) -> (Cloth, Vec<usize>) {
    let topo = Topology::flat_grid(COLS, ROWS, SPACING, Vec3::new(-0.175, 1.2, 0.0));
    let rest = topo.rest.clone();
    let params = FabricParams {
        tear_ratio,
        max_distance_top: 1.0,
        max_distance_hem: 1.0,
        iterations: 8,
        ..FabricParams::default()
    };
    let mut cloth = Cloth::new(topo, &params);
    let mut reference = rest.clone();
    let mut torn = Vec::new();
    for step in 1..=steps {
        let spread = 0.6 * step as f32 / 60.0;
        for c in 0..COLS {
            let side = if c < COLS / 2 { -1.0 } else { 1.0 };
            reference[c] = rest[c] + Vec3::X * side * spread;
        }
        cloth
            .step(&StepInput {
                frame: Frame::IDENTITY,
                reference: &reference,
                colliders: &[],
                leg_lines: None,
            })
            .unwrap();
        torn.push(cloth.torn_count());
    }
    (cloth, torn)
}

/// `steps` fixed steps with the top row held at `reference`, nothing in the way.
fn hang(cloth: &mut Cloth, reference: &[Vec3], steps: usize) {
    for _ in 0..steps {
        cloth
            .step(&StepInput {
                frame: Frame::IDENTITY,
                reference,
                colliders: &[],
                leg_lines: None,
            })
            .unwrap();
    }
}

/// How many pieces the free (unpinned) particles form, joined by live stretch links.
fn pieces(cloth: &Cloth) -> usize {
    let topo = cloth.topology();
    let mut root: Vec<usize> = (0..topo.len()).collect();
    fn find(root: &mut [usize], mut i: usize) -> usize {
        while root[i] != i {
            root[i] = root[root[i]];
            i = root[i];
        }
        i
    }
    for (l, &torn) in topo.links.iter().zip(cloth.torn_links()) {
        let (a, b) = (l.a as usize, l.b as usize);
        if l.kind.is_stretch() && !torn && !topo.pinned[a] && !topo.pinned[b] {
            let (ra, rb) = (find(&mut root, a), find(&mut root, b));
            root[ra] = rb;
        }
    }
    let free: Vec<usize> = (0..topo.len()).filter(|&i| !topo.pinned[i]).collect();
    let mut roots: Vec<usize> = free.iter().map(|&i| find(&mut root, i)).collect();
    roots.sort_unstable();
    roots.dedup();
    roots.len()
}

#[test]
fn a_cloth_pulled_past_the_tear_ratio_tears_and_opens() {
    let (torn, counts) = pulled_apart(1.5, 60);
    let (whole, _) = pulled_apart(0.0, 60);
    assert!(torn.torn_count() > 0, "nothing tore");
    let topo = torn.topology();
    let torn_stretch = (topo.links.iter().zip(torn.torn_links()))
        .filter(|(l, &t)| t && l.kind == ConstraintKind::StretchHorizontal)
        .count();
    assert!(
        torn_stretch >= ROWS - 1,
        "the cloth did not open from top to hem"
    );
    // It opened through: the free particles fall into pieces no live stretch link joins,
    // and the ends of some torn link are now well apart.
    assert!(pieces(&torn) >= 2, "torn, but still one piece");
    assert_eq!(pieces(&whole), 1);
    let p = torn.positions();
    let apart = (topo.links.iter().zip(torn.torn_links()))
        .filter(|(l, &t)| t && l.kind.is_stretch())
        .map(|(l, _)| p[l.a as usize].distance(p[l.b as usize]) / l.rest)
        .fold(0.0f32, f32::max);
    assert!(
        apart > 3.0,
        "the torn ends are at most {apart} x rest apart"
    );
    // Torn links are counted once and stay torn while the pull goes on.
    assert!(counts.windows(2).all(|w| w[0] <= w[1]));
    assert_eq!(
        torn.torn_links().iter().filter(|&&t| t).count(),
        torn.torn_count()
    );
}

#[test]
fn the_same_run_tears_the_same_links_in_the_same_steps() {
    let (a, counts_a) = pulled_apart(1.5, 60);
    let (b, counts_b) = pulled_apart(1.5, 60);
    assert_eq!(counts_a, counts_b);
    assert_eq!(a.torn_links(), b.torn_links());
    let bits = |c: &Cloth| {
        c.positions()
            .iter()
            .map(|p| p.to_array().map(f32::to_bits))
            .collect::<Vec<_>>()
    };
    assert_eq!(bits(&a), bits(&b));
}

#[test]
fn reset_mends_every_link() {
    let (mut cloth, _) = pulled_apart(1.5, 60);
    assert!(cloth.torn_count() > 0);
    let rest = cloth.topology().rest.clone();
    cloth.reset_to(&rest).unwrap();
    assert_eq!(cloth.torn_count(), 0);
    assert!(cloth.torn_links().iter().all(|&t| !t));
    // Mended means solved again: hanging at rest it keeps its width, like a new cloth.
    let mut fresh = Cloth::new(cloth.topology().clone(), cloth.params());
    for c in [&mut cloth, &mut fresh] {
        hang(c, &rest, 30);
    }
    assert_eq!(cloth.torn_count(), 0);
    assert_eq!(cloth.positions(), fresh.positions());
}

#[test]
fn a_tears_lips_become_edges_until_reset() {
    let (mut cloth, _) = pulled_apart(1.5, 60);
    let topo = cloth.topology().clone();
    let fresh = Cloth::new(topo.clone(), cloth.params());
    let lips: Vec<usize> = (topo.links.iter().zip(cloth.torn_links()))
        .filter(|(l, &t)| t && l.kind.is_stretch())
        .flat_map(|(l, _)| [l.a as usize, l.b as usize])
        .filter(|&i| !topo.pinned[i])
        .collect();
    assert!(
        lips.iter().any(|&i| !topo.edge[i]),
        "no tear opened inside the cloth"
    );
    for &i in &lips {
        assert!(cloth.edges()[i], "particle {i} on a tear is not an edge");
        if topo.edge[i] {
            continue;
        }
        // An edge's max distance: the curve times the edge scale (1.3 by default).
        let grown = fresh.max_distances()[i] * cloth.params().edge_max_distance_scale;
        assert!(
            (cloth.max_distances()[i] - grown).abs() < 1e-5,
            "particle {i}: max distance {} m, an edge's is {grown} m",
            cloth.max_distances()[i]
        );
    }
    assert!(
        (0..topo.len()).all(|i| cloth.edges()[i] == (topo.edge[i] || lips.contains(&i))),
        "only the topology's edges and the tear's lips are edges"
    );
    let rest = topo.rest.clone();
    cloth.reset_to(&rest).unwrap();
    assert_eq!(
        cloth.edges(),
        &topo.edge[..],
        "reset closes the tear's edges"
    );
    assert_eq!(cloth.max_distances(), fresh.max_distances());
}

#[test]
fn tear_ratio_0_never_tears_and_an_unreached_ratio_changes_nothing() {
    let (off, counts) = pulled_apart(0.0, 60);
    assert!(counts.iter().all(|&c| c == 0));
    assert!(off.torn_links().iter().all(|&t| !t));
    // Pulled more gently, a ratio the links never reach gives the very same bits as off.
    let gentle = |ratio: f32| {
        let topo = Topology::flat_grid(COLS, ROWS, SPACING, Vec3::ZERO);
        let rest = topo.rest.clone();
        let params = FabricParams {
            tear_ratio: ratio,
            wind_speed: 8.0,
            ..FabricParams::default()
        };
        let mut cloth = Cloth::new(topo, &params);
        hang(&mut cloth, &rest, 90);
        cloth
    };
    let (a, b) = (gentle(0.0), gentle(5.0));
    assert_eq!(b.torn_count(), 0);
    assert_eq!(a.positions(), b.positions());
}

/// A strip hanging in the XY plane, folded by 90 degrees about row 4 (the rows below it turned
/// toward +Z) and let go with no gravity, optionally creased along row 4. Returns its link
/// count and the fold's angle (degrees) after a second: how far the bend links unfolded it.
fn folded_strip(crease: bool) -> (usize, f32) {
    let (cols, rows, spacing, hinge) = (4, 9, 0.05, 4);
    let topo = Topology::flat_grid(cols, rows, spacing, Vec3::ZERO);
    let rest = topo.rest.clone();
    let lines = [FoldLine {
        axis: FoldAxis::Row,
        index: hinge,
    }];
    let topo = topo
        .with_fold_lines(if crease { &lines[..] } else { &[] })
        .unwrap();
    let links = topo.links.len();
    let params = FabricParams {
        gravity: 0.0,
        hard_constraints: false,
        iterations: 8,
        shear_bend_stiffness: 0.3,
        max_distance_top: 1.0,
        max_distance_hem: 1.0,
        ..FabricParams::default()
    };
    let mut cloth = Cloth::new(topo, &params);
    let y = -(hinge as f32) * spacing;
    let folded: Vec<Vec3> = rest
        .iter()
        .map(|p| {
            if p.y < y {
                Vec3::new(p.x, y, y - p.y)
            } else {
                *p
            }
        })
        .collect();
    cloth.set_positions(&folded, &folded).unwrap();
    hang(&mut cloth, &rest, 60);
    let p = cloth.positions();
    let angle = (0..cols)
        .map(|c| {
            let at = |r: usize| p[r * cols + c];
            (at(hinge) - at(hinge - 1))
                .angle_between(at(hinge + 1) - at(hinge))
                .to_degrees()
        })
        .sum::<f32>()
        / cols as f32;
    (links, angle)
}

#[test]
fn a_fold_line_removes_the_bend_links_across_it_and_the_cloth_folds_there() {
    let (all, unfolded) = folded_strip(false);
    let (fewer, kept) = folded_strip(true);
    // One bend link per column crosses row 4: four columns.
    assert_eq!(all - fewer, 4);
    // Without the crease the bend links straighten the fold; along a fold line it stays.
    assert!(
        kept > 75.0 && kept > unfolded + 20.0,
        "after a second the fold is {kept} degrees along the fold line, {unfolded} without it"
    );
}

mod preset_file {
    use cloth_tuner::preset::{Preset, PresetError};
    use cloth_tuner::sim::{FoldAxis, FoldLine};
    use std::path::Path;

    fn with_fold_lines(lines: &str) -> String {
        format!(
            r#"{{ "format": "cloth-tuner-preset", "version": 2, "name": "Creased",
                 "fold_lines": {lines}, "params": {{ "tear_ratio": 2.5 }} }}"#
        )
    }

    fn load(text: &str) -> Result<Preset, PresetError> {
        Preset::from_json(text, Path::new("creased.json"))
    }

    #[test]
    fn fold_lines_and_tear_ratio_survive_a_round_trip() {
        let p = load(&with_fold_lines(
            r#"[{ "axis": "row", "index": 4 }, { "axis": "column", "index": 15 }]"#,
        ))
        .unwrap();
        assert_eq!(
            p.fold_lines,
            vec![
                FoldLine {
                    axis: FoldAxis::Row,
                    index: 4
                },
                FoldLine {
                    axis: FoldAxis::Column,
                    index: 15
                }
            ]
        );
        assert_eq!(p.params.tear_ratio, 2.5);
        let again = load(&p.to_json()).unwrap();
        assert_eq!(again, p);
        assert!(p.to_json().contains("\"fold_lines\""));
    }

    #[test]
    fn a_preset_without_fold_lines_loads_with_none_and_saves_without_the_field() {
        for name in ["tweed", "down_jacket", "veil"] {
            let path = format!("presets/{name}.json");
            let p = Preset::load(&path).unwrap();
            assert!(p.fold_lines.is_empty());
            assert_eq!(p.params.tear_ratio, 0.0, "{name} tears");
            assert_eq!(p.to_json(), std::fs::read_to_string(&path).unwrap());
        }
    }

    #[test]
    fn bad_fold_lines_are_clear_errors_naming_the_file_the_field_and_the_range() {
        let out_of_range =
            load(&with_fold_lines(r#"[{ "axis": "row", "index": 9 }]"#)).unwrap_err();
        assert_eq!(out_of_range.field(), Some("fold_lines[0].index"));
        let text = out_of_range.to_string();
        assert!(text.starts_with("creased.json:"), "{text}");
        assert!(text.contains("1 to 8"), "{text}");
        let zero = load(&with_fold_lines(r#"[{ "axis": "column", "index": 0 }]"#)).unwrap_err();
        assert!(zero.to_string().contains("1 to 15"), "{zero}");
        for (lines, field) in [
            (
                r#"[{ "axis": "diagonal", "index": 3 }]"#,
                "fold_lines[0].axis",
            ),
            (r#"[{ "axis": "row", "index": -2 }]"#, "fold_lines[0].index"),
            (
                r#"[{ "axis": "row", "index": 2.5 }]"#,
                "fold_lines[0].index",
            ),
            (r#"[{ "axis": "row" }]"#, "fold_lines[0]"),
            (r#"{ "axis": "row", "index": 3 }"#, "fold_lines"),
        ] {
            let e = load(&with_fold_lines(lines)).unwrap_err();
            assert_eq!(e.field(), Some(field), "{lines}: {e}");
            assert!(e.to_string().starts_with("creased.json:"), "{e}");
        }
        // NaN is not JSON: a syntax error naming the file and where.
        let nan = load(&with_fold_lines(r#"[{ "axis": "row", "index": NaN }]"#)).unwrap_err();
        assert!(matches!(nan, PresetError::Syntax { .. }), "{nan}");
        assert!(nan.to_string().starts_with("creased.json:"), "{nan}");
    }

    #[test]
    fn tear_ratio_out_of_range_names_the_knob_and_the_range() {
        let text = r#"{ "format": "cloth-tuner-preset", "version": 2, "name": "Rip",
                        "params": { "tear_ratio": 9 } }"#;
        let e = load(text).unwrap_err();
        assert_eq!(e.field(), Some("params.tear_ratio"));
        assert!(e.to_string().contains("0 (off) or 1.1 to 5 x rest"), "{e}");
        // Between off and 1.1 every link at rest length would tear at once.
        let e = load(&text.replace("9", "0.5")).unwrap_err();
        assert_eq!(e.field(), Some("params.tear_ratio"));
        assert!(e.to_string().contains("0.5 is out of range"), "{e}");
    }
}
