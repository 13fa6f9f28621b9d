//! The veil (the old lady's veil of Enqvist's "The Secrets Of Cloth Simulation In Alan Wake",
//! simulated with the jacket's system): the same grid,
//! bones and skinned render sheet as the lower jacket, hung from a band around the crown
//! instead of the chest. Its rows are rings fitted around the head, the neck and the
//! shoulders ([`crate::character::head_and_shoulders`], the hood's colliders); the opening is at the
//! back, so the face is covered. The top row is pinned to the head; the rows below follow the
//! head down to the neck and the chest below it.

use std::any::Any;
use std::f32::consts::{FRAC_PI_2, TAU};

use glam::{Mat4, Vec3};

use super::layout::{fit_rings, landmarks, skin_of, GridLayout, Ring, BUILTIN_LANDMARKS};
use super::rig::{
    add_shells, driver, rest_model, ring_rest, ring_strip, smoothstep, Binding, GarmentRig,
    RenderMesh, RestSkin, RigFrame, Tailor,
};
use super::{Body, Garment, GarmentError, Posed};
use crate::character::{Character, Ellipsoid, PosedEllipsoid, Role};
use crate::preset::Garment as Template;

/// The smallest ring of a veil's row (half width, front, back, metres on the built-in body):
/// a band around the crown is far narrower than a jacket's chest.
const RING_FLOOR: Vec3 = Vec3::new(0.03, 0.03, 0.03);

/// Where the crown band sits, as a fraction of the way from the head ellipsoid's centre up to
/// its top: high enough to hold on the crown, low enough to go round it rather than sit on it.
const CROWN: f32 = 0.6;

/// How far below the shoulders the hem hangs at rest, metres on the built-in body.
const HEM_BELOW_SHOULDERS: f32 = 0.15;

/// Rings of the crown cap (from the band up to the top) and vertices around each.
const CAP_RINGS: usize = 6;
const CAP_AROUND: usize = 32;

/// The veil's layout on `character`: a band around the crown, a hem below the shoulders,
/// open at the back, a thin sheet.
pub fn layout(character: &Character) -> GridLayout {
    let (shoulder, _) = landmarks(character);
    let k = shoulder / BUILTIN_LANDMARKS.0;
    let (centre, top) = head_centre_and_top(character);
    let crown = centre + (top - centre) * CROWN;
    // The grid fold lines and painted maps are checked against.
    let (cols, rows) = Template::Veil.grid();
    GridLayout {
        cols,
        rows,
        top_height: crown,
        hem_height: shoulder - HEM_BELOW_SHOULDERS * k,
        front_gap_deg: 20.0,
        clearance: 0.012 * k,
        render_cols_per_sim: 4,
        render_rows_per_sim: 4,
        thickness: 0.002 * k,
        body_scale: k,
        opening_deg: 180.0,
        ..GridLayout::default()
    }
}

/// What the veil falls on: `ellipsoids`, the hood's ([`crate::character::head_and_shoulders`]),
/// with the head grown just enough to hold the head's skin at rest. The fitted head stays
/// inside the skin, so the nose and the chin stand out of it and would poke through a veil
/// draped on it.
pub(crate) fn cover_head(character: &Character, ellipsoids: &mut [Ellipsoid]) {
    let Some(head) = ellipsoids.iter_mut().find(|e| e.name == "head") else {
        return;
    };
    let model = rest_model(character);
    let posed = head.posed(&model);
    let grow = skin_of(character, &model, |r| r == Role::Head)
        .iter()
        .map(|p| posed.to_unit_sphere(*p).length())
        .fold(1.0, f32::max);
    head.radii *= grow;
}

/// The veil's colliders at rest on `character` ([`cover_head`]).
fn ellipsoids(character: &Character) -> Vec<Ellipsoid> {
    let mut out = crate::character::head_and_shoulders(character);
    cover_head(character, &mut out);
    out
}

/// The heights of the head ellipsoid's centre and top at rest (the head bone and 0.2 m above
/// it when the character has no head to fit one to).
fn head_centre_and_top(character: &Character) -> (f32, f32) {
    let model = rest_model(character);
    let head = ellipsoids(character).into_iter().find(|e| e.name == "head");
    match head {
        Some(e) => {
            let p = e.posed(&model);
            // The highest point of a rotated ellipsoid: its extent along world up.
            let up = p.rotation.inverse() * Vec3::Y;
            let reach = (up * p.radii).length();
            (p.centre.y, p.centre.y + reach)
        }
        None => {
            let y = model[character.roles.bone(Role::Head)].w_axis.y;
            (y, y + 0.2)
        }
    }
}

/// The veil's rest rings on `character` posed by `model` (its rest pose): around the head,
/// the neck and the shoulders and the skin there, hanging straight below the head's widest
/// row until the shoulders widen it.
fn rest_rings(character: &Character, layout: &GridLayout, model: &[Mat4]) -> Vec<Ring> {
    let posed: Vec<PosedEllipsoid> = ellipsoids(character)
        .iter()
        .map(|e| e.posed(model))
        .collect();
    let covered = |r: Role| {
        matches!(
            r,
            Role::Head | Role::Neck | Role::Chest | Role::UpperarmL | Role::UpperarmR
        )
    };
    fit_rings(
        layout,
        &posed,
        &skin_of(character, model, covered),
        RING_FLOOR,
    )
}

/// How a veil particle's reference point follows the body: the crown band (`depth` 0) with the
/// head; below it the head's share fades from the head bone down to the neck bone, so the rows
/// on the shoulders follow the chest.
fn reference_binding(rig: &GarmentRig, p: Vec3, depth: f32) -> Binding {
    let b = rig.bones;
    let y = |bone: usize| rig.rest_drivers[bone].w_axis.y;
    let w = if depth == 0.0 {
        1.0
    } else {
        smoothstep(y(b.neck), y(b.head), p.y)
    };
    [
        (b.head as u16, w),
        (b.chest as u16, 1.0 - w),
        (0, 0.0),
        (0, 0.0),
    ]
}

/// The cap over the crown: a dome from the band (`band`, the top row's ring, closed all
/// round) up over the top of the head, outer layer and lining, skinned rigidly to the head.
fn add_crown(rig: &GarmentRig, band: Ring, m: &mut RenderMesh) {
    let head = driver(rig, rig.bones.head);
    let binding: Binding = [(head, 1.0), (0, 0.0), (0, 0.0), (0, 0.0)];
    let rise = band.rx.min(band.rz) * 0.8;
    let thickness = rig.layout.thickness;
    for layer in 0..2 {
        let first = m.positions.len() as u32;
        for j in 0..=CAP_RINGS {
            let theta = FRAC_PI_2 * j as f32 / CAP_RINGS as f32;
            let (ct, st) = (theta.cos(), theta.sin());
            for i in 0..CAP_AROUND {
                let phi = TAU * i as f32 / CAP_AROUND as f32;
                let (sp, cp) = phi.sin_cos();
                let p = Vec3::new(
                    sp * band.rx * ct,
                    band.y + rise * st,
                    band.cz + cp * band.rz * ct,
                );
                let n = Vec3::new(sp * ct / band.rx, st / rise, cp * ct / band.rz).normalize();
                let (p, n) = if layer == 0 {
                    (p, n)
                } else {
                    (p - n * thickness, -n)
                };
                m.push_vertex(
                    p,
                    n,
                    [i as f32 / CAP_AROUND as f32 * 2.0, ct * 0.5],
                    binding,
                );
            }
        }
        ring_strip(
            &mut m.indices,
            first,
            CAP_RINGS as u32,
            CAP_AROUND as u32,
            layer == 1,
        );
    }
}

/// The veil on one character: its rig and what it falls on.
#[derive(Clone, Debug)]
pub struct Veil {
    rig: GarmentRig,
    body: Body,
}

/// How the veil is cut: references follow the head down to the chest, a plain sheet, and a
/// cap over the crown.
struct VeilCut;

impl Tailor for VeilCut {
    fn reference_binding(&self, rig: &GarmentRig, _i: usize, p: Vec3, depth: f32) -> Binding {
        reference_binding(rig, p, depth)
    }

    fn add_parts(&self, rig: &GarmentRig, rings: &[Ring], _skin: &RestSkin, m: &mut RenderMesh) {
        add_shells(rig, rings, self, m);
        add_crown(rig, rings[0], m);
    }
}

impl Veil {
    /// The veil on `character` in `layout` ([`layout`] fits one).
    pub fn new(character: &Character, layout: &GridLayout) -> Result<Self, GarmentError> {
        GarmentRig::check_layout(layout)?;
        let model = rest_model(character);
        let rings = rest_rings(character, layout, &model);
        Ok(Self {
            rig: GarmentRig::new(
                character,
                &model,
                layout,
                (ring_rest(layout, &rings), &rings),
                &[],
                &VeilCut,
            )?,
            body: Body::without_legs(ellipsoids(character)),
        })
    }
}

impl Garment for Veil {
    fn template(&self) -> Option<Template> {
        Some(Template::Veil)
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
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}
