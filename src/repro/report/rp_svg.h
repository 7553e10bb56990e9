/* rp_svg.h: the report's charts as inline SVG (no script, no fonts, no
 * external anything), appended to a string buffer.
 *
 * Every chart is one <svg class="chart" data-chart="NAME"> whose data marks
 * (bars, boxes, lines that carry a value) have class "mark", so that the
 * rendering test and the page's own self-check can tell a drawn chart from
 * an empty frame. A chart with no data is not drawn at all: the caller
 * writes a sentence instead. Labels are escaped here; numbers use the
 * given unit. Sizes are in CSS pixels. Internal to src/repro/report.
 */
#ifndef RP_SVG_H
#define RP_SVG_H

#include "rp_sb.h"
#include "rp_stats.h"

#include <stddef.h>

/* Horizontal bars, one per label, against a vertical ceiling line (drawn
 * when ceiling > 0, labelled ceiling_label). Non-finite values are shown as
 * "n/a" without a bar. */
void rp__svg_bars(rp__sb *b, const char *name, const char *unit,
                  const char *const *labels, const double *values, size_t n,
                  double ceiling, const char *ceiling_label);

/* Pairs of horizontal bars per label: ours (a) and a reference (r), named
 * a_name and r_name in the legend. */
void rp__svg_pairs(rp__sb *b, const char *name, const char *unit,
                   const char *const *labels, const double *a, const double *r,
                   size_t n, const char *a_name, const char *r_name);

/* One box plot per label (whiskers min..max, box q1..q3, median line),
 * each row on its own axis (its min and max printed at the ends), values
 * multiplied by scale for display in unit (e.g. 1e6 and "us"). */
void rp__svg_boxes(rp__sb *b, const char *name, const char *unit, double scale,
                   const char *const *labels, const rp_five *boxes, size_t n);

/* A Gantt chart: one bar per stage from start to start + duration
 * (seconds), coloured by status (passed, failed, skipped, limited). */
void rp__svg_gantt(rp__sb *b, const char *name, const char *const *labels,
                   const char *const *statuses, const double *start,
                   const double *duration, size_t n);

/* The colour used for a stage status ("#rrggbb"). */
const char *rp__status_colour(const char *status);

#endif
