//! Jolt Physics soft bodies: `SoftBodyCreationSettings` values, `VertexAttributes` per row
//! for `SoftBodySharedSettings::CreateConstraints`, inverse masses in 1/kg, skinned
//! constraints with their max distance, and a C++ snippet that builds them for the grid.
//!
//! The inverse masses go in before `CreateConstraints`: Jolt picks the anchored vertices
//! (inverse mass 0) and builds the long range attachments from them inside that call, and a
//! new vertex has inverse mass 1, so masses set afterwards leave the cloth with no tethers.
//!
//! Jolt splits each step into `mNumIterations` substeps, each an integration and one pass of
//! XPBD constraints: the export picks `mNumIterations` so its substeps a second equal our
//! relaxation passes a second, then a compliance per family gives each substep the
//! correction our stiffness gives each pass.

use std::fmt::Write;

use serde_json::{json, Value};

use super::units::{compliance_from_stiffness, jolt_linear_damping, per_rate, STANDARD_GRAVITY};
use super::{Ctx, Lost, Mapped, Warning};

/// What Jolt cannot take.
pub(super) const LOST: &[Lost] = &[
    Lost {
        knob: "hard_constraints",
        substitute: "geodesic long range attachments (`mLRAType = GeodesicDistance`, multiplier 1)",
        differs: "the LRA only stops a particle from getting further from the top than its rest path; the hem is not set to exactly its length each step",
    },
    Lost {
        knob: "edge_damping",
        substitute: "the interior `mLinearDamping` for the whole body",
        differs: "the hem and front edges lose their livelier secondary motion",
    },
    Lost {
        knob: "edge_world_motion_fraction",
        substitute: "none: Jolt simulates in world space",
        differs: "the whole body feels all of the character's world motion (see `world_motion_fraction`)",
    },
    Lost {
        knob: "world_motion_fraction",
        substitute: "none: a Jolt soft body lives in world space; scale the skinned positions' motion in your own code",
        differs: "the jacket lags and flares fully when the character runs, stops or turns",
    },
    Lost {
        knob: "contact_damping",
        substitute: "`mFriction`, from the contact damping per substep",
        differs: "Coulomb friction against sliding instead of the calm, sticky damping while the jacket lies on the body",
    },
    Lost {
        knob: "deformation_limit",
        substitute: "geodesic long range attachments with `mLRAMaxDistanceMultiplier` = `max_stretch_ratio`",
        differs: "the cap holds each particle's distance from the top along the cloth, not each edge: sideways stretch is not capped",
    },
    Lost {
        knob: "wind_speed",
        substitute: "none: apply the wind as forces per vertex in your own update",
        differs: "no wind at all unless the game adds it",
    },
    Lost {
        knob: "tear_ratio",
        substitute: "none: tearing is not carried; the engine's links never break",
        differs: "the jacket never tears or opens, however hard it is pulled",
    },
    Lost {
        knob: "ellipsoids",
        substitute: "the character's rigid bodies (capsules, spheres or convex hulls)",
        differs: "the body is rounder where our ellipsoids were flat (chest, back)",
    },
    Lost {
        knob: "hood",
        substitute: "a rigid body on a swing-twist constraint at the hood bone, set up by hand",
        differs: "the hood's pendulum (`hood_damping`, `hood_stiffness`, `hood_swing_limit_deg`) and its collisions with the head and shoulders are not exported: without it the hood stays rigid on the neck",
    },
];

/// Maps the fabric onto Jolt's settings.
pub(super) fn map(ctx: &Ctx, _warnings: &mut [Warning]) -> Mapped {
    let p = ctx.params;
    let substeps = p.substeps.max(1);
    let iterations = ctx.n.max(1) * substeps;
    // Substeps a second: the engine's step rate times mNumIterations, our passes a second.
    let sub_rate = p.timestep_hz as f64 * iterations as f64;
    let dt = 1.0 / sub_rate;
    // With no passes, nothing relaxes: every family off.
    let k = |stiffness: f32| if ctx.n == 0 { 0.0 } else { stiffness as f64 };
    // The hard pass holds the rest length from the top; the deformation limit allows its
    // ratio; both become Jolt's tethers to the anchored row.
    let lra = if p.hard_constraints || p.deformation_limit {
        "GeodesicDistance"
    } else {
        "None"
    };
    let lra_multiplier = if p.hard_constraints {
        1.0
    } else {
        p.max_stretch_ratio as f64
    };
    let rows: Vec<Value> = (0..ctx.grid.rows)
        .map(|r| {
            let w = row_weight(ctx, r);
            json!({
                "mCompliance": compliance_from_stiffness(k(p.stretch_stiffness), w, dt),
                "mShearCompliance": compliance_from_stiffness(k(p.shear_bend_stiffness), w, dt),
                "mBendCompliance": compliance_from_stiffness(k(p.shear_bend_stiffness), w, dt),
                "mLRAType": lra,
                "mLRAMaxDistanceMultiplier": lra_multiplier,
            })
        })
        .collect();
    let properties = json!({
        "SoftBodyCreationSettings": {
            "mNumIterations": iterations,
            "mLinearDamping": jolt_linear_damping(p.damping as f64, ctx.h, sub_rate),
            "mGravityFactor": (p.gravity / STANDARD_GRAVITY as f32) as f64,
            "mFriction": per_rate(p.contact_damping as f64, ctx.h, sub_rate),
            "mVertexRadius": p.collision_margin,
        },
        "VertexAttributes": rows,
    });
    let per_particle = json!({
        "mVertices": ctx.vertices.iter().map(|q| json!({ "mInvMass": q.inv_mass })).collect::<Vec<_>>(),
        "mSkinnedConstraints": ctx.vertices.iter()
            .map(|q| json!({ "mVertex": q.index, "mMaxDistance": q.max_distance_m }))
            .collect::<Vec<_>>(),
    });
    let snippet = snippet(&properties, &per_particle, ctx);
    Mapped {
        properties,
        per_particle,
        snippet: Some(snippet),
    }
}

/// The summed inverse mass (1/kg) of a link in `row`: two interior particles of the row, or
/// for the pinned row (weightless) the particle below it. Jolt averages a row's compliance
/// over the links it touches, so links between rows of different mass, and the edges' lighter
/// particles, are approximated.
fn row_weight(ctx: &Ctx, row: usize) -> f64 {
    let inv = |r: usize| ctx.table[r * ctx.grid.cols + ctx.grid.cols / 2].inv_mass as f64;
    if row == 0 {
        inv(1)
    } else {
        2.0 * inv(row)
    }
}

/// C++ that fills a `SoftBodySharedSettings` (whose `mVertices` and `mFaces` the game built
/// from the grid mesh in the grid's order, or from the garment mesh in its file's order) and a
/// `SoftBodyCreationSettings`.
fn snippet(properties: &Value, per_particle: &Value, ctx: &Ctx) -> String {
    let c = &properties["SoftBodyCreationSettings"];
    let mut s = String::new();
    let _ = writeln!(
        s,
        "// Generated by cloth-tuner for {}.\n\
         // Build mVertices and mFaces from {} first, then call this.\n\
         #include <Jolt/Jolt.h>\n\
         #include <Jolt/Physics/SoftBody/SoftBodyCreationSettings.h>\n\n\
         void ApplyClothTuner(JPH::SoftBodySharedSettings &shared, JPH::SoftBodyCreationSettings &creation)\n{{\n\
         \tusing namespace JPH;\n\
         \t{}\n\
         \tSoftBodySharedSettings::VertexAttributes rows[{}];",
        ctx.made_for(),
        ctx.mesh_words(),
        row_of(ctx),
        ctx.grid.rows
    );
    for (r, a) in properties["VertexAttributes"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let lra = a["mLRAType"].as_str().unwrap_or("None");
        let _ = writeln!(
            s,
            "\trows[{r}] = {{ {:e}f, {:e}f, {:e}f, SoftBodySharedSettings::ELRAType::{lra}, {}f }};",
            a["mCompliance"].as_f64().unwrap_or(0.0) as f32,
            a["mShearCompliance"].as_f64().unwrap_or(0.0) as f32,
            a["mBendCompliance"].as_f64().unwrap_or(0.0) as f32,
            f(&a["mLRAMaxDistanceMultiplier"]),
        );
    }
    let _ = writeln!(
        s,
        "\t// Inverse masses (1/kg) first: CreateConstraints picks the anchored vertices and\n\
         \t// builds the long range attachments from them."
    );
    for (i, v) in per_particle["mVertices"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let _ = writeln!(
            s,
            "\tshared.mVertices[{i}].mInvMass = {}f;",
            f(&v["mInvMass"])
        );
    }
    let _ = writeln!(
        s,
        "\tArray<SoftBodySharedSettings::VertexAttributes> attributes;\n\
         \tfor (uint i = 0; i < shared.mVertices.size(); ++i)\n\
         \t\tattributes.push_back(rows[{}]);\n\
         \tshared.CreateConstraints(attributes.data(), (uint)attributes.size(), SoftBodySharedSettings::EBendType::Distance);",
        if ctx.mesh.is_some() { "row_of[i]" } else { "i / cols" }
    );
    for k in per_particle["mSkinnedConstraints"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let _ = writeln!(
            s,
            "\tshared.mSkinnedConstraints.push_back(SoftBodySharedSettings::Skinned({}, {}f, FLT_MAX, 40.0f));",
            k["mVertex"], f(&k["mMaxDistance"])
        );
    }
    let _ = writeln!(
        s,
        "\t// Fill each skinned constraint's mWeights with the vertex's bone weights, then:\n\
         \tshared.CalculateSkinnedConstraintNormals();\n\
         \tshared.Optimize();\n\
         \tcreation.mNumIterations = {};\n\
         \tcreation.mLinearDamping = {}f;\n\
         \tcreation.mGravityFactor = {}f;\n\
         \tcreation.mFriction = {}f;\n\
         \tcreation.mVertexRadius = {}f;\n}}",
        c["mNumIterations"],
        f(&c["mLinearDamping"]),
        f(&c["mGravityFactor"]),
        f(&c["mFriction"]),
        f(&c["mVertexRadius"]),
    );
    s
}

/// How the snippet finds a vertex's row of attributes: the grid's columns per row, or each
/// garment vertex's nearest row.
fn row_of(ctx: &Ctx) -> String {
    match ctx.mesh {
        None => format!("const uint cols = {};", ctx.grid.cols),
        Some(_) => {
            let rows: Vec<String> = ctx.vertices.iter().map(|q| q.row.to_string()).collect();
            format!("static const uint row_of[] = {{ {} }};", rows.join(", "))
        }
    }
}

/// A JSON number as C++ float text (a whole number gets ".0" so the `f` suffix is valid).
pub(super) fn f(v: &Value) -> String {
    let x = v.as_f64().unwrap_or(0.0) as f32;
    let t = format!("{x}");
    if t.contains(['.', 'e', 'i', 'N']) {
        t
    } else {
        format!("{t}.0")
    }
}
