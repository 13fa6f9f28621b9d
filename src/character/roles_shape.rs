//! Bone roles from the skeleton's shape in the bind pose, for a rig whose bone names say
//! nothing a naming convention knows (`Skeleton_torso_joint_1`, `leg_joint_L_1`, `Bone.007`).
//! [`super::Roles::resolve`] asks for them only for the roles that the bone map, the VRM
//! extension and the names left without a bone, and records which roles came from here.
//!
//! The rules, in the order they run (`docs/your-character.md` tells the artist the same):
//! - *Limb pairs*: two children of one joint whose subtrees match: about as many bones,
//!   reaching about as far, lying apart. Legs and arms are such pairs; so are eyes and fingers.
//! - *Pelvis and chest*: a pair whose chains go down from their joint (the legs) and a pair
//!   whose chains go sideways from a joint above it (the arms); the largest such body wins.
//!   Up is from the legs' joint to the arms' joint. The pelvis is where the leg chains and
//!   the spine meet: the legs' joint, or the lowest joint above both when the legs hang from
//!   a bone of their own.
//! - *Spine to head*: from the arms' joint, the child reaching highest, then its child
//!   reaching highest, and so on; bones at its top that carry no skin (head-top ends) are
//!   dropped. The neck is the first bone of that chain above the arms' joint that sits level
//!   with the arms' first joints or higher, the chest the bone below the neck, the spine the
//!   middle bone between the pelvis and the chest (the chest when there is none). The head is
//!   the bone after the neck named `head`, else the one carrying the most skin, else the next
//!   one; the neck itself when nothing is above it.
//! - *Legs*: from each leg's first bone, the child reaching lowest, down to the toes. The
//!   thigh and shin are the two consecutive bones that drop the most, so a hip bone before
//!   them and a foot after them take no role.
//! - *Arms*: from each arm's first bone, the child reaching farthest from the arms' joint, out
//!   to the fingers. The upper arm and forearm are the two consecutive bones longest
//!   together, the hand the bone after them; so a clavicle before them takes no role.
//!   Bones named `twist` or `roll` are passed over: twist roles come from names only.
//! - *Left and right*: from roles the names already gave on a limb, else from L, R, left or
//!   right in its bones' names, else from the facing: forward is where the toes point (the
//!   leg chains past the ankles), else where the feet's skin lies ahead of the ankles, else
//!   glTF's +Z once the file's up is turned to +Y. The character's left is up × forward,
//!   which is how the importer then orients the character from the upper arms.
//!
//! Name hints (leg, thigh, foot; arm, shoulder, hand; torso, spine, neck, head; L, R) weigh a
//! candidate a tenth more, so they break near ties and never overrule a clear shape. The
//! chain order comes from the hierarchy, so numbers in names are not needed for it.
//! Everything is relative to the skeleton's size: any unit, any up axis.

use std::collections::BTreeMap;

use glam::{Quat, Vec3};

use super::roles::{words, Role};
use super::Skeleton;

/// The bind pose the shape rules read, in one frame and unit of the file's choosing.
#[derive(Clone, Copy, Debug, Default)]
pub struct BindPose<'a> {
    /// Each bone's position, indexed as the skeleton.
    pub bones: &'a [Vec3],
    /// The skin's vertices in the same frame (empty when unknown).
    pub vertices: &'a [Vec3],
    /// Each vertex's bones (skeleton indices) and their weights.
    pub vertex_bones: &'a [[u16; 4]],
    pub vertex_weights: &'a [[f32; 4]],
}

/// How much more a candidate with a fitting name hint weighs.
const HINT_WEIGHT: f32 = 0.1;

/// Most limb pairs weighed against each other (the largest ones).
const MAX_PAIRS: usize = 64;

/// Most children of one joint tried as limbs.
const MAX_CHILDREN: usize = 32;

/// What a bone's name hints at, word by word.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Hint {
    leg: bool,
    foot: bool,
    arm: bool,
    hand: bool,
    trunk: bool,
    neck: bool,
    head: bool,
    twist: bool,
    /// 0 = left, 1 = right.
    side: Option<usize>,
}

fn hint(name: &str) -> Hint {
    let mut h = Hint::default();
    for w in words(name) {
        match w.as_str() {
            "leg" | "legs" | "thigh" | "upleg" | "upperleg" | "lowerleg" | "calf" | "shin"
            | "knee" => h.leg = true,
            "foot" | "feet" | "ankle" | "toe" | "toes" | "ball" => {
                h.foot = true;
                h.leg = true;
            }
            "arm" | "arms" | "shoulder" | "clavicle" | "elbow" | "upperarm" | "uparm"
            | "forearm" | "lowerarm" | "finger" | "fingers" | "thumb" => h.arm = true,
            "hand" | "wrist" => {
                h.hand = true;
                h.arm = true;
            }
            "torso" | "spine" | "chest" | "pelvis" | "hips" | "body" | "back" | "waist"
            | "abdomen" => h.trunk = true,
            "neck" => h.neck = true,
            "head" | "skull" => h.head = true,
            "twist" | "roll" => h.twist = true,
            "l" | "left" => h.side = Some(0),
            "r" | "right" => h.side = Some(1),
            _ => {}
        }
    }
    h
}

/// `v` without its component along the unit vector `up`.
fn flat(v: Vec3, up: Vec3) -> Vec3 {
    v - up * v.dot(up)
}

/// The skeleton as the rules walk it.
struct Tree<'a> {
    parent: Vec<Option<usize>>,
    children: Vec<Vec<usize>>,
    depth: Vec<usize>,
    /// Bones in each bone's subtree, itself included.
    size: Vec<usize>,
    pos: &'a [Vec3],
    hints: Vec<Hint>,
    /// The skin weight each bone carries (all 0 when the skin is unknown).
    skin: Vec<f32>,
    /// The skeleton's size: the diagonal of its bones' bounding box.
    scale: f32,
}

impl<'a> Tree<'a> {
    fn new(skeleton: &Skeleton, bind: &BindPose<'a>) -> Result<Self, String> {
        let n = skeleton.len();
        if bind.bones.len() != n || bind.bones.iter().any(|p| !p.is_finite()) {
            return Err("the bind pose has no usable position for every bone".into());
        }
        let parent: Vec<Option<usize>> = (0..n).map(|i| skeleton.parent(i)).collect();
        // A rigged garment's cloth bones hang from the torso: no rule walks into them.
        let cloth: Vec<bool> = (0..n)
            .map(|i| super::is_cloth_bone(&skeleton.bones()[i].name))
            .collect();
        let mut children = vec![Vec::new(); n];
        for (i, p) in parent.iter().enumerate() {
            if let (Some(p), false) = (*p, cloth[i]) {
                children[p].push(i);
            }
        }
        let depth = skeleton.depths();
        // Parents come before their children, so a backward pass sums subtrees.
        let mut size = vec![1usize; n];
        for i in (1..n).rev() {
            if let (Some(p), false) = (parent[i], cloth[i]) {
                size[p] += size[i];
            }
        }
        let mut skin = vec![0.0f32; n];
        for (bones, weights) in bind.vertex_bones.iter().zip(bind.vertex_weights) {
            for (&b, &w) in bones.iter().zip(weights) {
                if let Some(s) = skin.get_mut(b as usize) {
                    if w.is_finite() && w > 0.0 {
                        *s += w;
                    }
                }
            }
        }
        // The synthetic root may sit anywhere; the body's bones give its size.
        let body = if n > 1 { &bind.bones[1..] } else { bind.bones };
        let (lo, hi) = body.iter().fold(
            (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
            |(lo, hi), p| (lo.min(*p), hi.max(*p)),
        );
        let scale = (hi - lo).length();
        if !(scale.is_finite() && scale > 0.0) {
            return Err("every bone sits at one point".into());
        }
        Ok(Self {
            parent,
            children,
            depth,
            size,
            pos: bind.bones,
            hints: skeleton.bones().iter().map(|b| hint(&b.name)).collect(),
            skin,
            scale,
        })
    }

    fn len(&self) -> usize {
        self.parent.len()
    }

    /// `b` and every bone below it.
    fn subtree(&self, b: usize) -> Vec<usize> {
        let mut out = Vec::with_capacity(self.size[b]);
        let mut stack = vec![b];
        while let Some(i) = stack.pop() {
            out.push(i);
            stack.extend(self.children[i].iter().copied());
        }
        out
    }

    /// Whether `b` is `root` or lies below it.
    fn within(&self, mut b: usize, root: usize) -> bool {
        loop {
            if b == root {
                return true;
            }
            match self.parent[b] {
                Some(p) => b = p,
                None => return false,
            }
        }
    }

    /// The lowest bone with both `a` and `b` at or below it.
    fn common_ancestor(&self, mut a: usize, mut b: usize) -> usize {
        while a != b {
            let next = if self.depth[a] >= self.depth[b] {
                (self.parent[a], Some(b))
            } else {
                (Some(a), self.parent[b])
            };
            match next {
                (Some(x), Some(y)) => (a, b) = (x, y),
                _ => return 0,
            }
        }
        a
    }

    /// For every bone, the largest `f` over its subtree.
    fn subtree_max(&self, f: impl Fn(usize) -> f32) -> Vec<f32> {
        let mut out: Vec<f32> = (0..self.len()).map(&f).collect();
        for i in (1..self.len()).rev() {
            if let Some(p) = self.parent[i] {
                out[p] = out[p].max(out[i]);
            }
        }
        out
    }

    /// From `start`, the child with the largest `key` again and again, down to a leaf; bones
    /// named twist or roll are passed over.
    fn chain(&self, start: usize, key: &[f32]) -> Vec<usize> {
        let mut out = vec![start];
        let mut cur = start;
        while let Some(&next) = self.children[cur]
            .iter()
            .max_by(|&&a, &&b| key[a].total_cmp(&key[b]))
        {
            out.push(next);
            cur = next;
        }
        out.retain(|&b| b == start || !self.hints[b].twist);
        out
    }
}

/// One limb pair: two children of `joint` whose subtrees match.
#[derive(Clone, Copy, Debug)]
struct Pair {
    joint: usize,
    limb: [usize; 2],
    /// How far each subtree reaches from the joint.
    reach: [f32; 2],
    /// Each subtree's bone farthest from the joint, and the mean of its bones.
    far: [Vec3; 2],
    centroid: [Vec3; 2],
}

/// A subtree seen from its parent joint: reach, farthest point, centroid.
fn limb_extent(tree: &Tree, joint: usize, limb: usize) -> (f32, Vec3, Vec3) {
    let origin = tree.pos[joint];
    let bones = tree.subtree(limb);
    let mut far = (0.0f32, tree.pos[limb]);
    let mut sum = Vec3::ZERO;
    for &b in &bones {
        let d = (tree.pos[b] - origin).length();
        if d > far.0 {
            far = (d, tree.pos[b]);
        }
        sum += tree.pos[b];
    }
    (far.0, far.1, sum / bones.len().max(1) as f32)
}

/// Every limb pair of the skeleton, the largest first, at most [`MAX_PAIRS`].
fn limb_pairs(tree: &Tree) -> Vec<Pair> {
    let mut extent: Vec<Option<(f32, Vec3, Vec3)>> = vec![None; tree.len()];
    let mut pairs = Vec::new();
    for joint in 0..tree.len() {
        let kids = &tree.children[joint];
        let kids = &kids[..kids.len().min(MAX_CHILDREN)];
        for (k, &a) in kids.iter().enumerate() {
            for &b in &kids[k + 1..] {
                let (sa, sb) = (tree.size[a], tree.size[b]);
                if (sa.min(sb) as f32) < 0.7 * sa.max(sb) as f32 {
                    continue;
                }
                let ea = *extent[a].get_or_insert_with(|| limb_extent(tree, joint, a));
                let eb = *extent[b].get_or_insert_with(|| limb_extent(tree, joint, b));
                let (lo, hi) = (ea.0.min(eb.0), ea.0.max(eb.0));
                if lo < 0.75 * hi || lo < 0.08 * tree.scale || (ea.2 - eb.2).length() < 0.05 * hi {
                    continue;
                }
                pairs.push(Pair {
                    joint,
                    limb: [a, b],
                    reach: [ea.0, eb.0],
                    far: [ea.1, eb.1],
                    centroid: [ea.2, eb.2],
                });
            }
        }
    }
    pairs.sort_by(|p, q| (q.reach[0] + q.reach[1]).total_cmp(&(p.reach[0] + p.reach[1])));
    pairs.truncate(MAX_PAIRS);
    pairs
}

/// The body's frame: the legs, the arms, the pelvis and up.
#[derive(Clone, Copy, Debug)]
struct Body {
    legs: Pair,
    arms: Pair,
    pelvis: usize,
    up: Vec3,
}

/// Why no body was found, for the message naming the missing roles.
const NO_BODY: &str = "no joint has two leg chains going down from it and, above it, two arm \
                       chains going sideways";

/// The pair of legs and the pair of arms that make the largest body (see the module doc).
fn find_body(tree: &Tree, pairs: &[Pair], known: &BTreeMap<Role, usize>) -> Option<Body> {
    let mut best: Option<(f32, Body)> = None;
    for legs in pairs {
        for arms in pairs {
            let Some(body) = as_body(tree, legs, arms) else {
                continue;
            };
            let rise = (tree.pos[arms.joint] - tree.pos[legs.joint]).length();
            let size = legs.reach[0] + legs.reach[1] + arms.reach[0] + arms.reach[1] + 2.0 * rise;
            let score = size * (1.0 + HINT_WEIGHT * body_hints(tree, &body, known));
            if best.as_ref().is_none_or(|(s, _)| score > *s) {
                best = Some((score, body));
            }
        }
    }
    best.map(|(_, b)| b)
}

/// `legs` and `arms` as a body, if they can be one: apart from each other, the arms above the
/// legs, the legs going down and the arms sideways to opposite sides.
fn as_body(tree: &Tree, legs: &Pair, arms: &Pair) -> Option<Body> {
    let (l, u) = (legs.joint, arms.joint);
    if l == u
        || legs.limb.iter().any(|&x| tree.within(u, x))
        || arms.limb.iter().any(|&x| tree.within(l, x))
    {
        return None;
    }
    let pelvis = tree.common_ancestor(l, u);
    if pelvis == u || pelvis == 0 {
        return None;
    }
    let rise = tree.pos[u] - tree.pos[l];
    if rise.length() < 0.1 * tree.scale {
        return None;
    }
    let up = rise.normalize();
    let down = (0..2).all(|k| (legs.far[k] - tree.pos[l]).dot(up) <= -0.5 * legs.reach[k]);
    let legs_apart = flat(legs.centroid[0] - legs.centroid[1], up).length() >= 0.03 * legs.reach[0];
    let out = arms.far.map(|f| flat(f - tree.pos[u], up));
    let sideways =
        (0..2).all(|k| out[k].length() >= 0.25 * arms.reach[k]) && out[0].dot(out[1]) < 0.0;
    (down && legs_apart && sideways).then_some(Body {
        legs: *legs,
        arms: *arms,
        pelvis,
        up,
    })
}

/// How many hints agree with `body`: leg and arm words on the limbs' first bones, a trunk
/// word on the pelvis or the arms' joint, and roles already found where the body puts them.
fn body_hints(tree: &Tree, body: &Body, known: &BTreeMap<Role, usize>) -> f32 {
    let h = |b: usize| tree.hints[b];
    let mut n = 0.0;
    n += body.legs.limb.iter().filter(|&&b| h(b).leg).count() as f32 * 0.5;
    n += body.arms.limb.iter().filter(|&&b| h(b).arm).count() as f32 * 0.5;
    if h(body.pelvis).trunk || h(body.arms.joint).trunk {
        n += 1.0;
    }
    if known.get(&Role::Pelvis) == Some(&body.pelvis) {
        n += 1.0;
    }
    for (&role, &b) in known {
        let limbs = match role {
            Role::ThighL | Role::ThighR | Role::ShinL | Role::ShinR => &body.legs.limb,
            Role::UpperarmL | Role::UpperarmR | Role::ForearmL | Role::ForearmR => &body.arms.limb,
            _ => continue,
        };
        if limbs.iter().any(|&x| tree.within(b, x)) {
            n += 0.5;
        }
    }
    n
}

/// The roles the skeleton's shape gives (see the module doc), each as (role, bone); bone 0,
/// the root, never plays one. `known` holds the roles already found, which weigh as hints
/// and decide a limb's side. The error says why the shape gives none.
pub(crate) fn propose(
    skeleton: &Skeleton,
    bind: &BindPose,
    known: &BTreeMap<Role, usize>,
) -> Result<Vec<(Role, usize)>, String> {
    let tree = Tree::new(skeleton, bind)?;
    let pairs = limb_pairs(&tree);
    let body = find_body(&tree, &pairs, known).ok_or_else(|| NO_BODY.to_string())?;
    let mut out = trunk_roles(&tree, &body);
    let legs = body.legs.limb.map(|b| leg_roles(&tree, &body, b));
    let arms = body.arms.limb.map(|b| arm_roles(&tree, &body, b));
    let sides = Sides::new(&tree, &body, known, &legs, bind);
    for (k, leg) in legs.iter().enumerate() {
        let side = sides.legs[k];
        let Some(leg) = leg else { continue };
        out.push(([Role::ThighL, Role::ThighR][side], leg.thigh));
        out.push(([Role::ShinL, Role::ShinR][side], leg.shin));
    }
    for (k, arm) in arms.iter().enumerate() {
        let side = sides.arms[k];
        let Some(arm) = arm else { continue };
        out.push(([Role::UpperarmL, Role::UpperarmR][side], arm.upper));
        out.push(([Role::ForearmL, Role::ForearmR][side], arm.fore));
        if let Some(hand) = arm.hand {
            out.push(([Role::HandL, Role::HandR][side], hand));
        }
    }
    out.retain(|&(_, b)| b != 0);
    Ok(out)
}

/// Pelvis, spine, chest, neck and head (see the module doc).
fn trunk_roles(tree: &Tree, body: &Body) -> Vec<(Role, usize)> {
    let (pelvis, u) = (body.pelvis, body.arms.joint);
    let height = |b: usize| (tree.pos[b] - tree.pos[pelvis]).dot(body.up);
    let top = tree.subtree_max(height);
    // The bones from the pelvis up to the arms' joint.
    let mut chain = vec![u];
    let mut b = u;
    while let Some(p) = tree.parent[b] {
        if b == pelvis {
            break;
        }
        chain.push(p);
        b = p;
    }
    chain.reverse();
    let at_arms = chain.len() - 1;
    // On up, the child reaching highest; a fitting name wins a near tie.
    let near = 0.02 * tree.scale;
    let mut cur = u;
    loop {
        let kids: Vec<usize> = tree.children[cur]
            .iter()
            .copied()
            .filter(|c| cur != u || !body.arms.limb.contains(c))
            .collect();
        let Some(best) = kids
            .iter()
            .copied()
            .max_by(|&a, &b| top[a].total_cmp(&top[b]))
        else {
            break;
        };
        let hinted = |c: usize| {
            let h = tree.hints[c];
            h.trunk || h.neck || h.head
        };
        let next = kids
            .iter()
            .copied()
            .find(|&c| hinted(c) && top[c] >= top[best] - near)
            .unwrap_or(best);
        if top[next] <= height(cur) {
            break;
        }
        chain.push(next);
        cur = next;
    }
    // Head-top ends: the last bones, unskinned, past the two above the arms' joint.
    if tree.skin.iter().any(|&w| w > 0.0) {
        while chain.len() > at_arms + 3 && chain.last().is_some_and(|&b| tree.skin[b] <= 0.0) {
            chain.pop();
        }
    }
    let shoulders = body.arms.limb.map(height);
    let level = 0.5 * (shoulders[0] + shoulders[1]) - 0.03 * (top[pelvis] - height(pelvis));
    let neck_at = (at_arms + 1..chain.len())
        .find(|&i| height(chain[i]) >= level)
        .or((at_arms + 1 < chain.len()).then_some(at_arms + 1));
    let mut out = vec![(Role::Pelvis, pelvis)];
    let Some(neck_at) = neck_at else {
        out.push((Role::Chest, u));
        out.push((Role::Spine, spine_between(&chain[1..at_arms]).unwrap_or(u)));
        return out;
    };
    let chest = chain[neck_at - 1];
    out.push((Role::Chest, chest));
    out.push((
        Role::Spine,
        spine_between(&chain[1..neck_at - 1]).unwrap_or(chest),
    ));
    out.push((Role::Neck, chain[neck_at]));
    let above = &chain[neck_at + 1..];
    let most_skin = above.iter().copied().max_by(|&a, &b| {
        tree.skin[a]
            .total_cmp(&tree.skin[b])
            .then_with(|| b.cmp(&a))
    });
    let head = above
        .iter()
        .copied()
        .find(|&b| tree.hints[b].head)
        .or(most_skin.filter(|&b| tree.skin[b] > 0.0))
        .or(above.first().copied())
        .unwrap_or(chain[neck_at]);
    out.push((Role::Head, head));
    out
}

/// The middle bone of those between the pelvis and the chest.
fn spine_between(between: &[usize]) -> Option<usize> {
    between.get(between.len().saturating_sub(1) / 2).copied()
}

/// One leg's roles and where its ankle is.
#[derive(Clone, Copy, Debug)]
struct Leg {
    thigh: usize,
    shin: usize,
    ankle: Option<usize>,
}

/// The thigh and shin of the leg starting at `start`: the two consecutive bones that drop
/// the most (a foot hint after them weighs more); `None` for a leg of one bone.
fn leg_roles(tree: &Tree, body: &Body, start: usize) -> Option<Leg> {
    let height = |b: usize| tree.pos[b].dot(body.up);
    let low = tree.subtree_max(|b| -height(b));
    let chain = tree.chain(start, &low);
    let drop = |i: usize| height(chain[i]) - height(chain[i + 1]);
    let (thigh, shin, ankle) = best_pair(&chain, drop, |b| tree.hints[b].foot)?;
    Some(Leg { thigh, shin, ankle })
}

/// One arm's roles.
#[derive(Clone, Copy, Debug)]
struct Arm {
    upper: usize,
    fore: usize,
    hand: Option<usize>,
}

/// The upper arm, forearm and hand of the arm starting at `start` (see the module doc);
/// `None` for an arm of one bone.
fn arm_roles(tree: &Tree, body: &Body, start: usize) -> Option<Arm> {
    let origin = tree.pos[body.arms.joint];
    let reach = tree.subtree_max(|b| (tree.pos[b] - origin).length());
    let chain = tree.chain(start, &reach);
    let length = |i: usize| (tree.pos[chain[i + 1]] - tree.pos[chain[i]]).length();
    let (upper, fore, hand) = best_pair(&chain, length, |b| tree.hints[b].hand)?;
    Some(Arm { upper, fore, hand })
}

/// The two consecutive bones of `chain` whose segments (`segment(i)`: from bone `i` to
/// `i + 1`) add up the most, a hinted bone after them (`hinted`) weighing [`HINT_WEIGHT`] more,
/// ties to the first; with the bone after them. A chain of two bones is that pair with none
/// after; a shorter one has no pair.
fn best_pair(
    chain: &[usize],
    segment: impl Fn(usize) -> f32,
    hinted: impl Fn(usize) -> bool,
) -> Option<(usize, usize, Option<usize>)> {
    let score = |i: usize| {
        let bonus = if hinted(chain[i + 2]) {
            1.0 + HINT_WEIGHT
        } else {
            1.0
        };
        (segment(i) + segment(i + 1)) * bonus
    };
    let best = (0..chain.len().saturating_sub(2))
        .max_by(|&i, &j| score(i).total_cmp(&score(j)).then_with(|| j.cmp(&i)));
    match (best, chain.len()) {
        (Some(i), _) => Some((chain[i], chain[i + 1], Some(chain[i + 2]))),
        (None, 2) => Some((chain[0], chain[1], None)),
        _ => None,
    }
}

/// Which side (0 = left, 1 = right) each leg and each arm of the body is on.
struct Sides {
    legs: [usize; 2],
    arms: [usize; 2],
}

impl Sides {
    fn new(
        tree: &Tree,
        body: &Body,
        known: &BTreeMap<Role, usize>,
        legs: &[Option<Leg>; 2],
        bind: &BindPose,
    ) -> Self {
        let up = body.up;
        let across = |p: &Pair| flat(p.centroid[0] - p.centroid[1], up);
        let (leg_across, arm_across) = (across(&body.legs), across(&body.arms));
        let leg_named = named_side(tree, &body.legs, known);
        let arm_named = named_side(tree, &body.arms, known);
        // The character's left: from a limb pair the names place, else from the facing.
        let left = match (leg_named, arm_named) {
            (Some(first_left), _) => leg_across * if first_left { 1.0 } else { -1.0 },
            (None, Some(first_left)) => arm_across * if first_left { 1.0 } else { -1.0 },
            (None, None) => up.cross(forward(tree, body, legs, bind, leg_across)),
        };
        let side = |named: Option<bool>, across: Vec3| {
            let first_left = named.unwrap_or(across.dot(left) >= 0.0);
            if first_left {
                [0, 1]
            } else {
                [1, 0]
            }
        };
        Self {
            legs: side(leg_named, leg_across),
            arms: side(arm_named, arm_across),
        }
    }
}

/// Whether the pair's first limb is the left one, as far as names say: roles already found
/// in its subtrees, else L/R words along its chains. `None` when they say nothing or
/// disagree.
fn named_side(tree: &Tree, pair: &Pair, known: &BTreeMap<Role, usize>) -> Option<bool> {
    // Votes that the first limb is the left one (negative: the right one).
    let mut votes = 0i32;
    for (&role, &b) in known {
        let Some(side) = side_of(role) else { continue };
        for (k, &limb) in pair.limb.iter().enumerate() {
            if tree.within(b, limb) {
                votes += if (side == 0) == (k == 0) { 1 } else { -1 };
            }
        }
    }
    if votes == 0 {
        for (k, &limb) in pair.limb.iter().enumerate() {
            for b in tree.subtree(limb) {
                if let Some(side) = tree.hints[b].side {
                    votes += if (side == 0) == (k == 0) { 1 } else { -1 };
                }
            }
        }
    }
    (votes != 0).then_some(votes > 0)
}

/// The side of a sided role (0 = left, 1 = right).
fn side_of(role: Role) -> Option<usize> {
    use Role::*;
    match role {
        UpperarmL | ForearmL | HandL | ThighL | ShinL | UpperarmTwistL | ForearmTwistL => Some(0),
        UpperarmR | ForearmR | HandR | ThighR | ShinR | UpperarmTwistR | ForearmTwistR => Some(1),
        _ => None,
    }
}

/// Where the character faces (see the module doc): the toes, else the feet's skin, else
/// glTF's +Z turned upright. A cue counts only when it tells the sides apart: its left
/// (up × forward) must lie clearly along `across`, the line between the legs.
fn forward(
    tree: &Tree,
    body: &Body,
    legs: &[Option<Leg>; 2],
    bind: &BindPose,
    across: Vec3,
) -> Vec3 {
    let up = body.up;
    let across = across.normalize_or_zero();
    let tells = |f: Vec3| up.cross(f).normalize_or_zero().dot(across).abs() >= 0.2;
    let leg_length = |leg: &Leg| {
        leg.ankle
            .map_or(0.0, |a| (tree.pos[a] - tree.pos[leg.thigh]).length())
    };
    // The bone below each ankle farthest from it across the ground: the toes.
    let mut toes = Vec3::ZERO;
    for leg in legs.iter().flatten() {
        let Some(ankle) = leg.ankle else { continue };
        let reach = tree
            .subtree(ankle)
            .into_iter()
            .map(|b| flat(tree.pos[b] - tree.pos[ankle], up))
            .max_by(|a, b| a.length().total_cmp(&b.length()))
            .unwrap_or(Vec3::ZERO);
        if reach.length() >= 0.04 * leg_length(leg) {
            toes += reach;
        }
    }
    if tells(toes) {
        return toes;
    }
    // The skin each ankle's bones carry most, seen from the ankle.
    let mut feet = Vec3::ZERO;
    for leg in legs.iter().flatten() {
        let Some(ankle) = leg.ankle else { continue };
        let mut foot = vec![false; tree.len()];
        for b in tree.subtree(ankle) {
            foot[b] = true;
        }
        let (mut sum, mut count) = (Vec3::ZERO, 0usize);
        let skin = bind
            .vertices
            .iter()
            .zip(bind.vertex_bones.iter().zip(bind.vertex_weights));
        for (p, (bones, weights)) in skin {
            let main = (0..4).max_by(|&i, &j| weights[i].total_cmp(&weights[j]));
            if main.is_some_and(|k| foot.get(bones[k] as usize) == Some(&true)) && p.is_finite() {
                sum += *p;
                count += 1;
            }
        }
        if count > 0 {
            let ahead = flat(sum / count as f32 - tree.pos[ankle], up);
            if ahead.length() >= 0.02 * leg_length(leg) {
                feet += ahead;
            }
        }
    }
    if tells(feet) {
        return feet;
    }
    Quat::from_rotation_arc(up, Vec3::Y).inverse() * Vec3::Z
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::character::Bone;
    use crate::sim::Frame;

    /// A skeleton from (name, parent, position) rows and its bind pose.
    pub(in crate::character) fn rig(
        rows: &[(&str, Option<usize>, [f32; 3])],
    ) -> (Skeleton, Vec<Vec3>) {
        let bones = rows
            .iter()
            .map(|&(name, parent, _)| Bone {
                name: name.into(),
                parent,
                rest: Frame::IDENTITY,
            })
            .collect();
        let pos = rows.iter().map(|r| Vec3::from_array(r.2)).collect();
        (Skeleton::new(bones).unwrap(), pos)
    }

    /// A humanoid in A-pose facing +Z, left at +X, every bone named `j<index>`: the built-in
    /// character's bones, with a clavicle and a twist bone on each side; the toes last, so
    /// that dropping them keeps every other index.
    pub(in crate::character) fn humanoid() -> Vec<(&'static str, Option<usize>, [f32; 3])> {
        vec![
            ("j0", None, [0.0, 0.0, 0.0]),
            ("j1", Some(0), [0.0, 1.0, 0.0]),          // pelvis
            ("j2", Some(1), [0.0, 1.1, 0.0]),          // spine
            ("j3", Some(2), [0.0, 1.28, 0.0]),         // chest
            ("j4", Some(3), [0.0, 1.5, -0.01]),        // neck
            ("j5", Some(4), [0.0, 1.61, 0.0]),         // head
            ("j6", Some(3), [0.03, 1.455, 0.02]),      // clavicle_l
            ("j7", Some(6), [0.185, 1.445, -0.01]),    // upperarm_l
            ("j8", Some(7), [0.29, 1.34, -0.01]),      // upperarm_twist_l
            ("j9", Some(7), [0.39, 1.24, -0.01]),      // forearm_l
            ("j10", Some(9), [0.57, 1.06, -0.01]),     // hand_l
            ("j11", Some(3), [-0.03, 1.455, 0.02]),    // clavicle_r
            ("j12", Some(11), [-0.185, 1.445, -0.01]), // upperarm_r
            ("j13", Some(12), [-0.39, 1.24, -0.01]),   // forearm_r
            ("j14", Some(13), [-0.57, 1.06, -0.01]),   // hand_r
            ("j15", Some(1), [0.095, 0.95, 0.0]),      // thigh_l
            ("j16", Some(15), [0.095, 0.52, 0.0]),     // calf_l
            ("j17", Some(16), [0.095, 0.085, 0.0]),    // foot_l
            ("j18", Some(1), [-0.095, 0.95, 0.0]),     // thigh_r
            ("j19", Some(18), [-0.095, 0.52, 0.0]),    // calf_r
            ("j20", Some(19), [-0.095, 0.085, 0.0]),   // foot_r
            ("j21", Some(17), [0.095, 0.0, 0.14]),     // toe_l
            ("j22", Some(20), [-0.095, 0.0, 0.14]),    // toe_r
        ]
    }

    fn roles_of(rows: &[(&str, Option<usize>, [f32; 3])]) -> BTreeMap<Role, usize> {
        let (sk, pos) = rig(rows);
        let bind = BindPose {
            bones: &pos,
            ..BindPose::default()
        };
        propose(&sk, &bind, &BTreeMap::new())
            .unwrap()
            .into_iter()
            .collect()
    }

    const EXPECTED: [(Role, usize); 15] = [
        (Role::Pelvis, 1),
        (Role::Spine, 2),
        (Role::Chest, 3),
        (Role::Neck, 4),
        (Role::Head, 5),
        (Role::UpperarmL, 7),
        (Role::ForearmL, 9),
        (Role::HandL, 10),
        (Role::UpperarmR, 12),
        (Role::ForearmR, 13),
        (Role::HandR, 14),
        (Role::ThighL, 15),
        (Role::ShinL, 16),
        (Role::ThighR, 18),
        (Role::ShinR, 19),
    ];

    #[test]
    fn every_role_of_a_humanoid_comes_from_its_shape() {
        let got = roles_of(&humanoid());
        for (role, bone) in EXPECTED {
            assert_eq!(got.get(&role), Some(&bone), "{role:?}: {got:?}");
        }
    }

    #[test]
    fn the_toes_say_which_side_is_left_whatever_the_file_axes() {
        // The same body turned to face +X: glTF's +Z would leave the sides a tie, the toes
        // still point forward.
        let turn = Quat::from_rotation_y(std::f32::consts::FRAC_PI_2);
        let rows: Vec<_> = humanoid()
            .into_iter()
            .map(|(n, p, x)| (n, p, (turn * Vec3::from_array(x)).to_array()))
            .collect();
        let got = roles_of(&rows);
        assert_eq!(got[&Role::ThighL], 15);
        assert_eq!(got[&Role::HandL], 10);
        // Turned to face -Z, where glTF's +Z would call the sides the wrong way round.
        let back = Quat::from_rotation_y(std::f32::consts::PI);
        let rows: Vec<_> = humanoid()
            .into_iter()
            .map(|(n, p, x)| (n, p, (back * Vec3::from_array(x)).to_array()))
            .collect();
        let got = roles_of(&rows);
        assert_eq!(got[&Role::ThighL], 15, "{got:?}");
        assert_eq!(got[&Role::UpperarmR], 12, "{got:?}");
        // Mirrored left to right (the toes still forward): the sides swap.
        let mirrored: Vec<_> = humanoid()
            .into_iter()
            .map(|(n, p, x)| (n, p, [-x[0], x[1], x[2]]))
            .collect();
        let got = roles_of(&mirrored);
        assert_eq!(got[&Role::ThighL], 18, "{got:?}");
        assert_eq!(got[&Role::UpperarmL], 12, "{got:?}");
    }

    #[test]
    fn without_toes_the_sides_follow_gltf_facing_and_names_overrule_it() {
        // No toe bones and no skin: +Z is forward, left at +X.
        let rows: Vec<_> = humanoid().into_iter().take(21).collect();
        let got = roles_of(&rows);
        assert_eq!(got[&Role::ThighL], 15);
        assert_eq!(got[&Role::ShinL], 16);
        // Z-up, facing -Y (Blender's axes): the same roles.
        let z_up = Quat::from_rotation_x(std::f32::consts::FRAC_PI_2);
        let turned: Vec<_> = rows
            .iter()
            .map(|&(n, p, x)| (n, p, (z_up * Vec3::from_array(x)).to_array()))
            .collect();
        assert_eq!(roles_of(&turned)[&Role::HandR], 14);
        // Names that put the left leg at -X win over the facing.
        let named: Vec<_> = rows
            .iter()
            .map(|&(n, p, x)| match n {
                "j15" => ("leg_R_1", p, x),
                "j18" => ("leg_L_1", p, x),
                _ => (n, p, x),
            })
            .collect();
        let got = roles_of(&named);
        assert_eq!(got[&Role::ThighL], 18, "{got:?}");
        assert_eq!(got[&Role::ThighR], 15);
        // The arms, which no name places, follow the legs' left.
        assert_eq!(got[&Role::HandL], 14);
    }

    #[test]
    fn without_toes_the_feet_skin_says_which_side_is_left() {
        // Facing -Z, no toe bones: each foot's skin lies ahead of its ankle.
        let back = Quat::from_rotation_y(std::f32::consts::PI);
        let rows: Vec<_> = humanoid()
            .into_iter()
            .take(21)
            .map(|(n, p, x)| (n, p, (back * Vec3::from_array(x)).to_array()))
            .collect();
        let (sk, pos) = rig(&rows);
        let mut vertices = Vec::new();
        let mut vertex_bones = Vec::new();
        for foot in [17u16, 20] {
            for k in 0..10 {
                let ahead = Vec3::new(0.0, -0.06, 0.02 * k as f32);
                vertices.push(pos[foot as usize] + back * ahead);
                vertex_bones.push([foot, 0, 0, 0]);
            }
        }
        let weights = vec![[1.0, 0.0, 0.0, 0.0]; vertices.len()];
        let bind = BindPose {
            bones: &pos,
            vertices: &vertices,
            vertex_bones: &vertex_bones,
            vertex_weights: &weights,
        };
        let got: BTreeMap<Role, usize> = propose(&sk, &bind, &BTreeMap::new())
            .unwrap()
            .into_iter()
            .collect();
        assert_eq!(got[&Role::ThighL], 15, "{got:?}");
        assert_eq!(got[&Role::HandR], 14, "{got:?}");
    }

    #[test]
    fn a_longer_neck_chain_and_a_head_top_end_are_split_by_height_and_skin() {
        // An upper spine bone below the shoulders, two neck bones, the head and an unskinned
        // head-top end.
        let rows = vec![
            ("j0", None, [0.0, 0.0, 0.0]),
            ("j1", Some(0), [0.0, 1.0, 0.0]),
            ("j2", Some(1), [0.0, 1.1, 0.0]),
            ("j3", Some(2), [0.0, 1.28, 0.0]),
            ("j4", Some(3), [0.0, 1.38, 0.0]), // upper spine
            ("j5", Some(4), [0.0, 1.47, 0.0]), // neck 1
            ("j6", Some(5), [0.0, 1.53, 0.0]), // neck 2
            ("j7", Some(6), [0.0, 1.6, 0.0]),  // head
            ("j8", Some(7), [0.0, 1.8, 0.0]),  // head-top end
            ("j9", Some(3), [0.03, 1.455, 0.02]),
            ("j10", Some(9), [0.185, 1.445, 0.0]),
            ("j11", Some(10), [0.39, 1.24, 0.0]),
            ("j12", Some(11), [0.57, 1.06, 0.0]),
            ("j13", Some(3), [-0.03, 1.455, 0.02]),
            ("j14", Some(13), [-0.185, 1.445, 0.0]),
            ("j15", Some(14), [-0.39, 1.24, 0.0]),
            ("j16", Some(15), [-0.57, 1.06, 0.0]),
            ("j17", Some(1), [0.095, 0.95, 0.0]),
            ("j18", Some(17), [0.095, 0.52, 0.0]),
            ("j19", Some(18), [0.095, 0.085, 0.0]),
            ("j20", Some(1), [-0.095, 0.95, 0.0]),
            ("j21", Some(20), [-0.095, 0.52, 0.0]),
            ("j22", Some(21), [-0.095, 0.085, 0.0]),
        ];
        let (sk, pos) = rig(&rows);
        // Skin on the head above all, a little on the neck bones, none on the end.
        let mut vertex_bones = Vec::new();
        for (bone, count) in [(7u16, 40), (5, 5), (6, 5), (1, 10)] {
            vertex_bones.extend(std::iter::repeat_n([bone, 0, 0, 0], count));
        }
        let weights = vec![[1.0, 0.0, 0.0, 0.0]; vertex_bones.len()];
        let vertices = vec![Vec3::ZERO; vertex_bones.len()];
        let bind = BindPose {
            bones: &pos,
            vertices: &vertices,
            vertex_bones: &vertex_bones,
            vertex_weights: &weights,
        };
        let got: BTreeMap<Role, usize> = propose(&sk, &bind, &BTreeMap::new())
            .unwrap()
            .into_iter()
            .collect();
        assert_eq!(got[&Role::Chest], 4, "{got:?}");
        assert_eq!(got[&Role::Spine], 2, "{got:?}");
        assert_eq!(got[&Role::Neck], 5, "{got:?}");
        assert_eq!(got[&Role::Head], 7, "{got:?}");
        assert_eq!(got[&Role::HandR], 16, "{got:?}");
    }

    #[test]
    fn a_hip_bone_before_the_thigh_and_legs_on_their_own_joint_are_passed_over() {
        // Root → cog (spine) and cog → hips → hip bones → thighs.
        let rows = vec![
            ("j0", None, [0.0, 0.0, 0.0]),
            ("cog", Some(0), [0.0, 1.02, 0.0]),
            ("hips", Some(1), [0.0, 1.0, 0.0]),
            ("s1", Some(1), [0.0, 1.15, 0.0]),
            ("s2", Some(3), [0.0, 1.3, 0.0]),
            ("n", Some(4), [0.0, 1.5, 0.0]),
            ("h", Some(5), [0.0, 1.62, 0.0]),
            ("a_l", Some(4), [0.19, 1.45, 0.0]),
            ("b_l", Some(7), [0.4, 1.24, 0.0]),
            ("c_l", Some(8), [0.58, 1.06, 0.0]),
            ("a_r", Some(4), [-0.19, 1.45, 0.0]),
            ("b_r", Some(10), [-0.4, 1.24, 0.0]),
            ("c_r", Some(11), [-0.58, 1.06, 0.0]),
            ("hb_l", Some(2), [0.05, 0.97, 0.0]),
            ("t_l", Some(13), [0.1, 0.95, 0.0]),
            ("k_l", Some(14), [0.1, 0.52, 0.0]),
            ("f_l", Some(15), [0.1, 0.08, 0.0]),
            ("hb_r", Some(2), [-0.05, 0.97, 0.0]),
            ("t_r", Some(17), [-0.1, 0.95, 0.0]),
            ("k_r", Some(18), [-0.1, 0.52, 0.0]),
            ("f_r", Some(19), [-0.1, 0.08, 0.0]),
        ];
        let got = roles_of(&rows);
        assert_eq!(
            got[&Role::Pelvis],
            1,
            "the joint the spine and legs meet at"
        );
        assert_eq!(got[&Role::ThighL], 14);
        assert_eq!(got[&Role::ShinR], 19);
        assert_eq!(got[&Role::Chest], 4);
        assert_eq!(got[&Role::UpperarmL], 7);
        assert_eq!(got[&Role::HandR], 12);
        assert_eq!(got[&Role::Head], 6);
    }

    #[test]
    fn a_shape_that_is_no_humanoid_gives_a_reason_and_bad_input_no_panic() {
        // A single chain.
        let rows: Vec<_> = (0..20usize)
            .map(|i| ("j", i.checked_sub(1), [0.0, i as f32 * 0.1, 0.0]))
            .collect();
        let (sk, pos) = rig(&rows);
        let bind = BindPose {
            bones: &pos,
            ..BindPose::default()
        };
        let err = propose(&sk, &bind, &BTreeMap::new()).unwrap_err();
        assert!(err.contains("leg chains"), "{err}");
        // Positions missing, not finite, or all at one point.
        let (sk, mut pos) = rig(&humanoid());
        let short = BindPose {
            bones: &pos[..3],
            ..BindPose::default()
        };
        assert!(propose(&sk, &short, &BTreeMap::new()).is_err());
        pos[7] = Vec3::NAN;
        let nan = BindPose {
            bones: &pos,
            ..BindPose::default()
        };
        assert!(propose(&sk, &nan, &BTreeMap::new()).is_err());
        let zero = vec![Vec3::ZERO; sk.len()];
        let flat = BindPose {
            bones: &zero,
            ..BindPose::default()
        };
        assert!(propose(&sk, &flat, &BTreeMap::new()).is_err());
        // Skin indices past the skeleton are ignored.
        let bones = vec![[60000u16, 1, 2, 3]];
        let weights = vec![[0.5, 0.5, 0.0, 0.0]];
        let (sk, pos) = rig(&humanoid());
        let odd = BindPose {
            bones: &pos,
            vertices: &[Vec3::ZERO],
            vertex_bones: &bones,
            vertex_weights: &weights,
        };
        assert!(propose(&sk, &odd, &BTreeMap::new()).is_ok());
    }

    #[test]
    fn name_hints_are_read_from_partial_names() {
        let h = hint("leg_joint_L_1");
        assert!(h.leg && h.side == Some(0));
        let h = hint("Skeleton_arm_joint_R");
        assert!(h.arm && h.side == Some(1));
        assert!(hint("Skeleton_torso_joint_1").trunk);
        assert!(hint("Skeleton_neck_joint_2").neck);
        assert!(hint("upperarm_twist_01_l").twist);
        assert_eq!(hint("Bone.007"), Hint::default());
    }
}
