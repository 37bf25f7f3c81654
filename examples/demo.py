#!/usr/bin/env python3
"""`make demo`: compile the example model with dlc for the host (and for
CUDA where a GPU is present), run it through the C++ example program and
dlc-run, and print the outputs next to ONNX Runtime's."""
import argparse
import os
import shutil
import subprocess
import sys

import numpy as np
import onnxruntime as ort

HERE = os.path.dirname(os.path.abspath(__file__))


def run(cmd, **kw):
    print("$", " ".join(cmd), flush=True)
    return subprocess.run(cmd, check=True, **kw)


def has_gpu():
    smi = shutil.which("nvidia-smi")
    return bool(smi) and subprocess.run([smi, "-L"], capture_output=True).returncode == 0


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--build", default="build")
    args = ap.parse_args()
    bin_dir = os.path.abspath(os.path.join(args.build, "bin"))
    work = os.path.abspath(os.path.join(args.build, "demo"))
    run([sys.executable, os.path.join(HERE, "make_model.py"), work])
    model = os.path.join(work, "classifier.onnx")
    image = os.path.join(work, "input.npy")

    ref = ort.InferenceSession(model, providers=["CPUExecutionProvider"]).run(
        None, {"image": np.load(image)})[0]

    targets = ["cpu"] + (["cuda"] if has_gpu() else [])
    ok = True
    for target in targets:
        so = os.path.join(work, f"classifier.{target}.so")
        run([os.path.join(bin_dir, "dlc"), model, "-o", so, f"--target={target}", "-v"])
        # The C++ example program: the public API end to end.
        run([os.path.join(bin_dir, "dlc-example"), so, image])
        out_dir = os.path.join(work, f"out.{target}")
        run([os.path.join(bin_dir, "dlc-run"), so, "--input", f"image={image}",
             "--output-dir", out_dir, "--device", target])
        got = np.load(os.path.join(out_dir, "probs.npy"))
        err = float(np.abs(got - ref).max())
        print(f"\n{target}: dlc vs ONNX Runtime (max abs diff {err:.2e})")
        print(f"  {'class':>5}  {'dlc':>10}  {'onnxruntime':>12}")
        for i in range(ref.shape[1]):
            print(f"  {i:>5}  {got[0, i]:>10.6f}  {ref[0, i]:>12.6f}")
        ok &= bool(np.allclose(got, ref, rtol=1e-3, atol=1e-5))
        print()
    if "cuda" not in targets:
        print("no CUDA GPU here: ran the host target only "
              "(the CUDA build is exercised by `make test` through ptxas)")
    print("demo:", "outputs match" if ok else "MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
