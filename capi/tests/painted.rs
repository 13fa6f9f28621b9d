//! The C interface sees a preset's painted max distances: `ct_cloth_create` applies them (and
//! refuses a map painted on another grid), `ct_cloth_max_distances` reads them back,
//! `ct_cloth_set_max_distances` repaints.

use std::ffi::{CStr, CString};
use std::path::PathBuf;

use cloth_tuner::preset::{MaxDistanceMap, Preset};
use cloth_tuner_capi::*;

const COLS: u32 = 3;
const ROWS: u32 = 4;

fn grid() -> Vec<CtVec3> {
    (0..ROWS)
        .flat_map(|r| {
            (0..COLS).map(move |c| CtVec3 {
                x: 0.1 * c as f32,
                y: 1.0 - 0.1 * r as f32,
                z: 0.0,
            })
        })
        .collect()
}

/// The shipped tweed with `map`, written to a file in a folder of its own.
fn tweed_with(map: MaxDistanceMap, name: &str) -> PathBuf {
    let shipped = concat!(env!("CARGO_MANIFEST_DIR"), "/../presets/tweed.json");
    let mut preset = Preset::load(shipped).unwrap();
    preset.max_distance_map = Some(map);
    let dir = std::env::temp_dir().join(format!("ct-capi-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    preset.save(&path).unwrap();
    path
}

fn create(path: &std::path::Path) -> (CtStatus, *mut CtCloth) {
    let rest = grid();
    let c = CString::new(path.to_str().unwrap()).unwrap();
    let mut cloth = std::ptr::null_mut();
    let s = unsafe {
        ct_cloth_create(
            c.as_ptr(),
            COLS,
            ROWS,
            rest.as_ptr(),
            rest.len(),
            &mut cloth,
        )
    };
    // The cloth has read the file; its folder is this test's own.
    if let Some(dir) = path.parent() {
        std::fs::remove_dir_all(dir).unwrap();
    }
    (s, cloth)
}

fn max_distances(cloth: *const CtCloth) -> Vec<f32> {
    let mut out = vec![0.0f32; (COLS * ROWS) as usize];
    let s = unsafe { ct_cloth_max_distances(cloth, out.as_mut_ptr(), out.len()) };
    assert_eq!(s, CtStatus::Ok);
    out
}

fn last_error() -> String {
    unsafe { CStr::from_ptr(ct_last_error()) }
        .to_string_lossy()
        .to_string()
}

#[test]
fn the_presets_painted_values_reach_the_cloth_and_the_rest_keeps_the_curve() {
    let mut map = MaxDistanceMap::new(COLS as usize, ROWS as usize);
    map.metres[10] = Some(0.0123);
    let (plain_status, plain) = create(&tweed_with(MaxDistanceMap::new(3, 4), "blank.json"));
    let (s, cloth) = create(&tweed_with(map, "painted.json"));
    assert_eq!(
        (plain_status, s),
        (CtStatus::Ok, CtStatus::Ok),
        "{}",
        last_error()
    );
    let (curve, painted) = (max_distances(plain), max_distances(cloth));
    assert_eq!(painted[10], 0.0123);
    assert_ne!(curve[10], 0.0123);
    for i in (0..painted.len()).filter(|&i| i != 10) {
        // The hard constraints hold a column at rest length, so the particles above the
        // painted one in its column may stray no further than it.
        let expected = if i % COLS as usize == 10 % COLS as usize && i < 10 {
            curve[i].min(0.0123)
        } else {
            curve[i]
        };
        assert_eq!(painted[i], expected, "particle {i}");
    }

    // Repainting from C: NaN is the curve, a value is final.
    let mut values = vec![f32::NAN; painted.len()];
    values[7] = 0.25;
    let s = unsafe { ct_cloth_set_max_distances(cloth, values.as_ptr(), values.len()) };
    assert_eq!(s, CtStatus::Ok, "{}", last_error());
    let now = max_distances(cloth);
    assert_eq!((now[7], now[10]), (0.25, curve[10]));

    // Bad values change nothing.
    for bad in [-0.1, 1.5, f32::INFINITY] {
        values[4] = bad;
        let s = unsafe { ct_cloth_set_max_distances(cloth, values.as_ptr(), values.len()) };
        assert_eq!(s, CtStatus::InvalidArgument);
        let msg = last_error();
        assert!(
            msg.contains("metres[4]") && msg.contains("0 to 1 m"),
            "{msg}"
        );
        assert_eq!(max_distances(cloth), now);
    }
    let s = unsafe { ct_cloth_set_max_distances(cloth, values.as_ptr(), 5) };
    assert_eq!(s, CtStatus::InvalidArgument);
    assert!(last_error().contains("12 particles"), "{}", last_error());
    unsafe { ct_cloth_free(cloth) };
    unsafe { ct_cloth_free(plain) };
}

#[test]
fn a_map_painted_on_another_grid_is_refused_naming_the_file_and_the_field() {
    let path = tweed_with(MaxDistanceMap::new(17, 10), "jacket_grid.json");
    let (s, cloth) = create(&path);
    assert_eq!(s, CtStatus::PresetError);
    assert!(cloth.is_null());
    let msg = last_error();
    assert!(
        msg.contains("jacket_grid.json")
            && msg.contains("max_distance_map")
            && msg.contains("17 x 10")
            && msg.contains("3 x 4"),
        "{msg}"
    );
}
