/* fuzz_contract.c: env/<stage>.contract text (rp_contract_parse), then the
 * child environment built from what parsed (rp_contract_child_env). */
#include "fuzz.h"

#include "cm_error.h"
#include "rp_contract.h"

static int terminated_list(char (*v)[RP_CONTRACT_STR], int n) {
  int i;
  for (i = 0; i < n; i++)
    if (!fuzz_terminated(v[i], RP_CONTRACT_STR))
      return 0;
  return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static char *const parent[] = {"PATH=/usr/bin", "NSYS_CONFIG=x",
                                 "CUDA_PORTFOLIO_ALLOC=pool", "HOME=/root",
                                 NULL};
  static const char *const extra[] = {"REPRO_STAGE=fuzz", NULL};
  char *text = fuzz_strdup(data, size);
  rp_contract *c;
  char err[512];
  int rc;
  if (text == NULL)
    return 0;
  c = calloc(1, sizeof *c);
  if (c == NULL) {
    free(text);
    return 0;
  }
  err[0] = '\0';
  rc = rp_contract_parse(text, "env/fuzz.contract", c, err, sizeof err);
  FUZZ_CHECK(fuzz_terminated(err, sizeof err));
  if (rc != CM_OK) {
    FUZZ_CHECK(err[0] != '\0'); /* every refusal says why */
  } else {
    char **env = NULL;
    size_t n = 0;
    FUZZ_CHECK(c->nset >= 0 && c->nset <= RP_CONTRACT_MAX);
    FUZZ_CHECK(c->nunset >= 0 && c->nunset <= RP_CONTRACT_MAX);
    FUZZ_CHECK(c->nforbid >= 0 && c->nforbid <= RP_CONTRACT_MAX);
    FUZZ_CHECK(c->ntools >= 0 && c->ntools <= RP_CONTRACT_MAX);
    FUZZ_CHECK(terminated_list(c->set, c->nset));
    FUZZ_CHECK(terminated_list(c->unset, c->nunset));
    FUZZ_CHECK(terminated_list(c->forbid, c->nforbid));
    FUZZ_CHECK(c->timeout_s > 0);
    if (rp_contract_child_env(c, parent, extra, &env) == CM_OK) {
      int i;
      for (n = 0; env[n] != NULL; n++)
        FUZZ_CHECK(strchr(env[n], '=') != NULL);
      /* what the contract sets is there, and extra wins over it */
      for (i = 0; i < c->nset; i++) {
        size_t k;
        int found = 0;
        for (k = 0; k < n && !found; k++)
          found = strcmp(env[k], c->set[i]) == 0;
        FUZZ_CHECK(found || strncmp(c->set[i], "REPRO_STAGE=", 12) == 0);
      }
      rp_env_free(env);
    }
    (void)rp_contract_forbidden(c, parent, err, sizeof err);
  }
  free(c);
  free(text);
  return 0;
}
