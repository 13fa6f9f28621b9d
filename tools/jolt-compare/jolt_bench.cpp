// Jolt's side of the solver bench (`cargo bench --bench solver`): the same hanging square as
// the bench's grid table (1.2 m, N x N particles, top row fixed; stretch between neighbours,
// both shear diagonals, bend links two apart along rows and columns: the same link count), as
// one Jolt soft body stepped at 60 Hz on one thread with the given iterations, no colliders.
// Prints the median and fastest time per step after it has hung for 600 steps.
//
// usage: jolt_bench N ITERATIONS            (built by build.sh beside jolt_compare)
#include "jolt_world.h"

#include <Jolt/Physics/SoftBody/SoftBodyCreationSettings.h>
#include <Jolt/Physics/SoftBody/SoftBodyMotionProperties.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

using namespace JPH;

int main(int argc, char **argv)
{
	if (argc != 3) { std::fprintf(stderr, "usage: jolt_bench N ITERATIONS\n"); return 2; }
	const uint n = (uint)std::atoi(argv[1]), iterations = (uint)std::atoi(argv[2]);
	if (n < 3 || iterations < 1) { std::fprintf(stderr, "N >= 3 and ITERATIONS >= 1\n"); return 2; }

	JoltWorld world;
	PhysicsSystem &system = world.system;
	TempAllocator &temp = world.temp;

	Ref<SoftBodySharedSettings> shared = new SoftBodySharedSettings;
	const float spacing = 1.2f / float(n - 1);
	for (uint r = 0; r < n; ++r)
		for (uint c = 0; c < n; ++c)
		{
			SoftBodySharedSettings::Vertex v;
			v.mPosition = Float3(-0.6f + c * spacing, 1.6f - r * spacing, 0.0f);
			v.mInvMass = r == 0 ? 0.0f : 1.0f;
			shared->mVertices.push_back(v);
		}
	auto link = [&](uint a, uint b, float compliance) {
		shared->mEdgeConstraints.push_back(SoftBodySharedSettings::Edge(a, b, compliance));
	};
	const float shear_bend = 1.0e-4f;
	for (uint r = 0; r < n; ++r)
		for (uint c = 0; c < n; ++c)
		{
			uint i = r * n + c;
			if (c + 1 < n) link(i, i + 1, 0.0f);
			if (r + 1 < n) link(i, i + n, 0.0f);
			if (c + 1 < n && r + 1 < n) { link(i, i + n + 1, shear_bend); link(i + 1, i + n, shear_bend); }
			if (c + 2 < n) link(i, i + 2, shear_bend);
			if (r + 2 < n) link(i, i + 2 * n, shear_bend);
		}
	shared->CalculateEdgeLengths();
	shared->Optimize();

	SoftBodyCreationSettings creation(shared, RVec3::sZero(), Quat::sIdentity(), 0);
	creation.mNumIterations = iterations;
	creation.mLinearDamping = 0.02f * 60.0f;
	creation.mUpdatePosition = false;
	creation.mAllowSleeping = false;
	BodyInterface &bodies = system.GetBodyInterface();
	Body *body = bodies.CreateSoftBody(creation);
	bodies.AddBody(body->GetID(), EActivation::Activate);

	const float dt = 1.0f / 60.0f;
	for (int k = 0; k < 600; ++k) world.Step(dt);
	std::vector<double> times;
	auto begin = std::chrono::steady_clock::now();
	while (times.size() < 50 || std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count() < 0.4)
	{
		auto t0 = std::chrono::steady_clock::now();
		world.Step(dt);
		times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
	}
	std::sort(times.begin(), times.end());
	std::printf("%ux%u %u iterations links %zu median %.1f us fastest %.1f us\n", n, n, iterations,
		shared->mEdgeConstraints.size(), times[times.size() / 2] * 1e6, times[0] * 1e6);
	return 0;
}
