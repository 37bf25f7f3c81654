#!/usr/bin/env python3
"""Model-zoo check for one model of ../shared/models: restore its weights
(cached), compile it with dlc, run it on the *.ref.npz inputs and compare with
the ONNX Runtime outputs stored there; then compile it for CUDA and check
model.so (and, with --ptxas, the PTX) for each --cuda-arch.

    test_models.py --bin-dir build/bin --models-dir ../shared/models \\
        --tools-dir ../shared/tools --cache-dir build/test/e2e resnet50

With --device cuda the model is compiled for the GPU found and run there
(exit 77 without one).

With --ort-quantize qoperator|qdq the restored fp32 model first goes through
ONNX Runtime's quantize_static (per-channel weights, 4 seeded random
calibration inputs; QOperator writes QLinearConv and the com.microsoft
QLinearAdd, QLinearGlobalAveragePool, QGemm...), and the reference is ONNX
Runtime's output of that quantized model on the *.ref.npz inputs.
"""
from __future__ import annotations

import os
import re
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import onnx

sys.path.insert(0, str(Path(__file__).resolve().parent))
import harness  # noqa: E402

SKIP = harness.SKIP


def restore_weights(name, models_dir, tools_dir, cache_dir):
    """cache_dir/NAME.onnx from NAME.skel.onnx, written only when missing."""
    out = Path(cache_dir) / f"{name}.onnx"
    if out.is_file():
        return out
    skel = Path(models_dir) / f"{name}.skel.onnx"
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f"{out.name}.tmp{os.getpid()}")
    t0 = time.monotonic()
    p = subprocess.run([sys.executable, str(Path(tools_dir) / "fill_weights.py"), str(skel), str(tmp)],
                       capture_output=True, text=True)
    if p.returncode != 0:
        tmp.unlink(missing_ok=True)
        raise harness.Failure(f"fill_weights.py {skel} failed:\n{p.stderr.strip()}")
    tmp.replace(out)
    print(f"restored {out} in {time.monotonic() - t0:.1f} s")
    return out


def load_reference(path):
    """({input name: array}, {output name: array}) from the `in:`/`out:` keys."""
    with np.load(path) as z:
        ins = {k[3:]: z[k] for k in z.files if k.startswith("in:")}
        outs = {k[4:]: z[k] for k in z.files if k.startswith("out:")}
    return ins, outs


def ort_quantize(model, feeds, fmt, work):
    """`model` through ONNX Runtime's quantize_static in format `fmt`
    (qoperator or qdq): per-channel int8 weights, uint8 activations
    calibrated by min-max on 4 seeded random inputs shaped as `feeds`;
    qdq-a16w8: QDQ with uint16 activations (the model moves to opset 21)."""
    harness.require("onnxruntime")
    import logging

    from onnxruntime import quantization as ortq
    from onnxruntime.quantization.shape_inference import quant_pre_process

    logging.getLogger().setLevel(logging.ERROR)
    r = np.random.default_rng(0)
    samples = iter([{k: r.standard_normal(v.shape).astype(v.dtype) for k, v in feeds.items()}
                    for _ in range(4)])

    class Reader(ortq.CalibrationDataReader):
        def get_next(self):
            return next(samples, None)

    pre, out = work / "ort-pre.onnx", work / f"ort-{fmt}.onnx"
    quant_pre_process(str(model), str(pre), skip_symbolic_shape=True)
    extra = ({"activation_type": ortq.QuantType.QUInt16, "weight_type": ortq.QuantType.QInt8}
             if fmt == "qdq-a16w8" else {})
    ortq.quantize_static(str(pre), str(out), Reader(), per_channel=True,
                         quant_format={"qoperator": ortq.QuantFormat.QOperator,
                                       "qdq": ortq.QuantFormat.QDQ,
                                       "qdq-a16w8": ortq.QuantFormat.QDQ}[fmt], **extra)
    return out


def ort_optimize(model, model_type, work):
    """`model` through ONNX Runtime's transformer optimizer
    (onnxruntime.transformers.optimizer, what Hugging Face Optimum's
    ORTOptimizer runs): fused com.microsoft operators such as
    SkipLayerNormalization and Gelu; the heads and hidden size detected."""
    harness.require("onnxruntime")
    import logging

    from onnxruntime.transformers.optimizer import optimize_model

    import onnxruntime as ort

    logging.getLogger().setLevel(logging.ERROR)
    # opt_level=1 is ONNX Runtime's basic session optimizations, then the
    # fusions; its own call of them imports torch (ONNX Runtime 1.31), so
    # the session saves them here and the optimizer runs the fusions alone.
    basic, out = work / f"ort-basic-{model_type}.onnx", work / f"ort-optimized-{model_type}.onnx"
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    options.optimized_model_filepath = str(basic)
    ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
    optimize_model(str(basic), model_type=model_type, num_heads=0, hidden_size=0,
                   opt_level=0).save_model_to_file(str(out))
    return out


def timed(what, fn, *a, **kw):
    """fn(*a, **kw), its wall time printed; returns its result."""
    t0 = time.monotonic()
    result = fn(*a, **kw)
    print(f"  {what}: {time.monotonic() - t0:.2f} s", flush=True)
    return result


def run_and_compare(dlc, so, feeds, ref, work, device, rtol, atol_rel):
    inputs = harness.save_inputs(feeds, work)
    got = {}
    timed(f"run ({device})", lambda: got.update(dlc.run(so, inputs, work / f"out-{device}", list(ref),
                                                        device=device)))
    for name, r in ref.items():
        maxabs = float(np.abs(r).max())
        harness.compare(name, got[name], r, rtol=rtol, atol=atol_rel * maxabs, scale_atol=False)
        err = float(np.abs(got[name].astype(np.float64) - r).max())
        print(f"  output '{name}' {list(r.shape)}: max|err| {err:.3g}, max|ref| {maxabs:.3g}")


def check_ptx(dlc, model, work, arch, ptxas):
    """dlc --emit=ptx, then ptxas on the result: every kernel must assemble."""
    ptx = work / f"kernels.{arch}.ptx"
    dlc.compile(model, ptx, target="cuda", arch=arch, emit="ptx")
    kernels = len(re.findall(r"^\.visible \.entry ", ptx.read_text(), re.M))
    p = subprocess.run([ptxas, f"-arch={arch}", str(ptx), "-o", os.devnull], capture_output=True, text=True)
    if p.returncode != 0:
        raise harness.Failure(f"ptxas -arch={arch} rejected {ptx}:\n{p.stderr.strip()[:2000]}")
    print(f"  ptxas -arch={arch}: {kernels} kernels OK")


def check_fusion_and_plan(dlc, model, work):
    """Compiles with and without fusion and checks the reports: fused has at
    most half the kernels, the arena plan is sound and within 5% of the lower
    bound (the most bytes live at one point)."""
    reports = {}
    for fused in (True, False):
        flag = "true" if fused else "false"
        path = work / f"report-{flag}.json"
        dlc.compile(model, work / f"plan-{flag}.so", target="cpu", emit="mlir",
                    extra=[f"--fuse-elementwise={flag}", f"--fuse-kernels={flag}",
                           f"--fuse-attention={flag}", f"--report-json={path}", "--stage=plan"])
        reports[fused] = json.loads(path.read_text())
    for fused, r in reports.items():
        problems = harness.check_plan(r)
        if problems:
            raise harness.Failure("arena plan: " + "; ".join(problems[:3]))
        if r["arena_bytes"] > 1.05 * r["lower_bound_bytes"]:
            raise harness.Failure(f"arena {r['arena_bytes']} B exceeds the lower bound "
                                  f"{r['lower_bound_bytes']} B by more than 5%")
        print(f"  fusion {'on ' if fused else 'off'}: {r['kernel_count']} kernels, arena "
              f"{r['arena_bytes'] / 2**20:.1f} MiB (lower bound "
              f"{r['lower_bound_bytes'] / 2**20:.1f} MiB, naive {r['naive_bytes'] / 2**20:.1f} MiB)")
    if 2 * reports[True]["kernel_count"] > reports[False]["kernel_count"]:
        raise harness.Failure(f"fusion left {reports[True]['kernel_count']} of "
                              f"{reports[False]['kernel_count']} kernels (want at most half)")


def check_transposes(dlc, model, work, flags, limit):
    """dlc --emit=mlir --stage=graph: the dlc.transpose ops left after the
    graph passes (with --conv-layout=nhwc, dlc-convert-conv-layout's), listed
    with their shapes; at most `limit`."""
    path = work / "graph.mlir"
    dlc.compile(model, path, target="cpu", emit="mlir", extra=[*flags, "--stage=graph"])
    ops = [line.strip() for line in path.read_text().splitlines() if "= dlc.transpose " in line]
    print(f"  dlc.transpose after the graph passes: {len(ops)}")
    for op in ops:
        m = re.search(r"perm = array<i64: ([^>]*)>\} : \((tensor<[^>]*>)\) -> (tensor<[^>]*>)", op)
        print(f"    perm [{m.group(1)}] {m.group(2)} -> {m.group(3)}" if m else f"    {op[:160]}")
    if len(ops) > limit:
        raise harness.Failure(f"{len(ops)} dlc.transpose ops left (want at most {limit})")


def gpu_arch():
    """dlc's --arch for the GPU's compute capability: sm_90a (wgmma) on 9.0
    (H100/H200), sm_90 on later ones, sm_80 below."""
    try:
        p = subprocess.run(["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"],
                           capture_output=True, text=True, timeout=60)
        major, minor = (int(v) for v in p.stdout.split()[0].split("."))
    except (OSError, subprocess.TimeoutExpired, IndexError, ValueError):
        major, minor = 9, 0
    if (major, minor) == (9, 0):
        return "sm_90a"
    return "sm_90" if major >= 9 else "sm_80"


def main():
    p = harness.common_args(__doc__, cases=False)
    p.add_argument("model", help="model name, e.g. resnet50")
    p.add_argument("--models-dir", required=True)
    p.add_argument("--tools-dir", required=True)
    p.add_argument("--cache-dir", required=True, help="where restored models are kept")
    p.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    p.add_argument("--gpu-arch", help="with --device cuda: dlc --arch (default: from the GPU's "
                                      "compute capability, sm_90a on an H100/H200)")
    p.add_argument("--cuda-arch", action="append", default=[],
                   help="also compile for CUDA with this arch and check model.so (repeatable)")
    p.add_argument("--ptxas", help="check dlc --emit=ptx for the first --cuda-arch with this ptxas")
    p.add_argument("--cuda-form-on-host", action="store_true",
                   help="also run the CUDA kernel form on the host (dlc --cuda-kernel-form) and "
                        "compare: the GPU kernels' numerics, checked without a GPU")
    p.add_argument("--cuda-form-arch", action="append", default=[],
                   help="with --cuda-form-on-host: build the CUDA kernel form for this --arch "
                        "(repeatable; default dlc's): sm_90a emulates the wgmma kernels")
    p.add_argument("--check-plan", action="store_true",
                   help="check the arena plan (no overlap, within 5%% of the lower bound) and that "
                        "fusion at least halves the kernel count")
    p.add_argument("--rtol", type=float, default=1e-3)
    p.add_argument("--atol-rel", type=float, default=1e-4, help="atol as a fraction of max|ref|")
    p.add_argument("--precision", choices=["fp32", "fp16", "bf16"], default="fp32",
                   help="dlc --precision for every build (fp16/bf16: GEMM and Conv operands)")
    p.add_argument("--conv-layout", choices=["nchw", "nhwc"],
                   help="dlc --conv-layout for every build (nhwc: channels-last convolutions)")
    p.add_argument("--max-transposes", type=int,
                   help="list the dlc.transpose ops left after the graph passes and fail if "
                        "there are more")
    p.add_argument("--ort-quantize", choices=["qoperator", "qdq", "qdq-a16w8"],
                   help="quantize the model with ONNX Runtime's quantize_static in this format "
                        "first; the reference is ONNX Runtime on the quantized model")
    p.add_argument("--ort-optimize", metavar="MODEL_TYPE",
                   help="run ONNX Runtime's transformer optimizer (model_type bert, gpt2, ...) "
                        "on the model first; compared with the stored fp32 reference")
    p.add_argument("--dlc-flag", action="append", default=[],
                   help="one more dlc flag for every compile (repeatable), e.g. "
                        "--dlc-flag=--overlap-launches")
    args = p.parse_args()

    models_dir = Path(args.models_dir)
    if not models_dir.is_dir():
        print(f"skipped: ../shared/models not found ({models_dir})")
        return SKIP
    if args.device == "cuda":
        harness.skip_without_gpu()
    dlc = harness.Dlc(args.bin_dir)
    work = Path(args.work_dir or tempfile.mkdtemp(prefix=f"dlc-e2e-{args.model}-"))
    work.mkdir(parents=True, exist_ok=True)
    print(f"model {args.model} (device {args.device}, precision {args.precision}"
          f"{', conv layout ' + args.conv_layout if args.conv_layout else ''})")
    flags = [f"--precision={args.precision}"]
    if args.conv_layout:
        flags.append(f"--conv-layout={args.conv_layout}")
    flags += args.dlc_flag
    try:
        model = restore_weights(args.model, models_dir, args.tools_dir, args.cache_dir)
        feeds, ref = load_reference(models_dir / f"{args.model}.ref.npz")
        if args.ort_optimize:
            model = timed(f"ONNX Runtime's optimizer ({args.ort_optimize})", ort_optimize, model,
                          args.ort_optimize, work)
            ops = sorted({n.op_type for n in onnx.load(str(model)).graph.node
                          if n.domain == "com.microsoft"})
            print(f"  com.microsoft operators: {', '.join(ops) or 'none'}")
            if not ops:
                raise harness.Failure("the optimizer fused nothing into com.microsoft operators")
        if args.ort_quantize:
            model = timed(f"quantize_static ({args.ort_quantize})", ort_quantize, model, feeds,
                          args.ort_quantize, work)
            ref = harness.run_ort(model, feeds)
        target = args.device
        arch = (args.gpu_arch or gpu_arch()) if target == "cuda" else None
        so = work / f"{args.model}.{target}.so"
        timed(f"compile ({target}{' ' + arch if arch else ''})", dlc.compile, model, so,
              target=target, arch=arch, extra=flags)
        try:
            run_and_compare(dlc, so, feeds, ref, work, args.device, args.rtol, args.atol_rel)
        except harness.Failure as e:
            if args.device == "cuda" and harness.is_no_cuda_error(str(e)):
                print(f"skipped: no CUDA GPU ({harness.first_error(str(e))})")
                return SKIP
            raise
        if args.cuda_form_on_host and args.device == "cpu":
            for form_arch in args.cuda_form_arch or [None]:
                so = work / f"{args.model}.cudaform{'.' + form_arch if form_arch else ''}.so"
                arch_flags = [f"--arch={form_arch}"] if form_arch else []
                timed(f"compile (cpu, CUDA kernel form{' for ' + form_arch if form_arch else ''})",
                      dlc.compile, model, so, target="cpu",
                      extra=["--cuda-kernel-form", *arch_flags, *flags])
                run_and_compare(dlc, so, feeds, ref, work, "cpu", args.rtol, args.atol_rel)
        if args.max_transposes is not None:
            check_transposes(dlc, model, work, flags, args.max_transposes)
        if args.check_plan:
            check_fusion_and_plan(dlc, model, work)
        for arch in args.cuda_arch:
            so = work / f"{args.model}.cuda.{arch}.so"
            timed(f"compile (cuda {arch})", dlc.compile, model, so, target="cuda", arch=arch,
                  extra=flags)
            print(f"  model.so for {arch}: {so.stat().st_size / 1e6:.1f} MB")
        if args.ptxas and args.cuda_arch:
            check_ptx(dlc, model, work, args.cuda_arch[0], args.ptxas)
    except harness.Failure as e:
        print(f"FAIL  {args.model}: {e}")
        return 1
    finally:
        if not args.work_dir:
            shutil.rmtree(work, ignore_errors=True)
    print(f"PASS  {args.model}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
