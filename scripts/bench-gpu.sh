#!/usr/bin/env bash
# The GPU's benchmark (not a test: CI has no GPU): the roofs twice, then with their
# validation, the CUDA test programs timed by events and recorded under Nsight Compute, then
# profiled by carmbench (profile --gpu) and predicted by Konstantinidis on this GPU (issue 54).
#   scripts/bench-gpu.sh [CARMBENCH] [OUT]
# CARMBENCH: the binary (default target/release/carmbench); OUT: where the results, logs
# and ncu's CSVs go (default gpu-bench/). Needs the NVIDIA driver; nvcc and ncu (on PATH or
# in /usr/local/cuda/bin) for the programs. Prints each GPU's roofs and the validation.
set -uo pipefail
B=$(realpath "${1:-target/release/carmbench}")
OUT=$(mkdir -p "${2:-gpu-bench}" && realpath "${2:-gpu-bench}")
HERE=$(cd "$(dirname "$0")/.." && pwd)
export PATH=$PATH:/usr/local/cuda/bin
for i in 1 2; do
    /usr/bin/time -f "wall %e s" timeout 150 "$B" run --gpu -o "$OUT/r$i" >"$OUT/log$i" 2>&1
done
sed -n '/^GPU [0-9]*: /,$p' "$OUT/log2"
timeout 300 "$B" run --gpu --validate -o "$OUT/v" >"$OUT/vlog" 2>&1
grep -E "median|validation took" "$OUT/vlog"
command -v nvcc >/dev/null && command -v ncu >/dev/null || { echo "no nvcc or ncu: the CUDA programs are left out"; exit 0; }
# The metrics issue 54 reads: time, bytes by level, instructions by type and pipe.
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,l1tex__t_bytes.sum
M=$M,sm__sass_inst_executed.sum,smsp__inst_executed.sum,sm__sass_thread_inst_executed_op_integer_pred_on.sum
for op in ffma fadd fmul dfma dadd dmul hfma hadd hmul; do M=$M,sm__sass_thread_inst_executed_op_${op}_pred_on.sum; done
M=$M,sm__sass_thread_inst_executed_op_memory_pred_on.sum,sm__inst_executed_pipe_tensor.sum
for s in global_ld global_st shared_ld shared_st; do M=$M,sm__sass_inst_executed_op_$s.sum; done
for t in src_fp16 src_bf16_dst_fp32 src_tf32_dst_fp32 src_fp64 src_int8 src_fp8; do M=$M,sm__ops_path_tensor_$t.sum; done
M=$M,sm__cycles_elapsed.avg.per_second,launch__grid_size,launch__block_size
(nvcc --version; ncu --version) >"$OUT/versions.txt" 2>&1
for p in triad stencil sgemm hash intensity; do
    nvcc -O3 -arch=sm_90 -o "$OUT/$p" "$HERE/tests/programs/cuda/$p.cu" || continue
    "$OUT/$p" | tee "$OUT/$p.native.txt"
    timeout 120 ncu --csv --clock-control none --metrics "$M" "$OUT/$p" >"$OUT/$p.csv" 2>&1
    echo "ncu $p: exit $?, $(wc -l <"$OUT/$p.csv") lines in $OUT/$p.csv"
done
# Issue 54's figures: each program profiled by carmbench under ncu (a point per kernel), then
# Konstantinidis's prediction of each kernel on this GPU beside its time measured without ncu.
for p in triad stencil sgemm hash intensity; do
    [ -x "$OUT/$p" ] || continue
    timeout 300 "$B" profile --gpu --results "$OUT/v/carm.yaml" -o "$OUT/apps.yaml" -- "$OUT/$p" >"$OUT/$p.profile.txt" 2>&1
    echo "profile --gpu $p: exit $?"; grep -A8 "^  kernel" "$OUT/$p.profile.txt"
done
timeout 60 "$B" predict --app "$OUT/apps.yaml" --on "$OUT/v/carm.yaml" | tee "$OUT/predict.txt"
grep -h "^time " "$OUT"/*.native.txt
