/* Smoke test of the C interface: load a preset, build a small coat panel, walk it forward for
   a second of fixed steps, and check the hem moved and every position is finite. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cloth_tuner.h"

#define COLS 6
#define ROWS 5
#define N (COLS * ROWS)

static int failures = 0;

static void check(int ok, const char *what) {
  if (!ok) {
    fprintf(stderr, "smoke: FAILED: %s (last error: %s)\n", what, ct_last_error());
    failures++;
  }
}

int main(int argc, char **argv) {
  const char *preset = argc > 1 ? argv[1] : "presets/tweed.json";
  CtVec3 rest[N];
  CtVec3 pos[N];
  CtCloth *cloth = NULL;
  int r, c, i, step;

  /* A flat panel in front of the body: columns along +X, rows down, 5 cm apart. */
  for (r = 0; r < ROWS; r++) {
    for (c = 0; c < COLS; c++) {
      CtVec3 p;
      p.x = -0.125f + 0.05f * (float)c;
      p.y = 1.1f - 0.05f * (float)r;
      p.z = 0.2f;
      rest[r * COLS + c] = p;
    }
  }

  /* Errors are status codes with a message. */
  check(ct_cloth_create("no/such/preset.json", COLS, ROWS, rest, N, &cloth) ==
            CT_STATUS_PRESET_ERROR,
        "a missing preset is a preset error");
  check(strstr(ct_last_error(), "no/such/preset.json") != NULL, "the message names the file");
  check(cloth == NULL, "no cloth on failure");
  check(ct_cloth_create(preset, COLS, ROWS, rest, N - 1, &cloth) == CT_STATUS_INVALID_ARGUMENT,
        "a wrong rest count is refused");
  check(ct_cloth_step(NULL, NULL) == CT_STATUS_NULL_ARGUMENT, "null is refused");

  if (ct_cloth_create(preset, COLS, ROWS, rest, N, &cloth) != CT_STATUS_OK) {
    fprintf(stderr, "smoke: cannot create the cloth: %s\n", ct_last_error());
    return 1;
  }
  check(ct_cloth_particle_count(cloth) == N, "particle count");

  {
    CtStats stats;
    CtCollider body;
    CtStepInput input;
    float moved = 0.0f;
    memset(&body, 0, sizeof body);
    body.kind = CT_COLLIDER_KIND_SPHERE;
    body.a.x = 0.0f;
    body.a.y = 0.95f;
    body.a.z = 0.0f;
    body.radius = 0.15f;
    memset(&input, 0, sizeof input);
    input.frame.rotation.w = 1.0f;
    input.reference = rest;
    input.reference_len = N;
    input.colliders = &body;
    input.collider_count = 1;

    ct_cloth_stats(cloth, &stats);
    /* One second of steps at the preset's rate, walking forward at 1.5 m/s then stopping. */
    for (step = 0; step < (int)stats.timestep_hz; step++) {
      float t = (float)(step + 1) / stats.timestep_hz;
      input.frame.translation.z = 1.5f * (t < 0.5f ? t : 0.5f);
      check(ct_cloth_step(cloth, &input) == CT_STATUS_OK, "step");
    }
    check(ct_cloth_positions(cloth, pos, N) == CT_STATUS_OK, "positions");
    for (i = 0; i < N; i++) {
      check(isfinite(pos[i].x) && isfinite(pos[i].y) && isfinite(pos[i].z), "finite");
    }
    for (i = (ROWS - 1) * COLS; i < N; i++) {
      float dx = pos[i].x - rest[i].x, dy = pos[i].y - rest[i].y, dz = pos[i].z - rest[i].z;
      float d = sqrtf(dx * dx + dy * dy + dz * dz);
      if (d > moved) moved = d;
    }
    for (i = 0; i < COLS; i++) {
      check(pos[i].x == rest[i].x && pos[i].y == rest[i].y && pos[i].z == rest[i].z,
            "the top row stays pinned to its reference");
    }
    check(moved > 0.01f, "the hem moved");
    check(ct_cloth_stats(cloth, &stats) == CT_STATUS_OK, "stats");
    check(stats.steps == (uint64_t)stats.timestep_hz, "step count");
    check(stats.resets == 0, "no resets");
    printf("smoke: %llu steps at %.0f Hz, hem moved up to %.3f m, %u contacts\n",
           (unsigned long long)stats.steps, stats.timestep_hz, moved, stats.contacts);
  }
  ct_cloth_free(cloth);
  if (failures != 0) {
    return 1;
  }
  printf("smoke: ok\n");
  return 0;
}
