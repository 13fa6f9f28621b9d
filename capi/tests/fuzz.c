/* Feeds seeded garbage into every field of every struct of the C interface, as an engine
   programmer with an older or newer header (or a bug) would: unknown collider kinds, NaN,
   infinities and huge numbers, counts that do not match, null and misaligned pointers where
   the interface can check them. Every call must return a status (never a panic) and the
   process must survive; after each bad call the cloth must still step with good input. */
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
  if (s == CT_STATUS_PANIC || (int)s < CT_STATUS_OK || (int)s > CT_STATUS_PANIC) {
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
  if (failures) {
    fprintf(stderr, "fuzz: %d failure(s) in %ld calls\n", failures, calls);
    return 1;
  }
  printf("fuzz: ok, %ld garbage calls survived\n", calls);
  return 0;
}
