//! Behaviour of the whole step on small hand-built cloths, one technique per test.

use glam::{Quat, Vec3};

use super::*;

/// A sheet hanging in the XY plane, top row at y = 0, facing +Z.
pub(crate) fn sheet(cols: usize, rows: usize, spacing: f32) -> Topology {
    Topology::flat_grid(cols, rows, spacing, Vec3::ZERO)
}

/// The largest distance between consecutive points of `path`: how far a result jumped while
/// its input moved one step.
pub(crate) fn largest_step(path: &[Vec3]) -> f32 {
    path.windows(2)
        .map(|w| w[0].distance(w[1]))
        .fold(0.0, f32::max)
}

/// Knobs that leave only what a test switches on: no gravity, no damping, no wind, no world
/// motion, nothing clamped.
pub(crate) fn bare() -> FabricParams {
    FabricParams {
        iterations: 0,
        gravity: 0.0,
        damping: 0.0,
        contact_damping: 0.0,
        edge_damping: 0.0,
        stretch_stiffness: 0.0,
        shear_bend_stiffness: 0.0,
        hard_constraints: false,
        wind_speed: 0.0,
        world_motion_fraction: 0.0,
        edge_world_motion_fraction: 0.0,
        max_distance_top: 1.0,
        max_distance_hem: 1.0,
        edge_max_distance_scale: 1.0,
        edge_wind_scale: 1.0,
        collision_margin: 0.0,
        ..Default::default()
    }
}

pub(crate) fn input<'a>(reference: &'a [Vec3], colliders: &'a [Collider]) -> StepInput<'a> {
    StepInput {
        frame: Frame::IDENTITY,
        reference,
        colliders,
        leg_lines: None,
    }
}

/// Runs `steps` steps on a still character with the rest pose as reference.
pub(crate) fn run(cloth: &mut Cloth, steps: usize, colliders: &[Collider]) {
    let reference = cloth.topology().rest.clone();
    for _ in 0..steps {
        cloth.step(&input(&reference, colliders)).unwrap();
    }
}

fn mean_vertical_stretch(cloth: &Cloth) -> f32 {
    let t = cloth.topology();
    let p = cloth.positions();
    let v: Vec<f32> = t
        .links
        .iter()
        .filter(|l| l.kind == ConstraintKind::StretchVertical)
        .map(|l| p[l.a as usize].distance(p[l.b as usize]) / l.rest - 1.0)
        .collect();
    v.iter().sum::<f32>() / v.len() as f32
}

#[test]
fn verlet_applies_each_particles_damping_and_acceleration() {
    // 3 x 3: particle 4 is interior, 7 is on the hem (an edge).
    let mut cloth = Cloth::new(
        sheet(3, 3, 0.1),
        &FabricParams {
            damping: 0.25,
            edge_damping: 0.05,
            gravity: 12.0,
            timestep_hz: 50.0,
            ..bare()
        },
    );
    let rest = cloth.topology().rest.clone();
    let mut prev = rest.clone();
    let v = Vec3::new(0.0, 0.0, 0.02); // 2 cm per step toward +Z
    for p in prev.iter_mut().skip(3) {
        *p -= v;
    }
    cloth.set_positions(&rest, &prev).unwrap();
    run(&mut cloth, 1, &[]);
    let g = Vec3::new(0.0, -12.0 / 2500.0, 0.0); // g dt² at 50 Hz
    let interior = cloth.positions()[4] - rest[4];
    let edge = cloth.positions()[7] - rest[7];
    assert!((interior - (v * 0.75 + g)).length() < 1e-7, "{interior}");
    assert!((edge - (v * 0.95 + g)).length() < 1e-7, "{edge}");
    // Pinned particles sit on their reference.
    assert_eq!(cloth.positions()[0], rest[0]);
    assert!((cloth.time() - 0.02).abs() < 1e-9);
}

#[test]
fn stretch_and_shear_bend_have_their_own_stiffness() {
    // Fold a hanging sheet 90 degrees along row 3: every stretch and shear link keeps its
    // length (they lie on one side of the crease), only the bend links across it are
    // shortened. With no shear/bend stiffness the crease stays; with full stiffness it opens.
    let (cols, rows, crease) = (4, 7, 3);
    let fold = |shear_bend: f32| {
        let mut cloth = Cloth::new(
            sheet(cols, rows, 0.1),
            &FabricParams {
                iterations: 4,
                damping: 0.1,
                stretch_stiffness: 1.0,
                shear_bend_stiffness: shear_bend,
                ..bare()
            },
        );
        let rest = cloth.topology().rest.clone();
        let hinge_y = rest[crease * cols].y;
        let folded: Vec<Vec3> = rest
            .iter()
            .map(|p| {
                let below = hinge_y - p.y;
                if below > 0.0 {
                    Vec3::new(p.x, hinge_y, below)
                } else {
                    *p
                }
            })
            .collect();
        cloth.set_positions(&folded, &folded).unwrap();
        run(&mut cloth, 60, &[]);
        cloth.positions()[rows * cols - 2].z
    };
    let (soft, stiff) = (fold(0.0), fold(1.0));
    assert_eq!(soft, 0.3, "no bend stiffness: the crease stays");
    assert!(
        stiff < 0.2,
        "full bend stiffness opens the crease: hem at z = {stiff}"
    );

    // Stretch stiffness: a hanging sheet stretches more with soft stretch links.
    let sag = |stretch: f32| {
        let mut cloth = Cloth::new(
            sheet(4, 8, 0.1),
            &FabricParams {
                iterations: 4,
                gravity: 9.81,
                damping: 0.1,
                stretch_stiffness: stretch,
                shear_bend_stiffness: 0.2,
                ..bare()
            },
        );
        run(&mut cloth, 240, &[]);
        mean_vertical_stretch(&cloth)
    };
    assert!(sag(0.3) > sag(1.0) * 1.5, "{} vs {}", sag(0.3), sag(1.0));
}

/// A 6 x 12 sheet hung for 300 steps with one relaxation pass a step, each row `falloff` times
/// heavier than the one below it.
fn hung_one_pass(falloff: f32) -> Cloth {
    let mut cloth = Cloth::new(
        sheet(6, 12, 0.05),
        &FabricParams {
            iterations: 1,
            gravity: 9.81,
            damping: 0.05,
            stretch_stiffness: 1.0,
            shear_bend_stiffness: 0.3,
            mass_falloff: falloff,
            ..bare()
        },
    );
    run(&mut cloth, 300, &[]);
    cloth
}

#[test]
fn mass_falloff_makes_one_pass_stretch_less() {
    let stretch = |falloff: f32| {
        let cloth = hung_one_pass(falloff);
        mean_vertical_stretch(&cloth)
    };
    let (uniform, weighted) = (stretch(1.0), stretch(3.0));
    assert!(uniform > 0.002, "the test needs visible stretch: {uniform}");
    assert!(
        weighted < uniform * 0.6,
        "falloff 3: {weighted}, uniform: {uniform}"
    );
}

#[test]
fn the_articles_mass_ratio_holds_the_top_rows_at_rest_length_in_one_pass() {
    // The skirt of "Cloth Physics in K.I.S.A": a row 2000 times heavier than the row below it. With one pass a step,
    // equal masses leave the rows under the pin stretched; the article's ratio brings them to
    // their rest length (each link's correction goes almost wholly to its lower end, so the
    // top-down sweep settles row after row and the rows below barely pull back).
    let top_stretch = |falloff: f32| {
        let cloth = hung_one_pass(falloff);
        let (t, p) = (cloth.topology(), cloth.positions());
        t.links
            .iter()
            .filter(|l| l.kind == ConstraintKind::StretchVertical && t.row(l.b as usize) <= 3)
            .map(|l| p[l.a as usize].distance(p[l.b as usize]) / l.rest - 1.0)
            .fold(0f32, f32::max)
    };
    let (uniform, article) = (top_stretch(1.0), top_stretch(2000.0));
    println!("top three rows' largest stretch: uniform {uniform}, 2000 per row {article}");
    assert!(
        uniform > 0.01,
        "equal masses stretch the top rows: {uniform}"
    );
    assert!(
        article < 1e-3,
        "2000 per row: top rows at {article} over rest"
    );
}

#[test]
fn time_step_is_a_parameter() {
    let mut cloth = Cloth::new(
        sheet(2, 2, 0.1),
        &FabricParams {
            timestep_hz: 30.0,
            ..bare()
        },
    );
    run(&mut cloth, 3, &[]);
    assert!((cloth.time() - 0.1).abs() < 1e-9);
    // The accumulator turns 0.25 s into 7 steps at 30 Hz and keeps the remainder.
    let mut fs = FixedStep::new(cloth.params().timestep_hz, 16);
    assert_eq!(fs.advance(0.25), 7);
    assert_eq!(fs.advance(0.25 / 3.0 + 0.01), 3);
}

#[test]
fn edges_get_their_own_damping_wind_and_max_distance() {
    // 4 x 4 sheet facing +Z; wind straight at it.
    let params = FabricParams {
        wind_speed: 2.0,
        wind_drag: 1.0,
        gust_amplitude: 0.0,
        edge_wind_scale: 3.0,
        max_distance_top: 0.1,
        max_distance_hem: 0.4,
        max_distance_exponent: 1.0,
        edge_max_distance_scale: 1.5,
        ..bare()
    };
    let mut cloth = Cloth::new(sheet(4, 4, 0.1), &params);
    run(&mut cloth, 1, &[]);
    let rest = &cloth.topology().rest;
    // Flat sheet, face-on wind: interior accel 1 * 2 * 2 = 4 m/s², edges 12 m/s².
    let dt2 = 1.0 / 3600.0;
    let moved = |i: usize| cloth.positions()[i].z - rest[i].z;
    assert!((moved(5) - 4.0 * dt2).abs() < 1e-7, "{}", moved(5));
    assert!((moved(4) - 12.0 * dt2).abs() < 1e-7, "{}", moved(4));
    assert!((moved(13) - 12.0 * dt2).abs() < 1e-7, "{}", moved(13));
    // Max distance: row 1 of 4 is a third down: 0.1 + 0.3/3 = 0.2; edges 1.5 x.
    let md = cloth.max_distances();
    assert!((md[5] - 0.2).abs() < 1e-6);
    assert!((md[4] - 0.3).abs() < 1e-6);
    assert!((md[13] - 0.6).abs() < 1e-6);
    assert!((md[1] - 0.1).abs() < 1e-6);
}

/// The character walks a curve: moves along +Z and +X while turning 90 degrees over 2 s.
fn walking_frame(step: usize) -> Frame {
    let t = step as f32 / 60.0;
    Frame::new(
        Quat::from_rotation_y(t * std::f32::consts::FRAC_PI_4),
        Vec3::new(0.8 * t * t, 0.0, 1.5 * t),
    )
}

#[test]
fn world_motion_fraction_one_matches_a_world_space_simulation() {
    let params = FabricParams {
        iterations: 4,
        gravity: 9.81,
        damping: 0.02,
        edge_damping: 0.02,
        stretch_stiffness: 1.0,
        shear_bend_stiffness: 0.3,
        hard_constraints: true,
        wind_speed: 3.0,
        gust_amplitude: 0.0,
        world_motion_fraction: 1.0,
        edge_world_motion_fraction: 1.0,
        max_distance_top: 2.0,
        max_distance_hem: 2.0,
        ..bare()
    };
    let topo = sheet(5, 6, 0.08);
    let rest = topo.rest.clone();
    let mut local = Cloth::new(topo.clone(), &params);
    // The world-space reference: its own frame never moves; pins, gravity and wind are in the
    // world, and its particles start at the character's initial placement.
    let start: Vec<Vec3> = rest
        .iter()
        .map(|p| walking_frame(0).transform_point(*p))
        .collect();
    let mut world = Cloth::new(Topology::from_grid(5, 6, start.clone()).unwrap(), &params);
    let mut world_ref = start.clone();
    let mut worst = 0f32;
    for step in 0..120 {
        let frame = walking_frame(step);
        local
            .step(&StepInput {
                frame,
                reference: &rest,
                colliders: &[],
                leg_lines: None,
            })
            .unwrap();
        for (w, r) in world_ref.iter_mut().zip(&rest) {
            *w = frame.transform_point(*r);
        }
        world.step(&input(&world_ref, &[])).unwrap();
        for (l, w) in local.positions().iter().zip(world.positions()) {
            worst = worst.max(frame.transform_point(*l).distance(*w));
        }
    }
    assert!(
        worst < 1e-3,
        "local with fraction 1 departs from world space by {worst} m"
    );
    // And the motion mattered: the hem trails the pinned row, unlike the rest pose.
    let f = walking_frame(119);
    let hem_world = world.positions()[27];
    assert!(hem_world.distance(f.transform_point(rest[27])) > 0.02);
}

#[test]
fn world_motion_fraction_zero_ignores_the_characters_motion() {
    // No gravity or wind (those are world-space and legitimately turn with the character):
    // with fraction 0 a moving character's cloth is bit-identical to a still one's.
    let params = FabricParams {
        iterations: 4,
        stretch_stiffness: 1.0,
        shear_bend_stiffness: 0.3,
        world_motion_fraction: 0.0,
        edge_world_motion_fraction: 0.0,
        ..bare()
    };
    let topo = sheet(5, 6, 0.08);
    let rest = topo.rest.clone();
    // Some initial motion so there is something to compare.
    let prev: Vec<Vec3> = rest
        .iter()
        .enumerate()
        .map(|(i, p)| {
            if i >= 5 {
                *p - Vec3::new(0.01, 0.0, 0.02)
            } else {
                *p
            }
        })
        .collect();
    let mut moving = Cloth::new(topo.clone(), &params);
    let mut still = Cloth::new(topo, &params);
    moving.set_positions(&rest, &prev).unwrap();
    still.set_positions(&rest, &prev).unwrap();
    for step in 0..120 {
        moving
            .step(&StepInput {
                frame: walking_frame(step),
                reference: &rest,
                colliders: &[],
                leg_lines: None,
            })
            .unwrap();
        still.step(&input(&rest, &[])).unwrap();
    }
    assert_eq!(moving.positions(), still.positions());

    // The edge fraction acts on edges only: with edges at 1 and the rest at 0 the hem lags
    // the character's motion while an interior particle does not.
    let mut mixed = Cloth::new(
        sheet(5, 6, 0.08),
        &FabricParams {
            edge_world_motion_fraction: 1.0,
            ..params
        },
    );
    for step in 0..30 {
        mixed
            .step(&StepInput {
                frame: walking_frame(step),
                reference: &rest,
                colliders: &[],
                leg_lines: None,
            })
            .unwrap();
    }
    // (The interior is dragged along by its links to the edges, so it lags too, less.)
    let lag = |i: usize| mixed.positions()[i].distance(rest[i]);
    assert!(lag(27) > 0.3, "hem lag {}", lag(27));
    assert!(
        lag(27) > 2.0 * lag(12),
        "hem {} interior {}",
        lag(27),
        lag(12)
    );
}

#[test]
fn colliders_push_out_and_contact_damping_acts_next_step() {
    // A 3 x 3 sheet in the XZ plane hanging... lying flat: rows along -Z, at y = 0.05 above a
    // ground plane with a 2 cm margin. Gravity pulls it down onto the ground.
    let rest: Vec<Vec3> = (0..3)
        .flat_map(|r| (0..3).map(move |c| Vec3::new(c as f32 * 0.1, 0.005, -(r as f32) * 0.1)))
        .collect();
    let topo = Topology::from_grid(3, 3, rest.clone()).unwrap();
    let ground = [Collider::Plane {
        point: Vec3::ZERO,
        normal: Vec3::Y,
    }];
    let mut cloth = Cloth::new(
        topo,
        &FabricParams {
            gravity: 9.81,
            damping: 0.0,
            edge_damping: 0.0,
            contact_damping: 0.5,
            collision_margin: 0.02,
            ..bare()
        },
    );
    cloth.step(&input(&rest, &ground)).unwrap();
    // Every free particle was below the margin and now sits on it, touching.
    for i in 3..9 {
        assert!((cloth.positions()[i].y - 0.02).abs() < 1e-7);
        assert!(cloth.contacts()[i]);
    }
    // Slide particle 4 along +X at 1 cm/step: while touching it keeps half its velocity.
    let mut pos = cloth.positions().to_vec();
    let mut prev = pos.clone();
    prev[4].x -= 0.01;
    pos[4].y = 0.02;
    prev[4].y = 0.02;
    cloth.set_positions(&pos, &prev).unwrap();
    cloth.step(&input(&rest, &ground)).unwrap();
    assert!((cloth.positions()[4].x - (pos[4].x + 0.005)).abs() < 1e-7);

    // Ellipsoids, spheres and capsules all keep particles out.
    for c in [
        Collider::Ellipsoid {
            center: Vec3::new(0.1, -0.1, -0.1),
            rotation: Quat::from_rotation_y(0.3),
            radii: Vec3::new(0.3, 0.15, 0.2),
        },
        Collider::Sphere {
            center: Vec3::new(0.1, -0.1, -0.1),
            radius: 0.15,
        },
        Collider::Capsule {
            a: Vec3::new(-0.2, -0.1, -0.1),
            b: Vec3::new(0.4, -0.1, -0.1),
            radius: 0.12,
        },
    ] {
        let mut cloth = Cloth::new(
            Topology::from_grid(3, 3, rest.clone()).unwrap(),
            &FabricParams {
                gravity: 9.81,
                iterations: 4,
                stretch_stiffness: 1.0,
                ..bare()
            },
        );
        run(&mut cloth, 120, &[c]);
        for (i, p) in cloth.positions().iter().enumerate().skip(3) {
            assert!(c.penetration(*p, 0.0) < 1e-5, "{c:?}: particle {i} inside");
        }
        assert!(
            cloth.contacts().iter().any(|&t| t),
            "{c:?}: nothing touched"
        );
    }
}

#[test]
fn max_distance_follows_the_curve_and_holds_under_a_storm() {
    let params = FabricParams {
        iterations: 4,
        gravity: 9.81,
        stretch_stiffness: 1.0,
        wind_speed: 30.0,
        wind_drag: 3.0,
        max_distance_top: 0.02,
        max_distance_hem: 0.3,
        max_distance_exponent: 2.0,
        edge_max_distance_scale: 1.0,
        ..bare()
    };
    let mut cloth = Cloth::new(sheet(5, 5, 0.1), &params);
    // Row 2 of 5 is halfway: 0.02 + 0.28 * 0.25 = 0.09.
    assert!((cloth.max_distances()[12] - 0.09).abs() < 1e-6);
    assert!((cloth.max_distances()[22] - 0.3).abs() < 1e-6);
    let reference = cloth.topology().rest.clone();
    for _ in 0..300 {
        cloth.step(&input(&reference, &[])).unwrap();
        for ((p, r), md) in cloth
            .positions()
            .iter()
            .zip(&reference)
            .zip(cloth.max_distances())
        {
            assert!(p.distance(*r) <= md + 1e-5);
        }
    }
    // The storm did push: the hem is far out, held by its links and the rows above.
    assert!(cloth.positions()[22].distance(reference[22]) > 0.2);
}

#[test]
fn a_sheet_facing_the_wind_moves_and_one_edge_on_does_not() {
    let hem_motion = |direction: f32| {
        let mut cloth = Cloth::new(
            sheet(5, 5, 0.1),
            &FabricParams {
                iterations: 4,
                stretch_stiffness: 1.0,
                shear_bend_stiffness: 0.3,
                wind_speed: 5.0,
                wind_direction_deg: direction,
                wind_drag: 1.5,
                max_distance_top: 1.0,
                max_distance_hem: 1.0,
                ..bare()
            },
        );
        run(&mut cloth, 60, &[]);
        cloth.positions()[22].distance(cloth.topology().rest[22])
    };
    // The sheet lies in XY: wind toward +Z (0 degrees) hits it face-on, toward +X (90) edge-on.
    assert!(hem_motion(0.0) > 0.05, "face-on {}", hem_motion(0.0));
    // (f32's cos 90 degrees is not exactly 0: a few hundredths of a millimetre is "does not
    // move", against more than 5 cm face-on.)
    assert!(hem_motion(90.0) < 1e-4, "edge-on {}", hem_motion(90.0));
}

#[test]
fn deformation_limit_caps_stretch() {
    let max_ratio = |limit: bool| {
        let mut cloth = Cloth::new(
            sheet(5, 10, 0.05),
            &FabricParams {
                iterations: 1,
                gravity: 4.0 * 9.81,
                stretch_stiffness: 0.5,
                damping: 0.05,
                deformation_limit: limit,
                max_stretch_ratio: 1.05,
                ..bare()
            },
        );
        run(&mut cloth, 200, &[]);
        let p = cloth.positions();
        cloth
            .topology()
            .links
            .iter()
            .filter(|l| l.kind.is_stretch())
            .map(|l| p[l.a as usize].distance(p[l.b as usize]) / l.rest)
            .fold(0.0, f32::max)
    };
    let (free, limited) = (max_ratio(false), max_ratio(true));
    eprintln!("max stretch ratio: free {free}, limited {limited}");
    assert!(free > 1.15, "without the limit: {free}");
    assert!(limited < 1.055, "with the limit at 1.05: {limited}");
}

#[test]
fn gravity_pulls_and_its_absence_leaves_the_cloth_still() {
    let mut still = Cloth::new(sheet(4, 4, 0.1), &bare());
    run(&mut still, 100, &[]);
    assert_eq!(still.positions(), &still.topology().rest[..]);
    let mut falling = Cloth::new(
        sheet(4, 4, 0.1),
        &FabricParams {
            gravity: 9.81,
            ..bare()
        },
    );
    run(&mut falling, 1, &[]);
    let drop = falling.topology().rest[15].y - falling.positions()[15].y;
    assert!((drop - 9.81 / 3600.0).abs() < 1e-7, "{drop}");
}

#[test]
fn a_nan_state_resets_to_the_reference_and_is_counted() {
    let mut cloth = Cloth::new(
        sheet(4, 4, 0.1),
        &FabricParams {
            gravity: 9.81,
            iterations: 4,
            stretch_stiffness: 1.0,
            ..Default::default()
        },
    );
    let reference: Vec<Vec3> = cloth.topology().rest.iter().map(|p| *p + Vec3::Y).collect();
    cloth.positions_mut()[9] = Vec3::new(f32::NAN, 0.0, 0.0);
    let report = cloth.step(&input(&reference, &[])).unwrap();
    assert!(report.reset);
    assert_eq!(cloth.stats().resets, 1);
    assert_eq!(cloth.positions(), &reference[..]);
    // An exploded particle, far beyond 10 x its max distance, resets too.
    cloth.positions_mut()[14] = Vec3::new(0.0, 0.0, 50.0);
    assert!(cloth.step(&input(&reference, &[])).unwrap().reset);
    assert_eq!(cloth.stats().resets, 2);
    assert!(cloth.positions().iter().all(|p| p.is_finite()));
    // And it carries on normally.
    assert!(!cloth.step(&input(&reference, &[])).unwrap().reset);
}

#[test]
fn bad_step_input_is_refused_and_changes_nothing() {
    let mut cloth = Cloth::new(sheet(3, 3, 0.1), &FabricParams::default());
    let before = cloth.positions().to_vec();
    let rest = cloth.topology().rest.clone();
    assert!(matches!(
        cloth.step(&input(&rest[..4], &[])),
        Err(StepError::ReferenceCount {
            expected: 9,
            got: 4
        })
    ));
    let mut bad = rest.clone();
    bad[5].y = f32::INFINITY;
    assert_eq!(
        cloth.step(&input(&bad, &[])),
        Err(StepError::ReferenceNotFinite(5))
    );
    let nan_frame = StepInput {
        frame: Frame::new(Quat::IDENTITY, Vec3::splat(f32::NAN)),
        reference: &rest,
        colliders: &[],
        leg_lines: None,
    };
    assert_eq!(cloth.step(&nan_frame), Err(StepError::FrameNotFinite));
    let bad_collider = [Collider::Sphere {
        center: Vec3::ZERO,
        radius: -1.0,
    }];
    assert_eq!(
        cloth.step(&input(&rest, &bad_collider)),
        Err(StepError::BadCollider(0))
    );
    let axis = BodyAxis {
        up: Vec3::Y,
        forward: Vec3::Z,
        ..BodyAxis::default()
    };
    let knee = [Vec3::ZERO, Vec3::NEG_Y, Vec3::new(0.0, f32::NAN, 0.0)];
    let lines = LegLines::new([knee; 2], 0.1, axis, LegRows::default());
    let bad_lines = StepInput {
        leg_lines: Some(&lines),
        ..input(&rest, &[])
    };
    assert_eq!(cloth.step(&bad_lines), Err(StepError::BadLegLines));
    assert_eq!(cloth.positions(), &before[..]);
    assert_eq!(cloth.stats().steps, 0);
}

#[test]
fn a_teleport_is_a_cut_not_a_fling() {
    let mut cloth = Cloth::new(
        sheet(4, 5, 0.1),
        &FabricParams {
            world_motion_fraction: 1.0,
            edge_world_motion_fraction: 1.0,
            ..Default::default()
        },
    );
    let rest = cloth.topology().rest.clone();
    for step in 0..10 {
        let frame = if step < 5 {
            Frame::IDENTITY
        } else {
            Frame::new(Quat::IDENTITY, Vec3::new(100.0, 0.0, 0.0))
        };
        let report = cloth
            .step(&StepInput {
                frame,
                reference: &rest,
                colliders: &[],
                leg_lines: None,
            })
            .unwrap();
        assert!(!report.reset);
    }
    assert_eq!(cloth.stats().teleports, 1);
    for (p, r) in cloth.positions().iter().zip(&rest) {
        assert!(p.distance(*r) < 0.2);
    }
}

/// The inputs of step `k` of a moving, turning character at `hz`: its frame, the reference
/// points (the rest pose carried along with a sway) and an ellipsoid that swings through the
/// sheet.
pub(crate) fn moving_inputs(rest: &[Vec3], t: f32) -> (Frame, Vec<Vec3>, [Collider; 2]) {
    let frame = Frame::new(
        Quat::from_rotation_y(0.8 * t),
        Vec3::new(1.5 * t, 0.0, 0.3 * (3.0 * t).sin()),
    );
    let sway = Vec3::new(0.05 * (5.0 * t).sin(), 0.0, 0.04 * (7.0 * t).cos());
    let reference = rest.iter().map(|&r| r + sway).collect();
    let colliders = [
        Collider::Ellipsoid {
            center: Vec3::new(0.1 + 0.2 * (4.0 * t).sin(), -0.25, 0.05),
            rotation: Quat::from_rotation_z(0.5 * t),
            radii: Vec3::new(0.08, 0.2, 0.06),
        },
        Collider::Plane {
            point: Vec3::new(0.0, -0.6, 0.0),
            normal: Vec3::Y,
        },
    ];
    (frame, reference, colliders)
}

#[test]
fn substeps_are_the_finer_rate_fed_inputs_interpolated_between_steps() {
    // A fabric tuned at 60 Hz converted to a 30 Hz engine runs 2 substeps per step. Given the
    // engine's inputs every 1/30 s, it must be bit for bit the 60 Hz cloth fed the same inputs
    // with the in-between ones interpolated halfway.
    let knobs = FabricParams {
        iterations: 4,
        damping: 0.02,
        wind_speed: 6.0,
        collision_margin: 0.01,
        world_motion_fraction: 0.3,
        ..FabricParams::default()
    };
    let topo = sheet(8, 8, 0.06);
    let rest = topo.rest.clone();
    let mut fine = Cloth::new(topo.clone(), &knobs);
    let mut coarse = Cloth::new(
        topo,
        &FabricParams {
            timestep_hz: 30.0,
            substeps: 2,
            ..knobs.clone()
        },
    );
    let mut last: Option<(Frame, Vec<Vec3>, [Collider; 2])> = None;
    let mut moved = 0f32;
    for k in 0..90 {
        let (frame, reference, colliders) = moving_inputs(&rest, k as f32 / 30.0);
        let step = |cloth: &mut Cloth, f: Frame, r: &[Vec3], c: &[Collider]| {
            cloth
                .step(&StepInput {
                    frame: f,
                    reference: r,
                    colliders: c,
                    leg_lines: None,
                })
                .unwrap();
        };
        match &last {
            Some((f0, r0, c0)) => {
                let half: Vec<Vec3> = r0
                    .iter()
                    .zip(&reference)
                    .map(|(a, b)| a.lerp(*b, 0.5))
                    .collect();
                let hc = [
                    c0[0].lerp(&colliders[0], 0.5),
                    c0[1].lerp(&colliders[1], 0.5),
                ];
                step(&mut fine, f0.lerp(&frame, 0.5), &half, &hc);
            }
            // The first step has nothing to interpolate from.
            None => step(&mut fine, frame, &reference, &colliders),
        }
        step(&mut fine, frame, &reference, &colliders);
        step(&mut coarse, frame, &reference, &colliders);
        assert_eq!(coarse.positions(), fine.positions(), "step {k}");
        assert_eq!(
            coarse.previous_positions(),
            fine.previous_positions(),
            "step {k}"
        );
        moved = moved.max(coarse.positions()[60].distance(rest[60]));
        last = Some((frame, reference, colliders));
    }
    assert!(moved > 0.05, "the sheet hardly moved: {moved}");
    assert_eq!(coarse.time(), fine.time());
    assert_eq!(coarse.stats().steps * 2, fine.stats().steps);
}

#[test]
fn a_cloth_reset_on_a_pose_moves_from_it_on_the_first_step() {
    // The character walks 10 cm forward during the first step. Reset onto the start pose with
    // `reset_on`, the first step takes that motion like any other: with a world-motion
    // fraction of 1 the free particles stay where they were in the world, 10 cm back in
    // character space. Reset with `reset_to` (a cut or respawn) there is no earlier pose and
    // they stay put in character space.
    let params = FabricParams {
        world_motion_fraction: 1.0,
        edge_world_motion_fraction: 1.0,
        substeps: 2,
        ..bare()
    };
    let topo = sheet(3, 3, 0.1);
    let rest = topo.rest.clone();
    let start = StepInput {
        frame: Frame::IDENTITY,
        reference: &rest,
        colliders: &[],
        leg_lines: None,
    };
    let moved = StepInput {
        frame: Frame::new(Quat::IDENTITY, Vec3::new(0.0, 0.0, 0.1)),
        reference: &rest,
        colliders: &[],
        leg_lines: None,
    };
    let mut kept = Cloth::new(topo.clone(), &params);
    kept.reset_on(&start).unwrap();
    kept.step(&moved).unwrap();
    let mut forgot = Cloth::new(topo, &params);
    forgot.reset_to(&rest).unwrap();
    forgot.step(&moved).unwrap();
    let hem = 7;
    let back = rest[hem] - kept.positions()[hem];
    assert!((back.z - 0.1).abs() < 1e-5, "{back}");
    assert_eq!(forgot.positions()[hem], rest[hem]);
    // Refused like a step: a NaN frame leaves the cloth as it was.
    let bad = StepInput {
        frame: Frame::new(Quat::IDENTITY, Vec3::new(f32::NAN, 0.0, 0.0)),
        reference: &rest,
        colliders: &[],
        leg_lines: None,
    };
    let before = kept.positions().to_vec();
    assert!(kept.reset_on(&bad).is_err());
    assert_eq!(kept.positions(), &before[..]);
}

#[test]
fn a_tube_steps_with_its_seam_welded() {
    // A 9 x 4 tube round the y axis, first and last columns one seam, blown sideways by the
    // wind: each column is solved on its own, the seam ends each step as one particle.
    let (cols, rows) = (9, 4);
    let rest: Vec<Vec3> = (0..rows)
        .flat_map(|r| {
            (0..cols).map(move |c| {
                let a = std::f32::consts::TAU * c as f32 / (cols - 1) as f32;
                Vec3::new(0.2 * a.sin(), -0.1 * r as f32, 0.2 * a.cos())
            })
        })
        .collect();
    let topo = Topology::from_grid(cols, rows, rest.clone()).unwrap();
    let params = FabricParams {
        wind_speed: 6.0,
        wind_direction_deg: 90.0,
        ..FabricParams::default()
    };
    let apart = |cloth: &Cloth| {
        let (pos, prev) = (cloth.positions(), cloth.previous_positions());
        (1..rows)
            .map(|r| {
                let (a, b) = (r * cols, r * cols + cols - 1);
                let v = (pos[a] - prev[a]) - (pos[b] - prev[b]);
                pos[a].distance(pos[b]).max(v.length())
            })
            .fold(0.0, f32::max)
    };
    let mut open = Cloth::new(topo.clone(), &params);
    let mut closed = Cloth::new(topo.with_seam().unwrap(), &params);
    for _ in 0..30 {
        open.step(&input(&rest, &[])).unwrap();
        closed.step(&input(&rest, &[])).unwrap();
    }
    assert!(apart(&open) > 1e-3, "the open grid's ends stayed together");
    assert_eq!(apart(&closed), 0.0);
}
