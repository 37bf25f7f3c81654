#!/usr/bin/env python3
"""dlc next to PyTorch (eager, torch.compile, torch.compile reduce-overhead), in one run.

Models: torchvision resnet50 and mobilenet_v2, transformers BertModel and
GPT2Model, built in code with seeded random weights (nothing is downloaded:
default BertConfig()/GPT2Config(), no from_pretrained). Each is exported to
ONNX (opset 17, static shapes), compiled with dlc (compile time measured,
dlc restricted to --compile-cpus cores, 2 by default like the issue's 2-core
machine), timed with dlc-bench and checked with dlc-run against PyTorch on the
same inputs; PyTorch is timed eager, with torch.compile() and with
torch.compile(mode="reduce-overhead").

Microbenchmarks: square GEMMs (torch.matmul vs a dlc MatMul model, TFLOP/s)
and an elementwise kernel (dlc Add vs torch's device-to-device copy
bandwidth, y.copy_(x)).

What is timed (see docs/performance.md, "dlc vs PyTorch"):
- dlc-bench times one run of the model.so: host->device input copies, the
  kernels (a CUDA graph replay), device->host output copies, synchronize.
  The PyTorch "h2h" times do the same: the fp32 inputs start in host memory,
  are copied to the device (and cast to fp16/bf16 on the device), the model
  runs, the outputs are cast to fp32 and copied back. The ratio
  (dlc_vs_best = fastest PyTorch h2h time / dlc time, >1: dlc is faster)
  uses these. Device-resident times (inputs already on the device, no
  copies) are reported too ("dev"): PyTorch's, and dlc's from
  dlc-bench --resident (dlc_context_run_resident); dlc_vs_best_dev compares
  those.
- --precision=fp16 (GPU default) keeps the model's fp32 inputs and outputs
  and runs Conv/Gemm/MatMul on fp16 operands with fp32 accumulation,
  everything else in fp32; PyTorch runs model.half() (everything fp16).
  Outputs are checked against PyTorch fp32 (TF32 off): max |dlc - ref| /
  max |ref| must stay under --tol (default 2e-2 for fp16/bf16, 1e-3 for
  fp32); PyTorch's own fp16 error is reported next to it.
- Microbenchmarks cannot use one dlc-bench run directly: its input/output
  copies over PCIe would dominate. The dlc models there are chains of R+1
  and 1 identical kernels (GEMM: Y = A.B.B...B; elementwise: Y = X+c+c...+c
  compiled with --fuse-elementwise=false --fuse-kernels=false), and the time
  of one kernel is the
  difference of the two dlc-bench p50s divided by R (copies cancel). GEMMs
  use fp16/bf16 model inputs (--gemm-io native, dlc accepts them) or fp32
  inputs with --precision (--gemm-io fp32).

usage: bench_pytorch.py [--build build | --dlc-bin DIR] [--device cuda|cpu]
                        [--models resnet50,mobilenet_v2,bert,gpt2]
                        [--batches 1,32] [--text-batch 8] [--seq-len 128]
                        [--skip-compile-modes] [--iters N | --min-time SEC]
                        [--gemm-sizes 4096,8192] [--json out.json]
"""
import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
ALL_MODELS = ["resnet50", "mobilenet_v2", "bert", "gpt2"]
VISION = {"resnet50", "mobilenet_v2"}
TORCH_MODES = ["eager", "compile", "reduce-overhead"]

torch = None  # imported in main(): --help and --report work without PyTorch


# --------------------------------------------------------------------------
# Tools and subprocesses
# --------------------------------------------------------------------------

def find_tools(args):
    """dlc, dlc-run, dlc-bench from --dlc-bin (a bundle's bin/ or its root) or --build/bin."""
    if args.dlc_bin:
        base = Path(args.dlc_bin)
        dirs = [base, base / "bin"]
    else:
        dirs = [Path(args.build) / "bin"]
    tools = {}
    for name in ("dlc", "dlc-run", "dlc-bench"):
        for d in dirs:
            if (d / name).is_file() and os.access(d / name, os.X_OK):
                tools[name] = str(d / name)
                break
        else:
            sys.exit(f"bench_pytorch.py: error: no executable '{name}' in "
                     f"{' or '.join(str(d) for d in dirs)} (build dlc, or unpack "
                     "the bundle of `make bundle` and pass --dlc-bin DIR)")
    return tools


# dlc-run and dlc-bench take seconds; a kernel spinning on an mbarrier that
# never completes would take the device call's whole budget.
RUN_TIMEOUT = 300


def run(cmd, cpus=None, **kw):
    """Runs cmd; raises RuntimeError with the tail of its stderr on failure."""
    preexec = None
    if cpus:
        def preexec():
            allowed = sorted(os.sched_getaffinity(0))
            os.sched_setaffinity(0, allowed[:cpus])
    try:
        p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True,
                           preexec_fn=preexec, **kw)
    except subprocess.TimeoutExpired as e:
        raise RuntimeError(f"{Path(cmd[0]).name} timed out after {e.timeout} s "
                           "(a kernel that never finishes?)") from None
    if p.returncode != 0:
        tail = (p.stderr or p.stdout).strip().splitlines()[-15:]
        raise RuntimeError(f"{Path(cmd[0]).name} failed (exit {p.returncode}):\n  "
                           + "\n  ".join(tail))
    return p.stdout


class Dlc:
    def __init__(self, tools, args):
        self.tools, self.args = tools, args
        self.target = "cuda" if args.device == "cuda" else "cpu"

    def compile(self, onnx_path, so_path, precision=None, extra=(), all_cpus=False):
        cmd = [self.tools["dlc"], onnx_path, "-o", so_path, f"--target={self.target}",
               f"--report-json={so_path}.report.json", *extra]
        if self.target == "cuda":
            cmd.append(f"--arch={self.args.arch}")
        cmd += self.args.dlc_flag
        if precision and precision != "fp32":
            cmd.append(f"--precision={precision}")
        t = time.perf_counter()
        run(cmd, cpus=None if all_cpus else self.args.compile_cpus or None)
        seconds = time.perf_counter() - t
        report = json.loads(Path(f"{so_path}.report.json").read_text())
        return seconds, report

    def _inputs(self, inputs):
        return [a for name, path in inputs.items() for a in ("--input", f"{name}={path}")]

    def bench(self, so_path, inputs, iters=None, warmup=None, resident=False, steps=0):
        """dlc-bench --json; resident (cuda): time runs on the context's device
        buffers, without the host copies (dlc-bench --resident); steps: also
        the `steps` longest steps of a step-by-step run (dlc-bench --steps)."""
        a = self.args
        cmd = [self.tools["dlc-bench"], so_path, "--json", "--device", self.target,
               "--warmup", a.warmup if warmup is None else warmup, *self._inputs(inputs)]
        if resident:
            cmd.append("--resident")
        if steps:
            cmd += ["--steps", steps]
        iters = iters or a.iters
        cmd += ["--iters", iters] if iters else ["--min-time", a.min_time]
        if self.target == "cpu":
            cmd += ["--threads", a.threads]
        return json.loads(run(cmd, timeout=RUN_TIMEOUT))

    def run(self, so_path, inputs, out_dir):
        run([self.tools["dlc-run"], so_path, "--device", self.target,
             "--output-dir", out_dir, *self._inputs(inputs)], timeout=RUN_TIMEOUT)
        return {p.stem: np.load(p) for p in Path(out_dir).glob("*.npy")}


# --------------------------------------------------------------------------
# PyTorch side
# --------------------------------------------------------------------------


def torch_dtype(precision):
    return {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32,
            "tf32": torch.float32}[precision]


class Timer:
    def __init__(self, args, device):
        self.args, self.device = args, device

    def sync(self):
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)

    def __call__(self, fn):
        """Per-call wall time (synchronized) like dlc-bench: p50 and mean in ms."""
        a = self.args
        for _ in range(a.warmup):
            fn()
        self.sync()
        ms = []
        start = time.perf_counter()
        while (len(ms) < a.iters) if a.iters else \
                (len(ms) < 10 or time.perf_counter() - start < a.min_time):
            t = time.perf_counter()
            fn()
            self.sync()
            ms.append((time.perf_counter() - t) * 1e3)
        return {"p50": float(np.median(ms)), "mean": float(np.mean(ms)),
                "min": float(np.min(ms)), "iters": len(ms)}

    def device_ms(self, fn, reps):
        """Mean device time of fn in ms over reps back-to-back calls (CUDA events)."""
        for _ in range(max(2, self.args.warmup // 2)):
            fn()
        self.sync()
        best = float("inf")
        for _ in range(3):
            if self.device.type != "cuda":
                t = time.perf_counter()
                for _ in range(reps):
                    fn()
                best = min(best, (time.perf_counter() - t) * 1e3 / reps)
                continue
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(reps):
                fn()
            end.record()
            end.synchronize()
            best = min(best, start.elapsed_time(end) / reps)
        return best


def output_only(model):
    """Wraps a transformers model so it returns last_hidden_state only."""
    class OutputOnly(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.model = model

        def forward(self, input_ids, attention_mask):
            return self.model(input_ids=input_ids, attention_mask=attention_mask)[0]
    return OutputOnly()


def recalibrate_batchnorm(model, shape, seed):
    """Sets BatchNorm running statistics from random data: with the freshly
    initialized ones (mean 0, var 1) activations of a random-weight ResNet grow
    through the blocks, beyond what fp16 holds."""
    bns = [m for m in model.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    for m in bns:
        m.reset_running_stats()
        m.momentum = None  # cumulative average
    g = torch.Generator().manual_seed(seed + 1)
    model.train()
    with torch.no_grad():
        for _ in range(2):
            model(torch.randn(max(2, shape[0]), *shape[1:], generator=g))
    model.eval()


def build_model(name, args, batch):
    """(fp32 module on the CPU, {input name: numpy array}) for the model and batch."""
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    if name in VISION:
        import torchvision
        model = getattr(torchvision.models, name)(weights=None)
        shape = (batch, 3, args.image_size, args.image_size)
        recalibrate_batchnorm(model, (4, 3, args.image_size, args.image_size), args.seed)
        inputs = {"input": rng.standard_normal(shape, dtype=np.float32)}
    else:
        import transformers
        if name == "bert":
            config = transformers.BertConfig()
            if args.text_layers:
                config.num_hidden_layers = args.text_layers
            vocab = config.vocab_size
            model = transformers.BertModel(config, add_pooling_layer=False)
        elif name == "gpt2":
            config = transformers.GPT2Config()
            config.use_cache = False
            if args.text_layers:
                config.n_layer = args.text_layers
            vocab = config.vocab_size
            model = transformers.GPT2Model(config)
        else:
            raise ValueError(f"unknown model '{name}' (known: {', '.join(ALL_MODELS)})")
        model = output_only(model)
        shape = (args.text_batch, args.seq_len)
        inputs = {"input_ids": rng.integers(0, vocab, shape, dtype=np.int64),
                  "attention_mask": np.ones(shape, dtype=np.int64)}
    model.eval()
    return model, inputs


def export_onnx(model, inputs, path):
    import inspect
    kw = {}
    # The TorchScript exporter writes the opset-17 graphs dlc is tested with
    # (../shared/models); torch >= 2.9 defaults to the dynamo exporter.
    if "dynamo" in inspect.signature(torch.onnx.export).parameters:
        kw["dynamo"] = False
    args = tuple(torch.from_numpy(v) for v in inputs.values())
    import warnings
    with torch.no_grad(), warnings.catch_warnings():
        # The exporter's deprecation notice and the tracer's warnings about
        # Python values in transformers' mask code (static shapes: harmless).
        warnings.simplefilter("ignore")
        torch.onnx.export(model, args, str(path), input_names=list(inputs),
                          output_names=["output"], opset_version=17,
                          do_constant_folding=True, **kw)


def torch_runner(model, inputs, device, dtype, mode):
    """(h2h, dev, out) callables for one PyTorch mode. h2h: host fp32/int64
    inputs -> device -> model -> fp32 host output (what dlc-bench times);
    dev: device-resident inputs, model only."""
    fn = model
    if mode == "compile":
        fn = torch.compile(model)
    elif mode == "reduce-overhead":
        fn = torch.compile(model, mode="reduce-overhead")
    host = [torch.from_numpy(v) for v in inputs.values()]
    dev = [t.to(device).to(dtype) if t.is_floating_point() else t.to(device) for t in host]

    def h2h():
        xs = [t.to(device, non_blocking=False) for t in host]
        xs = [x.to(dtype) if x.is_floating_point() else x for x in xs]
        return fn(*xs).float().cpu()

    def devrun():
        return fn(*dev)

    return h2h, devrun


def rel_err(got, want):
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    if got.shape != want.shape:
        raise RuntimeError(f"output shape {got.shape} != PyTorch's {want.shape}")
    return float(np.abs(got - want).max() / max(1e-12, np.abs(want).max()))


# --------------------------------------------------------------------------
# Model rows
# --------------------------------------------------------------------------

def bench_model(name, batch, args, dlc, timer, device, work):
    row = {"kind": "model", "model": name, "precision": args.precision, "errors": {}}
    model, inputs = build_model(name, args, batch)
    first = next(iter(inputs.values()))
    row["shape"] = "x".join(map(str, first.shape))
    tag = f"{name}_{row['shape']}"
    dtype = torch_dtype(args.precision)

    # dlc: export, compile, check, time.
    npys = {}
    for k, v in inputs.items():
        npys[k] = work / f"{tag}.{k}.npy"
        np.save(npys[k], v)
    dlc_out = None
    try:
        onnx_path = work / f"{tag}.onnx"
        export_onnx(model, inputs, onnx_path)
        so = work / f"{tag}.so"
        row["compile_s"], report = dlc.compile(onnx_path, so, args.precision)
        row["kernels"] = report.get("kernel_count")
        dlc_out = dlc.run(so, npys, work / f"{tag}.out")
        b = dlc.bench(so, npys)
        row["dlc_ms"] = b["latency_ms"]["p50"]
        row["dlc_p99_ms"] = b["latency_ms"]["p99"]
        if dlc.target == "cuda":
            d = dlc.bench(so, npys, resident=True, steps=args.steps)
            row["dlc_dev_ms"] = d["latency_ms"]["p50"]
            if args.steps:
                # Where dlc's time goes (JSON only): the longest kernels of a
                # step-by-step run, and that run's total.
                row["dlc_steps_total_ms"] = d.get("steps_total_ms")
                row["dlc_top_steps"] = d.get("steps")
    except Exception as e:  # noqa: BLE001 - reported in the table
        row["errors"]["dlc"] = str(e)
    variant_outs = bench_variants(row, tag, npys, args, dlc, work) if dlc_out is not None else {}
    int8_out, int8_variant_outs = (bench_int8(row, name, tag, inputs, npys, args, dlc, work)
                                   if args.int8 else (None, {}))

    # PyTorch fp32 reference (TF32 off), then the timed modes.
    ref = None
    try:
        m32 = model.to(device)
        with torch.no_grad():
            xs = [torch.from_numpy(v).to(device) for v in inputs.values()]
            ref = m32(*xs).float().cpu().numpy()
    except Exception as e:  # noqa: BLE001
        row["errors"]["reference"] = str(e)
    # Each dlc build's output ("output", else its first) against the fp32
    # reference: (outputs, the row's error key, its check's error name).
    checks = [(dlc_out, "max_rel_err", "check"), (int8_out, "int8_rel_err", "int8_check")]
    checks += [(vout, f"{vname}_rel_err", f"{vname}_check")
               for vname, vout in variant_outs.items()]
    checks += [(vout, f"int8_{vname}_rel_err", f"int8_{vname}_check")
               for vname, vout in int8_variant_outs.items()]
    for outs, key, error in checks:
        if outs is not None and ref is not None:
            try:
                row[key] = rel_err(outs.get("output", next(iter(outs.values()))), ref)
            except Exception as e:  # noqa: BLE001
                row["errors"][error] = str(e)

    mlow = model.to(device=device, dtype=dtype)
    for mode in args.modes:
        key = mode.replace("-", "_")
        try:
            h2h, devrun = torch_runner(mlow, inputs, device, dtype, mode)
            with torch.no_grad():
                out = h2h()
                if mode == "eager" and ref is not None:
                    row["torch_err"] = rel_err(out.numpy(), ref)
                row[f"{key}_ms"] = timer(h2h)["p50"]
                row[f"{key}_dev_ms"] = timer(devrun)["p50"]
        except Exception as e:  # noqa: BLE001
            row["errors"][mode] = f"{type(e).__name__}: {e}".splitlines()[0][:300]
        finally:
            if hasattr(torch, "_dynamo"):
                torch._dynamo.reset()
    if "max_rel_err" in row:
        # A deep net with random weights can amplify half-precision rounding
        # past --tol in PyTorch's own fp16 run (resnet50: 2.7e-2 on the
        # H100); dlc passes when it is no worse than that (within 25%).
        bound = max(args.tol, 1.25 * row.get("torch_err", 0.0))
        row["ok"] = row["max_rel_err"] <= bound
        if not row["ok"]:
            row["errors"]["check"] = (f"dlc output differs from PyTorch fp32 by "
                                      f"{row['max_rel_err']:.3g} > {bound:.3g} (--tol {args.tol},"
                                      f" 1.25 x PyTorch's own error)")
        for vname in variant_outs:
            err = row.get(f"{vname}_rel_err")
            if err is not None and err > bound:
                row["errors"][f"{vname}_check"] = (
                    f"dlc {' '.join(dict(args.variants)[vname])} output differs from PyTorch "
                    f"fp32 by {err:.3g} > {bound:.3g}")
    # An int8 variant computes what the default int8 build does: its error
    # may differ by rounding only.
    for vname in int8_variant_outs:
        err, base = row.get(f"int8_{vname}_rel_err"), row.get("int8_rel_err")
        if err is not None and base is not None and err > 1.25 * base + 1e-3:
            row["errors"][f"int8_{vname}_check"] = (
                f"dlc int8 {' '.join(dict(args.int8_variants)[vname])} output differs from "
                f"PyTorch fp32 by {err:.3g}, the default int8 build by {base:.3g}")
    times = {m: row[f"{m.replace('-', '_')}_ms"] for m in args.modes
             if f"{m.replace('-', '_')}_ms" in row}
    if times:
        best = min(times, key=times.get)
        row["best_torch"], row["best_torch_ms"] = best, times[best]
        if "dlc_ms" in row:
            row["dlc_vs_best"] = times[best] / row["dlc_ms"]
    dev = {m: row[f"{m.replace('-', '_')}_dev_ms"] for m in args.modes
           if f"{m.replace('-', '_')}_dev_ms" in row}
    if dev and "dlc_dev_ms" in row:
        row["dlc_vs_best_dev"] = min(dev.values()) / row["dlc_dev_ms"]
    del model, mlow
    return row


def bench_variants(row, tag, npys, args, dlc, work, variants=None, precision=None, extra=(),
                   prefix=""):
    """Each --variant NAME=FLAGS (or each of `variants`): the same ONNX model
    compiled at `precision` with `extra` and the variant's flags (on every
    core: its compile time is not the one reported), run for its outputs and
    timed like the default build: dlc_KEY_ms, dlc_KEY_dev_ms and
    KEY_vs_BASE_dev (the base build resident / the variant resident, >1: the
    variant is faster), KEY = `prefix` + NAME; the base build is the
    default one, or with `prefix` "int8_" the int8 one. Returns {NAME:
    outputs}."""
    variants = args.variants if variants is None else variants
    base = "int8" if prefix else "dlc"
    base_dev = row.get(f"dlc_{prefix}dev_ms")
    outs = {}
    if variants:
        row[f"{prefix}variants"] = [name for name, _ in variants]
    for name, flags in variants:
        key = prefix + name
        try:
            so = work / f"{tag}.{key}.so"
            dlc.compile(work / f"{tag}.onnx", so, precision or args.precision,
                        extra=[*extra, *flags], all_cpus=True)
            outs[name] = dlc.run(so, npys, work / f"{tag}.{key}.out")
            row[f"dlc_{key}_ms"] = dlc.bench(so, npys)["latency_ms"]["p50"]
            if dlc.target == "cuda":
                d = dlc.bench(so, npys, resident=True)
                dev = d["latency_ms"]["p50"]
                row[f"dlc_{key}_dev_ms"] = dev
                # Programmatic launches in the graph (--overlap-launches);
                # 0 says the driver fell back to serialized launches.
                row[f"dlc_{key}_overlapped"] = d.get("overlapped_launches")
                if base_dev:
                    row[f"{key}_vs_{base}_dev"] = base_dev / dev
        except Exception as e:  # noqa: BLE001 - reported in the table
            row["errors"][key] = str(e)
    return outs


def parse_variant(text):
    """NAME=FLAGS (FLAGS split on spaces) -> (NAME, [FLAGS...])."""
    name, sep, flags = text.partition("=")
    if not sep or not name.isidentifier() or not flags.split():
        raise argparse.ArgumentTypeError(
            f"'{text}': expected NAME=FLAGS, e.g. overlap=--overlap-launches")
    return name, flags.split()


def bench_int8(row, name, tag, inputs, npys, args, dlc, work):
    """--int8: the same model through dlc's post-training int8
    (--precision=int8 --calibrate) on --calib-samples random inputs shaped
    like the benchmark's; times it like the fp16 build. Returns its outputs
    on the benchmark's inputs (compared with PyTorch fp32 by the caller)."""
    try:
        cal = work / f"{tag}.cal"
        rng = np.random.default_rng(args.seed + 1)
        # The host runs the fp32 model (every activation captured) and the
        # int8 one on each sample: at batch 32, 4 samples of 32 images did
        # not finish in 220 s on the H100 machine. 4 images in all suffice
        # for min-max ranges (the PTQ tests calibrate on 4).
        batch = next(iter(inputs.values())).shape[0]
        samples = args.calib_samples or max(1, -(-4 // batch))
        row["int8_calib_samples"] = samples
        for i in range(samples):
            d = cal / f"s{i}"
            d.mkdir(parents=True, exist_ok=True)
            for k, v in inputs.items():
                if np.issubdtype(v.dtype, np.integer):
                    sample = rng.integers(0, int(v.max()) + 1, size=v.shape).astype(v.dtype)
                else:
                    sample = rng.standard_normal(v.shape).astype(v.dtype)
                np.save(d / f"{k}.npy", sample)
        so = work / f"{tag}.int8.so"
        # The first build calibrates (its compile time is the row's: a cache
        # left by an earlier run goes first) and writes the cache, which the
        # --int8-variant builds read.
        cache = work / f"{tag}.cal.cache"
        cache.unlink(missing_ok=True)
        calibrate = [f"--calibrate={cal}", f"--calibration-cache={cache}"]
        row["int8_compile_s"], report = dlc.compile(work / f"{tag}.onnx", so, "int8",
                                                    calibrate)
        q = report.get("quantization", {})
        if "e2e_sqnr_db" in q:
            row["int8_sqnr_db"] = q["e2e_sqnr_db"]
        out = dlc.run(so, npys, work / f"{tag}.int8.out")
        row["dlc_int8_ms"] = dlc.bench(so, npys)["latency_ms"]["p50"]
        if dlc.target == "cuda":
            d = dlc.bench(so, npys, resident=True, steps=args.steps)
            row["dlc_int8_dev_ms"] = d["latency_ms"]["p50"]
            if args.steps:
                row["dlc_int8_steps_total_ms"] = d.get("steps_total_ms")
                row["dlc_int8_top_steps"] = d.get("steps")
        if "dlc_ms" in row:
            row["int8_vs_dlc"] = row["dlc_ms"] / row["dlc_int8_ms"]
    except Exception as e:  # noqa: BLE001 - reported in the table
        row["errors"]["int8"] = str(e)
        return None, {}
    # The same calibration inputs for each --int8-variant.
    return out, bench_variants(row, tag, npys, args, dlc, work, args.int8_variants, "int8",
                               calibrate, prefix="int8_")


# --------------------------------------------------------------------------
# Microbenchmarks
# --------------------------------------------------------------------------

def chain_model(path, op, n_ops, shape, elem_type, second, attrs=None):
    """ONNX model: Y = X op S op S ... (n_ops times). second: 'input' (S is a
    second model input of the same shape) or a float constant (scalar);
    attrs: the op's attributes."""
    import onnx
    from onnx import helper, numpy_helper
    inits, ins = [], [helper.make_tensor_value_info("X", elem_type, list(shape))]
    if second == "input":
        ins.append(helper.make_tensor_value_info("S", elem_type, list(shape)))
    else:
        np_t = onnx.helper.tensor_dtype_to_np_dtype(elem_type)
        inits.append(numpy_helper.from_array(np.array(second, dtype=np_t), "S"))
    nodes, prev = [], "X"
    for i in range(n_ops):
        out = "Y" if i == n_ops - 1 else f"t{i}"
        nodes.append(helper.make_node(op, [prev, "S"], [out], **(attrs or {})))
        prev = out
    graph = helper.make_graph(nodes, "chain", ins,
                              [helper.make_tensor_value_info("Y", elem_type, list(shape))],
                              initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(path))


def onnx_elem(precision):
    from onnx import TensorProto
    return {"fp16": TensorProto.FLOAT16, "bf16": TensorProto.BFLOAT16,
            "fp32": TensorProto.FLOAT}[precision]


def save_npy(path, t):
    """Saves a torch tensor as .npy (bf16 as raw uint16 is not readable by
    dlc-run, so bf16 goes through a .pb TensorProto)."""
    if t.dtype == torch.bfloat16:
        from onnx import TensorProto, helper
        path = path.with_suffix(".pb")
        raw = t.contiguous().view(torch.int16).numpy().tobytes()
        tp = helper.make_tensor("x", TensorProto.BFLOAT16, list(t.shape), raw, raw=True)
        path.write_bytes(tp.SerializeToString())
        return path
    np.save(path, t.numpy())
    return path


def dlc_chain_ms(row, dlc, work, tag, op, shape, precision, io, second, inputs, args, extra,
                 check_kernels, attrs=None):
    """Per-op dlc time (returned with the 1-op build's figures, which also go
    into `row` with the chain length and any note) from the dlc-bench p50s of
    a 1-op and a (1+R)-op chain
    (the input/output copies, the same in both, cancel). On CUDA the runs
    are resident (dlc-bench --resident: no host copies, whose PCIe noise
    swamped a 0.2 ms GEMM in the first H100 run), so what remains is the
    launch and graph overhead. R: enough ops for their time to stand out of
    the noise (about the 1-op run time; 20 ms at least with copies, 2 ms
    resident), at most --chain; estimated from a quick 2-op run, so a
    slow kernel does not make a long chain. check_kernels: the chain must
    have one more kernel per op (an elementwise chain fused into one kernel
    moves the bytes of one op only)."""
    elem = onnx_elem(precision if io == "native" else "fp32")
    flag = None if io == "native" else precision
    models = {}

    def model(k):
        if k not in models:
            path = work / f"{tag}.{k}.onnx"
            chain_model(path, op, k, shape, elem, second, attrs)
            so = work / f"{tag}.{k}.so"
            compile_s, report = dlc.compile(path, so, flag, extra)
            models[k] = {"so": so, "compile_s": compile_s, "kernels": report.get("kernel_count")}
        return models[k]

    resident = dlc.target == "cuda"
    quick = {k: dlc.bench(model(k)["so"], inputs, iters=3, warmup=1,
                          resident=resident)["latency_ms"]["p50"]
             for k in (1, 2)}
    est = quick[2] - quick[1]
    target = max(2.0 if resident else 20.0, quick[1])
    reps = args.chain if est <= 0 else max(1, min(args.chain, int(np.ceil(target / est))))
    res = {}
    for k in (1, 1 + reps):
        b = dlc.bench(model(k)["so"], inputs, warmup=2, resident=resident)
        res[k] = dict(model(k), p50=b["latency_ms"]["p50"])
    per = (res[1 + reps]["p50"] - res[1]["p50"]) / reps
    note = ""
    kd = (res[1 + reps]["kernels"] or 0) - (res[1]["kernels"] or 0)
    if check_kernels and kd != reps:
        note = f"kernel count grew by {kd}, not {reps}: per-kernel time is approximate"
    if per <= 0:
        note = "chain difference not positive (copy noise): raise --chain or --min-time"
    row["chain"] = reps
    row["compile_s"] = res[1]["compile_s"]
    row["dlc_1op_ms"] = res[1]["p50"]
    if note:
        row["errors"]["note"] = note
    return per, res[1]


def compare_with_torch(row, label):
    """dlc_vs_best of a microbenchmark row: torch's time / dlc's."""
    if "dlc_ms" in row and "torch_ms" in row:
        row["best_torch"], row["best_torch_ms"] = label, row["torch_ms"]
        row["dlc_vs_best"] = row["torch_ms"] / row["dlc_ms"]
    return row


def bench_gemm(n, precision, args, dlc, timer, device, work):
    row = {"kind": "gemm", "model": f"matmul {n}^3", "shape": f"{n}x{n}x{n}",
           "precision": precision, "gemm_io": args.gemm_io, "errors": {}}
    flops = 2.0 * n ** 3
    dtype = torch_dtype(precision)
    g = torch.Generator().manual_seed(args.seed)
    # Entries with variance 1/n keep the chain's values at scale 1.
    a = (torch.randn(n, n, generator=g) / n ** 0.5).to(dtype)
    b = (torch.randn(n, n, generator=g) / n ** 0.5).to(dtype)
    tf32 = precision == "tf32"
    try:
        ad, bd = a.to(device), b.to(device)
        out = torch.empty_like(ad)
        reps = max(1, int(args.gemm_reps))
        # TF32: cuBLAS on TF32 tensor cores for the timing, fp32 for the
        # reference.
        if tf32 and device.type == "cuda":
            torch.backends.cuda.matmul.allow_tf32 = True
        try:
            ms = timer.device_ms(lambda: torch.matmul(ad, bd, out=out), reps)
        finally:
            if device.type == "cuda":
                torch.backends.cuda.matmul.allow_tf32 = False
        row["torch_ms"], row["torch_tflops"] = ms, flops / ms / 1e9
        ref = torch.matmul(ad, bd).float().cpu()
        del ad, bd, out
    except Exception as e:  # noqa: BLE001
        row["errors"]["torch"] = f"{type(e).__name__}: {e}".splitlines()[0][:300]
        ref = None
    try:
        tag = f"gemm{n}_{precision}_{args.gemm_io}"
        io = (lambda t: t) if args.gemm_io == "native" else (lambda t: t.float())
        if tf32 or args.arch == "sm_90a":
            # dlc's TF32 GEMMs and its wgmma GEMMs (sm_90a) read B as [N,
            # K]: Gemm(transB=1) on B^T. (A [K, N] activation B keeps
            # mma.sync on sm_90a.)
            row["dlc_kernel"] = "mma.sync tf32" if tf32 else "wgmma"
            files = {"X": save_npy(work / f"{tag}.A.npy", a if tf32 else io(a)),
                     "S": save_npy(work / f"{tag}.B.npy", (b if tf32 else io(b)).t().contiguous())}
            per, one = dlc_chain_ms(row, dlc, work, tag, "Gemm", (n, n),
                                    "fp32" if tf32 else precision,
                                    "native" if tf32 else args.gemm_io, "input", files, args,
                                    ("--allow-tf32",) if tf32 else (), False,
                                    attrs={"transB": 1})
        else:
            files = {"X": save_npy(work / f"{tag}.A.npy", io(a)),
                     "S": save_npy(work / f"{tag}.B.npy", io(b))}
            per, one = dlc_chain_ms(row, dlc, work, tag, "MatMul", (n, n), precision,
                                    args.gemm_io, "input", files, args, (), False)
        if per > 0:
            row["dlc_ms"], row["dlc_tflops"] = per, flops / per / 1e9
        if ref is not None:
            got = dlc.run(one["so"], files, work / f"{tag}.out")["Y"]
            row["max_rel_err"] = rel_err(got.astype(np.float32), ref.numpy())
            # TF32 keeps 10 mantissa bits: fp16's tolerance.
            row["ok"] = row["max_rel_err"] <= (max(args.tol, 2e-2) if tf32 else args.tol)
    except Exception as e:  # noqa: BLE001
        row["errors"]["dlc"] = str(e)
    return compare_with_torch(row, "matmul")


def bench_elementwise(n, args, dlc, timer, device, work):
    precision = "fp32" if args.precision == "fp32" else "fp16"
    dtype = torch_dtype(precision)
    esize = torch.tensor([], dtype=dtype).element_size()
    row = {"kind": "elementwise", "model": "add scalar (1 read, 1 write)",
           "shape": str(n), "precision": precision, "errors": {}}
    moved = 2.0 * n * esize  # bytes read + written, as by a copy
    g = torch.Generator().manual_seed(args.seed)
    x = torch.randn(n, generator=g).to(dtype)
    try:
        xd = x.to(device)
        yd = torch.empty_like(xd)
        ms = timer.device_ms(lambda: yd.copy_(xd), 20)
        row["copy_ms"], row["copy_gbps"] = ms, moved / ms / 1e6
        ms = timer.device_ms(lambda: torch.add(xd, 0.5, out=yd), 20)
        row["torch_ms"], row["torch_gbps"] = ms, moved / ms / 1e6
        row["torch_pct_copy"] = 100.0 * row["torch_gbps"] / row["copy_gbps"]
        del xd, yd
    except Exception as e:  # noqa: BLE001
        row["errors"]["torch"] = f"{type(e).__name__}: {e}".splitlines()[0][:300]
    try:
        tag = f"add{n}_{precision}"
        files = {"X": save_npy(work / f"{tag}.X.npy", x)}
        per, one = dlc_chain_ms(
            row, dlc, work, tag, "Add", (n,), precision, "native", 0.5, files, args,
            ("--fuse-elementwise=false", "--fuse-kernels=false"), True)
        if per > 0:
            row["dlc_ms"], row["dlc_gbps"] = per, moved / per / 1e6
            if "copy_gbps" in row:
                row["dlc_pct_copy"] = 100.0 * row["dlc_gbps"] / row["copy_gbps"]
        got = dlc.run(one["so"], files, work / f"{tag}.out")["Y"]
        row["max_rel_err"] = rel_err(got.astype(np.float32), (x.float() + 0.5).to(dtype).float().numpy())
        row["ok"] = row["max_rel_err"] <= args.tol
    except Exception as e:  # noqa: BLE001
        row["errors"]["dlc"] = str(e)
    return compare_with_torch(row, "add")


# --------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------

def fmt(v):
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "NO"
    if isinstance(v, float):
        return f"{v:.3g}"
    return str(v)


def print_table(rows, modes):
    """One markdown table: times in ms (p50), dlc_vs_best = fastest PyTorch / dlc."""
    cols = ["model", "shape", "precision", "compile_s", "dlc_ms"]
    cols += [f"{m.replace('-', '_')}_ms" for m in modes]
    cols += ["best_torch", "dlc_vs_best", "max_rel_err", "torch_err", "ok"]
    cols += ["dlc_dev_ms"] + [f"{m.replace('-', '_')}_dev_ms" for m in modes]
    variants = list(dict.fromkeys(v for r in rows for v in r.get("variants", [])))
    for v in variants:
        cols += [f"dlc_{v}_ms", f"dlc_{v}_dev_ms", f"{v}_vs_dlc_dev", f"{v}_rel_err"]
        if any(r.get(f"dlc_{v}_overlapped") for r in rows):
            cols.append(f"dlc_{v}_overlapped")
    cols += ["dlc_vs_best_dev", "dlc_int8_ms", "dlc_int8_dev_ms", "int8_vs_dlc", "int8_sqnr_db",
             "int8_rel_err"]
    for v in dict.fromkeys(v for r in rows for v in r.get("int8_variants", [])):
        cols += [f"dlc_int8_{v}_ms", f"dlc_int8_{v}_dev_ms", f"int8_{v}_vs_int8_dev",
                 f"int8_{v}_rel_err"]
    cols += ["dlc_1op_ms", "chain", "dlc_tflops", "torch_tflops", "dlc_gbps", "copy_gbps",
             "dlc_pct_copy", "torch_pct_copy"]
    cols = [c for c in cols if any(c in r for r in rows)]
    print("| " + " | ".join(cols) + " |")
    print("|" + " --- |" * len(cols))
    for r in rows:
        print("| " + " | ".join(fmt(r.get(c)) for c in cols) + " |")
    print("\n*_ms: p50 ms per call with host<->device copies, like dlc-bench; *_dev_ms: "
          "device-resident inputs and outputs (dlc: dlc-bench --resident); dlc_vs_best(_dev): "
          "fastest PyTorch / dlc (>1: dlc "
          "faster); max_rel_err / torch_err: max|out-ref|/max|ref| of dlc / PyTorch low "
          "precision vs PyTorch fp32; microbenchmarks: dlc_ms per kernel from a chain of "
          "`chain`+1 vs 1 ops, torch timed on the device"
          + ("; dlc_V_*: the --variant V build, V_vs_dlc_dev: dlc_dev_ms / dlc_V_dev_ms "
             "(>1: V faster)." if variants else "."))
    errs = [(r["model"], r.get("shape"), k, v) for r in rows for k, v in r.get("errors", {}).items()]
    if errs:
        print("\nerrors and notes:")
        for model, shape, k, v in errs:
            print(f"- {model} {shape} [{k}]: " + v.replace("\n", "\n    "))


def environment(args, device):
    env = {"device": args.device, "host": platform.node(), "python": platform.python_version(),
           "torch": torch.__version__, "cpu_count": os.cpu_count(),
           "compile_cpus": args.compile_cpus, "precision": args.precision,
           "dlc_flags": args.dlc_flag,
           "variants": {name: flags for name, flags in args.variants},
           "int8_variants": {name: flags for name, flags in args.int8_variants}}
    for mod in ("torchvision", "transformers", "onnx"):
        try:
            env[mod] = __import__(mod).__version__
        except Exception:  # noqa: BLE001
            env[mod] = None
    if device.type == "cuda":
        env["gpu"] = torch.cuda.get_device_name(device)
        env["cuda"] = torch.version.cuda
        env["arch"] = args.arch
    return env


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    src = ap.add_mutually_exclusive_group()
    src.add_argument("--build", default=str(ROOT / "build"),
                     help="build dir whose bin/ has dlc, dlc-run, dlc-bench (default: %(default)s)")
    src.add_argument("--dlc-bin", help="the tools' directory instead: the unpacked "
                     "`make bundle` archive (dlc-bundle or dlc-bundle/bin)")
    ap.add_argument("--device", default="cuda", choices=["cuda", "cpu"],
                    help="cuda (PyTorch on the GPU, dlc --target=cuda) or cpu "
                    "(smoke mode: PyTorch on the CPU, dlc --target=cpu, fp32)")
    ap.add_argument("--steps", type=int, default=10,
                    help="per model, the N longest dlc steps of a step-by-step run "
                    "(dlc-bench --steps) in the JSON (dlc_top_steps; 0: off)")
    ap.add_argument("--arch", default="sm_90a",
                    help="dlc --arch (default %(default)s: H100/H200 with wgmma GEMMs; sm_90 "
                    "for the mma.sync kernels)")
    ap.add_argument("--dlc-flag", action="append", default=[], metavar="FLAG",
                    help="pass FLAG to every dlc build (repeatable), e.g. "
                         "--dlc-flag=--tma=false to time the cp.async kernels")
    ap.add_argument("--variant", dest="variants", action="append", default=[],
                    type=parse_variant, metavar="NAME=FLAGS",
                    help="per model, also build with these extra dlc flags (space "
                         "separated) and time it next to the default build, e.g. "
                         "--variant overlap=--overlap-launches (repeatable)")
    ap.add_argument("--precision", choices=["fp16", "bf16", "fp32"],
                    help="model precision (default: fp16 on cuda, fp32 on cpu)")
    ap.add_argument("--models", default=",".join(ALL_MODELS),
                    help="comma separated, or 'none' (default: %(default)s)")
    ap.add_argument("--batches", default="1,32", help="vision batch sizes (default %(default)s)")
    ap.add_argument("--image-size", type=int, default=224)
    ap.add_argument("--text-batch", type=int, default=8)
    ap.add_argument("--seq-len", type=int, default=128)
    ap.add_argument("--text-layers", type=int, default=0,
                    help="override the layer count of BERT/GPT-2 (default: the config's 12)")
    ap.add_argument("--skip-compile-modes", action="store_true",
                    help="time PyTorch eager only (no torch.compile)")
    ap.add_argument("--export", nargs=3, metavar=("MODEL", "BATCH", "OUT"),
                    help="only export MODEL (one of " + ",".join(ALL_MODELS) + ") at BATCH to"
                         " the ONNX file OUT, as the benchmark does, and exit (for profiling)")
    ap.add_argument("--torch-modes", default=None,
                    help="comma separated PyTorch modes to time, of " + ",".join(TORCH_MODES) +
                         " (default: all; eager is always timed: it gives torch_err)")
    ap.add_argument("--iters", type=int, default=0,
                    help="timed iterations (default: as many as fit --min-time)")
    ap.add_argument("--min-time", type=float, default=2.0,
                    help="seconds per timing (default %(default)s)")
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--threads", type=int, default=os.cpu_count(),
                    help="cpu device: dlc-bench threads and torch threads")
    ap.add_argument("--compile-cpus", type=int, default=2,
                    help="cores dlc may use while compiling, to report the compile "
                    "time of a 2-core machine (0: all; default %(default)s)")
    ap.add_argument("--gemm-sizes", default="4096,8192",
                    help="square GEMM sizes, or 'none' (default %(default)s)")
    ap.add_argument("--gemm-precisions", default=None,
                    help="fp16, bf16, fp32 or tf32 (fp32 operands on TF32 tensor cores: "
                    "dlc --allow-tf32 against torch.matmul with allow_tf32); "
                    "default: fp16,bf16 on cuda, fp32 on cpu")
    ap.add_argument("--gemm-io", choices=["native", "fp32"], default="native",
                    help="dlc GEMM models with fp16/bf16 inputs (native) or fp32 inputs "
                    "and --precision (default %(default)s)")
    ap.add_argument("--gemm-reps", type=int, default=20,
                    help="back-to-back torch.matmul calls per timing (default %(default)s)")
    ap.add_argument("--elementwise-size", type=int, default=1 << 27,
                    help="elements of the elementwise benchmark, 0 to skip (default %(default)s)")
    ap.add_argument("--chain", type=int, default=64,
                    help="most extra ops in the dlc microbenchmark chains (default %(default)s)")
    ap.add_argument("--tol", type=float, default=None,
                    help="max |dlc-ref|/max|ref| (default 2e-2 fp16/bf16, 1e-3 fp32)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--int8", action="store_true",
                    help="also build each model with dlc --precision=int8 (calibrated on "
                         "--calib-samples random inputs) and time it: the int8 column")
    ap.add_argument("--int8-variant", dest="int8_variants", action="append", default=[],
                    type=parse_variant, metavar="NAME=FLAGS",
                    help="with --int8: also build the int8 model with these extra dlc flags, "
                         "time it and check it against the fp32 reference, e.g. "
                         "--int8-variant unstaged=--stage-epilogue=false (repeatable)")
    ap.add_argument("--calib-samples", type=int, default=0,
                    help="calibration samples (batches) for --int8; 0, the default: "
                         "enough for 4 images (4 at batch 1, 1 at batch 32)")
    ap.add_argument("--work-dir", help="keep the ONNX models, model.so files and inputs here")
    ap.add_argument("--json", help="write the rows and the environment as JSON")
    ap.add_argument("--report", nargs="+", metavar="JSON",
                    help="run nothing: print one table from the --json files of "
                    "earlier runs (e.g. one per model, to fit a time limit per command); "
                    "with --json, write them merged")
    args = ap.parse_args()

    if args.report:
        runs = [json.loads(Path(f).read_text()) for f in args.report]
        rows = [r for run_ in runs for r in run_["rows"]]
        print_table(rows, TORCH_MODES)
        if args.json:
            Path(args.json).write_text(json.dumps(
                {"environment": [r["environment"] for r in runs], "rows": rows}, indent=2) + "\n")
        return 0

    global torch
    try:
        import torch
    except ImportError:
        sys.exit("bench_pytorch.py: error: PyTorch is not installed "
                 "(pip install -r benchmarks/requirements.txt)")
    if args.export:
        name, batch, out = args.export
        if name not in ALL_MODELS or not batch.isdigit() or int(batch) < 1:
            sys.exit(f"bench_pytorch.py: error: --export {name} {batch}: expected one of"
                     f" {','.join(ALL_MODELS)} and a batch >= 1")
        model, inputs = build_model(name, args, int(batch))
        export_onnx(model, inputs, Path(out))
        print(f"{out}: {name} batch {batch}, inputs {', '.join(inputs)}")
        return 0
    if args.precision is None:
        args.precision = "fp16" if args.device == "cuda" else "fp32"
    if args.tol is None:
        args.tol = 1e-3 if args.precision == "fp32" else 2e-2
    if args.gemm_precisions is None:
        args.gemm_precisions = "fp16,bf16" if args.device == "cuda" else "fp32"
    args.modes = ["eager"] if args.skip_compile_modes else list(TORCH_MODES)
    if args.torch_modes:
        asked = [m for m in args.torch_modes.split(",") if m]
        bad = [m for m in asked if m not in TORCH_MODES]
        if bad:
            sys.exit(f"bench_pytorch.py: error: unknown --torch-modes {','.join(bad)}"
                     f" (expected {','.join(TORCH_MODES)})")
        args.modes = ["eager"] + [m for m in asked if m != "eager"]
    if args.device == "cuda":
        if not torch.cuda.is_available():
            sys.exit("bench_pytorch.py: error: --device cuda but torch.cuda.is_available() "
                     "is False (use --device cpu for the smoke mode)")
        device = torch.device("cuda")
        torch.backends.cuda.matmul.allow_tf32 = False  # fp32 reference
        torch.backends.cudnn.allow_tf32 = False
    else:
        device = torch.device("cpu")
        torch.set_num_threads(args.threads)
    tools = find_tools(args)
    dlc = Dlc(tools, args)
    timer = Timer(args, device)

    def split(s):
        return [] if s in ("", "none") else [x for x in s.split(",") if x]

    rows = []

    def save():
        if args.json:
            Path(args.json).write_text(json.dumps(
                {"environment": environment(args, device), "rows": rows}, indent=2) + "\n")

    def guarded(label, fn, *a):
        print(f"[bench_pytorch] {label} ...", file=sys.stderr, flush=True)
        t = time.perf_counter()
        try:
            row = fn(*a)
        except Exception as e:  # noqa: BLE001 - one failure must not stop the rest
            traceback.print_exc()
            row = {"model": label, "errors": {"run": f"{type(e).__name__}: {e}"}}
        print(f"[bench_pytorch] {label}: {time.perf_counter() - t:.1f} s"
              + (f", errors: {', '.join(row['errors'])}" if row.get("errors") else ""),
              file=sys.stderr, flush=True)
        rows.append(row)
        save()  # after every row: a run cut off by a time limit keeps what it measured
        if device.type == "cuda":
            torch.cuda.empty_cache()

    work_ctx = tempfile.TemporaryDirectory(prefix="bench_pytorch.")
    work = Path(args.work_dir) if args.work_dir else Path(work_ctx.name)
    work.mkdir(parents=True, exist_ok=True)
    try:
        for name in split(args.models):
            if name not in ALL_MODELS:
                sys.exit(f"bench_pytorch.py: error: unknown model '{name}' "
                         f"(known: {', '.join(ALL_MODELS)})")
            batches = [int(b) for b in split(args.batches)] if name in VISION else [args.text_batch]
            for batch in batches:
                guarded(f"{name} batch {batch}", bench_model, name, batch, args, dlc, timer,
                        device, work)
        for n in [int(s) for s in split(args.gemm_sizes)]:
            for p in split(args.gemm_precisions):
                guarded(f"gemm {n} {p}", bench_gemm, n, p, args, dlc, timer, device, work)
        if args.elementwise_size > 0:
            guarded(f"elementwise {args.elementwise_size}", bench_elementwise,
                    args.elementwise_size, args, dlc, timer, device, work)
    finally:
        if not args.work_dir:
            work_ctx.cleanup()

    print_table(rows, args.modes)
    failed = [r for r in rows if r.get("ok") is False or "dlc" in r.get("errors", {})
              or any(v in r.get("errors", {}) or f"{v}_check" in r.get("errors", {})
                     for v in r.get("variants", []))]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
