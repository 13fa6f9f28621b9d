//! Magica Cloth 2: the preset JSON its inspector imports. Import preset (JSON) is
//! `JsonUtility.FromJsonOverwrite` onto `ClothSerializeData`, so the settings file holds the
//! fields of `ClothSerializeData` marked for presets at its top level, under Magica's names
//! and nesting, and nothing else (our own envelope goes beside it). Magica's max distance is
//! a curve read at the squared depth from the fixed particles, so the export writes our curve
//! with its keys there; a preset with painted max distances also gets them per particle
//! (`per_particle.maxDistance`, metres, in the envelope) and a warning, for the artist to
//! carry over by hand.
//!
//! Magica simulates at its manager's frequency (90 Hz by default); damping and stiffness are
//! fractions per simulation step at that rate, and it takes a fifth of its `damping` value.

use serde_json::{json, Value};

use super::units::{magica_curve_time, magica_damping, per_rate, MAGICA_SIM_HZ};
use super::{clamp_warn, Ctx, Lost, Mapped, Warning};

/// Magica's default simulation frequency, Hz.
const SIM_HZ: f64 = MAGICA_SIM_HZ;
/// Keys written for the max-distance curve.
const CURVE_KEYS: usize = 9;
/// Our default wind drag (1/m): the fabric we take Magica's `wind.influence` 1 to be.
const REFERENCE_WIND_DRAG: f64 = 1.5;

/// What Magica Cloth 2 cannot take.
pub(super) const LOST: &[Lost] = &[
    Lost {
        knob: "hard_constraints",
        substitute: "`tetherConstraint.distanceCompression` 0 (no shrinking toward the fixed particles) with the distance constraint",
        differs: "nothing sets each column to exactly its rest length; some vertical give remains",
    },
    Lost {
        knob: "edge_damping",
        substitute: "the interior `damping` for every particle",
        differs: "the hem and front edges lose their livelier secondary motion",
    },
    Lost {
        knob: "edge_world_motion_fraction",
        substitute: "the interior fraction in `inertiaConstraint.worldInertia`",
        differs: "the hem no longer flares more than the body when the character runs or turns",
    },
    Lost {
        knob: "edge_max_distance_scale",
        substitute: "the interior curve (Magica's max distance depends on depth only)",
        differs: "the hem and front edges swing no further from the body than the interior",
    },
    Lost {
        knob: "edge_wind_scale",
        substitute: "one `wind.influence` for the whole cloth",
        differs: "the hem catches as much wind as the back",
    },
    Lost {
        knob: "contact_damping",
        substitute: "`colliderCollisionConstraint.friction`, the contact damping per 1/90 s (at most 0.3)",
        differs: "friction against sliding instead of the calm, sticky damping while the jacket lies on the body",
    },
    Lost {
        knob: "mass_falloff",
        substitute: "none (Magica weighs particles by depth on its own)",
        differs: "the upper rows are no heavier than Magica makes them; sag and bounce differ",
    },
    Lost {
        knob: "deformation_limit",
        substitute: "none",
        differs: "no cap on how far an edge stretches",
    },
    Lost {
        knob: "wind_speed",
        substitute: "a Magica Wind Zone in the scene; the preset carries the fabric's response only",
        differs: "speed and direction are the scene's, not the preset's",
    },
    Lost {
        knob: "wind_drag",
        substitute: "`wind.influence` = wind drag / 1.5 (our default fabric as Magica's 1)",
        differs: "Magica's wind model is its own; the same wind pushes a different amount and needs a look",
    },
    Lost {
        knob: "timestep_hz",
        substitute: "none: the simulation frequency is the Magica manager's (90 Hz by default), not the preset's; the fractions are converted to it",
        differs: "at another manager frequency the fabric is damped and relaxed by a different amount per second",
    },
    Lost {
        knob: "tear_ratio",
        substitute: "none: tearing is not carried; the engine's links never break",
        differs: "the jacket never tears or opens, however hard it is pulled",
    },
    Lost {
        knob: "ellipsoids",
        substitute: "Magica's sphere, capsule and plane colliders",
        differs: "the body is rounder where our ellipsoids were flat (chest, back)",
    },
    Lost {
        knob: "hood",
        substitute: "a BoneCloth on the hood bone, set up by hand",
        differs: "the hood's pendulum (`hood_damping`, `hood_stiffness`, `hood_swing_limit_deg`) and its collisions with the head and shoulders are not exported: without it the hood stays rigid on the neck",
    },
];

/// Maps the fabric onto a Magica Cloth 2 preset.
pub(super) fn map(ctx: &Ctx, warnings: &mut Vec<Warning>) -> Mapped {
    let p = ctx.params;
    let relax_rate = ctx.h * ctx.n as f64;
    let per_step = |d: f32| per_rate(d as f64, ctx.h, SIM_HZ);
    let per_pass = |k: f32| per_rate(k as f64, relax_rate, SIM_HZ);
    let friction = clamp_warn(
        warnings,
        "contact_damping",
        "colliderCollisionConstraint.friction",
        per_step(p.contact_damping),
        0.0,
        0.3,
    );
    let gravity = clamp_warn(warnings, "gravity", "gravity", p.gravity as f64, 0.0, 20.0);
    let damping = clamp_warn(
        warnings,
        "damping",
        "damping.value",
        magica_damping(p.damping as f64, ctx.h),
        0.0,
        1.0,
    );
    let influence = clamp_warn(
        warnings,
        "wind_drag",
        "wind.influence",
        p.wind_drag as f64 / REFERENCE_WIND_DRAG,
        0.0,
        2.0,
    );
    let properties = json!({
        "gravity": gravity,
        "gravityDirection": { "x": 0.0, "y": -1.0, "z": 0.0 },
        "damping": { "value": damping, "useCurve": false },
        "radius": { "value": p.collision_margin, "useCurve": false },
        "inertiaConstraint": {
            "worldInertia": p.world_motion_fraction,
            // The body's own motion is felt in full, as in the tuner.
            "localInertia": 1.0,
        },
        "tetherConstraint": {
            "distanceCompression": if p.hard_constraints { 0.0 } else { 1.0 },
        },
        "distanceConstraint": { "stiffness": { "value": per_pass(p.stretch_stiffness), "useCurve": false } },
        "triangleBendingConstraint": { "stiffness": per_pass(p.shear_bend_stiffness) },
        "motionConstraint": {
            "useMaxDistance": true,
            "maxDistance": max_distance_curve(p),
            "useBackstop": false,
            "stiffness": 1.0,
        },
        "colliderCollisionConstraint": { "mode": 1, "friction": friction },
        "wind": { "influence": influence, "turbulence": p.gust_amplitude },
    });
    let per_particle = if ctx.mesh.is_some() {
        mesh_attributes(ctx)
    } else if ctx.painted {
        warnings.push(Warning {
            knob: "max_distance_map",
            message: "max_distance_map: Magica Cloth 2's max distance is a curve over depth; \
                      the painted values are written per particle (`per_particle.maxDistance`, \
                      metres, and particles.csv) for you to carry over"
                .to_string(),
        });
        json!({ "maxDistance": ctx.table.iter().map(|q| q.max_distance_m).collect::<Vec<_>>() })
    } else {
        json!({})
    };
    Mapped {
        properties,
        per_particle,
        snippet: None,
    }
}

/// A garment mesh's vertex attributes as Magica paints them, per vertex in the file's order:
/// `Fixed` (moves with the skin) or `Move` (simulated), its depth (its nearest grid row's: 0 at
/// the pin line, 1 at the hem) and its own max distance, metres.
fn mesh_attributes(ctx: &Ctx) -> Value {
    let last_row = (ctx.grid.rows - 1) as f64;
    let v = ctx.vertices;
    json!({
        "attributes": v.iter().map(|q| if q.pinned { "Fixed" } else { "Move" }).collect::<Vec<_>>(),
        "depth": v.iter().map(|q| if q.pinned { 0.0 } else { q.row as f64 / last_row }).collect::<Vec<_>>(),
        "maxDistance": v.iter().map(|q| q.max_distance_m).collect::<Vec<_>>(),
    })
}

/// Our max distance as Magica's curve: `value` is the hem's distance, the curve the share of
/// it at each depth. Magica reads the curve at the squared depth
/// ([`magica_curve_time`]), so the key for depth `t` sits at time `τ = t²` and the curve is
/// `(top + (hem - top) τ^(e/2)) / hem`, with its slope in `τ` at every key.
fn max_distance_curve(p: &crate::sim::FabricParams) -> Value {
    let hem = p.max_distance_hem as f64;
    let top = p.max_distance_top as f64;
    let e = p.max_distance_exponent as f64;
    let scale = if hem > 0.0 { 1.0 / hem } else { 0.0 };
    let keys: Vec<Value> = (0..CURVE_KEYS)
        .map(|i| {
            let t = i as f64 / (CURVE_KEYS - 1) as f64;
            let tau = magica_curve_time(t);
            let half = e / 2.0;
            let slope = if tau > 0.0 || half >= 1.0 {
                (hem - top) * half * tau.powf(half - 1.0) * scale
            } else {
                // A curve with e/2 below 1 starts vertical; the steepest slope it takes.
                1000.0
            };
            let slope = slope.clamp(-1000.0, 1000.0);
            json!({
                "time": tau,
                "value": ((top + (hem - top) * tau.powf(half)) * scale).clamp(0.0, 1.0),
                "inSlope": slope,
                "outSlope": slope,
            })
        })
        .collect();
    json!({ "value": hem, "useCurve": true, "curve": { "m_Curve": keys } })
}
