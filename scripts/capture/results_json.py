"""The JSON files scripts/capture's tables read, as written or gzipped (the
committed evidence under results/h200/ keeps most of them as NAME.json.gz):
shared by bench-table.py, stream-table.py, torch-elem.py and ncu-table.py."""
import gzip
import json
import os
import zlib


def present(path):
    """PATH, or PATH.gz where only that is there; None where neither is."""
    for p in (path, path + ".gz"):
        if os.path.exists(p):
            return p
    return None


def read_json(path):
    """The document at PATH (gzipped where it ends in .gz); OSError or
    ValueError where it cannot be read (a .gz cut short or corrupt
    included, which gzip reports as EOFError or zlib.error)."""
    try:
        with (gzip.open(path, "rt") if path.endswith(".gz")
              else open(path)) as f:
            return json.load(f)
    except (EOFError, zlib.error) as e:
        raise ValueError(f"not a whole gzip stream ({e})") from e
