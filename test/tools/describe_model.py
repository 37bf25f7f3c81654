#!/usr/bin/env python3
"""Prints the plan of a model.so's descriptor (runtime/include/dlc/
model_format.h) without loading it on a device: each launch step's kernel
and argument kinds, and the TMA tensor-map table (tiled maps with their
box, im2col maps with their corners, channels, pixels and element strides).
For lit tests of the packager."""

import ctypes
import sys

KINDS = {0: "arena", 1: "weight", 2: "input", 3: "output", 4: "status",
         5: "tensor_map"}


class BufferRef(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int32), ("index", ctypes.c_int32),
                ("offset", ctypes.c_uint64), ("size_bytes", ctypes.c_uint64)]


class TensorMap(ctypes.Structure):
    _fields_ = [("tensor", BufferRef), ("dtype", ctypes.c_int32),
                ("rank", ctypes.c_int32), ("dims", ctypes.c_uint64 * 5),
                ("strides", ctypes.c_uint64 * 5), ("box", ctypes.c_uint32 * 5),
                ("swizzle", ctypes.c_int32), ("mode", ctypes.c_int32),
                ("lower_corner", ctypes.c_int32 * 3),
                ("upper_corner", ctypes.c_int32 * 3),
                ("channels_per_pixel", ctypes.c_uint32),
                ("pixels_per_column", ctypes.c_uint32),
                ("element_strides", ctypes.c_uint32 * 5)]

TILED, IM2COL = 0, 1


class Kernel(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("host_fn", ctypes.c_void_p)]


class Step(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int32), ("kernel", ctypes.c_int32),
                ("grid", ctypes.c_uint32 * 3), ("block", ctypes.c_uint32 * 3),
                ("shared_mem_bytes", ctypes.c_uint32),
                ("num_args", ctypes.c_int32),
                ("args", ctypes.POINTER(BufferRef))]


class ModelDesc(ctypes.Structure):
    _fields_ = [("abi_version", ctypes.c_uint32), ("target", ctypes.c_int32),
                ("arch", ctypes.c_char_p), ("num_inputs", ctypes.c_int32),
                ("inputs", ctypes.c_void_p), ("num_outputs", ctypes.c_int32),
                ("outputs", ctypes.c_void_p), ("weights", ctypes.c_void_p),
                ("weights_size", ctypes.c_uint64),
                ("arena_size", ctypes.c_uint64),
                ("num_kernels", ctypes.c_int32),
                ("kernels", ctypes.POINTER(Kernel)), ("ptx", ctypes.c_void_p),
                ("ptx_size", ctypes.c_uint64), ("cubin", ctypes.c_void_p),
                ("cubin_size", ctypes.c_uint64), ("num_steps", ctypes.c_int32),
                ("steps", ctypes.POINTER(Step)), ("manifest", ctypes.c_char_p),
                ("num_checks", ctypes.c_int32), ("checks", ctypes.c_void_p),
                ("num_tensor_maps", ctypes.c_int32),
                ("tensor_maps", ctypes.POINTER(TensorMap)),
                ("flags", ctypes.c_uint32)]

FLAGS = {1: "wait-for-grid-dependencies"}


def ref(r):
    return f"{KINDS.get(r.kind, r.kind)}[{r.index}]+{r.offset}:{r.size_bytes}"


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: describe_model.py MODEL.so")
    lib = ctypes.CDLL(sys.argv[1])
    query = lib.dlc_model_query
    query.restype = ctypes.POINTER(ModelDesc)
    d = query().contents
    flags = [name for bit, name in FLAGS.items() if d.flags & bit]
    flags += [str(d.flags & ~sum(FLAGS))] if d.flags & ~sum(FLAGS) else []
    print(f"abi {d.abi_version} arch {d.arch.decode()} "
          f"flags [{', '.join(flags)}]")
    for s in range(d.num_steps):
        step = d.steps[s]
        if step.kind != 0:
            print(f"step {s}: copy")
            continue
        args = " ".join(ref(step.args[a]) for a in range(step.num_args))
        print(f"step {s}: {d.kernels[step.kernel].name.decode()} "
              f"block {step.block[0]} smem {step.shared_mem_bytes}: {args}")
    for m in range(d.num_tensor_maps):
        t = d.tensor_maps[m]
        n = t.rank
        if t.mode != IM2COL:
            mode = "" if t.mode == TILED else f" mode {t.mode}"
            print(f"tensor_map {m}: {ref(t.tensor)} dtype {t.dtype} "
                  f"dims {list(t.dims[:n])} strides {list(t.strides[:n])} "
                  f"box {list(t.box[:n])} swizzle {t.swizzle}{mode}")
            continue
        print(f"tensor_map {m}: {ref(t.tensor)} dtype {t.dtype} "
              f"dims {list(t.dims[:n])} strides {list(t.strides[:n])} "
              f"swizzle {t.swizzle} im2col "
              f"lower {list(t.lower_corner[:n - 2])} "
              f"upper {list(t.upper_corner[:n - 2])} "
              f"channels {t.channels_per_pixel} "
              f"pixels {t.pixels_per_column} "
              f"element_strides {list(t.element_strides[:n])}")


if __name__ == "__main__":
    main()
