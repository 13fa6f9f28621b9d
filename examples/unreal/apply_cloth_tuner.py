"""Unreal editor Python: applies a cloth-tuner engine export
(`cloth-tuner export --engine chaos --preset P --out P_chaos.json`) to the Chaos cloth config
of every clothing asset of the selected skeletal meshes. Run it from the editor's Python
console (`py apply_cloth_tuner.py path/to/P_chaos.json`). Not run by cloth-tuner's CI.

What it sets, through `set_editor_property` (plain numbers, vectors, switches):
DampingCoefficient, LinearVelocityScale, AngularVelocityScale, FictitiousAngularScale,
FrictionCoefficient, CollisionThickness, bUseGravityOverride, Gravity, Density (and MassMode
where the enum is exposed), IterationCount, MaxIterationCount, SubdivisionCount. Each one it
could not set is logged with its value.

What stays manual, and why: the weighted values (EdgeStiffnessWeighted,
BendingStiffnessWeighted, TetherStiffness, TetherScale, Drag, Lift) are
FChaosClothWeightedValue structs, which are not BlueprintType, so Unreal's Python cannot
build or set them; the script logs each Low/High pair for the Cloth Config panel. The
MaxDistance weight map is per vertex of the cloth's simulation mesh and has no Python setter
either; paint it, or import it from the export's `per_particle.MaxDistance` (centimetres, the
grid's order) with the Cloth Paint tool.
"""
import json
import sys

import unreal

# ChaosClothConfig properties set here, by export name and Python name.
CONFIG = [
    ("DampingCoefficient", "damping_coefficient"),
    ("LinearVelocityScale", "linear_velocity_scale"),
    ("AngularVelocityScale", "angular_velocity_scale"),
    ("FictitiousAngularScale", "fictitious_angular_scale"),
    ("FrictionCoefficient", "friction_coefficient"),
    ("CollisionThickness", "collision_thickness"),
    ("bUseGravityOverride", "use_gravity_override"),
    ("Gravity", "gravity"),
    ("Density", "density"),
]
# The weighted values Python cannot reach (FChaosClothWeightedValue is not a BlueprintType).
MANUAL = [
    "EdgeStiffnessWeighted",
    "BendingStiffnessWeighted",
    "TetherStiffness",
    "TetherScale",
    "Drag",
    "Lift",
]
SHARED = [
    ("IterationCount", "iteration_count"),
    ("MaxIterationCount", "max_iteration_count"),
    ("SubdivisionCount", "subdivision_count"),
]


def load(path):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    if doc.get("format") != "cloth-tuner-engine-export" or doc.get("engine") != "chaos":
        raise ValueError(f"{path}: not a cloth-tuner export for chaos")
    return doc


def value(v):
    if isinstance(v, dict) and set(v) == {"X", "Y", "Z"}:
        return unreal.Vector(v["X"], v["Y"], v["Z"])
    return v


def set_all(obj, props, names):
    """Sets each property; returns the ones Unreal refused, with their values."""
    refused = []
    for key, py_name in names:
        try:
            obj.set_editor_property(py_name, value(props[key]))
        except Exception as e:  # Unreal raises its own types for unknown or read-only names.
            refused.append(f"{key} = {props[key]} ({e})")
    return refused


def apply_config(config, props):
    c = props["ChaosClothConfig"]
    refused = set_all(config, c, CONFIG)
    try:
        config.set_editor_property("mass_mode", unreal.ClothMassMode.DENSITY)
    except Exception as e:
        refused.append(f"MassMode = Density ({e})")
    return refused


def manual_steps(props):
    c = props["ChaosClothConfig"]
    return [f"{k}: Low {c[k]['Low']}, High {c[k]['High']}" for k in MANUAL]


def main(path):
    doc = load(path)
    props = doc["properties"]
    for warning in doc.get("warnings", []):
        unreal.log_warning("cloth-tuner: " + warning)
    meshes = [a for a in unreal.EditorUtilityLibrary.get_selected_assets()
              if isinstance(a, unreal.SkeletalMesh)]
    if not meshes:
        unreal.log_error("Select a skeletal mesh with clothing data in the content browser.")
        return
    for mesh in meshes:
        refused = []
        for cloth in mesh.get_editor_property("mesh_clothing_assets"):
            configs = cloth.get_editor_property("cloth_configs")
            for key, config in configs.items():
                if isinstance(config, unreal.ChaosClothConfig):
                    refused += apply_config(config, props)
                elif isinstance(config, unreal.ChaosClothSharedSimConfig):
                    refused += set_all(config, props["ChaosClothSharedSimConfig"], SHARED)
            cloth.modify()
        unreal.EditorAssetLibrary.save_loaded_asset(mesh)
        unreal.log(f"cloth-tuner: applied {doc['preset']} to {mesh.get_name()}")
        for r in refused:
            unreal.log_warning(f"cloth-tuner: not set, enter by hand: {r}")
    unreal.log("cloth-tuner: set these in the Cloth Config panel by hand (Python cannot):")
    for step in manual_steps(props):
        unreal.log("  " + step)
    values = len(doc["per_particle"]["MaxDistance"])
    mesh = doc.get("mesh")
    if mesh:
        over = f"the garment mesh `{mesh['name']}`'s {mesh['vertex_count']} vertices in its glTF order"
    else:
        over = f"cloth-tuner's {doc['grid']['cols']} x {doc['grid']['rows']} grid"
    unreal.log(
        f"cloth-tuner: paint or import the MaxDistance map (per_particle.MaxDistance, cm): "
        f"{values} values over {over}"
    )


if __name__ == "__main__":
    if len(sys.argv) != 2:
        unreal.log_error("usage: py apply_cloth_tuner.py EXPORT.json")
    else:
        main(sys.argv[1])
