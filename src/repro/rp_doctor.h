/* rp_doctor.h: `repro doctor`: every stage's checks, printed, nothing
 * changed. */
#ifndef RP_DOCTOR_H
#define RP_DOCTOR_H

#include "platform.h"
#include "rp_stage.h"

#include <stdio.h>

/* Prints, for selftest and every stage of `all`, the contract and every
 * preflight check as "  PASS|WARN|FAIL  name: detail", then the verdict the
 * stage would get ("would run", "would be skipped: ...", ...), with the
 * notes of the OS it runs on (rp_doctor_os_notes). Uses only
 * ctx->opt.root/env_dir, ctx->opt.build_dir and ctx->probe. Returns the
 * number of failed checks (doctor's exit code is 0 regardless: it reports,
 * it does not judge). Same as rp_doctor_for(ctx, plat_os_detect(), out). */
int rp_doctor(rp_ctx *ctx, FILE *out);

/* As rp_doctor, for the given OS: the OS decides the wording of the notes,
 * of the effective-user line and of the device check (tests inject it). The
 * checks themselves still probe this machine. */
int rp_doctor_for(rp_ctx *ctx, plat_os os, FILE *out);

/* As rp_doctor_for, for the NULL-terminated stages only (what --only and
 * --skip left: rp_cli_select with the command "doctor"); NULL: selftest and
 * every stage of `all`. */
int rp_doctor_stages(rp_ctx *ctx, plat_os os,
                     const rp_stage_desc *const *stages, FILE *out);

/* Prints what the user must know on os before reading the checks, as lines
 * starting "  NOTE  ". WSL: counter permission is the Windows driver's
 * (sudo inside WSL does not help), compute-sanitizer may be missing, and
 * `.\repro.ps1 sanitize` runs the sanitizer on the Windows side. Windows:
 * where counter permission is set. Linux and other: nothing. Returns the
 * number of lines printed. */
int rp_doctor_os_notes(plat_os os, FILE *out);

/* The text doctor prints for a check: detail as is, except where it is
 * written for another OS. On Windows a "device" check that found no GPU
 * describes the lookup Windows makes (nvidia-smi -L), never Linux's /proc
 * listing. Returns detail or a static string; never NULL. */
const char *rp_doctor_check_text(plat_os os, const char *name,
                                 const char *detail);

#endif
