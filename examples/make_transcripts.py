"""Write examples/*/transcript.jsonl: the replies an offline `kernelopt optimize` run replays, in call order.

The transcripts are hand-written, not recorded from a model: each line is one reply in the format of
kernelopt.llm.ReplayProvider (only "text" is required). The kernels in the replies are the files in each example's
candidates/ folder, so they can be read, diffed and tested on their own. Run from the repository root:

    python examples/make_transcripts.py

The call order of `kernelopt optimize ... --rounds 2 --candidates-per-round 2` (default --max-refinements 3) is:
round 1: judge, candidate 1, candidate 2 (+ its fixes); round 2: judge, candidate 1, candidate 2 (+ its fixes).
Those settings decide which reply lands in which call, so each transcript's first line records them
(kernelopt.llm.transcript_header) and a run with other settings stops at once with the flags to use.

examples/softmax/transcript_round0.jsonl is for a run from the bare problem (no KERNEL), with `--samples 2 --rounds 1`:
round 0: sample 1, sample 2 (+ their fixes, one sample after the other); round 1: judge, candidate 1.
"""
import json
from pathlib import Path

from kernelopt.llm import transcript_header

HERE = Path(__file__).parent
SETTINGS = dict(rounds=2, candidates_per_round=2, max_refinements=3)   # what the replies below are laid out for


def code_reply(explanation: str, path: Path) -> str:
    return f"{explanation}\n\n```python\n{path.read_text().rstrip()}\n```\n"


def bottleneck(category, summary, evidence, root_cause, optimizations):
    return dict(category=category, summary=summary, root_cause=root_cause,
                evidence=[dict(metric=m, value=v, interpretation=i) for m, v, i in evidence],
                optimizations=[dict(method=m, rationale=r, expected_impact=e) for m, r, e in optimizations])


def judge_reply(b1, b2) -> str:
    return json.dumps({"bottleneck_1": b1, "bottleneck_2": b2}, indent=1)


def write(path: Path, replies: list, settings: dict = SETTINGS):
    "One line per reply: a text, or a dict of a text and what its provider would report (stop_reason, token counts)."
    with open(path, "w") as f:
        f.write(transcript_header(settings) + "\n")
        for i, reply in enumerate(replies, 1):
            extra = reply if isinstance(reply, dict) else {"text": reply}
            f.write(json.dumps({"call": i, "model": "hand-written", **extra}) + "\n")
    print(f"wrote {path} ({len(replies)} replies, recorded for {settings})")


def softmax():
    d = HERE / "softmax"
    c = d / "candidates"
    judge_1 = judge_reply(
        bottleneck("memory-bandwidth",
                   "Each row is read from memory three times (max pass, sum pass, normalise pass): three times the compulsory traffic.",
                   [("efficiency_pct", "see Roofline", "far from the memory roof for a kernel that should be bandwidth-bound"),
                    ("median_ms", "see Timings", "the time of three full reads and one write of the tensor")],
                   "The kernel loops over the row in 128-column blocks three separate times; on large rows nothing stays in cache between passes.",
                   [("Compute the running maximum and the rescaled running sum in one pass (online softmax), then one pass to write",
                     "cuts the reads from three passes to two", "about 1.3-1.5x on large rows"),
                    ("When the row fits in registers (up to 16384 columns), load it once and do max, exp, sum and store from registers",
                     "one read and one write: the compulsory traffic", "up to 2x")]),
        bottleneck("occupancy",
                   "128-column blocks with 4 warps leave each program issuing few loads at a time.",
                   [("median_ms", "see Timings", "time dominated by dependent load latency")],
                   "BLOCK=128 gives one 512-byte load per iteration per program; latency is not hidden.",
                   [("Use a larger BLOCK (1024-2048) with 8 warps", "more bytes in flight per program", "10-30%")]))
    judge_2 = judge_reply(
        bottleneck("memory-bandwidth",
                   "The current kernel still reads each row more than once.",
                   [("efficiency_pct", "see Roofline", "below the memory roof")],
                   "A separate pass writes the output after the statistics pass, re-reading the row.",
                   [("Keep the whole row in registers when it fits: one read, one write, with the online kernel as the fallback for longer rows",
                     "reaches the compulsory traffic", "1.3-2x")]),
        bottleneck("launch-overhead",
                   "On small problems the launch and Python wrapper cost is a large share of the time.",
                   [("median_ms", "see Timings", "short kernel time")],
                   "One launch per call plus host-side reshapes.",
                   [("Avoid extra host work around the launch; let a fused library kernel handle small rows",
                     "less host overhead", "small problems only")]))
    write(d / "transcript.jsonl", [
        judge_1,
        code_reply("Online softmax: the maximum and the running sum in one pass, then a second pass to write, with "
                   "1024-column blocks. Two reads of each row instead of three.", c / "online.py"),
        code_reply("Online softmax with 2048-column blocks and 8 warps, for more bytes in flight per program.",
                   c / "online_wrong.py"),
        code_reply("The rescale factor was inverted: the running sum must be multiplied by exp(m_old - m_new), and "
                   "lanes still at -inf must contribute 0. Fixed:", c / "online_fixed.py"),
        judge_2[: len(judge_2) // 2],   # a reply cut off mid-JSON: the loop sends the parse error back once
        judge_2,
        code_reply("Whole-row softmax: each row is loaded once into registers, normalised and stored once; rows longer "
                   "than 16384 columns use the online kernel.", c / "single_block.py"),
        code_reply("For short rows PyTorch's fused softmax is already optimal, so only long rows launch the Triton kernel.",
                   c / "torch_fallback.py"),
        code_reply("Use torch.nn.functional.softmax for the short rows instead.", c / "torch_fallback_2.py"),
        code_reply("The short-row path now goes through F.softmax as well.", c / "torch_fallback_2.py"),
        code_reply("Keeping the library path for short rows; it is the fastest correct option.", c / "torch_fallback.py"),
    ])


def linear_bias_relu():
    d = HERE / "linear_bias_relu"
    c = d / "candidates"
    judge_1 = judge_reply(
        bottleneck("memory-bandwidth",
                   "The output makes an extra round trip through memory: the matmul writes it, a second kernel reads it back for bias and ReLU.",
                   [("median_ms", "see Timings", "two launches per call")],
                   "Bias add and ReLU live in a separate element-wise kernel instead of the matmul's epilogue.",
                   [("Apply bias and ReLU to the accumulator in registers before the single store (fused epilogue)",
                     "removes one write and one read of the output and one launch", "10-25% at large sizes")]),
        bottleneck("tensor-core-underuse",
                   "32 x 32 x 32 tiles are too small to keep tensor cores and the memory system busy.",
                   [("efficiency_pct", "see Roofline", "far below the compute roof of a 137 GFLOP problem")],
                   "Small tiles re-read A and W from global memory many times and give each warp little work.",
                   [("Use 64 x 128 (or 128 x 128) tiles with 8 warps", "more reuse per loaded tile", "1.5-3x at 4096^3")]))
    judge_2 = judge_reply(
        bottleneck("compute-throughput",
                   "The fused kernel is now bound by the matmul's main loop.",
                   [("efficiency_pct", "see Roofline", "below the compute roof")],
                   "Tile shape and pipelining limit how well the main loop overlaps loads and math.",
                   [("128 x 128 x 32 tiles, 8 warps, 3 pipeline stages, grouped program order for L2 reuse of W",
                     "deeper pipelining and better L2 hit rate", "1.2-1.5x")]),
        bottleneck("host-overhead",
                   "Host-side work around the launch (contiguity, allocation, dtype cast) adds latency.",
                   [("median_ms", "see Timings", "time includes wrapper overhead")],
                   "The wrapper allocates and casts on every call.",
                   [("Call the library GEMM with the bias fused", "one call, no wrapper work", "small problems")]))
    write(d / "transcript.jsonl", [
        judge_1,
        code_reply("Fused epilogue: bias and ReLU applied to the accumulator before the single store; 64 x 64 tiles.",
                   c / "fused.py"),
        code_reply("Fused epilogue with 64 x 128 tiles and 8 warps.", c / "fused_wrong.py"),
        code_reply("ReLU must come after the bias add (relu(acc + b), not relu(acc) + b). Fixed:", c / "fused_fixed.py"),
        judge_2,
        code_reply("128 x 128 x 32 tiles, 8 warps, 3 stages, grouped launch order, fused epilogue.", c / "grouped.py"),
        code_reply("cuBLAS already has the fastest GEMM: addmm with the bias, then an in-place ReLU.", c / "torch_fallback.py"),
        code_reply("F.linear with the bias, then ReLU.", c / "torch_fallback_2.py"),
        code_reply("addmm with the bias fused, then ReLU.", c / "torch_fallback.py"),
        code_reply("F.linear again; it is the fastest correct option.", c / "torch_fallback_2.py"),
    ])


def softmax_round0():
    "From the bare problem: the model's two first kernels (one cut off at its token limit, then resent), then one round."
    d = HERE / "softmax"
    c = d / "candidates"
    online = (c / "online.py").read_text()
    judge = judge_reply(
        bottleneck("memory-bandwidth",
                   "The online kernel still reads each row twice: once for the running maximum and sum, once to write.",
                   [("efficiency_pct", "see Roofline", "below the memory roof for a bandwidth-bound problem"),
                    ("median_ms", "see Timings", "two full reads and one write of the tensor")],
                   "The statistics pass and the output pass each stream the row from memory.",
                   [("Keep the whole row in registers when it fits (up to 16384 columns): one read, one write, with the "
                     "online kernel as the fallback for longer rows", "reaches the compulsory traffic", "1.3-2x")]),
        bottleneck("occupancy",
                   "1024-column blocks leave a 1000-column row with one block per program and few loads in flight.",
                   [("median_ms", "see Timings", "time dominated by load latency")],
                   "One program per row and a fixed block size.",
                   [("Size the block to the row (next power of two) and scale num_warps with it", "more bytes in flight", "10-30%")]))
    write(d / "transcript_round0.jsonl", [
        {"text": code_reply("A first kernel: one program per row, three passes over the row in 128-column blocks (maximum, "
                            "sum of exponentials, normalised output). Simple and correct for any row length.", d / "kernel.py"),
         "stop_reason": "end_turn"},
        {"text": "Softmax needs the row maximum and the sum of exponentials before it can write. An online softmax keeps a "
                 "running maximum and a running sum, rescaled whenever the maximum grows, so one pass gives both; a second "
                 "pass writes the output.\n\n```python\n" + online[: len(online) // 2],
         "stop_reason": "max_tokens", "output_tokens": 1024},
        {"text": code_reply("The complete file, shorter: online softmax, the maximum and the running sum in one pass, then a "
                            "second pass to write, with 1024-column blocks.", c / "online.py"), "stop_reason": "end_turn"},
        judge,
        {"text": code_reply("Whole-row softmax: each row is loaded once into registers, normalised and stored once; rows longer "
                            "than 16384 columns use the online kernel.", c / "single_block.py"), "stop_reason": "end_turn"},
    ], dict(rounds=1, candidates_per_round=1, max_refinements=3, samples=2))


if __name__ == "__main__":
    softmax()
    softmax_round0()
    linear_bias_relu()
