/* Feeds seeded garbage into every field of every struct of the C interface, as an engine
   programmer with an older or newer header (or a bug) would: unknown collider kinds, NaN,
   infinities and huge numbers, counts that do not match, null and misaligned pointers where
   the interface can check them. Every call must return a status (never a panic) and the
   process must survive; after each bad call the cloth must still step with good input.
   With a rigged garment (argv: preset, garment .glb, the body's rest pose, bad files), the
   same for ct_garment_*: garbage poses and roots, NaN, wrong joint counts, nulls, truncated
   and garbage files. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cloth_tuner.h"

#define COLS 5
#define ROWS 4
#define N (COLS * ROWS)
#define MAX_COLLIDERS 8
#define ROUNDS 4000

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static long calls = 0;
static int failures = 0;

static uint32_t next_u32(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (uint32_t)(rng >> 32);
}

static float garbage_float(void) {
  switch (next_u32() % 9) {
    case 0: return NAN;
    case 1: return INFINITY;
    case 2: return -INFINITY;
    case 3: return 3.0e38f;
    case 4: return -3.0e38f;
    case 5: return 0.0f;
    case 6: return 1.0e-40f; /* denormal */
    case 7: return -1.0f;
    default: return (float)(next_u32() % 4001) / 1000.0f - 2.0f;
  }
}

static CtVec3 garbage_vec3(void) {
  CtVec3 v;
  v.x = garbage_float();
  v.y = garbage_float();
  v.z = garbage_float();
  return v;
}

static CtQuat garbage_quat(void) {
  CtQuat q;
  q.x = garbage_float();
  q.y = garbage_float();
  q.z = garbage_float();
  q.w = garbage_float();
  return q;
}

static uint32_t garbage_kind(void) {
  switch (next_u32() % 6) {
    case 0: return 4; /* one past the last kind */
    case 1: return 0xFFFFFFFFu;
    case 2: return 0x80000000u;
    case 3: return next_u32();
    default: return next_u32() % 4; /* a real kind, garbage fields */
  }
}

static CtCollider garbage_collider(void) {
  CtCollider c;
  c.kind = garbage_kind();
  c.a = garbage_vec3();
  c.b = garbage_vec3();
  c.rotation = garbage_quat();
  c.radius = garbage_float();
  return c;
}

/* A count next to the right one; never larger than the buffer unless the library can tell. */
static size_t garbage_count(size_t right) {
  switch (next_u32() % 5) {
    case 0: return 0;
    case 1: return right - 1;
    case 2: return right + 1;
    case 3: return SIZE_MAX;
    default: return right;
  }
}

/* Every call returns one of the statuses and never a panic; a failure has a message. */
static void called(CtStatus s, const char *what) {
  calls++;
  if (s == CT_STATUS_PANIC || (int)s < CT_STATUS_OK || (int)s > CT_STATUS_GARMENT_ERROR) {
    fprintf(stderr, "fuzz: FAILED: %s returned %d (%s)\n", what, (int)s, ct_last_error());
    failures++;
  } else if (s != CT_STATUS_OK && ct_last_error()[0] == '\0') {
    fprintf(stderr, "fuzz: FAILED: %s failed with no message\n", what);
    failures++;
  }
}

static void check(int ok, const char *what) {
  if (!ok) {
    fprintf(stderr, "fuzz: FAILED: %s (last error: %s)\n", what, ct_last_error());
    failures++;
  }
}

static void good_input(CtStepInput *in, const CtVec3 *rest) {
  memset(in, 0, sizeof *in);
  in->frame.rotation.w = 1.0f;
  in->reference = rest;
  in->reference_len = N;
}

/* The cloth still steps with good input and every position is finite. */
static void still_works(CtCloth *cloth, const CtVec3 *rest) {
  CtStepInput in;
  CtVec3 pos[N];
  int i, finite = 1;
  good_input(&in, rest);
  check(ct_cloth_step(cloth, &in) == CT_STATUS_OK, "a good step after garbage");
  check(ct_cloth_positions(cloth, pos, N) == CT_STATUS_OK, "positions after garbage");
  for (i = 0; i < N; i++) finite &= isfinite(pos[i].x) && isfinite(pos[i].y) && isfinite(pos[i].z);
  check(finite, "positions stay finite");
}

static void garbage_step(CtCloth *cloth, const CtVec3 *rest) {
  CtVec3 reference[N + 1];
  CtCollider colliders[MAX_COLLIDERS];
  CtStepInput in;
  size_t i, count = next_u32() % (MAX_COLLIDERS + 1);
  uint32_t taken = 0;
  for (i = 0; i < N + 1; i++) reference[i] = next_u32() % 2 ? rest[i % N] : garbage_vec3();
  for (i = 0; i < MAX_COLLIDERS; i++) colliders[i] = garbage_collider();
  memset(&in, 0, sizeof in);
  in.frame.rotation.x = next_u32() % 2 ? 0.0f : garbage_float();
  in.frame.rotation.y = next_u32() % 2 ? 0.0f : garbage_float();
  in.frame.rotation.z = next_u32() % 2 ? 0.0f : garbage_float();
  in.frame.rotation.w = next_u32() % 2 ? 1.0f : garbage_float();
  in.frame.translation = garbage_vec3();
  in.reference = next_u32() % 8 ? reference : NULL;
  in.reference_len = garbage_count(N);
  in.colliders = next_u32() % 8 ? colliders : NULL;
  in.collider_count = count;
  switch (next_u32() % 4) {
    case 0: called(ct_cloth_step(cloth, &in), "ct_cloth_step"); break;
    case 1: {
      double elapsed = next_u32() % 2 ? (double)garbage_float() : 1.0e300;
      called(ct_cloth_advance(cloth, elapsed, &in, next_u32() % 2 ? &taken : NULL),
             "ct_cloth_advance");
      break;
    }
    case 2: called(ct_cloth_reset(cloth, in.reference, in.reference_len), "ct_cloth_reset"); break;
    default: {
      /* A misaligned reference array: refused, not read. */
      in.reference = (const CtVec3 *)(const void *)((const char *)reference + 1);
      in.reference_len = N;
      called(ct_cloth_step(cloth, &in), "ct_cloth_step misaligned");
      check(ct_cloth_step(cloth, &in) == CT_STATUS_INVALID_ARGUMENT, "misaligned is refused");
    }
  }
}

static void garbage_create(const char *preset, const CtVec3 *rest) {
  CtVec3 points[N];
  CtCloth *made = (CtCloth *)1;
  uint32_t cols = next_u32() % 4 ? next_u32() % 8 : next_u32();
  uint32_t rows = next_u32() % 4 ? next_u32() % 8 : next_u32();
  uint64_t product = (uint64_t)cols * rows;
  size_t len = product <= N ? (size_t)product : garbage_count(N);
  int i;
  for (i = 0; i < N; i++) points[i] = next_u32() % 4 ? rest[i] : garbage_vec3();
  called(ct_cloth_create(next_u32() % 8 ? preset : NULL, cols, rows, next_u32() % 8 ? points : NULL,
                         len, &made),
         "ct_cloth_create");
  ct_cloth_free(made == (CtCloth *)1 ? NULL : made);
}

/* ---- The rigged garment: garbage poses, roots, counts, times and files. ---- */

#define GARMENT_ROUNDS 300
#define MAX_JOINTS 256
#define MAX_BONES 256

static CtMat4 good_pose[MAX_JOINTS];
static uint32_t pose_joints = 0;

/* The body's rest pose, written by c_fuzz.rs: uint32 joints, then `joints` CtMat4. */
static int read_pose(const char *path) {
  FILE *f = fopen(path, "rb");
  int ok = f && fread(&pose_joints, sizeof pose_joints, 1, f) == 1 && pose_joints <= MAX_JOINTS &&
           fread(good_pose, sizeof *good_pose, pose_joints, f) == pose_joints;
  if (f) fclose(f);
  return ok;
}

static CtFrame still_root(void) {
  CtFrame root;
  memset(&root, 0, sizeof root);
  root.rotation.w = 1.0f;
  return root;
}

/* The garment still steps with the good pose and every bone is finite. */
static void garment_still_works(CtGarment *g) {
  static CtMat4 bones[MAX_BONES];
  CtFrame root = still_root();
  size_t i, n = ct_garment_cloth_bone_count(g);
  int k, finite = 1;
  check(n > 0 && n <= MAX_BONES, "a sane cloth bone count");
  if (n == 0 || n > MAX_BONES) return;
  check(ct_garment_step(g, good_pose, pose_joints, &root, 1.0 / 60.0, bones, n) == CT_STATUS_OK,
        "a good garment step after garbage");
  for (i = 0; i < n; i++)
    for (k = 0; k < 16; k++) finite &= isfinite(bones[i].m[k]);
  check(finite, "cloth bones stay finite");
}

static void garbage_garment_step(CtGarment *g) {
  static CtMat4 pose[MAX_JOINTS + 1];
  static CtMat4 bones[MAX_BONES + 1];
  CtFrame root = still_root();
  size_t i, k, joints = ct_garment_joint_count(g), n = ct_garment_cloth_bone_count(g);
  size_t count = garbage_count(pose_joints);
  double dt;
  for (i = 0; i <= MAX_JOINTS; i++) {
    pose[i] = good_pose[i % pose_joints];
    if (next_u32() % 4 == 0)
      for (k = 0; k < 16; k++)
        if (next_u32() % 3 == 0) pose[i].m[k] = garbage_float();
  }
  if (next_u32() % 3 == 0) count = next_u32() % 3 ? joints : joints + 1;
  if (count > MAX_JOINTS && count != SIZE_MAX) count = MAX_JOINTS;
  if (next_u32() % 3 == 0) root.rotation = garbage_quat();
  if (next_u32() % 3 == 0) root.translation = garbage_vec3();
  switch (next_u32() % 5) {
    case 0: dt = NAN; break;
    case 1: dt = -1.0; break;
    case 2: dt = 1.0e300; break;
    case 3: dt = (double)garbage_float(); break;
    default: dt = 1.0 / 60.0;
  }
  switch (next_u32() % 6) {
    case 0:
      called(ct_garment_step(g, NULL, count, &root, dt, bones, n), "ct_garment_step null pose");
      break;
    case 1:
      called(ct_garment_step(g, pose, count, NULL, dt, bones, n), "ct_garment_step null root");
      break;
    case 2:
      called(ct_garment_step(g, pose, count, &root, dt, NULL, n), "ct_garment_step null out");
      break;
    case 3:
      called(ct_garment_step(g, pose, count, &root, dt, bones, garbage_count(n)),
             "ct_garment_step out count");
      break;
    case 4:
      called(ct_garment_step(g, (const CtMat4 *)(const void *)((const char *)pose + 2), count,
                             &root, dt, bones, n),
             "ct_garment_step misaligned");
      break;
    default:
      called(ct_garment_step(g, pose, count, &root, dt, bones, n), "ct_garment_step");
  }
  called(ct_garment_step(NULL, pose, count, &root, dt, bones, n), "ct_garment_step null garment");
  check(ct_garment_joint_name(g, joints + next_u32() % 4) == NULL, "no name past the joints");
  check(ct_garment_joint_parent(g, SIZE_MAX) == -1, "no parent past the joints");
  check(ct_garment_cloth_bone_joint(g, n + next_u32() % 4) == -1, "no joint past the bones");
}

/* Loading: nulls, missing, truncated and garbage files, a bad preset. */
static void garbage_garment_loads(const char *glb, char **bad_files, int bad_count) {
  CtGarment *made = (CtGarment *)1;
  int i;
  check(ct_garment_load(NULL, NULL, &made) == CT_STATUS_NULL_ARGUMENT && made == NULL,
        "a null path is refused and *out cleared");
  check(ct_garment_load(glb, NULL, NULL) == CT_STATUS_NULL_ARGUMENT, "a null out is refused");
  check(ct_garment_load(glb, "no/such/preset.json", &made) == CT_STATUS_PRESET_ERROR,
        "a missing preset is a preset error");
  check(strstr(ct_last_error(), "no/such/preset.json") != NULL, "the message names the preset");
  for (i = 0; i < bad_count; i++) {
    made = (CtGarment *)1;
    called(ct_garment_load(bad_files[i], NULL, &made), "ct_garment_load of a bad file");
    check(made == NULL, "a bad file gives no garment");
    check(strstr(ct_last_error(), bad_files[i]) != NULL, "the message names the file");
    ct_garment_free(made);
  }
  ct_garment_free(NULL);
  ct_garment_free((CtGarment *)(void *)((char *)&made + 1));
  check(ct_garment_joint_count(NULL) == 0 && ct_garment_cloth_bone_count(NULL) == 0 &&
            ct_garment_body_joint_count(NULL) == 0 && ct_garment_joint_name(NULL, 0) == NULL &&
            ct_garment_timestep_hz(NULL) == 0.0f,
        "a null garment has nothing");
}

/* argv: the garment, the body's rest pose, then bad garment files. */
static void fuzz_garment(char **args, int count) {
  CtGarment *g = NULL;
  int round;
  if (!read_pose(args[1])) {
    fprintf(stderr, "fuzz: cannot read the pose %s\n", args[1]);
    failures++;
    return;
  }
  garbage_garment_loads(args[0], args + 2, count - 2);
  if (ct_garment_load(args[0], NULL, &g) != CT_STATUS_OK) {
    fprintf(stderr, "fuzz: cannot load the garment: %s\n", ct_last_error());
    failures++;
    return;
  }
  check(pose_joints == ct_garment_body_joint_count(g), "the pose has the body's joints");
  for (round = 0; round < GARMENT_ROUNDS; round++) {
    garbage_garment_step(g);
    garment_still_works(g);
  }
  ct_garment_free(g);
}

int main(int argc, char **argv) {
  const char *preset = argc > 1 ? argv[1] : "presets/tweed.json";
  CtVec3 rest[N];
  CtCloth *cloth = NULL;
  int r, c, round;

  for (r = 0; r < ROWS; r++) {
    for (c = 0; c < COLS; c++) {
      rest[r * COLS + c].x = -0.1f + 0.05f * (float)c;
      rest[r * COLS + c].y = 1.1f - 0.05f * (float)r;
      rest[r * COLS + c].z = 0.2f;
    }
  }
  if (ct_cloth_create(preset, COLS, ROWS, rest, N, &cloth) != CT_STATUS_OK) {
    fprintf(stderr, "fuzz: cannot create the cloth: %s\n", ct_last_error());
    return 1;
  }

  /* The case an older or newer header produces: a kind this library does not know. */
  {
    CtCollider unknown;
    CtStepInput in;
    memset(&unknown, 0, sizeof unknown);
    unknown.kind = 7;
    unknown.radius = 0.1f;
    good_input(&in, rest);
    in.colliders = &unknown;
    in.collider_count = 1;
    check(ct_cloth_step(cloth, &in) == CT_STATUS_INVALID_ARGUMENT, "unknown kind is refused");
    check(strstr(ct_last_error(), "`kind` is 7") != NULL, "the message names the kind");
  }
  /* Misaligned and null pointers where they can be checked. */
  {
    CtStats stats[2];
    CtVec3 pos[N + 1];
    check(ct_cloth_stats(cloth, (CtStats *)(void *)((char *)stats + 1)) ==
              CT_STATUS_INVALID_ARGUMENT, "misaligned stats are refused");
    check(ct_cloth_positions(cloth, (CtVec3 *)(void *)((char *)pos + 2), N) ==
              CT_STATUS_INVALID_ARGUMENT, "misaligned positions are refused");
    check(ct_cloth_positions(cloth, NULL, N) == CT_STATUS_NULL_ARGUMENT, "null positions");
    check(ct_cloth_positions(cloth, pos, N - 1) == CT_STATUS_INVALID_ARGUMENT, "short buffer");
    check(ct_cloth_step((CtCloth *)(void *)((char *)cloth + 1), NULL) ==
              CT_STATUS_INVALID_ARGUMENT, "a misaligned cloth is refused");
    check(ct_cloth_particle_count((const CtCloth *)(const void *)((const char *)cloth + 1)) == 0,
          "a misaligned cloth has no particles");
  }

  for (round = 0; round < ROUNDS; round++) {
    garbage_step(cloth, rest);
    if (round % 50 == 0) garbage_create(preset, rest);
    still_works(cloth, rest);
  }
  ct_cloth_free(cloth);
  if (argc > 3) fuzz_garment(argv + 2, argc - 2);
  if (failures) {
    fprintf(stderr, "fuzz: %d failure(s) in %ld calls\n", failures, calls);
    return 1;
  }
  printf("fuzz: ok, %ld garbage calls survived\n", calls);
  return 0;
}
