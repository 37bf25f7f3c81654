#!/usr/bin/env python3
"""tools/sass_stats.py on two sm_90a builds of a 3x3 convolution: the
default gathers its im2col window with cp.async (LDGSTS), --tma-im2col
loads it with the copy engine (UTMALDG). Skipped without ptxas or nvdisasm.

    sass_stats_test.py BIN_DIR
"""
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

TOOL = Path(__file__).resolve().parents[2] / "tools" / "sass_stats.py"
BIN = None

sys.path.insert(0, str(TOOL.parent))
import sass_stats  # noqa: E402


def conv_model(path: Path):
    w = np.random.default_rng(1).standard_normal((64, 64, 3, 3)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w"], ["y"], pads=[1, 1, 1, 1])],
        "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 64, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 64, 8, 8])],
        [numpy_helper.from_array(w, "w")])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))


class SassStats(unittest.TestCase):
    def test_two_builds(self):
        missing = [t for t in ("ptxas", "nvdisasm") if not sass_stats.find_tool(t)]
        if missing:
            self.skipTest(f"skipped: {' and '.join(missing)} not found")
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            conv_model(tmp / "m.onnx")
            for name, flags in (("a", []), ("b", ["--tma-im2col"])):
                subprocess.run([str(Path(BIN) / "dlc"), str(tmp / "m.onnx"), "--arch=sm_90a",
                                "--precision=fp16", "--emit=ptx", "-o", str(tmp / f"{name}.ptx"),
                                *flags], check=True)
            one = subprocess.run([sys.executable, str(TOOL), str(tmp / "a.ptx"), "-k", "_Conv"],
                                 capture_output=True, text=True)
            self.assertEqual(one.returncode, 0, one.stderr)
            self.assertRegex(one.stdout, r"_Conv_0: \d+ instructions\n  .*LDGSTS \d+")
            two = subprocess.run([sys.executable, str(TOOL), str(tmp / "a.ptx"),
                                  str(tmp / "b.ptx")], capture_output=True, text=True)
            self.assertEqual(two.returncode, 0, two.stderr)
            self.assertRegex(two.stdout, r"LDGSTS \d+ -> 0")
            self.assertRegex(two.stdout, r"UTMALDG \d+ -> \d+")
            self.assertRegex(two.stdout, r"1 of \d+ kernels differ")

    def test_parse(self):
        sass = """\t.section\t.text.k0_x,"ax",@progbits
.text.k0_x:
        /*0000*/                   LDC R1, c[0x0][0x28] ;
        /*0010*/              @!P0 BRA `(.L_x_0) ;
        /*0020*/                   FADD.FTZ R2, R2, R3 ;
\t.section\t.text.k1_y,"ax",@progbits
.text.k1_y:
        /*0000*/                   EXIT ;
"""
        k = sass_stats.kernels(sass)
        self.assertEqual(k, {"k0_x": ["LDC", "BRA", "FADD.FTZ"], "k1_y": ["EXIT"]})
        self.assertEqual(sass_stats.mix(k["k0_x"])["FADD"], 1)


if __name__ == "__main__":
    BIN = sys.argv.pop(1)
    unittest.main()
