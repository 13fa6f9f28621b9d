//! Time-step conversion measured on the character: the drift between hem trajectories.

use std::sync::Arc;

use cloth_tuner::character::Character;
use cloth_tuner::preset::Preset;
use cloth_tuner::scene::drift::{drift, drift_rates, drift_steps, table, DriftError};

#[test]
fn the_preset_against_itself_does_not_drift() {
    let c = Arc::new(Character::builtin());
    let preset = Preset::load("presets/tweed.json").unwrap();
    let row = drift(c, &preset, "walk", 60.0, 1.0).unwrap();
    assert_eq!(row.converted_rms_cm, 0.0);
    assert_eq!(row.unconverted_max_cm, 0.0);
    // The heavy tweed is hardly chaotic: a millionth more damping stays within a few
    // millimetres over a second of walking.
    assert!(row.floor_max_cm < 0.5, "floor {} cm", row.floor_max_cm);
}

#[test]
fn the_floor_tells_a_chaotic_fabric_from_a_calm_one() {
    // The veil as first tuned (the fixture) has shear so soft that the deformation limit does
    // its work, and a millionth of damping grows to centimetres within three seconds of a
    // dodge: the least drift any conversion could show for it. The shipped veil's floor there
    // is a fraction of a millimetre.
    let c = Arc::new(Character::builtin());
    let chaotic = Preset::load("tests/fixtures/veil_before_retune.json").unwrap();
    let row = drift(c.clone(), &chaotic, "dodge", 30.0, 3.0).unwrap();
    assert!(row.floor_rms_cm > 2.0, "floor {} cm", row.floor_rms_cm);
    assert!(row.floor_max_cm >= row.floor_rms_cm);
    assert!(table(&[row]).contains("floor RMS / max (cm)"));
    let shipped = Preset::load("presets/veil.json").unwrap();
    let row = drift(c, &shipped, "dodge", 30.0, 3.0).unwrap();
    assert!(row.floor_rms_cm < 0.5, "floor {} cm", row.floor_rms_cm);
}

#[test]
fn another_rate_drifts_a_finite_amount_and_the_table_shows_it() {
    let c = Arc::new(Character::builtin());
    let preset = Preset::load("presets/down_jacket.json").unwrap();
    let row = drift(c, &preset, "idle", 30.0, 1.0).unwrap();
    assert!(row.converted_rms_cm.is_finite() && row.unconverted_rms_cm.is_finite());
    assert!(row.unconverted_rms_cm > 0.0);
    assert!(row.converted_max_cm >= row.converted_rms_cm);
    assert!(row.floor_rms_cm.is_finite() && row.floor_max_cm >= row.floor_rms_cm);
    let t = table(&[row]);
    assert!(t.contains("| Down jacket | idle | 60 Hz | 30 Hz |"), "{t}");
}

#[test]
fn the_progress_count_ends_at_the_total_the_bar_is_given() {
    // 60 Hz original and floor (2 x 30 steps), 30 Hz and 120 Hz converted and unconverted
    // (2 x 15 + 2 x 60): what `drift --timestep-hz 30,120` shows a bar of.
    let c = Arc::new(Character::builtin());
    let preset = Preset::load("presets/tweed.json").unwrap();
    let rates = [30.0, 120.0];
    let total = drift_steps(&preset, &rates, 0.5).unwrap();
    assert_eq!(total, 2 * 30 + 2 * 15 + 2 * 60);
    let done = std::sync::atomic::AtomicU64::new(0);
    let tick = |n: u64| {
        done.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
    };
    let rows = drift_rates(c, &preset, "walk", &rates, 0.5, &tick).unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(done.into_inner(), total);
}

#[test]
fn a_rate_out_of_range_or_an_unknown_clip_is_refused() {
    let c = Arc::new(Character::builtin());
    let preset = Preset::load("presets/tweed.json").unwrap();
    let e = drift(c.clone(), &preset, "walk", 500.0, 1.0).unwrap_err();
    assert!(matches!(e, DriftError::Convert(_)));
    assert!(e.to_string().contains("allowed 15 to 240 Hz"), "{e}");
    let e = drift(c, &preset, "moonwalk", 30.0, 1.0).unwrap_err();
    assert!(e.to_string().contains("unknown clip `moonwalk`"), "{e}");
}

#[test]
fn converted_to_30_and_120_hz_every_shipped_preset_stays_within_a_third() {
    // The target of the time-step conversion, on all 12 rows. The shipped presets solve at
    // 120 Hz (60 Hz with 2 substeps), so 30 Hz runs the same solver as 4 substeps and 120 Hz
    // as 1: what is left is the linear interpolation of the character between the engine's
    // steps. It holds because the hard pass and the rig's reference points make no discrete
    // choices (`tests/garment/chaos.rs`) and the veil is not chaotic
    // (`the_floor_tells_a_chaotic_fabric_from_a_calm_one`).
    let c = Arc::new(Character::builtin());
    for file in ["tweed", "down_jacket", "veil"] {
        let preset = Preset::load(format!("presets/{file}.json")).unwrap();
        for clip in ["dodge", "idle"] {
            for hz in [30.0, 120.0] {
                let row = drift(c.clone(), &preset, clip, hz, 3.0).unwrap();
                assert!(
                    row.converted_rms_cm <= row.unconverted_rms_cm / 3.0,
                    "{file} {clip} at {hz} Hz: converted {} cm, unconverted {} cm",
                    row.converted_rms_cm,
                    row.unconverted_rms_cm
                );
            }
        }
    }
}

#[test]
fn converted_the_hem_swings_as_much_as_the_original() {
    // What an engine programmer sees besides the trajectories is the look: in a dodge the
    // converted hem swings within 3 % of the original's at both rates (unconverted, the
    // presets swing up to a fifth more or less).
    let c = Arc::new(Character::builtin());
    for file in ["tweed", "down_jacket", "veil"] {
        let preset = Preset::load(format!("presets/{file}.json")).unwrap();
        for hz in [30.0, 120.0] {
            let row = drift(c.clone(), &preset, "dodge", hz, 3.0).unwrap();
            let off = row.converted_swing_cm / row.original_swing_cm - 1.0;
            assert!(
                off.abs() <= 0.03,
                "{file} at {hz} Hz: hem swing {} cm converted against {} cm",
                row.converted_swing_cm,
                row.original_swing_cm
            );
        }
    }
}
