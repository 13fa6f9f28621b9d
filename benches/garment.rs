//! The artist's garment: building its grid, its cloth bones and its vertices' binding
//! (`ImportedGarment::new`) for the generator's long coat three times finer than its own
//! (about 50,000 vertices), on the built-in character; and the jacket frame
//! (`Scene::step`, as `simulate` times it) on an imported short jacket against the template
//! jacket laid on a grid of the same size, on the walk. Fastest and median of each.
//! `cargo bench --bench garment [-- FILTER]` (FILTER: `build` or `frame`).

use std::sync::Arc;
use std::time::Instant;

use cloth_tuner::character::{Character, WornMesh};
use cloth_tuner::garment::fitted_layout;
use cloth_tuner::garment::imported::{GridChoice, ImportedGarment};
use cloth_tuner::preset::Preset;
use cloth_tuner::scene::Scene;
use cloth_tuner_assets::garment::{garment_file_glb, garment_file_glb_fine, GarmentKind};
use cloth_tuner_assets::test_rig::RigStyle;

/// Builds of the dense coat timed.
const BUILDS: usize = 5;
/// Steps of each frame run (the first second is left out of the figures).
const STEPS: usize = 1200;

/// `bytes` (a garment file) read onto `character`.
fn worn(character: &Character, bytes: &[u8], name: &str) -> WornMesh {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).expect("write the garment");
    character
        .read_garment(&path, None)
        .expect("the generator's garment reads")
}

/// (fastest, median) of `times`.
fn fastest_median(mut times: Vec<f64>) -> (f64, f64) {
    times.sort_by(f64::total_cmp);
    (times[0], times[times.len() / 2])
}

fn build(character: &Character) {
    let style = RigStyle::default();
    let coat = worn(
        character,
        &garment_file_glb_fine(GarmentKind::LongCoat, &style, 3),
        "coat.glb",
    );
    let mut times = Vec::with_capacity(BUILDS);
    let mut grid = (0, 0);
    for _ in 0..BUILDS {
        let t = Instant::now();
        let g = ImportedGarment::new(character, &coat, &GridChoice::default())
            .expect("the coat builds");
        times.push(t.elapsed().as_secs_f64() * 1e3);
        grid = (g.grid().cols, g.grid().rows);
    }
    let (fastest, median) = fastest_median(times);
    println!(
        "build  long coat x3: {} vertices, grid {} x {}: fastest {fastest:.0} ms, median {median:.0} ms",
        coat.mesh.positions.len(),
        grid.0,
        grid.1
    );
}

/// Microseconds per frame of `scene` over [`STEPS`] steps, the first second left out.
fn frame_us(mut scene: Scene) -> (f64, f64) {
    let hz = scene.params().timestep_hz as usize;
    let mut times = Vec::with_capacity(STEPS);
    for step in 0..STEPS {
        scene.step();
        if step >= hz {
            times.push(scene.frame_stats().frame_seconds as f64 * 1e6);
        }
    }
    fastest_median(times)
}

fn frame(character: &Arc<Character>) {
    let preset = Preset::load("presets/tweed.json").expect("the shipped tweed");
    let bytes = garment_file_glb(GarmentKind::ShortJacket, &RigStyle::default());
    let jacket = worn(character, &bytes, "jacket.glb");
    let garment = ImportedGarment::new(character, &jacket, &GridChoice::default())
        .expect("the short jacket builds");
    let (cols, rows) = (garment.grid().cols, garment.grid().rows);
    let imported =
        Scene::wearing(character.clone(), Box::new(garment), &preset, "walk").expect("the walk");
    let mut layout = fitted_layout(character, preset.garment);
    layout.cols = cols;
    layout.rows = rows;
    let template = Scene::with_layout(character.clone(), &preset, "walk", layout)
        .expect("the template on the same grid");
    let (i_fast, i_median) = frame_us(imported);
    let (t_fast, t_median) = frame_us(template);
    println!(
        "frame  walk, grid {cols} x {rows}: imported short jacket fastest {i_fast:.0} us, median \
         {i_median:.0} us; template jacket fastest {t_fast:.0} us, median {t_median:.0} us; \
         imported / template (median) {:.2}",
        i_median / t_median
    );
}

fn main() {
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let wanted = |name: &str| filter.as_deref().is_none_or(|f| name.contains(f));
    let character = Arc::new(Character::builtin());
    if wanted("build") {
        build(&character);
    }
    if wanted("frame") {
        frame(&character);
    }
}
