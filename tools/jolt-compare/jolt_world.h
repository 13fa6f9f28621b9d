// The Jolt set-up both tools share: one object layer that collides with itself, one broad-phase
// layer, a single-threaded job system and a physics system holding a few bodies. Create one
// `JoltWorld` before making any Jolt object and keep it alive while they are used.
#pragma once

#include <Jolt/Jolt.h>

#include <Jolt/Core/Factory.h>
#include <Jolt/Core/JobSystemSingleThreaded.h>
#include <Jolt/Core/TempAllocator.h>
#include <Jolt/Physics/Collision/BroadPhase/BroadPhaseLayerInterfaceTable.h>
#include <Jolt/Physics/Collision/BroadPhase/ObjectVsBroadPhaseLayerFilterTable.h>
#include <Jolt/Physics/Collision/ObjectLayerPairFilterTable.h>
#include <Jolt/Physics/PhysicsSystem.h>
#include <Jolt/RegisterTypes.h>

struct JoltRuntime
{
	JoltRuntime()
	{
		JPH::RegisterDefaultAllocator();
		JPH::Factory::sInstance = new JPH::Factory();
		JPH::RegisterTypes();
	}
	~JoltRuntime()
	{
		delete JPH::Factory::sInstance;
		JPH::Factory::sInstance = nullptr;
	}
};

struct JoltWorld
{
	JoltRuntime runtime;
	JPH::TempAllocatorImpl temp{64 * 1024 * 1024};
	JPH::JobSystemSingleThreaded jobs{JPH::cMaxPhysicsJobs};
	JPH::ObjectLayerPairFilterTable layers{1};
	JPH::BroadPhaseLayerInterfaceTable broad{1, 1};
	JPH::ObjectVsBroadPhaseLayerFilterTable *object_vs_broad = nullptr;
	JPH::PhysicsSystem system;

	JoltWorld()
	{
		layers.EnableCollision(0, 0);
		broad.MapObjectToBroadPhaseLayer(0, JPH::BroadPhaseLayer(0));
		object_vs_broad = new JPH::ObjectVsBroadPhaseLayerFilterTable(broad, 1, layers, 1);
		system.Init(16, 0, 16, 16, broad, *object_vs_broad, layers);
	}
	~JoltWorld() { delete object_vs_broad; }

	// One 60 Hz (or `dt`) update with one collision step.
	void Step(float dt) { system.Update(dt, 1, &temp, &jobs); }
};
