//! The free panel both solvers run, its motions and its measurements, shared by
//! `examples/side_by_side` and `tests/tools/jolt_wasm.rs` (which includes this file by path, so each
//! uses only part of it).
#![allow(dead_code)]

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use cloth_tuner::scene::metrics::SETTLE_SPEED;
use cloth_tuner::sim::{Cloth, FabricParams, Frame, StepInput, Topology};
use glam::{Quat, Vec3};
use serde_json::Value;

/// The panel: columns along X, rows down, 5 cm apart, hanging from its top row.
pub const COLS: usize = 9;
pub const ROWS: usize = 10;
pub const SPACING: f32 = 0.05;
/// Output frames a second (and the engine step).
pub const FPS: f32 = 60.0;
/// Seconds simulated per motion.
pub const SECONDS: f32 = 6.0;

/// One of the motions: the top row's offset along Z at every frame, where the motion ends
/// (settle time counts from there) and the initial tilt of the panel about its top edge.
pub struct Motion {
    pub name: &'static str,
    pub offset_z: Vec<f32>,
    pub end_s: f32,
    pub tilt_deg: f32,
}

pub fn motions() -> Vec<Motion> {
    let frames = (SECONDS * FPS) as usize;
    let t = |i: usize| (i + 1) as f32 / FPS;
    vec![
        Motion {
            name: "hanging (released at 30°)",
            offset_z: vec![0.0; frames],
            end_s: 0.0,
            tilt_deg: 30.0,
        },
        Motion {
            name: "sway (1 Hz, 10 cm, 3 s)",
            offset_z: (0..frames)
                .map(|i| {
                    if t(i) < 3.0 {
                        0.1 * (std::f32::consts::TAU * t(i)).sin()
                    } else {
                        0.0
                    }
                })
                .collect(),
            end_s: 3.0,
            tilt_deg: 0.0,
        },
        Motion {
            name: "stop (1.5 m/s for 0.5 s)",
            offset_z: (0..frames).map(|i| 1.5 * t(i).min(0.5)).collect(),
            end_s: 0.5,
            tilt_deg: 0.0,
        },
    ]
}

/// `m` run on to `seconds` in all, the top row held where the motion left it.
pub fn lengthened(m: Motion, seconds: f32) -> Motion {
    let frames = (seconds * FPS) as usize;
    let last = m.offset_z.last().copied().unwrap_or(0.0);
    let mut offset_z = m.offset_z;
    offset_z.resize(frames.max(offset_z.len()), last);
    Motion { offset_z, ..m }
}

/// The panel's rest positions, and its start tilted about the top edge toward +Z.
pub fn panel(tilt_deg: f32) -> (Vec<Vec3>, Vec<Vec3>) {
    let top_left = Vec3::new(-0.2, 1.5, 0.0);
    let rest = Topology::flat_grid(COLS, ROWS, SPACING, top_left).rest;
    let tilt = Quat::from_rotation_x(-tilt_deg.to_radians());
    let start = rest
        .iter()
        .map(|p| top_left + tilt * (*p - top_left))
        .collect();
    (rest, start)
}

/// The fabric as the comparison runs it: no wind (Jolt has none). The max distances stay:
/// both solvers hold each particle near the panel's skinned pose, which moves with the top
/// row (our reference points; Jolt's skinned constraints).
pub fn comparable(params: &FabricParams) -> FabricParams {
    FabricParams {
        wind_speed: 0.0,
        ..params.clone()
    }
}

/// Our solver on one motion: the positions after every frame.
pub fn run_ours(params: &FabricParams, m: &Motion) -> Vec<Vec<Vec3>> {
    let (rest, start) = panel(m.tilt_deg);
    let topo = Topology::from_grid(COLS, ROWS, rest.clone()).expect("a valid panel");
    let mut cloth = Cloth::new(topo, params);
    cloth.reset_to(&start).expect("finite start");
    let mut reference = rest.clone();
    m.offset_z
        .iter()
        .map(|&dz| {
            for (r, p) in reference.iter_mut().zip(&rest) {
                *r = *p + Vec3::Z * dz;
            }
            let input = StepInput {
                frame: Frame::IDENTITY,
                reference: &reference,
                colliders: &[],
                leg_lines: None,
            };
            cloth.step(&input).expect("valid input");
            cloth.positions().to_vec()
        })
        .collect()
}

/// What the measurements say about one run.
pub struct Measured {
    /// None: still moving at the end of the run.
    pub settle_s: Option<f32>,
    pub swing_cm: f32,
    pub stretch_pct: f32,
    /// Every position of every frame was a number.
    pub finite: bool,
}

impl Measured {
    /// One row of the table.
    pub fn row(&self, motion: &str, solver: &str) -> String {
        if !self.finite {
            return format!("| {motion} | {solver} | positions not finite | | |");
        }
        let settle = self
            .settle_s
            .map_or("not settled".to_string(), |s| format!("{s:.2}"));
        format!(
            "| {motion} | {solver} | {settle} | {:.1} | {:.2} |",
            self.swing_cm, self.stretch_pct
        )
    }
}

/// Measured as `simulate` measures the jacket: hem swing is the hem particles' distance from
/// their reference points (the skinned pose, here the rest pose moved with the top row), its
/// peak over the run; settle time runs from the end of the motion until the hem moves slower
/// than [`SETTLE_SPEED`] relative to its reference and stays so; stretch is the largest
/// vertical link's excess over its rest length.
pub fn measure(frames: &[Vec<Vec3>], m: &Motion) -> Measured {
    let cols = COLS;
    let hem = (ROWS - 1) * cols;
    let (rest, _) = panel(0.0);
    let offsets = |f: usize| -> Vec<Vec3> {
        (hem..hem + cols)
            .map(|i| frames[f][i] - (rest[i] + Vec3::Z * m.offset_z[f]))
            .collect()
    };
    let (mut swing, mut stretch, mut settled_since) = (0f32, 0f32, None);
    let mut prev = offsets(0);
    for (i, f) in frames.iter().enumerate() {
        let now = offsets(i);
        swing = swing.max(now.iter().map(|o| o.length()).fold(0.0, f32::max));
        for j in cols..f.len() {
            stretch = stretch.max(f[j].distance(f[j - cols]) / SPACING - 1.0);
        }
        let speed = now
            .iter()
            .zip(&prev)
            .map(|(a, b)| a.distance(*b) * FPS)
            .fold(0.0, f32::max);
        let t = (i + 1) as f32 / FPS;
        if speed < SETTLE_SPEED {
            settled_since.get_or_insert(t);
        } else {
            settled_since = None;
        }
        prev = now;
    }
    Measured {
        settle_s: settled_since.map(|s: f32| (s - m.end_s).max(0.0)),
        swing_cm: swing * 100.0,
        stretch_pct: stretch * 100.0,
        finite: frames.iter().flatten().all(|p| p.is_finite()),
    }
}

/// Writes what the Jolt program reads: the exported settings as `key value` lines, the start
/// positions and the motion.
pub fn write_jolt_inputs(dir: &Path, settings: &Value, m: &Motion) -> std::io::Result<()> {
    let sb = &settings["properties"]["SoftBodyCreationSettings"];
    let mut s = format!("cols {}\nrows {}\n", COLS, ROWS);
    for key in ["mNumIterations", "mLinearDamping", "mGravityFactor"] {
        let _ = writeln!(s, "{key} {}", sb[key]);
    }
    for (r, a) in settings["properties"]["VertexAttributes"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let lra = match a["mLRAType"].as_str() {
            Some("GeodesicDistance") => 2,
            Some("EuclideanDistance") => 1,
            _ => 0,
        };
        let _ = writeln!(
            s,
            "row {r} {} {} {} {lra}",
            a["mCompliance"], a["mShearCompliance"], a["mBendCompliance"]
        );
    }
    for (i, v) in settings["per_particle"]["mVertices"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let _ = writeln!(s, "invmass {i} {}", v["mInvMass"]);
    }
    for k in settings["per_particle"]["mSkinnedConstraints"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let _ = writeln!(s, "maxdistance {} {}", k["mVertex"], k["mMaxDistance"]);
    }
    std::fs::write(dir.join("settings.txt"), s)?;
    // The skinned (rest) pose, then the start.
    let (rest, start) = panel(m.tilt_deg);
    let points: String = rest
        .iter()
        .chain(&start)
        .map(|p| format!("{} {} {}\n", p.x, p.y, p.z))
        .collect();
    std::fs::write(dir.join("start.txt"), points)?;
    let motion: String = m.offset_z.iter().map(|z| format!("{z}\n")).collect();
    std::fs::write(dir.join("motion.txt"), motion)
}

/// Runs the Jolt program on the inputs in `dir` and reads its trace.
pub fn run_jolt(bin: &Path, dir: &Path) -> Result<Vec<Vec<Vec3>>, String> {
    let trace = dir.join("trace.txt");
    let status = Command::new(bin)
        .arg(dir.join("settings.txt"))
        .arg(dir.join("start.txt"))
        .arg(dir.join("motion.txt"))
        .arg(&trace)
        .status()
        .map_err(|e| format!("cannot run {}: {e}", bin.display()))?;
    if !status.success() {
        return Err(format!("{} failed: {status}", bin.display()));
    }
    read_trace(&trace)
}

/// What Jolt's WebAssembly build made of the export (`tools/jolt-wasm/panel.mjs`).
pub struct WasmRun {
    /// The positions after every frame.
    pub frames: Vec<Vec<Vec3>>,
    /// The long range attachments `CreateConstraints` built.
    pub lra: u64,
}

/// Runs Jolt's WebAssembly build in Node (`tools/jolt-wasm/panel.mjs`, from `tool_dir`) on the
/// settings file `export --engine jolt` wrote (`export_json`), with the start and motion that
/// [`write_jolt_inputs`] put in `dir`.
pub fn run_jolt_wasm(tool_dir: &Path, dir: &Path, export_json: &str) -> Result<WasmRun, String> {
    let settings = dir.join("export.json");
    std::fs::write(&settings, export_json).map_err(|e| format!("{}: {e}", settings.display()))?;
    let trace = dir.join("trace.txt");
    let out = Command::new("node")
        .current_dir(tool_dir)
        .arg("panel.mjs")
        .arg(&settings)
        .arg(dir.join("start.txt"))
        .arg(dir.join("motion.txt"))
        .arg(&trace)
        .output()
        .map_err(|e| format!("cannot run node: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "node panel.mjs failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let report: Value = serde_json::from_slice(&out.stdout)
        .map_err(|e| format!("panel.mjs printed no report: {e}"))?;
    Ok(WasmRun {
        frames: read_trace(&trace)?,
        lra: report["lra"].as_u64().ok_or("panel.mjs: no `lra` count")?,
    })
}

/// A trace: one line per frame, `x y z` of every particle.
fn read_trace(trace: &Path) -> Result<Vec<Vec<Vec3>>, String> {
    let text = std::fs::read_to_string(trace).map_err(|e| format!("{}: {e}", trace.display()))?;
    text.lines()
        .map(|line| {
            let v: Vec<f32> = line
                .split_whitespace()
                .filter_map(|x| x.parse().ok())
                .collect();
            if v.len() != 3 * COLS * ROWS {
                return Err(format!(
                    "{}: a frame has {} numbers",
                    trace.display(),
                    v.len()
                ));
            }
            Ok(v.chunks(3).map(|c| Vec3::new(c[0], c[1], c[2])).collect())
        })
        .collect()
}
