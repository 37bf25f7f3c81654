"""Shared helpers for the dlc end-to-end suites.

Build a small ONNX model, get a reference from ONNX Runtime, compile it with
dlc, run it with dlc-run and compare, with one clear message per mismatch.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import ctypes
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

SKIP = 77  # ctest SKIP_RETURN_CODE for every suite


def require(*modules):
    """Skip the suite (exit 77) when a Python package it needs is missing."""
    import importlib.util

    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        print(f"skipped: Python package(s) {', '.join(missing)} not installed"
              f" (pip install {' '.join(missing)})")
        sys.exit(SKIP)


require("numpy", "onnx")
import numpy as np  # noqa: E402
import onnx  # noqa: E402
from onnx import helper, numpy_helper  # noqa: E402


class Failure(Exception):
    """A test failed; the message says why."""


class ExpectedFailure(Exception):
    """A test failed as its expected-failure entry says."""


class UnexpectedPass(Exception):
    """A test marked expected-fail passed: the mark is stale."""


class NoDevice(Exception):
    """dlc-run found no CUDA device: the suite is skipped."""


# ---------------------------------------------------------------- models


def make_model(nodes, inputs, outputs, initializers=None, opset=17, ir_version=8):
    """A model from nodes; `inputs` maps graph-input names to sample arrays
    (their dtype and shape become the signature), `outputs` lists output
    names (typed by ONNX shape inference), `initializers` maps names to
    arrays. ir_version stays at 8 because onnxruntime rejects newer ones."""
    ins = [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
           for n, a in inputs.items()]
    outs = [helper.make_value_info(n, onnx.TypeProto()) for n in outputs]
    inits = [numpy_helper.from_array(np.asarray(a), n) for n, a in (initializers or {}).items()]
    graph = helper.make_graph(nodes, "e2e", ins, outs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              ir_version=ir_version, producer_name="dlc-e2e")
    return onnx.shape_inference.infer_shapes(model, strict_mode=True)


def make_microsoft_model(nodes, inputs, outputs, initializers):
    """A model of com.microsoft (or other ONNX Runtime-only) nodes, which
    ONNX's shape inference does not know, so outputs are typed as given:
    `outputs` names f32 outputs of unknown shape, or maps names to a dtype
    or to (dtype, shape). `inputs` and `initializers` map names to arrays."""
    ins = [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
           for n, a in inputs.items()]
    typed = outputs if isinstance(outputs, dict) else dict.fromkeys(outputs, np.float32)
    outs = []
    for n, t in typed.items():
        dtype, shape = t if isinstance(t, tuple) else (t, None)
        outs.append(helper.make_tensor_value_info(
            n, helper.np_dtype_to_tensor_dtype(np.dtype(dtype)), shape))
    inits = [numpy_helper.from_array(np.asarray(a), n) for n, a in initializers.items()]
    return helper.make_model(helper.make_graph(nodes, "e2e", ins, outs, inits), ir_version=8,
                             producer_name="dlc-e2e",
                             opset_imports=[helper.make_opsetid("", 17),
                                            helper.make_opsetid("com.microsoft", 1)])


def ort_saved_optimized(model, fused):
    """`model` as ONNX Runtime saves it after its extended optimizations
    (SessionOptions.optimized_model_filepath); fails unless it holds the
    com.microsoft operators in `fused`."""
    import onnxruntime as ort

    with tempfile.TemporaryDirectory() as d:
        src, dst = Path(d) / "model.onnx", Path(d) / "optimized.onnx"
        onnx.save(model, src)
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
        options.optimized_model_filepath = str(dst)
        ort.InferenceSession(str(src), options, providers=["CPUExecutionProvider"])
        saved = onnx.load(str(dst))
    ops = {n.op_type for n in saved.graph.node if n.domain == "com.microsoft"}
    if not set(fused) <= ops:
        raise RuntimeError(f"ONNX Runtime saved {sorted(ops)}, not {sorted(fused)}")
    return saved


def run_ort(model_path, feeds, optimize=True):
    """Outputs of the model under ONNX Runtime's CPU provider, by name;
    `optimize=False` runs the graph as written (no fusions: ONNX Runtime
    turns a constant blocked DequantizeLinear -> MatMul into a kernel that
    quantizes the activations, 0.4% off the spec's float result)."""
    import onnxruntime as ort

    def session(exact_int8):
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 1
        opts.log_severity_level = 3
        if not optimize:
            opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        if exact_int8:
            opts.add_session_config_entry("session.x64quantprecision", "1")
        return ort.InferenceSession(str(model_path), opts, providers=["CPUExecutionProvider"])

    # On x86 CPUs without VNNI (AVX2 only: this machine's AMD EPYC) ONNX
    # Runtime's u8 x s8 integer GEMMs add pairs of products in saturating
    # int16 (vpmaddubsw): MatMulInteger of full-range operands came out wrong
    # by up to 60732. session.x64quantprecision makes it rewrite constant s8
    # weights for its exact u8 x u8 kernels; the rewrite has no s8 kernel for
    # a grouped s8 QLinearConv (NOT_IMPLEMENTED), which runs without it.
    try:
        sess = session(True)
    except Exception as e:  # onnxruntime's own exception types
        if "NOT_IMPLEMENTED" not in str(e):
            raise
        sess = session(False)
    names = [o.name for o in sess.get_outputs()]
    return dict(zip(names, sess.run(names, feeds)))


# ---------------------------------------------------------------- tools


def sanitize(name):
    """The file name dlc-run writes for an output name."""
    return re.sub(r"[/:]", "_", name)


class Dlc:
    """The dlc compiler and the dlc-run driver."""

    def __init__(self, bin_dir):
        self.dlc = Path(bin_dir) / "dlc"
        self.dlc_run = Path(bin_dir) / "dlc-run"
        for tool in (self.dlc, self.dlc_run):
            if not os.access(tool, os.X_OK):
                raise SystemExit(f"error: {tool} not found or not executable (build it first)")
        # DLC_FLAGS (e.g. "--tma=false"): added to every build, to bisect a
        # failure (on the GPU, say) without editing the suites.
        self.flags = shlex.split(os.environ.get("DLC_FLAGS", ""))
        if self.flags:
            print(f"DLC_FLAGS: every dlc build also gets {' '.join(self.flags)}")
        # DLC_REQUIRE_CPU_FLAGS (e.g. "avx512_vnni"): the suite checks code
        # built with DLC_FLAGS=--cpu=native for a feature this machine's CPU
        # may lack; without it, the suite is skipped.
        skip_without_cpu_flags(os.environ.get("DLC_REQUIRE_CPU_FLAGS", "").split())

    @staticmethod
    def _call(cmd, what, timeout):
        try:
            p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise Failure(f"{what} timed out after {timeout} s: {' '.join(map(str, cmd))}")
        if p.returncode != 0:
            err = (p.stderr or p.stdout).strip()
            raise Failure(f"{what} exited {p.returncode}: {err}\n  command: {' '.join(map(str, cmd))}")
        return p

    def compile(self, model, out, target="cpu", arch=None, input_shapes=None, emit=None,
                timeout=600, extra=()):
        cmd = [self.dlc, model, "-o", out, f"--target={target}", *extra, *self.flags]
        if arch:
            cmd.append(f"--arch={arch}")
        if emit:
            cmd.append(f"--emit={emit}")
        for name, shape in (input_shapes or {}).items():
            cmd.append(f"--input-shape={name}=" + "x".join(map(str, shape)))
        self._call(cmd, "dlc", timeout)
        if not Path(out).is_file() or Path(out).stat().st_size == 0:
            raise Failure(f"dlc exited 0 but wrote no {out}")

    def run(self, so, inputs, out_dir, output_names, device="cpu", timeout=600):
        """Run `so` on {input name: .npy or .pb path}; returns {output name: array}."""
        cmd = [self.dlc_run, so, "--output-dir", out_dir, "--device", device]
        if device == "cuda":
            # A GPU run takes seconds; a kernel spinning on an mbarrier whose
            # phase never completes takes forever: fail it in 2 minutes.
            timeout = min(timeout, 120)
        for name, path in inputs.items():
            cmd += ["--input", f"{name}={path}"]
        self._call(cmd, "dlc-run", timeout)
        got = {}
        for name in output_names:
            path = Path(out_dir) / (sanitize(name) + ".npy")
            if not path.is_file():
                raise Failure(f"dlc-run wrote no {path.name} for output '{name}'")
            got[name] = np.load(path)
        return got


def save_inputs(feeds, directory):
    """Write each feed as .npy; returns {name: path}."""
    paths = {}
    for i, (name, arr) in enumerate(feeds.items()):
        paths[name] = Path(directory) / f"input_{i}.npy"
        np.save(paths[name], arr)
    return paths


def cuda_unavailable():
    """Why no CUDA GPU can be used here, or None when one looks usable."""
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return "nvidia-smi not found"
    try:
        p = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=60)
        if p.returncode != 0 or "GPU" not in p.stdout:
            return "nvidia-smi -L lists no GPU"
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"nvidia-smi -L failed: {e}"
    try:
        ctypes.CDLL("libcuda.so.1")
    except OSError as e:
        return f"libcuda.so.1 cannot be loaded: {e}"
    return None


def first_error(message, limit=200):
    """The first diagnostic ('error: ...') of a failure message, else its first line."""
    lines = message.splitlines() or [""]
    for line in lines:
        if "error:" in line:
            return line[line.index("error:"):][:limit]
    return lines[0][:limit]


def is_no_cuda_error(message):
    """dlc-run's error when CUDA was asked for and there is no device."""
    return "CUDA requested but" in message


def skip_without_cpu_flags(flags):
    """Skip (exit 77) unless /proc/cpuinfo lists every one of `flags`."""
    if not flags:
        return
    try:
        with open("/proc/cpuinfo") as f:
            have = {w for line in f if line.startswith("flags") for w in line.split(":", 1)[1].split()}
    except OSError as e:
        have, why = set(), f" ({e})"
    else:
        why = ""
    missing = [f for f in flags if f not in have]
    if missing:
        print(f"skipped: this CPU lacks {', '.join(missing)}{why}")
        sys.exit(SKIP)


def skip_without_gpu():
    reason = cuda_unavailable()
    if reason:
        print(f"skipped: no CUDA GPU ({reason})")
        sys.exit(SKIP)


# ---------------------------------------------------------------- comparison


def compare(name, got, ref, rtol=1e-3, atol=1e-5, scale_atol=True):
    """Raise Failure unless `got` matches `ref`: same shape and dtype, exact for
    integers and bools, else |got-ref| <= atol' + rtol*|ref| with
    atol' = atol * max(1, max|ref|) when scale_atol."""
    got, ref = np.asarray(got), np.asarray(ref)
    if got.shape != ref.shape:
        raise Failure(f"output '{name}': shape {got.shape}, expected {ref.shape}")
    if ref.dtype.name == "bfloat16" and got.dtype == np.float32:
        # dlc-run widens bfloat16 outputs to float32 (NumPy has no bfloat16):
        # the values must still be bfloat16 values (low 16 bits zero).
        if (np.ascontiguousarray(got).view(np.uint32) & 0xFFFF).any():
            raise Failure(f"output '{name}': float32 values that are not bfloat16 values"
                          " (bfloat16 expected, widened by dlc-run)")
        ref = ref.astype(np.float32)
    if ref.dtype.name in ("int4", "uint4", "int2", "uint2"):
        # dlc-run writes the sub-byte integers a byte each (NumPy has none).
        ref = ref.astype(np.int8 if ref.dtype.name.startswith("int") else np.uint8)
    if ref.dtype.name.startswith(("float8", "float4")) and got.dtype == np.float32:
        # dlc-run widens float8 and float4 outputs to float32 too: they must
        # be values of that type, and then equal the reference exactly.
        narrowed = got.astype(ref.dtype).astype(np.float32)
        if not np.array_equal(narrowed, got, equal_nan=True):
            raise Failure(f"output '{name}': float32 values that are not {ref.dtype.name}"
                          f" values ({ref.dtype.name} expected, widened by dlc-run)")
        want = ref.astype(np.float32)
        bad = ~((got == want) | (np.isnan(got) & np.isnan(want)))
        if bad.any():
            idx = tuple(int(i) for i in np.argwhere(bad)[0])
            raise Failure(f"output '{name}' {ref.dtype}{list(ref.shape)}: {int(bad.sum())}/{ref.size}"
                          f" elements differ, first at {idx}: got {got[idx]}, expected {want[idx]}")
        return
    if got.dtype != ref.dtype:
        raise Failure(f"output '{name}': dtype {got.dtype}, expected {ref.dtype}")
    if ref.dtype.kind in "biuU":
        bad = got != ref
        if bad.any():
            idx = tuple(int(i) for i in np.argwhere(bad)[0])
            raise Failure(f"output '{name}' {ref.dtype}{list(ref.shape)}: {int(bad.sum())}/{ref.size}"
                          f" elements differ (exact compare), first at {idx}: got {got[idx]},"
                          f" expected {ref[idx]}")
        return
    ref64, got64 = ref.astype(np.float64), got.astype(np.float64)
    finite = np.isfinite(ref64)
    maxabs = float(np.abs(ref64[finite]).max()) if finite.any() else 0.0
    tol_a = atol * max(1.0, maxabs) if scale_atol else atol
    with np.errstate(invalid="ignore"):  # inf - inf: NaN, decided below
        err = np.abs(got64 - ref64)
        bad = ~((err <= tol_a + rtol * np.abs(ref64))
                | (np.isnan(got64) & np.isnan(ref64))
                | (np.isinf(ref64) & (got64 == ref64)))
    if bad.any():
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        worst = tuple(int(i) for i in np.unravel_index(np.nanargmax(np.where(bad, err, -1)), err.shape))
        raise Failure(f"output '{name}' {ref.dtype}{list(ref.shape)}: {int(bad.sum())}/{ref.size}"
                      f" elements outside rtol={rtol:g} atol={tol_a:.3g} (max|ref|={maxabs:.3g});"
                      f" first at {idx}: got {got[idx]!r}, expected {ref[idx]!r};"
                      f" worst at {worst}: got {got[worst]!r}, expected {ref[worst]!r}")


# ---------------------------------------------------------------- running cases


@dataclass
class Result:
    name: str
    status: str  # PASS, FAIL, XFAIL, XPASS
    message: str = ""
    seconds: float = 0.0


def common_args(description, cases=True):
    """The options every suite takes; `cases` adds those of run_cases."""
    p = argparse.ArgumentParser(description=description,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bin-dir", required=True, help="directory holding dlc and dlc-run")
    p.add_argument("--work-dir", help="keep the files made here (default: a temp dir, removed)")
    if cases:
        p.add_argument("-j", "--jobs", type=int, default=1, help="cases run at once")
        p.add_argument("-k", "--filter", default="", help="run only cases whose name matches this regex")
        p.add_argument("-v", "--verbose", action="store_true", help="print the full failure messages")
    return p


def run_cases(names, fn, args):
    """Call fn(name, case_dir) for every name (in parallel with args.jobs);
    fn returns None or raises Failure.  Prints one line per case as it ends
    and returns the Results in name order."""
    pattern = re.compile(args.filter)
    names = [n for n in names if pattern.search(n)]
    root = Path(args.work_dir) if args.work_dir else Path(tempfile.mkdtemp(prefix="dlc-e2e-"))
    root.mkdir(parents=True, exist_ok=True)

    def one(name):
        d = root / name
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir(parents=True)
        t0 = time.monotonic()
        try:
            fn(name, d)
            res = Result(name, "PASS")
        except Failure as e:
            res = Result(name, "FAIL", str(e))
        except ExpectedFailure as e:
            res = Result(name, "XFAIL", str(e))
        except UnexpectedPass as e:
            res = Result(name, "XPASS", str(e))
        except NoDevice as e:
            res = Result(name, "SKIP", str(e))
        except Exception as e:  # a harness bug or bad data: still report per case
            res = Result(name, "FAIL", f"{type(e).__name__}: {e}")
        res.seconds = time.monotonic() - t0
        if not args.work_dir:
            shutil.rmtree(d, ignore_errors=True)
        return res

    results = []
    try:
        with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
            for res in pool.map(one, names):
                results.append(res)
                print_result(res, args.verbose)
    finally:
        if not args.work_dir:
            shutil.rmtree(root, ignore_errors=True)
    return results


def print_result(res, verbose):
    msg = res.message
    if not verbose:  # the first lines, without the command
        lines = [ln for ln in msg.splitlines() if not ln.startswith("  command:")]
        msg = " | ".join(lines[:4])[:600]
    line = f"{res.status:5} {res.name} ({res.seconds:.2f} s)"
    print(line + (f": {msg}" if msg else ""), flush=True)


def summarize(results: Iterable[Result]):
    counts = {}
    for r in results:
        counts[r.status] = counts.get(r.status, 0) + 1
    order = ["PASS", "FAIL", "XFAIL", "XPASS", "SKIP"]
    return ", ".join(f"{counts[k]} {k.lower()}" for k in order if k in counts) or "no cases"


def finish(suite, results):
    """Print the summary; the exit code: SKIP when there was no CUDA device,
    1 on any failure or unexpected pass, else 0."""
    print(f"{suite}: {summarize(results)}")
    if any(r.status == "SKIP" for r in results):
        print("skipped: no CUDA GPU")
        return SKIP
    bad = [r.name for r in results if r.status in ("FAIL", "XPASS")]
    if bad:
        print(f"{suite}: {len(bad)} unexpected: {' '.join(bad)}")
        return 1
    return 0


def check_plan(report):
    """The arena plan's invariant, checked from outside the compiler: buffers
    whose live ranges intersect never share a byte, and every buffer fits the
    arena. Returns a list of problems (empty when the plan is sound)."""
    problems = []
    raw = report.get("buffers", [])
    # A buffer written in place over another shares its memory by design:
    # they form one group, which must not overlap any other live buffer.
    def group(i):
        while "in_place_of" in raw[i]:
            i = raw[i]["in_place_of"]
        return i
    bufs = sorted((dict(b, group=group(i)) for i, b in enumerate(raw)),
                  key=lambda b: b["offset"])
    arena = report["arena_bytes"]
    for b in bufs:
        if b["offset"] < 0 or b["offset"] + b["bytes"] > arena:
            problems.append(f"buffer {b} leaves the arena of {arena} bytes")
    for i, x in enumerate(bufs):
        for y in bufs[i + 1:]:
            if y["offset"] >= x["offset"] + x["bytes"]:
                break
            if x["group"] != y["group"] and x["first"] <= y["last"] and y["first"] <= x["last"]:
                problems.append(f"buffers {x} and {y} overlap while both are live")
    return problems
