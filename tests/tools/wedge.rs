//! `cloth-tuner wedge` as a user runs it: a small wedge of the tweed gives one labelled contact
//! sheet whose cells differ, a page with every cell's values and metrics, and cell presets that
//! load with their values; the same command twice gives the same bytes; bad input is refused
//! with a message naming the problem and nothing written.
//!
//! The wedges need windowless OpenGL (EGL + Mesa). Without it those tests skip with a note,
//! and fail when `CI=true` with the packages to install. The bad-input tests need no GL.
#![cfg(feature = "gui")]

use crate::common;

use std::path::Path;
use std::process::{Command, Output};

use common::{have_gl, scratch};

use cloth_tuner::picture::{read_png, Rgba};
use cloth_tuner::preset::Preset;
use cloth_tuner::render::headless::CameraSpec;
use cloth_tuner::tune::knobs::{value_text, Sweep};
use cloth_tuner::tune::wedge::{Rect, WedgeSpec};

fn cloth_tuner(args: &[&str]) -> Output {
    cloth_tuner_on(args, None)
}

/// `cloth_tuner` on `threads` worker threads (`None`: one per core).
fn cloth_tuner_on(args: &[&str], threads: Option<usize>) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_cloth-tuner"));
    if let Some(n) = threads {
        c.env("RAYON_NUM_THREADS", n.to_string());
    }
    c.args(args).output().expect("run cloth-tuner")
}

/// `wedge --quiet` of the tweed over `DAMPING` on dodge, written to `out`, with `args`.
fn damping_wedge(out: &Path, args: &[&str]) -> Output {
    let mut argv = vec![
        "wedge",
        "--quiet",
        "--preset",
        "presets/tweed.json",
        "--knob",
        DAMPING,
    ];
    argv.extend_from_slice(&["--clip", "dodge", "--out", out.to_str().unwrap()]);
    argv.extend_from_slice(args);
    cloth_tuner(&argv)
}

/// The knobs of the small wedge: far apart, so every cell looks different by frame 30.
const DAMPING: &str = "damping=0.005:0.3:2";
const WORLD: &str = "world_motion_fraction=0:1:2";

/// A 2x2 wedge of the tweed: small cells, an early frame and a short metrics run, so it is
/// quick on a test build.
fn small_wedge(out: &Path, cell_size: &str) -> Output {
    small_wedge_on(out, cell_size, None)
}

fn small_wedge_on(out: &Path, cell_size: &str, threads: Option<usize>) -> Output {
    let out = out.to_str().unwrap();
    let args = [
        "wedge",
        "--preset",
        "presets/tweed.json",
        "--knob",
        DAMPING,
        "--knob",
        WORLD,
        "--clip",
        "dodge",
        "--frame",
        "30",
        "--seconds",
        "1",
        "--cell-size",
        cell_size,
        "--quiet",
        "--out",
        out,
    ];
    let o = cloth_tuner_on(&args, threads);
    assert!(
        o.status.success(),
        "wedge failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

/// The spec `small_wedge` gives the library.
fn small_spec(width: u32, height: u32) -> WedgeSpec {
    WedgeSpec {
        preset: Preset::load("presets/tweed.json").unwrap(),
        preset_path: "presets/tweed.json".into(),
        character_label: None,
        sweeps: vec![Sweep::parse(DAMPING).unwrap(), Sweep::parse(WORLD).unwrap()],
        clip: "dodge".into(),
        frames: vec![30],
        trails: true,
        film: 0,
        seconds: 1.0,
        camera: CameraSpec::Front,
        cell_width: width,
        cell_height: height,
        force: false,
    }
}

fn region(img: &Rgba, r: Rect) -> Vec<[u8; 4]> {
    (r.y..r.y + r.height)
        .flat_map(|y| {
            let row = (y * img.width) as usize;
            img.pixels[row + r.x as usize..row + (r.x + r.width) as usize].to_vec()
        })
        .collect()
}

/// The `<td>` texts of the table row `id`.
pub(crate) fn row_cells(html: &str, id: &str) -> Vec<String> {
    let start = html
        .find(&format!("<tr id=\"{id}\">"))
        .unwrap_or_else(|| panic!("no row {id}"));
    let row = &html[start..start + html[start..].find("</tr>").unwrap()];
    row.split("<td")
        .skip(1)
        .map(|td| {
            let text = &td[td.find('>').unwrap() + 1..td.find("</td>").unwrap()];
            // Drop the link's tags, keep its text.
            text.split('<')
                .map(|part| part.split_once('>').map_or(part, |(_, t)| t))
                .collect()
        })
        .collect()
}

/// The table's column names.
pub(crate) fn header_names(html: &str) -> Vec<String> {
    let start = html.find("<table>").unwrap();
    let row = &html[start..start + html[start..].find("</tr>").unwrap()];
    row.split("<th")
        .skip(1)
        .map(|th| th[th.find('>').unwrap() + 1..th.find("</th>").unwrap()].to_string())
        .collect()
}

#[test]
fn a_2x2_wedge_writes_a_labelled_sheet_a_page_and_cell_presets() {
    if !have_gl("the 2x2 wedge") {
        return;
    }
    let dir = scratch("wedge-2x2");
    let sheet_path = dir.join("sheet.png");
    small_wedge(&sheet_path, "320x180");

    // The sheet: 2 across, 2 down, each cell 320x180 with two label lines, laid out as the
    // library says (the tuner maps clicks with the same layout).
    let sheet = read_png(&sheet_path).unwrap();
    let layout = small_spec(320, 180).layout();
    assert_eq!((layout.columns, layout.rows), (2, 2));
    assert_eq!(layout.width(), 2 * 320 + 3 * layout.gap);
    assert!(layout.label_height >= 2 * 12, "two lines of readable text");
    assert_eq!(
        (sheet.width, sheet.height),
        (layout.width(), layout.height())
    );

    // Different knob values, different pictures: every pair of cells differs visibly.
    let pictures: Vec<Vec<[u8; 4]>> = (0..4)
        .map(|i| region(&sheet, layout.picture_rect(i)))
        .collect();
    for a in 0..4 {
        for b in a + 1..4 {
            let differing = pictures[a]
                .iter()
                .zip(&pictures[b])
                .filter(|(p, q)| p.iter().zip(q.iter()).any(|(x, y)| x.abs_diff(*y) > 16))
                .count();
            assert!(
                differing > 50,
                "cells {a} and {b} differ in only {differing} pixels"
            );
        }
    }
    // Every label strip carries text: light pixels on the dark strip.
    for i in 0..4 {
        let text = region(&sheet, layout.label_rect(i))
            .iter()
            .filter(|p| p[0] > 180 && p[1] > 180 && p[2] > 180)
            .count();
        assert!(text > 100, "cell {i}'s label has {text} text pixels");
    }
    let header = Rect {
        x: 0,
        y: 0,
        width: layout.width(),
        height: layout.header_height,
    };
    let header_text = region(&sheet, header).iter().filter(|p| p[0] > 180).count();
    assert!(
        header_text > 200,
        "the header has {header_text} text pixels"
    );

    // The page: a row per cell with its values, its preset and its metrics.
    let html = std::fs::read_to_string(dir.join("sheet.html")).unwrap();
    assert!(html.contains("src=\"sheet.png\""));
    let names = header_names(&html);
    for metric in [
        "hem_swing_peak_cm",
        "hem_swing_rms_cm",
        "max_vertical_stretch_pct",
    ] {
        assert!(
            names.iter().any(|n| n == metric),
            "no {metric} in {names:?}"
        );
    }
    let damping = Sweep::parse(DAMPING).unwrap();
    let world = Sweep::parse(WORLD).unwrap();
    for i in 0..4 {
        let (d, w) = (damping.values[i % 2], world.values[i / 2]);
        let row = row_cells(&html, &format!("cell-{i}"));
        assert_eq!(row.len(), names.len(), "cell {i}: {row:?}");
        assert_eq!(row[1], value_text(damping.spec, d), "cell {i}");
        assert_eq!(row[2], value_text(world.spec, w), "cell {i}");
        let file = format!("sheet_cells/cell_{i:03}.json");
        assert_eq!(row[3], file);

        // The cell's preset loads and holds the cell's values, under a name that says them.
        let preset = Preset::load(dir.join(&file)).unwrap();
        assert_eq!(preset.params.get("damping"), Some(d), "cell {i}");
        assert_eq!(
            preset.params.get("world_motion_fraction"),
            Some(w),
            "cell {i}"
        );
        assert!(
            preset.name.contains("Tweed") && preset.name.contains("damping"),
            "{}",
            preset.name
        );

        // The row's metrics are that preset's: simulate it and compare the hem swing.
        if i == 3 {
            let m = cloth_tuner::scene::metrics::simulate(
                std::sync::Arc::new(cloth_tuner::character::Character::builtin()),
                &preset,
                "dodge",
                1.0,
            )
            .unwrap();
            let col = names.iter().position(|n| n == "hem_swing_peak_cm").unwrap();
            let shown: f64 = row[col].parse().unwrap();
            let real = m.hem_swing_peak_cm as f64;
            assert!(
                (shown - real).abs() <= real.abs() * 1e-3,
                "the page says {shown}, simulate says {real}"
            );
        }
    }
}

#[test]
fn the_same_wedge_twice_gives_the_same_sheet_bytes_on_any_number_of_threads() {
    if !have_gl("the repeated wedge") {
        return;
    }
    let dir = scratch("wedge-twice");
    let (a, b) = (dir.join("a/sheet.png"), dir.join("b/sheet.png"));
    small_wedge_on(&a, "96x54", Some(3));
    small_wedge_on(&b, "96x54", Some(1));
    assert!(
        std::fs::read(&a).unwrap() == std::fs::read(&b).unwrap(),
        "the two sheets differ"
    );
    for i in 0..4 {
        let file = format!("sheet_cells/cell_{i:03}.json");
        let (pa, pb) = (dir.join("a").join(&file), dir.join("b").join(&file));
        assert_eq!(
            std::fs::read(pa).unwrap(),
            std::fs::read(pb).unwrap(),
            "{file}"
        );
    }
}

/// The share of two equal-sized pictures' pixels where some channel differs by more than 16.
fn differing_share(a: &[[u8; 4]], b: &[[u8; 4]]) -> f64 {
    let differing = a
        .iter()
        .zip(b)
        .filter(|(p, q)| p.iter().zip(q.iter()).any(|(x, y)| x.abs_diff(*y) > 16))
        .count();
    differing as f64 / a.len().max(1) as f64
}

/// Runs `wedge` on the tweed's dodge with `args` after the preset, writing `dir/sheet.png`;
/// returns the sheet, its layout's picture rectangles (in cell order) and the summary.
fn tweed_wedge(dir: &Path, args: &[&str]) -> (Rgba, Vec<Rect>, String) {
    let out = dir.join("sheet.png");
    let mut argv = vec!["wedge", "--preset", "presets/tweed.json", "--clip", "dodge"];
    argv.extend_from_slice(args);
    argv.extend_from_slice(&["--seconds", "0.5", "--out", out.to_str().unwrap()]);
    let o = cloth_tuner(&argv);
    assert!(
        o.status.success(),
        "wedge failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let sheet = read_png(&out).unwrap();
    // The cells as the page's clickable map places them, 270 pixels of picture each.
    let html = std::fs::read_to_string(dir.join("sheet.html")).unwrap();
    let rects = cell_rects_from_page(&html, 270);
    (
        sheet,
        rects,
        String::from_utf8_lossy(&o.stdout).into_owned(),
    )
}

/// Each cell's picture rectangle as the page's image map gives it (`coords="x0,y0,x1,y1"`),
/// less its label strip: the top `height` rows of it.
fn cell_rects_from_page(html: &str, height: u32) -> Vec<Rect> {
    html.split("coords=\"")
        .skip(1)
        .map(|t| {
            let c: Vec<u32> = t
                .split('"')
                .next()
                .unwrap()
                .split(',')
                .map(|n| n.parse().unwrap())
                .collect();
            Rect {
                x: c[0],
                y: c[1],
                width: c[2] - c[0],
                height,
            }
        })
        .collect()
}

#[test]
fn the_readmes_wedge_shows_each_knobs_ends_apart_in_the_pictures() {
    if !have_gl("the README's wedge") {
        return;
    }
    // The README's example as written there, with no --frame: the wedge picks it.
    let dir = scratch("wedge-readme");
    let (sheet, rects, summary) = tweed_wedge(
        &dir,
        &[
            "--knob",
            "damping=0.005:0.05:5",
            "--knob",
            "world_motion_fraction=0.1:0.3:3",
        ],
    );
    assert!(
        summary.contains("picked where the cells differ most"),
        "{summary}"
    );
    assert_eq!(rects.len(), 15);
    assert_eq!((rects[0].width, rects[0].height), (480, 270));
    let cell = |i: usize| region(&sheet, rects[i]);
    // Damping's ends across the first row, world-motion fraction's down the first column.
    for (a, b, knob) in [(0, 4, "damping"), (0, 10, "world_motion_fraction")] {
        let share = differing_share(&cell(a), &cell(b));
        eprintln!("{knob}: cells {a} and {b} differ in {:.1} %", share * 100.0);
        assert!(
            share >= 0.05,
            "{knob}: cells {a} and {b} differ in only {:.2} % of their pixels",
            share * 100.0
        );
    }
    // Shear/bend stiffness, its whole range, on its own.
    let dir = scratch("wedge-shear-bend");
    let (sheet, rects, _) = tweed_wedge(&dir, &["--knob", "shear_bend_stiffness=0:1:2"]);
    let share = differing_share(&region(&sheet, rects[0]), &region(&sheet, rects[1]));
    eprintln!(
        "shear_bend_stiffness: cells 0 and 1 differ in {:.1} %",
        share * 100.0
    );
    assert!(
        share >= 0.05,
        "shear/bend stiffness: the ends differ in only {:.2} %",
        share * 100.0
    );
}

#[test]
fn frames_give_each_cell_a_filmstrip_of_moments_that_differ() {
    if !have_gl("the filmstrip wedge") {
        return;
    }
    let dir = scratch("wedge-strip");
    let out = dir.join("sheet.png");
    let o = damping_wedge(
        &out,
        &[
            "--frames",
            "60,20,40",
            "--seconds",
            "0.5",
            "--cell-size",
            "160x90",
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let sheet = read_png(&out).unwrap();
    let spec = WedgeSpec {
        sweeps: vec![Sweep::parse(DAMPING).unwrap()],
        frames: vec![20, 40, 60],
        ..small_spec(160, 90)
    };
    let layout = spec.layout();
    assert_eq!(
        layout.cell_width,
        3 * 160 + 2 * cloth_tuner::tune::wedge::STRIP_GAP
    );
    assert_eq!(
        (sheet.width, sheet.height),
        (layout.width(), layout.height())
    );
    let html = std::fs::read_to_string(dir.join("sheet.html")).unwrap();
    assert!(
        html.contains("frames 20, 40, 60"),
        "the page names the frames"
    );
    for cell in 0..2 {
        let strip = layout.picture_rect(cell);
        let frame = |k: u32| {
            region(
                &sheet,
                Rect {
                    x: strip.x + k * (160 + cloth_tuner::tune::wedge::STRIP_GAP),
                    width: 160,
                    ..strip
                },
            )
        };
        for (a, b) in [(0, 1), (1, 2)] {
            let share = differing_share(&frame(a), &frame(b));
            assert!(
                share > 0.05,
                "cell {cell}: frames {a} and {b} differ in {share}"
            );
        }
    }
}

#[test]
fn the_page_plays_every_cells_clip_in_step_from_files_beside_it() {
    if !have_gl("the wedge's films") {
        return;
    }
    let dir = scratch("wedge-film");
    let out = dir.join("sheet.png");
    let o = damping_wedge(
        &out,
        &[
            "--frame",
            "30",
            "--film",
            "4",
            "--seconds",
            "0.5",
            "--cell-size",
            "128x72",
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let html = std::fs::read_to_string(dir.join("sheet.html")).unwrap();
    // One scrubber over four frames, and a film per cell from the cells' folder.
    assert!(
        html.contains("id=\"scrub\" min=\"0\" max=\"3\""),
        "no scrubber"
    );
    assert!(html.contains("<script>") && html.contains("setInterval"));
    for i in 0..2 {
        let name = format!("sheet_cells/cell_{i:03}_film.png");
        assert!(
            html.contains(&format!("src=\"{name}\"")),
            "{name} not on the page"
        );
        let film = read_png(&dir.join(&name)).unwrap();
        assert_eq!((film.width, film.height), (4 * 64, 36), "{name}");
        // The frames move: some frame differs from the first (the dodge ends where it began).
        let frame = |k: u32| {
            region(
                &film,
                Rect {
                    x: k * 64,
                    y: 0,
                    width: 64,
                    height: 36,
                },
            )
        };
        let most = (1..4)
            .map(|k| differing_share(&frame(0), &frame(k)))
            .fold(0.0, f64::max);
        assert!(
            most > 0.05,
            "{name}: the frames differ from the first in {most} at most"
        );
    }
    // Nothing the page loads lies outside its folder or needs a server.
    assert!(!html.contains("http://") && !html.contains("https://"));
}

/// Headless Chromium (Debian's `chromium`). Missing, the browser test skips with a note, and
/// fails when `CI=true` (`.ci/run` installs it).
fn chromium() -> Option<&'static str> {
    let found = ["chromium", "chromium-browser"].into_iter().find(|b| {
        Command::new("sh")
            .arg("-c")
            .arg(format!("command -v {b}"))
            .output()
            .is_ok_and(|o| o.status.success())
    });
    if found.is_none() {
        let ci = std::env::var("CI").is_ok_and(|v| v == "true");
        assert!(
            !ci,
            "CI=true and the browser test needs Chromium: apt-get install -y chromium (.ci/run does)"
        );
        eprintln!("skipping the browser test: no chromium (CI=true makes this a failure)");
    }
    found
}

#[test]
fn the_page_plays_in_a_real_browser() {
    if !have_gl("the browser test's wedge") {
        return;
    }
    let Some(browser) = chromium() else {
        return;
    };
    let dir = scratch("wedge-browser");
    let out = dir.join("sheet.png");
    let o = damping_wedge(
        &out,
        &[
            "--frame",
            "30",
            "--film",
            "6",
            "--seconds",
            "0.5",
            "--cell-size",
            "96x54",
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // The page from disk, as a user opens it; the DOM after 1.5 s of the page's own time.
    let page = format!("file://{}", dir.join("sheet.html").display());
    let profile = dir.join("profile");
    let o = Command::new("timeout")
        .arg("120")
        .arg(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--virtual-time-budget=1500",
            "--dump-dom",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(&page)
        .output()
        .expect("run chromium");
    let dom = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success() && dom.contains("scrub"),
        "chromium: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    // Every film moved on, and all by the same frames: in step.
    let shifts: Vec<&str> = dom
        .split("margin-left: ")
        .skip(1)
        .map(|t| t.split("px").next().unwrap())
        .collect();
    assert_eq!(shifts.len(), 2, "each film is shifted: {dom}");
    assert!(
        shifts.iter().all(|s| *s == shifts[0]),
        "out of step: {shifts:?}"
    );
    let frames = -shifts[0].parse::<i32>().unwrap() / 48;
    assert!(
        (1..6).contains(&frames),
        "after 1.5 s the films show frame {frames}"
    );
    assert!(
        !dom.contains("id=\"time\">0.00 s<"),
        "the clock did not move"
    );
}

/// Runs `wedge` with a good command changed by `change`, expects a refusal whose message
/// holds every one of `says`, and checks nothing was written.
fn refused(case: &str, change: &[(&str, &str)], says: &[&str]) {
    let dir = scratch(&format!("wedge-bad-{case}"));
    let out = dir.join("out/sheet.png");
    let mut args: Vec<(String, String)> = [
        ("--preset", "presets/tweed.json"),
        ("--knob", "damping=0.005:0.05:2"),
        ("--clip", "dodge"),
        ("--frame", "10"),
        ("--cell-size", "64x36"),
        ("--seconds", "0.5"),
        ("--out", out.to_str().unwrap()),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    for (k, v) in change {
        match args.iter_mut().find(|(a, _)| a == k) {
            Some(slot) => slot.1 = v.to_string(),
            None => args.push((k.to_string(), v.to_string())),
        }
    }
    let mut argv = vec!["wedge".to_string(), "--quiet".to_string()];
    for (k, v) in args {
        argv.push(k);
        argv.push(v);
    }
    let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
    let o = cloth_tuner(&argv);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{case}: accepted");
    for s in says {
        assert!(err.contains(s), "{case}: `{s}` not in: {err}");
    }
    assert!(!dir.join("out").exists(), "{case}: the out folder was made");
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert!(left.is_empty(), "{case}: wrote {left:?}");
}

#[test]
fn a_knob_that_does_not_exist_is_refused_with_the_knobs_there_are() {
    refused(
        "unknown-knob",
        &[("--knob", "dampnig=0.005:0.05:2")],
        &["no knob `dampnig`", "contact_damping"],
    );
}

#[test]
fn a_range_outside_the_knobs_limits_is_refused_with_the_limits() {
    refused(
        "range",
        &[("--knob", "damping=0.005:7:5")],
        &["damping: 7 is outside", "0 to 1"],
    );
}

#[test]
fn more_than_400_cells_needs_force() {
    let dir = scratch("wedge-bad-many");
    let out = dir.join("out/sheet.png");
    let o = cloth_tuner(&[
        "wedge",
        "--quiet",
        "--preset",
        "presets/tweed.json",
        "--knob",
        "damping=0.005:0.05:21",
        "--knob",
        "world_motion_fraction=0:1:20",
        "--out",
        out.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(
        err.contains("420 cells") && err.contains("--force"),
        "{err}"
    );
    assert!(!dir.join("out").exists());
}

#[test]
fn an_unknown_clip_is_refused_with_the_clips_there_are() {
    refused(
        "clip",
        &[("--clip", "moonwalk")],
        &["unknown clip `moonwalk`", "dodge", "walk"],
    );
}

#[test]
fn a_missing_preset_file_is_refused_by_name() {
    refused(
        "preset",
        &[("--preset", "presets/no_such_fabric.json")],
        &["presets/no_such_fabric.json"],
    );
}

#[test]
fn a_frame_out_of_range_is_refused() {
    refused(
        "frame",
        &[("--frame", "999999")],
        &["frame 999999 is out of range"],
    );
}

#[test]
fn an_output_folder_that_cannot_take_files_is_refused() {
    let dir = scratch("wedge-bad-folder");
    // A file where the folder should be: not writable for anyone, root included.
    let blocker = dir.join("not_a_folder");
    std::fs::write(&blocker, "x").unwrap();
    let out = blocker.join("sheets/sheet.png");
    let o = cloth_tuner(&[
        "wedge",
        "--quiet",
        "--preset",
        "presets/tweed.json",
        "--knob",
        "damping=0.005:0.05:2",
        "--out",
        out.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(
        err.contains("cannot write in the output folder") && err.contains("not a folder"),
        "{err}"
    );
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, vec![std::ffi::OsString::from("not_a_folder")]);
    assert_eq!(std::fs::read_to_string(&blocker).unwrap(), "x");
}

#[test]
fn a_sheet_that_is_not_a_png_is_refused() {
    refused(
        "not-png",
        &[("--out", "/nonexistent-wedge-test/sheet.jpg")],
        &["ending in .png"],
    );
}

/// The jacket's pixels in a picture of `scene` from `camera`: where the picture with the
/// jacket differs from the same picture without it. Returns their share of the picture and
/// the share of its height their rows span.
fn jacket_cover(
    offscreen: &mut cloth_tuner::render::headless::Offscreen,
    scene: &mut cloth_tuner::scene::Scene,
    camera: &CameraSpec,
) -> (f64, f64) {
    use cloth_tuner::render::{scene_data, Overlays};
    let cam = camera.camera(scene);
    let look = Preset::load("presets/tweed.json").unwrap().look;
    let with = offscreen.draw(&cam, &scene_data(scene, look), &Overlays::default());
    let bare = Overlays {
        jacket: false,
        ..Overlays::default()
    };
    let without = offscreen.draw(&cam, &scene_data(scene, look), &bare);
    let w = with.width as usize;
    let rows: Vec<usize> = (0..with.pixels.len())
        .filter(|&i| with.pixels[i] != without.pixels[i])
        .map(|i| i / w)
        .collect();
    let share = rows.len() as f64 / with.pixels.len() as f64;
    let span = match (rows.iter().min(), rows.iter().max()) {
        (Some(a), Some(b)) => (b - a + 1) as f64 / with.height as f64,
        _ => 0.0,
    };
    (share, span)
}

#[test]
fn the_garment_camera_fills_the_picture_with_the_jacket() {
    if !have_gl("the garment camera") {
        return;
    }
    use cloth_tuner::character::Character;
    use cloth_tuner::render::headless::{HeadlessGl, Offscreen};
    use cloth_tuner::scene::motion::ClipMotion;
    use cloth_tuner::scene::Scene;
    use std::sync::Arc;
    let character = Arc::new(Character::builtin());
    let preset = Preset::load("presets/tweed.json").unwrap();
    let motion = ClipMotion::of_clip(character.clone(), &preset, "dodge", &|| false).unwrap();
    let garment = CameraSpec::Garment(None).fitted(&[motion], 480, 270);
    assert!(matches!(garment, CameraSpec::Garment(Some(_))));
    let gl = HeadlessGl::new().unwrap();
    let mut offscreen = Offscreen::new(&gl, 480, 270).unwrap();
    let mut scene = Scene::new(character, &preset, "dodge").unwrap();
    for frame in [30, 60, 90] {
        while scene.steps() < frame {
            scene.step();
        }
        let (front, _) = jacket_cover(&mut offscreen, &mut scene, &CameraSpec::Front);
        let (share, span) = jacket_cover(&mut offscreen, &mut scene, &garment);
        eprintln!(
            "frame {frame}: the jacket covers {:.1} % from the front camera, {:.1} % (rows \
             over {:.0} % of the height) from the garment camera",
            front * 100.0,
            share * 100.0,
            span * 100.0
        );
        // A jacket stands taller than wide: filling the height of a 16:9 picture it covers
        // a fifth of it, over four times what the whole-body camera shows of it.
        assert!(
            share > 0.15 && share > 4.0 * front,
            "frame {frame}: {share} vs {front}"
        );
        assert!(
            span > 0.7,
            "frame {frame}: the jacket spans {span} of the height"
        );
    }
}

#[test]
fn render_frames_an_ab_picture_on_the_garment_with_trails_over_both_halves() {
    if !have_gl("render's garment camera") {
        return;
    }
    let dir = scratch("render-garment");
    let render = |sub: &str, extra: &[&str]| {
        let out = dir.join(sub);
        let mut args = vec![
            "render",
            "--quiet",
            "--preset",
            "presets/tweed.json",
            "--preset-b",
            "presets/down_jacket.json",
            "--clip",
            "dodge",
            "--frames",
            "60",
            "--size",
            "240x136",
            "--out",
            out.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let o = cloth_tuner(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        out
    };
    let plain = render("plain", &["--camera", "garment"]);
    let trails = render("trails", &["--camera", "garment", "--overlay", "trails"]);
    let name = "tweed_vs_down_jacket_dodge_garment_0060.png";
    let a = read_png(&plain.join(name)).unwrap();
    let b = read_png(&trails.join(name)).unwrap();
    assert_eq!((a.width, a.height), (2 * 240 + 4, 136));
    // The trails are drawn over both halves: each changes a visible share of its pixels.
    for half in [0, 244] {
        let r = Rect {
            x: half,
            y: 0,
            width: 240,
            height: 136,
        };
        let share = differing_share(&region(&a, r), &region(&b, r));
        assert!(
            share > 0.02,
            "the trails change {share} of the half at x {half}"
        );
    }
    // The garment camera is a view of its own, not the front camera's; the front camera's
    // own pictures are held by the regression goldens.
    let front = render("front", &[]);
    let front = read_png(&front.join("tweed_vs_down_jacket_dodge_front_0060.png")).unwrap();
    assert!(differing_share(&front.pixels, &a.pixels) > 0.2);
}
