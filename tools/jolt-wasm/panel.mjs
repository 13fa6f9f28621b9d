// The Jolt side of the free-panel comparison (tests/tools/jolt_wasm.rs, examples/side_by_side): builds
// the panel as a Jolt soft body from what `cloth-tuner export --engine jolt` writes, through the
// calls the generated C++ makes (inverse masses, then CreateConstraints with the rows'
// VertexAttributes, skinned constraints with their max distance, the creation settings), moves
// its pinned top row and its skin by the motion, steps at 60 Hz and writes every particle's
// position after every frame. Jolt's own WebAssembly build (npm `jolt-physics`), run in Node.
//
// usage: node panel.mjs EXPORT.json START.txt MOTION.txt TRACE.txt
//   EXPORT.json  the settings file `export --engine jolt` wrote for the panel's grid
//   START.txt    the rest (skinned) positions, then the start positions: one `x y z` a line
//   MOTION.txt   the top row's offset along Z at each frame, one number a line
//   TRACE.txt    written: one line per frame, `x y z` of every particle
// Prints `{"lra": <LRA constraints Jolt created>, "vertices": <count>}` on stdout.

import { readFileSync, writeFileSync } from 'node:fs';
import initJolt from 'jolt-physics/wasm-compat';

const [exportPath, startPath, motionPath, tracePath] = process.argv.slice(2);
if (!tracePath) {
  console.error('usage: node panel.mjs EXPORT.json START.txt MOTION.txt TRACE.txt');
  process.exit(2);
}

const FPS = 60;
const Jolt = await initJolt();
const doc = JSON.parse(readFileSync(exportPath, 'utf8'));
if (doc.engine !== 'jolt') throw new Error(`${exportPath}: not a cloth-tuner export for jolt`);
const { cols, rows } = doc.grid;
const n = cols * rows;
const numbers = (path) => readFileSync(path, 'utf8').split(/\s+/).filter((t) => t !== '').map(Number);
const points = numbers(startPath);
if (points.length !== 6 * n) throw new Error(`${startPath}: expected ${2 * n} points`);
const motion = numbers(motionPath);

// The physics system: one object layer, one broad phase layer, no other bodies.
const settings = new Jolt.JoltSettings();
const pairs = new Jolt.ObjectLayerPairFilterTable(1);
pairs.EnableCollision(0, 0);
const layers = new Jolt.BroadPhaseLayerInterfaceTable(1, 1);
layers.MapObjectToBroadPhaseLayer(0, new Jolt.BroadPhaseLayer(0));
settings.mObjectLayerPairFilter = pairs;
settings.mBroadPhaseLayerInterface = layers;
settings.mObjectVsBroadPhaseLayerFilter = new Jolt.ObjectVsBroadPhaseLayerFilterTable(layers, 1, pairs, 1);
const jolt = new Jolt.JoltInterface(settings);
const system = jolt.GetPhysicsSystem();
const bodies = system.GetBodyInterface();

// Shared settings as the generated C++ fills them: vertices at rest with their inverse masses
// first, faces two per cell, then CreateConstraints with each row's attributes.
const shared = new Jolt.SoftBodySharedSettings();
const pp = doc.per_particle;
for (let i = 0; i < n; ++i) {
  const v = new Jolt.SoftBodySharedSettingsVertex();
  v.mPosition = new Jolt.Float3(points[3 * i], points[3 * i + 1], points[3 * i + 2]);
  v.mInvMass = pp.mVertices[i].mInvMass;
  shared.mVertices.push_back(v);
}
for (let r = 0; r + 1 < rows; ++r) {
  for (let c = 0; c + 1 < cols; ++c) {
    const a = r * cols + c, b = a + 1, d = a + cols, e = d + 1;
    shared.AddFace(new Jolt.SoftBodySharedSettingsFace(a, d, b, 0));
    shared.AddFace(new Jolt.SoftBodySharedSettingsFace(b, d, e, 0));
  }
}
const lraType = {
  None: Jolt.SoftBodySharedSettings_ELRAType_None,
  EuclideanDistance: Jolt.SoftBodySharedSettings_ELRAType_EuclideanDistance,
  GeodesicDistance: Jolt.SoftBodySharedSettings_ELRAType_GeodesicDistance,
};
const attributes = new Jolt.ArraySoftBodySharedSettingsVertexAttributes();
for (let i = 0; i < n; ++i) {
  const row = doc.properties.VertexAttributes[Math.floor(i / cols)];
  const a = new Jolt.SoftBodySharedSettingsVertexAttributes();
  a.mCompliance = row.mCompliance;
  a.mShearCompliance = row.mShearCompliance;
  a.mBendCompliance = row.mBendCompliance;
  a.mLRAType = lraType[row.mLRAType];
  a.mLRAMaxDistanceMultiplier = row.mLRAMaxDistanceMultiplier;
  attributes.push_back(a);
}
shared.CreateConstraints(attributes.data(), n, Jolt.SoftBodySharedSettings_EBendType_Distance);
const lra = shared.mLRAConstraints.size();

// One joint carries the panel's skin (it moves with the top row); each particle is held within
// its exported max distance of its skinned position.
shared.mInvBindMatrices.resize(1);
shared.mInvBindMatrices.at(0).mJointIndex = 0;
shared.mInvBindMatrices.at(0).mInvBind = Jolt.Mat44.prototype.sIdentity();
shared.mSkinnedConstraints.resize(n);
for (const k of pp.mSkinnedConstraints) {
  const s = shared.mSkinnedConstraints.at(k.mVertex);
  s.mVertex = k.mVertex;
  s.mMaxDistance = k.mMaxDistance;
  // A back stop at the max distance is off (Jolt: off when not below it).
  s.mBackStopDistance = k.mMaxDistance;
  s.mBackStopRadius = 40;
  const w = s.get_mWeights(0);
  w.mInvBindIndex = 0;
  w.mWeight = 1;
}
shared.CalculateSkinnedConstraintNormals();
shared.Optimize();

const c = doc.properties.SoftBodyCreationSettings;
const creation = new Jolt.SoftBodyCreationSettings(shared, new Jolt.RVec3(0, 0, 0), Jolt.Quat.prototype.sIdentity(), 0);
creation.mNumIterations = c.mNumIterations;
creation.mLinearDamping = c.mLinearDamping;
creation.mGravityFactor = c.mGravityFactor;
creation.mFriction = c.mFriction;
creation.mVertexRadius = c.mVertexRadius;
creation.mUpdatePosition = false;
creation.mAllowSleeping = false;
const body = bodies.CreateSoftBody(creation);
bodies.AddBody(body.GetID(), Jolt.EActivation_Activate);
const mp = Jolt.castObject(body.GetMotionProperties(), Jolt.SoftBodyMotionProperties);

// Skin hard once so the skin state is valid, then put the particles at the start (the body
// stays at the origin: local and world positions are the same).
const joints = new Jolt.ArrayMat44();
joints.push_back(Jolt.Mat44.prototype.sIdentity());
mp.SkinVertices(body.GetCenterOfMassTransform(), joints.data(), 1, true, jolt.GetTempAllocator());
const start = (i) => new Jolt.Vec3(points[3 * (n + i)], points[3 * (n + i) + 1], points[3 * (n + i) + 2]);
for (let i = 0; i < n; ++i) mp.GetVertex(i).mPosition = start(i);
const top = [];
for (let i = 0; i < cols; ++i) {
  const p = mp.GetVertex(i).mPosition;
  top.push([p.GetX(), p.GetY(), p.GetZ()]);
}

const dt = 1 / FPS;
const lines = [];
for (const z of motion) {
  // The pinned row is kinematic: it moves by its velocity, so aim it at this frame's offset.
  for (let i = 0; i < cols; ++i) {
    const v = mp.GetVertex(i);
    const p = v.mPosition;
    v.mVelocity = new Jolt.Vec3((top[i][0] - p.GetX()) / dt, (top[i][1] - p.GetY()) / dt, (top[i][2] + z - p.GetZ()) / dt);
  }
  joints.at(0).SetTranslation(new Jolt.Vec3(0, 0, z));
  mp.SkinVertices(body.GetCenterOfMassTransform(), joints.data(), 1, false, jolt.GetTempAllocator());
  jolt.Step(dt, 1);
  const frame = [];
  for (let i = 0; i < n; ++i) {
    const p = mp.GetVertex(i).mPosition;
    frame.push(p.GetX(), p.GetY(), p.GetZ());
  }
  lines.push(frame.join(' '));
}
writeFileSync(tracePath, lines.join('\n') + '\n');
console.log(JSON.stringify({ lra, vertices: n }));
