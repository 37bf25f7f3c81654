#!/usr/bin/env python3
"""Configures and builds a sanitized dlc (only the `dlc` target) in its own
build dir, then runs the hostile-model corpus against it. Used by the ctest
`robustness-asan` (CMakeLists.txt here).

Usage: build_sanitized.py --source DIR --build DIR --cxx WRAPPER
                          [--sanitize-all] [--jobs N] [-- RUN_CORPUS_ARGS...]
"""

import argparse
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
FLAGS = ("-fsanitize=address,undefined -fno-sanitize-recover=undefined "
         "-fno-omit-frame-pointer")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", required=True)
    ap.add_argument("--build", required=True)
    ap.add_argument("--cxx", required=True, help="sanitize-cxx.sh wrapper")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("rest", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    rest = args.rest[1:] if args.rest[:1] == ["--"] else args.rest

    # A cache configured with another compiler cannot be switched in place.
    cache = os.path.join(args.build, "CMakeCache.txt")
    if os.path.exists(cache):
        with open(cache) as f:
            if f"CMAKE_CXX_COMPILER:FILEPATH={args.cxx}\n" not in f.read():
                os.remove(cache)
    link = "-fsanitize=address,undefined"
    configure = [
        "cmake", "-G", "Ninja", "-S", args.source, "-B", args.build,
        f"-DCMAKE_CXX_COMPILER={args.cxx}",
        "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
        # RelWithDebInfo's own -O2 -g would come last and win; -g1 keeps
        # symbolized stacks at a fraction of the compile time.
        "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG",
        "-DCMAKE_CXX_FLAGS=-fno-omit-frame-pointer",
        f"-DCMAKE_EXE_LINKER_FLAGS={link}",
        f"-DCMAKE_SHARED_LINKER_FLAGS={link}",
        "-DDLC_ENABLE_TESTS=OFF",
    ]
    start = time.monotonic()
    for cmd in (configure, ["cmake", "--build", args.build, "--target", "dlc",
                            "--", f"-j{args.jobs}"]):
        print("+ " + " ".join(cmd), flush=True)
        if subprocess.run(cmd).returncode:
            return 1
    print(f"build_sanitized: sanitized dlc ready in {time.monotonic() - start:.0f}s",
          flush=True)
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0",
               UBSAN_OPTIONS="print_stacktrace=1")
    dlc = os.path.join(args.build, "bin", "dlc")
    return subprocess.run([sys.executable, os.path.join(HERE, "run_corpus.py"),
                           "--dlc", dlc] + rest, env=env).returncode


if __name__ == "__main__":
    sys.exit(main())
