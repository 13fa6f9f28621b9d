//! The artist's own garment in the tuner: File > Open garment… lists the garments of the
//! character's file (not its body), Wear dresses the character in one, the grid is laid again
//! live and saved beside the garment, the window remembers it with the character, a garment in
//! a file of its own is worn too, the engine export covers its own vertices, and a garment
//! that cannot be worn is named and changes nothing. Garments are the asset generator's, on a coarse test rig.
#![cfg(feature = "gui")]

use std::path::{Path, PathBuf};

use crate::common;

use cloth_tuner::app::{App, Command, GarmentRef, Options, Persisted};
use cloth_tuner::character::Character;
use cloth_tuner::export::Engine;
use cloth_tuner::garment::imported::GridChoice;
use cloth_tuner::garment::Garment;
use cloth_tuner_assets::garment::{garment_file_glb, GarmentKind};
use cloth_tuner_assets::test_rig::{test_rig_glb, RigStyle};
use egui_kittest::kittest::Queryable;
use egui_kittest::Harness;

/// A coarse test rig with a walk, wearing `kinds` in its own file.
fn style(kinds: &[GarmentKind]) -> RigStyle {
    RigStyle {
        clips: vec!["walk".into()],
        garments: kinds.to_vec(),
        cell: 0.04,
        ..RigStyle::default()
    }
}

/// [`style`]'s rig written to `dir/hero.glb`.
fn rig(dir: &Path, kinds: &[GarmentKind]) -> PathBuf {
    let path = dir.join("hero.glb");
    std::fs::write(&path, test_rig_glb(&style(kinds))).unwrap();
    path
}

/// The tuner playing the character at `path`, paused.
fn tuner_on(path: &Path, persisted: Persisted) -> Harness<'static, App> {
    let options = Options {
        character: Some(path.to_path_buf()),
        ..Default::default()
    };
    common::paused_harness(move |cc| App::with_state(cc, options, persisted))
}

fn apply(h: &mut Harness<'static, App>, command: Command) {
    let ctx = h.ctx.clone();
    h.state_mut().apply(&ctx, command);
    h.run();
}

#[test]
fn open_garment_lists_the_files_garments_wears_one_and_remembers_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = rig(dir.path(), &[GarmentKind::Skirt, GarmentKind::ShortJacket]);
    let mut h = tuner_on(&path, Persisted::default());
    let body_with_garments = h.state().scene().character().mesh.positions.len();
    h.get_by_label("File").click();
    h.run();
    h.get_by_label("Open garment…").click();
    h.run();
    assert!(h.state().garment_editor().open);
    // The file's garments are offered; its body is not.
    h.get_by_label("Mesh").click();
    h.run();
    h.get_by_label("short_jacket");
    assert!(h.query_by_label("body").is_none(), "the body is no garment");
    h.get_all_by_label("skirt").last().unwrap().click();
    h.run();
    h.get_by_label("Wear").click();
    h.run();
    assert_eq!(h.state().error(), None);
    let worn = h.state().worn_garment().expect("a garment worn").clone();
    assert_eq!(
        worn,
        GarmentRef {
            file: None,
            mesh: "skirt".into()
        }
    );
    let skirt = h.state().imported_garment().unwrap();
    assert!(skirt.grid().closed, "a skirt is a loop");
    let skirt_vertices = skirt.rig().render.positions.len();
    assert!(
        h.state().scene().character().mesh.positions.len() < body_with_garments,
        "the skirt is no longer part of the body"
    );
    assert_eq!(h.state().scene().garment(), None, "no template is worn");
    h.get_by_label_contains("Binding error");
    h.get_by_label_contains("rows ×");

    // Remembered with this character, and worn again at the next start.
    let persisted = h.state().persisted();
    assert_eq!(persisted.garment.as_ref().unwrap().garment, worn);
    let again = tuner_on(&path, persisted);
    assert_eq!(again.state().error(), None);
    assert_eq!(again.state().worn_garment(), Some(&worn));

    // File > Export rigged garment… writes the skirt with its cloth bones; it loads back as
    // the character wearing it.
    let out = dir.path().join("skirt_rigged.glb");
    apply(&mut h, Command::ExportRigged(out.clone()));
    assert_eq!(h.state().error(), None);
    assert!(h.state().status().contains("skirt_rigged.glb"));
    let (_, back) = Character::open_wearing(&out, None, "skirt").unwrap();
    assert_eq!(back.mesh.positions.len(), skirt_vertices);
    let missing = dir.path().join("no_such_folder").join("x.glb");
    apply(&mut h, Command::ExportRigged(missing.clone()));
    assert!(h.state().error().unwrap().contains("no_such_folder"));
    assert!(!missing.exists());

    // File > Export for engine… gives the skirt's own vertices their max distances.
    let unity = dir.path().join("skirt_unity.json");
    apply(&mut h, Command::ExportFor(Engine::Unity, unity.clone()));
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&unity).unwrap()).unwrap();
    assert_eq!(doc["mesh"]["name"], "skirt");
    let coefficients = doc["per_particle"]["coefficients"].as_array().unwrap();
    assert_eq!(coefficients.len(), skirt_vertices);

    // Back to the template.
    apply(&mut h, Command::TakeOffGarment);
    assert_eq!(h.state().worn_garment(), None);
    assert!(h.state().scene().garment().is_some());
    assert_eq!(h.state().persisted().garment, None);
}

#[test]
fn the_grid_is_laid_again_live_and_saved_beside_the_garment() {
    let dir = tempfile::tempdir().unwrap();
    let path = rig(dir.path(), &[GarmentKind::Skirt]);
    let mut h = tuner_on(&path, Persisted::default());
    let skirt = GarmentRef {
        file: None,
        mesh: "skirt".into(),
    };
    apply(&mut h, Command::WearGarment(skirt.clone()));
    let found = h.state().imported_garment().unwrap().grid().rows;
    let choice = GridChoice {
        rows: Some(found + 2),
        seam_at_deg: Some(90.0),
        ..GridChoice::default()
    };
    apply(&mut h, Command::SetGridChoice(choice.clone()));
    assert_eq!(h.state().error(), None);
    let grid = h.state().imported_garment().unwrap().grid();
    assert_eq!(grid.rows, found + 2);
    assert!(
        (grid.start - 90f32.to_radians()).abs() < 1e-5,
        "{}",
        grid.start
    );
    assert_eq!(
        h.state().scene().cloth().positions().len(),
        grid.rows * grid.cols
    );
    assert!(h.state().garment_settings_dirty());

    apply(&mut h, Command::SaveGarmentSettings);
    let file = dir.path().join("hero.skirt.cloth-garment.json");
    assert_eq!(GridChoice::load(&file).unwrap(), choice);
    assert!(!h.state().garment_settings_dirty());
    assert!(h.state().status().contains("hero.skirt.cloth-garment.json"));

    // Worn again, the garment is laid as its settings file says.
    apply(&mut h, Command::TakeOffGarment);
    apply(&mut h, Command::WearGarment(skirt));
    assert_eq!(h.state().imported_garment().unwrap().grid().rows, found + 2);
    assert_eq!(h.state().garment_choice(), Some(&choice));
}

#[test]
fn a_garment_in_a_file_of_its_own_is_worn() {
    let dir = tempfile::tempdir().unwrap();
    let path = rig(dir.path(), &[]);
    let coat = dir.path().join("coat.glb");
    std::fs::write(&coat, garment_file_glb(GarmentKind::LongCoat, &style(&[]))).unwrap();
    let mut h = tuner_on(&path, Persisted::default());
    apply(&mut h, Command::ShowGarment(true));
    apply(&mut h, Command::GarmentFile(coat.clone()));
    h.get_by_label("Wear").click();
    h.run();
    assert_eq!(h.state().error(), None);
    let worn = h.state().worn_garment().unwrap();
    assert_eq!(worn.file.as_deref(), Some(coat.as_path()));
    assert_eq!(worn.mesh, "long_coat");
    assert!(!h.state().imported_garment().unwrap().grid().closed);
}

#[test]
fn a_garment_that_cannot_be_worn_is_named_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = rig(dir.path(), &[GarmentKind::Skirt]);
    let broken = dir.path().join("torn.glb");
    std::fs::write(&broken, b"glTF but not really").unwrap();
    let mut h = tuner_on(&path, Persisted::default());
    let garment = h.state().scene().garment();
    for (what, bad) in [
        (
            "torn.glb",
            GarmentRef {
                file: Some(broken.clone()),
                mesh: String::new(),
            },
        ),
        (
            "no_such_mesh",
            GarmentRef {
                file: None,
                mesh: "no_such_mesh".into(),
            },
        ),
    ] {
        apply(&mut h, Command::WearGarment(bad));
        let error = h.state().error().expect("an error").to_string();
        assert!(error.contains(what), "{error}");
        assert_eq!(h.state().worn_garment(), None);
        assert_eq!(
            h.state().scene().garment(),
            garment,
            "the template plays on"
        );
    }
    // A settings file out of range is named with its field, and nothing is worn.
    std::fs::write(
        dir.path().join("hero.skirt.cloth-garment.json"),
        r#"{ "rows": 1000 }"#,
    )
    .unwrap();
    let skirt = GarmentRef {
        file: None,
        mesh: "skirt".into(),
    };
    apply(&mut h, Command::WearGarment(skirt));
    let error = h.state().error().expect("an error").to_string();
    assert!(
        error.contains("rows") && error.contains("3 to 80"),
        "{error}"
    );
    assert_eq!(h.state().worn_garment(), None);

    // The built-in character wears templates only.
    let mut builtin = common::harness();
    apply(
        &mut builtin,
        Command::WearGarment(GarmentRef {
            file: Some(broken),
            mesh: String::new(),
        }),
    );
    let error = builtin.state().error().expect("an error").to_string();
    assert!(error.contains("built-in character"), "{error}");
}

/// Runs frames until the Bake window's bake is done (at most two minutes).
fn bake_done(h: &mut Harness<'static, App>) {
    let start = std::time::Instant::now();
    while h.state().bake_dialog().is_running() {
        assert!(start.elapsed().as_secs() < 120, "the bake never finished");
        std::thread::sleep(std::time::Duration::from_millis(50));
        h.run();
    }
}

#[test]
fn bake_clips_writes_the_rigged_garment_with_its_clips_and_shows_the_error() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = common::harness();
    h.get_by_label("File").click();
    h.run();
    h.get_by_label("Bake clips…").click();
    h.run();
    let out = dir.path().join("walk_baked.glb");
    {
        let b = h.state_mut().bake_dialog_mut();
        assert!(
            b.clips.iter().any(|(c, on)| c == "walk" && *on),
            "the clip playing"
        );
        for (c, on) in &mut b.clips {
            *on = c == "walk";
        }
        b.seconds = 0.5;
        b.path = out.display().to_string();
    }
    h.run();
    h.get_by_label("Bake").click();
    h.run();
    bake_done(&mut h);
    let report = h.state().bake_dialog().report.clone().expect("a report");
    let table = report.expect("baked");
    assert!(table.contains("walk"), "{table}");
    let doc = gltf::Gltf::open(&out).expect("a glTF file");
    let names: Vec<_> = doc
        .animations()
        .filter_map(|a| a.name().map(String::from))
        .collect();
    assert_eq!(names, ["walk"]);

    // A folder that does not exist: named, nothing written.
    let missing = dir.path().join("no_such_folder").join("x.glb");
    h.state_mut().bake_dialog_mut().path = missing.display().to_string();
    apply(&mut h, Command::RunBake);
    bake_done(&mut h);
    let e = h.state().bake_dialog().report.clone().unwrap().unwrap_err();
    assert!(e.contains("no_such_folder"), "{e}");
    assert!(!missing.exists());
}
