/* repro's command line: options, root resolution, stage selection. */
#include "rp_cli.h"
#include "cm_error.h"
#include "cm_str.h"
#include "cm_utf8.h"
#include "rp_exit.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <uv.h>

static const char *const rp__run_commands[] = {
    "build", "test", "sanitize", "inspect", "profile",
    "time",  "all",  "selftest", NULL};
static const char *const rp__other_commands[] = {"doctor", "verify", "report",
                                                 "compare", NULL};

int rp_cli_is_run_command(const char *command) {
  int i;
  for (i = 0; rp__run_commands[i] != NULL; i++)
    if (strcmp(rp__run_commands[i], command) == 0)
      return 1;
  return 0;
}

static int rp__is_command(const char *s) {
  int i;
  if (rp_cli_is_run_command(s))
    return 1;
  for (i = 0; rp__other_commands[i] != NULL; i++)
    if (strcmp(rp__other_commands[i], s) == 0)
      return 1;
  return 0;
}

/* --select's words narrow what the time and profile stages run; a word
 * that changes what cuda_portfolio does or writes there (its mode, its
 * output file or format, or an option repro has its own word for) would
 * leave those stages with the wrong results, or none. */
static int rp__select_words(const char *v, char *err, size_t size) {
  static const char *const modes[] = {"--help",
                                      "-h",
                                      "--list",
                                      "--test-only",
                                      "--smoke",
                                      "--bench",
                                      "--negative-control",
                                      "--verify-control",
                                      "--check-args",
                                      "--profile-range",
                                      "--json",
                                      "--format",
                                      "--dump",
                                      NULL};
  static const char *const own[] = {"--gpu", "--lock-clocks", NULL};
  /* the allocator is the stages' contracts' (time.contract unsets
   * CUDA_PORTFOLIO_ALLOC): --alloc there would file other timings as the
   * time stage's clean ones */
  static const char *const contract[] = {"--alloc", NULL};
  /* one word past the limit is enough to say it is past */
  char buf[1024], *words[RP_SELECT_MAX_WORDS + 1];
  int nw, k;
  if (cm_strlcpy(buf, v, sizeof buf) != CM_OK)
    return CM_OK; /* too long: the length check names it */
  nw = cm_split(buf, " ", words, RP_SELECT_MAX_WORDS + 1);
  for (k = 0; k < nw && k <= RP_SELECT_MAX_WORDS; k++) {
    const char *w = words[k];
    char name[32];
    const char *eq = NULL;
    /* the word's name alone: "--alloc=exact" is --alloc */
    if (cm_opt_split(w, name, sizeof name, &eq))
      name[0] = '\0';
    if (k + 1 > RP_SELECT_MAX_WORDS) {
      cm_snprintf(err, size,
                  "--select \"%s\": more than %d words; narrow it (each "
                  "stage passes at most %d on)",
                  v, RP_SELECT_MAX_WORDS, RP_SELECT_MAX_WORDS);
      return CM_EINVAL;
    }
    if (cm_str_among(w, modes) || cm_str_among(name, modes)) {
      cm_snprintf(err, size,
                  "--select \"%s\": %s is not a selection word: the time "
                  "and profile stages choose cuda_portfolio's mode and "
                  "results file themselves; give --op, --variant, --dtype, "
                  "--shape, --mask or timing options",
                  v, w);
      return CM_EINVAL;
    }
    if (cm_str_among(w, own) || cm_str_among(name, own)) {
      cm_snprintf(err, size,
                  "--select \"%s\": give %s to repro itself (repro %s ...), "
                  "which records it and passes it on",
                  v, name[0] ? name : w, name[0] ? name : w);
      return CM_EINVAL;
    }
    if (cm_str_among(w, contract) || cm_str_among(name, contract)) {
      cm_snprintf(err, size,
                  "--select \"%s\": %s is not a selection word: the stages' "
                  "contracts choose the allocator (time.contract unsets "
                  "CUDA_PORTFOLIO_ALLOC, so the time stage's results are the "
                  "pooled allocator's); leave it out of --select",
                  v, name[0] ? name : w);
      return CM_EINVAL;
    }
  }
  return CM_OK;
}

/* Every option of repro's, in the order of rp_cli.given's bits. */
static const char *const rp__options[] = {
    "--only",     "--skip",      "--gpu",         "--preset",      "--root",
    "--out",      "--build-dir", "--strict",      "--keep-going",  "--verbose",
    "--prebuilt", "--select",    "--profile-set", "--lock-clocks", NULL};

/* Marks option name (a known one) as given. */
static void rp__mark_given(rp_cli *cli, const char *name) {
  int i;
  for (i = 0; rp__options[i] != NULL; i++)
    if (strcmp(rp__options[i], name) == 0)
      cli->given |= 1u << i;
}

const char *rp_cli_misplaced(const char *command, const char *name) {
  /* the launchers' words: ./repro passes the user's --prebuilt and
   * --preset on, repro.ps1 adds --preset windows-msvc; they choose a build
   * folder, which these commands do not use, so they are let be */
  static const char *const launcher[] = {"--prebuilt", "--preset",
                                         "--build-dir", "--root", NULL};
  /* doctor prints each stage's checks: it reads the stages it is narrowed
   * to, the build folder and --lock-clocks (the time stage's check) */
  static const char *const doctor[] = {"--only", "--skip", "--lock-clocks",
                                       NULL};
  if (strcmp(command, "verify") != 0 && strcmp(command, "doctor") != 0 &&
      strcmp(command, "report") != 0 && strcmp(command, "compare") != 0)
    return NULL;
  if (cm_str_among(name, launcher))
    return NULL;
  /* report's runs are under --out; verify and compare are given their
   * paths, and the test fixture's and a script's --root --out are let be */
  if (strcmp(name, "--out") == 0 && strcmp(command, "doctor") != 0)
    return NULL;
  if (strcmp(command, "doctor") == 0 && cm_str_among(name, doctor))
    return NULL;
  if (strcmp(command, "doctor") == 0)
    return "the options doctor takes are --only, --skip, --lock-clocks and "
           "--root (and the launchers' --prebuilt, --preset, --build-dir)";
  return "the options repro takes for it are --root and --out (and the "
         "launchers' --prebuilt, --preset, --build-dir, which it ignores)";
}

int rp_cli_check_applies(const rp_cli *cli, char *err, size_t size) {
  int i;
  for (i = 0; rp__options[i] != NULL; i++) {
    const char *why;
    if (!(cli->given & (1u << i)))
      continue;
    why = rp_cli_misplaced(cli->command, rp__options[i]);
    if (why != NULL) {
      cm_snprintf(err, size,
                  "%s does not apply to %s: %s; leave it out (it would be "
                  "ignored)",
                  rp__options[i], cli->command, why);
      return CM_EINVAL;
    }
  }
  return CM_OK;
}

int rp_cli_takes_value(const char *name) {
  static const char *const names[] = {
      "--only", "--skip",        "--preset", "--root",
      "--out",  "--build-dir",   "--select", "--lock-clocks",
      "--gpu",  "--profile-set", NULL};
  return cm_str_among(name, names);
}

/* Options that take a value: the value is the next argument. Returns CM_OK,
 * CM_EINVAL for a bad value, or CM_ENOENT for a name that is no option (err
 * says which; nothing is set then). */
static int rp__value_opt(const char *name, rp_cli *cli, const char *v,
                         char *err, size_t size) {
  struct {
    const char *name;
    char *dst;
    size_t n;
  } strs[] = {
      {"--only", cli->only, sizeof cli->only},
      {"--skip", cli->skip, sizeof cli->skip},
      {"--preset", cli->opt.preset, sizeof cli->opt.preset},
      {"--root", cli->root, sizeof cli->root},
      {"--out", cli->out, sizeof cli->out},
      {"--build-dir", cli->build_dir, sizeof cli->build_dir},
      {"--select", cli->opt.select, sizeof cli->opt.select},
      {"--lock-clocks", cli->opt.lock_clocks, sizeof cli->opt.lock_clocks}};
  size_t i;
  if (strcmp(name, "--profile-set") == 0) {
    if (strcmp(v, "smoke") != 0 && strcmp(v, "bench") != 0) {
      cm_snprintf(err, size,
                  "--profile-set needs smoke (small shapes, every variant) "
                  "or bench (the standard benchmark shapes), not '%s'",
                  v);
      return CM_EINVAL;
    }
    cli->opt.profile_bench = strcmp(v, "bench") == 0;
    return CM_OK;
  }
  if (strcmp(name, "--lock-clocks") == 0) {
    unsigned sm, mem;
    if (rp_lock_spec_parse(v, &sm, &mem) != CM_OK) {
      cm_snprintf(err, size,
                  "--lock-clocks needs SM_MHZ or SM_MHZ:MEM_MHZ, clocks the "
                  "GPU supports (nvidia-smi -q -d SUPPORTED_CLOCKS), not '%s'",
                  v);
      return CM_EINVAL;
    }
  }
  if (strcmp(name, "--gpu") == 0) {
    int64_t g;
    if (cm_parse_i64(v, &g) != CM_OK || g < 0 || g > 1024) {
      cm_snprintf(err, size, "--gpu needs a device index, not '%s'", v);
      return CM_EINVAL;
    }
    cli->opt.gpu = (int)g;
    return CM_OK;
  }
  if (strcmp(name, "--select") == 0 && rp__select_words(v, err, size) != CM_OK)
    return CM_EINVAL;
  for (i = 0; i < sizeof strs / sizeof strs[0]; i++) {
    ptrdiff_t at;
    if (strcmp(name, strs[i].name) != 0)
      continue;
    if (*v == '\0' || cm_strlcpy(strs[i].dst, v, strs[i].n) != CM_OK) {
      cm_snprintf(err, size, "%s: empty or too long", name);
      return CM_EINVAL;
    }
    /* repro prints these, writes them into logs and hands them to the
     * stages' tools: an ESC or a line break in one would reach a terminal
     * or cut a log's line */
    if ((at = cm_text_control_at(v)) >= 0) {
      cm_snprintf(err, size,
                  "%s: the value holds a control character (byte 0x%02X at "
                  "offset %d): give one without",
                  name, (unsigned)(unsigned char)v[at], (int)at);
      return CM_EINVAL;
    }
    return CM_OK;
  }
  cm_snprintf(err, size, "unknown option %s (see --help)", name);
  return CM_ENOENT;
}

int rp_cli_parse(int argc, char **argv, rp_cli *cli, char *err, size_t size) {
  static const char *const flags[] = {"--strict", "--keep-going", "--verbose",
                                      "--prebuilt", NULL};
  int i, k, r;
  memset(cli, 0, sizeof *cli);
  cli->opt.gpu = -1;
  cm_strlcpy(cli->opt.preset, "linux", sizeof cli->opt.preset);
  for (i = 1; i < argc; i++) {
    const char *a = argv[i];
    int *dst[4];
    dst[0] = &cli->opt.strict;
    dst[1] = &cli->opt.keep_going;
    dst[2] = &cli->opt.verbose;
    dst[3] = &cli->opt.prebuilt;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      cli->help = 1;
      continue;
    }
    for (k = 0; flags[k] != NULL; k++)
      if (strcmp(a, flags[k]) == 0)
        break;
    if (flags[k] != NULL) {
      *dst[k] = 1;
      rp__mark_given(cli, a);
      continue;
    }
    if (a[0] == '-' && a[1] == '-') {
      char name[32];
      const char *v;
      (void)cm_opt_split(a, name, sizeof name, &v);
      if (v != NULL &&
          (cm_str_among(name, flags) || strcmp(name, "--help") == 0)) {
        /* named as a flag given a value, as report's and compare's are */
        cm_snprintf(err, size, "%s takes no value ('%s')", name, a);
        return CM_EINVAL;
      }
      if (v == NULL) {
        if (i + 1 >= argc) {
          /* last: an unknown name is named as such (rp__value_opt set
           * nothing for it, and "" is refused by every known one) */
          if (rp__value_opt(name, cli, "", err, size) != CM_ENOENT)
            cm_snprintf(err, size, "%s needs a value", a);
          return CM_EINVAL;
        }
        v = argv[++i];
      }
      r = rp__value_opt(name, cli, v, err, size);
      if (r != CM_OK)
        return CM_EINVAL;
      rp__mark_given(cli, name);
      continue;
    }
    if (a[0] == '-') {
      cm_snprintf(err, size, "unknown option %s (see --help)", a);
      return CM_EINVAL;
    }
    if (cli->command[0] == '\0') {
      if (!rp__is_command(a)) {
        cm_snprintf(err, size, "unknown command '%s' (see --help)", a);
        return CM_EINVAL;
      }
      cm_strlcpy(cli->command, a, sizeof cli->command);
      continue;
    }
    if (strcmp(cli->command, "verify") == 0 && cli->arg[0] == '\0') {
      if (cm_strlcpy(cli->arg, a, sizeof cli->arg) != CM_OK) {
        cm_snprintf(err, size, "path too long");
        return CM_EINVAL;
      }
      continue;
    }
    cm_snprintf(err, size, "unexpected argument '%s'", a);
    return CM_EINVAL;
  }
  if (cli->help)
    return CM_OK;
  if (cli->command[0] == '\0') {
    cm_snprintf(err, size, "no command given (see --help)");
    return CM_EINVAL;
  }
  if (strcmp(cli->command, "verify") == 0 && cli->arg[0] == '\0') {
    cm_snprintf(err, size, "verify needs a run folder or a bundle");
    return CM_EINVAL;
  }
  return CM_OK;
}

/* Removes the last path component of p in place (trailing '/' ignored). */
static void rp__dirname(char *p) {
  size_t n = strlen(p);
  while (n > 1 && (p[n - 1] == '/' || p[n - 1] == '\\'))
    p[--n] = '\0';
  while (n > 0 && p[n - 1] != '/' && p[n - 1] != '\\')
    n--;
  while (n > 1 && (p[n - 1] == '/' || p[n - 1] == '\\'))
    n--;
  p[n] = '\0';
}

/* 1 if path is absolute: /x, and on Windows also C:\x, C:/x, \\server. */
static int rp__is_absolute(const char *p) {
  if (p[0] == '/' || p[0] == '\\')
    return 1;
#ifdef _WIN32
  if (((p[0] >= 'A' && p[0] <= 'Z') || (p[0] >= 'a' && p[0] <= 'z')) &&
      p[1] == ':' && (p[2] == '\\' || p[2] == '/'))
    return 1;
#endif
  return 0;
}

/* path made absolute against the working folder: the stages' children run
 * in the root, so a relative --root, --out or --build-dir (or
 * $REPRO_ROOT) would name another place to them than to repro. */
static int rp__absolute(char *path, size_t size) {
  char cwd[1024], tmp[2100];
  size_t n = sizeof cwd;
  if (path[0] == '\0' || rp__is_absolute(path))
    return CM_OK;
  if (uv_cwd(cwd, &n) != 0)
    return CM_EIO;
  while (path[0] == '.' && (path[1] == '/' || path[1] == '\\'))
    memmove(path, path + 2, strlen(path + 2) + 1);
  if (strcmp(path, ".") == 0)
    path[0] = '\0';
  if (cm_snprintf(tmp, sizeof tmp, path[0] != '\0' ? "%s/%s" : "%s%s", cwd,
                  path) != CM_OK)
    return CM_ERANGE;
  return cm_strlcpy(path, tmp, size);
}

int rp_cli_resolve(rp_cli *cli, const char *exe, const char *env_root,
                   char *err, size_t size) {
  rp_options *o = &cli->opt;
  int r = CM_OK, i;
  if (cli->root[0] != '\0')
    r = cm_strlcpy(o->root, cli->root, sizeof o->root);
  else if (env_root != NULL && *env_root != '\0')
    r = cm_strlcpy(o->root, env_root, sizeof o->root);
  else if (exe != NULL && *exe != '\0') {
    r = cm_strlcpy(o->root, exe, sizeof o->root);
    for (i = 0; i < 4; i++) /* bin/repro -> bin -> <preset> -> build */
      rp__dirname(o->root);
  } else {
    cm_snprintf(err, size, "cannot find the repository root: use --root");
    return CM_EINVAL;
  }
  if (r == CM_OK)
    r = cli->out[0] != '\0'
            ? cm_strlcpy(o->out_parent, cli->out, sizeof o->out_parent)
            : cm_snprintf(o->out_parent, sizeof o->out_parent, "%s/logs",
                          o->root);
  if (r == CM_OK)
    r = cli->build_dir[0] != '\0'
            ? cm_strlcpy(o->build_dir, cli->build_dir, sizeof o->build_dir)
            : cm_snprintf(o->build_dir, sizeof o->build_dir, "%s/build/%s",
                          o->root, o->preset);
  if (r == CM_OK)
    r = rp__absolute(o->root, sizeof o->root);
  if (r == CM_OK)
    r = rp__absolute(o->out_parent, sizeof o->out_parent);
  if (r == CM_OK)
    r = rp__absolute(o->build_dir, sizeof o->build_dir);
  if (r != CM_OK)
    cm_snprintf(err, size, "path too long");
  return r;
}

/* 1 if name is in the comma-separated list. */
static int rp__in_list(const char *list, const char *name) {
  size_t n = strlen(name);
  const char *p = list;
  while (*p != '\0') {
    const char *c = strchr(p, ',');
    size_t len = c != NULL ? (size_t)(c - p) : strlen(p);
    if (len == n && strncmp(p, name, n) == 0)
      return 1;
    p = c != NULL ? c + 1 : p + len;
  }
  return 0;
}

/* Every name in list must be a stage. */
static int rp__check_list(const char *opt, const char *list, char *err,
                          size_t size) {
  char item[64];
  const char *p = list;
  while (*p != '\0') {
    const char *c = strchr(p, ',');
    size_t len = c != NULL ? (size_t)(c - p) : strlen(p);
    if (len >= sizeof item)
      len = sizeof item - 1;
    memcpy(item, p, len);
    item[len] = '\0';
    if (rp_stage_find(item) == NULL) {
      char names[128] = "";
      size_t l = 0;
      int i;
      /* the names it takes: the six of `all`, then selftest */
      for (i = 0; rp_all_stages[i] != NULL && l < sizeof names; i++) {
        cm_snprintf(names + l, sizeof names - l, "%s, ",
                    rp_all_stages[i]->name);
        l = strlen(names);
      }
      cm_snprintf(names + l, sizeof names - l, "%s", rp_stage_selftest.name);
      cm_snprintf(err, size,
                  "%s: unknown stage '%s' (the stages: %s; comma-separated, "
                  "as --only test,time)",
                  opt, item, names);
      return CM_EINVAL;
    }
    p = c != NULL ? c + 1 : p + len;
  }
  return CM_OK;
}

int rp_cli_select(const rp_cli *cli, const rp_stage_desc **out, size_t max,
                  char *err, size_t size) {
  size_t n = 0;
  int i;
  if (rp__check_list("--only", cli->only, err, size) != CM_OK ||
      rp__check_list("--skip", cli->skip, err, size) != CM_OK)
    return CM_EINVAL;
  if (strcmp(cli->command, "all") == 0 || strcmp(cli->command, "doctor") == 0) {
    /* doctor: selftest's checks first, then every stage of `all` */
    if (strcmp(cli->command, "doctor") == 0 && n + 1 < max &&
        !rp__in_list(cli->skip, rp_stage_selftest.name) &&
        (cli->only[0] == '\0' ||
         rp__in_list(cli->only, rp_stage_selftest.name)))
      out[n++] = &rp_stage_selftest;
    for (i = 0; rp_all_stages[i] != NULL && n + 1 < max; i++) {
      const char *nm = rp_all_stages[i]->name;
      if (cli->only[0] != '\0' && !rp__in_list(cli->only, nm))
        continue;
      if (rp__in_list(cli->skip, nm))
        continue;
      out[n++] = rp_all_stages[i];
    }
  } else {
    const rp_stage_desc *d = rp_stage_find(cli->command);
    if (d != NULL && !rp__in_list(cli->skip, d->name) &&
        (cli->only[0] == '\0' || rp__in_list(cli->only, d->name)) && max > 1)
      out[n++] = d;
  }
  out[n] = NULL;
  if (n == 0) {
    cm_snprintf(err, size, "no stage selected (check --only/--skip)");
    return CM_EINVAL;
  }
  return CM_OK;
}

void rp_cli_usage(FILE *f) {
  int i;
  fprintf(f,
          "usage: repro [options] COMMAND [ARG]\n\n"
          "commands:\n"
          "  build test sanitize inspect profile time   run one stage\n"
          "  all          the six stages in that order, then the archive\n"
          "  selftest     configure + build + ctest (linux, then "
          "windows-mingw)\n"
          "  doctor       print every stage's checks (--only/--skip\n"
          "               narrow it); changes nothing\n"
          "  verify RUN|BUNDLE   re-check a run folder or .tar.gz bundle\n"
          "  report [RUN]        report.md + report.html (+ --junit, --sarif)\n"
          "                      into a run, bound to its manifest (RUN: the\n"
          "                      newest under <root>/logs; --no-finish: not\n"
          "                      verified or bound)\n"
          "  compare BASE NEW    per-case timing comparison of two runs\n"
          "                      (exit 1 on a regression; --help there)\n\n"
          "stages:\n");
  for (i = 0; rp_all_stages[i] != NULL; i++)
    fprintf(f, "  %-9s %s\n", rp_all_stages[i]->name,
            rp_all_stages[i]->summary);
  fprintf(
      f,
      "\noptions:\n"
      "  --only LIST      run only these stages (comma-separated)\n"
      "  --skip LIST      leave these stages out\n"
      "  --gpu N          device index passed to cuda_portfolio\n"
      "  --preset NAME    CMake preset (default linux)\n"
      "  --root DIR       repository root (default: $REPRO_ROOT, else "
      "from the executable's path)\n"
      "  --out DIR        put run folders in DIR (default "
      "<root>/logs)\n"
      "  --build-dir DIR  build folder (default <root>/build/<preset>)\n"
      "  --strict         a limited stage fails the run\n"
      "  --keep-going     run the remaining stages after a failure\n"
      "  --verbose        show the children's output, not a progress "
      "line\n"
      "  --prebuilt       build stage: use the build folder as it is\n"
      "  --select \"ARGS\" cuda_portfolio selection for time and profile\n"
      "                   (e.g. \"--op softmax --dtype bf16\"; default: all)\n"
      "  --profile-set smoke|bench  what the profile stage profiles: the\n"
      "                   smoke set (default) or the benchmark shapes\n"
      "  --lock-clocks SM_MHZ[:MEM_MHZ]  time stage: lock the GPU's clocks\n"
      "                   for the run (root; reset after; recorded)\n"
      "  -h, --help       this text\n\n"
      "exit codes:\n");
#define XX(name, code, msg) fprintf(f, "  %3d  %s\n", code, msg);
  RP_EXIT_MAP(XX)
#undef XX
}
