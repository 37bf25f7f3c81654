#!/usr/bin/env bash
# The GPU test suites on a machine without LLVM (the lent GPU machine), run
# against the `make bundle` archive instead of a build tree.
#
# Here (with LLVM), once:
#   make bundle && tools/gpu_checks.sh --stage
#     -> dist/dlc-bundle.tar.xz and dist/shared/{models,tools} (the zoo
#        skeletons, ~3 MB), both ignored by git; together under the 64 MiB a
#        device call carries.
# There (device tool: carry ["dist"], one call per suite or two to stay
# within 10 minutes a call):
#   tools/gpu_checks.sh ops checks quant     # small models, --target cuda
#   tools/gpu_checks.sh models               # the zoo on the GPU vs *.ref.npz
#                                            # (and bert_base through ONNX
#                                            # Runtime's optimizer)
#   tools/gpu_checks.sh precision            # resnet50 fp16, resnet50_int8,
#                                            # bert_base bf16, mobilenet_v2 fp16
#   tools/gpu_checks.sh overlap              # resnet50, mobilenet_v2, bert_base
#                                            # fp16 with --overlap-launches
#   tools/gpu_checks.sh i32 unstaged         # ops and resnet50, mobilenet_v2,
#                                            # bert_base fp16 with
#                                            # --kernel-index-bits=32 /
#                                            # --stage-epilogue=false
#   tools/gpu_checks.sh producers            # ops, the fp16 zoo and
#                                            # resnet50_int8 with
#                                            # --gather-producer-warps=4
#                                            # --producer-warpgroup
#                                            # --prefetch-epilogue-inputs
#                                            # --vectorize-lane-chains
#   tools/gpu_checks.sh im2col               # ops, the fp16 zoo and
#                                            # resnet50_int8 with --tma-im2col
#   tools/gpu_checks.sh ptq                  # resnet50, bert_base post-training
#                                            # int8 for the GPU vs fp32 (SQNR)
# Each suite prints its per-case lines; the script exits non-zero if any
# suite failed (77, "skipped", without a GPU counts as failed there: the
# point of running it is the GPU).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1

if [ "${1:-}" = "--stage" ]; then
  [ -f dist/dlc-bundle.tar.xz ] || { echo "run make bundle first" >&2; exit 1; }
  rm -rf dist/shared && mkdir -p dist/shared
  cp -r ../shared/models ../shared/tools dist/shared/
  du -ch dist/dlc-bundle.tar.xz dist/shared | tail -1
  exit 0
fi

work=${DLC_GPU_WORK:-/tmp/dlc-gpu}
bundle=$work/dlc-bundle
if [ ! -x "$bundle/bin/dlc" ]; then
  mkdir -p "$work" && tar -C "$work" -xf dist/dlc-bundle.tar.xz || exit 1
fi
bin=$bundle/bin
models=(--bin-dir "$bin" --models-dir dist/shared/models
        --tools-dir dist/shared/tools --cache-dir "$work/models")
jobs=${DLC_GPU_JOBS:-8}

failed=()
suite() {
  local name=$1
  shift
  echo "=== $name: $*"
  "$@"
  local rc=$?
  echo "=== $name: exit $rc"
  [ $rc -eq 0 ] || failed+=("$name")
}

# The op suite and the fp16 zoo on sm_90a with more dlc flags (FLAGS, split
# at spaces), at the default tolerances: flagged NAME FLAGS.
flagged() {
  suite "ops-$1" env DLC_FLAGS="$2 ${DLC_FLAGS:-}" \
    python3 test/e2e/test_ops.py --bin-dir "$bin" --target cuda -j "$jobs"
  local m f dlc_flags=()
  for f in $2; do dlc_flags+=("--dlc-flag=$f"); done
  for m in resnet50:3e-3 mobilenet_v2:2e-2 bert_base:5e-3; do
    suite "${m%%:*}-fp16-$1" python3 test/e2e/test_models.py "${models[@]}" \
      --device cuda --gpu-arch sm_90a --precision fp16 --rtol 0 --atol-rel "${m##*:}" \
      "${dlc_flags[@]}" "${m%%:*}"
  done
}

[ $# -gt 0 ] || set -- ops checks quant models precision
for s in "$@"; do
  case $s in
  ops) suite ops python3 test/e2e/test_ops.py --bin-dir "$bin" --target cuda -j "$jobs" ;;
  checks) suite checks python3 test/e2e/test_checks.py --bin-dir "$bin" --target cuda -j "$jobs" ;;
  quant) suite quant python3 test/e2e/test_quant.py --bin-dir "$bin" --target cuda -j "$jobs" ;;
  models)
    for m in squeezenet1_1 resnet50 mobilenet_v2 bert_base; do
      suite "model-$m" python3 test/e2e/test_models.py "${models[@]}" --device cuda "$m"
    done
    # ONNX Runtime's transformer optimizer's fused operators (com.microsoft
    # SkipLayerNormalization, Gelu) at the fp32 tolerance.
    suite "model-bert_base-ort-optimized" python3 test/e2e/test_models.py "${models[@]}" \
      --device cuda --ort-optimize bert bert_base ;;
  precision)
    # On an H100/H200 the models suite builds for sm_90a (wgmma); these
    # build each model for sm_90a and sm_90 (mma.sync), so a failure says
    # which tensor-core path is wrong.
    for arch in sm_90a sm_90; do
      suite "resnet50-fp16-$arch" python3 test/e2e/test_models.py "${models[@]}" \
        --device cuda --gpu-arch "$arch" --precision fp16 --rtol 0 --atol-rel 3e-3 resnet50
      suite "resnet50_int8-$arch" python3 test/e2e/test_models.py "${models[@]}" \
        --device cuda --gpu-arch "$arch" --rtol 0 --atol-rel 0.2 resnet50_int8
      # ONNX Runtime's QOperator quantization of resnet50: exact on the
      # host; the printed max|err| says whether the GPU is too.
      suite "resnet50-ort-qoperator-$arch" python3 test/e2e/test_models.py "${models[@]}" \
        --device cuda --gpu-arch "$arch" --ort-quantize qoperator --rtol 0 --atol-rel 0.2 resnet50
      suite "bert_base-bf16-$arch" python3 test/e2e/test_models.py "${models[@]}" \
        --device cuda --gpu-arch "$arch" --precision bf16 --rtol 0 --atol-rel 2e-2 bert_base
      suite "mobilenet_v2-fp16-$arch" python3 test/e2e/test_models.py "${models[@]}" \
        --device cuda --gpu-arch "$arch" --precision fp16 --rtol 0 --atol-rel 2e-2 mobilenet_v2
    done ;;
  overlap)
    # Programmatic dependent launch: the same tolerances as without it (the
    # kernels are the same; a missing wait shows as wrong results).
    for m in resnet50:3e-3 mobilenet_v2:2e-2 bert_base:5e-3; do
      suite "${m%%:*}-fp16-overlap" python3 test/e2e/test_models.py "${models[@]}" \
        --device cuda --gpu-arch sm_90a --precision fp16 --rtol 0 --atol-rel "${m##*:}" \
        --dlc-flag=--overlap-launches "${m%%:*}"
    done ;;
  i32)
    # --kernel-index-bits=32 (every kernel's index arithmetic in 32 bits):
    # an offset that wrapped or lost its sign shows as wrong results or a
    # fault.
    flagged i32 --kernel-index-bits=32 ;;
  unstaged)
    # --stage-epilogue=false (GEMM results stored from the fragments; the
    # default stages them through the stage memory).
    flagged unstaged --stage-epilogue=false ;;
  producers)
    # The schedules off until measured: gathering producer warps (and the
    # warpgroup's setmaxnreg), TMA producer warpgroups and prefetched
    # epilogue inputs. A wrong mbarrier
    # count hangs a kernel: dlc-run's 2-minute limit fails the case. The
    # int8 zoo model too (its 3x3 convolutions gather).
    flagged producers "--gather-producer-warps=4 --producer-warpgroup --prefetch-epilogue-inputs --vectorize-lane-chains"
    suite resnet50_int8-producers python3 test/e2e/test_models.py "${models[@]}" \
      --device cuda --gpu-arch sm_90a --rtol 0 --atol-rel 0.2 \
      --dlc-flag=--gather-producer-warps=4 --dlc-flag=--producer-warpgroup \
      --dlc-flag=--prefetch-epilogue-inputs --dlc-flag=--vectorize-lane-chains resnet50_int8 ;;
  im2col)
    # TMA's im2col mode (off until measured): a corner, box or offset the
    # copy engine reads otherwise than the emulation shows as wrong
    # results (tma_im2col_conv_fp16 has asymmetric pads, a stride and a
    # dilation: swapped W and H corners fail it), a wrong byte count hangs
    # (dlc-run's 2-minute limit).
    flagged im2col --tma-im2col
    suite resnet50_int8-im2col python3 test/e2e/test_models.py "${models[@]}" \
      --device cuda --gpu-arch sm_90a --rtol 0 --atol-rel 0.2 \
      --dlc-flag=--tma-im2col resnet50_int8
    # Unfolded padding: the convolutions read the zero-point-padded copies,
    # their boxes from corner 0 (19 kernels instead of 3).
    suite resnet50_int8-im2col-unfolded python3 test/e2e/test_models.py "${models[@]}" \
      --device cuda --gpu-arch sm_90a --rtol 0 --atol-rel 0.2 \
      --dlc-flag=--tma-im2col --dlc-flag=--fold-conv-padding=false resnet50_int8 ;;
  ptq)
    # Post-training int8 built for the GPU (int8 residual adds, fp16
    # fallback layers), the held-out input run there: >= 25 dB against fp32
    # (the host's CUDA form: resnet50 40.6, bert_base 32.9 dB).
    for m in resnet50 bert_base; do
      suite "ptq-$m" python3 test/e2e/test_ptq.py --bin-dir "$bin" --models-dir dist/shared/models \
        --tools-dir dist/shared/tools --cache-dir "$work/models" --device cuda --min-sqnr 25 "$m"
    done ;;
  *) echo "unknown suite '$s' (ops checks quant models precision overlap i32 unstaged producers im2col ptq)" >&2; exit 2 ;;
  esac
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "failed: ${failed[*]}"
  exit 1
fi
echo "all passed"
