/* rp_doctor.h: `repro doctor`: every stage's checks, printed, nothing
 * changed. */
#ifndef RP_DOCTOR_H
#define RP_DOCTOR_H

#include "rp_stage.h"

#include <stdio.h>

/* Prints, for selftest and every stage of `all`, the contract and every
 * preflight check as "  PASS|WARN|FAIL  name: detail", then the verdict the
 * stage would get ("would run", "would be skipped: ...", ...). Uses only
 * ctx->opt.root/env_dir, ctx->opt.build_dir and ctx->probe. Returns the
 * number of failed checks (doctor's exit code is 0 regardless: it reports,
 * it does not judge). */
int rp_doctor(rp_ctx *ctx, FILE *out);

#endif
