//! The artist's own garment: a skinned mesh from a glTF file (a coat, a jacket, a skirt)
//! becomes the simulation grid and the layer of bones that drives its lower part, as the method
//! builds them for a garment the game ships.
//!
//! - The grid's rows run from a pin line down to the hem, its columns round the body. The pin
//!   line is where the garment leaves the chest and shoulders: the lowest band of height whose
//!   vertices are still mostly weighted to the spine, chest, neck and clavicles (the top of the
//!   garment when its top band is already the hips'). Everything above it, and the sleeves
//!   (vertices mostly weighted to the arms), stays on the body's bones. The pinned row moves as
//!   one piece with the torso (`pin_row_binding`).
//! - An open garment's seam is its front opening, the widest gap round the body among its
//!   hem's vertices; a closed one (no gap wider than [`OPEN_GAP_DEG`]) is a loop, its seam at
//!   the back, welded every step.
//! - Each grid point lies on the garment's surface: where a ray out from the body's axis at
//!   its height and angle crosses the mesh (the outermost crossing), else the nearest point of
//!   the mesh at that height. Its reference point follows the body with the garment's own skin
//!   weights there (interpolated over the triangle the ray crossed), eased in under the pin
//!   line.
//! - Bones sit on the grid's particles by the method's rule ([`GarmentRig`]); every simulated
//!   vertex of the garment is skinned to at most four of them by its place on the grid,
//!   blended into its own body weights over a band below the pin line and round the armholes.
//! - A garment whose lower rows hang over the thighs (a skirt, a long coat) hangs from the
//!   hips, as the skirt template does, and keeps them out of the legs with the skirt's leg
//!   lines ([`LegBones`], the cloth's row pass; [`Legs::of`] says why): its rows from the hips
//!   down go over a raised thigh whole, with their reference points, and an open one's row
//!   references are carried together again after the column reach
//!   ([`Garment::held_over_legs`]).
//! - The two rows under the pinned one ease from the pinned row's binding into the
//!   garment's own weights ([`EASED_ROWS`]).

use std::any::Any;
use std::f32::consts::TAU;

use glam::{Mat3, Mat4, Vec3};

use super::layout::{GridLayout, Ring};
use super::legs::LegBones;
use super::nearest::PointGrid;
use super::rig::{
    driver, lower_binding, mix_bindings, rest_model, smoothstep, Binding, GarmentRig, RenderMesh,
    RestSkin, RigFrame, Tailor,
};
pub use super::settings::{GridChoice, Seam, DEFAULT_SPACING_M};
use super::{Body, Garment, GarmentError, Posed};
use crate::character::{Character, MeshLook, Role, WornMesh};
use crate::preset::Garment as Template;
use crate::sim::{LegLines, LegRows};

/// The widest gap round the body among the hem's vertices that still makes a closed garment,
/// degrees: a wider one is the front opening.
pub const OPEN_GAP_DEG: f32 = 25.0;

/// The least a garment's hem goes round the body, degrees: less (a flat panel, a board) encloses
/// nothing for the grid's columns to go round.
pub const MIN_WRAP_DEG: f32 = 180.0;

/// The most rows, and the most columns, of a garment's grid: a garment that needs more at
/// its spacing is refused (one in the wrong units, or broken).
pub const MAX_GRID_SIDE: usize = 512;

/// How far from the character's origin (along any axis, metres) a garment's vertices may lie.
pub const MAX_REACH_M: f32 = 10.0;

/// The most vertices a garment may have (the loader's limit).
pub const MAX_VERTICES: usize = crate::character::MAX_GARMENT_VERTICES;

/// Where each garment vertex belongs, from its skin weights.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Part {
    /// Mostly on the arms: a sleeve.
    Sleeve,
    /// Mostly on the spine, chest, neck or clavicles.
    Upper,
    /// Mostly on the pelvis and legs.
    Lower,
}

/// Where a garment vertex lies on the grid and how much of its skinning the cloth bones take:
/// the rule the garment's render mesh is skinned by, kept for the engines' per-vertex data
/// (`crate::export::vertices`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VertexPlace {
    /// Column coordinate on the grid, 0 to `cols - 1` (fractional between columns).
    pub u: f32,
    /// Row coordinate on the grid, 0 (the pin line) to `rows - 1` (the hem).
    pub v: f32,
    /// The cloth bones' share of the vertex's skinning, 0 to 1: 0 above the pin line, 1 from
    /// a row's height below it (and away from the armholes), blended between.
    pub share: f32,
}

/// The grid found on a garment: its shape and its particles' rest places and bindings.
#[derive(Clone, Debug)]
pub struct FoundGrid {
    pub rows: usize,
    pub cols: usize,
    /// Heights of the pin line and the hem at rest, metres.
    pub pin_height: f32,
    pub hem_height: f32,
    /// Whether the garment closes round the body (its first and last columns are one seam).
    pub closed: bool,
    /// The angle round the body of the first column and the span to the last, radians (0 at
    /// the front, toward the left).
    pub start: f32,
    pub span: f32,
    /// The body's vertical axis (x, z) the rays leave from.
    axis: (f32, f32),
    /// Per particle, row by row: its rest place and how its reference follows the body.
    rest: Vec<Vec3>,
    bindings: Vec<Binding>,
}

impl FoundGrid {
    /// The height between two rows at rest, metres.
    fn row_height(&self) -> f32 {
        (self.pin_height - self.hem_height) / (self.rows - 1) as f32
    }
}

/// Where the leg lines start lifting a garment's rows over the legs, as a share of the way
/// from the hips down to the knees (at rest): from the hips' own height, where a thigh raised
/// to a stride first reaches the cloth.
const LIFT_BELOW_HIPS: f32 = 0.0;

/// Where the leg lines start pushing a garment's particles out of the legs, as a share of the
/// way from the hips down to the knees (at rest): the rows above lie on the hips, where the
/// collision holds them. A garment whose hem hangs no lower has no leg lines.
const PUSH_BELOW_HIPS: f32 = 0.33;

/// A long garment's legs and the rows they hold ([`LegBones`]).
#[derive(Clone, Copy, Debug)]
struct Legs {
    bones: LegBones,
    rows: LegRows,
}

impl Legs {
    /// The legs of `character` for `grid`, or `None` where its hem ends above the rows the
    /// leg lines push. A garment over them hangs from the hips, open or closed, as the skirt
    /// template does, and the lines keep its rows and their references out of the legs:
    /// without them a calf slipped between two neighbours in a row and the collision pushed
    /// them to its two sides, the link across the leg at several times its length on a walk;
    /// on its own weights a long coat's references followed each thigh apart.
    fn of(character: &Character, model: &[Mat4], grid: &FoundGrid) -> Option<Self> {
        let (pin, hem) = (grid.pin_height, grid.hem_height);
        let bones = LegBones::of(character, model);
        let (hip, knee) = bones.hip_and_knee_heights(model);
        let below = |share: f32| hip - (hip - knee) * share;
        let push = below(PUSH_BELOW_HIPS);
        if hem >= push || pin <= hem {
            return None;
        }
        let from = |y: f32| ((pin - y) / (pin - hem)).clamp(0.0, 1.0);
        let rows = LegRows {
            push_from: from(push),
            lift_from: from(below(LIFT_BELOW_HIPS)),
        };
        Some(Self { bones, rows })
    }
}

/// The artist's garment on one character.
#[derive(Clone, Debug)]
pub struct ImportedGarment {
    name: String,
    rig: GarmentRig,
    body: Body,
    grid: FoundGrid,
    /// The legs a long garment keeps its lower rows out of, if it hangs over them.
    legs: Option<Legs>,
    /// The leg lines this step (posed from `legs`).
    lines: LegLines,
    /// The render vertices skinned to the cloth bones alone, each with its place on the grid
    /// and its offset from the grid's surface there in the surface's frame at rest: what the
    /// binding error is measured on.
    on_grid: Vec<(u32, (f32, f32), Vec3)>,
    /// Per vertex of the garment's mesh, in its file's order: its place on the grid (`None`
    /// for a sleeve's, which stays on the body's bones).
    places: Vec<Option<VertexPlace>>,
    /// The mesh's primitives, texture coordinate sets and materials as its file had them
    /// (its render vertices are the mesh's, in its order).
    look: MeshLook,
}

impl ImportedGarment {
    /// The garment `worn` (in `character`'s space at the bind pose) with its grid laid as
    /// `choice` says.
    pub fn new(
        character: &Character,
        worn: &WornMesh,
        choice: &GridChoice,
    ) -> Result<Self, GarmentError> {
        check_mesh(worn)?;
        let model = rest_model(character);
        let parts = vertex_parts(character, worn);
        let mut grid = find_grid(character, &model, worn, &parts, choice)?;
        let legs = Legs::of(character, &model, &grid);
        if legs.is_some() {
            // Hung from the hips, as the skirt template hangs: the legs swing under the rows
            // and the leg lines keep the cloth out of them.
            let leg = leg_bones(character);
            let pelvis = character.roles.bone(Role::Pelvis) as u16;
            for b in &mut grid.bindings {
                *b = off_the_legs(&[*b], &leg, pelvis);
            }
        }
        let layout = GridLayout {
            cols: grid.cols,
            rows: grid.rows,
            top_height: grid.pin_height,
            hem_height: grid.hem_height,
            front_gap_deg: TAU.to_degrees() - grid.span.to_degrees(),
            ..GridLayout::default()
        };
        GarmentRig::check_layout(&layout)?;
        let cut = ImportedCut::new(worn, &parts, &grid);
        let rig = GarmentRig::new(
            character,
            &model,
            &layout,
            (grid.rest.clone(), &[]),
            &[],
            &cut,
        )?;
        let on_grid = cut.fully_on_grid(&grid.rest);
        let places = (0..worn.mesh.positions.len())
            .map(|v| {
                cut.cloth_share(v)
                    .map(|((u, v), share)| VertexPlace { u, v, share })
            })
            .collect();
        let lines = legs.map_or_else(LegLines::default, |l| l.bones.pose(&model, l.rows));
        Ok(Self {
            name: worn.name.clone(),
            rig,
            body: Body::torso_and_legs(character),
            grid,
            legs,
            lines,
            on_grid,
            places,
            look: worn.look.clone(),
        })
    }

    /// How far the garment skinned to the bones (`skinned`, the render mesh's positions) lies
    /// from each vertex's exact place on the simulated grid's surface (`particles`): the
    /// surface point at the vertex's grid place plus its rest offset turned with the surface.
    /// Over the vertices skinned to the cloth bones alone: (sum of squares in m², count,
    /// largest in m).
    pub fn binding_error(&self, particles: &[Vec3], skinned: &[Vec3]) -> (f64, u64, f32) {
        let (mut sum, mut max) = (0f64, 0f32);
        for &(v, uv, offset) in &self.on_grid {
            let (p, frame) = surface_frame(particles, self.grid.cols, self.grid.rows, uv);
            let exact = p + frame * offset;
            let d = exact.distance(skinned[v as usize]);
            sum += (d as f64).powi(2);
            max = max.max(d);
        }
        (sum, self.on_grid.len() as u64, max)
    }

    /// The garment's name in its file.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The grid found on the garment.
    pub fn grid(&self) -> &FoundGrid {
        &self.grid
    }

    /// Per vertex of the garment's mesh, in its file's order (its triangle primitives in
    /// turn, each in its accessors' order; the order of [`GarmentRig::render`]): where it lies
    /// on the grid and the cloth bones' share of its skinning, `None` for a sleeve's.
    pub fn vertex_places(&self) -> &[Option<VertexPlace>] {
        &self.places
    }

    /// The mesh's primitives, texture coordinate sets and materials as its file had them.
    pub fn look(&self) -> &MeshLook {
        &self.look
    }
}

impl Garment for ImportedGarment {
    fn template(&self) -> Option<Template> {
        None
    }

    fn rig(&self) -> &GarmentRig {
        &self.rig
    }

    fn body(&self) -> &Body {
        &self.body
    }

    fn pose(&mut self, posed: &Posed, frame: &mut RigFrame, references: &mut [Vec3]) {
        self.rig.pose(posed.model, &[], frame);
        self.rig.references(frame, references);
        if let Some(legs) = &self.legs {
            self.lines = legs.bones.pose(posed.model, legs.rows);
        }
    }

    fn held_over_legs(&self) -> Option<&LegLines> {
        self.legs.is_some().then_some(&self.lines)
    }

    fn leg_lines(&self) -> Option<&LegLines> {
        self.legs.is_some().then_some(&self.lines)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

/// Refuses a mesh the grid cannot be found on.
fn check_mesh(worn: &WornMesh) -> Result<(), GarmentError> {
    let bad = |what: String| {
        Err(GarmentError::Layout(format!(
            "garment `{}`: {what}",
            worn.name
        )))
    };
    let m = &worn.mesh;
    if m.positions.len() > MAX_VERTICES {
        return bad(format!(
            "{} vertices; at most {MAX_VERTICES} are read",
            m.positions.len()
        ));
    }
    if m.indices.len() < 3 {
        return bad("no faces".into());
    }
    if let Some(v) = m.positions.iter().position(|p| !p.is_finite()) {
        return bad(format!("vertex {v} is not a finite position"));
    }
    if let Some(v) = m
        .positions
        .iter()
        .position(|p| p.abs().max_element() > MAX_REACH_M)
    {
        return bad(format!(
            "vertex {v} lies {:.0} m from the character's origin: a garment lies within \
             {MAX_REACH_M} m of it",
            m.positions[v].abs().max_element()
        ));
    }
    Ok(())
}

/// Each vertex's part of the body by the sum of its weights on the arms, on the upper body
/// (spine, chest, neck, head and the clavicles between chest and arms) and elsewhere.
fn vertex_parts(character: &Character, worn: &WornMesh) -> Vec<Part> {
    let class = bone_classes(character);
    worn.mesh
        .joints
        .iter()
        .zip(&worn.mesh.weights)
        .map(|(j, w)| {
            let mut sum = [0f32; 3];
            for k in 0..4 {
                let c = class.get(j[k] as usize).copied().unwrap_or(Part::Lower);
                sum[c as usize] += w[k];
            }
            if sum[Part::Sleeve as usize] > 0.5 {
                Part::Sleeve
            } else if sum[Part::Upper as usize] >= sum[Part::Lower as usize] {
                Part::Upper
            } else {
                Part::Lower
            }
        })
        .collect()
}

/// Per bone of the skeleton, its part: the upper arms and everything below them are the arms;
/// the spine's and chest's descendants that are not, the upper body; the rest (root, pelvis,
/// legs) the lower body.
fn bone_classes(character: &Character) -> Vec<Part> {
    let sk = &character.skeleton;
    let roles = &character.roles;
    let arms = [Role::UpperarmL, Role::UpperarmR].map(|r| roles.bone(r));
    let spine = roles.bone(Role::Spine);
    let below = |mut b: usize, top: usize| loop {
        if b == top {
            return true;
        }
        match sk.parent(b) {
            Some(p) => b = p,
            None => return false,
        }
    };
    (0..sk.len())
        .map(|b| {
            if arms.iter().any(|&a| below(b, a)) {
                Part::Sleeve
            } else if below(b, spine) {
                Part::Upper
            } else {
                Part::Lower
            }
        })
        .collect()
}

/// Height bands the pin line is searched in, metres.
const BAND_M: f32 = 0.02;

/// The grid on the garment: the pin line, the hem, open or closed, rows and columns, and each
/// particle's place and binding.
fn find_grid(
    character: &Character,
    model: &[Mat4],
    worn: &WornMesh,
    parts: &[Part],
    choice: &GridChoice,
) -> Result<FoundGrid, GarmentError> {
    let err = |what: &str| GarmentError::Layout(format!("garment `{}`: {what}", worn.name));
    let pelvis = model[character.roles.bone(Role::Pelvis)].w_axis;
    let axis = (pelvis.x, pelvis.z);
    let pos = &worn.mesh.positions;
    let body: Vec<usize> = (0..pos.len())
        .filter(|&v| parts[v] != Part::Sleeve)
        .collect();
    let top = body.iter().map(|&v| pos[v].y).fold(f32::MIN, f32::max);
    let hem = body.iter().map(|&v| pos[v].y).fold(f32::MAX, f32::min);
    if body.is_empty() || top - hem < 3.0 * BAND_M {
        return Err(err(
            "nothing hangs below the shoulders: no rows to simulate",
        ));
    }
    let pin = choice
        .pin_height_m
        .unwrap_or_else(|| pin_line(pos, parts, &body, top, hem))
        .clamp(hem + 2.0 * BAND_M, top);
    let angle = |p: Vec3| (p.x - axis.0).atan2(p.z - axis.1);
    let hem_band = (pin - hem) * 0.15;
    let mut hem_angles: Vec<f32> = body
        .iter()
        .filter(|&&v| pos[v].y <= hem + hem_band)
        .map(|&v| angle(pos[v]))
        .collect();
    let (closed, start, span) = seam_and_span(choice, widest_gap(&mut hem_angles));
    if span.to_degrees() < MIN_WRAP_DEG {
        return Err(err(&format!(
            "its hem goes only {:.0}° round the body, so it encloses nothing: a garment goes at \
             least {MIN_WRAP_DEG:.0}° round it",
            span.to_degrees()
        )));
    }
    let rows = choice
        .rows
        .unwrap_or_else(|| (((pin - hem) / choice.spacing_m).round() as usize).saturating_add(1))
        .max(3);
    let around = hem_circumference(pos, &body, hem, hem_band, axis) * span / TAU;
    let cols = choice
        .cols
        .unwrap_or_else(|| ((around / choice.spacing_m).round() as usize).saturating_add(1));
    let cols = (cols.max(5)) | 1;
    if rows > MAX_GRID_SIDE || cols > MAX_GRID_SIDE {
        return Err(err(&format!(
            "{:.1} m from the pin line to the hem and {:.1} m round: more than \
             {MAX_GRID_SIDE} rows or columns {:.1} cm apart",
            pin - hem,
            around,
            choice.spacing_m * 100.0
        )));
    }
    let surface = Surface::new(worn, parts, pin + BAND_M, hem - BAND_M);
    let mut rest = Vec::with_capacity(rows * cols);
    let mut bindings = Vec::with_capacity(rows * cols);
    for r in 0..rows {
        let y = pin + (hem - pin) * r as f32 / (rows - 1) as f32;
        for c in 0..cols {
            let a = start + span * c as f32 / (cols - 1) as f32;
            let origin = Vec3::new(axis.0, y, axis.1);
            let (p, binding) = surface.place(origin, Vec3::new(a.sin(), 0.0, a.cos()));
            rest.push(p);
            bindings.push(binding);
        }
    }
    let pinned = pin_row_binding(character, &bindings[..cols]);
    bindings[..cols].fill(pinned);
    ease_below_pin(&mut bindings, cols, pinned);
    Ok(FoundGrid {
        rows,
        cols,
        pin_height: pin,
        hem_height: hem,
        closed,
        start,
        span,
        axis,
        rest,
        bindings,
    })
}

/// The pinned row's binding, one for the whole row: its particles' own skin weights summed
/// along the row, each leg bone's share given to the pelvis. At the hips, where a coat's or a
/// skirt's pin line lies, the garment's weights mix the pelvis, the spine and the thighs
/// differently from column to column; pinned particles cannot give, so a stride pulled
/// neighbours in the row apart by a fifth to a third of their rest length. One binding moves
/// the row as one piece with the torso, as the method pins its top row to the torso.
fn pin_row_binding(character: &Character, row: &[Binding]) -> Binding {
    let legs = leg_bones(character);
    let pelvis = character.roles.bone(Role::Pelvis) as u16;
    off_the_legs(row, &legs, pelvis)
}

/// How many rows under the pinned one ease from its binding into the garment's own weights.
/// At the hip crease, just under a long garment's pin line, the garment's weights follow the
/// thigh and a raised thigh parted the first row's reference points by more than its small
/// max distance lets the cloth make up; eased in, they part as the rows below do.
const EASED_ROWS: usize = 2;

/// Eases the bindings of the [`EASED_ROWS`] rows under the pinned one (`cols` a row) from
/// the pinned row's binding `pinned` into their own: row `r` takes `r / (EASED_ROWS + 1)`
/// of its own.
fn ease_below_pin(bindings: &mut [Binding], cols: usize, pinned: Binding) {
    let rows = bindings.len() / cols.max(1);
    for r in 1..=EASED_ROWS.min(rows.saturating_sub(1)) {
        let own = r as f32 / (EASED_ROWS + 1) as f32;
        for b in &mut bindings[r * cols..(r + 1) * cols] {
            let mut entries = [(0u16, 0f32); 8];
            for (k, &(d, w)) in pinned.iter().enumerate() {
                entries[k] = (d, w * (1.0 - own));
                entries[k + 4] = (b[k].0, b[k].1 * own);
            }
            *b = mix_bindings(&entries);
        }
    }
}

/// The bindings `of` summed into one, each leg bone's share (`legs`, [`leg_bones`]) given to
/// the `pelvis`.
fn off_the_legs(of: &[Binding], legs: &[bool], pelvis: u16) -> Binding {
    let entries: Vec<(u16, f32)> = of
        .iter()
        .flatten()
        .map(|&(b, w)| match legs.get(b as usize) {
            Some(true) => (pelvis, w),
            _ => (b, w),
        })
        .collect();
    mix_bindings(&entries)
}

/// Per bone of the skeleton, whether it is a thigh or below one.
fn leg_bones(character: &Character) -> Vec<bool> {
    let sk = &character.skeleton;
    let thighs = [Role::ThighL, Role::ThighR].map(|r| character.roles.bone(r));
    let mut leg = vec![false; sk.len()];
    // Parents come before their children.
    for b in 0..sk.len() {
        leg[b] = thighs.contains(&b) || sk.parent(b).is_some_and(|p| leg[p]);
    }
    leg
}

/// The pin line's height: the lowest band, from the top down, whose vertices are still mostly
/// on the upper body (the top when the top band is not).
fn pin_line(pos: &[Vec3], parts: &[Part], body: &[usize], top: f32, hem: f32) -> f32 {
    let bands = ((top - hem) / BAND_M).ceil().max(1.0) as usize;
    let mut upper = vec![(0usize, 0usize); bands];
    for &v in body {
        let k = (((top - pos[v].y) / BAND_M) as usize).min(bands - 1);
        upper[k].1 += 1;
        if parts[v] == Part::Upper {
            upper[k].0 += 1;
        }
    }
    let mut pin = top;
    for (k, &(up, all)) in upper.iter().enumerate() {
        if all == 0 {
            continue;
        }
        if up * 2 < all {
            break;
        }
        pin = top - (k as f32 + 1.0) * BAND_M;
    }
    pin
}

/// Whether the grid closes, the angle of its first column and its span round the body, for
/// the hem's widest gap `(width, middle)` and the artist's `choice`. An open garment spans from
/// one edge of its opening round to the other (an opening forced on a garment with none is
/// [`OPEN_GAP_DEG`] wide); a closed one spans the whole body from its seam, at the back unless
/// the choice puts it elsewhere.
fn seam_and_span(choice: &GridChoice, (gap, gap_mid): (f32, f32)) -> (bool, f32, f32) {
    let closed = match choice.seam {
        Seam::Auto => gap < OPEN_GAP_DEG.to_radians(),
        Seam::Open => false,
        Seam::Closed => true,
    };
    let at = choice.seam_at_deg.map(f32::to_radians);
    if closed {
        (true, at.unwrap_or(std::f32::consts::PI), TAU)
    } else {
        let gap = gap.max(OPEN_GAP_DEG.to_radians());
        (false, at.unwrap_or(gap_mid) + gap * 0.5, TAU - gap)
    }
}

/// The widest gap between neighbouring `angles` round the circle, radians, and the angle at
/// its middle (sorts `angles`).
fn widest_gap(angles: &mut [f32]) -> (f32, f32) {
    angles.sort_by(f32::total_cmp);
    let n = angles.len();
    if n < 2 {
        return (TAU, 0.0);
    }
    let mut best = (angles[0] + TAU - angles[n - 1], angles[n - 1]);
    for w in angles.windows(2) {
        if w[1] - w[0] > best.0 {
            best = (w[1] - w[0], w[0]);
        }
    }
    (best.0, best.1 + best.0 * 0.5)
}

/// The hem's length round the body: its vertices' mean distance from the axis x 2π.
fn hem_circumference(pos: &[Vec3], body: &[usize], hem: f32, band: f32, axis: (f32, f32)) -> f32 {
    let (mut sum, mut n) = (0.0, 0usize);
    for &v in body.iter().filter(|&&v| pos[v].y <= hem + band) {
        sum += (pos[v].x - axis.0).hypot(pos[v].z - axis.1);
        n += 1;
    }
    TAU * sum / n.max(1) as f32
}

/// The garment's triangles that the grid is found on (none on a sleeve), sorted into height
/// bands so a ray tests only those near its height.
struct Surface<'a> {
    worn: &'a WornMesh,
    /// Per band of [`BAND_M`] from `top` down, the triangles reaching into it.
    bands: Vec<Vec<usize>>,
    top: f32,
}

impl<'a> Surface<'a> {
    fn new(worn: &'a WornMesh, parts: &[Part], top: f32, bottom: f32) -> Self {
        let n = ((top - bottom) / BAND_M).ceil().max(1.0) as usize;
        let mut bands = vec![Vec::new(); n];
        let pos = &worn.mesh.positions;
        for (t, tri) in worn.mesh.indices.chunks_exact(3).enumerate() {
            if tri.iter().any(|&v| parts[v as usize] == Part::Sleeve) {
                continue;
            }
            let ys = [0, 1, 2].map(|k| pos[tri[k] as usize].y);
            let (lo, hi) = (ys[0].min(ys[1]).min(ys[2]), ys[0].max(ys[1]).max(ys[2]));
            let band = |y: f32| (((top - y) / BAND_M).max(0.0) as usize).min(n - 1);
            for b in &mut bands[band(hi)..=band(lo)] {
                b.push(t);
            }
        }
        Self { worn, bands, top }
    }

    /// The triangles near height `y`.
    fn near(&self, y: f32) -> &[usize] {
        let k = (((self.top - y) / BAND_M).max(0.0) as usize).min(self.bands.len() - 1);
        &self.bands[k]
    }

    /// Where the ray from `origin` along `dir` leaves the garment (its outermost crossing, else
    /// the nearest point of the garment near its height), and the skin weights there.
    fn place(&self, origin: Vec3, dir: Vec3) -> (Vec3, Binding) {
        let pos = &self.worn.mesh.positions;
        let tri = |t: usize| {
            let i = &self.worn.mesh.indices[t * 3..t * 3 + 3];
            [i[0] as usize, i[1] as usize, i[2] as usize]
        };
        let mut best: Option<(f32, usize, [f32; 3])> = None;
        for &t in self.near(origin.y) {
            let [a, b, c] = tri(t);
            if let Some((d, bary)) = ray_triangle(origin, dir, pos[a], pos[b], pos[c]) {
                if best.is_none_or(|(bd, _, _)| d > bd) {
                    best = Some((d, t, bary));
                }
            }
        }
        let (t, bary) = match best {
            Some((_, t, bary)) => (t, bary),
            None => self.nearest(origin, dir),
        };
        let [a, b, c] = tri(t);
        let p = pos[a] * bary[0] + pos[b] * bary[1] + pos[c] * bary[2];
        let m = &self.worn.mesh;
        let entries: Vec<(u16, f32)> = [a, b, c]
            .iter()
            .zip(bary)
            .flat_map(|(&v, s)| (0..4).map(move |k| (m.joints[v][k], m.weights[v][k] * s)))
            .collect();
        (p, mix_bindings(&entries))
    }

    /// The triangle corner nearest the ray from `origin` along `dir` among the triangles near
    /// its height (any triangle when none is near), as a triangle and barycentric weights.
    fn nearest(&self, origin: Vec3, dir: Vec3) -> (usize, [f32; 3]) {
        let pos = &self.worn.mesh.positions;
        let off_ray = |p: Vec3| {
            let d = p - origin;
            (d - dir * d.dot(dir).max(0.0)).length_squared()
        };
        let near = self.near(origin.y);
        let all: Vec<usize>;
        let candidates: &[usize] = if near.is_empty() {
            all = (0..self.worn.mesh.indices.len() / 3).collect();
            &all
        } else {
            near
        };
        let mut best = (f32::MAX, 0usize, [1.0, 0.0, 0.0]);
        for &t in candidates {
            for k in 0..3 {
                let v = self.worn.mesh.indices[t * 3 + k] as usize;
                let d = off_ray(pos[v]) + (pos[v].y - origin.y).powi(2);
                if d < best.0 {
                    let mut bary = [0.0; 3];
                    bary[k] = 1.0;
                    best = (d, t, bary);
                }
            }
        }
        (best.1, best.2)
    }
}

/// Where the ray `origin + d dir` (d ≥ 0) crosses triangle `a b c`: d and the barycentric
/// weights of the crossing (Möller–Trumbore).
fn ray_triangle(origin: Vec3, dir: Vec3, a: Vec3, b: Vec3, c: Vec3) -> Option<(f32, [f32; 3])> {
    let (e1, e2) = (b - a, c - a);
    let p = dir.cross(e2);
    let det = e1.dot(p);
    if det.abs() < 1e-12 {
        return None;
    }
    let inv = 1.0 / det;
    let s = origin - a;
    let u = s.dot(p) * inv;
    if !(0.0..=1.0).contains(&u) {
        return None;
    }
    let q = s.cross(e1);
    let v = dir.dot(q) * inv;
    if v < 0.0 || u + v > 1.0 {
        return None;
    }
    let d = e2.dot(q) * inv;
    (d >= 0.0).then_some((d, [1.0 - u - v, u, v]))
}

/// Per vertex of `worn`, the distance to its nearest sleeve vertex when that is nearer than
/// `within`, else (and without sleeves) infinite. A search bounded so is a few cells of the
/// sleeves' grid round each vertex; an unbounded one reads most of a sleeve for each vertex of
/// the chest and back, which lie far from the arms.
fn distances_to_sleeves(worn: &WornMesh, parts: &[Part], within: f32) -> Vec<f32> {
    let pos = &worn.mesh.positions;
    let sleeves: Vec<Vec3> = (0..pos.len())
        .filter(|&v| parts[v] == Part::Sleeve)
        .map(|v| pos[v])
        .collect();
    if sleeves.is_empty() {
        return vec![f32::INFINITY; pos.len()];
    }
    let grid = PointGrid::new(sleeves);
    pos.iter()
        .map(|&p| {
            grid.nearest_within::<1>(p, within)[0]
                .map_or(f32::INFINITY, |i| grid.points()[i].distance(p))
        })
        .collect()
}

/// How the imported garment is cut: its particles' references follow its own weights, and its
/// render mesh is the artist's, the simulated part skinned to the grid's bones.
struct ImportedCut<'a> {
    worn: &'a WornMesh,
    parts: &'a [Part],
    grid: &'a FoundGrid,
    /// Per vertex, its distance to the nearest sleeve vertex where that is within two rows'
    /// height, infinite beyond (and without sleeves): the armholes' fade ([`Self::cloth_share`])
    /// is over one.
    to_sleeve: Vec<f32>,
}

/// The grid's surface at (column, row) coordinates `uv` for particles `pos` (`cols` a row):
/// the bilinear point and its frame (along the row, across it in the surface, the surface's
/// normal), as the columns of a matrix.
fn surface_frame(pos: &[Vec3], cols: usize, rows: usize, (u, v): (f32, f32)) -> (Vec3, Mat3) {
    let i0 = (u.floor() as usize).min(cols - 2);
    let j0 = (v.floor() as usize).min(rows - 2);
    let (fu, fv) = (u - i0 as f32, v - j0 as f32);
    let at = |i: usize, j: usize| pos[j * cols + i];
    let (p00, p10, p01, p11) = (
        at(i0, j0),
        at(i0 + 1, j0),
        at(i0, j0 + 1),
        at(i0 + 1, j0 + 1),
    );
    let top = p00.lerp(p10, fu);
    let bottom = p01.lerp(p11, fu);
    let p = top.lerp(bottom, fv);
    let du = (p10 - p00).lerp(p11 - p01, fv);
    let dv = bottom - top;
    let e1 = du.normalize_or(Vec3::X);
    let n = du.cross(dv).normalize_or(Vec3::Z);
    let e2 = n.cross(e1);
    (p, Mat3::from_cols(e1, e2, n))
}

impl<'a> ImportedCut<'a> {
    fn new(worn: &'a WornMesh, parts: &'a [Part], grid: &'a FoundGrid) -> Self {
        Self {
            worn,
            parts,
            grid,
            to_sleeve: distances_to_sleeves(worn, parts, 2.0 * grid.row_height()),
        }
    }

    /// The render vertices the grid alone drives, with their grid places and their rest offsets
    /// from the grid's surface in its frame (particles at `rest`).
    fn fully_on_grid(&self, rest: &[Vec3]) -> Vec<(u32, (f32, f32), Vec3)> {
        let g = self.grid;
        (0..self.worn.mesh.positions.len())
            .filter_map(|v| {
                let p = self.worn.mesh.positions[v];
                let (uv, w) = self.cloth_share(v)?;
                (w >= 1.0).then(|| {
                    let (s, frame) = surface_frame(rest, g.cols, g.rows, uv);
                    (v as u32, uv, frame.transpose() * (p - s))
                })
            })
            .collect()
    }

    /// Where vertex `v` lies on the grid and how much of its skinning the cloth bones take
    /// (`None` for a sleeve's).
    fn cloth_share(&self, v: usize) -> Option<((f32, f32), f32)> {
        if self.parts[v] == Part::Sleeve {
            return None;
        }
        let (uv, below_pin) = self.grid_place(self.worn.mesh.positions[v]);
        // Round the armholes the grid's share fades in over a row's height too.
        let band = self.grid.row_height();
        Some((uv, below_pin * smoothstep(0.0, band, self.to_sleeve[v])))
    }

    /// Where a garment point lies on the grid, as (column, row) coordinates, and how far it is
    /// into the simulated part (0 above the pin line, 1 a row's height below it).
    fn grid_place(&self, p: Vec3) -> ((f32, f32), f32) {
        let g = self.grid;
        let depth = (g.pin_height - p.y) / (g.pin_height - g.hem_height).max(1e-6);
        let v = (depth * (g.rows - 1) as f32).clamp(0.0, (g.rows - 1) as f32);
        let a = (p.x - g.axis.0).atan2(p.z - g.axis.1);
        let from_start = (a - g.start).rem_euclid(TAU);
        let u = (from_start / g.span * (g.cols - 1) as f32).clamp(0.0, (g.cols - 1) as f32);
        ((u, v), smoothstep(0.0, 1.0, depth * (g.rows - 1) as f32))
    }
}

impl Tailor for ImportedCut<'_> {
    fn closed(&self) -> bool {
        self.grid.closed
    }

    fn reference_binding(&self, _rig: &GarmentRig, i: usize, _p: Vec3, _depth: f32) -> Binding {
        self.grid.bindings[i]
    }

    fn add_parts(&self, rig: &GarmentRig, _rings: &[Ring], _skin: &RestSkin, m: &mut RenderMesh) {
        let mesh = &self.worn.mesh;
        for v in 0..mesh.positions.len() {
            let body = mesh.joints[v]
                .iter()
                .zip(&mesh.weights[v])
                .map(|(&j, &w)| (driver(rig, j as usize), w));
            let binding = match self.cloth_share(v) {
                None => mix_bindings(&body.collect::<Vec<_>>()),
                Some(((u, gv), w)) => {
                    let cloth = lower_binding(rig, u, gv);
                    let entries: Vec<(u16, f32)> = body
                        .map(|(d, x)| (d, x * (1.0 - w)))
                        .chain(cloth.iter().map(|&(d, x)| (d, x * w)))
                        .collect();
                    mix_bindings(&entries)
                }
            };
            m.push_vertex(
                mesh.positions[v],
                mesh.normals[v],
                self.worn.uvs[v],
                binding,
            );
        }
        m.indices.extend_from_slice(&mesh.indices);
    }

    fn grid_coords(&self, _rig: &GarmentRig, v: u32) -> Option<(f32, f32)> {
        let p = self.worn.mesh.positions.get(v as usize).copied()?;
        (self.parts.get(v as usize) != Some(&Part::Sleeve) && p.y < self.grid.pin_height)
            .then(|| self.grid_place(p).0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cloth_tuner_assets::garment::{garment_file_glb, GarmentKind};
    use cloth_tuner_assets::test_rig::RigStyle;

    /// Per vertex of `worn`, the distance to its nearest sleeve vertex over every sleeve vertex
    /// (infinite without sleeves).
    fn over_every_sleeve_vertex(worn: &WornMesh, parts: &[Part]) -> Vec<f32> {
        let pos = &worn.mesh.positions;
        pos.iter()
            .map(|&p| {
                (0..pos.len())
                    .filter(|&s| parts[s] == Part::Sleeve)
                    .map(|s| pos[s].distance(p))
                    .fold(f32::INFINITY, f32::min)
            })
            .collect()
    }

    #[test]
    fn each_vertex_shares_its_skinning_as_a_search_over_every_sleeve_vertex_says() {
        let character = Character::builtin();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("jacket.glb");
        let bytes = garment_file_glb(GarmentKind::ShortJacket, &RigStyle::default());
        std::fs::write(&path, bytes).unwrap();
        let worn = character.read_garment(&path, None).unwrap();
        let model = rest_model(&character);
        let parts = vertex_parts(&character, &worn);
        // The pin line across the chest, so the armholes are in the simulated part.
        let choice = GridChoice {
            pin_height_m: Some(1.35),
            ..GridChoice::default()
        };
        let grid = find_grid(&character, &model, &worn, &parts, &choice).unwrap();
        let bounded = ImportedCut::new(&worn, &parts, &grid);
        let every = ImportedCut {
            to_sleeve: over_every_sleeve_vertex(&worn, &parts),
            ..ImportedCut::new(&worn, &parts, &grid)
        };
        // The grid's share fades in round the armholes, and many vertices lie further from the
        // sleeves than the bounded search looks.
        let fading = (0..worn.mesh.positions.len())
            .filter(|&v| {
                every
                    .cloth_share(v)
                    .is_some_and(|(_, w)| w > 0.0 && w < 1.0)
            })
            .filter(|&v| every.to_sleeve[v] < grid.row_height())
            .count();
        assert!(fading > 20, "{fading} vertices fade in round the armholes");
        let unbounded = bounded.to_sleeve.iter().filter(|d| d.is_infinite()).count();
        assert!(
            unbounded > bounded.to_sleeve.len() / 4,
            "{unbounded} of {} found no sleeve",
            bounded.to_sleeve.len()
        );
        let bits = |s: Option<((f32, f32), f32)>| s.map(|((u, v), w)| [u, v, w].map(f32::to_bits));
        for v in 0..worn.mesh.positions.len() {
            assert_eq!(
                bits(bounded.cloth_share(v)),
                bits(every.cloth_share(v)),
                "vertex {v}: {} m from a sleeve",
                every.to_sleeve[v]
            );
        }
    }
}
