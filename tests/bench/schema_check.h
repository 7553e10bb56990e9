/* schema_check.h: a validator for the subset of JSON Schema that
 * docs/schema/results-v1.schema.json uses (type, required, properties,
 * items, enum, minimum, maximum, and local "$ref": "#/$defs/NAME"). A
 * schema keyword outside that subset is reported as an error rather than
 * ignored, so the schema cannot silently outgrow what the tests check.
 * Test code only. */
#ifndef SCHEMA_CHECK_H
#define SCHEMA_CHECK_H

#include <jansson.h>
#include <stddef.h>

/* Returns 0 if inst satisfies schema (root is the schema document, for
 * $ref), else 1 with the first violation and its JSON path in err. */
int schema_check(const json_t *root, const json_t *inst, char *err,
                 size_t errsize);

#endif
