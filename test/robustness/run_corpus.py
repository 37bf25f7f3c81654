#!/usr/bin/env python3
"""Runs dlc on every hostile model of the corpus (make_corpus.py) and checks
that each is rejected cleanly (exit 1, an "error:" line with the expected
text) or, where the corpus documents an accepting policy, accepted (exit 0).

Fails an entry on: a signal, any other exit code, a sanitizer report
(AddressSanitizer, UBSan "runtime error:", LeakSanitizer), a timeout, or a
missing/different message. Prints one table row per entry and mode.

Usage: run_corpus.py --dlc PATH [--corpus DIR] [--work DIR] [--timeout S]
                     [--jobs N] [--only NAME...] [--check-only]
Exit status: 0 when every entry passes, 1 otherwise.
"""

import argparse
import concurrent.futures
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))

SANITIZER_MARKERS = (
    "ERROR: AddressSanitizer",
    "ERROR: LeakSanitizer",
    "runtime error:",
    "SUMMARY: UndefinedBehaviorSanitizer",
    "Stack dump:",  # LLVM's crash handler (assertion or signal)
    "PLEASE submit a bug report",
    "terminate called",
)


def run_one(dlc, corpus, work, entry, mode, timeout):
    policy, expect = entry[mode]
    model = os.path.join(corpus, entry["file"])
    if mode == "check":
        cmd = [dlc, "--check", model]
    else:
        out = os.path.join(work, entry["name"] + ".so")
        cmd = [dlc, model, "-o", out, "--target=cpu"]
    cmd += entry["args"]
    env = dict(os.environ)
    # LLVM's global registries are never freed by design.
    env.setdefault("ASAN_OPTIONS", "detect_leaks=0")
    env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1")
    start = time.monotonic()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout, env=env, cwd=work)
    except subprocess.TimeoutExpired:
        return "FAIL", f"timeout after {timeout}s", time.monotonic() - start, ""
    elapsed = time.monotonic() - start
    stderr = p.stderr.decode("utf-8", "replace")
    stdout = p.stdout.decode("utf-8", "replace")
    log = " ".join(cmd) + "\n" + stdout + stderr
    rc = p.returncode
    if rc < 0:
        try:
            sig = signal.Signals(-rc).name
        except ValueError:
            sig = str(-rc)
        return "FAIL", f"killed by {sig}", elapsed, log
    for marker in SANITIZER_MARKERS:
        if marker in stderr:
            return "FAIL", f"exit {rc}, '{marker}' in stderr", elapsed, log
    if rc not in (0, 1):
        return "FAIL", f"exit {rc}", elapsed, log
    errors = [l for l in stderr.splitlines() if "error:" in l]
    known = entry.get("xfail", {}).get(mode)
    if known and rc == 1 and errors:
        return "xfail", f"known issue: {errors[0][:200]}", elapsed, log
    if policy == "accept":
        if rc != 0:
            first = errors[0] if errors else "no error line"
            return "FAIL", f"rejected, expected accept: {first}", elapsed, log
        if expect and expect not in stderr:
            return "FAIL", f"accepted without '{expect}'", elapsed, log
        return "ok", "accepted", elapsed, log
    if rc != 1:
        return "FAIL", "accepted, expected an error", elapsed, log
    if not errors:
        return "FAIL", "exit 1 without an 'error:' line", elapsed, log
    matching = [l for l in errors if expect in l]
    if not matching:
        return "FAIL", f"no error line contains '{expect}'; first: {errors[0]}", \
            elapsed, log
    return "ok", matching[0].split("error:", 1)[1].strip(), elapsed, log


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dlc", required=True)
    ap.add_argument("--corpus", help="corpus dir (generated when missing)")
    ap.add_argument("--work", help="scratch dir for outputs")
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--check-only", action="store_true",
                    help="run only dlc --check")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="print the full output of failing runs")
    args = ap.parse_args()

    dlc = os.path.abspath(args.dlc)
    if not os.access(dlc, os.X_OK):
        print(f"run_corpus: {dlc} is not an executable", file=sys.stderr)
        return 1
    work = os.path.abspath(args.work or tempfile.mkdtemp(prefix="dlc-robust-"))
    os.makedirs(work, exist_ok=True)
    corpus = os.path.abspath(args.corpus or os.path.join(work, "corpus"))
    if not os.path.exists(os.path.join(corpus, "manifest.json")):
        subprocess.run([sys.executable, os.path.join(HERE, "make_corpus.py"),
                        corpus], check=True)
    with open(os.path.join(corpus, "manifest.json")) as f:
        entries = json.load(f)
    if args.only:
        entries = [e for e in entries if e["name"] in args.only]

    jobs = []
    for e in entries:
        for mode in ("check", "compile"):
            if mode in e and not (args.check_only and mode != "check"):
                jobs.append((e, mode))
    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        results = list(pool.map(
            lambda j: run_one(dlc, corpus, work, j[0], j[1], args.timeout), jobs))

    width = max(len(e["name"]) for e, _ in jobs) if jobs else 10
    print(f"{'model':<{width}}  {'mode':<7}  {'want':<6}  {'result':<6}  "
          f"{'time':>6}  detail")
    failures = 0
    for (e, mode), (status, detail, elapsed, log) in zip(jobs, results):
        if status not in ("ok", "xfail"):
            failures += 1
        elif status == "ok" and mode in e.get("xfail", {}):
            status, detail = "XPASS", "known issue fixed? " + detail
        print(f"{e['name']:<{width}}  {mode:<7}  {e[mode][0]:<6}  {status:<6}  "
              f"{elapsed:5.1f}s  {detail[:110]}")
        if status != "ok" and args.verbose:
            print("    | " + "\n    | ".join(log.strip().splitlines()[-60:]))
    total = time.monotonic() - start
    print(f"\nrun_corpus: {len(entries)} models, {len(jobs) - failures}/"
          f"{len(jobs)} runs passed in {total:.0f}s ({dlc})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
