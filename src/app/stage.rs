//! What the window plays: the character on its clip. Until the jacket rig lands this drives
//! [`Character`] directly (sample the clip, pose, skin the body); it keeps the method names of
//! the rig's `Scene` so the window does not change when the jacket arrives.

use std::sync::Arc;

use glam::{Mat4, Vec3};

use crate::preset::{Garment, Preset};
use crate::rig::{skin, Character, Pose};
use crate::sim::{Collider, FabricParams, Frame};

/// Per-step measurements shown in the plots.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FrameStats {
    pub vertical_stretch_pct: f32,
    pub horizontal_stretch_pct: f32,
    pub hem_swing_m: f32,
    pub kinetic_energy: f32,
    pub max_distance_saturation: f32,
    pub step_seconds: f64,
    pub resets: u64,
}

/// A skinned mesh, borrowed: positions, normals, uvs, indices.
pub type BodyView<'a> = (&'a [Vec3], &'a [Vec3], &'a [[f32; 2]], &'a [u32]);

/// The character playing a clip.
pub struct Stage {
    character: Arc<Character>,
    clip: usize,
    params: FabricParams,
    garment: Garment,
    steps: u64,
    pose: Pose,
    model: Vec<Mat4>,
    skin_mats: Vec<Mat4>,
    positions: Vec<Vec3>,
    normals: Vec<Vec3>,
    uvs: Vec<[f32; 2]>,
    root: Frame,
    colliders: Vec<Collider>,
    stats: FrameStats,
}

impl Stage {
    /// The character on clip `clip`, with the preset's fabric. Errors name the clip.
    pub fn new(character: Arc<Character>, preset: &Preset, clip: &str) -> Result<Stage, String> {
        let index = clip_index(&character, clip)?;
        let pose = character.skeleton.rest_pose();
        let mut stage = Stage {
            character,
            clip: index,
            params: preset.params.clone(),
            garment: preset.garment,
            steps: 0,
            pose,
            model: Vec::new(),
            skin_mats: Vec::new(),
            positions: Vec::new(),
            normals: Vec::new(),
            uvs: Vec::new(),
            root: Frame::IDENTITY,
            colliders: Vec::new(),
            stats: FrameStats::default(),
        };
        stage.pose_at_time();
        Ok(stage)
    }

    pub fn set_params(&mut self, params: &FabricParams) {
        self.params = params.clone();
    }

    pub fn set_garment(&mut self, garment: Garment) {
        self.garment = garment;
        self.reset();
    }

    pub fn set_clip(&mut self, name: &str) -> Result<(), String> {
        self.clip = clip_index(&self.character, name)?;
        self.reset();
        Ok(())
    }

    pub fn clip_name(&self) -> &str {
        self.character
            .clips
            .get(self.clip)
            .map_or("", |c| c.name.as_str())
    }

    pub fn clip_names(&self) -> Vec<String> {
        self.character.clip_names().map(str::to_string).collect()
    }

    /// Length of the current clip in seconds and whether it repeats.
    pub fn clip_duration(&self) -> (f64, bool) {
        self.character
            .clips
            .get(self.clip)
            .map_or((1.0, true), |c| (c.duration as f64, c.looping))
    }

    pub fn reset(&mut self) {
        self.steps = 0;
        self.pose_at_time();
    }

    pub fn step(&mut self) {
        let start = std::time::Instant::now();
        self.steps += 1;
        self.pose_at_time();
        self.stats.step_seconds = start.elapsed().as_secs_f64();
    }

    pub fn time(&self) -> f64 {
        self.steps as f64 / self.params.timestep_hz.max(1.0) as f64
    }

    pub fn root(&self) -> Frame {
        self.root
    }

    /// The skinned body in character space: positions, normals, uvs (none), indices.
    pub fn body(&self) -> BodyView<'_> {
        (
            &self.positions,
            &self.normals,
            &self.uvs,
            &self.character.mesh.indices,
        )
    }

    pub fn colliders(&self) -> &[Collider] {
        &self.colliders
    }

    pub fn frame_stats(&self) -> FrameStats {
        self.stats
    }

    pub fn params(&self) -> &FabricParams {
        &self.params
    }

    pub fn garment(&self) -> Garment {
        self.garment
    }

    /// Height of the character's head top above its root at rest, metres (for framing).
    pub fn character_height(&self) -> f32 {
        self.character
            .mesh
            .positions
            .iter()
            .map(|p| p.y)
            .fold(0.0f32, f32::max)
    }

    /// The simulated particles, character space (none before the jacket rig exists).
    pub fn cloth_positions(&self) -> Option<&[Vec3]> {
        None
    }

    /// Holds particle `particle` at a character-space point (`None` releases it).
    pub fn drag(&mut self, particle: usize, target: Option<Vec3>) {
        let _ = (particle, target);
    }

    fn pose_at_time(&mut self) {
        let t = self.time() as f32;
        let Some(clip) = self.character.clips.get(self.clip) else {
            return;
        };
        self.root = clip.sample(t, &mut self.pose);
        self.pose
            .compute_model(&self.character.skeleton, &mut self.model);
        self.character
            .skin_matrices(&self.model, &mut self.skin_mats);
        skin(
            &self.character.mesh,
            &self.skin_mats,
            &mut self.positions,
            &mut self.normals,
        );
        self.colliders.clear();
        for e in &self.character.ellipsoids {
            let p = e.posed(&self.model);
            self.colliders.push(Collider::Ellipsoid {
                center: p.centre,
                rotation: p.rotation,
                radii: p.radii,
            });
        }
    }
}

fn clip_index(character: &Character, clip: &str) -> Result<usize, String> {
    character
        .clips
        .iter()
        .position(|c| c.name == clip)
        .ok_or_else(|| {
            format!(
                "no clip named `{clip}`; the character has: {}",
                character.clip_names().collect::<Vec<_>>().join(", ")
            )
        })
}
