/* Plays an animation on a rigged garment through the C runtime, as an engine's frame loop
   would: load the garment (a .glb written by `cloth-tuner export --rig`) and its preset, then
   each frame hand over the body's pose (model-space joint matrices in the file's joint order
   and the character's world frame) with the frame's time, and read back the cloth bones'
   model-space matrices to put on the skeleton before skinning.

   The poses come from a file (the clip sampled by cloth-tuner, see capi/tests/c_garment.rs):
     usage: garment_player GARMENT.glb PRESET.json POSES.bin BONES_OUT.bin
   POSES.bin, native byte order: uint32 frames, uint32 joints, then per frame a double dt
   (seconds), the root as a CtFrame, and `joints` CtMat4. BONES_OUT.bin: uint32 frames,
   uint32 bones, then per frame `bones` CtMat4. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cloth_tuner.h"

static int fail(const char *what) {
  fprintf(stderr, "garment_player: %s: %s\n", what, ct_last_error());
  return 1;
}

static int read_exact(FILE *f, void *into, size_t size, size_t count) {
  return fread(into, size, count, f) == count;
}

int main(int argc, char **argv) {
  CtGarment *garment = NULL;
  FILE *poses, *out;
  uint32_t frames, joints, bones, frame;
  CtMat4 *pose, *cloth;
  size_t i;
  int status = 0;

  if (argc != 5) {
    fprintf(stderr, "usage: garment_player GARMENT.glb PRESET.json POSES.bin BONES_OUT.bin\n");
    return 2;
  }
  /* Once, at spawn: the garment and what the engine needs to know of its skeleton. */
  if (ct_garment_load(argv[1], argv[2], &garment) != CT_STATUS_OK) return fail("load");
  bones = (uint32_t)ct_garment_cloth_bone_count(garment);
  printf("garment: %u joints (%u of the body), %u cloth bones at %g Hz\n",
         (unsigned)ct_garment_joint_count(garment), (unsigned)ct_garment_body_joint_count(garment),
         (unsigned)bones, (double)ct_garment_timestep_hz(garment));
  for (i = 0; i < bones && i < 3; i++) {
    int64_t joint = ct_garment_cloth_bone_joint(garment, i);
    int64_t parent = ct_garment_joint_parent(garment, (size_t)joint);
    printf("  cloth bone %u: joint %lld `%s` under `%s`\n", (unsigned)i, (long long)joint,
           ct_garment_joint_name(garment, (size_t)joint),
           parent >= 0 ? ct_garment_joint_name(garment, (size_t)parent) : "(none)");
  }

  poses = fopen(argv[3], "rb");
  out = fopen(argv[4], "wb");
  if (!poses || !out) {
    fprintf(stderr, "garment_player: cannot open %s or %s\n", argv[3], argv[4]);
    return 1;
  }
  if (!read_exact(poses, &frames, sizeof frames, 1) || !read_exact(poses, &joints, sizeof joints, 1)) {
    fprintf(stderr, "garment_player: %s is too short\n", argv[3]);
    return 1;
  }
  pose = malloc(sizeof *pose * (joints ? joints : 1));
  cloth = malloc(sizeof *cloth * (bones ? bones : 1));
  fwrite(&frames, sizeof frames, 1, out);
  fwrite(&bones, sizeof bones, 1, out);

  /* Every frame: the pose in, the cloth bones out. */
  for (frame = 0; frame < frames; frame++) {
    double dt;
    CtFrame root;
    if (!read_exact(poses, &dt, sizeof dt, 1) || !read_exact(poses, &root, sizeof root, 1) ||
        !read_exact(poses, pose, sizeof *pose, joints)) {
      fprintf(stderr, "garment_player: %s ends at frame %u\n", argv[3], (unsigned)frame);
      status = 1;
      break;
    }
    if (ct_garment_step(garment, pose, joints, &root, dt, cloth, bones) != CT_STATUS_OK) {
      status = fail("step");
      break;
    }
    fwrite(cloth, sizeof *cloth, bones, out);
  }
  fclose(poses);
  fclose(out);
  free(pose);
  free(cloth);
  ct_garment_free(garment);
  if (status == 0) printf("garment_player: ok, %u frames\n", (unsigned)frames);
  return status;
}
