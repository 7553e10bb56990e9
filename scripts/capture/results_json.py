"""The JSON files scripts/capture's tables read, as written or gzipped (the
committed evidence under results/h200/ keeps most of them as NAME.json.gz):
shared by stream-table.py, torch-elem.py and ncu-table.py."""
import gzip
import json
import os


def present(path):
    """PATH, or PATH.gz where only that is there; None where neither is."""
    for p in (path, path + ".gz"):
        if os.path.exists(p):
            return p
    return None


def read_json(path):
    """The document at PATH (gzipped where it ends in .gz); OSError or
    ValueError where it cannot be read."""
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        return json.load(f)
