//! The preset loader under abuse: generated broken inputs never panic, never hang, and every
//! rejection names the file and a position or a field. Seeded, so a failure reproduces; set
//! `CLOTH_TUNER_FUZZ_CASES` for a longer run (the suite runs 100,000).

use std::path::Path;
use std::time::Instant;

use cloth_tuner::preset::{Preset, PresetError};

#[path = "../common/rng.rs"]
mod rng;
use rng::Rng;

const NASTY_VALUES: &[&str] = &[
    "NaN",
    "Infinity",
    "-Infinity",
    "1e309",
    "-1e309",
    "1e-400",
    "18446744073709551616",
    "-0",
    "null",
    "true",
    "\"0.5\"",
    "[]",
    "{}",
    "[1,2]",
    "0x10",
    "01",
    ".5",
    "5.",
    "1e",
    "\"\\u0000\"",
    "9999999999999999999999999999",
    "-1",
    "4294967296",
    "3.4028236e38",
];

/// One broken variant of `base`.
fn mutate(base: &str, rng: &mut Rng) -> Vec<u8> {
    let b = base.as_bytes();
    match rng.below(9) {
        // Truncated anywhere.
        0 => b[..rng.below(b.len())].to_vec(),
        // A few random bytes changed (including into non-UTF-8).
        1 => {
            let mut v = b.to_vec();
            for _ in 0..1 + rng.below(4) {
                let i = rng.below(v.len());
                v[i] = rng.next() as u8;
            }
            v
        }
        // A value replaced by something nasty.
        2 | 3 => {
            let colons: Vec<usize> = base.match_indices(": ").map(|(i, _)| i + 2).collect();
            let start = colons[rng.below(colons.len())];
            let end = start + base[start..].find([',', '\n']).unwrap_or(0);
            let nasty = NASTY_VALUES[rng.below(NASTY_VALUES.len())];
            format!("{}{}{}", &base[..start], nasty, &base[end..]).into_bytes()
        }
        // A key renamed (an unknown field) or duplicated.
        4 => {
            let keys: Vec<usize> = base.match_indices("\n    \"").map(|(i, _)| i + 6).collect();
            let at = keys[rng.below(keys.len())];
            let mut s = base.to_string();
            if rng.below(2) == 0 {
                s.insert(at, 'x');
            } else {
                let line_end = at + s[at..].find('\n').unwrap_or(0);
                let line = s[at - 5..line_end].to_string();
                s.insert_str(at - 5, &line);
            }
            s.into_bytes()
        }
        // Deep nesting in a value.
        5 => {
            let depth = 1 + rng.below(100_000);
            let v = format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
            base.replacen("9.81", &v, 1).into_bytes()
        }
        // Random bytes of random length.
        6 => (0..rng.below(300)).map(|_| rng.next() as u8).collect(),
        // The document inside another structure, or several documents.
        7 => match rng.below(3) {
            0 => format!("[{base}]").into_bytes(),
            1 => format!("{base}{base}").into_bytes(),
            _ => format!("{{\"preset\": {base}}}").into_bytes(),
        },
        // A huge string value.
        _ => base
            .replacen(
                "\"Tweed\"",
                &format!("\"{}\"", "w".repeat(rng.below(200_000))),
                1,
            )
            .into_bytes(),
    }
}

/// Loads `path` (holding a generated input); panics if the loader misreports. Returns whether
/// the input was rejected.
fn check(path: &Path) -> bool {
    match Preset::load(path) {
        Ok(p) => {
            // Whatever loads is valid and saves back as something that loads identically.
            assert!(p.params.validate().is_ok());
            assert_eq!(Preset::from_json(&p.to_json(), path).unwrap(), p);
            false
        }
        Err(e) => {
            let msg = e.to_string();
            assert!(
                msg.starts_with(&path.display().to_string()),
                "no file in: {msg}"
            );
            let located = e.location().is_some() || e.field().is_some();
            let whole_file = matches!(
                e,
                PresetError::NotAPreset { .. } | PresetError::NewerVersion { .. }
            );
            assert!(located || whole_file, "no position or field in: {msg}");
            true
        }
    }
}

#[test]
fn broken_presets_never_panic_and_every_rejection_is_located() {
    let base = std::fs::read_to_string("presets/tweed.json").unwrap();
    let cases: usize = std::env::var("CLOTH_TUNER_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fuzzed.json");
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let start = Instant::now();
    let mut rejected = 0;
    for case in 0..cases {
        let bytes = mutate(&base, &mut rng);
        std::fs::write(&path, &bytes).unwrap();
        match std::panic::catch_unwind(|| check(&path)) {
            Ok(was_rejected) => rejected += was_rejected as usize,
            Err(_) => panic!(
                "case {case} failed; input: {:?}",
                String::from_utf8_lossy(&bytes)
            ),
        }
    }
    eprintln!(
        "{cases} generated presets, {rejected} rejected, {:.1} s",
        start.elapsed().as_secs_f64()
    );
    assert!(
        rejected > cases / 2,
        "the generator should mostly break things: {rejected}"
    );
}

#[test]
fn a_100_mb_file_is_refused_promptly() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge.json");
    let mut big = String::from("{\"format\": \"cloth-tuner-preset\", \"version\": 1, \"name\": \"");
    big.push_str(&"x".repeat(100 * 1024 * 1024));
    big.push_str("\", \"nonsense\": 1}");
    std::fs::write(&path, big).unwrap();
    let start = Instant::now();
    let e = Preset::load(&path).unwrap_err();
    assert!(e.to_string().contains("unknown field `nonsense`"), "{e}");
    assert!(start.elapsed().as_secs() < 20, "took {:?}", start.elapsed());
}
