/* rp_svg.c: inline SVG charts (see rp_svg.h). */
#include "rp_svg.h"

#include "cm_str.h"

#include <math.h>
#include <string.h>

/* Geometry shared by the horizontal charts. */
#define LABEL_W 300
#define PLOT_W 560
#define RIGHT_W 110
#define ROW_H 22
#define TOP 30
#define BOTTOM 30

static double finite_max(const double *v, size_t n, double start) {
  size_t i;
  double m = start;
  for (i = 0; i < n; i++)
    if (isfinite(v[i]) && v[i] > m)
      m = v[i];
  return m;
}

static void open_svg(rp__sb *b, const char *name, int w, int h) {
  rp__sb_printf(b,
                "<svg class=\"chart\" data-chart=\"%s\" "
                "xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
                "height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">\n",
                name, w, h, w, h);
  rp__sb_printf(b,
                "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" "
                "fill=\"#fff\" stroke=\"#ccc\"/>\n",
                w, h);
}

static void label(rp__sb *b, double x, double y, const char *anchor,
                  const char *text) {
  rp__sb_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">", x, y,
                anchor);
  rp__sb_xml(b, text);
  rp__sb_add(b, "</text>\n");
}

/* A vertical axis line with 0 and max ticks. */
static void x_axis(rp__sb *b, int y0, int y1, double vmax, const char *unit) {
  char t[64];
  rp__sb_printf(b,
                "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
                "stroke=\"#333\"/>\n",
                LABEL_W, y0, LABEL_W, y1);
  cm_snprintf(t, sizeof t, "0 %s", unit);
  label(b, LABEL_W, y1 + 16, "start", t);
  cm_snprintf(t, sizeof t, "%.4g %s", vmax, unit);
  label(b, LABEL_W + PLOT_W, y1 + 16, "end", t);
}

void rp__svg_bars(rp__sb *b, const char *name, const char *unit,
                  const char *const *labels, const double *values, size_t n,
                  double ceiling, const char *ceiling_label) {
  int h = TOP + (int)n * ROW_H + BOTTOM, w = LABEL_W + PLOT_W + RIGHT_W;
  double vmax = finite_max(values, n, ceiling > 0 ? ceiling : 0) * 1.05;
  size_t i;
  if (!(vmax > 0))
    vmax = 1;
  open_svg(b, name, w, h);
  for (i = 0; i < n; i++) {
    double y = TOP + (double)i * ROW_H;
    char t[64];
    label(b, LABEL_W - 6, y + 15, "end", labels[i]);
    if (isfinite(values[i]) && values[i] > 0) {
      double bw = values[i] / vmax * PLOT_W;
      rp__sb_printf(b,
                    "<rect class=\"mark\" x=\"%d\" y=\"%.1f\" width=\"%.2f\" "
                    "height=\"%d\" fill=\"#4878a8\"><title>",
                    LABEL_W, y + 3, bw, ROW_H - 6);
      rp__sb_xml(b, labels[i]);
      rp__sb_printf(b, ": %.4g %s</title></rect>\n", values[i], unit);
      cm_snprintf(t, sizeof t, "%.4g", values[i]);
      label(b, LABEL_W + bw + 4, y + 15, "start", t);
    } else {
      label(b, LABEL_W + 4, y + 15, "start", "n/a");
    }
  }
  if (ceiling > 0) {
    double x = LABEL_W + ceiling / vmax * PLOT_W;
    char t[96];
    rp__sb_printf(b,
                  "<line class=\"mark ceiling\" x1=\"%.2f\" y1=\"%d\" "
                  "x2=\"%.2f\" y2=\"%d\" stroke=\"#c03030\" "
                  "stroke-width=\"2\" stroke-dasharray=\"6 3\"/>\n",
                  x, TOP - 8, x, TOP + (int)n * ROW_H);
    cm_snprintf(t, sizeof t, "%s %.4g %s", ceiling_label, ceiling, unit);
    label(b, x, TOP - 12, "middle", t);
  }
  x_axis(b, TOP - 4, TOP + (int)n * ROW_H, vmax, unit);
  rp__sb_add(b, "</svg>\n");
}

void rp__svg_pairs(rp__sb *b, const char *name, const char *unit,
                   const char *const *labels, const double *a, const double *r,
                   size_t n, const char *a_name, const char *r_name) {
  int row = 2 * ROW_H - 8;
  int h = TOP + (int)n * row + BOTTOM, w = LABEL_W + PLOT_W + RIGHT_W;
  double vmax = finite_max(r, n, finite_max(a, n, 0)) * 1.05;
  const double *vals[2] = {a, r};
  const char *fill[2] = {"#4878a8", "#a0a0a0"};
  size_t i;
  int k;
  if (!(vmax > 0))
    vmax = 1;
  open_svg(b, name, w, h);
  for (k = 0; k < 2; k++) {
    rp__sb_printf(b,
                  "<rect x=\"%d\" y=\"8\" width=\"12\" height=\"12\" "
                  "fill=\"%s\"/>\n",
                  LABEL_W + k * 200, fill[k]);
    label(b, LABEL_W + k * 200 + 16, 18, "start", k ? r_name : a_name);
  }
  for (i = 0; i < n; i++) {
    double y = TOP + (double)i * row;
    label(b, LABEL_W - 6, y + 18, "end", labels[i]);
    for (k = 0; k < 2; k++) {
      double v = vals[k][i], yy = y + 2 + k * (ROW_H / 2 + 4);
      char t[64];
      if (!(isfinite(v) && v > 0)) {
        label(b, LABEL_W + 4, yy + 11, "start", "n/a");
        continue;
      }
      rp__sb_printf(b,
                    "<rect class=\"mark\" x=\"%d\" y=\"%.1f\" width=\"%.2f\" "
                    "height=\"%d\" fill=\"%s\"><title>%.4g %s</title></rect>\n",
                    LABEL_W, yy, v / vmax * PLOT_W, ROW_H / 2 + 2, fill[k], v,
                    unit);
      cm_snprintf(t, sizeof t, "%.4g", v);
      label(b, LABEL_W + v / vmax * PLOT_W + 4, yy + 11, "start", t);
    }
  }
  x_axis(b, TOP - 4, TOP + (int)n * row, vmax, unit);
  rp__sb_add(b, "</svg>\n");
}

void rp__svg_boxes(rp__sb *b, const char *name, const char *unit, double scale,
                   const char *const *labels, const rp_five *boxes, size_t n) {
  int row = ROW_H + 4;
  int h = TOP + (int)n * row + 10, w = LABEL_W + PLOT_W + 2 * RIGHT_W;
  size_t i;
  open_svg(b, name, w, h);
  label(b, LABEL_W + PLOT_W / 2, 18, "middle",
        "each row on its own axis: min and max at the ends");
  for (i = 0; i < n; i++) {
    const rp_five *f = &boxes[i];
    double y = TOP + (double)i * row, mid = y + row / 2.0;
    double lo = f->min, span = f->max - f->min;
    char t[64];
    /* A row whose samples all tie still gets a visible box (a subnormal
     * lo's thousandth is 0: the positions were NaN). */
    if (!(span > 0))
      span = fabs(lo) * 1e-3 > 0 ? fabs(lo) * 1e-3 : 1e-9;
#define X(v) (LABEL_W + 10 + ((v)-lo) / span * (PLOT_W - 20))
    label(b, LABEL_W - 6, mid + 5, "end", labels[i]);
    rp__sb_printf(b,
                  "<line class=\"mark\" x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" "
                  "y2=\"%.1f\" stroke=\"#555\"/>\n",
                  X(f->min), mid, X(f->max), mid);
    rp__sb_printf(b,
                  "<rect class=\"mark\" x=\"%.2f\" y=\"%.1f\" "
                  "width=\"%.2f\" height=\"%d\" fill=\"#a8c4e0\" "
                  "stroke=\"#335\"><title>q1 %.4g, median %.4g, q3 %.4g "
                  "%s</title></rect>\n",
                  X(f->q1), y + 4, fmax(X(f->q3) - X(f->q1), 1.0), row - 8,
                  f->q1 * scale, f->median * scale, f->q3 * scale, unit);
    rp__sb_printf(b,
                  "<line class=\"mark median\" x1=\"%.2f\" y1=\"%.1f\" "
                  "x2=\"%.2f\" y2=\"%.1f\" stroke=\"#c03030\" "
                  "stroke-width=\"2\"/>\n",
                  X(f->median), y + 3, X(f->median), y + row - 3);
#undef X
    cm_snprintf(t, sizeof t, "%.4g .. %.4g %s", f->min * scale, f->max * scale,
                unit);
    label(b, LABEL_W + PLOT_W + 6, mid + 5, "start", t);
  }
  rp__sb_add(b, "</svg>\n");
}

const char *rp__status_colour(const char *s) {
  if (strcmp(s, "passed") == 0)
    return "#3a9a4a";
  if (strcmp(s, "failed") == 0)
    return "#c03030";
  if (strcmp(s, "limited") == 0)
    return "#e09a20";
  return "#909090";
}

void rp__svg_gantt(rp__sb *b, const char *name, const char *const *labels,
                   const char *const *statuses, const double *start,
                   const double *duration, size_t n) {
  int h = TOP + (int)n * ROW_H + BOTTOM, w = LABEL_W + PLOT_W + RIGHT_W;
  double end = 0;
  size_t i;
  for (i = 0; i < n; i++)
    if (isfinite(start[i]) && isfinite(duration[i]) &&
        start[i] + duration[i] > end)
      end = start[i] + duration[i];
  if (!(end > 0))
    end = 1;
  open_svg(b, name, w, h);
  for (i = 0; i < n; i++) {
    double y = TOP + (double)i * ROW_H;
    char t[96];
    label(b, LABEL_W - 6, y + 15, "end", labels[i]);
    if (!isfinite(start[i]) || !isfinite(duration[i])) {
      label(b, LABEL_W + 4, y + 15, "start", "no timing");
      continue;
    }
    /* Zero-length stages (skipped at once) still get a 2 px sliver so
     * that their colour shows. */
    rp__sb_printf(b,
                  "<rect class=\"mark\" x=\"%.2f\" y=\"%.1f\" "
                  "width=\"%.2f\" height=\"%d\" fill=\"%s\"><title>",
                  LABEL_W + start[i] / end * PLOT_W, y + 3,
                  fmax(duration[i] / end * PLOT_W, 2.0), ROW_H - 6,
                  rp__status_colour(statuses[i]));
    rp__sb_xml(b, labels[i]);
    rp__sb_add(b, ": ");
    rp__sb_xml(b, statuses[i]);
    rp__sb_printf(b, ", %.2f s</title></rect>\n", duration[i]);
    cm_snprintf(t, sizeof t, "%s %.1f s", statuses[i], duration[i]);
    label(b, LABEL_W + (start[i] + duration[i]) / end * PLOT_W + 4, y + 15,
          "start", t);
  }
  x_axis(b, TOP - 4, TOP + (int)n * ROW_H, end, "s");
  rp__sb_add(b, "</svg>\n");
}
