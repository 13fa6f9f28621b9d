// The Jolt side of `cargo run --example side_by_side`: builds the panel as a Jolt soft body
// with the settings cloth-tuner exported, moves its top row (inverse mass 0) by the motion,
// steps at 60 Hz and writes every particle's position after every frame.
//
// usage: jolt_compare SETTINGS START MOTION TRACE   (files written by the example)
#include "jolt_world.h"

#include <Jolt/Physics/SoftBody/SoftBodyCreationSettings.h>
#include <Jolt/Physics/SoftBody/SoftBodyMotionProperties.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace JPH;

struct Settings
{
	uint cols = 0, rows = 0, iterations = 1;
	float linearDamping = 0, gravityFactor = 1;
	std::vector<SoftBodySharedSettings::VertexAttributes> rowAttributes;
	std::vector<float> invMass;
	std::vector<float> maxDistance;
};

static bool ReadSettings(const char *path, Settings &s)
{
	std::ifstream in(path);
	std::string key;
	while (in >> key)
	{
		if (key == "cols") in >> s.cols;
		else if (key == "rows") in >> s.rows;
		else if (key == "mNumIterations") in >> s.iterations;
		else if (key == "mLinearDamping") in >> s.linearDamping;
		else if (key == "mGravityFactor") in >> s.gravityFactor;
		else if (key == "row")
		{
			uint r, lra;
			double c, shear, bend;
			in >> r >> c >> shear >> bend >> lra;
			SoftBodySharedSettings::VertexAttributes a((float)c, (float)shear, (float)bend,
				SoftBodySharedSettings::ELRAType(lra), 1.0f);
			s.rowAttributes.push_back(a);
		}
		else if (key == "maxdistance")
		{
			uint i;
			float d;
			in >> i >> d;
			s.maxDistance.push_back(d);
		}
		else if (key == "invmass")
		{
			uint i;
			float w;
			in >> i >> w;
			s.invMass.push_back(w);
		}
		else return false;
	}
	return s.cols >= 2 && s.rows >= 2 && s.rowAttributes.size() == s.rows && s.invMass.size() == s.cols * s.rows
		&& s.maxDistance.size() == s.invMass.size();
}

int main(int argc, char **argv)
{
	if (argc != 5) { std::fprintf(stderr, "usage: jolt_compare SETTINGS START MOTION TRACE\n"); return 2; }
	Settings s;
	if (!ReadSettings(argv[1], s)) { std::fprintf(stderr, "%s: not a settings file\n", argv[1]); return 2; }
	std::ifstream start_in(argv[2]), motion_in(argv[3]);
	std::vector<float> motion;
	for (float z; motion_in >> z;) motion.push_back(z);

	JoltWorld world;
	PhysicsSystem &system = world.system;
	TempAllocator &temp = world.temp;

	// The panel as the example describes it, faces two per cell: the skinned (rest) pose
	// gives the constraints their lengths, then the particles are put at the start.
	Ref<SoftBodySharedSettings> shared = new SoftBodySharedSettings;
	const uint n = s.cols * s.rows;
	std::vector<Vec3> start(n);
	for (uint i = 0; i < n; ++i)
	{
		SoftBodySharedSettings::Vertex v;
		float x, y, z;
		start_in >> x >> y >> z;
		v.mPosition = Float3(x, y, z);
		v.mInvMass = s.invMass[i];
		shared->mVertices.push_back(v);
	}
	for (uint i = 0; i < n; ++i)
	{
		float x, y, z;
		start_in >> x >> y >> z;
		start[i] = Vec3(x, y, z);
	}
	// One joint carries the whole panel's skin (it moves with the top row); each particle is
	// held within its exported max distance of its skinned position.
	shared->mInvBindMatrices.push_back(SoftBodySharedSettings::InvBind(0, Mat44::sIdentity()));
	for (uint i = 0; i < n; ++i)
	{
		// A back stop at the max distance is off (Jolt: off when not below it).
		SoftBodySharedSettings::Skinned skinned(i, s.maxDistance[i], s.maxDistance[i], 40.0f);
		skinned.mWeights[0] = SoftBodySharedSettings::SkinWeight(0, 1.0f);
		shared->mSkinnedConstraints.push_back(skinned);
	}
	for (uint r = 0; r + 1 < s.rows; ++r)
		for (uint c = 0; c + 1 < s.cols; ++c)
		{
			uint a = r * s.cols + c, b = a + 1, d = a + s.cols, e = d + 1;
			shared->AddFace(SoftBodySharedSettings::Face(a, d, b));
			shared->AddFace(SoftBodySharedSettings::Face(b, d, e));
		}
	std::vector<SoftBodySharedSettings::VertexAttributes> attributes;
	for (uint i = 0; i < n; ++i) attributes.push_back(s.rowAttributes[i / s.cols]);
	shared->CreateConstraints(attributes.data(), (uint)attributes.size(), SoftBodySharedSettings::EBendType::Distance);
	shared->CalculateSkinnedConstraintNormals();
	shared->Optimize();

	SoftBodyCreationSettings creation(shared, RVec3::sZero(), Quat::sIdentity(), 0);
	creation.mNumIterations = s.iterations;
	creation.mLinearDamping = s.linearDamping;
	creation.mGravityFactor = s.gravityFactor;
	creation.mUpdatePosition = false;
	creation.mAllowSleeping = false;
	BodyInterface &bodies = system.GetBodyInterface();
	Body *body = bodies.CreateSoftBody(creation);
	bodies.AddBody(body->GetID(), EActivation::Activate);
	SoftBodyMotionProperties *mp = static_cast<SoftBodyMotionProperties *>(body->GetMotionProperties());
	// Skin hard once so the skin state is valid, then put the particles at the start.
	Mat44 bind = Mat44::sIdentity();
	mp->SkinVertices(body->GetCenterOfMassTransform(), &bind, 1, true, temp);
	RMat44 to_body = body->GetCenterOfMassTransform().InversedRotationTranslation();
	for (uint i = 0; i < n; ++i)
		mp->GetVertex(i).mPosition = Vec3(to_body * RVec3(start[i]));

	std::vector<Vec3> top;
	for (uint c = 0; c < s.cols; ++c) top.push_back(mp->GetVertex(c).mPosition);
	const float dt = 1.0f / 60.0f;
	std::ofstream trace(argv[4]);
	for (float z : motion)
	{
		// The pinned row is kinematic: it moves by its velocity, so aim it at this frame's offset.
		for (uint c = 0; c < s.cols; ++c)
		{
			SoftBodyVertex &v = mp->GetVertex(c);
			Vec3 target = top[c] + Vec3(0, 0, z);
			v.mVelocity = (target - v.mPosition) / dt;
		}
		Mat44 joint = Mat44::sTranslation(Vec3(0, 0, z));
		mp->SkinVertices(body->GetCenterOfMassTransform(), &joint, 1, false, temp);
		world.Step(dt);
		RMat44 com = body->GetCenterOfMassTransform();
		for (uint i = 0; i < n; ++i)
		{
			RVec3 p = com * mp->GetVertex(i).mPosition;
			trace << p.GetX() << ' ' << p.GetY() << ' ' << p.GetZ() << (i + 1 < n ? ' ' : '\n');
		}
	}
	return 0;
}
