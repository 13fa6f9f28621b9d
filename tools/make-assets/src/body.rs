//! The mannequin: skeleton layout, body shape (a signed distance field of rounded cones and
//! ellipsoids around the bones), its surface mesh, skin weights and collision ellipsoids.

use glam::{Quat, Vec3};

use crate::dmath;
use crate::proportions::Proportions;

/// Bone indices of the generated skeleton (parents first).
pub mod b {
    pub const ROOT: usize = 0;
    pub const PELVIS: usize = 1;
    pub const SPINE: usize = 2;
    pub const CHEST: usize = 3;
    pub const NECK: usize = 4;
    pub const HEAD: usize = 5;
    /// `side` 0 = left (+X), 1 = right (−X).
    pub const fn clavicle(side: usize) -> usize {
        6 + 6 * side
    }
    pub const fn upperarm(side: usize) -> usize {
        7 + 6 * side
    }
    pub const fn upperarm_twist(side: usize) -> usize {
        8 + 6 * side
    }
    pub const fn forearm(side: usize) -> usize {
        9 + 6 * side
    }
    pub const fn forearm_twist(side: usize) -> usize {
        10 + 6 * side
    }
    pub const fn hand(side: usize) -> usize {
        11 + 6 * side
    }
    pub const fn thigh(side: usize) -> usize {
        18 + 3 * side
    }
    pub const fn calf(side: usize) -> usize {
        19 + 3 * side
    }
    pub const fn foot(side: usize) -> usize {
        20 + 3 * side
    }
    pub const COUNT: usize = 24;
}

/// +1 for the left side (+X), −1 for the right.
pub fn side_sign(side: usize) -> f32 {
    if side == 0 {
        1.0
    } else {
        -1.0
    }
}

/// Standing height of the mannequin, metres (the top of the head).
pub const HEIGHT: f32 = 1.80;

/// Lengths, metres.
pub const UPPERARM_LEN: f32 = 0.29;
pub const FOREARM_LEN: f32 = 0.26;
pub const THIGH_LEN: f32 = 0.43;
pub const CALF_LEN: f32 = 0.435;

/// Rest direction of the arm (A-pose, 45° down) for a side.
pub fn arm_dir(side: usize) -> Vec3 {
    Vec3::new(side_sign(side), -1.0, 0.0).normalize()
}

/// Rest direction of the arm `drop_deg` degrees below horizontal for a side (45: exactly
/// [`arm_dir`]).
pub fn arm_dir_at(side: usize, drop_deg: f32) -> Vec3 {
    if drop_deg == 45.0 {
        return arm_dir(side);
    }
    let a = dmath::deg(drop_deg as f64);
    Vec3::new(
        side_sign(side) * dmath::cos(a) as f32,
        -dmath::sin(a) as f32,
        0.0,
    )
    .normalize()
}

/// One bone of the layout: name, parent and rest position in character space. Every bone's
/// rest orientation is the identity (bone axes parallel to the character's).
pub struct BoneDef {
    pub name: String,
    pub parent: Option<usize>,
    pub pos: Vec3,
}

/// The skeleton layout, 1.80 m tall, A-pose, facing +Z.
pub fn bones() -> Vec<BoneDef> {
    bones_with(&Proportions::default())
}

/// The skeleton of a body with proportions `p`, before its height scale
/// ([`Proportions::height_scale`]): the limbs' lengths, the shoulders' and hips' spacing and
/// the arms' angle from `p`, the trunk raised with the hips.
pub fn bones_with(p: &Proportions) -> Vec<BoneDef> {
    let rise = Vec3::Y * p.hip_rise();
    let (upperarm_len, forearm_len) = (UPPERARM_LEN * p.arm_length, FOREARM_LEN * p.arm_length);
    let (thigh_len, calf_len) = (THIGH_LEN * p.leg_length, CALF_LEN * p.leg_length);
    let mut v: Vec<BoneDef> = Vec::with_capacity(b::COUNT);
    let mut add = |name: &str, parent: Option<usize>, pos: Vec3| {
        v.push(BoneDef {
            name: name.to_string(),
            parent,
            pos,
        })
    };
    add("root", None, Vec3::ZERO);
    add("pelvis", Some(b::ROOT), Vec3::new(0.0, 1.0, 0.0) + rise);
    add("spine", Some(b::PELVIS), Vec3::new(0.0, 1.10, 0.0) + rise);
    add("chest", Some(b::SPINE), Vec3::new(0.0, 1.28, 0.0) + rise);
    add("neck", Some(b::CHEST), Vec3::new(0.0, 1.50, -0.01) + rise);
    add("head", Some(b::NECK), Vec3::new(0.0, 1.61, 0.0) + rise);
    let wide = Vec3::new(p.shoulder_width, 1.0, 1.0);
    for side in 0..2 {
        let s = side_sign(side);
        let sfx = if side == 0 { "l" } else { "r" };
        let shoulder = Vec3::new(0.185 * s, 1.445, -0.01) * wide + rise;
        let dir = arm_dir_at(side, p.arm_drop_deg);
        let elbow = shoulder + dir * upperarm_len;
        let wrist = elbow + dir * forearm_len;
        add(
            &format!("clavicle_{sfx}"),
            Some(b::CHEST),
            Vec3::new(0.03 * s, 1.455, 0.02) * wide + rise,
        );
        add(
            &format!("upperarm_{sfx}"),
            Some(b::clavicle(side)),
            shoulder,
        );
        add(
            &format!("upperarm_twist_{sfx}"),
            Some(b::upperarm(side)),
            shoulder + dir * (0.5 * upperarm_len),
        );
        add(&format!("forearm_{sfx}"), Some(b::upperarm(side)), elbow);
        add(
            &format!("forearm_twist_{sfx}"),
            Some(b::forearm(side)),
            elbow + dir * (0.6 * forearm_len),
        );
        add(&format!("hand_{sfx}"), Some(b::forearm(side)), wrist);
    }
    for side in 0..2 {
        let s = side_sign(side);
        let sfx = if side == 0 { "l" } else { "r" };
        let hip = Vec3::new(0.095 * s * p.hips, 0.95, 0.0) + rise;
        add(&format!("thigh_{sfx}"), Some(b::PELVIS), hip);
        add(
            &format!("calf_{sfx}"),
            Some(b::thigh(side)),
            hip - Vec3::Y * thigh_len,
        );
        add(
            &format!("foot_{sfx}"),
            Some(b::calf(side)),
            hip - Vec3::Y * (thigh_len + calf_len),
        );
    }
    v
}

/// A shape of the body, in rest character space.
#[derive(Clone, Copy)]
enum Shape {
    /// A cone with rounded ends: spheres of radius `ra` at `a` and `rb` at `b`, hulled.
    RoundCone { a: Vec3, b: Vec3, ra: f32, rb: f32 },
    /// An ellipsoid with principal axes `axes` (columns, unit) and semi-axes `r`.
    Ellipsoid { c: Vec3, axes: [Vec3; 3], r: Vec3 },
}

impl Shape {
    fn ellipsoid(c: Vec3, r: Vec3) -> Self {
        Shape::Ellipsoid {
            c,
            axes: [Vec3::X, Vec3::Y, Vec3::Z],
            r,
        }
    }

    fn dist(&self, p: Vec3) -> f32 {
        match *self {
            Shape::RoundCone { a, b, ra, rb } => round_cone(p, a, b, ra, rb),
            Shape::Ellipsoid { c, axes, r } => {
                let d = p - c;
                let q = Vec3::new(d.dot(axes[0]), d.dot(axes[1]), d.dot(axes[2]));
                // Bound-corrected ellipsoid distance (exact on the surface, good nearby).
                let k0 = (q / r).length();
                let k1 = (q / (r * r)).length();
                if k1 < 1e-9 {
                    -r.min_element()
                } else {
                    k0 * (k0 - 1.0) / k1
                }
            }
        }
    }
}

/// Distance to a round cone (sphere-swept segment with linearly varying radius).
fn round_cone(p: Vec3, a: Vec3, b: Vec3, ra: f32, rb: f32) -> f32 {
    let ba = b - a;
    let l2 = ba.length_squared();
    let rr = ra - rb;
    let a2 = l2 - rr * rr;
    let il2 = 1.0 / l2;
    let pa = p - a;
    let y = pa.dot(ba);
    let z = y - l2;
    let x2 = (pa * l2 - ba * y).length_squared();
    let y2 = y * y * l2;
    let z2 = z * z * l2;
    let k = rr.signum() * rr * rr * x2;
    if z.signum() * a2 * z2 > k {
        return (x2 + z2).sqrt() * il2 - rb;
    }
    if y.signum() * a2 * y2 < k {
        return (x2 + y2).sqrt() * il2 - ra;
    }
    ((x2 * a2 * il2).sqrt() + y * rr) * il2 - ra
}

/// Polynomial smooth minimum with blend width `k`.
fn smin(a: f32, b: f32, k: f32) -> f32 {
    let h = (0.5 + 0.5 * (b - a) / k).clamp(0.0, 1.0);
    b + (a - b) * h - k * h * (1.0 - h)
}

/// Which blend group a shape belongs to: the trunk, or a limb that blends with the trunk but
/// not with the other limbs (so the thighs do not fuse).
#[derive(Clone, Copy, PartialEq)]
enum Group {
    Trunk,
    Limb(usize),
}

struct Part {
    bone: usize,
    group: Group,
    shape: Shape,
}

/// The body as bone-bound shapes.
struct Body {
    parts: Vec<Part>,
    /// Factor on the blend widths between parts ([`Proportions::blend`]).
    blend: f32,
}

const LIMB_LEG: [usize; 2] = [0, 1];
const LIMB_ARM: [usize; 2] = [2, 3];

/// Width and depth scaled by `k`, height kept.
fn girth(k: f32) -> Vec3 {
    Vec3::new(k, 1.0, k)
}

/// The trunk: pelvis, belly, chest, neck and head, riding on the hips and as wide as `p`
/// says.
fn trunk_parts(p: &Proportions) -> Vec<Part> {
    let rise = Vec3::Y * p.hip_rise();
    let mut parts = Vec::new();
    let mut add = |bone: usize, group: Group, shape: Shape| parts.push(Part { bone, group, shape });
    use Group::*;
    add(
        b::PELVIS,
        Trunk,
        Shape::ellipsoid(
            Vec3::new(0.0, 0.955, -0.01) + rise,
            Vec3::new(0.165, 0.12, 0.115) * girth(p.hips),
        ),
    );
    add(
        b::PELVIS,
        Trunk,
        Shape::ellipsoid(
            Vec3::new(0.0, 0.93, -0.035) + rise,
            Vec3::new(0.15, 0.09, 0.085) * girth(p.hips),
        ),
    );
    add(
        b::SPINE,
        Trunk,
        Shape::ellipsoid(
            Vec3::new(0.0, 1.12, 0.005) + rise,
            Vec3::new(0.14, 0.15, 0.1) * girth(p.waist),
        ),
    );
    add(
        b::CHEST,
        Trunk,
        Shape::ellipsoid(
            Vec3::new(0.0, 1.30, 0.005) + rise,
            Vec3::new(0.16, 0.17, 0.11) * girth(p.chest),
        ),
    );
    add(
        b::CHEST,
        Trunk,
        Shape::ellipsoid(
            Vec3::new(0.0, 1.405, -0.015) + rise,
            Vec3::new(0.175, 0.075, 0.09) * girth(p.chest),
        ),
    );
    add(
        b::NECK,
        Trunk,
        Shape::RoundCone {
            a: Vec3::new(0.0, 1.43, -0.02) + rise,
            b: Vec3::new(0.0, 1.62, 0.0) + rise,
            ra: 0.058,
            rb: 0.05,
        },
    );
    add(
        b::HEAD,
        Trunk,
        Shape::ellipsoid(
            Vec3::new(0.0, 1.70, 0.005) + rise,
            Vec3::new(0.078, 0.10, 0.095),
        ),
    );
    add(
        b::HEAD,
        Trunk,
        Shape::ellipsoid(
            Vec3::new(0.0, 1.64, 0.035) + rise,
            Vec3::new(0.06, 0.055, 0.065),
        ),
    );
    add(
        b::HEAD,
        Trunk,
        Shape::ellipsoid(
            Vec3::new(0.0, 1.69, 0.1) + rise,
            Vec3::new(0.013, 0.024, 0.02),
        ),
    );
    parts
}

/// The shoulder: from the chest out to the upper arm, blended with the trunk.
fn shoulder_part(bones: &[BoneDef], p: &Proportions, side: usize) -> Part {
    let s = side_sign(side);
    let wide = Vec3::new(p.shoulder_width, 1.0, 1.0);
    Part {
        bone: b::clavicle(side),
        group: Group::Trunk,
        shape: Shape::RoundCone {
            a: Vec3::new(0.04 * s, 1.45, -0.01) * wide + Vec3::Y * p.hip_rise(),
            b: bones[b::upperarm(side)].pos,
            ra: 0.05 * p.limbs,
            rb: 0.055 * p.limbs,
        },
    }
}

/// One arm: upper arm, forearm, and the hand (palm, fingers, thumb); the arm as thick and at
/// the angle `prop` says.
fn arm_parts(bones: &[BoneDef], prop: &Proportions, side: usize) -> Vec<Part> {
    let limbs = prop.limbs;
    let p = |i: usize| bones[i].pos;
    let s = side_sign(side);
    let mut parts = Vec::new();
    let mut add = |bone: usize, group: Group, shape: Shape| parts.push(Part { bone, group, shape });
    let g = Group::Limb(LIMB_ARM[side]);
    let sh = p(b::upperarm(side));
    let el = p(b::forearm(side));
    let wr = p(b::hand(side));
    let dir = arm_dir_at(side, prop.arm_drop_deg);
    add(
        b::upperarm(side),
        g,
        Shape::RoundCone {
            a: sh,
            b: el,
            ra: 0.056 * limbs,
            rb: 0.04 * limbs,
        },
    );
    add(
        b::forearm(side),
        g,
        Shape::RoundCone {
            a: el,
            b: wr,
            ra: 0.042 * limbs,
            rb: 0.027 * limbs,
        },
    );
    // Hand: palm faces the thigh (inward-down), thumb forward.
    let palm_n = Vec3::new(dir.y * s, -dir.x * s, 0.0);
    let axes = [dir, Vec3::Z, palm_n];
    add(
        b::hand(side),
        g,
        Shape::Ellipsoid {
            c: wr + dir * 0.055,
            axes,
            r: Vec3::new(0.06, 0.045, 0.02),
        },
    );
    add(
        b::hand(side),
        g,
        Shape::Ellipsoid {
            c: wr + dir * 0.125,
            axes,
            r: Vec3::new(0.055, 0.04, 0.014),
        },
    );
    add(
        b::hand(side),
        g,
        Shape::RoundCone {
            a: wr + dir * 0.03 + Vec3::Z * 0.025,
            b: wr + dir * 0.09 + Vec3::Z * 0.05 + palm_n * 0.01,
            ra: 0.014,
            rb: 0.011,
        },
    );
    parts
}

/// One leg: thigh, calf and foot; the leg `limbs` thick.
fn leg_parts(bones: &[BoneDef], limbs: f32, side: usize) -> Vec<Part> {
    let p = |i: usize| bones[i].pos;
    let s = side_sign(side);
    let mut parts = Vec::new();
    let mut add = |bone: usize, group: Group, shape: Shape| parts.push(Part { bone, group, shape });
    let g = Group::Limb(LIMB_LEG[side]);
    let hip = p(b::thigh(side));
    let knee = p(b::calf(side));
    let ankle = p(b::foot(side));
    add(
        b::thigh(side),
        g,
        Shape::RoundCone {
            a: hip + Vec3::new(0.005 * s, 0.0, 0.0),
            b: knee,
            ra: 0.083 * limbs,
            rb: 0.05 * limbs,
        },
    );
    add(
        b::calf(side),
        g,
        Shape::RoundCone {
            a: knee,
            b: ankle,
            ra: 0.048 * limbs,
            rb: 0.032 * limbs,
        },
    );
    add(
        b::calf(side),
        g,
        Shape::ellipsoid(
            knee + Vec3::new(0.0, -0.13, -0.02),
            Vec3::new(0.046, 0.1, 0.048) * girth(limbs),
        ),
    );
    add(
        b::foot(side),
        g,
        Shape::ellipsoid(
            ankle + Vec3::new(0.0, -0.035, 0.055),
            Vec3::new(0.045, 0.045, 0.125),
        ),
    );
    add(
        b::foot(side),
        g,
        Shape::ellipsoid(
            ankle + Vec3::new(0.0, -0.04, -0.035),
            Vec3::new(0.036, 0.04, 0.045),
        ),
    );
    parts
}

impl Body {
    /// The body's shapes: the trunk, then per side the shoulder, the arm and hand, the leg and
    /// foot. The order is the blend order (see [`Body::dist`]), so it shapes the surface.
    fn new(bones: &[BoneDef], p: &Proportions) -> Self {
        let mut parts = trunk_parts(p);
        for side in 0..2 {
            parts.push(shoulder_part(bones, p, side));
            parts.extend(arm_parts(bones, p, side));
            parts.extend(leg_parts(bones, p.limbs, side));
        }
        Self {
            parts,
            blend: p.blend,
        }
    }

    /// Signed distance of the whole body.
    fn dist(&self, p: Vec3) -> f32 {
        let mut trunk = f32::MAX;
        let mut limbs = [f32::MAX; 4];
        for part in &self.parts {
            let d = part.shape.dist(p);
            match part.group {
                Group::Trunk => trunk = smin(trunk, d, 0.06 * self.blend),
                Group::Limb(i) => limbs[i] = smin(limbs[i], d, 0.02 * self.blend),
            }
        }
        let mut best = trunk;
        for l in limbs {
            best = best.min(smin(trunk, l, 0.035 * self.blend));
        }
        best
    }

    /// Distance to each bone's own shapes (f32::MAX for bones with none).
    fn bone_dists(&self, p: Vec3, out: &mut [f32; b::COUNT]) {
        out.fill(f32::MAX);
        for part in &self.parts {
            let d = part.shape.dist(p);
            out[part.bone] = out[part.bone].min(d);
        }
    }

    fn gradient(&self, p: Vec3) -> Vec3 {
        let e = 5e-4;
        Vec3::new(
            self.dist(p + Vec3::X * e) - self.dist(p - Vec3::X * e),
            self.dist(p + Vec3::Y * e) - self.dist(p - Vec3::Y * e),
            self.dist(p + Vec3::Z * e) - self.dist(p - Vec3::Z * e),
        )
        .normalize_or_zero()
    }
}

/// The generated body mesh (bind pose, character space).
pub struct BodyMesh {
    pub positions: Vec<Vec3>,
    pub normals: Vec<Vec3>,
    pub indices: Vec<u32>,
    pub joints: Vec<[u16; 4]>,
    pub weights: Vec<[f32; 4]>,
}

/// A grid step along one axis.
type Step3 = (usize, usize, usize);

/// Grid spacing of the surface extraction, metres.
const CELL: f32 = 0.016;

/// Builds the body surface (surface nets on the distance field), normals and skin weights.
pub fn body_mesh(bones: &[BoneDef]) -> BodyMesh {
    body_mesh_at(bones, CELL)
}

/// [`body_mesh`] on a grid of `cell` metres (a finer grid gives more vertices).
pub fn body_mesh_at(bones: &[BoneDef], cell: f32) -> BodyMesh {
    body_mesh_with(bones, cell, &Proportions::default())
}

/// [`body_mesh_at`] of a body with proportions `p` around its skeleton `bones`
/// ([`bones_with`]), before the height scale. The sampled box grows by as much as the bones
/// reach past the mannequin's.
pub fn body_mesh_with(bones: &[BoneDef], cell: f32, p: &Proportions) -> BodyMesh {
    let body = Body::new(bones, p);
    let (lo, hi) = sampled_box(bones);
    let n = ((hi - lo) / cell).ceil();
    let (nx, ny, nz) = (n.x as usize + 1, n.y as usize + 1, n.z as usize + 1);
    let at = |i: usize, j: usize, k: usize| lo + Vec3::new(i as f32, j as f32, k as f32) * cell;
    let idx = |i: usize, j: usize, k: usize| (k * ny + j) * nx + i;
    let mut field = vec![0.0f32; nx * ny * nz];
    for k in 0..nz {
        for j in 0..ny {
            for i in 0..nx {
                field[idx(i, j, k)] = body.dist(at(i, j, k));
            }
        }
    }
    // One vertex per cell that the surface crosses: the mean of the edge crossings.
    let mut cell_vertex = vec![u32::MAX; nx * ny * nz];
    let mut positions = Vec::new();
    const CORNERS: [(usize, usize, usize); 8] = [
        (0, 0, 0),
        (1, 0, 0),
        (0, 1, 0),
        (1, 1, 0),
        (0, 0, 1),
        (1, 0, 1),
        (0, 1, 1),
        (1, 1, 1),
    ];
    const EDGES: [(usize, usize); 12] = [
        (0, 1),
        (2, 3),
        (4, 5),
        (6, 7),
        (0, 2),
        (1, 3),
        (4, 6),
        (5, 7),
        (0, 4),
        (1, 5),
        (2, 6),
        (3, 7),
    ];
    for k in 0..nz - 1 {
        for j in 0..ny - 1 {
            for i in 0..nx - 1 {
                let d: [f32; 8] = CORNERS.map(|(a, bb, c)| field[idx(i + a, j + bb, k + c)]);
                let inside = d.iter().filter(|&&v| v < 0.0).count();
                if inside == 0 || inside == 8 {
                    continue;
                }
                let mut sum = Vec3::ZERO;
                let mut count = 0.0;
                for (e0, e1) in EDGES {
                    if (d[e0] < 0.0) != (d[e1] < 0.0) {
                        let c0 = CORNERS[e0];
                        let c1 = CORNERS[e1];
                        let p0 = at(i + c0.0, j + c0.1, k + c0.2);
                        let p1 = at(i + c1.0, j + c1.1, k + c1.2);
                        let f = d[e0] / (d[e0] - d[e1]);
                        sum += p0 + (p1 - p0) * f;
                        count += 1.0;
                    }
                }
                cell_vertex[idx(i, j, k)] = positions.len() as u32;
                positions.push(sum / count);
            }
        }
    }
    // One quad per grid edge that crosses the surface, around that edge.
    let mut indices = Vec::new();
    for k in 1..nz - 1 {
        for j in 1..ny - 1 {
            for i in 1..nx - 1 {
                let d0 = field[idx(i, j, k)];
                // (axis step, the two other axes' steps)
                let axes: [(Step3, Step3, Step3); 3] = [
                    ((1, 0, 0), (0, 1, 0), (0, 0, 1)),
                    ((0, 1, 0), (0, 0, 1), (1, 0, 0)),
                    ((0, 0, 1), (1, 0, 0), (0, 1, 0)),
                ];
                for (ax, u, v) in axes {
                    if i + ax.0 >= nx || j + ax.1 >= ny || k + ax.2 >= nz {
                        continue;
                    }
                    let d1 = field[idx(i + ax.0, j + ax.1, k + ax.2)];
                    if (d0 < 0.0) == (d1 < 0.0) {
                        continue;
                    }
                    // The four cells sharing this edge: offsets 0 or -1 along u and v.
                    let cell = |du: usize, dv: usize| {
                        cell_vertex[idx(
                            i - u.0 * du - v.0 * dv,
                            j - u.1 * du - v.1 * dv,
                            k - u.2 * du - v.2 * dv,
                        )]
                    };
                    let q = [cell(0, 0), cell(1, 0), cell(1, 1), cell(0, 1)];
                    if q.contains(&u32::MAX) {
                        continue;
                    }
                    // Outward normal along +axis when the inside is at the lower end.
                    let quad = if d0 < 0.0 {
                        [q[0], q[1], q[2], q[0], q[2], q[3]]
                    } else {
                        [q[0], q[2], q[1], q[0], q[3], q[2]]
                    };
                    indices.extend_from_slice(&quad);
                }
            }
        }
    }
    // Project the vertices onto the surface (two Newton steps) and take normals.
    let mut normals = Vec::with_capacity(positions.len());
    for p in positions.iter_mut() {
        for _ in 0..2 {
            let g = body.gradient(*p);
            *p -= g * body.dist(*p);
        }
        normals.push(body.gradient(*p));
    }
    fix_winding(&positions, &normals, &mut indices);
    let (joints, weights) = skin_weights(&body, bones, &positions);
    BodyMesh {
        positions,
        normals,
        indices,
        joints,
        weights,
    }
}

/// The box the body's surface is sampled in: the mannequin's, grown by as much as `bones`
/// reach past the mannequin's bones on each side.
fn sampled_box(bones: &[BoneDef]) -> (Vec3, Vec3) {
    let extent = |bones: &[BoneDef]| {
        bones.iter().fold((Vec3::MAX, Vec3::MIN), |(lo, hi), bone| {
            (lo.min(bone.pos), hi.max(bone.pos))
        })
    };
    let (base_lo, base_hi) = extent(&bones_with(&Proportions::default()));
    let (lo, hi) = extent(bones);
    (
        Vec3::new(-0.72, -0.03, -0.20) - (base_lo - lo).max(Vec3::ZERO),
        Vec3::new(0.72, 1.84, 0.25) + (hi - base_hi).max(Vec3::ZERO),
    )
}

/// Makes each triangle's winding agree with the surface normals (counter-clockwise from
/// outside, as glTF expects).
fn fix_winding(pos: &[Vec3], nrm: &[Vec3], indices: &mut [u32]) {
    for tri in indices.chunks_exact_mut(3) {
        let [a, bb, c] = [tri[0] as usize, tri[1] as usize, tri[2] as usize];
        let face = (pos[bb] - pos[a]).cross(pos[c] - pos[a]);
        if face.dot(nrm[a] + nrm[bb] + nrm[c]) < 0.0 {
            tri.swap(1, 2);
        }
    }
}

/// Falloff of the skin weights with the distance beyond the nearest bone's surface, metres.
const WEIGHT_FALLOFF: f64 = 0.013;

/// Up to four weights per vertex from the distance to each bone's own shapes, with the twist
/// bones taking their share along the arm.
fn skin_weights(
    body: &Body,
    bones: &[BoneDef],
    positions: &[Vec3],
) -> (Vec<[u16; 4]>, Vec<[f32; 4]>) {
    let mut joints = Vec::with_capacity(positions.len());
    let mut weights = Vec::with_capacity(positions.len());
    let mut dist = [0.0f32; b::COUNT];
    for &p in positions {
        body.bone_dists(p, &mut dist);
        let dmin = dist.iter().copied().fold(f32::MAX, f32::min);
        let mut w = [0.0f64; b::COUNT];
        for (bone, &d) in dist.iter().enumerate() {
            if d < f32::MAX {
                let excess = (d - dmin) as f64;
                if excess < 0.06 {
                    w[bone] = dmath::exp(-excess / WEIGHT_FALLOFF);
                }
            }
        }
        // Twist bones: share of the main bone's weight by position along the bone.
        for side in 0..2 {
            let ua = bones[b::upperarm(side)].pos;
            let ub = bones[b::forearm(side)].pos;
            let u = ((p - ua).dot(ub - ua) / (ub - ua).length_squared()).clamp(0.0, 1.0) as f64;
            let share = (1.0 - dmath::smoothstep(u / 0.8)) * 0.6;
            let main = w[b::upperarm(side)];
            w[b::upperarm_twist(side)] = main * share;
            w[b::upperarm(side)] = main * (1.0 - share);

            let fa = bones[b::forearm(side)].pos;
            let fb = bones[b::hand(side)].pos;
            let u = ((p - fa).dot(fb - fa) / (fb - fa).length_squared()).clamp(0.0, 1.0) as f64;
            let share = dmath::smoothstep((u - 0.15) / 0.8);
            let main = w[b::forearm(side)];
            w[b::forearm_twist(side)] = main * share;
            w[b::forearm(side)] = main * (1.0 - share);
        }
        // Keep the four largest (ties: lower bone index first), renormalise.
        let mut order: Vec<usize> = (0..b::COUNT).collect();
        order.sort_by(|&a, &c| w[c].total_cmp(&w[a]).then(a.cmp(&c)));
        let mut jv = [0u16; 4];
        let mut wv = [0.0f64; 4];
        for k in 0..4 {
            let bone = order[k];
            jv[k] = bone as u16;
            wv[k] = w[bone];
        }
        let total: f64 = wv.iter().sum();
        let mut wf = [0.0f32; 4];
        for k in 0..4 {
            let x = wv[k] / total;
            // Drop negligible influences.
            wf[k] = if x < 0.01 { 0.0 } else { x as f32 };
            if wf[k] == 0.0 {
                jv[k] = 0;
            }
        }
        let sum: f32 = wf.iter().sum();
        for x in wf.iter_mut() {
            *x /= sum;
        }
        // Put the rounding remainder on the largest weight so the sum is 1 in f32.
        let rest: f32 = wf[1] + wf[2] + wf[3];
        wf[0] = 1.0 - rest;
        joints.push(jv);
        weights.push(wf);
    }
    (joints, weights)
}

/// A collision ellipsoid in the generator's terms (rest character space).
pub struct EllipsoidDef {
    pub name: String,
    pub bone: usize,
    pub centre: Vec3,
    pub rotation: Quat,
    pub radii: Vec3,
}

/// Largest ratio of longest to shortest semi-axis before an ellipsoid is split in two.
pub const MAX_ELONGATION: f32 = 2.3;

/// Collision ellipsoids: trunk pieces plus limb segments split into pieces that are not too
/// elongated (a stretched ellipsoid skews the push-out direction).
pub fn ellipsoids(bones: &[BoneDef]) -> Vec<EllipsoidDef> {
    let mut out = Vec::new();
    let mut trunk = |name: &str, bone: usize, c: Vec3, r: Vec3| {
        out.push(EllipsoidDef {
            name: name.into(),
            bone,
            centre: c,
            rotation: Quat::IDENTITY,
            radii: r,
        })
    };
    trunk(
        "chest",
        b::CHEST,
        Vec3::new(0.0, 1.31, 0.005),
        Vec3::new(0.165, 0.175, 0.115),
    );
    trunk(
        "belly",
        b::SPINE,
        Vec3::new(0.0, 1.11, 0.0),
        Vec3::new(0.145, 0.13, 0.105),
    );
    trunk(
        "hips",
        b::PELVIS,
        Vec3::new(0.0, 0.95, -0.02),
        Vec3::new(0.17, 0.125, 0.125),
    );
    for side in 0..2 {
        let sfx = if side == 0 { "l" } else { "r" };
        let p = |i: usize| bones[i].pos;
        let segs = [
            (
                format!("thigh_{sfx}"),
                b::thigh(side),
                p(b::thigh(side)),
                p(b::calf(side)),
                0.085,
                0.055,
            ),
            (
                format!("calf_{sfx}"),
                b::calf(side),
                p(b::calf(side)),
                p(b::foot(side)) + Vec3::Y * 0.04,
                0.056,
                0.045,
            ),
            (
                format!("upperarm_{sfx}"),
                b::upperarm(side),
                p(b::upperarm(side)),
                p(b::forearm(side)),
                0.057,
                0.045,
            ),
        ];
        for (name, bone, a, bb, ra, rb) in segs {
            let len = (bb - a).length();
            let dir = (bb - a) / len;
            let rot = Quat::from_rotation_arc(Vec3::Y, dir);
            let mut pieces = 1;
            loop {
                let half_len = len / (2.0 * pieces as f32) + 0.25 * (ra + rb) * 0.5;
                let r_mid = 0.5 * (ra + rb);
                if half_len / r_mid <= MAX_ELONGATION || pieces >= 4 {
                    break;
                }
                pieces += 1;
            }
            for k in 0..pieces {
                let f = (k as f32 + 0.5) / pieces as f32;
                let centre = a + (bb - a) * f;
                let r = ra + (rb - ra) * f;
                let half_len = len / (2.0 * pieces as f32) + 0.25 * (ra + rb) * 0.5;
                let suffix = match (pieces, k) {
                    (1, _) => String::new(),
                    (2, 0) => "_upper".into(),
                    (2, _) => "_lower".into(),
                    (_, k) => format!("_{k}"),
                };
                out.push(EllipsoidDef {
                    name: format!("{name}{suffix}"),
                    bone,
                    centre,
                    rotation: rot,
                    radii: Vec3::new(r, half_len.max(r), r),
                });
            }
        }
    }
    out
}
