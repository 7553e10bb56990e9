/* The stage table: `all` runs these in this order. */
#include "rp_stage.h"

#include <string.h>

const rp_stage_desc *const rp_all_stages[] = {&rp_stage_build,
                                              &rp_stage_test,
                                              &rp_stage_sanitize,
                                              &rp_stage_inspect,
                                              &rp_stage_profile,
                                              &rp_stage_time,
                                              NULL};

const rp_stage_desc *rp_stage_find(const char *name) {
  int i;
  for (i = 0; rp_all_stages[i] != NULL; i++)
    if (strcmp(rp_all_stages[i]->name, name) == 0)
      return rp_all_stages[i];
  if (strcmp(name, rp_stage_selftest.name) == 0)
    return &rp_stage_selftest;
  return NULL;
}
