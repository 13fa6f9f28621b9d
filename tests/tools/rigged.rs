//! The rigged garment (`export --rig`): the file passes the Khronos glTF validator (npm
//! `gltf-validator`, installed by `.ci/run` into `tools/gltf-validator`), loads back into
//! cloth-tuner as the character wearing its garment with the same grid and cloth bones, and
//! skins by the glTF skinning formula alone to the garment's rest mesh at rest and to what
//! cloth-tuner's rig draws when the bones move.
//!
//! The validator needs `node` and `tools/gltf-validator/node_modules` (`npm ci` there): with
//! `CI=true` their absence fails the test, elsewhere it skips with a note.

use std::path::{Path, PathBuf};
use std::process::Command;

use cloth_tuner::character::{is_cloth_bone, Character};
use cloth_tuner::export::rigged::{grid_choice, write_rigged, FORMAT};
use cloth_tuner::garment::imported::{GridChoice, ImportedGarment};
use cloth_tuner::garment::{dress, fitted_layout, Garment};
use cloth_tuner::picture::{encode_png, Rgba};
use cloth_tuner::preset::{Garment as Template, Preset};
use cloth_tuner_assets::garment::{garment_file_glb_dressed, GarmentKind};
use cloth_tuner_assets::test_rig::{test_rig_glb, Naming, RigStyle};
use glam::{Mat4, Quat, Vec3};
use serde_json::Value;

const TOOL: &str = "tools/gltf-validator";
const SCHEMA: &str = "docs/rigged-garment.schema.json";

pub(super) fn tweed() -> Preset {
    Preset::load("presets/tweed.json").unwrap()
}

/// A Mixamo-named test rig wearing the generator's long coat in its own file (coarse skin).
fn coat_rig(dir: &Path) -> PathBuf {
    let style = RigStyle {
        naming: Naming::Mixamo,
        garments: vec![GarmentKind::LongCoat],
        cell: 0.03,
        ..Default::default()
    };
    let path = dir.join("wearing.glb");
    std::fs::write(&path, test_rig_glb(&style)).unwrap();
    path
}

/// Runs `cloth-tuner` with `command`, `out` and then `args`; its output (stdout and stderr),
/// or a panic with it when the command fails.
pub(super) fn run_ok(command: &[&str], out: &Path, args: &[&str]) -> String {
    let run = Command::new(env!("CARGO_BIN_EXE_cloth-tuner"))
        .args(command)
        .arg(out)
        .args(args)
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&run.stdout).to_string() + &String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{command:?} {args:?}: {text}");
    text
}

/// Runs `cloth-tuner export --rig OUT` with `args`; panics with its output when it fails.
fn export_rig(out: &Path, args: &[&str]) {
    let command = ["export", "--preset", "presets/tweed.json", "--rig"];
    let text = run_ok(&command, out, args);
    assert!(text.contains("rigged garment"), "{text}");
}

/// Node and the installed validator, or why the test cannot run.
fn validator_available() -> Result<(), String> {
    let node = Command::new("node").arg("--version").output();
    if !node.is_ok_and(|o| o.status.success()) {
        return Err("`node` is not on the PATH".into());
    }
    if !Path::new(TOOL).join("node_modules/gltf-validator").is_dir() {
        return Err(format!(
            "{TOOL}/node_modules is missing: run `npm ci` in {TOOL}"
        ));
    }
    Ok(())
}

/// The validator's report on `file`, printed whole.
fn validate(file: &Path) -> Value {
    let out = Command::new("node")
        .arg(Path::new(TOOL).join("validate.mjs"))
        .arg(file)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "validator on {}: {}{}",
        file.display(),
        text,
        String::from_utf8_lossy(&out.stderr)
    );
    println!("validator on {}:\n{text}", file.display());
    serde_json::from_str(&text).unwrap()
}

/// The validator's verdict on `file`: 0 errors and 0 warnings. Without node or the validator
/// it is skipped with a note, unless `CI=true`.
pub(super) fn assert_valid(file: &Path) {
    if let Err(why) = validator_available() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI=true and the glTF validator cannot run: {why}"
        );
        eprintln!("validator skipped: {why}");
        return;
    }
    let report = validate(file);
    let issues = &report["issues"];
    assert_eq!(issues["numErrors"], 0, "{}: {issues:#}", file.display());
    assert_eq!(issues["numWarnings"], 0, "{}: {issues:#}", file.display());
    assert_eq!(report["info"]["hasSkins"], true);
    assert_eq!(report["info"]["maxInfluences"], 4);
}

/// The file's joints by name with their world matrices at rest, composed from the nodes'
/// transforms as glTF defines them, and its root extras.
pub(super) struct Read {
    pub(super) doc: gltf::Document,
    pub(super) buffers: Vec<gltf::buffer::Data>,
    pub(super) world: Vec<Mat4>,
}

pub(super) fn read(path: &Path) -> Read {
    let (doc, buffers, _) = gltf::import(path).unwrap();
    let mut world = vec![Mat4::IDENTITY; doc.nodes().len()];
    fn walk(node: gltf::Node, parent: Mat4, world: &mut [Mat4]) {
        let m = parent * Mat4::from_cols_array_2d(&node.transform().matrix());
        world[node.index()] = m;
        for c in node.children() {
            walk(c, m, world);
        }
    }
    for node in doc.default_scene().unwrap().nodes() {
        walk(node, Mat4::IDENTITY, &mut world);
    }
    Read {
        doc,
        buffers,
        world,
    }
}

impl Read {
    /// The root's `extras.cloth_tuner`, checked against `docs/rigged-garment.schema.json`.
    fn extras(&self) -> Value {
        let raw = self.doc.as_json().extras.as_ref().unwrap();
        let extras: Value = serde_json::from_str(raw.get()).unwrap();
        let schema: Value =
            serde_json::from_str(&std::fs::read_to_string(SCHEMA).unwrap()).unwrap();
        let (mut schemas, mut compiler) = (boon::Schemas::new(), boon::Compiler::new());
        compiler
            .add_resource("file:///schema.json", schema)
            .unwrap();
        let index = compiler
            .compile("file:///schema.json", &mut schemas)
            .unwrap_or_else(|e| panic!("{SCHEMA}: {e:#}"));
        if let Err(e) = schemas.validate(&extras, index) {
            panic!("the extras do not follow {SCHEMA}: {e:#}");
        }
        extras["cloth_tuner"].clone()
    }

    /// The mesh node called `name`, skinned by the glTF formula at rest.
    fn skinned(&self, name: &str) -> Vec<Vec3> {
        self.skinned_by(name, |joint| self.world[joint.index()])
    }

    /// The mesh node called `name` skinned by the glTF formula with each joint's world matrix
    /// `world(joint)`: per vertex, Σ weight × world(joint) × inverse bind(joint) × position.
    pub(super) fn skinned_by(&self, name: &str, world: impl Fn(gltf::Node) -> Mat4) -> Vec<Vec3> {
        let node = self.doc.nodes().find(|n| n.name() == Some(name)).unwrap();
        let skin = node.skin().unwrap();
        let get = |b: gltf::Buffer| Some(&self.buffers[b.index()][..]);
        let ibm: Vec<Mat4> = skin
            .reader(get)
            .read_inverse_bind_matrices()
            .unwrap()
            .map(|m| Mat4::from_cols_array_2d(&m))
            .collect();
        let joints: Vec<Mat4> = skin
            .joints()
            .zip(&ibm)
            .map(|(j, inv)| world(j) * *inv)
            .collect();
        let mut out = Vec::new();
        for prim in node.mesh().unwrap().primitives() {
            let r = prim.reader(get);
            let pos = r.read_positions().unwrap();
            let js = r.read_joints(0).unwrap().into_u16();
            let ws: Vec<[f32; 4]> = r.read_weights(0).unwrap().into_f32().collect();
            for ((p, j), w) in pos.zip(js).zip(ws) {
                let sum: f32 = w.iter().sum();
                assert!((sum - 1.0).abs() < 1e-6, "weights sum to {sum}");
                let mut q = Vec3::ZERO;
                for k in 0..4 {
                    q += joints[j[k] as usize].transform_point3(Vec3::from(p)) * w[k];
                }
                out.push(q);
            }
        }
        out
    }

    /// World positions of the file's cloth bones by name.
    fn cloth_bones(&self) -> Vec<(String, Vec3)> {
        self.doc
            .nodes()
            .filter_map(|n| {
                let name = n.name()?;
                is_cloth_bone(name)
                    .then(|| (name.to_string(), self.world[n.index()].w_axis.truncate()))
            })
            .collect()
    }
}

/// The largest distance between two point lists of one length.
pub(super) fn worst(a: &[Vec3], b: &[Vec3]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(p, q)| p.distance(*q))
        .fold(0.0, f32::max)
}

/// The rigged file `out` of `garment` on `character`, checked: the extras' grid, the cloth
/// bones where the rig has them, and the garment and the body skinned by the file alone on
/// their rest meshes.
fn check(out: &Path, character: &Character, garment: &dyn Garment) {
    let file = read(out);
    let extras = file.extras();
    assert_eq!(extras["format"], FORMAT);
    let rig = garment.rig();
    let grid = &extras["grid"];
    assert_eq!(grid["rows"], rig.topology.rows);
    assert_eq!(grid["columns"], rig.topology.cols);
    assert_eq!(grid["loop"], rig.topology.seam);
    let particles = rig.topology.len();
    assert_eq!(grid["max_distance_m"].as_array().unwrap().len(), particles);
    assert_eq!(grid["edge"].as_array().unwrap().len(), particles);
    assert_eq!(extras["preset"]["name"], tweed().name);
    let bones = file.cloth_bones();
    let rest = rig.rest_sim_bones();
    let sites = rig.sim_bone_sites();
    let on_grid: Vec<_> = bones
        .iter()
        .filter(|b| b.0.starts_with("cloth_r"))
        .collect();
    assert_eq!(on_grid.len(), sites.len());
    for (&(r, c), m) in sites.iter().zip(&rest) {
        let name = format!("cloth_r{r}_c{c}");
        let at = on_grid.iter().find(|b| b.0 == name).unwrap().1;
        assert!(at.distance(m.w_axis.truncate()) < 1e-5, "{name} at {at}");
    }
    let name = extras["garment"].as_str().unwrap();
    let skinned = file.skinned(name);
    let err = worst(&skinned, &rig.render.positions);
    assert!(
        err < 1e-4,
        "{name}: the file skins {err} m off the rest mesh"
    );
    check_posed(&file, name, character, garment);
    let body = file.skinned("body");
    let err = worst(&body, &character.mesh.positions);
    assert!(err < 1e-4, "the body skins {err} m off its rest mesh");
}

/// The garment posed (the body bones turned, the particles moved off their rest places) and
/// skinned by cloth-tuner, against the file skinned by the glTF formula with each joint, found
/// by its name, where cloth-tuner has that bone: the file's joints, weights and inverse bind
/// matrices say what cloth-tuner's rig says. For garments with no drivers of their own.
fn check_posed(file: &Read, name: &str, character: &Character, garment: &dyn Garment) {
    let rig = garment.rig();
    if rig.rest_drivers().len() != rig.character_bones() {
        return;
    }
    let sk = &character.skeleton;
    let mut pose = sk.rest_pose();
    for (i, f) in pose.local.iter_mut().enumerate() {
        f.rotation *= Quat::from_rotation_z(0.1 * ((i % 5) as f32 - 2.0));
    }
    let mut model = Vec::new();
    pose.compute_model(sk, &mut model);
    let mut frame = rig.new_frame();
    rig.pose(&model, &[], &mut frame);
    let topo = &rig.topology;
    let moved: Vec<Vec3> = (0..topo.len())
        .map(|i| {
            let t = i as f32;
            topo.rest[i] + Vec3::new(t.sin(), 0.3 * t.cos(), (1.7 * t).cos()) * 0.03
        })
        .collect();
    rig.update_bones(&moved, &mut frame);
    let (mut ours, mut normals) = (Vec::new(), Vec::new());
    rig.skin_render(&frame, &mut ours, &mut normals);
    let sites = rig.sim_bone_sites();
    let theirs = file.skinned_by(name, |joint| {
        let bone = joint.name().unwrap();
        match sk.find(bone) {
            Some(b) => model[b],
            None => {
                let s = sites
                    .iter()
                    .position(|&(r, c)| format!("cloth_r{r}_c{c}") == bone);
                frame.sim_bones[s.unwrap()]
            }
        }
    });
    let err = worst(&theirs, &ours);
    assert!(
        err < 1e-4,
        "{name} posed: the file skins {err} m off cloth-tuner"
    );
}

#[test]
fn rigged_templates_are_valid_skin_to_their_rest_mesh_and_reload_with_their_grid() {
    let dir = tempfile::tempdir().unwrap();
    let character = Character::builtin();
    let out = dir.path().join("jacket.glb");
    export_rig(&out, &[]);
    assert_valid(&out);
    let layout = fitted_layout(&character, Template::Jacket);
    let jacket = dress(&character, Template::Jacket, &layout).unwrap();
    check(&out, &character, jacket.as_ref());
    // Loaded back as the built-in character wearing the jacket as its own garment: the same
    // grid, the cloth bones where the template's were (a ray's crossing of the jacket's outer
    // shell, not the ring the template laid them on).
    let (again, worn) = Character::open_wearing(&out, None, "jacket").unwrap();
    assert_eq!(again.mesh.positions.len(), character.mesh.positions.len());
    let rebuilt = ImportedGarment::new(&again, &worn, &grid_choice(&out).unwrap()).unwrap();
    let (a, b) = (&jacket.rig().topology, &rebuilt.rig().topology);
    assert_eq!((b.rows, b.cols), (a.rows, a.cols));
    let moved = worst(
        &origins(rebuilt.rig().rest_sim_bones()),
        &origins(jacket.rig().rest_sim_bones()),
    );
    println!("jacket reloaded: its cloth bones within {moved} m of the template's");
    assert!(
        moved < 0.05,
        "a cloth bone lands {moved} m from the template's"
    );
    // Bad paths are errors that name the file.
    let nowhere = dir.path().join("no/such/folder/x.glb");
    let e = write_rigged(&nowhere, &character, jacket.as_ref(), &tweed()).unwrap_err();
    assert!(e.to_string().contains("no/such/folder/x.glb"), "{e}");
    let e = grid_choice(Path::new("assets/character.glb")).unwrap_err();
    assert!(e.to_string().contains("assets/character.glb"), "{e}");
    assert!(e.to_string().contains("not a rigged garment"), "{e}");
    for template in [Template::HoodedJacket, Template::Skirt] {
        let layout = fitted_layout(&character, template);
        let garment = dress(&character, template, &layout).unwrap();
        let out = dir.path().join("t.glb");
        write_rigged(&out, &character, garment.as_ref(), &tweed()).unwrap();
        check(&out, &character, garment.as_ref());
    }
}

/// The bones' places.
fn origins(bones: Vec<Mat4>) -> Vec<Vec3> {
    bones.iter().map(|m| m.w_axis.truncate()).collect()
}

#[test]
fn a_rigged_coat_is_valid_and_reloads_as_the_character_wearing_it_with_the_same_grid_and_bones() {
    let dir = tempfile::tempdir().unwrap();
    let rig = coat_rig(dir.path());
    let out = dir.path().join("rigged.glb");
    export_rig(
        &out,
        &[
            "--character",
            rig.to_str().unwrap(),
            "--garment-mesh",
            "long_coat",
        ],
    );
    assert_valid(&out);
    let (character, worn) = Character::open_wearing(&rig, None, "long_coat").unwrap();
    let coat = ImportedGarment::new(&character, &worn, &GridChoice::default()).unwrap();
    check(&out, &character, &coat);

    let (again, worn_again) = Character::open_wearing(&out, None, "long_coat").unwrap();
    // The character's own bones under their names (the importer's ground bone aside), then
    // the cloth bones, which take no role.
    let names = |c: &Character| -> Vec<String> {
        c.bone_names()
            .filter(|n| !is_cloth_bone(n))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(names(&again), names(&character));
    for (role, bone) in character.roles.iter() {
        let name = &character.skeleton.bones()[bone].name;
        assert_eq!(
            &again.skeleton.bones()[again.roles.bone(role)].name,
            name,
            "{role:?}"
        );
    }
    assert!(worst(&worn_again.mesh.positions, &worn.mesh.positions) < 1e-4);
    let coat_again =
        ImportedGarment::new(&again, &worn_again, &grid_choice(&out).unwrap()).unwrap();
    let (g, h) = (coat.grid(), coat_again.grid());
    assert_eq!((h.rows, h.cols, h.closed), (g.rows, g.cols, g.closed));
    let moved = worst(
        &origins(coat_again.rig().rest_sim_bones()),
        &origins(coat.rig().rest_sim_bones()),
    );
    println!("coat reloaded: its cloth bones within {moved} m of the original's");
    assert!(
        moved < 1e-4,
        "a cloth bone lands {moved} m from where it was"
    );
    // The file's cloth bones are the reloaded character's bones, at the same places.
    let mut model = Vec::new();
    again
        .skeleton
        .rest_pose()
        .compute_model(&again.skeleton, &mut model);
    for (site, m) in coat
        .rig()
        .sim_bone_sites()
        .iter()
        .zip(coat.rig().rest_sim_bones())
    {
        let name = format!("cloth_r{}_c{}", site.0, site.1);
        let b = again.skeleton.find(&name).unwrap();
        let d = model[b].w_axis.truncate().distance(m.w_axis.truncate());
        assert!(d < 1e-3, "{name} reloads {d} m off");
    }
}

/// A primitive's material's name and its texture coordinate sets (each a list of pairs).
type Look = (Option<String>, Vec<Vec<[f32; 2]>>);

/// Per primitive of mesh `mesh` in `file`, its [`Look`].
fn looks(file: &Read, mesh: &str) -> Vec<Look> {
    let get = |b: gltf::Buffer| Some(&file.buffers[b.index()][..]);
    let mesh = file.doc.meshes().find(|m| m.name() == Some(mesh)).unwrap();
    mesh.primitives()
        .map(|p| {
            let r = p.reader(get);
            let sets = (0..)
                .map_while(|k| r.read_tex_coords(k).map(|uv| uv.into_f32().collect()))
                .collect();
            (p.material().name().map(str::to_string), sets)
        })
        .collect()
}

#[test]
fn a_garment_keeps_its_primitives_materials_texture_and_uv_sets_and_the_body_its_material() {
    let dir = tempfile::tempdir().unwrap();
    let red = Rgba {
        width: 2,
        height: 2,
        pixels: vec![[200, 40, 40, 255]; 4],
    };
    let png = encode_png(&red).unwrap();
    let source = dir.path().join("dressed.glb");
    let style = RigStyle::default();
    let bytes = garment_file_glb_dressed(GarmentKind::ShortJacket, &style, &png);
    std::fs::write(&source, bytes).unwrap();
    let out = dir.path().join("rigged.glb");
    export_rig(&out, &["--garment", source.to_str().unwrap()]);
    assert_valid(&out);
    let character = Character::builtin();
    let worn = character.read_garment(&source, None).unwrap();
    let jacket = ImportedGarment::new(&character, &worn, &GridChoice::default()).unwrap();
    check(&out, &character, &jacket);

    let (file, given) = (read(&out), read(&source));
    let ours = looks(&file, &worn.name);
    let theirs = looks(&given, &worn.name);
    assert_eq!(ours.len(), 2, "the garment's two primitives");
    assert_eq!(
        ours, theirs,
        "materials and texture coordinates as the garment came"
    );
    assert_eq!(ours[1].1.len(), 2, "both texture coordinate sets");
    let trim = file.doc.materials().find(|m| m.name() == Some("trim"));
    let info = trim.unwrap().pbr_metallic_roughness().base_color_texture();
    let info = info.expect("the trim keeps its texture");
    assert_eq!(info.tex_coord(), 1);
    let image = info.texture().source();
    let gltf::image::Source::View { view, mime_type } = image.source() else {
        panic!("the image is not in the file's buffer");
    };
    assert_eq!(mime_type, "image/png");
    let at = view.offset()..view.offset() + view.length();
    assert_eq!(&file.buffers[view.buffer().index()][at], &png[..]);
    // The built-in body as its file has it: one primitive with its material, no UVs.
    let body = looks(&file, "body");
    assert_eq!(body.len(), 1);
    assert_eq!(body[0], (Some("mannequin".to_string()), Vec::new()));
}
