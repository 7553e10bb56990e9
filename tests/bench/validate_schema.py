#!/usr/bin/env python3
"""Validate results documents with a full JSON Schema implementation.

Usage: validate_schema.py TEST_BINARY SCHEMA FIXTURES_DIR TMPDIR

Checks, with python3-jsonschema (Debian package python3-jsonschema):
  1. the schema itself is a valid draft 2020-12 schema;
  2. a document written by the real writer (the test binary's write_doc
     helper, synthetic samples) validates;
  3. the same document with a sample turned into a string does not (the
     check can fail);
  4. every *.json under FIXTURES_DIR (real GPU captures) validates.
Exits 77 (skipped) only when jsonschema cannot be imported.
"""
import glob
import json
import os
import subprocess
import sys

try:
    import jsonschema
except ImportError:
    print("python3-jsonschema is not installed: skipped")
    sys.exit(77)


def main():
    binary, schema_path, fixtures, tmpdir = sys.argv[1:5]
    with open(schema_path) as f:
        schema = json.load(f)
    cls = jsonschema.Draft202012Validator
    cls.check_schema(schema)
    validator = cls(schema)

    os.makedirs(tmpdir, exist_ok=True)
    doc_path = os.path.join(tmpdir, "python-doc.json")
    subprocess.run([binary, "--helper", "write_doc", doc_path], check=True)
    with open(doc_path) as f:
        doc = json.load(f)
    validator.validate(doc)

    bad = json.loads(json.dumps(doc))
    bad["cases"][0]["timing"]["samples_s"][0] = "0.0002"
    if validator.is_valid(bad):
        print("a string sample was accepted: the schema checks too little")
        return 1

    count = 0
    for path in sorted(glob.glob(os.path.join(fixtures, "*.json"))):
        with open(path) as f:
            validator.validate(json.load(f))
        count += 1
    print("validated the writer's document and %d fixture(s)" % count)
    return 0


if __name__ == "__main__":
    sys.exit(main())
