// Unity editor script: applies a cloth-tuner engine export
// (`cloth-tuner export --engine unity --preset P --out P_unity.json`) to the selected Cloth.
// Put it in an `Editor` folder; then Tools > Cloth Tuner > Apply Export to Selected Cloth.
// Not compiled by cloth-tuner's CI.
using System;
using System.IO;
using UnityEditor;
using UnityEngine;

public static class ClothTunerImport
{
    [Serializable] class Coefficient { public float maxDistance; }

    [Serializable] class Properties
    {
        public float stretchingStiffness, bendingStiffness, damping, friction;
        public float worldVelocityScale, worldAccelerationScale, clothSolverFrequency;
        public Vector3 externalAcceleration, randomAcceleration;
        public bool useGravity, useTethers;
    }

    [Serializable] class PerParticle { public Coefficient[] coefficients; }

    // Present when the export is for the artist's own garment: the mesh its coefficients
    // follow, vertex by vertex in the glTF file's order.
    [Serializable] class MeshInfo { public string name; public int vertex_count; }

    [Serializable] class Export
    {
        public string format, engine, preset;
        public Properties properties;
        public PerParticle per_particle;
        public MeshInfo mesh;
        public string[] warnings;
    }

    [MenuItem("Tools/Cloth Tuner/Apply Export to Selected Cloth")]
    static void Apply()
    {
        var cloth = Selection.activeGameObject ? Selection.activeGameObject.GetComponent<Cloth>() : null;
        if (cloth == null) { EditorUtility.DisplayDialog("Cloth Tuner", "Select a GameObject with a Cloth component.", "OK"); return; }
        var path = EditorUtility.OpenFilePanel("cloth-tuner export (unity)", "", "json");
        if (string.IsNullOrEmpty(path)) return;
        Export e;
        try { e = JsonUtility.FromJson<Export>(File.ReadAllText(path)); }
        catch (Exception ex) { Debug.LogError($"{path}: not valid JSON: {ex.Message}"); return; }
        if (e == null || e.format != "cloth-tuner-engine-export" || e.engine != "unity")
        {
            Debug.LogError($"{path}: not a cloth-tuner export for unity");
            return;
        }
        Undo.RecordObject(cloth, "Apply cloth-tuner preset " + e.preset);
        var p = e.properties;
        cloth.stretchingStiffness = p.stretchingStiffness;
        cloth.bendingStiffness = p.bendingStiffness;
        cloth.damping = p.damping;
        cloth.friction = p.friction;
        cloth.worldVelocityScale = p.worldVelocityScale;
        cloth.worldAccelerationScale = p.worldAccelerationScale;
        cloth.externalAcceleration = p.externalAcceleration;
        cloth.randomAcceleration = p.randomAcceleration;
        cloth.useGravity = p.useGravity;
        cloth.clothSolverFrequency = p.clothSolverFrequency;
        cloth.useTethers = p.useTethers;
        // Max distance per vertex: in the garment mesh's order for an imported garment, else
        // in the grid's order; only when the Cloth has exactly that many vertices.
        var coefficients = cloth.coefficients;
        var source = e.per_particle.coefficients;
        var forMesh = e.mesh != null && !string.IsNullOrEmpty(e.mesh.name)
            ? $"the garment mesh `{e.mesh.name}`"
            : "cloth-tuner's grid";
        if (source != null && source.Length == coefficients.Length)
        {
            for (int i = 0; i < coefficients.Length; ++i)
                coefficients[i].maxDistance = source[i].maxDistance;
            cloth.coefficients = coefficients;
        }
        else
        {
            Debug.LogError($"{path}: {source?.Length ?? 0} max distances for {forMesh}, but the Cloth on `{cloth.gameObject.name}` has {coefficients.Length} vertices; coefficients left as they are (the mesh must be imported with the glTF file's vertices, neither welded nor split)");
        }
        foreach (var w in e.warnings ?? new string[0]) Debug.LogWarning("cloth-tuner: " + w);
        EditorUtility.SetDirty(cloth);
    }
}
