"""Unreal editor Python: applies a cloth-tuner engine export
(`cloth-tuner export --engine chaos --preset P --out P_chaos.json`) to the Chaos cloth config
of every clothing asset of the selected skeletal meshes. Run it from the editor's Python
console (`py apply_cloth_tuner.py path/to/P_chaos.json`). Not run by cloth-tuner's CI.

The MaxDistance weight map is written by the per-particle array only where the cloth's
simulation mesh is the exported grid; paint or import it otherwise.
"""
import json
import sys

import unreal


def load(path):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    if doc.get("format") != "cloth-tuner-engine-export" or doc.get("engine") != "chaos":
        raise ValueError(f"{path}: not a cloth-tuner export for chaos")
    return doc


def weighted(value):
    v = unreal.ChaosClothWeightedValue()
    v.set_editor_property("low", value["Low"])
    v.set_editor_property("high", value["High"])
    return v


def vector(value):
    return unreal.Vector(value["X"], value["Y"], value["Z"])


def apply_config(config, props):
    c = props["ChaosClothConfig"]
    config.set_editor_property("damping_coefficient", c["DampingCoefficient"])
    config.set_editor_property("linear_velocity_scale", vector(c["LinearVelocityScale"]))
    config.set_editor_property("angular_velocity_scale", c["AngularVelocityScale"])
    config.set_editor_property("fictitious_angular_scale", c["FictitiousAngularScale"])
    config.set_editor_property("edge_stiffness_weighted", weighted(c["EdgeStiffnessWeighted"]))
    config.set_editor_property("bending_stiffness_weighted", weighted(c["BendingStiffnessWeighted"]))
    config.set_editor_property("tether_stiffness", weighted(c["TetherStiffness"]))
    config.set_editor_property("friction_coefficient", c["FrictionCoefficient"])
    config.set_editor_property("drag", weighted(c["Drag"]))
    config.set_editor_property("lift", weighted(c["Lift"]))
    config.set_editor_property("collision_thickness", c["CollisionThickness"])
    config.set_editor_property("use_gravity_override", c["bUseGravityOverride"])
    config.set_editor_property("gravity", vector(c["Gravity"]))


def apply_shared(shared, props):
    s = props["ChaosClothSharedSimConfig"]
    shared.set_editor_property("iteration_count", s["IterationCount"])
    shared.set_editor_property("subdivision_count", s["SubdivisionCount"])


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
        for cloth in mesh.get_editor_property("mesh_clothing_assets"):
            configs = cloth.get_editor_property("cloth_configs")
            for key, config in configs.items():
                if isinstance(config, unreal.ChaosClothConfig):
                    apply_config(config, props)
                elif isinstance(config, unreal.ChaosClothSharedSimConfig):
                    apply_shared(config, props)
            cloth.modify()
        unreal.EditorAssetLibrary.save_loaded_asset(mesh)
        unreal.log(f"cloth-tuner: applied {doc['preset']} to {mesh.get_name()}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        unreal.log_error("usage: py apply_cloth_tuner.py EXPORT.json")
    else:
        main(sys.argv[1])
