//! Time-step conversion measured on the character: the drift between hem trajectories.

use std::sync::Arc;

use cloth_tuner::preset::Preset;
use cloth_tuner::rig::drift::{drift, table, DriftError};
use cloth_tuner::rig::Character;

#[test]
fn the_preset_against_itself_does_not_drift() {
    let c = Arc::new(Character::builtin());
    let preset = Preset::load("presets/tweed.json").unwrap();
    let row = drift(c, &preset, "walk", 60.0, 1.0).unwrap();
    assert_eq!(row.converted_rms_cm, 0.0);
    assert_eq!(row.unconverted_max_cm, 0.0);
    // The heavy tweed is hardly chaotic: a millionth more damping stays within a few
    // millimetres over a second of walking (1.5 mm; the veil parts by centimetres).
    assert!(row.floor_max_cm < 0.5, "floor {} cm", row.floor_max_cm);
}

#[test]
fn the_floor_shows_a_veil_in_the_wind_is_chaotic() {
    // The veil flaps in a gusting wind: a millionth of damping grows to centimetres within
    // three seconds of a dodge, so that is the least drift any conversion can show for it.
    let c = Arc::new(Character::builtin());
    let preset = Preset::load("presets/veil.json").unwrap();
    let row = drift(c, &preset, "dodge", 30.0, 3.0).unwrap();
    assert!(row.floor_rms_cm > 0.5, "floor {} cm", row.floor_rms_cm);
    assert!(row.floor_max_cm >= row.floor_rms_cm);
    assert!(table(&[row]).contains("floor RMS / max (cm)"));
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
fn converted_to_30_and_120_hz_the_presets_stay_within_a_third_where_chaos_allows() {
    // The target of the time-step conversion. The shipped presets solve at 120 Hz (60 Hz with
    // 2 substeps), so 30 Hz runs the same solver as 4 substeps and 120 Hz as 1: what is left is
    // the linear interpolation of the character between the engine's steps. Held here: 10 of
    // the 12 rows (measured 0.00 to 0.29). Not held: the veil in a dodge, whose floor (a
    // millionth of damping) is already half the unconverted drift
    // (`the_floor_shows_a_veil_in_the_wind_is_chaotic`). The down jacket in a dodge was at 0.88
    // and 0.44 while the hard pass and the rig's reference points chose between discrete
    // alternatives (see `tests/rig_chaos.rs`); now 0.27 and 0.28.
    let c = Arc::new(Character::builtin());
    for (file, clip) in [
        ("tweed", "dodge"),
        ("tweed", "idle"),
        ("down_jacket", "dodge"),
        ("down_jacket", "idle"),
        ("veil", "idle"),
    ] {
        let preset = Preset::load(format!("presets/{file}.json")).unwrap();
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

#[test]
fn where_chaos_parts_the_trajectories_the_converted_hem_still_swings_about_as_much() {
    // The veil in a dodge misses the third (its floor forbids it), so what an engine
    // programmer can check there is the look: the converted hem swings within 10 % of the
    // original's at both rates (measured: 3 % more at 30 Hz, 7 % more at 120 Hz; it was 6 to
    // 8 % less). The down jacket in a dodge, held to the third above, is checked the same way
    // (within 1 %).
    let c = Arc::new(Character::builtin());
    for file in ["down_jacket", "veil"] {
        let preset = Preset::load(format!("presets/{file}.json")).unwrap();
        for hz in [30.0, 120.0] {
            let row = drift(c.clone(), &preset, "dodge", hz, 3.0).unwrap();
            let off = row.converted_swing_cm / row.original_swing_cm - 1.0;
            assert!(
                off.abs() <= 0.1,
                "{file} at {hz} Hz: hem swing {} cm converted against {} cm",
                row.converted_swing_cm,
                row.original_swing_cm
            );
        }
    }
}
