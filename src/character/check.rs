//! The glTF document checked before anything reads it.
//!
//! The `gltf` crate's accessors (`Target::node`, `Accessor::view`, `Primitive::mode`, ...)
//! unwrap: they assume every index points at an item that exists and every enum is one the
//! format defines, and they panic otherwise. Its own validation leaves some of these unchecked
//! (an animation channel's target node and property), so a hand-edited or half-exported file
//! could take the tool down. [`document`] checks every index and enum the character loaders
//! follow (scenes, nodes and their children, skins and joints, meshes and primitives,
//! accessors, buffer views, animation channels and samplers) and names the first broken item
//! by its place in the JSON, e.g. `animations[2].channels[7].target.node: 512 is not a node`.
//! What it does not cover (materials' textures, cameras, ...) the loaders never follow; the
//! crate's own validation runs after it for the rest.

use gltf::json::validation::Checked;
use gltf::json::{Index, Root};

/// The first problem found in the document, as `path: what is wrong`.
pub(crate) fn document(root: &Root) -> Result<(), String> {
    scenes(root)?;
    nodes(root)?;
    skins(root)?;
    meshes(root)?;
    accessors(root)?;
    buffer_views(root)?;
    animations(root)
}

/// `index` must point into a list of `len` items called `kind`.
fn index<T>(
    path: impl FnOnce() -> String,
    index: &Index<T>,
    len: usize,
    kind: &str,
) -> Result<(), String> {
    if index.value() < len {
        Ok(())
    } else {
        Err(format!(
            "{}: {} is not a {kind} (the file has {len})",
            path(),
            index.value()
        ))
    }
}

/// `value` must be one of the names the format defines for `what`.
fn known<T>(path: impl FnOnce() -> String, value: &Checked<T>, what: &str) -> Result<(), String> {
    match value {
        Checked::Valid(_) => Ok(()),
        Checked::Invalid => Err(format!("{}: not a glTF {what}", path())),
    }
}

fn scenes(root: &Root) -> Result<(), String> {
    if let Some(scene) = &root.scene {
        index(|| "scene".into(), scene, root.scenes.len(), "scene")?;
    }
    for (s, scene) in root.scenes.iter().enumerate() {
        for (k, node) in scene.nodes.iter().enumerate() {
            index(
                || format!("scenes[{s}].nodes[{k}]"),
                node,
                root.nodes.len(),
                "node",
            )?;
        }
    }
    Ok(())
}

fn nodes(root: &Root) -> Result<(), String> {
    let count = root.nodes.len();
    for (n, node) in root.nodes.iter().enumerate() {
        for (k, child) in node.children.iter().flatten().enumerate() {
            index(|| format!("nodes[{n}].children[{k}]"), child, count, "node")?;
        }
        if let Some(skin) = &node.skin {
            index(
                || format!("nodes[{n}].skin"),
                skin,
                root.skins.len(),
                "skin",
            )?;
        }
        if let Some(mesh) = &node.mesh {
            index(
                || format!("nodes[{n}].mesh"),
                mesh,
                root.meshes.len(),
                "mesh",
            )?;
        }
    }
    Ok(())
}

fn skins(root: &Root) -> Result<(), String> {
    for (s, skin) in root.skins.iter().enumerate() {
        for (k, joint) in skin.joints.iter().enumerate() {
            index(
                || format!("skins[{s}].joints[{k}]"),
                joint,
                root.nodes.len(),
                "node",
            )?;
        }
        if let Some(acc) = &skin.inverse_bind_matrices {
            let path = || format!("skins[{s}].inverseBindMatrices");
            index(path, acc, root.accessors.len(), "accessor")?;
        }
        if let Some(node) = &skin.skeleton {
            index(
                || format!("skins[{s}].skeleton"),
                node,
                root.nodes.len(),
                "node",
            )?;
        }
    }
    Ok(())
}

fn meshes(root: &Root) -> Result<(), String> {
    let accessors = root.accessors.len();
    for (m, mesh) in root.meshes.iter().enumerate() {
        for (p, prim) in mesh.primitives.iter().enumerate() {
            let at = |what: &str| format!("meshes[{m}].primitives[{p}].{what}");
            known(|| at("mode"), &prim.mode, "primitive mode (0 to 6)")?;
            for (k, (semantic, acc)) in prim.attributes.iter().enumerate() {
                known(|| at("attributes"), semantic, "attribute name")?;
                index(
                    || format!("{} (attribute {k})", at("attributes")),
                    acc,
                    accessors,
                    "accessor",
                )?;
            }
            if let Some(acc) = &prim.indices {
                index(|| at("indices"), acc, accessors, "accessor")?;
            }
            if let Some(material) = &prim.material {
                index(
                    || at("material"),
                    material,
                    root.materials.len(),
                    "material",
                )?;
            }
            for (t, target) in prim.targets.iter().flatten().enumerate() {
                let parts = [&target.positions, &target.normals, &target.tangents];
                for acc in parts.into_iter().flatten() {
                    index(|| at(&format!("targets[{t}]")), acc, accessors, "accessor")?;
                }
            }
        }
    }
    Ok(())
}

fn accessors(root: &Root) -> Result<(), String> {
    let views = root.buffer_views.len();
    for (a, acc) in root.accessors.iter().enumerate() {
        let at = |what: &str| format!("accessors[{a}].{what}");
        if let Some(view) = &acc.buffer_view {
            index(|| at("bufferView"), view, views, "buffer view")?;
        }
        known(
            || at("componentType"),
            &acc.component_type,
            "component type",
        )?;
        known(
            || at("type"),
            &acc.type_,
            "accessor type (SCALAR, VEC2 to VEC4, MAT2 to MAT4)",
        )?;
        if let Some(sparse) = &acc.sparse {
            index(
                || at("sparse.indices.bufferView"),
                &sparse.indices.buffer_view,
                views,
                "buffer view",
            )?;
            known(
                || at("sparse.indices.componentType"),
                &sparse.indices.component_type,
                "index component type",
            )?;
            index(
                || at("sparse.values.bufferView"),
                &sparse.values.buffer_view,
                views,
                "buffer view",
            )?;
        }
    }
    Ok(())
}

fn buffer_views(root: &Root) -> Result<(), String> {
    for (v, view) in root.buffer_views.iter().enumerate() {
        index(
            || format!("bufferViews[{v}].buffer"),
            &view.buffer,
            root.buffers.len(),
            "buffer",
        )?;
        if let Some(target) = &view.target {
            known(
                || format!("bufferViews[{v}].target"),
                target,
                "buffer view target",
            )?;
        }
    }
    Ok(())
}

fn animations(root: &Root) -> Result<(), String> {
    for (a, anim) in root.animations.iter().enumerate() {
        let samplers = anim.samplers.len();
        for (c, ch) in anim.channels.iter().enumerate() {
            let at = |what: &str| format!("animations[{a}].channels[{c}].{what}");
            index(
                || at("sampler"),
                &ch.sampler,
                samplers,
                "sampler of this animation",
            )?;
            index(
                || at("target.node"),
                &ch.target.node,
                root.nodes.len(),
                "node",
            )?;
            known(|| at("target.path"), &ch.target.path, "animated property")?;
        }
        for (s, sampler) in anim.samplers.iter().enumerate() {
            let at = |what: &str| format!("animations[{a}].samplers[{s}].{what}");
            index(
                || at("input"),
                &sampler.input,
                root.accessors.len(),
                "accessor",
            )?;
            index(
                || at("output"),
                &sampler.output,
                root.accessors.len(),
                "accessor",
            )?;
            known(
                || at("interpolation"),
                &sampler.interpolation,
                "interpolation",
            )?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A one-node document with one animation, as JSON with one edit applied.
    fn root(edit: impl FnOnce(&mut serde_json::Value)) -> Root {
        let mut v = serde_json::json!({
            "asset": { "version": "2.0" },
            "nodes": [{ "name": "a" }],
            "accessors": [
                { "componentType": 5126, "count": 2, "type": "SCALAR" },
                { "componentType": 5126, "count": 2, "type": "VEC3" }
            ],
            "animations": [{
                "samplers": [{ "input": 0, "output": 1, "interpolation": "LINEAR" }],
                "channels": [{ "sampler": 0, "target": { "node": 0, "path": "translation" } }]
            }]
        });
        edit(&mut v);
        serde_json::from_value(v).expect("the edited document deserialises")
    }

    #[test]
    fn a_sound_document_passes() {
        assert_eq!(document(&root(|_| {})), Ok(()));
    }

    #[test]
    fn a_channel_aimed_at_a_missing_node_is_named() {
        let r = root(|v| v["animations"][0]["channels"][0]["target"]["node"] = 512.into());
        assert_eq!(
            document(&r),
            Err("animations[0].channels[0].target.node: 512 is not a node (the file has 1)".into())
        );
    }

    #[test]
    fn an_unknown_enum_is_named() {
        let r = root(|v| v["animations"][0]["channels"][0]["target"]["path"] = "spin".into());
        assert_eq!(
            document(&r),
            Err("animations[0].channels[0].target.path: not a glTF animated property".into())
        );
        let r = root(|v| v["accessors"][1]["type"] = "VEC7".into());
        assert!(document(&r).unwrap_err().starts_with("accessors[1].type: "));
        let r = root(|v| v["animations"][0]["samplers"][0]["interpolation"] = "EASE".into());
        assert!(document(&r)
            .unwrap_err()
            .starts_with("animations[0].samplers[0].interpolation"));
    }

    /// An edit of a test document.
    type Edit = fn(&mut serde_json::Value);

    #[test]
    fn every_followed_index_is_checked() {
        let cases: [(&str, Edit); 6] = [
            ("nodes[0].children[0]", |v| {
                v["nodes"][0]["children"] = serde_json::json!([3])
            }),
            ("nodes[0].skin", |v| v["nodes"][0]["skin"] = 0.into()),
            ("nodes[0].mesh", |v| v["nodes"][0]["mesh"] = 2.into()),
            ("accessors[0].bufferView", |v| {
                v["accessors"][0]["bufferView"] = 0.into()
            }),
            ("animations[0].channels[0].sampler", |v| {
                v["animations"][0]["channels"][0]["sampler"] = 1.into()
            }),
            ("animations[0].samplers[0].output", |v| {
                v["animations"][0]["samplers"][0]["output"] = 9.into()
            }),
        ];
        for (path, edit) in cases {
            let err = document(&root(edit)).expect_err(path);
            assert!(err.starts_with(path), "{path}: {err}");
        }
    }
}
