/* fuzz_cli.c: repro's command line (rp_cli_parse, then rp_cli_resolve and
 * rp_cli_select for what parsed), argv taken from the input's lines (at
 * most 64; argv[0] is "repro"). A refusal always says why; what parsed is
 * NUL-terminated, and a selection holds known stages only. */
#include "fuzz.h"

#include "cm_error.h"
#include "rp_cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_strdup(data, size), *p;
  char *argv[65];
  int argc = 1;
  rp_cli *cli;
  char err[512];
  if (text == NULL)
    return 0;
  cli = calloc(1, sizeof *cli);
  if (cli == NULL) {
    free(text);
    return 0;
  }
  argv[0] = "repro";
  for (p = text; argc < 65 && p != NULL;) {
    char *nl = strchr(p, '\n');
    if (nl != NULL)
      *nl++ = '\0';
    argv[argc++] = p;
    p = nl;
  }
  err[0] = '\0';
  if (rp_cli_parse(argc, argv, cli, err, sizeof err) != CM_OK) {
    FUZZ_CHECK(err[0] != '\0');
  } else {
    const rp_stage_desc *sel[16];
    FUZZ_CHECK(fuzz_terminated(cli->command, sizeof cli->command));
    FUZZ_CHECK(fuzz_terminated(cli->arg, sizeof cli->arg));
    FUZZ_CHECK(fuzz_terminated(cli->only, sizeof cli->only));
    FUZZ_CHECK(fuzz_terminated(cli->skip, sizeof cli->skip));
    err[0] = '\0';
    if (rp_cli_resolve(cli, "/opt/cp/build/linux/bin/repro", NULL, err,
                       sizeof err) != CM_OK)
      FUZZ_CHECK(err[0] != '\0');
    err[0] = '\0';
    if (rp_cli_is_run_command(cli->command)) {
      if (rp_cli_select(cli, sel, 16, err, sizeof err) == CM_OK) {
        size_t i;
        for (i = 0; i < 16 && sel[i] != NULL; i++)
          FUZZ_CHECK(sel[i]->name != NULL && sel[i]->name[0] != '\0');
        FUZZ_CHECK(i < 16);
      } else {
        FUZZ_CHECK(err[0] != '\0');
      }
    }
  }
  free(cli);
  free(text);
  return 0;
}
