#!/usr/bin/env python3
"""Convert an ONNX ModelProto in protobuf text format to a binary .onnx file.

usage: onnx_text_to_pb.py IN.onnxtxt OUT.onnx

The lit tests write models as text (readable, reviewable); the installed ONNX
schema is lite-runtime C++ without text parsing, so the conversion happens
here with the onnx Python package.
"""
import sys

import onnx
from google.protobuf import text_format

if len(sys.argv) != 3:
    sys.exit(__doc__)
with open(sys.argv[1]) as f:
    text = "".join(l for l in f if not l.lstrip().startswith(("//", "#")))
model = text_format.Parse(text, onnx.ModelProto())
with open(sys.argv[2], "wb") as f:
    f.write(model.SerializeToString())
