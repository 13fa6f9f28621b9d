//! Unity's Cloth component: the properties a C# editor script sets on a selected `Cloth`
//! (`examples/unity/ClothTunerImport.cs`), and its `coefficients[i].maxDistance`.
//!
//! Unity's cloth is NvCloth inside, with the stiffness frequency hidden: damping and the
//! stiffnesses are per 1/10 s (NvCloth's default), the solver runs `clothSolverFrequency`
//! iterations a second, and `friction` is NvCloth's, applied per collision pass (the rule the
//! NvCloth export uses, [`super::units::nvcloth_friction`]).

use serde_json::{json, Value};

use super::units::{nvcloth_friction, per_rate, STANDARD_GRAVITY};
use super::{clamp_warn, Ctx, Lost, Mapped, Warning};

/// NvCloth's default stiffness frequency, Hz: the period Unity's fractions are per.
const PERIOD_HZ: f64 = 10.0;

/// What Unity's Cloth cannot take.
pub(super) const LOST: &[Lost] = &[
    Lost {
        knob: "hard_constraints",
        substitute: "`useTethers` (each particle tethered to the pinned row at its rest distance)",
        differs: "tethers only stop stretching past the rest distance from the top; columns can still bunch up and the hem is not held at exactly its length",
    },
    Lost {
        knob: "edge_damping",
        substitute: "the interior `damping` for every particle",
        differs: "the hem and front edges lose their livelier secondary motion",
    },
    Lost {
        knob: "edge_world_motion_fraction",
        substitute: "the interior fraction in `worldVelocityScale` / `worldAccelerationScale`",
        differs: "the hem no longer flares more than the body when the character runs or turns",
    },
    Lost {
        knob: "edge_wind_scale",
        substitute: "one `externalAcceleration` for all particles",
        differs: "the hem catches as much wind as the back, no more",
    },
    Lost {
        knob: "contact_damping",
        substitute: "`friction`, the contact damping per collision pass (NvCloth's friction underneath)",
        differs: "friction acts only against sliding, not as the calm, sticky damping while the jacket lies on the body",
    },
    Lost {
        knob: "mass_falloff",
        substitute: "none (Unity gives every vertex the same mass)",
        differs: "the upper rows are no heavier, so the jacket sags more for the same iterations",
    },
    Lost {
        knob: "deformation_limit",
        substitute: "none",
        differs: "no cap on how far an edge stretches; raise the stiffness or solver frequency instead",
    },
    Lost {
        knob: "wind_speed",
        substitute: "`externalAcceleration` (the mean push on a surface facing the wind) and `randomAcceleration` (the gusts)",
        differs: "the push no longer depends on how each triangle faces the wind, and gusts are random rather than rolling",
    },
    Lost {
        knob: "tear_ratio",
        substitute: "none: tearing is not carried; the engine's links never break",
        differs: "the jacket never tears or opens, however hard it is pulled",
    },
    Lost {
        knob: "ellipsoids",
        substitute: "Unity's sphere and capsule colliders (`sphereColliders`, `capsuleColliders`)",
        differs: "the body is rounder where our ellipsoids were flat (chest, back); the jacket rides a little further out",
    },
    Lost {
        knob: "hood",
        substitute: "a `CharacterJoint` (swing limits) or a spring-bone script on the hood bone, set up by hand; the Cloth component drives no bones",
        differs: "the hood's pendulum (`hood_damping`, `hood_stiffness`, `hood_swing_limit_deg`) and its collisions with the head and shoulders are not exported: without a joint the hood stays rigid on the neck",
    },
];

/// Maps the fabric onto the Cloth component.
pub(super) fn map(ctx: &Ctx, warnings: &mut Vec<Warning>) -> Mapped {
    let p = ctx.params;
    let passes_per_s = ctx.h * ctx.n.max(1) as f64;
    let relax_rate = ctx.h * ctx.n as f64;
    // Unity refuses a stretching stiffness of 0: the weakest it takes stands for none.
    let stretch = per_rate(p.stretch_stiffness as f64, relax_rate, PERIOD_HZ).max(1e-4);
    let (dir, mean, gust) = wind_accelerations(p);
    let mean = clamp_warn(
        warnings,
        "wind_speed",
        "externalAcceleration",
        mean,
        0.0,
        1000.0,
    );
    let gust = clamp_warn(
        warnings,
        "gust_amplitude",
        "randomAcceleration",
        gust,
        0.0,
        1000.0,
    );
    let properties = json!({
        "stretchingStiffness": stretch,
        "bendingStiffness": per_rate(p.shear_bend_stiffness as f64, relax_rate, PERIOD_HZ),
        "damping": per_rate(p.damping as f64, ctx.h, PERIOD_HZ),
        "friction": nvcloth_friction(p.contact_damping as f64, ctx.h, passes_per_s),
        "worldVelocityScale": p.world_motion_fraction,
        "worldAccelerationScale": p.world_motion_fraction,
        // Unity's gravity is the project's (9.81 m/s² by default); the rest of ours is added
        // as a constant acceleration, and so is the wind's mean push.
        "externalAcceleration": {
            "x": dir[0] * mean,
            "y": (STANDARD_GRAVITY as f32 - p.gravity) as f64,
            "z": dir[2] * mean,
        },
        "randomAcceleration": { "x": dir[0].abs() * gust, "y": 0.0, "z": dir[2].abs() * gust },
        "useGravity": true,
        "clothSolverFrequency": passes_per_s,
        "useTethers": p.hard_constraints,
    });
    let coefficients: Vec<Value> = ctx
        .vertices
        .iter()
        .map(|q| json!({ "maxDistance": q.max_distance_m }))
        .collect();
    Mapped {
        properties,
        per_particle: json!({ "coefficients": coefficients }),
        snippet: None,
    }
}

/// The wind as accelerations: its horizontal direction, the mean push on a surface facing it
/// (`wind_drag x speed²`, m/s²) and the extra push of a gust at full amplitude
/// (`wind_drag x ((speed (1 + amplitude))² - speed²)`).
pub(super) fn wind_accelerations(p: &crate::sim::FabricParams) -> ([f64; 3], f64, f64) {
    let a = (p.wind_direction_deg as f64).to_radians();
    let dir = [a.sin(), 0.0, a.cos()];
    let s = p.wind_speed as f64;
    let k = p.wind_drag as f64;
    let mean = k * s * s;
    let peak = s * (1.0 + p.gust_amplitude as f64);
    (dir, mean, k * peak * peak - mean)
}
