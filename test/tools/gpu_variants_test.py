#!/usr/bin/env python3
"""tools/gpu_variants.py without a GPU: host builds of a small model, one
variant that changes the kernels' form (same outputs within rounding), one
with another precision (its own reference) and one that fails to compile.

    gpu_variants_test.py BIN_DIR
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

TOOL = Path(__file__).resolve().parents[2] / "tools" / "gpu_variants.py"
BIN = None


def conv_model(path: Path):
    w = np.random.default_rng(1).standard_normal((8, 4, 3, 3)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
         helper.make_node("Relu", ["c"], ["y"])],
        "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4, 10, 10])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 8, 10, 10])],
        [numpy_helper.from_array(w, "w")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.save(model, str(path))


def run_tool(tmp: Path, *args: str):
    """The tool on host builds of conv_model in `tmp`: its process and the
    variants.json it wrote."""
    conv_model(tmp / "m.onnx")
    p = subprocess.run(
        [sys.executable, str(TOOL), "--bin", BIN, "--model", str(tmp / "m.onnx"),
         "--out", str(tmp / "out"), "--common=--target=cpu", "--jobs", "2",
         "--min-time", "0.05", "--device", "cpu", "--host-copies", *args],
        capture_output=True, text=True)
    return p, json.loads((tmp / "out" / "variants.json").read_text())


class GpuVariants(unittest.TestCase):
    def test_host_variants(self):
        with tempfile.TemporaryDirectory() as tmp:
            p, r = run_tool(Path(tmp), "--steps", "2", "base=--precision=fp32",
                            "form=--precision=fp32 --cuda-kernel-form",
                            "half=--precision=fp16", "bad=--gemm-ctas-per-sm=1")
            self.assertEqual(p.returncode, 1, p.stdout + p.stderr)  # `bad` failed
            self.assertGreater(r["base"]["p50_ms"], 0)
            self.assertEqual(r["form"]["ref"], "base")
            self.assertLess(r["form"]["rel_diff"], 1e-5)
            self.assertEqual(r["half"]["ref"], "half")  # a precision of its own
            # The padded copy of the conv's input, then the conv.
            self.assertEqual(len(r["base"]["top_steps"]), 2)
            self.assertIn("--gemm-ctas-per-sm must be", r["bad"]["error"])
            self.assertIn("| form | --target=cpu --precision=fp32 --cuda-kernel-form |",
                          p.stdout)
            self.assertIn("form vs base, the kernels that moved most (ms):", p.stdout)

    def test_run_timeout(self):
        # A run that outlasts --run-timeout (on the GPU: a hung kernel) is
        # killed and its variant reported failed; the others still run.
        with tempfile.TemporaryDirectory() as tmp:
            p, r = run_tool(Path(tmp), "--run-timeout", "0.001", "base=--precision=fp32")
            self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
            self.assertIn("timed out after 0.001 s", r["base"]["error"])
            self.assertIn("| base | --target=cpu --precision=fp32 |", p.stdout)

    def test_shared_calibration_cache(self):
        # int8 variants naming one --calibration-cache: the first calibrates
        # and writes it before the others compile (and read it); the
        # schedules differ, the outputs do not.
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            (tmp / "cal" / "s0").mkdir(parents=True)
            np.save(tmp / "cal" / "s0" / "x.npy",
                    np.random.default_rng(0).standard_normal((2, 4, 10, 10)).astype(np.float32))
            q = (f"--precision=int8 --calibrate={tmp / 'cal'} --quantize-first-last "
                 f"--calibration-cache={tmp / 'cal.cache'}")
            p, r = run_tool(tmp, f"q1={q}", f"q2={q} --cuda-kernel-form")
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            self.assertTrue((tmp / "cal.cache").is_file())
            self.assertEqual(r["q2"]["ref"], "q1")
            self.assertEqual(r["q2"]["rel_diff"], 0.0)

    def test_same_build(self):
        # A variant whose model.so is byte-identical to an earlier one's is
        # not run: it names that build, and it is no failure.
        with tempfile.TemporaryDirectory() as tmp:
            p, r = run_tool(Path(tmp), "a=--precision=fp32", "b=--precision=fp32",
                            "c=--precision=fp32 --cuda-kernel-form")
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            self.assertEqual(r["b"]["same_as"], "a")
            self.assertNotIn("p50_ms", r["b"])
            self.assertNotIn("same_as", r["c"])
            self.assertGreater(r["c"]["p50_ms"], 0)
            self.assertIn("| b | --target=cpu --precision=fp32 | ", p.stdout)
            self.assertIn("| same build as a |", p.stdout)

    def test_compile_only(self):
        # --compile-only: the compiles and their table, nothing run (the
        # check of a session's variants on a machine without a GPU).
        with tempfile.TemporaryDirectory() as tmp:
            p, r = run_tool(Path(tmp), "--compile-only", "a=--precision=fp32",
                            "b=--precision=fp32", "bad=--gemm-ctas-per-sm=1")
            self.assertEqual(p.returncode, 1, p.stdout + p.stderr)  # `bad`
            self.assertFalse(any("p50_ms" in v for v in r.values()))
            self.assertIn("| a | --target=cpu --precision=fp32 | ", p.stdout)
            self.assertIn("| same as a |", p.stdout)
            self.assertIn("| bad | --target=cpu --gemm-ctas-per-sm=1 | ", p.stdout)
            self.assertIn("FAILED: ", p.stdout)

    def test_gpu_bench_preflight(self):
        # tools/gpu_bench.sh as a device session would run a variants part,
        # compile-only with this build: @CAL becomes random calibration
        # samples, the variants naming its cache read it, two identical
        # builds are found (sm_90a: dlc runs ptxas; CI has it).
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            conv_model(tmp / "m.onnx")
            c = "--precision=int8 --calibrate=@CAL --calibration-cache=@CAL.cache"
            env = dict(os.environ, DLC_BIN=BIN, DLC_GPU_WORK=str(tmp / "work"),
                       OUT=str(tmp / "out"))
            p = subprocess.run(
                ["bash", str(TOOL.parent / "gpu_bench.sh"), "preflight", "variants",
                 str(tmp / "m.onnx"), f"q={c}", f"q2={c} --gemm-ctas-per-sm=0",
                 "h=--precision=fp16", "h2=--precision=fp16"],
                capture_output=True, text=True, env=env)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            r = json.loads((tmp / "out" / "variants.json").read_text())
            self.assertEqual(sorted(r), ["h", "h2", "q", "q2"])
            self.assertFalse(any(v["error"] for v in r.values()), r)
            self.assertEqual(r["h2"]["same_as"], "h")
            self.assertIn(f"--calibrate={tmp / 'work'}/cal-", " ".join(r["q"]["flags"]))
            self.assertIn("| h2 | --arch=sm_90a --precision=fp16 | ", p.stdout)

    def test_step_changes(self):
        sys.path.insert(0, str(TOOL.parent))
        import gpu_variants
        ref = [{"name": "k1", "ms": 0.5}, {"name": "k2", "ms": 0.2}, {"name": "k2", "ms": 0.1}]
        new = [{"name": "k1", "ms": 0.45}, {"name": "k2", "ms": 0.1}, {"name": "k3", "ms": 0.02}]
        rows = gpu_variants.step_changes(ref, new, 2)
        self.assertEqual([r[0] for r in rows], ["k2", "k1"])  # -0.2, -0.05
        self.assertAlmostEqual(rows[0][1], 0.3)
        self.assertEqual(gpu_variants.step_changes(ref, new, 5)[2], ("k3", 0.0, 0.02))

    def test_bad_variant_name(self):
        p = subprocess.run([sys.executable, str(TOOL), "--bin", BIN, "--model", "m.onnx",
                            "--out", "o", "no-flags"], capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn("is not NAME=FLAGS", p.stderr)


if __name__ == "__main__":
    BIN = sys.argv.pop(1)
    unittest.main()
