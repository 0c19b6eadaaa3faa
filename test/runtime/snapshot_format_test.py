#!/usr/bin/env python3
"""The runtime's memory snapshots load in PyTorch's own reader.

Reads each snapshot with the PyPI torch's ``torch.cuda._memory_viz`` (the code
behind ``python -m torch.cuda._memory_viz`` and the HTML pages of
https://pytorch.org/memory_viz) and checks what a user would look at: the
segment summary, the allocator trace, the memory flame graph with the frames
of the allocations, and the HTML plots. Without a GPU (format test):

  snapshot_format_test.py --synthetic S.pickle --cpu C.pickle --cpu-function F
    S: written by runtime_snapshot_writer (the 1.13 CUDA writer's shape)
    C: the CPU snapshot an example wrote (LIBTORCH_TIDY_TRACE=1); F must be
       among its frames

With a GPU (scripts/gpu-check.sh): --cuda X.pickle --cuda-function F, the
caching allocator's snapshot a growing example wrote.
"""
import argparse
import pickle
import pickletools
import sys

import torch.cuda._memory_viz as mv

failures = []


def check(cond, what):
    print(("ok    " if cond else "FAIL  ") + what)
    if not cond:
        failures.append(what)


def plain_pickle(path):
    """No GLOBAL opcodes: the memory_viz web page unpickles it in JavaScript."""
    with open(path, "rb") as f:
        ops = {op.name for op, _, _ in pickletools.genops(f.read())}
    return not ops & {"GLOBAL", "STACK_GLOBAL", "REDUCE", "BUILD", "NEWOBJ"}


def identity(lines):
    return lines


def frames_of(data):
    return {fr["name"] for seg in data["segments"] for b in seg["blocks"] for fr in b.get("frames", [])}


def common(path, data):
    check(isinstance(data, dict) and "segments" in data and "device_traces" in data,
          f"{path}: a dict with segments and device_traces")
    summary = mv.segsum(data)
    check(f"segments: {len(data['segments'])}" in summary, f"{path}: segsum counts the segments")
    html = mv.trace_plot(data)
    check("<html" in html.lower() and len(html) > 1000, f"{path}: trace_plot makes the HTML page")
    html = mv.segment_plot(data)
    check("<html" in html.lower(), f"{path}: segment_plot makes the HTML page")
    return summary


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--synthetic")
    ap.add_argument("--cpu")
    ap.add_argument("--cpu-function")
    ap.add_argument("--cuda")
    ap.add_argument("--cuda-function")
    args = ap.parse_args()

    if args.synthetic:
        p = args.synthetic
        check(plain_pickle(p), f"{p}: plain pickle (no classes)")
        data = pickle.load(open(p, "rb"))
        summary = common(p, data)
        check("total_reserved: 22.0MiB" in summary and "total_allocated: 8.0MiB" in summary,
              f"{p}: segsum reserved 22 MiB, allocated 8 MiB")
        trace = mv.trace(data)
        check("cudaMalloc" in trace and "a[0:4.0MiB]" in trace, f"{p}: trace replays the segment and blocks")
        flame = mv.memory(data, format_flamegraph=identity)
        check("train.cpp:42:train_step" in flame and "active_pending_free" in flame,
              f"{p}: memory flame graph has the frames and block states")
        segs = mv.segments(data, format_flamegraph=identity)
        check(segs.count(";inactive;<non-python>") == 2, f"{p}: segments shows the two free blocks")

    if args.cpu:
        p = args.cpu
        check(plain_pickle(p), f"{p}: plain pickle (no classes)")
        data = pickle.load(open(p, "rb"))
        common(p, data)
        check(len(data["segments"]) > 0, f"{p}: live CPU allocations present")
        if args.cpu_function:
            check(args.cpu_function in frames_of(data), f"{p}: frames name {args.cpu_function}")
            flame = mv.memory(data, format_flamegraph=identity)
            check(":" + args.cpu_function in flame, f"{p}: memory flame graph names {args.cpu_function}")

    if args.cuda:
        p = args.cuda
        data = pickle.load(open(p, "rb"))
        common(p, data)
        check(len(data["segments"]) > 0, f"{p}: CUDA segments present")
        if args.cuda_function:
            frames = frames_of(data)
            # The function itself (a name, or a name and its parameters), not a
            # longer name holding it (main in __libc_start_main).
            ok = any(f == args.cuda_function or f.startswith(args.cuda_function + "(") for f in frames)
            check(ok, f"{p}: frames name {args.cuda_function}")
            if not ok:
                blocks = [b for seg in data["segments"] for b in seg["blocks"]]
                print(f"      {len(blocks)} blocks, {sum(1 for b in blocks if b.get('frames'))} with frames, "
                      f"{len(frames)} distinct frame names; some: {sorted(frames)[:12]}")
                example = next((b for b in blocks if b.get("frames")), None)
                if example:
                    print(f"      one block's frames: {example['frames'][:8]}")

    if failures:
        print(f"snapshot format test: {len(failures)} failed")
        return 1
    print("snapshot format test: all passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
