//! Unreal Engine's Chaos Cloth: `UChaosClothConfig` and `UChaosClothSharedSimConfig`
//! properties as an editor Python script sets them (`examples/unreal/apply_cloth_tuner.py`),
//! and the MaxDistance weight map.
//!
//! Chaos steps at the game's frame rate with `SubdivisionCount` substeps; `IterationCount`
//! is stated at 60 fps and scaled by the frame time. A stiffness input passes through
//! Chaos's own curve (`FPBDStiffness`) to a fraction per 1/120 s, which the solver rescales
//! to its substep and iterations. Lengths are centimetres and Z is up; masses come from
//! `Density` (kg/m²) and the triangles' areas.

use serde_json::{json, Value};

use super::units::{
    chaos_iteration_count, chaos_iterations_per_substep, chaos_stiffness_input, drag_coefficient,
    per_rate, CHAOS_PERIOD_HZ, CM_PER_M,
};
use super::{clamp_warn, Ctx, Lost, Mapped, Warning};
use crate::sim::mass::areal_density_kg_m2;

/// Chaos's default `MaxIterationCount`.
const DEFAULT_MAX_ITERATIONS: u32 = 10;

/// What Chaos cannot take.
pub(super) const LOST: &[Lost] = &[
    Lost {
        knob: "hard_constraints",
        substitute: "`TetherStiffness` 1 (long range attachments to the pinned row)",
        differs: "tethers stop stretching from the top but the hem is not held at exactly its length; some vertical give remains",
    },
    Lost {
        knob: "edge_damping",
        substitute: "the interior `DampingCoefficient` for every particle",
        differs: "the hem and front edges lose their livelier secondary motion",
    },
    Lost {
        knob: "edge_world_motion_fraction",
        substitute: "the interior fraction in `LinearVelocityScale` / `AngularVelocityScale`",
        differs: "the hem no longer flares more than the body when the character runs or turns",
    },
    Lost {
        knob: "edge_wind_scale",
        substitute: "one `Drag` for all particles (a Drag weight map could carry it; not written)",
        differs: "the hem catches as much wind as the back",
    },
    Lost {
        knob: "contact_damping",
        substitute: "`FrictionCoefficient`, from the contact damping per 1/120 s",
        differs: "Coulomb friction against sliding instead of the calm, sticky damping while the jacket lies on the body",
    },
    Lost {
        knob: "mass_falloff",
        substitute: "none (Chaos derives masses from `Density` and triangle areas)",
        differs: "the upper rows are no heavier, so the jacket sags more for the same iterations",
    },
    Lost {
        knob: "deformation_limit",
        substitute: "tethers to the pinned row (`TetherStiffness` 1) with `TetherScale` = `max_stretch_ratio`",
        differs: "the cap holds each particle's distance from the top, not each edge: sideways stretch is not capped",
    },
    Lost {
        knob: "wind_speed",
        substitute: "a Wind Directional Source actor in the level; `Drag` carries the fabric's response",
        differs: "the wind itself is the level's, not the preset's: speed, direction and gusts must be set there",
    },
    Lost {
        knob: "tear_ratio",
        substitute: "none: tearing is not carried; the engine's links never break",
        differs: "the jacket never tears or opens, however hard it is pulled",
    },
    Lost {
        knob: "ellipsoids",
        substitute: "the physics asset's spheres and capsules (sphyls)",
        differs: "the body is rounder where our ellipsoids were flat (chest, back)",
    },
    Lost {
        knob: "hood",
        substitute: "an AnimDynamics node (angular limits) or a physics-asset body on the hood bone, set up by hand",
        differs: "the hood's pendulum (`hood_damping`, `hood_stiffness`, `hood_swing_limit_deg`) and its collisions with the head and shoulders are not exported: without it the hood stays rigid on the neck",
    },
];

/// Maps the fabric onto Chaos's configs.
pub(super) fn map(ctx: &Ctx, warnings: &mut Vec<Warning>) -> Mapped {
    let p = ctx.params;
    let relax_rate = ctx.h * ctx.n as f64;
    let f = p.world_motion_fraction as f64;
    let sigma = areal_density_kg_m2(p);
    let drag = drag_coefficient(p.wind_drag as f64, sigma);
    let drag = clamp_warn(warnings, "wind_drag", "Drag", drag, 0.0, 10.0);
    // Our fraction per 1/120 s, then through Chaos's curve to the input that gives it.
    let input = |k: f32| chaos_stiffness_input(per_rate(k as f64, relax_rate, CHAOS_PERIOD_HZ));
    let friction = per_rate(p.contact_damping as f64, ctx.h, CHAOS_PERIOD_HZ);
    let tethered = p.hard_constraints || p.deformation_limit;
    let tether_scale = if p.hard_constraints {
        1.0
    } else {
        p.max_stretch_ratio as f64
    };
    let iterations = iteration_count(ctx, warnings);
    let properties = json!({
        "ChaosClothConfig": {
            "MassMode": "Density",
            "Density": sigma,
            // Once per substep, and a substep is one of our solver steps.
            "DampingCoefficient": p.damping,
            "LinearVelocityScale": { "X": f, "Y": f, "Z": f },
            "AngularVelocityScale": f,
            "FictitiousAngularScale": f,
            "EdgeStiffnessWeighted": weighted(input(p.stretch_stiffness)),
            "BendingStiffnessWeighted": weighted(input(p.shear_bend_stiffness)),
            "TetherStiffness": weighted(if tethered { 1.0 } else { 0.0 }),
            "TetherScale": weighted(tether_scale),
            "FrictionCoefficient": friction,
            "Drag": weighted(drag),
            // Our wind pushes along the normal only.
            "Lift": weighted(0.0),
            "CollisionThickness": p.collision_margin as f64 * CM_PER_M,
            "bUseGravityOverride": true,
            "Gravity": { "X": 0.0, "Y": 0.0, "Z": -(p.gravity as f64) * CM_PER_M },
        },
        "ChaosClothSharedSimConfig": {
            "IterationCount": iterations,
            "MaxIterationCount": DEFAULT_MAX_ITERATIONS.max(ctx.n),
            "SubdivisionCount": p.substeps.max(1),
        },
    });
    let map: Vec<f64> = ctx
        .vertices
        .iter()
        .map(|q| q.max_distance_m as f64 * CM_PER_M)
        .collect();
    Mapped {
        properties,
        per_particle: json!({ "MaxDistance": map }),
        snippet: None,
    }
}

/// `IterationCount` for our passes per substep at the export's frame rate, with a warning
/// when Chaos's whole iterations cannot give exactly that many.
fn iteration_count(ctx: &Ctx, warnings: &mut Vec<Warning>) -> f64 {
    let frame_hz = ctx.params.timestep_hz as f64;
    let count = chaos_iteration_count(ctx.n.max(1), frame_hz);
    let count = clamp_warn(
        warnings,
        "iterations",
        "IterationCount",
        count as f64,
        1.0,
        100.0,
    );
    let runs = chaos_iterations_per_substep(count as u32, frame_hz);
    if ctx.n > 0 && runs != ctx.n as f64 {
        warnings.push(Warning {
            knob: "iterations",
            message: format!(
                "`iterations` = {}: Chaos states IterationCount at 60 fps and scales it by the \
                 frame time, so at {frame_hz} Hz the nearest whole count, {count}, runs {runs} \
                 iterations a substep",
                ctx.n
            ),
        });
    }
    count
}

/// A `FChaosClothWeightedValue` with no weight map: the same value at both ends.
fn weighted(v: f64) -> Value {
    json!({ "Low": v, "High": v })
}
