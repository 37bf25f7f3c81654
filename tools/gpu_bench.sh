#!/usr/bin/env bash
# The issue-5/6 benchmarks on the lent GPU machine, in parts that each fit
# one device call (10 minutes), against the `make bundle` archive.
#
# Here, once: make bundle && tools/gpu_checks.sh --stage  (dist/, ignored)
# There (device tool, carry ["dist"]), one part per call:
#   tools/gpu_bench.sh first     # the b1 rows and bert b8 (both
#                                # torch.compile modes, and the i32 variant:
#                                # --kernel-index-bits=32), ~3 min
#   tools/gpu_bench.sh session [SECONDS]
#                                # gather-producers, int8-variants,
#                                # split-text (below), int8, profile-int8
#                                # (ncu of every kernel of resnet50 b32's
#                                # int8 build, calibrated on one random
#                                # batch, into the log), first, b32 (with
#                                # the variants i32, unstaged:
#                                # --stage-epilogue=false, inputs:
#                                # --stage-epilogue-inputs) while SECONDS
#                                # (default 540) last: each part under
#                                # `timeout` of the time left, one log
#                                # (session.log) so that the JSONs and it stay
#                                # within the 8 files a device call returns
#   tools/gpu_bench.sh b1        # mobilenet_v2, resnet50 b1, bert b8, both
#                                # torch.compile modes (183 s on the H100)
#   tools/gpu_bench.sh gpt2      # gpt2 b8, both torch.compile modes
#   tools/gpu_bench.sh b32       # resnet50, mobilenet_v2 b32, both modes
#   tools/gpu_bench.sh micro     # GEMM 4096/8192 fp16/bf16, elementwise
#   tools/gpu_bench.sh int8      # resnet50 b32 PTQ int8 column
#                                # (issue 6), every step's time, the i32
#                                # variant of the int8 build
#   tools/gpu_bench.sh ablations # micro without warp specialization / TMA
#   tools/gpu_bench.sh persistent # micro, resnet50 b32 and bert b8 with
#                                # --persistent-gemm (off by default until
#                                # this beats the defaults' rows)
#   tools/gpu_bench.sh nofold    # resnet50, resnet50 int8 b1 and b32 with
#                                # --fold-conv-padding=false (the padded
#                                # copies back), against the b1/b32/int8 rows
#   tools/gpu_bench.sh overlap   # mobilenet_v2, resnet50 b1 and bert b8 with
#                                # --overlap-launches (programmatic dependent
#                                # launch), against the b1 rows
# MODEL below is an ONNX file or NAME:BATCH (resnet50:1, bert:8, ...), which
# is exported as the benchmark exports it (bench_pytorch.py --export).
#   tools/gpu_bench.sh int8-variants
#                                # int8 resnet50 b32 with each default
#                                # schedule option off (--gemm-ctas-per-sm,
#                                # --gather-split-k, --deepen-stages,
#                                # int8's --stage-epilogue-inputs,
#                                # --stage-epilogue) and with
#                                # --kernel-index-bits=32, --short-k-tiles,
#                                # and with the stem and fc quantized too
#                                # (--quantize-first-last, its own
#                                # calibration; variants, below)
#   tools/gpu_bench.sh gather-producers
#                                # int8 and fp16 resnet50 b32 with
#                                # --tma-im2col, with 1, 2 and
#                                # 4 --gather-producer-warps (and with
#                                # --gemm-ctas-per-sm=0, --gather-split-k=false,
#                                # --short-k-tiles beside 2) and with
#                                # --producer-warpgroup against the
#                                # defaults (variants, below)
#   tools/gpu_bench.sh split-text # bert and gpt2 b8 fp16 with
#                                # --kernel-index-bits=32 and with
#                                # --stage-epilogue-inputs, each against the
#                                # defaults (variants, below)
#   tools/gpu_bench.sh preflight [PART...|variants MODEL NAME=FLAGS...]
#                                # HERE, before a device session, no GPU:
#                                # every build of the variants parts
#                                # (default gather-producers, int8-variants,
#                                # split-text) compiled with build/bin (dlc
#                                # runs ptxas on every kernel); says which
#                                # fail and which are the same build as
#                                # another (gpu_variants.py --compile-only;
#                                # on the GPU those are not run either;
#                                # DLC_BIN: another build's bin; without
#                                # PyTorch, NAME:BATCH is ../shared's model
#                                # at that batch: resnet50's parts run)
#   tools/gpu_bench.sh variants MODEL NAME=FLAGS...
#                                # builds of MODEL with each FLAGS (and
#                                # --arch=sm_90a), compiled in parallel, each
#                                # timed resident with its 64 longest steps
#                                # and its outputs compared with the first
#                                # build of its --precision
#                                # (tools/gpu_variants.py); @CAL in FLAGS is
#                                # MODEL's --calibrate directory
#   tools/gpu_bench.sh profile MODEL.onnx KERNEL_REGEX [dlc flags...]
#                                # ncu of one kernel of a model (speed of
#                                # light, memory, occupancy, launch)
#   tools/gpu_bench.sh profile-all MODEL.onnx [dlc flags...]
#                                # every kernel of one run under ncu: time,
#                                # SM / memory / DRAM % of peak, occupancy
#                                # (tools/ncu_summary.py; ncu.csv kept)
# Each part writes its JSON (and log) under $OUT (or ./gpu-bench-out), then
# back here: python3 benchmarks/bench_pytorch.py --report FILES... .
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
case ${1:-} in
session | first | b1 | gpt2 | b32 | micro | micro-persistent | profile-b32 | profile-int8 | int8 | split-text | int8-variants | gather-producers | ablations | persistent | nofold | overlap | preflight) ;;
variants) [ $# -ge 3 ] || { echo "usage: $0 variants MODEL NAME=FLAGS..." >&2; exit 2; } ;;
profile) [ $# -ge 3 ] || { echo "usage: $0 profile MODEL.onnx KERNEL_REGEX [dlc flags...]" >&2; exit 2; } ;;
profile-all) [ $# -ge 2 ] || { echo "usage: $0 profile-all MODEL.onnx [dlc flags...]" >&2; exit 2; } ;;
*) echo "usage: $0 session [SECONDS]|first|b1|gpt2|b32|micro|micro-persistent|profile-b32|profile-int8|int8|split-text|int8-variants|gather-producers|ablations|persistent|nofold|overlap|preflight|variants|profile|profile-all ..." >&2; exit 2 ;;
esac
out=${OUT:-$root/gpu-bench-out}
mkdir -p "$out"
work=${DLC_GPU_WORK:-/tmp/dlc-gpu}
bin=$work/dlc-bundle/bin
# preflight: this checkout's build, compiles only.
compile_only=
mkdir -p "$work" || exit 1
if [ "$1" = preflight ]; then
  compile_only=--compile-only
  bin=${DLC_BIN:-$root/build/bin}
  [ -x "$bin/dlc" ] || { echo "$0: preflight needs $bin/dlc (cmake --build build, or DLC_BIN)" >&2; exit 1; }
elif [ ! -x "$bin/dlc" ]; then
  tar -C "$work" -xf dist/dlc-bundle.tar.xz || exit 1
fi
export PYTHONUNBUFFERED=1
both=(--torch-modes compile,reduce-overhead)
# The options off by default until measured, built next to the defaults.
variants=(--variant i32=--kernel-index-bits=32 --variant unstaged=--stage-epilogue=false
  --variant inputs=--stage-epilogue-inputs)
models_only=(--gemm-sizes none --elementwise-size 0)

# Without PyTorch (here, for preflight): ../shared's NAME with its weights
# filled and dim 0 of its inputs and outputs set to BATCH (resnet50's graph
# takes any batch; the compile checks need the shapes, not the weights).
rebatch_shared() {
  local skel=$root/../shared/models/$1.skel.onnx
  [ -f "$skel" ] || return 1
  echo "$0: $1:$2 from $skel (no PyTorch export)" >&2
  python3 "$root/../shared/tools/fill_weights.py" "$skel" "$3.full" >&2 || return 1
  python3 - "$3.full" "$2" "$3" >&2 <<'PY' || return 1
import sys, onnx
m = onnx.load(sys.argv[1])
for v in list(m.graph.input) + list(m.graph.output):
    v.type.tensor_type.shape.dim[0].dim_value = int(sys.argv[2])
del m.graph.value_info[:]
onnx.save(m, sys.argv[3])
PY
  rm -f "$3.full"
}

# The ONNX file of MODEL (a path, or NAME:BATCH exported into $work).
onnx_of() {
  case $1 in
  *.onnx) echo "$1" ;;
  *:*)
    local path=$work/${1%%:*}_b${1##*:}.onnx
    [ -f "$path" ] || python3 benchmarks/bench_pytorch.py --export "${1%%:*}" "${1##*:}" "$path" \
      >&2 || rebatch_shared "${1%%:*}" "${1##*:}" "$path" || return 1
    echo "$path" ;;
  *) echo "$0: MODEL must be an .onnx file or NAME:BATCH, not '$1'" >&2; return 1 ;;
  esac
}

# A --calibrate directory for MODEL: one random normal sample of each
# input (what the ncu tables of int8 builds were calibrated on).
calibration_dir() {
  local model dir=$work/cal-${1/:/-}
  model=$(onnx_of "$1") || return 1
  if [ ! -d "$dir/s0" ]; then
    mkdir -p "$dir/s0" && python3 - "$model" "$dir/s0" >&2 <<'PY' || return 1
import sys, numpy as np, onnx
m = onnx.load(sys.argv[1], load_external_data=False)
init = {i.name for i in m.graph.initializer}
for i in m.graph.input:
    if i.name not in init:
        shape = [d.dim_value for d in i.type.tensor_type.shape.dim]
        np.save(f"{sys.argv[2]}/{i.name}.npy",
                np.random.default_rng(0).standard_normal(shape).astype(np.float32))
PY
  fi
  echo "$dir"
}

# session: the end of the time budget (bash SECONDS) and the one log.
deadline=
session_log=

# session_timeout PART MIN LOG: sets the caller's `run` to the `timeout`
# prefix of the session's time left (empty outside a session); logs the
# skip and fails when fewer than MIN seconds are left.
session_timeout() {
  run=()
  [ -n "$deadline" ] || return 0
  local left=$((deadline - SECONDS))
  if [ "$left" -lt "$2" ]; then
    echo "=== $1: skipped, ${left}s left" | tee -a "$3"
    return 1
  fi
  run=(timeout --signal=INT --kill-after=10 "$left")
}

bench() {
  local name=$1
  shift
  local log=${session_log:-$out/$name.log} run
  session_timeout "$name" 30 "$log" || return 0
  echo "=== $name: bench_pytorch.py $* ($((SECONDS))s)" | tee -a "$log"
  "${run[@]}" python3 benchmarks/bench_pytorch.py --dlc-bin "$bin" --json "$out/$name.json" "$@" \
    2>&1 | grep -vE "^W[0-9]{4} " | tee -a "$log"
}

# ncu of every kernel of one run of MODEL (profile-all): the CSV and
# ncu-summary.txt in $out; in the session the CSV stays in $work and the
# summary goes to the session's log (a device call returns 8 files).
profile_all() {
  local model so=$work/profile.so csv=$out/ncu.csv log=$out/ncu-summary.txt run
  model=$(onnx_of "$1") || return 1
  shift
  if [ -n "$session_log" ]; then
    csv=$work/ncu.csv
    log=$session_log
  else
    : >"$log"
  fi
  session_timeout "profile-all $model" 60 "$log" || return 0
  echo "=== profile-all $model $* ($((SECONDS))s)" | tee -a "$log"
  "$bin/dlc" "$model" --arch=sm_90a --precision=fp16 "$@" -o "$so" || return 1
  "${run[@]}" ncu --clock-control none --csv --page raw --log-file "$csv" --metrics \
gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,\
gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed,\
dram__throughput.avg.pct_of_peak_sustained_elapsed,\
sm__warps_active.avg.pct_of_peak_sustained_active \
    "$bin/dlc-bench" "$so" --resident --iters 1 --warmup 0 || return 1
  # Every launch (resnet50 b32: 114, each kernel twice), not the top 30.
  python3 tools/ncu_summary.py "$csv" --top 200 | tee -a "$log"
}

# variants TAG MODEL NAME=FLAGS...: tools/gpu_variants.py over MODEL's
# builds, $out/TAG.json; the log is $out/TAG.log, or the session's.
variants_run() {
  local tag=$1 name=$2 model cal='' spec specs=() log=${session_log:-$out/$1.log} run
  shift 2
  session_timeout "$tag" 60 "$log" || return 0
  model=$(onnx_of "$name") || return 1
  for spec in "$@"; do
    if [[ $spec == *@CAL* ]]; then
      [ -n "$cal" ] || cal=$(calibration_dir "$name") || return 1
      spec=${spec//@CAL/$cal}
    fi
    specs+=("$spec")
  done
  # The time left after the export and the calibration samples.
  session_timeout "$tag" 60 "$log" || return 0
  echo "=== $tag: gpu_variants.py $name $* ($((SECONDS))s)" | tee -a "$log"
  "${run[@]}" python3 tools/gpu_variants.py --bin "$bin" --model "$model" --out "$work/$tag" \
    --common=--arch=sm_90a --jobs "$(nproc)" --steps 64 $compile_only "${specs[@]}" 2>&1 | tee -a "$log"
  local rc=$?
  cp "$work/$tag/variants.json" "$out/$tag.json" || return 1
  return $rc
}

# The single-run parts, by name (the session runs several of them).
part() {
  case $1 in
  first) bench first --models mobilenet_v2,resnet50,bert --batches 1 "${both[@]}" \
           "${models_only[@]}" --min-time 1 --variant i32=--kernel-index-bits=32 ;;
  b1) bench b1 --models mobilenet_v2,resnet50,bert --batches 1 "${both[@]}" "${models_only[@]}" \
        --min-time 1 ;;
  gpt2) bench gpt2 --models gpt2 "${both[@]}" "${models_only[@]}" --min-time 1 ;;
  b32) bench b32 --models resnet50,mobilenet_v2 --batches 32 "${both[@]}" "${models_only[@]}" \
         --min-time 1 "${variants[@]}" ;;
  micro) bench micro --models none ;;
  micro-persistent) bench micro-persistent --models none --elementwise-size 0 \
                      --dlc-flag=--persistent-gemm ;;
  profile-b32) profile_all resnet50:32 ;;
  profile-int8)
    local cal run
    session_timeout profile-int8 60 "${session_log:-/dev/null}" || return 0
    cal=$(calibration_dir resnet50:32) || return 1
    profile_all resnet50:32 --precision=int8 "--calibrate=$cal" "--calibration-cache=$cal.cache" ;;
  # Which of --stage-epilogue-inputs and --kernel-index-bits=32 cost BERT
  # and GPT-2 4% together on 2026-11-26 (docs/performance.md, fourth run).
  split-text)
    local f=--precision=fp16
    variants_run split-bert bert:8 "fp16=$f" "i32=$f --kernel-index-bits=32" \
      "inputs=$f --stage-epilogue-inputs"
    variants_run split-gpt2 gpt2:8 "fp16=$f" "i32=$f --kernel-index-bits=32" \
      "inputs=$f --stage-epilogue-inputs" ;;
  # int8 resnet50 b32 against the schedule options that are on by default
  # (off here), and 32-bit indices: which of them the int8 build needs.
  int8-variants)
    local c="--precision=int8 --calibrate=@CAL --calibration-cache=@CAL.cache"
    variants_run int8-variants resnet50:32 "int8=$c" "ctas1=$c --gemm-ctas-per-sm=0" \
      "nogather=$c --gather-split-k=false" "nodeep=$c --deepen-stages=false" \
      "noinputs=$c --stage-epilogue-inputs=false" "unstaged=$c --stage-epilogue=false" \
      "i32=$c --kernel-index-bits=32" "shortk=$c --short-k-tiles" \
      "qfl=--precision=int8 --calibrate=@CAL --calibration-cache=@CAL.qfl.cache --quantize-first-last" ;;
  # --tma-im2col, --gather-producer-warps and --producer-warpgroup (off
  # until this measures them): the copy engine gathering the 3x3 and
  # strided convolutions' im2col operand, producer warps gathering it, a
  # TMA producer warpgroup giving its registers to the consumers, int8 and
  # fp16 resnet50 b32, each against its precision's defaults; with
  # --short-k-tiles, layer1's 1x1 convolutions are on TMA.
  gather-producers)
    local c="--precision=int8 --calibrate=@CAL --calibration-cache=@CAL.cache" f=--precision=fp16
    variants_run gather-producers resnet50:32 "int8=$c" "i2c=$c --tma-im2col" \
      "i2c-pw=$c --tma-im2col --producer-warpgroup" "gp1=$c --gather-producer-warps=1" \
      "gp2=$c --gather-producer-warps=2" "gp4=$c --gather-producer-warps=4" \
      "gp2-ctas1=$c --gather-producer-warps=2 --gemm-ctas-per-sm=0" \
      "gp2-nogather=$c --gather-producer-warps=2 --gather-split-k=false" \
      "gp2-shortk=$c --gather-producer-warps=2 --short-k-tiles" \
      "pw=$c --producer-warpgroup" "gp4-pw=$c --gather-producer-warps=4 --producer-warpgroup" \
      "pf=$c --prefetch-epilogue-inputs" "lanes=$c --vectorize-lane-chains" \
      "all=$c --gather-producer-warps=4 --producer-warpgroup --short-k-tiles --prefetch-epilogue-inputs --kernel-index-bits=32" \
      "all-i2c=$c --tma-im2col --gather-producer-warps=4 --producer-warpgroup --short-k-tiles --prefetch-epilogue-inputs --vectorize-lane-chains --kernel-index-bits=32" \
      "fp16=$f" "fp16-i2c=$f --tma-im2col" "fp16-gp2=$f --gather-producer-warps=2" "fp16-gp4=$f --gather-producer-warps=4" \
      "fp16-pw=$f --producer-warpgroup" "fp16-lanes=$f --vectorize-lane-chains" \
      "fp16-all=$f --gather-producer-warps=4 --producer-warpgroup --kernel-index-bits=32" ;;
  int8) bench int8 --models resnet50 --batches 32 --skip-compile-modes --steps 64 \
          --int8 --int8-variant i32=--kernel-index-bits=32 "${models_only[@]}" ;;
  esac
}

case ${1:-} in
session)
  deadline=$((SECONDS + ${2:-540}))
  session_log=$out/session.log
  : >"$session_log"
  # The third 2026-11-26 run completed issue 5's table in one call (b32
  # with three variants 193 s, first 166 s, gpt2 81 s, micro 110 s) and
  # int8 took 197 s in a second; the fourth's variants of resnet50 b32 (8
  # builds) took 111 s. Issue 6 first: what producer warps gathering the
  # 3x3 convolutions are worth (gather-producers), what the int8 build's
  # schedule options are worth (int8-variants), which option costs BERT
  # and GPT-2 (split-text), int8 (every step's time, the i32 variant), the
  # int8 ncu table, and the rest as time allows (8 files come back: no
  # gpt2, no micro).
  for p in gather-producers int8-variants split-text int8 profile-int8 first b32; do
    part "$p"
  done
  echo "=== session done ($((SECONDS))s)" | tee -a "$session_log" ;;
first | b1 | gpt2 | b32 | micro | micro-persistent | profile-b32 | profile-int8 | int8 | split-text | int8-variants | gather-producers) part "$1" ;;
ablations)
  bench micro-nows --models none --elementwise-size 0 --dlc-flag=--warp-specialize=false
  bench micro-notma --models none --elementwise-size 0 --dlc-flag=--tma=false ;;
persistent)
  part micro-persistent
  bench models-persistent --models resnet50,bert --batches 32 --text-batch 8 \
    --skip-compile-modes "${models_only[@]}" --dlc-flag=--persistent-gemm ;;
nofold)
  bench models-nofold --models resnet50 --batches 1,32 --skip-compile-modes \
    "${models_only[@]}" --dlc-flag=--fold-conv-padding=false
  bench int8-nofold --models resnet50 --batches 32 --skip-compile-modes --int8 \
    "${models_only[@]}" --dlc-flag=--fold-conv-padding=false ;;
overlap)
  bench models-overlap --models mobilenet_v2,resnet50,bert --batches 1 --skip-compile-modes \
    "${models_only[@]}" --min-time 1 --dlc-flag=--overlap-launches ;;
variants)
  shift
  variants_run variants "$@" || exit 1 ;;
preflight)
  shift
  if [ "${1:-}" = variants ]; then
    shift
    [ $# -ge 2 ] || { echo "usage: $0 preflight variants MODEL NAME=FLAGS..." >&2; exit 2; }
    variants_run variants "$@" || exit 1
  else
    for p in "${@:-gather-producers int8-variants split-text}"; do
      for q in $p; do part "$q"; done
    done
  fi ;;
profile)
  model=$(onnx_of "$2") || exit 1
  regex=$3
  shift 3
  so=$work/profile.so
  "$bin/dlc" "$model" --arch=sm_90a --precision=fp16 "$@" -o "$so" || exit 1
  "$bin/dlc-bench" "$so" --resident --min-time 1 --steps 10 | tee "$out/profile-steps.log"
  ncu --clock-control none --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy \
    --section LaunchStats --section WarpStateStats --kernel-name "regex:$regex" \
    --launch-count 1 "$bin/dlc-bench" "$so" --resident --iters 1 --warmup 0 \
    | tee "$out/profile-ncu.log" ;;
profile-all)
  shift
  profile_all "$@" || exit 1 ;;
esac
