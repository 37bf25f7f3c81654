#!/usr/bin/env python3
"""Exit 0 if every pinned package of a requirements file is installed at its
version, 1 otherwise (so `make` installs only when something is missing)."""
import sys
from importlib import metadata

ok = True
for line in open(sys.argv[1]):
    line = line.split("#", 1)[0].strip()
    if not line:
        continue
    name, _, version = line.partition("==")
    try:
        have = metadata.version(name)
    except metadata.PackageNotFoundError:
        have = None
    if have != version:
        print(f"python package {name}: want {version}, have {have}")
        ok = False
sys.exit(0 if ok else 1)
