/* rp_ncu_parse.c: see rp_ncu_parse.h. */
#include "rp_ncu_parse.h"

#include "cm_error.h"
#include "cm_file.h"
#include "cm_str.h"
#include "cm_utf8.h"
#include "rp_tools_text.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FIELDS 2048
#define FIELD_MAX 512

/* One CSV record: fields point into a private buffer. */
typedef struct {
  char *buf;
  size_t cap;
  const char *f[MAX_FIELDS];
  size_t n;
} csv_rec;

/* Reads one record at text[*pos..len) (RFC 4180 quoting; a quoted field may
 * span lines). Returns 1 if a record was read. Fields beyond MAX_FIELDS are
 * dropped; each field is cut to FIELD_MAX bytes. */
static int csv_next(const char *text, size_t len, size_t *pos, csv_rec *r) {
  size_t p = *pos, o = 0;
  int quoted = 0, any = 0, ended = 0;
  size_t start;
  if (p >= len)
    return 0;
  r->n = 0;
  if (r->cap < len - p + 2) {
    char *nb = realloc(r->buf, len - p + 2);
    if (nb == NULL)
      return 0;
    r->buf = nb;
    r->cap = len - p + 2;
  }
  start = 0;
  while (p < len) {
    char c = text[p++];
    any = 1;
    if (quoted) {
      if (c == '"') {
        if (p < len && text[p] == '"') {
          r->buf[o++] = '"';
          p++;
        } else {
          quoted = 0;
        }
      } else {
        r->buf[o++] = c;
      }
      continue;
    }
    if (c == '"') {
      quoted = 1;
    } else if (c == ',' || c == '\n') {
      if (o > 0 && r->buf[o - 1] == '\r' && c == '\n')
        o--;
      r->buf[o++] = '\0';
      if (o - 1 - start > FIELD_MAX)
        r->buf[start + FIELD_MAX] = '\0';
      if (r->n < MAX_FIELDS)
        r->f[r->n++] = r->buf + start;
      start = o;
      if (c == '\n') {
        ended = 1;
        break;
      }
    } else {
      r->buf[o++] = c;
    }
  }
  if (!ended && any) { /* the last line had no newline */
    r->buf[o++] = '\0';
    if (r->n < MAX_FIELDS)
      r->f[r->n++] = r->buf + start;
  }
  *pos = p;
  return any;
}

static int ieq(const char *a, const char *b) {
  for (; *a && *b; a++, b++) {
    char x = *a, y = *b;
    if (x >= 'A' && x <= 'Z')
      x = (char)(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z')
      y = (char)(y - 'A' + 'a');
    if (x != y)
      return 0;
  }
  return *a == *b;
}

static int icontains(const char *h, const char *n) {
  size_t k = strlen(n);
  for (; *h; h++) {
    size_t i;
    for (i = 0; i < k; i++) {
      char x = h[i], y = n[i];
      if (x == '\0')
        return 0;
      if (x >= 'A' && x <= 'Z')
        x = (char)(x - 'A' + 'a');
      if (y >= 'A' && y <= 'Z')
        y = (char)(y - 'A' + 'a');
      if (x != y)
        break;
    }
    if (i == k)
      return 1;
  }
  return 0;
}

/* "1,234.5" -> 1234.5; "n/a", "" or garbage -> NaN. */
static double num(const char *s) {
  char buf[64];
  size_t o = 0;
  double v;
  s = rp__skip_ws(s);
  for (; *s && o + 1 < sizeof buf; s++)
    if (*s != ',' && *s != ' ')
      buf[o++] = *s;
  buf[o] = '\0';
  if (o == 0 || cm_parse_double(buf, &v) != CM_OK)
    return NAN;
  return v;
}

/* Multiplier to nanoseconds for a time unit; 1 when unknown or empty (ncu's
 * raw page reports gpu__time_duration in nanoseconds by default). */
static double to_ns(const char *unit) {
  if (unit == NULL || *unit == '\0')
    return 1.0;
  if (ieq(unit, "usecond") || ieq(unit, "us"))
    return 1e3;
  if (ieq(unit, "msecond") || ieq(unit, "ms"))
    return 1e6;
  if (ieq(unit, "second") || ieq(unit, "s"))
    return 1e9;
  return 1.0;
}

typedef enum {
  M_NONE = 0,
  M_DURATION,
  M_DRAM,
  M_OCC,
  M_REGS,
  M_LOCAL_LD,
  M_LOCAL_ST
} metric_kind;

/* Which reported metric a column (raw: metric id; details: display name)
 * is. */
static metric_kind classify(const char *name) {
  /* Each metric under ncu's id, its details-page name, and the column name
   * of rp_ncu_table_csv (so the stage's own CSV reads back). */
  if (ieq(name, "gpu__time_duration.sum") || ieq(name, "Duration") ||
      ieq(name, "duration_ns"))
    return M_DURATION;
  /* ncu 2025.3 on sm_90 names the Speed Of Light row's metric
   * gpu__dram_throughput; dram__throughput is the older and the generic
   * name (the H200 capture had no column for it). */
  if (ieq(name, "dram__throughput.avg.pct_of_peak_sustained_elapsed") ||
      ieq(name, "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed") ||
      ieq(name, "DRAM Throughput") || ieq(name, "dram_throughput_pct"))
    return M_DRAM;
  if (ieq(name, "sm__warps_active.avg.pct_of_peak_sustained_active") ||
      ieq(name, "Achieved Occupancy") || ieq(name, "achieved_occupancy_pct"))
    return M_OCC;
  if (ieq(name, "launch__registers_per_thread") ||
      ieq(name, "Registers Per Thread") || ieq(name, "registers_per_thread"))
    return M_REGS;
  if (icontains(name, "local") || icontains(name, "spill")) {
    if (icontains(name, "_ld") || icontains(name, "load"))
      return M_LOCAL_LD;
    if (icontains(name, "_st") || icontains(name, "store"))
      return M_LOCAL_ST;
  }
  return M_NONE;
}

static void set_metric(rp_ncu_row *r, metric_kind k, double v,
                       const char *unit) {
  switch (k) {
  case M_DURATION:
    r->duration_ns = v * to_ns(unit);
    break;
  case M_DRAM:
    r->dram_pct = v;
    break;
  case M_OCC:
    r->occupancy_pct = v;
    break;
  case M_REGS:
    r->registers = v;
    break;
  case M_LOCAL_LD:
    r->local_ld = isnan(r->local_ld) ? v : r->local_ld + v;
    break;
  case M_LOCAL_ST:
    r->local_st = isnan(r->local_st) ? v : r->local_st + v;
    break;
  default:
    break;
  }
}

static rp_ncu_row *row_for(rp_ncu_table *t, long id, int by_id) {
  rp_ncu_row *r;
  if (by_id && t->count > 0 && t->rows[t->count - 1].id == id)
    return &t->rows[t->count - 1];
  if (cm_grow(&t->rows, &t->cap, t->count, sizeof *t->rows, 16) != CM_OK)
    return NULL;
  r = &t->rows[t->count++];
  memset(r, 0, sizeof *r);
  r->id = id;
  r->duration_ns = r->dram_pct = r->occupancy_pct = NAN;
  r->registers = r->local_ld = r->local_st = NAN;
  return r;
}

static int is_nvtx_col(const char *h) {
  return icontains(h, "nvtx") || icontains(h, "push/pop") ||
         icontains(h, "start/end") || icontains(h, "range");
}

void rp_ncu_table_free(rp_ncu_table *t) {
  free(t->rows);
  memset(t, 0, sizeof *t);
}

int rp_ncu_parse_csv(const char *text, size_t len, rp_ncu_table *t) {
  csv_rec rec;
  size_t pos = 0, i, ncol = 0;
  char(*hdr)[FIELD_MAX + 1] = NULL;
  char(*units)[FIELD_MAX + 1] = NULL;
  metric_kind *kinds = NULL;
  int c_id = -1, c_kernel = -1, c_mname = -1, c_munit = -1, c_mval = -1;
  int err = CM_EPARSE, have_units = 0;
  memset(t, 0, sizeof *t);
  memset(&rec, 0, sizeof rec);
  /* The header: the first record whose first field is "ID". */
  while (csv_next(text, len, &pos, &rec)) {
    if (rec.n >= 2 && ieq(rec.f[0], "ID"))
      break;
    rec.n = 0;
  }
  if (rec.n < 2)
    goto done;
  ncol = rec.n;
  hdr = calloc(ncol, sizeof *hdr);
  units = calloc(ncol, sizeof *units);
  kinds = calloc(ncol, sizeof *kinds);
  if (hdr == NULL || units == NULL || kinds == NULL) {
    err = CM_ENOMEM;
    goto done;
  }
  for (i = 0; i < ncol; i++) {
    cm_strlcpy(hdr[i], rec.f[i], sizeof hdr[i]);
    kinds[i] = classify(hdr[i]);
    if (ieq(hdr[i], "ID") && c_id < 0)
      c_id = (int)i; /* the first: the one the header was found by */
    else if (ieq(hdr[i], "Kernel Name") || ieq(hdr[i], "kernel"))
      c_kernel = (int)i;
    else if (ieq(hdr[i], "Metric Name"))
      c_mname = (int)i;
    else if (ieq(hdr[i], "Metric Unit"))
      c_munit = (int)i;
    else if (ieq(hdr[i], "Metric Value"))
      c_mval = (int)i;
  }
  err = CM_OK;
  while (csv_next(text, len, &pos, &rec)) {
    long id;
    double idv;
    rp_ncu_row *r;
    int details = c_mname >= 0 && c_mval >= 0;
    if (rec.n < 2 || (size_t)c_id >= rec.n)
      continue;
    if (rec.f[c_id][0] == '\0') {
      /* raw page: the units row has an empty ID */
      if (!have_units)
        for (i = 0; i < rec.n && i < ncol; i++)
          cm_strlcpy(units[i], rec.f[i], sizeof units[i]);
      have_units = 1;
      continue;
    }
    idv = num(rec.f[c_id]);
    /* "==PROF==" or other chatter inside the export; ncu numbers its
     * launches 0, 1, 2..., so nothing else is a launch (and a value past
     * long's range must not reach the conversion: undefined behaviour) */
    if (!(idv >= 0 && idv < 1e15) || idv != floor(idv))
      continue;
    id = (long)idv;
    r = row_for(t, id, details);
    if (r == NULL) {
      err = CM_ENOMEM;
      goto done;
    }
    if (c_kernel >= 0 && (size_t)c_kernel < rec.n)
      cm_strlcpy(r->kernel, rec.f[c_kernel], sizeof r->kernel);
    for (i = 0; i < rec.n && i < ncol; i++)
      if (r->nvtx[0] == '\0' && is_nvtx_col(hdr[i]) && rec.f[i][0] != '\0')
        cm_strlcpy(r->nvtx, rec.f[i], sizeof r->nvtx);
    if (details) {
      const char *unit =
          (c_munit >= 0 && (size_t)c_munit < rec.n) ? rec.f[c_munit] : "";
      if ((size_t)c_mname < rec.n && (size_t)c_mval < rec.n)
        set_metric(r, classify(rec.f[c_mname]), num(rec.f[c_mval]), unit);
    } else {
      for (i = 0; i < rec.n && i < ncol; i++)
        if (kinds[i] != M_NONE)
          set_metric(r, kinds[i], num(rec.f[i]), units[i]);
    }
  }
done:
  free(rec.buf);
  free(hdr);
  free(units);
  free(kinds);
  if (err != CM_OK)
    rp_ncu_table_free(t);
  return err;
}

static json_t *real_or_null(double v) {
  return isnan(v) ? json_null() : json_real(v);
}

json_t *rp_ncu_table_json(const rp_ncu_table *t) {
  json_t *arr = json_array();
  size_t i;
  if (arr == NULL)
    return NULL;
  for (i = 0; i < t->count; i++) {
    const rp_ncu_row *r = &t->rows[i];
    json_t *o = json_object();
    /* each field, or none of the table: a row short of a field (an
     * allocation refused) is not written as if the tool had left it out */
    if (o == NULL ||
        json_object_set_new(o, "id",
                            r->id < 0 ? json_null()
                                      : json_integer((json_int_t)r->id)) != 0 ||
        json_object_set_new(o, "kernel", cm_json_text(r->kernel)) != 0 ||
        (r->nvtx[0] &&
         json_object_set_new(o, "nvtx", cm_json_text(r->nvtx)) != 0) ||
        json_object_set_new(o, "duration_ns", real_or_null(r->duration_ns)) !=
            0 ||
        json_object_set_new(o, "dram_throughput_pct",
                            real_or_null(r->dram_pct)) != 0 ||
        json_object_set_new(o, "achieved_occupancy_pct",
                            real_or_null(r->occupancy_pct)) != 0 ||
        json_object_set_new(o, "registers_per_thread",
                            real_or_null(r->registers)) != 0 ||
        json_object_set_new(o, "local_load", real_or_null(r->local_ld)) != 0 ||
        json_object_set_new(o, "local_store", real_or_null(r->local_st)) != 0) {
      json_decref(o);
      json_decref(arr);
      return NULL;
    }
    if (json_array_append_new(arr, o) != 0) { /* o released by jansson */
      json_decref(arr);
      return NULL;
    }
  }
  return arr;
}

const char *rp_ncu_issue_name(rp_ncu_issue i) {
  switch (i) {
  case RP_NCU_NO_PERMISSION:
    return "no_permission";
  case RP_NCU_NO_KERNELS:
    return "no_kernels";
  case RP_NCU_ERROR:
    return "error";
  default:
    return "ok";
  }
}

rp_ncu_issue rp_ncu_scan_output(const char *text, size_t len, char *line,
                                size_t size) {
  rp__lines it;
  char buf[RP__LINE_MAX];
  char err_line[RP__LINE_MAX] = "", none_line[RP__LINE_MAX] = "";
  rp__lines_init(&it, text, len);
  while (rp__lines_next(&it, buf, sizeof buf)) {
    rp__rtrim(buf);
    if (strstr(buf, "ERR_NVGPUCTRPERM") != NULL ||
        strstr(buf, "does not have permission to access NVIDIA GPU "
                    "Performance Counters") != NULL) {
      if (line != NULL)
        cm_strlcpy(line, rp__skip_ws(buf), size);
      return RP_NCU_NO_PERMISSION;
    }
    if (err_line[0] == '\0' && strstr(buf, "==ERROR==") != NULL)
      cm_strlcpy(err_line, rp__skip_ws(buf), sizeof err_line);
    if (none_line[0] == '\0' && strstr(buf, "No kernels were profiled"))
      cm_strlcpy(none_line, rp__skip_ws(buf), sizeof none_line);
  }
  if (err_line[0] != '\0') {
    if (line != NULL)
      cm_strlcpy(line, err_line, size);
    return RP_NCU_ERROR;
  }
  if (none_line[0] != '\0') {
    if (line != NULL)
      cm_strlcpy(line, none_line, size);
    return RP_NCU_NO_KERNELS;
  }
  if (line != NULL && size > 0)
    line[0] = '\0';
  return RP_NCU_OK;
}

/* Fills a NaN of *d from s. */
static void fill(double *d, double s) {
  if (isnan(*d))
    *d = s;
}

int rp_ncu_table_merge(rp_ncu_table *dst, const rp_ncu_table *src) {
  size_t i, j;
  for (i = 0; i < src->count; i++) {
    const rp_ncu_row *s = &src->rows[i];
    rp_ncu_row *d = NULL;
    for (j = 0; j < dst->count; j++)
      if (dst->rows[j].id == s->id) {
        d = &dst->rows[j];
        break;
      }
    if (d == NULL) {
      d = row_for(dst, s->id, 0);
      if (d == NULL)
        return CM_ENOMEM;
    }
    if (d->kernel[0] == '\0')
      cm_strlcpy(d->kernel, s->kernel, sizeof d->kernel);
    if (d->nvtx[0] == '\0')
      cm_strlcpy(d->nvtx, s->nvtx, sizeof d->nvtx);
    fill(&d->duration_ns, s->duration_ns);
    fill(&d->dram_pct, s->dram_pct);
    fill(&d->occupancy_pct, s->occupancy_pct);
    fill(&d->registers, s->registers);
    fill(&d->local_ld, s->local_ld);
    fill(&d->local_st, s->local_st);
  }
  return CM_OK;
}

size_t rp_ncu_count_profiled(const char *text, size_t len) {
  rp__lines it;
  char buf[RP__LINE_MAX];
  size_t n = 0;
  rp__lines_init(&it, text, len);
  while (rp__lines_next(&it, buf, sizeof buf))
    if (strstr(buf, "==PROF== Profiling ") != NULL)
      n++;
  return n;
}

/* A growing text buffer for the CSV writer. */
typedef struct {
  char *buf;
  size_t len, cap;
  int err;
} csv_out;

static void out_raw(csv_out *o, const char *s, size_t n) {
  if (o->err)
    return;
  if (o->len + n + 1 > o->cap) {
    size_t nc = (o->cap + n + 1) * 2;
    char *nb = realloc(o->buf, nc);
    if (nb == NULL) {
      o->err = CM_ENOMEM;
      return;
    }
    o->buf = nb;
    o->cap = nc;
  }
  memcpy(o->buf + o->len, s, n);
  o->len += n;
  o->buf[o->len] = '\0';
}

/* A text field, always quoted, '"' doubled (kernel names hold commas). */
static void out_quoted(csv_out *o, const char *s) {
  out_raw(o, "\"", 1);
  for (; *s; s++) {
    if (*s == '"')
      out_raw(o, "\"", 1);
    out_raw(o, s, 1);
  }
  out_raw(o, "\"", 1);
}

/* A number; NaN (not measured) is an empty field. */
static void out_num(csv_out *o, double v) {
  char tmp[64];
  if (isnan(v))
    return;
  if (cm_snprintf(tmp, sizeof tmp, "%.17g", v) == CM_OK)
    out_raw(o, tmp, strlen(tmp));
}

int rp_ncu_table_csv(const rp_ncu_table *t, char **out) {
  static const char head[] =
      "id,kernel,nvtx,duration_ns,dram_throughput_pct,"
      "achieved_occupancy_pct,registers_per_thread,local_load,local_store\n";
  csv_out o;
  size_t i;
  int k;
  memset(&o, 0, sizeof o);
  out_raw(&o, head, sizeof head - 1);
  for (i = 0; i < t->count; i++) {
    const rp_ncu_row *w = &t->rows[i];
    const double v[6] = {w->duration_ns, w->dram_pct, w->occupancy_pct,
                         w->registers,   w->local_ld, w->local_st};
    out_num(&o, w->id < 0 ? NAN : (double)w->id);
    out_raw(&o, ",", 1);
    out_quoted(&o, w->kernel);
    out_raw(&o, ",", 1);
    out_quoted(&o, w->nvtx);
    for (k = 0; k < 6; k++) {
      out_raw(&o, ",", 1);
      out_num(&o, v[k]);
    }
    out_raw(&o, "\n", 1);
  }
  if (o.err) {
    free(o.buf);
    *out = NULL;
    return o.err;
  }
  *out = o.buf;
  return CM_OK;
}
