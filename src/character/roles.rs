//! Humanoid bone roles: which bone of a character is its pelvis, chest, upper arm and so on,
//! so the jacket rig, the collision ellipsoids and retargeted clips never depend on a file's
//! bone names.
//!
//! Roles come, in this order, from the character settings' bone map, from the VRM humanoid
//! extension, from the bone names, and, for the roles none of those gave, from the skeleton's
//! shape in the bind pose ([`super::roles_shape`]); [`Roles::by_shape`] says which came from
//! the shape, so the tools can ask the artist to confirm them. Name matching splits a name into words (at separators,
//! camel case and digits), drops namespace prefixes (`mixamorig:`, `Armature|`) and common rig
//! prefixes (`DEF-`, `ORG-`, `CC_Base_`, `Bip01`), reads the side from a `l`/`left`/`r`/`right`
//! word (`thigh_l`, `thigh.L`, `LeftUpLeg`, `L Thigh`), and compares the remaining words with
//! each role's names, allowing other leading words (`MyHero_Spine`). This covers Mixamo, the
//! Unreal mannequin, Blender and Rigify, and the built-in character. The spine and chest are
//! the bones between the pelvis and the neck (the chest the last one, the spine the middle one),
//! whatever they are called; Rigify's numbered spine (`DEF-spine`, `DEF-spine.004`, ...) is
//! recognised by its numbers.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::roles_shape::{self, BindPose};
use super::{is_cloth_bone, Skeleton};

/// A humanoid bone role. In files (the bone map, the ellipsoid scales) roles are written in
/// snake case: `pelvis`, `upperarm_l`, `shin_r`, ... Left is the character's own left.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Pelvis,
    Spine,
    Chest,
    Neck,
    Head,
    UpperarmL,
    UpperarmR,
    ForearmL,
    ForearmR,
    ThighL,
    ThighR,
    ShinL,
    ShinR,
    /// Found from the forearm's child when no name gives it.
    HandL,
    HandR,
    /// Optional twist bones (the sleeve's skinning uses them when present).
    UpperarmTwistL,
    UpperarmTwistR,
    ForearmTwistL,
    ForearmTwistR,
}

impl Role {
    /// Every role a character must have.
    pub const REQUIRED: [Role; 15] = [
        Role::Pelvis,
        Role::Spine,
        Role::Chest,
        Role::Neck,
        Role::Head,
        Role::UpperarmL,
        Role::UpperarmR,
        Role::ForearmL,
        Role::ForearmR,
        Role::ThighL,
        Role::ThighR,
        Role::ShinL,
        Role::ShinR,
        Role::HandL,
        Role::HandR,
    ];

    /// The roles a character may have on top of [`Role::REQUIRED`].
    pub const OPTIONAL: [Role; 4] = [
        Role::UpperarmTwistL,
        Role::UpperarmTwistR,
        Role::ForearmTwistL,
        Role::ForearmTwistR,
    ];

    /// The name used in files and messages (`upperarm_l`).
    pub fn name(self) -> String {
        serde_json::to_value(self)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default()
    }

    /// The role of this kind on a side (0 = left, 1 = right); `None` for a central role.
    fn sided(kind: Kind, side: usize) -> Option<Role> {
        use Role::*;
        let pair = match kind {
            Kind::Upperarm => [UpperarmL, UpperarmR],
            Kind::Forearm => [ForearmL, ForearmR],
            Kind::Hand => [HandL, HandR],
            Kind::Thigh => [ThighL, ThighR],
            Kind::Shin => [ShinL, ShinR],
            Kind::UpperarmTwist => [UpperarmTwistL, UpperarmTwistR],
            Kind::ForearmTwist => [ForearmTwistL, ForearmTwistR],
            _ => return None,
        };
        Some(pair[side])
    }
}

/// What a name can say, before the side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Pelvis,
    Neck,
    Head,
    Upperarm,
    Forearm,
    Hand,
    Thigh,
    Shin,
    UpperarmTwist,
    ForearmTwist,
}

/// The words (lower case, run together) each kind of bone goes by.
const NAMES: [(Kind, &[&str]); 8] = [
    (Kind::Pelvis, &["pelvis", "hips", "hip"]),
    (Kind::Neck, &["neck"]),
    (Kind::Head, &["head"]),
    (Kind::Upperarm, &["upperarm", "arm", "uparm"]),
    (Kind::Forearm, &["forearm", "lowerarm", "elbow"]),
    (Kind::Hand, &["hand", "wrist"]),
    (Kind::Thigh, &["thigh", "upleg", "upperleg"]),
    (Kind::Shin, &["shin", "calf", "leg", "lowerleg", "knee"]),
];

/// Rig prefixes that carry no meaning for the role.
const PREFIX_WORDS: [&str; 9] = [
    "def",
    "org",
    "mch",
    "mixamorig",
    "bip",
    "cc",
    "base",
    "jnt",
    "armature",
];

/// A bone name taken apart.
#[derive(Debug, PartialEq)]
struct Parsed {
    /// 0 = left, 1 = right.
    side: Option<usize>,
    /// The letter words, prefixes and the side removed.
    words: Vec<String>,
    twist: bool,
    /// A number in the name (`spine.004` → 4, `neck_01` → 1).
    number: Option<u32>,
}

/// Splits a name into lower-case words at separators, camel case and digit boundaries,
/// after any `namespace:` or `path|`.
pub(super) fn words(name: &str) -> Vec<String> {
    let name = name.rsplit([':', '|']).next().unwrap_or(name);
    let chars: Vec<char> = name.chars().collect();
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            continue;
        }
        let prev = if i > 0 { Some(chars[i - 1]) } else { None };
        let next = chars.get(i + 1).copied();
        let boundary = match prev {
            Some(p) if p.is_alphanumeric() => {
                (p.is_lowercase() && c.is_uppercase())
                    || (p.is_ascii_digit() != c.is_ascii_digit())
                    || (p.is_uppercase()
                        && c.is_uppercase()
                        && next.is_some_and(char::is_lowercase))
            }
            _ => false,
        };
        if boundary && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        cur.extend(c.to_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

fn parse(name: &str) -> Parsed {
    let mut parsed = Parsed {
        side: None,
        words: Vec::new(),
        twist: false,
        number: None,
    };
    for w in words(name) {
        match w.as_str() {
            "l" | "left" => parsed.side = Some(0),
            "r" | "right" => parsed.side = Some(1),
            "twist" => parsed.twist = true,
            _ if w.chars().all(|c| c.is_ascii_digit()) => {
                parsed.number = parsed.number.or(w.parse().ok());
            }
            _ if PREFIX_WORDS.contains(&w.as_str()) && parsed.words.is_empty() => {}
            _ => parsed.words.push(w),
        }
    }
    parsed
}

/// The kind a parsed name stands for and how many leading words it had to ignore (0 = the
/// whole name is the kind's name).
fn kind_of(p: &Parsed) -> Option<(Kind, usize)> {
    for skip in 0..p.words.len() {
        let joined: String = p.words[skip..].concat();
        for (kind, names) in NAMES {
            if names.contains(&joined.as_str()) {
                let kind = match (kind, p.twist) {
                    (Kind::Upperarm, true) => Kind::UpperarmTwist,
                    (Kind::Forearm, true) => Kind::ForearmTwist,
                    (_, true) => return None,
                    (k, false) => k,
                };
                return Some((kind, skip));
            }
        }
    }
    None
}

/// The role a bone name alone suggests, and how good the match is (lower is better).
fn role_of_name(name: &str) -> Option<(Role, (usize, bool))> {
    let p = parse(name);
    let (kind, skip) = kind_of(&p)?;
    let role = match (kind, p.side) {
        (Kind::Pelvis, None) => Role::Pelvis,
        (Kind::Neck, None) => Role::Neck,
        (Kind::Head, None) => Role::Head,
        (_, Some(side)) => Role::sided(kind, side)?,
        _ => return None,
    };
    Some((role, (skip, p.number.is_some())))
}

/// The bone index of each role a character has.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Roles {
    bones: BTreeMap<Role, usize>,
    /// The roles whose bone the skeleton's shape gave.
    by_shape: BTreeSet<Role>,
}

/// Why roles could not be resolved.
#[derive(Debug, PartialEq)]
pub enum RolesError {
    /// The bone map names a bone the skeleton does not have.
    UnknownBone { role: Role, bone: String },
    /// No bone was found for these roles.
    Missing {
        missing: Vec<Role>,
        /// The roles that were found, with their bones.
        found: Vec<(Role, usize)>,
        /// Those of `found` that the skeleton's shape gave.
        by_shape: Vec<Role>,
        /// Why the shape gave no roles, when it was asked and gave none.
        shape: Option<String>,
    },
}

impl Roles {
    /// Resolves every role on `skeleton`: `map` (role → bone name, from the settings file)
    /// first, then `given` (role → bone index, from a VRM extension), then the bone names
    /// (with the spine, chest and hands from the hierarchy), then, for any required role
    /// still missing and when `bind` is given, the skeleton's shape.
    ///
    /// Names keep priority role by role: the shape fills only roles without a bone, never
    /// with a bone that already plays another role, and the roles already found weigh in its
    /// search (the pelvis and limbs where they are, a limb's side from a sided role on it).
    pub fn resolve(
        skeleton: &Skeleton,
        map: &BTreeMap<Role, String>,
        given: &[(Role, usize)],
        bind: Option<&BindPose>,
    ) -> Result<Roles, RolesError> {
        let mut bones = BTreeMap::new();
        for (&role, name) in map {
            let b = skeleton.find(name).ok_or_else(|| RolesError::UnknownBone {
                role,
                bone: name.clone(),
            })?;
            bones.insert(role, b);
        }
        for &(role, b) in given {
            bones.entry(role).or_insert(b);
        }
        for (role, b) in by_name(skeleton) {
            bones.entry(role).or_insert(b);
        }
        let mut roles = Roles {
            bones,
            by_shape: BTreeSet::new(),
        };
        roles.spine_from_hierarchy(skeleton);
        roles.hands_from_hierarchy(skeleton);
        let mut shape = None;
        if let (false, Some(bind)) = (roles.missing().is_empty(), bind) {
            match roles_shape::propose(skeleton, bind, &roles.bones) {
                Ok(found) => roles.fill_from_shape(found),
                Err(why) => shape = Some(why),
            }
            roles.spine_from_hierarchy(skeleton);
            roles.hands_from_hierarchy(skeleton);
        }
        let missing = roles.missing();
        if missing.is_empty() {
            Ok(roles)
        } else {
            Err(RolesError::Missing {
                missing,
                found: roles.iter().collect(),
                by_shape: roles.by_shape(),
                shape,
            })
        }
    }

    /// The required roles without a bone.
    fn missing(&self) -> Vec<Role> {
        Role::REQUIRED
            .into_iter()
            .filter(|r| !self.bones.contains_key(r))
            .collect()
    }

    /// Takes the shape's bone for each role that has none yet, unless that bone already plays
    /// a role found otherwise.
    fn fill_from_shape(&mut self, found: Vec<(Role, usize)>) {
        let taken: BTreeSet<usize> = self.bones.values().copied().collect();
        for (role, bone) in found {
            if self.bones.contains_key(&role) || taken.contains(&bone) {
                continue;
            }
            self.bones.insert(role, bone);
            self.by_shape.insert(role);
        }
    }

    /// The roles whose bone came from the skeleton's shape rather than from a name, the
    /// bone map or VRM, in role order: the tools show them for the artist to confirm.
    pub fn by_shape(&self) -> Vec<Role> {
        self.by_shape.iter().copied().collect()
    }

    /// The chest (the bone the neck hangs from) and the spine (the middle bone between the
    /// pelvis and the chest) from the hierarchy, where the map did not name them.
    fn spine_from_hierarchy(&mut self, skeleton: &Skeleton) {
        let (Some(&pelvis), Some(&neck)) =
            (self.bones.get(&Role::Pelvis), self.bones.get(&Role::Neck))
        else {
            return;
        };
        let mut path = Vec::new();
        let mut b = skeleton.parent(neck);
        while let Some(i) = b {
            if i == pelvis {
                break;
            }
            path.push(i);
            b = skeleton.parent(i);
        }
        if b != Some(pelvis) || path.is_empty() {
            return;
        }
        path.reverse();
        let chest = *self
            .bones
            .entry(Role::Chest)
            .or_insert(path[path.len() - 1]);
        let below: Vec<usize> = path.iter().copied().take_while(|&i| i != chest).collect();
        let spine = below.get(below.len().saturating_sub(1) / 2).copied();
        self.bones
            .entry(Role::Spine)
            .or_insert(spine.unwrap_or(chest));
    }

    /// Where no name gives a hand: the forearm's child with the most bones below it (the
    /// hand carries the fingers; a twist bone carries none), else the farthest from the elbow
    /// (the wrist, past the twist bone).
    fn hands_from_hierarchy(&mut self, skeleton: &Skeleton) {
        let below = |b: usize| {
            (0..skeleton.len())
                .filter(|&c| {
                    let mut p = skeleton.parent(c);
                    while let Some(i) = p {
                        if i == b {
                            return true;
                        }
                        p = skeleton.parent(i);
                    }
                    false
                })
                .count()
        };
        for (forearm, twist, hand) in [
            (Role::ForearmL, Role::ForearmTwistL, Role::HandL),
            (Role::ForearmR, Role::ForearmTwistR, Role::HandR),
        ] {
            let (Some(f), None) = (self.get(forearm), self.get(hand)) else {
                continue;
            };
            let twist = self.get(twist);
            let reach = |c: usize| skeleton.bones()[c].rest.translation.length();
            let child = (0..skeleton.len())
                .filter(|&c| skeleton.parent(c) == Some(f) && Some(c) != twist)
                .max_by(|&a, &b| below(a).cmp(&below(b)).then(reach(a).total_cmp(&reach(b))));
            if let Some(c) = child {
                self.bones.insert(hand, c);
            }
        }
    }

    /// The bone of a required role.
    ///
    /// # Panics
    /// Never for a role in [`Role::REQUIRED`]: [`Roles::resolve`] fails without them.
    pub fn bone(&self, role: Role) -> usize {
        self.bones[&role]
    }

    /// The bone of any role, if the character has it.
    pub fn get(&self, role: Role) -> Option<usize> {
        self.bones.get(&role).copied()
    }

    /// Every (role, bone) pair, roles in order.
    pub fn iter(&self) -> impl Iterator<Item = (Role, usize)> + '_ {
        self.bones.iter().map(|(&r, &b)| (r, b))
    }
}

/// Roles found from the bone names alone: for each role the best-matching bone (the whole
/// name matching before a name with extra leading words, a name without a number before a
/// numbered one, the bone nearest the root first), each bone used once.
fn by_name(skeleton: &Skeleton) -> Vec<(Role, usize)> {
    let mut best: BTreeMap<Role, ((usize, bool), usize)> = BTreeMap::new();
    for (i, bone) in skeleton.bones().iter().enumerate() {
        if is_cloth_bone(&bone.name) {
            continue;
        }
        if let Some((role, rank)) = role_of_name(&bone.name) {
            let entry = best.entry(role).or_insert((rank, i));
            if rank < entry.0 {
                *entry = (rank, i);
            }
        }
    }
    let mut out: Vec<(Role, usize)> = best.into_iter().map(|(r, (_, b))| (r, b)).collect();
    if !out.iter().any(|(r, _)| *r == Role::Pelvis) {
        out.extend(rigify_spine(skeleton));
    }
    out
}

/// Rigify and Blender's metarig number the spine: `spine` is the hips, `spine.004` the neck
/// and `spine.006` the head.
fn rigify_spine(skeleton: &Skeleton) -> Vec<(Role, usize)> {
    let numbered = |n: Option<u32>| {
        skeleton.bones().iter().position(|b| {
            let p = parse(&b.name);
            p.words == ["spine"] && p.side.is_none() && p.number == n
        })
    };
    match (numbered(None), numbered(Some(4)), numbered(Some(6))) {
        (Some(hips), Some(neck), Some(head)) => {
            vec![(Role::Pelvis, hips), (Role::Neck, neck), (Role::Head, head)]
        }
        _ => Vec::new(),
    }
}

/// Roles the VRM humanoid extension names (VRM 0.x `extensions.VRM` and 1.0
/// `extensions.VRMC_vrm`), as (role, glTF node index).
pub(crate) fn vrm_roles(json: &serde_json::Value) -> Vec<(Role, usize)> {
    let role = |vrm: &str| -> Option<Role> {
        use Role::*;
        Some(match vrm {
            "hips" => Pelvis,
            "upperChest" => Chest,
            "neck" => Neck,
            "head" => Head,
            "leftUpperArm" => UpperarmL,
            "rightUpperArm" => UpperarmR,
            "leftLowerArm" => ForearmL,
            "rightLowerArm" => ForearmR,
            "leftHand" => HandL,
            "rightHand" => HandR,
            "leftUpperLeg" => ThighL,
            "rightUpperLeg" => ThighR,
            "leftLowerLeg" => ShinL,
            "rightLowerLeg" => ShinR,
            _ => return None,
        })
    };
    let node = |v: &serde_json::Value| v.get("node")?.as_u64().map(|n| n as usize);
    let mut out = Vec::new();
    if let Some(list) = json
        .pointer("/extensions/VRM/humanoid/humanBones")
        .and_then(|v| v.as_array())
    {
        for b in list {
            if let (Some(r), Some(n)) = (b.get("bone").and_then(|v| v.as_str()), node(b)) {
                out.extend(role(r).map(|r| (r, n)));
            }
        }
    }
    if let Some(map) = json
        .pointer("/extensions/VRMC_vrm/humanoid/humanBones")
        .and_then(|v| v.as_object())
    {
        for (r, b) in map {
            if let Some(n) = node(b) {
                out.extend(role(r).map(|r| (r, n)));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn role(name: &str) -> Option<Role> {
        role_of_name(name).map(|(r, _)| r)
    }

    #[test]
    fn the_naming_conventions_studios_use_are_recognised() {
        use Role::*;
        let cases = [
            ("mixamorig:Hips", Some(Pelvis)),
            ("mixamorig1:LeftUpLeg", Some(ThighL)),
            ("LeftLeg", Some(ShinL)),
            ("RightArm", Some(UpperarmR)),
            ("mixamorig:RightForeArm", Some(ForearmR)),
            ("LeftShoulder", None),
            ("pelvis", Some(Pelvis)),
            ("thigh_l", Some(ThighL)),
            ("calf_r", Some(ShinR)),
            ("lowerarm_l", Some(ForearmL)),
            ("upperarm_twist_01_l", Some(UpperarmTwistL)),
            ("neck_01", Some(Neck)),
            ("DEF-thigh.L", Some(ThighL)),
            ("DEF-shin.R", Some(ShinR)),
            ("DEF-upper_arm.L", Some(UpperarmL)),
            ("DEF-forearm.R", Some(ForearmR)),
            ("Bip01 L Thigh", Some(ThighL)),
            ("CC_Base_R_Upperarm", Some(UpperarmR)),
            ("Hero_LEFT_UpperLeg", Some(ThighL)),
            ("upperarm_twist_r", Some(UpperarmTwistR)),
            ("spine", None),
            ("Head", Some(Head)),
            ("HeadTop_End", None),
        ];
        for (name, want) in cases {
            assert_eq!(role(name), want, "{name}: {:?}", parse(name));
        }
    }

    #[test]
    fn words_split_at_case_digits_and_separators() {
        assert_eq!(words("mixamorig:LeftUpLeg"), ["left", "up", "leg"]);
        assert_eq!(words("DEF-spine.004"), ["def", "spine", "004"]);
        assert_eq!(words("CC_Base_L_Thigh"), ["cc", "base", "l", "thigh"]);
        assert_eq!(words("LThigh"), ["l", "thigh"]);
    }

    fn skeleton(names: &[(&str, Option<usize>)]) -> Skeleton {
        Skeleton::new(
            names
                .iter()
                .map(|&(n, parent)| crate::character::Bone {
                    name: n.into(),
                    parent,
                    rest: crate::sim::Frame::IDENTITY,
                })
                .collect(),
        )
        .unwrap()
    }

    #[test]
    fn a_rigify_skeleton_resolves_by_its_numbered_spine() {
        let mut bones = vec![
            ("root", None),
            ("DEF-spine", Some(0)),
            ("DEF-spine.001", Some(1)),
            ("DEF-spine.002", Some(2)),
            ("DEF-spine.003", Some(3)),
            ("DEF-spine.004", Some(4)),
            ("DEF-spine.005", Some(5)),
            ("DEF-spine.006", Some(6)),
        ];
        let names: Vec<String> = ["L", "R"]
            .iter()
            .flat_map(|s| {
                [
                    format!("DEF-upper_arm.{s}"),
                    format!("DEF-upper_arm.{s}.001"),
                    format!("DEF-forearm.{s}"),
                    format!("DEF-hand.{s}"),
                    format!("DEF-thigh.{s}"),
                    format!("DEF-shin.{s}"),
                ]
            })
            .collect();
        for side in 0..2 {
            let n = &names[side * 6..side * 6 + 6];
            let base = bones.len();
            bones.push((n[0].as_str(), Some(4)));
            bones.push((n[1].as_str(), Some(base)));
            bones.push((n[2].as_str(), Some(base)));
            bones.push((n[3].as_str(), Some(base + 2)));
            bones.push((n[4].as_str(), Some(1)));
            bones.push((n[5].as_str(), Some(base + 4)));
        }
        let sk = skeleton(&bones);
        let roles = Roles::resolve(&sk, &BTreeMap::new(), &[], None).unwrap();
        let name = |r: Role| sk.bones()[roles.bone(r)].name.as_str();
        assert_eq!(name(Role::Pelvis), "DEF-spine");
        assert_eq!(name(Role::Neck), "DEF-spine.004");
        assert_eq!(name(Role::Head), "DEF-spine.006");
        assert_eq!(name(Role::Chest), "DEF-spine.003");
        assert_eq!(name(Role::Spine), "DEF-spine.001");
        assert_eq!(name(Role::UpperarmL), "DEF-upper_arm.L");
        assert_eq!(name(Role::ShinR), "DEF-shin.R");
        assert_eq!(name(Role::HandR), "DEF-hand.R");
    }

    #[test]
    fn the_shape_fills_only_the_roles_names_left_and_says_which() {
        let mut rows = roles_shape::tests::humanoid();
        rows[1].0 = "pelvis";
        rows[15].0 = "thigh_l";
        rows[16].0 = "calf_l";
        let (sk, pos) = roles_shape::tests::rig(&rows);
        // Without a bind pose the names alone leave roles missing.
        let err = Roles::resolve(&sk, &BTreeMap::new(), &[], None).unwrap_err();
        let RolesError::Missing { missing, shape, .. } = err else {
            panic!("{err:?}")
        };
        assert!(
            missing.contains(&Role::Neck) && shape.is_none(),
            "{missing:?}"
        );
        let bind = BindPose {
            bones: &pos,
            ..BindPose::default()
        };
        let roles = Roles::resolve(&sk, &BTreeMap::new(), &[], Some(&bind)).unwrap();
        let by_shape = roles.by_shape();
        for (role, bone) in [(Role::Pelvis, 1), (Role::ThighL, 15), (Role::ShinL, 16)] {
            assert_eq!(roles.bone(role), bone);
            assert!(!by_shape.contains(&role), "{role:?} came from its name");
        }
        assert_eq!(by_shape.len(), Role::REQUIRED.len() - 3, "{by_shape:?}");
        assert_eq!(roles.bone(Role::Neck), 4);
        assert_eq!(roles.bone(Role::ShinR), 19);
    }

    #[test]
    fn a_named_bone_is_never_given_a_second_role_by_the_shape() {
        // The name says hand where the shape sees the left forearm: the name wins, and the
        // forearm is left for the artist rather than guessed.
        let mut rows = roles_shape::tests::humanoid();
        rows[9].0 = "hand_l";
        let (sk, pos) = roles_shape::tests::rig(&rows);
        let bind = BindPose {
            bones: &pos,
            ..BindPose::default()
        };
        let err = Roles::resolve(&sk, &BTreeMap::new(), &[], Some(&bind)).unwrap_err();
        let RolesError::Missing {
            missing,
            found,
            by_shape,
            shape,
        } = err
        else {
            panic!("{err:?}")
        };
        assert_eq!(missing, [Role::ForearmL]);
        assert!(found.contains(&(Role::HandL, 9)) && found.contains(&(Role::UpperarmL, 7)));
        assert!(by_shape.contains(&Role::UpperarmL) && !by_shape.contains(&Role::HandL));
        assert_eq!(shape, None);
    }

    #[test]
    fn vrm_humanoid_bones_are_read_from_both_versions() {
        let v0 = serde_json::json!({ "extensions": { "VRM": { "humanoid": { "humanBones": [
            { "bone": "hips", "node": 3 }, { "bone": "leftUpperLeg", "node": 7 },
            { "bone": "leftThumbProximal", "node": 9 }
        ] } } } });
        assert_eq!(vrm_roles(&v0), [(Role::Pelvis, 3), (Role::ThighL, 7)]);
        let v1 = serde_json::json!({ "extensions": { "VRMC_vrm": { "humanoid": { "humanBones": {
            "rightLowerArm": { "node": 12 }, "upperChest": { "node": 5 }
        } } } } });
        let mut got = vrm_roles(&v1);
        got.sort();
        assert_eq!(got, [(Role::Chest, 5), (Role::ForearmR, 12)]);
    }

    #[test]
    fn role_names_in_files_are_snake_case() {
        assert_eq!(Role::UpperarmTwistL.name(), "upperarm_twist_l");
        assert_eq!(Role::Pelvis.name(), "pelvis");
    }
}
