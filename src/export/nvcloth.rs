//! NVIDIA NvCloth: the `nv::cloth::Cloth` setters, one `PhaseConfig` per fabric phase type,
//! the particles' inverse masses (1/kg) and the motion constraint radii, plus a C++ snippet
//! that puts the inverse masses into the `ClothMeshDesc` the fabric is cooked from (the
//! cooker builds its tethers from them) and takes the phase types as the cooker returns them.
//!
//! NvCloth states damping, stiffness, friction and drag per stiffness period (`1 /
//! setStiffnessFrequency`) and rescales them to each iteration. The export sets the stiffness
//! frequency to our solver rate, so our per-step damping is NvCloth's as it is, and
//! `setSolverFrequency` to our passes a second.

use std::fmt::Write;

use serde_json::{json, Value};

use super::jolt::f;
use super::units::{nvcloth_drag, nvcloth_friction, per_rate, AIR_DENSITY};
use super::unity::wind_accelerations;
use super::{clamp_warn, xyz, Ctx, Lost, Mapped, Warning};
use crate::sim::mass::areal_density_kg_m2;

/// What NvCloth cannot take.
pub(super) const LOST: &[Lost] = &[
    Lost {
        knob: "hard_constraints",
        substitute: "tether constraints at scale 1, stiffness 1 (the cooker's tethers to the pinned row)",
        differs: "tethers stop stretching from the top, but the hem is not set to exactly its length each step",
    },
    Lost {
        knob: "edge_damping",
        substitute: "the interior damping for every particle",
        differs: "the hem and front edges lose their livelier secondary motion",
    },
    Lost {
        knob: "edge_world_motion_fraction",
        substitute: "the interior fraction in the linear, angular and centrifugal inertia",
        differs: "the hem no longer flares more than the body when the character runs or turns",
    },
    Lost {
        knob: "edge_wind_scale",
        substitute: "one drag coefficient for the whole cloth",
        differs: "the hem catches as much wind as the back",
    },
    Lost {
        knob: "contact_damping",
        substitute: "`setFriction`, the contact damping per collision pass",
        differs: "friction acts only against sliding, not as the calm, sticky damping while the jacket lies on the body",
    },
    Lost {
        knob: "deformation_limit",
        substitute: "none written (a phase's stretch limit scales stiffness, it is not a cap)",
        differs: "no cap on how far an edge stretches",
    },
    Lost {
        knob: "wind_drag",
        substitute: "`setDragCoefficient` for the fabric's areal density with `setFluidDensity` 1.225 kg/m³ (the same push on a surface facing the wind)",
        differs: "NvCloth's drag also acts on the cloth's own motion through still air and uses each triangle's current area; a fast swing is calmed more than in the tuner",
    },
    Lost {
        knob: "gust_amplitude",
        substitute: "none: vary `setWindVelocity` in your own update",
        differs: "a steady wind with no gusts",
    },
    Lost {
        knob: "tear_ratio",
        substitute: "none: tearing is not carried; the engine's links never break",
        differs: "the jacket never tears or opens, however hard it is pulled",
    },
    Lost {
        knob: "ellipsoids",
        substitute: "spheres and capsules (`setSpheres`, `setCapsules`)",
        differs: "the body is rounder where our ellipsoids were flat (chest, back)",
    },
    Lost {
        knob: "hood",
        substitute: "none: NvCloth simulates the cloth only; the game drives the hood bone",
        differs: "the hood's pendulum (`hood_damping`, `hood_stiffness`, `hood_swing_limit_deg`) and its collisions with the head and shoulders are not exported: without it the hood stays rigid on the neck",
    },
];

/// Maps the fabric onto NvCloth's setters.
pub(super) fn map(ctx: &Ctx, warnings: &mut Vec<Warning>) -> Mapped {
    let p = ctx.params;
    let relax_rate = ctx.h * ctx.n as f64;
    // One stiffness period is one of our solver steps.
    let stretch = per_rate(p.stretch_stiffness as f64, relax_rate, ctx.h);
    let bend = per_rate(p.shear_bend_stiffness as f64, relax_rate, ctx.h);
    let phase = |kind: &str, k: f64| {
        json!({
            "phaseType": kind,
            "mStiffness": k,
            "mStiffnessMultiplier": 1.0,
            "mCompressionLimit": 1.0,
            "mStretchLimit": 1.0,
        })
    };
    let drag = nvcloth_drag(
        p.wind_drag as f64,
        areal_density_kg_m2(p),
        AIR_DENSITY,
        ctx.h,
    );
    let drag = clamp_warn(
        warnings,
        "wind_drag",
        "setDragCoefficient",
        drag,
        0.0,
        0.999,
    );
    let solver_hz = ctx.h * ctx.n.max(1) as f64;
    let (dir, _, _) = wind_accelerations(p);
    let s = p.wind_speed as f64;
    let f_world = p.world_motion_fraction as f64;
    let properties = json!({
        "setSolverFrequency": solver_hz,
        "setStiffnessFrequency": ctx.h,
        "setDamping": xyz(p.damping as f64),
        "setLinearInertia": xyz(f_world),
        "setAngularInertia": xyz(f_world),
        "setCentrifugalInertia": xyz(f_world),
        "setGravity": { "x": 0.0, "y": -(p.gravity as f64), "z": 0.0 },
        "setPhaseConfig": [
            phase("eVERTICAL", stretch),
            phase("eHORIZONTAL", stretch),
            phase("eSHEARING", bend),
            phase("eBENDING", bend),
        ],
        "setTetherConstraintScale": 1.0,
        "setTetherConstraintStiffness": if p.hard_constraints { 1.0 } else { 0.0 },
        "setMotionConstraintScaleBias": { "scale": 1.0, "bias": 0.0 },
        "setMotionConstraintStiffness": 1.0,
        "setFriction": nvcloth_friction(p.contact_damping as f64, ctx.h, solver_hz),
        "setDragCoefficient": drag,
        "setFluidDensity": AIR_DENSITY,
        "setLiftCoefficient": 0.0,
        "setWindVelocity": { "x": dir[0] * s, "y": 0.0, "z": dir[2] * s },
    });
    let per_particle = json!({
        "createCloth": {
            "particles": ctx.vertices.iter().map(|q| json!({ "w": q.inv_mass })).collect::<Vec<_>>(),
        },
        "getMotionConstraints": ctx.vertices.iter().map(|q| json!({ "w": q.max_distance_m })).collect::<Vec<_>>(),
    });
    let snippet = snippet(&properties, &per_particle, ctx);
    Mapped {
        properties,
        per_particle,
        snippet: Some(snippet),
    }
}

/// C++ for a `nv::cloth::Cloth` made from the grid mesh or the garment's: the inverse masses to cook the
/// fabric and create the cloth with, and the settings to apply to it.
fn snippet(pr: &Value, pp: &Value, ctx: &Ctx) -> String {
    let v3 = |v: &Value| {
        format!(
            "physx::PxVec3({}f, {}f, {}f)",
            f(&v["x"]),
            f(&v["y"]),
            f(&v["z"])
        )
    };
    let mut s = format!(
        "// Generated by cloth-tuner for {}.\n\
         // 1. Fill the ClothMeshDesc's points and triangles from {}, then call\n\
         //    SetClothTunerInvMasses(desc) before cooking: the cooker builds its tethers from\n\
         //    the inverse masses (0 = attached).\n\
         // 2. Cook with NvClothCookFabricFromMesh(factory, desc, gravity, &phaseTypes) so its\n\
         //    phases are eVERTICAL, eHORIZONTAL, eSHEARING, eBENDING.\n\
         // 3. Create the cloth with each particle's w = kInvMass[i] (1/kg), then call\n\
         //    ApplyClothTuner(cloth, fabric, phaseTypes).\n\
         #include <NvCloth/Cloth.h>\n#include <NvCloth/Fabric.h>\n#include <NvCloth/Range.h>\n\
         #include <NvClothExt/ClothFabricCooker.h>\n#include <NvClothExt/ClothMeshDesc.h>\n#include <vector>\n\n\
         static const float kInvMass[] = {{",
        ctx.made_for(),
        ctx.mesh_words()
    );
    let list = |key: &Value| {
        key.as_array()
            .into_iter()
            .flatten()
            .map(|q| format!("{}f", f(&q["w"])))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let _ = write!(
        s,
        " {} }};\nstatic const float kMaxDistance[] = {{ {} }};\n\n",
        list(&pp["createCloth"]["particles"]),
        list(&pp["getMotionConstraints"])
    );
    let _ = writeln!(
        s,
        "void SetClothTunerInvMasses(nv::cloth::ClothMeshDesc &desc)\n{{\n\
         \tdesc.invMasses.data = kInvMass;\n\
         \tdesc.invMasses.stride = sizeof(float);\n\
         \tdesc.invMasses.count = sizeof(kInvMass) / sizeof(kInvMass[0]);\n}}\n\n\
         void ApplyClothTuner(nv::cloth::Cloth &cloth, const nv::cloth::Fabric &fabric, const nv::cloth::Vector<int32_t>::Type &phaseTypes)\n{{\n\
         \tcloth.setSolverFrequency({}f);\n\tcloth.setStiffnessFrequency({}f);\n\
         \tcloth.setDamping({});\n\tcloth.setLinearInertia({});\n\tcloth.setAngularInertia({});\n\
         \tcloth.setCentrifugalInertia({});\n\tcloth.setGravity({});\n\
         \tcloth.setTetherConstraintScale(1.0f);\n\tcloth.setTetherConstraintStiffness({}f);\n\
         \tcloth.setMotionConstraintScaleBias(1.0f, 0.0f);\n\tcloth.setMotionConstraintStiffness(1.0f);\n\
         \tcloth.setFriction({}f);\n\tcloth.setFluidDensity({}f);\n\tcloth.setDragCoefficient({}f);\n\
         \tcloth.setLiftCoefficient(0.0f);\n\tcloth.setWindVelocity({});",
        f(&pr["setSolverFrequency"]),
        f(&pr["setStiffnessFrequency"]),
        v3(&pr["setDamping"]),
        v3(&pr["setLinearInertia"]),
        v3(&pr["setAngularInertia"]),
        v3(&pr["setCentrifugalInertia"]),
        v3(&pr["setGravity"]),
        f(&pr["setTetherConstraintStiffness"]),
        f(&pr["setFriction"]),
        f(&pr["setFluidDensity"]),
        f(&pr["setDragCoefficient"]),
        v3(&pr["setWindVelocity"]),
    );
    let phases = &pr["setPhaseConfig"];
    let _ = writeln!(
        s,
        "\t// Stiffness by ClothFabricPhaseType: invalid, vertical, horizontal, bending, shearing.\n\
         \tconst float stiffness[] = {{ 0.0f, {}f, {}f, {}f, {}f }};\n\
         \tstd::vector<nv::cloth::PhaseConfig> configs(fabric.getNumPhases());\n\
         \tfor (uint32_t i = 0; i < configs.size(); ++i)\n\t{{\n\
         \t\tconst int32_t type = i < phaseTypes.size() ? phaseTypes[i] : 0;\n\
         \t\tconfigs[i] = nv::cloth::PhaseConfig(uint16_t(i));\n\
         \t\tconfigs[i].mStiffness = stiffness[type > 0 && type < 5 ? type : 0];\n\t}}\n\
         \tcloth.setPhaseConfig(nv::cloth::Range<const nv::cloth::PhaseConfig>(configs.data(), configs.data() + configs.size()));\n\
         \t// Each frame: write the skinned positions with kMaxDistance[i] as w into\n\
         \t// cloth.getMotionConstraints().\n}}",
        f(&phases[0]["mStiffness"]),
        f(&phases[1]["mStiffness"]),
        f(&phases[3]["mStiffness"]),
        f(&phases[2]["mStiffness"]),
    );
    s
}
