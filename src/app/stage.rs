//! What the window plays: the rig's [`Scene`] (the character wearing the simulated jacket on a
//! clip), with the few extras the window needs (clip length, framing height, errors as text).

use std::sync::Arc;

use glam::{Mat4, Vec3};

use crate::preset::{Garment, Preset};
use crate::rig::{Character, MeshView, Scene};
use crate::sim::{Cloth, Collider, FabricParams, Frame};

pub use crate::rig::FrameStats;

/// The character in the jacket playing a clip.
pub struct Stage {
    scene: Scene,
    character: Arc<Character>,
}

impl Stage {
    /// The character on clip `clip`, wearing the preset's garment and fabric. Errors name the
    /// clip (and the valid ones) or the jacket problem.
    pub fn new(character: Arc<Character>, preset: &Preset, clip: &str) -> Result<Stage, String> {
        let scene = Scene::new(character.clone(), preset, clip).map_err(|e| e.to_string())?;
        Ok(Stage { scene, character })
    }

    /// The scene itself, for drawing.
    pub fn scene(&self) -> &Scene {
        &self.scene
    }

    /// New knobs, applied from the next step.
    pub fn set_params(&mut self, params: &FabricParams) {
        self.scene.set_params(params);
    }

    /// Another garment (rebuilds the cloth).
    pub fn set_garment(&mut self, garment: Garment) {
        self.scene.set_garment(garment);
    }

    /// Another clip, from its start.
    pub fn set_clip(&mut self, name: &str) -> Result<(), String> {
        self.scene.set_clip(name).map_err(|e| e.to_string())
    }

    pub fn clip_name(&self) -> &str {
        self.scene.clip_name()
    }

    pub fn clip_names(&self) -> Vec<String> {
        self.scene.clip_names()
    }

    /// Length of the current clip in seconds and whether it repeats.
    pub fn clip_duration(&self) -> (f64, bool) {
        self.character
            .clip(self.scene.clip_name())
            .map_or((1.0, true), |c| (c.duration as f64, c.looping))
    }

    pub fn reset(&mut self) {
        self.scene.reset();
    }

    pub fn step(&mut self) {
        self.scene.step();
    }

    pub fn time(&self) -> f64 {
        self.scene.time()
    }

    pub fn root(&self) -> Frame {
        self.scene.root()
    }

    pub fn body(&self) -> MeshView<'_> {
        self.scene.body()
    }

    pub fn jacket(&self) -> MeshView<'_> {
        self.scene.jacket()
    }

    pub fn cloth(&self) -> &Cloth {
        self.scene.cloth()
    }

    pub fn references(&self) -> &[Vec3] {
        self.scene.references()
    }

    pub fn colliders(&self) -> &[Collider] {
        self.scene.colliders()
    }

    pub fn sim_bones(&self) -> &[Mat4] {
        self.scene.sim_bones()
    }

    pub fn frame_stats(&self) -> FrameStats {
        self.scene.frame_stats()
    }

    /// The parameters the simulation runs with.
    pub fn params(&self) -> &FabricParams {
        self.scene.params()
    }

    pub fn garment(&self) -> Garment {
        self.scene.garment()
    }

    /// Height of the character's head top above its root at rest, metres (for framing).
    pub fn character_height(&self) -> f32 {
        self.character.height()
    }

    /// The simulated particles, character space.
    pub fn cloth_positions(&self) -> Option<&[Vec3]> {
        Some(self.scene.cloth().positions())
    }

    /// Holds particle `particle` at a character-space point (`None` releases it).
    pub fn drag(&mut self, particle: usize, target: Option<Vec3>) {
        self.scene.drag(particle, target);
    }
}
