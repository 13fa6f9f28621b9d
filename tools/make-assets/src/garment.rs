//! Garments for the tuner's imported-garment tests: a long coat, a skirt and a short jacket,
//! made around the mannequin's bind pose and written as exporters write them.
//!
//! Each garment is one layer of cloth that encloses the body where it covers it, with some
//! ease. The body part is a tube around the vertical axis: its columns run from the front
//! opening round the back to the other front edge (or all the way round, for the skirt), and
//! along each column the radius is the outer envelope of the skin grown by the ease, so the
//! garment follows the body's widest point at each height and hangs straight or flares below
//! the hips. The sleeves are tubes round the arm's axis whose roots lie inside the body part,
//! so the two read as one garment. As an exporter writes a mesh: vertices split along the UV
//! seams (the back seam, the sleeves' underarm seams), skin weights transferred from the
//! nearest skin of the body part each piece covers.
//!
//! The garments go into a test rig's own file (see [`crate::test_rig::RigStyle::garments`])
//! or into a file of their own ([`garment_file_glb`]), whose skin lists the joints in another
//! order than the body's. Like the rest of the generator, only IEEE arithmetic and square
//! roots: the bytes do not depend on the machine.

use glam::{Quat, Vec3};
use serde_json::{json, Value};

use crate::body::{self, b, BodyMesh, BoneDef};
use crate::dmath;
use crate::test_rig::{self, RigStyle, TEST_GENERATOR};

/// The garments the generator makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GarmentKind {
    /// Open at the front, from the base of the neck to mid-shin, with sleeves to the wrists.
    LongCoat,
    /// A closed loop from the waist to just above the knees, flaring.
    Skirt,
    /// Open at the front, from the base of the neck to the hips, with sleeves to near the
    /// wrists.
    ShortJacket,
}

impl GarmentKind {
    /// Every kind, in a fixed order.
    pub const ALL: [GarmentKind; 3] = [
        GarmentKind::LongCoat,
        GarmentKind::Skirt,
        GarmentKind::ShortJacket,
    ];

    /// The garment's mesh and node name.
    pub fn name(self) -> &'static str {
        match self {
            GarmentKind::LongCoat => "long_coat",
            GarmentKind::Skirt => "skirt",
            GarmentKind::ShortJacket => "short_jacket",
        }
    }
}

/// A skinned garment mesh in the bind pose, character space (metres, +Y up, facing +Z, left
/// at +X), joints as indices into [`body::bones`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GarmentMesh {
    pub name: String,
    pub positions: Vec<Vec3>,
    pub normals: Vec<Vec3>,
    pub uvs: Vec<[f32; 2]>,
    pub indices: Vec<u32>,
    pub joints: Vec<[u16; 4]>,
    pub weights: Vec<[f32; 4]>,
}

impl GarmentMesh {
    /// The mesh seen through the similarity `point` whose rotation is `r` (as a test rig
    /// transforms its body).
    pub fn transform(&mut self, r: Quat, point: impl Fn(Vec3) -> Vec3) {
        for p in &mut self.positions {
            *p = point(*p);
        }
        for n in &mut self.normals {
            *n = r * *n;
        }
    }

    /// The same mesh with its vertices listed in another order, the triangles following:
    /// vertex `k` is the one listed at `order[k]` before. Returns, per vertex as listed
    /// before, where it is listed now.
    pub fn reorder(&mut self, order: &[usize]) -> Vec<usize> {
        let mut at = vec![0; order.len()];
        for (k, &old) in order.iter().enumerate() {
            at[old] = k;
        }
        fn pick<T: Copy>(v: &[T], order: &[usize]) -> Vec<T> {
            order.iter().map(|&o| v[o]).collect()
        }
        self.positions = pick(&self.positions, order);
        self.normals = pick(&self.normals, order);
        self.uvs = pick(&self.uvs, order);
        self.joints = pick(&self.joints, order);
        self.weights = pick(&self.weights, order);
        for i in &mut self.indices {
            *i = at[*i as usize] as u32;
        }
        at
    }
}

/// Distance the garments aim for between neighbouring vertices, metres.
const SPACING: f32 = 0.02;
/// The body part's axis: vertical, through x = 0 and this z.
const AXIS_Z: f32 = -0.01;
/// Height step of a column's profile above the split, where the profile can turn
/// horizontal (over the shoulders).
const PROFILE_STEP: f32 = 0.0025;
/// Smallest radius of a ring round an axis.
const MIN_RADIUS: f32 = 0.03;
/// Vertices round a sleeve.
const SLEEVE_AROUND: usize = 24;
/// Where a sleeve starts along the arm from the shoulder joint: a little inside the shoulder,
/// so that its open end is hidden in the body part.
const SLEEVE_START: f32 = -0.01;
/// Up to here along the arm a sleeve keeps the radius it has here: inside the shoulder the
/// arm's own skin gives no measure.
const SLEEVE_CLAMP: f32 = 0.03;
/// Clearance the body part keeps round the sleeve's root (the rings up to
/// [`SLEEVE_CLAMP`]), so the root lies inside it.
const ROOT_EASE: f32 = 0.015;
/// Fractions of the radius at which a sleeve's root rings are filled in (closer together than
/// twice [`ROOT_EASE`] over the ring's radius, so the balls round them overlap).
const ROOT_FILL: [f32; 6] = [0.0, 0.2, 0.4, 0.6, 0.8, 1.0];
/// Body vertices whose weights are merged into each garment vertex's.
const NEAREST: usize = 6;
/// Influences below this share of a vertex's weight are dropped, as the body's are.
const MIN_WEIGHT: f64 = 0.01;

/// Where a garment starts and ends and how it fits.
struct Spec {
    name: &'static str,
    /// Height of the collar or waistband, metres.
    top: f32,
    /// Below this height the rows lie at equal heights; above it, at equal distances along
    /// each column (the columns turn in over the shoulders).
    split: f32,
    /// Height of the hem.
    bottom: f32,
    /// Below this height the garment is never narrower than the row above.
    straight_below: f32,
    /// Radius gained per metre of drop below `straight_below`.
    flare: f32,
    /// Clearance over the skin, metres.
    ease: f32,
    /// Angle between the two front edges, degrees (0: a closed loop).
    gap_deg: f64,
    /// Columns round the body part (intervals between vertex columns).
    columns: usize,
    /// The sleeves' end along the arm from the shoulder joint, and their ease (none: no
    /// sleeves).
    sleeves: Option<(f32, f32)>,
    /// Distance between rows, metres ([`SPACING`]).
    spacing: f32,
    /// Columns round a sleeve ([`SLEEVE_AROUND`]).
    around: usize,
}

/// Each garment's fit, its heights taken from the bones.
fn spec(kind: GarmentKind, bones: &[BoneDef]) -> Spec {
    let y = |i: usize| bones[i].pos.y;
    let neck_base = y(b::NECK) + 0.05;
    let chest = y(b::CHEST) + 0.02;
    let hips = y(b::thigh(0)) + 0.005;
    let arm = body::UPPERARM_LEN + body::FOREARM_LEN;
    match kind {
        GarmentKind::LongCoat => Spec {
            name: kind.name(),
            top: neck_base,
            split: chest,
            bottom: 0.5 * (y(b::calf(0)) + y(b::foot(0))),
            straight_below: hips,
            flare: 0.1,
            ease: 0.035,
            gap_deg: 36.0,
            columns: 72,
            sleeves: Some((arm, 0.03)),
            spacing: SPACING,
            around: SLEEVE_AROUND,
        },
        GarmentKind::Skirt => Spec {
            name: kind.name(),
            top: y(b::SPINE),
            split: y(b::SPINE),
            bottom: y(b::calf(0)) + 0.08,
            straight_below: y(b::SPINE),
            flare: 0.22,
            ease: 0.025,
            gap_deg: 0.0,
            columns: 80,
            sleeves: None,
            spacing: SPACING,
            around: SLEEVE_AROUND,
        },
        GarmentKind::ShortJacket => Spec {
            name: kind.name(),
            top: neck_base,
            split: chest,
            bottom: hips - 0.055,
            straight_below: hips,
            flare: 0.05,
            ease: 0.03,
            gap_deg: 32.0,
            columns: 64,
            sleeves: Some((arm - 0.04, 0.025)),
            spacing: SPACING,
            around: SLEEVE_AROUND,
        },
    }
}

/// The garment `kind` made around `body` in its bind pose.
pub fn garment_mesh(kind: GarmentKind, bones: &[BoneDef], body: &BodyMesh) -> GarmentMesh {
    garment_mesh_fine(kind, bones, body, 1)
}

/// [`garment_mesh`] `fine` times finer: that many times the rows and the columns (about
/// `fine`² times the vertices), the same shape.
pub fn garment_mesh_fine(
    kind: GarmentKind,
    bones: &[BoneDef],
    body: &BodyMesh,
    fine: usize,
) -> GarmentMesh {
    let mut spec = spec(kind, bones);
    let fine = fine.max(1);
    spec.columns *= fine;
    spec.around *= fine;
    spec.spacing /= fine as f32;
    let part = classify(body);
    let mut out = GarmentMesh {
        name: spec.name.to_string(),
        ..GarmentMesh::default()
    };
    let mut sleeves = Vec::new();
    if let Some((end, ease)) = spec.sleeves {
        for side in 0..2 {
            let arm = bones[b::upperarm(side)].pos;
            let dir = body::arm_dir(side);
            let skin = body
                .positions
                .iter()
                .zip(&part)
                .filter(|(_, &k)| k == Part::Arm(side))
                .map(|(&p, _)| (p, ease));
            let cloud = Cloud::new(dir, skin);
            sleeves.push((side, sleeve_sheet(&spec, arm, dir, end, &cloud)));
        }
    }
    // The body part encloses the torso's skin and the sleeves' roots.
    let torso = body
        .positions
        .iter()
        .zip(&part)
        .filter(|(_, &k)| k == Part::Torso)
        .map(|(&p, _)| (p, spec.ease));
    let roots = sleeves.iter().flat_map(|(_, s)| s.root_points());
    let cloud = Cloud::new(Vec3::Y, torso.chain(roots.map(|p| (p, ROOT_EASE))));
    let sheet = body_sheet(&spec, &cloud);
    let half = spec.columns / 2;
    let panels: Vec<Panel> = if spec.gap_deg > 0.0 {
        // Two panels joined at the back seam, as two UV islands.
        vec![
            Panel::new(0, half, 0.0, 0.48),
            Panel::new(half, spec.columns, 0.52, 1.0),
        ]
    } else {
        vec![Panel::new(0, spec.columns, 0.0, 1.0)]
    };
    let radial = |p: Vec3| Vec3::new(p.x, 0.0, p.z - AXIS_Z);
    let v_body = if sleeves.is_empty() { 1.0 } else { 0.6 };
    let sources = Nearest::new(body, &part, Part::Torso);
    emit(&mut out, &sheet, radial, &panels, (0.0, v_body), &sources);
    for (side, sleeve) in &sleeves {
        let arm = bones[b::upperarm(*side)].pos;
        let dir = body::arm_dir(*side);
        let from_axis = |p: Vec3| {
            let d = p - arm;
            d - dir * d.dot(dir)
        };
        let u = if *side == 0 { (0.0, 0.48) } else { (0.52, 1.0) };
        let panel = [Panel::new(0, spec.around, u.0, u.1)];
        let sources = Nearest::new(body, &part, Part::Arm(*side));
        emit(&mut out, sleeve, from_axis, &panel, (0.62, 1.0), &sources);
    }
    out
}

/// The garment meshes of `kinds` made around `body`, in that order.
pub fn garment_meshes(
    kinds: &[GarmentKind],
    bones: &[BoneDef],
    body: &BodyMesh,
) -> Vec<GarmentMesh> {
    kinds
        .iter()
        .map(|&k| garment_mesh(k, bones, body))
        .collect()
}

/// Which part of the body a skin vertex belongs to, by its weights.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    /// Trunk, neck, head and legs: under the body part.
    Torso,
    /// One side's arm above the wrist: under a sleeve.
    Arm(usize),
    /// A hand: under nothing.
    Hand(usize),
}

/// Each body vertex's part: an arm's when its arm bones carry at least half its weight.
fn classify(body: &BodyMesh) -> Vec<Part> {
    let arm_bones = |side: usize| {
        [
            b::upperarm(side),
            b::upperarm_twist(side),
            b::forearm(side),
            b::forearm_twist(side),
            b::hand(side),
        ]
    };
    body.joints
        .iter()
        .zip(&body.weights)
        .map(|(j, w)| {
            let on = |bones: &[usize]| -> f32 {
                (0..4)
                    .filter(|&k| bones.contains(&(j[k] as usize)))
                    .map(|k| w[k])
                    .sum()
            };
            for side in 0..2 {
                if on(&arm_bones(side)) >= 0.5 {
                    return if on(&[b::hand(side)]) >= 0.5 {
                        Part::Hand(side)
                    } else {
                        Part::Arm(side)
                    };
                }
            }
            Part::Torso
        })
        .collect()
}

/// Points a surface must enclose, each with its own clearance, sorted along an axis so a ray
/// perpendicular to that axis visits only the points near it.
struct Cloud {
    axis: Vec3,
    /// (position along the axis, point, clearance)
    items: Vec<(f32, Vec3, f32)>,
    max_ease: f32,
}

impl Cloud {
    fn new(axis: Vec3, points: impl Iterator<Item = (Vec3, f32)>) -> Self {
        let mut items: Vec<(f32, Vec3, f32)> = points.map(|(p, e)| (p.dot(axis), p, e)).collect();
        items.sort_by(|a, b| a.0.total_cmp(&b.0));
        let max_ease = items.iter().map(|i| i.2).fold(0.0, f32::max);
        Self {
            axis,
            items,
            max_ease,
        }
    }

    /// How far along the ray from `origin` in the unit direction `dir` (perpendicular to the
    /// axis) the points grown by their clearances reach: the far side of the farthest ball
    /// the ray passes through (0 when it passes through none).
    fn reach(&self, origin: Vec3, dir: Vec3) -> f32 {
        let k = origin.dot(self.axis);
        let first = self.items.partition_point(|i| i.0 < k - self.max_ease);
        let mut best = 0.0f32;
        for &(key, p, e) in &self.items[first..] {
            if key > k + self.max_ease {
                break;
            }
            let d = p - origin;
            let t0 = d.dot(dir);
            let perp2 = d.length_squared() - t0 * t0;
            if perp2 < e * e {
                best = best.max(t0 + (e * e - perp2).sqrt());
            }
        }
        best
    }
}

/// A grid of points, `rows` by `cols`, row-major. In a closed loop the last column repeats
/// the first's positions (the seam's two sides).
struct Sheet {
    rows: usize,
    cols: usize,
    pos: Vec<Vec3>,
    closed: bool,
    /// The centres of a sleeve's rings that lie no farther along the arm than
    /// [`SLEEVE_CLAMP`] (its root; none for the body part).
    root_centres: Vec<Vec3>,
}

impl Sheet {
    fn at(&self, i: usize, j: usize) -> Vec3 {
        self.pos[i * self.cols + j]
    }

    /// A sleeve's root rings filled in as discs: a ray through the shoulder leaves the body's
    /// skin where the arm's begins, so the body part must close round the whole root, not
    /// only its rim.
    fn root_points(&self) -> impl Iterator<Item = Vec3> + '_ {
        self.root_centres
            .iter()
            .enumerate()
            .flat_map(move |(i, &c)| {
                let ring = &self.pos[i * self.cols..(i + 1) * self.cols - 1];
                ROOT_FILL
                    .iter()
                    .flat_map(move |&f| ring.iter().map(move |&p| c + (p - c) * f))
            })
    }
}

/// Unit direction in the horizontal plane at angle `theta` from +Z towards +X (the left).
fn heading(theta: f64) -> Vec3 {
    Vec3::new(dmath::sin(theta) as f32, 0.0, dmath::cos(theta) as f32)
}

/// The body part: columns round the body, rows from the collar or waistband to the hem.
fn body_sheet(spec: &Spec, cloud: &Cloud) -> Sheet {
    let dirs = column_dirs(spec);
    let closed = spec.gap_deg <= 0.0;
    let axis = |y: f32| Vec3::new(0.0, y, AXIS_Z);
    // The radius along every column at every height: every PROFILE_STEP above the split,
    // every row below it.
    let n_profile = ((spec.top - spec.split) / PROFILE_STEP).ceil() as usize;
    let n_bottom = ((spec.split - spec.bottom) / spec.spacing).ceil().max(1.0) as usize;
    let mut heights: Vec<f32> = (0..n_profile)
        .map(|k| spec.top - (spec.top - spec.split) * k as f32 / n_profile as f32)
        .collect();
    heights.extend(
        (0..=n_bottom)
            .map(|i| spec.split - (spec.split - spec.bottom) * i as f32 / n_bottom as f32),
    );
    let cols = dirs.len();
    let mut radius: Vec<f32> = heights
        .iter()
        .flat_map(|&y| dirs.iter().map(move |&d| (y, d)))
        .map(|(y, d)| cloud.reach(axis(y), d).max(MIN_RADIUS))
        .collect();
    smooth(&mut radius, heights.len(), cols, closed);
    // Below the hips it hangs straight or flares: never narrower than the row above.
    for h in n_profile + 1..heights.len() {
        if heights[h] < spec.straight_below {
            for j in 0..cols {
                let above = radius[(h - 1) * cols + j];
                let r = &mut radius[h * cols + j];
                *r = r.max(above) + spec.flare * (heights[h - 1] - heights[h]);
            }
        }
    }
    // Above the split each column's profile (radius, height) resampled at equal distances
    // along it, as many rows in every column as the longest needs.
    let profiles: Vec<Vec<(f32, f32)>> = (0..cols)
        .map(|j| {
            (0..=n_profile)
                .map(|k| (radius[k * cols + j], heights[k]))
                .collect()
        })
        .collect();
    let longest = if n_profile == 0 {
        0.0
    } else {
        profiles.iter().map(|p| arc_length(p)).fold(0.0, f32::max)
    };
    let n_top = (longest / spec.spacing).ceil() as usize;
    let rows = n_top + n_bottom + 1;
    let mut pos = vec![Vec3::ZERO; rows * cols];
    for (j, &d) in dirs.iter().enumerate() {
        for i in 0..n_top {
            let (r, y) = resample(&profiles[j], i as f32 / n_top as f32);
            pos[i * cols + j] = axis(y) + d * r;
        }
        for i in 0..=n_bottom {
            let h = n_profile + i;
            pos[(n_top + i) * cols + j] = axis(heights[h]) + d * radius[h * cols + j];
        }
    }
    if closed {
        for i in 0..rows {
            pos[i * cols + cols - 1] = pos[i * cols];
        }
    }
    Sheet {
        rows,
        cols,
        pos,
        closed,
        root_centres: Vec::new(),
    }
}

/// The directions of the body part's columns: from the left front edge round the back to the
/// right one, or from the back all the way round for a closed loop (the last column then
/// repeats the first).
fn column_dirs(spec: &Spec) -> Vec<Vec3> {
    let pi = std::f64::consts::PI;
    let n = spec.columns;
    (0..=n)
        .map(|j| {
            let f = j as f64 / n as f64;
            if spec.gap_deg <= 0.0 {
                heading(pi + 2.0 * pi * f)
            } else {
                let a = dmath::deg(0.5 * spec.gap_deg);
                heading(a + (2.0 * pi - 2.0 * a) * f)
            }
        })
        .collect()
}

/// Passes of [`smooth`].
const SMOOTHING_PASSES: usize = 2;

/// Smooths a `rows` by `cols` field with a 1-2-1 filter along both, so the envelope's small
/// bumps (one per skin vertex) do not show as ripples. Ends are held; a closed loop's columns
/// wrap round (its last column repeats the first).
fn smooth(field: &mut [f32], rows: usize, cols: usize, closed: bool) {
    let mut next = field.to_vec();
    for _ in 0..SMOOTHING_PASSES {
        for i in 0..rows {
            for j in 0..cols {
                let (l, r) = match (j, closed) {
                    (0, true) => (cols - 2, 1),
                    (j, true) if j == cols - 1 => (j - 1, 1),
                    (j, _) => (j.saturating_sub(1), (j + 1).min(cols - 1)),
                };
                let at = |c: usize| field[i * cols + c];
                next[i * cols + j] = 0.25 * (at(l) + 2.0 * at(j) + at(r));
            }
        }
        field.copy_from_slice(&next);
        for i in 0..rows {
            let (u, d) = (i.saturating_sub(1), (i + 1).min(rows - 1));
            for j in 0..cols {
                let at = |r: usize| field[r * cols + j];
                next[i * cols + j] = 0.25 * (at(u) + 2.0 * at(i) + at(d));
            }
        }
        field.copy_from_slice(&next);
    }
}

/// Length of the step between two profile points (square root, not the C library's hypot).
fn step(a: (f32, f32), b: (f32, f32)) -> f32 {
    let (dr, dy) = (b.0 - a.0, b.1 - a.1);
    (dr * dr + dy * dy).sqrt()
}

/// A profile's length in the plane of its column.
fn arc_length(profile: &[(f32, f32)]) -> f32 {
    profile.windows(2).map(|w| step(w[0], w[1])).sum()
}

/// The point at fraction `f` of the profile's length.
fn resample(profile: &[(f32, f32)], f: f32) -> (f32, f32) {
    let target = f * arc_length(profile);
    let mut walked = 0.0;
    for w in profile.windows(2) {
        let length = step(w[0], w[1]);
        if walked + length >= target && length > 0.0 {
            let s = (target - walked) / length;
            return (
                w[0].0 + (w[1].0 - w[0].0) * s,
                w[0].1 + (w[1].1 - w[0].1) * s,
            );
        }
        walked += length;
    }
    profile[profile.len() - 1]
}

/// A sleeve round the arm from the shoulder joint `shoulder` along the unit `dir` to `end`:
/// rings along the arm (`spec.spacing` apart), `spec.around` columns round it from the
/// underarm seam.
fn sleeve_sheet(spec: &Spec, shoulder: Vec3, dir: Vec3, end: f32, cloud: &Cloud) -> Sheet {
    let n_around = spec.around;
    let pi = std::f64::consts::PI;
    let up = (Vec3::Y - dir * Vec3::Y.dot(dir)).normalize();
    let across = dir.cross(up);
    let n = ((end - SLEEVE_START) / spec.spacing).ceil() as usize;
    let rows = n + 1;
    let cols = n_around + 1;
    let mut pos = vec![Vec3::ZERO; rows * cols];
    let around: Vec<Vec3> = (0..n_around)
        .map(|m| {
            let phi = pi + 2.0 * pi * m as f64 / n_around as f64;
            up * dmath::cos(phi) as f32 + across * dmath::sin(phi) as f32
        })
        .collect();
    let along: Vec<f32> = (0..rows)
        .map(|i| SLEEVE_START + (end - SLEEVE_START) * i as f32 / n as f32)
        .collect();
    let root_centres = along
        .iter()
        .filter(|&&t| t <= SLEEVE_CLAMP)
        .map(|&t| shoulder + dir * t)
        .collect();
    let mut radius = vec![0.0f32; rows * cols];
    for (i, &t) in along.iter().enumerate() {
        let measured = shoulder + dir * t.max(SLEEVE_CLAMP);
        for (m, &d) in around.iter().enumerate() {
            radius[i * cols + m] = cloud.reach(measured, d).max(MIN_RADIUS);
        }
        radius[i * cols + n_around] = radius[i * cols];
    }
    smooth(&mut radius, rows, cols, true);
    for (i, &t) in along.iter().enumerate() {
        for (m, &d) in around.iter().enumerate() {
            pos[i * cols + m] = shoulder + dir * t + d * radius[i * cols + m];
        }
        pos[i * cols + n_around] = pos[i * cols];
    }
    Sheet {
        rows,
        cols,
        pos,
        closed: true,
        root_centres,
    }
}

/// A run of a sheet's columns written as one UV island.
struct Panel {
    first: usize,
    last: usize,
    u: (f32, f32),
}

impl Panel {
    fn new(first: usize, last: usize, u0: f32, u1: f32) -> Self {
        Self {
            first,
            last,
            u: (u0, u1),
        }
    }
}

/// Appends a sheet to the mesh, panel by panel (a panel's edge columns are written again by
/// the next panel: the vertices split along the seam), winding its triangles so their
/// normals point along `outward`, with weights from `sources`.
fn emit(
    out: &mut GarmentMesh,
    sheet: &Sheet,
    outward: impl Fn(Vec3) -> Vec3,
    panels: &[Panel],
    v: (f32, f32),
    sources: &Nearest,
) {
    let (normals, flip) = sheet_normals(sheet, outward);
    let mut found = Vec::new();
    for panel in panels {
        let base = out.positions.len() as u32;
        let width = panel.last - panel.first;
        for i in 0..sheet.rows {
            let fv = v.0 + (v.1 - v.0) * i as f32 / (sheet.rows - 1) as f32;
            for j in panel.first..=panel.last {
                let fu =
                    panel.u.0 + (panel.u.1 - panel.u.0) * (j - panel.first) as f32 / width as f32;
                let p = sheet.at(i, j);
                out.positions.push(p);
                out.normals.push(normals[i * sheet.cols + j]);
                out.uvs.push([fu, fv]);
                let (joints, weights) = sources.weights(p, &mut found);
                out.joints.push(joints);
                out.weights.push(weights);
            }
        }
        let stride = width as u32 + 1;
        for i in 0..sheet.rows as u32 - 1 {
            for j in 0..width as u32 {
                let a = base + i * stride + j;
                let (bl, c, d) = (a + stride, a + 1, a + stride + 1);
                let quad = if flip {
                    [a, c, bl, c, d, bl]
                } else {
                    [a, bl, c, c, bl, d]
                };
                out.indices.extend_from_slice(&quad);
            }
        }
    }
}

/// Unit vertex normals of a sheet pointing along `outward`, and whether its triangles must be
/// wound the other way round from (row i, col j), (i + 1, j), (i, j + 1) for that. A closed
/// loop's seam columns share their normals.
fn sheet_normals(sheet: &Sheet, outward: impl Fn(Vec3) -> Vec3) -> (Vec<Vec3>, bool) {
    let (rows, cols) = (sheet.rows, sheet.cols);
    let mut acc = vec![Vec3::ZERO; rows * cols];
    for i in 0..rows - 1 {
        for j in 0..cols - 1 {
            let [a, bl, c, d] = [
                i * cols + j,
                (i + 1) * cols + j,
                i * cols + j + 1,
                (i + 1) * cols + j + 1,
            ];
            for [x, y, z] in [[a, bl, c], [c, bl, d]] {
                let n = (sheet.pos[y] - sheet.pos[x]).cross(sheet.pos[z] - sheet.pos[x]);
                acc[x] += n;
                acc[y] += n;
                acc[z] += n;
            }
        }
    }
    if sheet.closed {
        for i in 0..rows {
            let sum = acc[i * cols] + acc[i * cols + cols - 1];
            acc[i * cols] = sum;
            acc[i * cols + cols - 1] = sum;
        }
    }
    let agreement: f32 = acc
        .iter()
        .zip(&sheet.pos)
        .map(|(n, &p)| n.dot(outward(p)))
        .sum();
    let flip = agreement < 0.0;
    let sign = if flip { -1.0 } else { 1.0 };
    let normals = acc.iter().map(|n| n.normalize_or_zero() * sign).collect();
    (normals, flip)
}

/// The body vertices of one part in a uniform grid, for the nearest ones to a point; their
/// weights merged are a garment vertex's.
struct Nearest<'a> {
    body: &'a BodyMesh,
    lo: Vec3,
    dims: [usize; 3],
    cells: Vec<Vec<u32>>,
}

/// Cell size of [`Nearest`]'s grid, metres.
const NEAREST_CELL: f32 = 0.05;

impl<'a> Nearest<'a> {
    fn new(body: &'a BodyMesh, part: &[Part], keep: Part) -> Self {
        let chosen: Vec<u32> = (0..body.positions.len() as u32)
            .filter(|&i| part[i as usize] == keep)
            .collect();
        let (lo, hi) = chosen.iter().fold(
            (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
            |(lo, hi), &i| {
                (
                    lo.min(body.positions[i as usize]),
                    hi.max(body.positions[i as usize]),
                )
            },
        );
        let size = ((hi - lo) / NEAREST_CELL).floor();
        let dims = [
            size.x as usize + 1,
            size.y as usize + 1,
            size.z as usize + 1,
        ];
        let mut grid = Self {
            body,
            lo,
            dims,
            cells: vec![Vec::new(); dims[0] * dims[1] * dims[2]],
        };
        for i in chosen {
            let c = grid.cell_of(body.positions[i as usize]);
            let at = grid.index(c);
            grid.cells[at].push(i);
        }
        grid
    }

    fn cell_of(&self, p: Vec3) -> [i64; 3] {
        let c = (p - self.lo) / NEAREST_CELL;
        let clamp = |x: f32, n: usize| (x.floor() as i64).clamp(0, n as i64 - 1);
        [
            clamp(c.x, self.dims[0]),
            clamp(c.y, self.dims[1]),
            clamp(c.z, self.dims[2]),
        ]
    }

    fn index(&self, c: [i64; 3]) -> usize {
        (c[2] as usize * self.dims[1] + c[1] as usize) * self.dims[0] + c[0] as usize
    }

    /// The [`NEAREST`] vertices closest to `p` into `found` as (squared distance, index),
    /// nearest first (ties: lower index first). Searches shells of cells outwards until no
    /// unvisited cell can hold a closer one.
    fn nearest(&self, p: Vec3, found: &mut Vec<(f32, u32)>) {
        found.clear();
        let c = self.cell_of(p);
        let widest = self.dims.iter().copied().max().unwrap_or(1) as i64;
        for ring in 0..=widest {
            for dz in -ring..=ring {
                for dy in -ring..=ring {
                    for dx in -ring..=ring {
                        if dx.abs().max(dy.abs()).max(dz.abs()) != ring {
                            continue;
                        }
                        let q = [c[0] + dx, c[1] + dy, c[2] + dz];
                        if (0..3).any(|a| q[a] < 0 || q[a] >= self.dims[a] as i64) {
                            continue;
                        }
                        for &i in &self.cells[self.index(q)] {
                            let d2 = (self.body.positions[i as usize] - p).length_squared();
                            found.push((d2, i));
                        }
                    }
                }
            }
            if found.len() >= NEAREST {
                found.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                let reach = ring as f32 * NEAREST_CELL;
                if found[NEAREST - 1].0 <= reach * reach {
                    break;
                }
            }
        }
        found.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        found.truncate(NEAREST);
    }

    /// The weights of the body vertices nearest `p` merged, each vertex counting by the
    /// inverse square of its distance: at most four influences, summing to 1 in f32.
    fn weights(&self, p: Vec3, found: &mut Vec<(f32, u32)>) -> ([u16; 4], [f32; 4]) {
        self.nearest(p, found);
        let mut merged: Vec<(u16, f64)> = Vec::with_capacity(4 * NEAREST);
        for &(d2, i) in found.iter() {
            let share = 1.0 / (d2 as f64 + 1e-4);
            let (j, w) = (self.body.joints[i as usize], self.body.weights[i as usize]);
            for k in 0..4 {
                if w[k] <= 0.0 {
                    continue;
                }
                match merged.iter_mut().find(|m| m.0 == j[k]) {
                    Some(m) => m.1 += share * w[k] as f64,
                    None => merged.push((j[k], share * w[k] as f64)),
                }
            }
        }
        merged.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        merged.truncate(4);
        let total: f64 = merged.iter().map(|m| m.1).sum();
        merged.retain(|m| m.1 / total >= MIN_WEIGHT);
        let kept: f64 = merged.iter().map(|m| m.1).sum();
        let mut joints = [0u16; 4];
        let mut weights = [0.0f32; 4];
        for (k, m) in merged.iter().enumerate() {
            joints[k] = m.0;
            weights[k] = (m.1 / kept) as f32;
        }
        // The rounding remainder goes on the largest weight, so the sum is 1 in f32.
        weights[0] = 1.0 - (weights[1] + weights[2] + weights[3]);
        (joints, weights)
    }
}

/// The garments' material.
fn fabric() -> Value {
    json!({
        "name": "fabric",
        "pbrMetallicRoughness": { "baseColorFactor": [0.30, 0.33, 0.40, 1.0], "metallicFactor": 0.0, "roughnessFactor": 0.9 },
        "doubleSided": true,
    })
}

/// Writes a garment's vertex attributes and indices; returns its glTF primitive. `slot` maps
/// a bone index to its place in the skin's joint list.
fn primitive(
    bin: &mut crate::Bin,
    g: &GarmentMesh,
    slot: &dyn Fn(u16) -> u16,
    material: usize,
) -> Value {
    let pos: Vec<f32> = g.positions.iter().flat_map(|p| p.to_array()).collect();
    let (lo, hi) = g.positions.iter().fold(
        (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
        |(lo, hi), p| (lo.min(*p), hi.max(*p)),
    );
    let bounds = Some((crate::vec3(lo), crate::vec3(hi)));
    let a_pos = bin.floats(&pos, "VEC3", Some(crate::ARRAY_BUFFER), bounds);
    let nrm: Vec<f32> = g.normals.iter().flat_map(|n| n.to_array()).collect();
    let a_nrm = bin.floats(&nrm, "VEC3", Some(crate::ARRAY_BUFFER), None);
    let uv: Vec<f32> = g.uvs.iter().flatten().copied().collect();
    let a_uv = bin.floats(&uv, "VEC2", Some(crate::ARRAY_BUFFER), None);
    let jts: Vec<u16> = g.joints.iter().flatten().map(|&j| slot(j)).collect();
    let a_jts = bin.u16s(&jts, "VEC4", Some(crate::ARRAY_BUFFER));
    let wts: Vec<f32> = g.weights.iter().flatten().copied().collect();
    let a_wts = bin.floats(&wts, "VEC4", Some(crate::ARRAY_BUFFER), None);
    let a_idx = if g.positions.len() <= u16::MAX as usize {
        let idx: Vec<u16> = g.indices.iter().map(|&i| i as u16).collect();
        bin.u16s(&idx, "SCALAR", Some(crate::ELEMENT_ARRAY_BUFFER))
    } else {
        bin.u32s(&g.indices, "SCALAR", Some(crate::ELEMENT_ARRAY_BUFFER))
    };
    json!({
        "attributes": {
            "POSITION": a_pos, "NORMAL": a_nrm, "TEXCOORD_0": a_uv,
            "JOINTS_0": a_jts, "WEIGHTS_0": a_wts,
        },
        "indices": a_idx,
        "material": material,
    })
}

/// Adds garments to a character's document and buffer as written by [`crate::document`]:
/// one mesh node each, named after the garment, bound to the body's skin (skin 0, whose
/// joints are the bones in order), with a fabric material. Nothing changes when there are
/// none.
pub(crate) fn append_garments(doc: &mut Value, bin: &mut Vec<u8>, garments: &[GarmentMesh]) {
    if garments.is_empty() {
        return;
    }
    let take = |doc: &mut Value, key: &str| match doc[key].take() {
        Value::Array(items) => items,
        _ => Vec::new(),
    };
    let mut out = crate::Bin {
        data: std::mem::take(bin),
        views: take(doc, "bufferViews"),
        accessors: take(doc, "accessors"),
    };
    let mut materials = take(doc, "materials");
    let mut meshes = take(doc, "meshes");
    let mut nodes = take(doc, "nodes");
    let material = materials.len();
    materials.push(fabric());
    for g in garments {
        let primitive = primitive(&mut out, g, &|j| j, material);
        let node = nodes.len();
        nodes.push(json!({ "name": g.name, "mesh": meshes.len(), "skin": 0 }));
        meshes.push(json!({ "name": g.name, "primitives": [primitive] }));
        if let Some(scene) = doc["scenes"][0]["nodes"].as_array_mut() {
            scene.push(json!(node));
        }
    }
    doc["materials"] = Value::Array(materials);
    doc["meshes"] = Value::Array(meshes);
    doc["nodes"] = Value::Array(nodes);
    doc["bufferViews"] = Value::Array(out.views);
    doc["accessors"] = Value::Array(out.accessors);
    doc["buffers"][0]["byteLength"] = json!(out.data.len());
    *bin = out.data;
}

/// A garment in a file of its own as `.glb` bytes: the test rig's skeleton (names after
/// `style.naming`, the same scale, units, rotation and armature) with no body and no clips,
/// and the garment `kind` bound to a skin that lists the joints in reverse order.
pub fn garment_file_glb(kind: GarmentKind, style: &RigStyle) -> Vec<u8> {
    garment_file_glb_with_offset(kind, style, Vec3::ZERO)
}

/// [`garment_file_glb`] as `.gltf` JSON whose buffer is the external file `bin_uri`, and that
/// file's bytes.
pub fn garment_file_gltf(kind: GarmentKind, style: &RigStyle, bin_uri: &str) -> (Vec<u8>, Vec<u8>) {
    let (mut doc, bin, _) = garment_file_at(kind, style, Vec3::ZERO, 1, None, None);
    doc["buffers"][0]["uri"] = Value::from(bin_uri);
    (serde_json::to_vec_pretty(&doc).unwrap_or_default(), bin)
}

/// [`garment_file_glb`] with every joint but the root moved by `offset` (character metres,
/// before the style's scale, units and rotation) in the file's bind pose, its nodes and
/// inverse bind matrices alike, while the garment stays where it was: a garment bound to a
/// skeleton that disagrees with the body's.
pub fn garment_file_glb_with_offset(kind: GarmentKind, style: &RigStyle, offset: Vec3) -> Vec<u8> {
    let (doc, bin, _) = garment_file_at(kind, style, offset, 1, None, None);
    crate::glb(serde_json::to_vec(&doc).unwrap_or_default(), bin)
}

/// [`garment_file_glb`] with the garment's vertices listed in a fixed shuffled order (from
/// `seed`), its triangles the same: a file whose vertex order is not the generator's. Returns
/// the bytes and, per vertex of [`garment_file_glb`]'s file, where this file lists it.
pub fn garment_file_glb_shuffled(
    kind: GarmentKind,
    style: &RigStyle,
    seed: u64,
) -> (Vec<u8>, Vec<usize>) {
    let (doc, bin, at) = garment_file_at(kind, style, Vec3::ZERO, 1, Some(seed), None);
    (
        crate::glb(serde_json::to_vec(&doc).unwrap_or_default(), bin),
        at,
    )
}

/// [`garment_file_glb`] as an artist's garment comes: in two primitives (the first and the
/// second half of its triangles, each with its own vertices), with a second texture
/// coordinate set (`TEXCOORD_1`, the first scaled by 2 across) and two materials, the fabric
/// and a trim showing `image` (PNG bytes, embedded in the buffer) through the second set.
pub fn garment_file_glb_dressed(kind: GarmentKind, style: &RigStyle, image: &[u8]) -> Vec<u8> {
    let (doc, bin, _) = garment_file_at(kind, style, Vec3::ZERO, 1, None, Some(image));
    crate::glb(serde_json::to_vec(&doc).unwrap_or_default(), bin)
}

/// The trim material of [`garment_file_glb_dressed`]: texture 0 through `TEXCOORD_1`.
fn trim() -> Value {
    json!({
        "name": "trim",
        "pbrMetallicRoughness": {
            "baseColorTexture": { "index": 0, "texCoord": 1 },
            "metallicFactor": 0.0,
            "roughnessFactor": 0.8,
        },
        "doubleSided": true,
    })
}

/// `g`'s first and second half of its triangles, each a mesh of its own vertices.
fn halves(g: &GarmentMesh) -> [GarmentMesh; 2] {
    let cut = g.indices.len() / 6 * 3;
    [&g.indices[..cut], &g.indices[cut..]].map(|corners| {
        let mut out = GarmentMesh {
            name: g.name.clone(),
            ..GarmentMesh::default()
        };
        let mut new_index = vec![u32::MAX; g.positions.len()];
        for &i in corners {
            let v = i as usize;
            if new_index[v] == u32::MAX {
                new_index[v] = out.positions.len() as u32;
                out.positions.push(g.positions[v]);
                out.normals.push(g.normals[v]);
                out.uvs.push(g.uvs[v]);
                out.joints.push(g.joints[v]);
                out.weights.push(g.weights[v]);
            }
            out.indices.push(new_index[v]);
        }
        out
    })
}

/// The primitives of `g` and the document's material-side arrays: one fabric primitive, or
/// with `image` the two of [`garment_file_glb_dressed`] and their texture, sampler and image.
fn garment_primitives(
    bin: &mut crate::Bin,
    g: &GarmentMesh,
    slot: impl Fn(u16) -> u16,
    image: Option<&[u8]>,
) -> (Vec<Value>, Vec<(&'static str, Value)>) {
    let Some(png) = image else {
        let primitive = primitive(bin, g, &slot, 0);
        return (vec![primitive], vec![("materials", json!([fabric()]))]);
    };
    let mut primitives = Vec::new();
    for (material, half) in halves(g).iter().enumerate() {
        let mut p = primitive(bin, half, &slot, material);
        let uv1: Vec<f32> = half.uvs.iter().flat_map(|[u, v]| [2.0 * u, *v]).collect();
        p["attributes"]["TEXCOORD_1"] =
            json!(bin.floats(&uv1, "VEC2", Some(crate::ARRAY_BUFFER), None));
        primitives.push(p);
    }
    while bin.data.len() % 4 != 0 {
        bin.data.push(0);
    }
    bin.views
        .push(json!({ "buffer": 0, "byteOffset": bin.data.len(), "byteLength": png.len() }));
    bin.data.extend_from_slice(png);
    let arrays = vec![
        ("materials", json!([fabric(), trim()])),
        ("textures", json!([{ "sampler": 0, "source": 0 }])),
        (
            "samplers",
            json!([{ "magFilter": 9729, "minFilter": 9987 }]),
        ),
        (
            "images",
            json!([{ "name": "trim", "bufferView": bin.views.len() - 1, "mimeType": "image/png" }]),
        ),
    ];
    (primitives, arrays)
}

/// [`garment_file_glb`] of the garment `fine` times finer ([`garment_mesh_fine`]): a dense
/// mesh of the same shape (a long coat at 3 has about 50,000 vertices).
pub fn garment_file_glb_fine(kind: GarmentKind, style: &RigStyle, fine: usize) -> Vec<u8> {
    let (doc, bin, _) = garment_file_at(kind, style, Vec3::ZERO, fine, None, None);
    crate::glb(serde_json::to_vec(&doc).unwrap_or_default(), bin)
}

/// The document (buffer without a URI) and buffer of a garment file, `fine` times finer than
/// the generator's own, its vertices shuffled by `shuffle`'s seed when given, dressed as
/// [`garment_file_glb_dressed`] with `image` when given; and per vertex of the unshuffled
/// mesh, where the file lists it.
fn garment_file_at(
    kind: GarmentKind,
    style: &RigStyle,
    offset: Vec3,
    fine: usize,
    shuffle: Option<u64>,
    image: Option<&[u8]>,
) -> (Value, Vec<u8>, Vec<usize>) {
    let mut bones = body::bones();
    let skin = body::body_mesh_at(&bones, style.cell);
    let mut garment = garment_mesh_fine(kind, &bones, &skin, fine);
    test_rig::add_fingers(&mut bones, style.fingers);
    for bone in bones.iter_mut().skip(1) {
        bone.pos += offset;
    }
    let f = style.scale * style.units_per_metre;
    let r = style.rotation;
    let point = |p: Vec3| r * p * f;
    garment.transform(r, point);
    let n = garment.positions.len();
    let at = match shuffle {
        Some(seed) => garment.reorder(&test_rig::permutation(n, seed)),
        None => (0..n).collect(),
    };
    for (i, bone) in bones.iter_mut().enumerate() {
        bone.pos = point(bone.pos);
        bone.name = test_rig::bone_name(style.naming, &bone.name, i);
    }
    let mut nodes = crate::bone_nodes(&bones);
    let garment_node = nodes.len();
    nodes.push(json!({ "name": garment.name, "mesh": 0, "skin": 0 }));
    let mut top = b::ROOT;
    if let Some((r, s)) = style.armature {
        top = nodes.len();
        nodes.push(json!({
            "name": "Armature",
            "rotation": [r.x, r.y, r.z, r.w],
            "scale": crate::vec3(s),
            "children": [b::ROOT],
        }));
    }
    // The skin lists the joints last bone first; the vertices' joints are places in it.
    let n = bones.len();
    let joints: Vec<usize> = (0..n).rev().collect();
    let mut bin = crate::Bin::default();
    let slot = |j: u16| (n - 1 - j as usize) as u16;
    let (primitives, arrays) = garment_primitives(&mut bin, &garment, slot, image);
    let ibm: Vec<f32> = joints
        .iter()
        .flat_map(|&i| glam::Mat4::from_translation(-bones[i].pos).to_cols_array())
        .collect();
    let a_ibm = bin.floats(&ibm, "MAT4", None, None);
    let mut doc = json!({
        "asset": { "version": "2.0", "generator": TEST_GENERATOR },
        "scene": 0,
        "scenes": [{ "name": garment.name, "nodes": [top, garment_node] }],
        "nodes": nodes,
        "skins": [{ "name": "skeleton", "joints": joints, "skeleton": b::ROOT, "inverseBindMatrices": a_ibm }],
        "meshes": [{ "name": garment.name, "primitives": primitives }],
        "buffers": [{ "byteLength": bin.data.len() }],
        "bufferViews": bin.views,
        "accessors": bin.accessors,
    });
    for (key, array) in arrays {
        doc[key] = array;
    }
    (doc, bin.data, at)
}

#[cfg(test)]
mod tests;
