//! Collision ellipsoids fitted to a character's skin, for files that bring none.
//!
//! Each vertex belongs to the role of its heaviest bone (a bone with no role belongs to the
//! nearest role above it: a clavicle to the chest, a twist bone to its arm; a foot to none). Per
//! role, the vertices give a box: the torso's (pelvis, spine, chest) along the character's axes,
//! widened to the thighs' skin at the same heights (a hip's side mostly follows the thigh bone),
//! a limb's (thigh, shin, upper arm) along the bone from its joint to the next one, only the part
//! between the two joints. The ellipsoid starts at that box's half extents and shrinks along the
//! axis that holds the deepest skin vertex inside it until no vertex of the body is inside: the
//! ellipsoid stays inside the skin, so cloth pushed out of it never floats off the body. A limb
//! whose ellipsoid would be longer than [`MAX_ELONGATION`] times its width gets two, one per half
//! (a long ellipsoid skews the push-out direction), as the article splits the legs. A limb's
//! ellipsoid keeps its length along the bone, [`LIMB_OVERLAP`] times its piece's half span
//! between the joints, and
//! only its width shrinks: the pieces of a limb overlap end to end as the hand-placed ones do,
//! so the limb's surface has no notch between them (nor below the hips) for cloth to catch in.
//! The settings' per-role scale multiplies the radii last.

use glam::{Quat, Vec3};

use super::ellipsoid::Ellipsoid;
use super::mesh::SkinnedMesh;
use super::roles::{Role, Roles};
use super::settings::CharacterSettings;
use super::{Character, Skeleton};
use crate::sim::Frame;

/// Largest ratio of a limb ellipsoid's half length to its width before it is split in two.
pub const MAX_ELONGATION: f32 = 2.0;

/// A limb ellipsoid's half length along its bone, in halves of its piece's span between the
/// joints (the whole limb, or half of it when split): longer than the span, so the two halves of a limb (and the thigh and the hips)
/// overlap. The built-in body's hand-placed thighs, shins and upper arms have 1.13 to 1.17;
/// fitted ones shrunk along the bone left a notch between the thigh's halves and below the
/// hips where a jacket's hem caught and its rows stretched.
pub const LIMB_OVERLAP: f32 = 1.16;

/// Rounds of shrinking toward the deepest vertex before the final uniform shrink.
const SHRINK_ROUNDS: usize = 60;

/// Share of the largest radii that touch the skin that is kept (a vertex exactly on the
/// surface must not count as inside after rounding).
const FIT_MARGIN: f32 = 0.995;

/// The roles that get ellipsoids, with the names the scene knows them by (the jacket collides
/// with the torso's and the legs' and leaves the upper arms' out, as on the built-in body).
const FITTED: [(Role, &str); 9] = [
    (Role::Pelvis, "hips"),
    (Role::Spine, "belly"),
    (Role::Chest, "chest"),
    (Role::ThighL, "thigh_l"),
    (Role::ThighR, "thigh_r"),
    (Role::ShinL, "calf_l"),
    (Role::ShinR, "calf_r"),
    (Role::UpperarmL, "upperarm_l"),
    (Role::UpperarmR, "upperarm_r"),
];

/// The next joint down a limb: where the limb's part ends.
fn limb_end(role: Role) -> Option<Role> {
    Some(match role {
        Role::ThighL => Role::ShinL,
        Role::ThighR => Role::ShinR,
        Role::UpperarmL => Role::ForearmL,
        Role::UpperarmR => Role::ForearmR,
        Role::ShinL | Role::ShinR => return None,
        _ => return None,
    })
}

fn is_limb(role: Role) -> bool {
    !matches!(
        role,
        Role::Pelvis | Role::Spine | Role::Chest | Role::Neck | Role::Head
    )
}

/// Fits the ellipsoids of every role in [`FITTED`] (a role with too few vertices gets none).
pub(crate) fn fit_ellipsoids(
    skeleton: &Skeleton,
    mesh: &SkinnedMesh,
    roles: &Roles,
    settings: &CharacterSettings,
) -> Vec<Ellipsoid> {
    let which = FITTED.map(|(role, name)| (role, name, settings.scale(role)));
    fit_roles(skeleton, mesh, roles, &which)
}

/// The head's and the neck's ellipsoids, fitted to the skin as the torso's are (along the
/// character's axes, shrunk until no skin vertex is inside). The jacket never collides with
/// them, so characters bring none; the hood keeps out of them.
pub(crate) fn fit_head_and_neck(
    skeleton: &Skeleton,
    mesh: &SkinnedMesh,
    roles: &Roles,
) -> Vec<Ellipsoid> {
    let which = [(Role::Head, "head", 1.0), (Role::Neck, "neck", 1.0)];
    fit_roles(skeleton, mesh, roles, &which)
}

/// What the hood keeps out of and the veil falls on: the character's own `head` and `neck` ellipsoids where it has
/// them, else ones fitted to its skin, and the shoulders: the `chest` (the upper back and the
/// tops of the shoulders) and the upper arms' upper (or only) ellipsoids. The jacket collides
/// with none of the head, neck or upper arms (see [`crate::garment::Body::torso_and_legs`]).
pub fn head_and_shoulders(character: &Character) -> Vec<Ellipsoid> {
    let own = |name: &str| character.ellipsoid(name).cloned();
    let mut out: Vec<Ellipsoid> = match (own("head"), own("neck")) {
        (Some(head), Some(neck)) => vec![head, neck],
        _ => fit_head_and_neck(&character.skeleton, &character.mesh, &character.roles),
    };
    let shoulders = [
        "chest",
        "upperarm_l_upper",
        "upperarm_r_upper",
        "upperarm_l",
        "upperarm_r",
    ];
    out.extend(shoulders.iter().filter_map(|n| own(n)));
    out
}

/// The ellipsoids of each (role, name, scale) of `which`, in that order, fitted to the skin at
/// rest (a role with too few vertices gets none).
fn fit_roles(
    skeleton: &Skeleton,
    mesh: &SkinnedMesh,
    roles: &Roles,
    which: &[(Role, &str, f32)],
) -> Vec<Ellipsoid> {
    let mut model = Vec::new();
    skeleton
        .rest_pose()
        .compute_model_frames(skeleton, &mut model);
    let owner = vertex_roles(skeleton, mesh, roles);
    let fit = Fitting {
        skeleton,
        mesh,
        roles,
        model: &model,
        owner: &owner,
    };
    let mut out = Vec::new();
    for &(role, name, scale) in which {
        fit.role(role, name, scale, &mut out);
    }
    out
}

/// What fitting any role reads: the body at rest and which role each skin vertex belongs to.
struct Fitting<'a> {
    skeleton: &'a Skeleton,
    mesh: &'a SkinnedMesh,
    roles: &'a Roles,
    model: &'a [Frame],
    owner: &'a [Option<Role>],
}

impl Fitting<'_> {
    /// Appends the ellipsoid (or the two halves of a long limb) of `role`, named `name`, its
    /// radii times `scale`; nothing for a role the character lacks or with too few vertices.
    fn role(&self, role: Role, name: &str, scale: f32, out: &mut Vec<Ellipsoid>) {
        let Some(bone) = self.roles.get(role) else {
            return;
        };
        let mesh = self.mesh;
        let points: Vec<Vec3> = mesh
            .positions
            .iter()
            .zip(self.owner)
            .filter(|(_, o)| **o == Some(role))
            .map(|(p, _)| *p)
            .collect();
        let pieces = if is_limb(role) {
            limb_pieces(role, bone, self.skeleton, self.model, self.roles, &points)
        } else {
            vec![(
                Quat::IDENTITY,
                torso_section(points, &mesh.positions, self.owner),
                None,
            )]
        };
        let split = pieces.len() > 1;
        for (k, (axes, pts, span)) in pieces.into_iter().enumerate() {
            let Some((centre, radii)) = fit_piece(axes, &pts, &mesh.positions, span) else {
                continue;
            };
            let suffix = match (split, k) {
                (false, _) => "",
                (true, 0) => "_upper",
                (true, _) => "_lower",
            };
            let frame = self.model[bone];
            out.push(Ellipsoid {
                name: format!("{name}{suffix}"),
                bone,
                centre: frame.inverse().transform_point(centre),
                rotation: (frame.rotation.inverse() * axes).normalize(),
                radii: radii * scale,
            });
        }
    }
}

/// The skin a torso role's ellipsoid is fitted to: its own and the thighs' skin at the same
/// heights (a hip's side mostly follows a thigh bone, yet it is the torso's width there).
fn torso_section(mut points: Vec<Vec3>, body: &[Vec3], owner: &[Option<Role>]) -> Vec<Vec3> {
    let (lo, hi) = points.iter().fold((f32::MAX, f32::MIN), |(lo, hi), p| {
        (lo.min(p.y), hi.max(p.y))
    });
    points.extend(body.iter().zip(owner).filter_map(|(p, o)| {
        let thigh = matches!(o, Some(Role::ThighL | Role::ThighR));
        (thigh && (lo..=hi).contains(&p.y)).then_some(*p)
    }));
    points
}

/// The role each vertex belongs to: its heaviest bone's role, or the nearest role above it.
pub(crate) fn vertex_roles(
    skeleton: &Skeleton,
    mesh: &SkinnedMesh,
    roles: &Roles,
) -> Vec<Option<Role>> {
    let mut bone_role: Vec<Option<Role>> = vec![None; skeleton.len()];
    for (role, b) in roles.iter() {
        if !matches!(
            role,
            Role::UpperarmTwistL | Role::UpperarmTwistR | Role::ForearmTwistL | Role::ForearmTwistR
        ) {
            bone_role[b] = Some(role);
        }
    }
    // Parents come first, so one pass hands every bone its nearest role above; a shin does
    // not hand its role to the foot (the foot would widen the shin's ellipsoid to the toes).
    let ends_limb = |r: Role| matches!(r, Role::ShinL | Role::ShinR);
    for b in 0..skeleton.len() {
        if bone_role[b].is_none() {
            bone_role[b] = skeleton
                .parent(b)
                .and_then(|p| bone_role[p])
                .filter(|&r| !ends_limb(r));
        }
    }
    mesh.weights
        .iter()
        .zip(&mesh.joints)
        .map(|(w, j)| {
            let k = (0..4).max_by(|&a, &b| w[a].total_cmp(&w[b])).unwrap_or(0);
            bone_role.get(j[k] as usize).copied().flatten()
        })
        .collect()
}

/// A limb's points between its joint and the next, along the bone: one piece, or two halves
/// when one would be too elongated. Each piece comes with its axes (y along the bone) and its
/// length along the bone between the joints.
fn limb_pieces(
    role: Role,
    bone: usize,
    skeleton: &Skeleton,
    model: &[Frame],
    roles: &Roles,
    points: &[Vec3],
) -> Vec<(Quat, Vec<Vec3>, Option<f32>)> {
    let start = model[bone].translation;
    // The limb ends at the next role's joint, or at the farthest child joint (the ankle).
    let end = limb_end(role)
        .and_then(|r| roles.get(r))
        .map(|b| model[b].translation)
        .or_else(|| {
            (0..skeleton.len())
                .filter(|&c| skeleton.parent(c) == Some(bone))
                .map(|c| model[c].translation)
                .max_by(|a, b| a.distance(start).total_cmp(&b.distance(start)))
        });
    let Some(end) = end.filter(|e| e.distance(start) > 1e-4) else {
        return Vec::new();
    };
    let len = end.distance(start);
    let dir = (end - start) / len;
    let axes = Quat::from_rotation_arc(Vec3::Y, dir);
    let along = |p: &Vec3| (*p - start).dot(dir) / len;
    let inside: Vec<Vec3> = points
        .iter()
        .copied()
        .filter(|p| (0.0..=1.0).contains(&along(p)))
        .collect();
    let width = inside
        .iter()
        .map(|p| ((*p - start) - dir * (*p - start).dot(dir)).length())
        .fold(0.0f32, f32::max);
    if width <= 0.0 || len * 0.5 / width <= MAX_ELONGATION {
        return vec![(axes, inside, Some(len))];
    }
    let (upper, lower): (Vec<Vec3>, Vec<Vec3>) = inside.iter().partition(|p| along(p) < 0.5);
    let half = Some(len * 0.5);
    vec![(axes, upper, half), (axes, lower, half)]
}

/// The ellipsoid of a set of points with principal axes `axes`, shrunk until no vertex of
/// `body` is inside: its centre and radii (character space), or `None` for too few points.
/// A limb's piece (`span`: its length between the joints, y along the bone) keeps
/// [`LIMB_OVERLAP`] times half its span along the bone and shrinks across it only.
fn fit_piece(
    axes: Quat,
    points: &[Vec3],
    body: &[Vec3],
    span: Option<f32>,
) -> Option<(Vec3, Vec3)> {
    if points.len() < 8 {
        return None;
    }
    let to_local = axes.inverse();
    let (lo, hi) = points.iter().fold(
        (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
        |(lo, hi), p| {
            let q = to_local * *p;
            (lo.min(q), hi.max(q))
        },
    );
    let centre_local = (lo + hi) * 0.5;
    let mut radii = ((hi - lo) * 0.5).max(Vec3::splat(0.01));
    // The axes that shrink: all, or a limb's two across its bone.
    let free = match span {
        Some(span) => {
            radii.y = span * 0.5 * LIMB_OVERLAP;
            Vec3::new(1.0, 0.0, 1.0)
        }
        None => Vec3::ONE,
    };
    // The radii only shrink, so a vertex outside the first ellipsoid stays outside every
    // later one: only those inside can be the deepest while it is inside (which is all the
    // rounds ask), in their order, so the same one.
    let local: Vec<Vec3> = (body.iter())
        .map(|p| to_local * *p - centre_local)
        .filter(|q| (*q / radii).length_squared() < 1.0)
        .collect();
    let deepest = |radii: Vec3| {
        local
            .iter()
            .map(|q| *q / radii)
            .min_by(|a, b| a.length_squared().total_cmp(&b.length_squared()))
            // None left inside: the deepest vertex is at or outside the surface.
            .or((!body.is_empty()).then_some(Vec3::X))
    };
    for _ in 0..SHRINK_ROUNDS {
        let Some(u) = deepest(radii) else { break };
        let d = u.length();
        if d >= 1.0 {
            break;
        }
        // Shrink each free axis by its share of the way out to that vertex.
        let along = u * u * free;
        let norm = if free == Vec3::ONE {
            d.max(1e-6).powi(2)
        } else {
            along.element_sum().max(1e-12)
        };
        let share = along / norm;
        radii *= Vec3::ONE - share * (1.0 - d);
        radii = radii.max(Vec3::splat(0.005));
    }
    // Whatever the rounds left inside goes by a last uniform shrink of the free axes, with a
    // margin for the rounding of the ellipsoid's trip into bone space and back.
    let factor = local
        .iter()
        .map(|q| last_shrink(*q / radii, free))
        .fold(1.0f32, f32::min);
    radii = radii * (Vec3::ONE - free) + radii * free * (factor * FIT_MARGIN).min(1.0);
    (radii.min_element() > 0.0 && radii.is_finite()).then(|| (axes * centre_local, radii))
}

/// The factor on the free axes that takes a point at `u` (unit-sphere space) to the surface or
/// outside: 1 for a point already outside, else the root of (free part)² / (1 − fixed part²).
fn last_shrink(u: Vec3, free: Vec3) -> f32 {
    if u.length_squared() >= 1.0 {
        return 1.0;
    }
    let moving = (u * u * free).element_sum();
    let fixed = (u * u * (Vec3::ONE - free)).element_sum();
    // A point on the fixed axis alone (moving = 0) can only leave by a vanishing width.
    (moving / (1.0 - fixed).max(1e-12)).sqrt().clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::super::Character;
    use glam::Mat4;

    /// The sideways extent (largest |x|) of a character's ellipsoid at rest, metres.
    fn side(c: &Character, name: &str) -> f32 {
        let mut model: Vec<Mat4> = Vec::new();
        c.skeleton
            .rest_pose()
            .compute_model(&c.skeleton, &mut model);
        let e = c
            .ellipsoid(name)
            .unwrap_or_else(|| panic!("no ellipsoid {name}"))
            .posed(&model);
        e.centre.x.abs() + e.radii.x
    }

    /// The built-in body from a file that brings no ellipsoids: fitted from its skin.
    fn fitted_builtin_body() -> Character {
        let style = cloth_tuner_assets::test_rig::RigStyle {
            clips: Vec::new(),
            ..Default::default()
        };
        let glb = cloth_tuner_assets::test_rig::test_rig_glb(&style);
        Character::from_glb(&glb, "test.glb").unwrap()
    }

    #[test]
    fn fitted_to_the_builtin_body_the_hips_and_thighs_reach_the_hand_placed_ones() {
        let fitted = fitted_builtin_body();
        let builtin = Character::builtin();
        // The jacket rests on these at the hips: narrower ones let the hips poke through it.
        for name in ["hips", "thigh_l_upper", "thigh_r_upper", "thigh_l_lower"] {
            let (f, b) = (side(&fitted, name), side(&builtin, name));
            assert!(
                (f - b).abs() < 0.015,
                "{name}: fitted reaches {f:.3} m sideways, hand-placed {b:.3} m"
            );
        }
    }

    #[test]
    fn fitted_limbs_overlap_along_the_bone_as_the_hand_placed_ones_do() {
        // Shrunk along the bone, the thigh's halves left a notch between them (and below the
        // hips) where a jacket's hem caught and its rows stretched past 50 % on the run.
        let fitted = fitted_builtin_body();
        let builtin = Character::builtin();
        for limb in ["thigh_l", "calf_r", "upperarm_l"] {
            let half = |c: &Character, part: &str| {
                let name = format!("{limb}_{part}");
                let e = c.ellipsoid(&name).unwrap_or_else(|| panic!("no {name}"));
                (e.centre, e.radii.y)
            };
            let ((cu, ru), (cl, rl)) = (half(&fitted, "upper"), half(&fitted, "lower"));
            let gap = cu.distance(cl);
            assert!(
                ru + rl > gap * 1.1,
                "{limb}: halves reach {:.3} m along the bone for {gap:.3} m between centres",
                ru + rl
            );
            // The hand-placed shins stop short of the ankle joint that the fitted ones reach.
            if limb.starts_with("calf") {
                continue;
            }
            let hand_placed = half(&builtin, "upper").1;
            assert!(
                (ru - hand_placed).abs() < 0.01,
                "{limb}: fitted half length {ru:.3} m, hand-placed {hand_placed:.3} m"
            );
        }
    }
}
