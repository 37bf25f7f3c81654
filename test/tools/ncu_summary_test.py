#!/usr/bin/env python3
"""tools/ncu_summary.py on both of Nsight Compute's CSV layouts (no GPU)."""
import os
import subprocess
import sys
import tempfile
import unittest

TOOL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools",
                    "ncu_summary.py")
HEAD = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream",'
        '"Block Size","Grid Size","Device","CC"')
RAW = f"""==PROF== Connected to process 1
{HEAD},"dram__throughput.avg.pct_of_peak_sustained_elapsed","gpu__time_duration.sum","sm__throughput.avg.pct_of_peak_sustained_elapsed"
"","","","","","","","","","","","%","nsecond","%"
"0","1","dlc-bench","h","k0_ln","1","13","(128, 1, 1)","(256, 1, 1)","0","9.0","10.0","9,500","8.0"
"1","1","dlc-bench","h","k1_gemm","1","13","(288, 1, 1)","(192, 1, 1)","0","9.0","21.0","28,500","75.5"
"""
DETAILS = f"""{HEAD},"Section Name","Metric Name","Metric Unit","Metric Value"
"0","1","dlc-bench","h","k0_ln","1","13","(128, 1, 1)","(256, 1, 1)","0","9.0","s","gpu__time_duration.sum","usecond","9.5"
"0","1","dlc-bench","h","k0_ln","1","13","(128, 1, 1)","(256, 1, 1)","0","9.0","s","dram__throughput.avg.pct_of_peak_sustained_elapsed","%","10.0"
"1","1","dlc-bench","h","k1_gemm","1","13","(288, 1, 1)","(192, 1, 1)","0","9.0","s","gpu__time_duration.sum","msecond","0.0285"
"""


def summarize(text):
    with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as f:
        f.write(text)
    try:
        return subprocess.run([sys.executable, TOOL, f.name], capture_output=True, text=True)
    finally:
        os.unlink(f.name)


class NcuSummary(unittest.TestCase):
    def check(self, text):
        r = summarize(text)
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertEqual(lines[0], "2 launches, 38.0 us in all")
        # Longest first, times in microseconds whatever unit ncu used.
        self.assertTrue(lines[2].split()[0] == "28.5" and lines[2].endswith("k1_gemm"), lines)
        self.assertTrue(lines[3].split()[0] == "9.5" and lines[3].endswith("k0_ln"), lines)
        self.assertIn("75.0%", lines[2])  # its share of the total
        return lines

    def test_raw(self):
        lines = self.check(RAW)
        self.assertIn("75.5", lines[2])  # sm% column

    def test_details(self):
        self.check(DETAILS)

    def test_not_ncu(self):
        r = summarize("a,b\n1,2\n")
        self.assertEqual(r.returncode, 1)
        self.assertIn("no 'ID' column", r.stderr)


if __name__ == "__main__":
    unittest.main()
