# /// exercise
# format_version = 1
# title = "Start a restarted service warm, with only the bytes its first start left behind"
# syllabus = ["5.6", "5.5"]
# entry = "build"
# factory = true
# timeout = 300
# starter_fails = ["warm_start"]
# hints = [
#   "Run the file: it starts the service twice, each time in a fresh process with an empty compile cache, and prints what each start cost and how many graphs Inductor found in its cache. The second start finds none.",
#   "Inductor keeps what it compiled (FX graphs, AOTAutograd results) in a cache folder on disk, so a restart on the same machine is warm by itself. A new container has an empty folder; what reaches it is the bytes your `save_compile_state()` returns (lesson section 5.6).",
#   "torch.compiler can serialise every cache artifact this process created into bytes, and load such bytes into the cache of another process before it compiles.",
#   "`save_compile_state`: `artifacts = torch.compiler.save_cache_artifacts()` then `return artifacts[0]`. `load_compile_state`: `torch.compiler.load_cache_artifacts(blob)`.",
# ]
#
# [[checks]]
# kind = "warm_start"
# min_ratio = 2.0
# backend = "inductor"
# points = 4
#
# [[requirements]]
# id = "warm"
# text = "A new container that receives only the bytes `save_compile_state()` returned compiles the model from the cache (every graph a cache hit, the same answer) and costs at least 2x less CPU time to its first answer than the first, cold start."
# checks = ["warm_start"]
#
# [[fair]]
# name = "tagged"
# why = "the artifacts behind a format tag, and loaded only when the tag is there"
#
# [[fair]]
# name = "nothing_to_save"
# why = "save and load written to cope with a process that compiled nothing (no artifacts, an empty blob)"
#
# [[wrong]]
# name = "whole_tuple"
# breaks = "warm"
# fails = ["warm_start"]
# message = "returned tuple, not bytes"
#
# [[wrong]]
# name = "kept_in_memory"
# breaks = "warm"
# fails = ["warm_start"]
# message = "failed in your `load_compile_state|compiled from scratch"
#
# [[wrong]]
# name = "file_beside"
# breaks = "warm"
# fails = ["warm_start"]
# message = "failed in your `load_compile_state|not allowed|compiled from scratch"
#
# [[wrong]]
# name = "empty_blob"
# breaks = "warm"
# fails = ["warm_start"]
# message = "compiled from scratch"
# ///
"""Make a restarted service start warm.

The service runs in a container that starts with an empty disk. At start-up it builds the model
with `build()`, compiles it with Inductor (the default backend) and answers its first request.
When a container starts for the first time, its start-up ends with a call to your
`save_compile_state()`, and whatever bytes that returns are stored with the service's image.
Every later container begins with a call to your `load_compile_state(blob)` with those bytes,
before anything is compiled. Today every container starts cold.
"""

import torch

# BEGIN WRONG kept_in_memory
# KEPT = {}
# END WRONG
class Mixer(torch.nn.Module):
    """A tower of low-rank residual layers: each one adds x @ down[i] @ up[i] to x."""

    def __init__(self, depth=32, width=32, rank=4):
        super().__init__()
        self.down = torch.nn.Parameter(torch.randn(depth, width, rank) / 8)
        self.up = torch.nn.Parameter(torch.randn(depth, rank, width) / 8)

    def forward(self, x):
        for down, up in zip(self.down, self.up):
            x = torch.addmm(x, x @ down, up)
        return x


def build():
    torch.manual_seed(0)
    return Mixer()


# BEGIN STARTER
# # TODO: the next container receives only what this returns
# END STARTER
def save_compile_state() -> bytes:
    """Called at the end of the first container's start-up, after its first answer."""
    # BEGIN SOLUTION
    artifacts = torch.compiler.save_cache_artifacts()
    return artifacts[0]
    # END SOLUTION
    # BEGIN STARTER
    # return b""
    # END STARTER
    # BEGIN FAIR tagged
    # artifacts = torch.compiler.save_cache_artifacts()
    # return b"compile-state-v1\n" + artifacts[0]
    # END FAIR
    # BEGIN FAIR nothing_to_save
    # artifacts = torch.compiler.save_cache_artifacts()
    # return artifacts[0] if artifacts is not None else b""
    # END FAIR
    # BEGIN WRONG whole_tuple
    # return torch.compiler.save_cache_artifacts()
    # END WRONG
    # BEGIN WRONG kept_in_memory
    # KEPT["artifacts"] = torch.compiler.save_cache_artifacts()[0]
    # return b""
    # END WRONG
    # BEGIN WRONG file_beside
    # torch.save(torch.compiler.save_cache_artifacts()[0], "compile_state.pt")
    # return b"compile_state.pt"
    # END WRONG
    # BEGIN WRONG empty_blob
    # torch.compiler.save_cache_artifacts()
    # return b""
    # END WRONG


# BEGIN STARTER
# # TODO: called first in every later container, with the bytes the first one saved
# END STARTER
def load_compile_state(blob: bytes) -> None:
    """Called at the start of every later container, before anything is compiled."""
    # BEGIN SOLUTION
    torch.compiler.load_cache_artifacts(blob)
    # END SOLUTION
    # BEGIN STARTER
    # pass
    # END STARTER
    # BEGIN FAIR tagged
    # tag, _, artifacts = blob.partition(b"\n")
    # if tag == b"compile-state-v1":
    #     torch.compiler.load_cache_artifacts(artifacts)
    # END FAIR
    # BEGIN FAIR nothing_to_save
    # if blob:
    #     torch.compiler.load_cache_artifacts(blob)
    # END FAIR
    # BEGIN WRONG kept_in_memory
    # torch.compiler.load_cache_artifacts(KEPT["artifacts"])
    # END WRONG
    # BEGIN WRONG file_beside
    # torch.compiler.load_cache_artifacts(torch.load(blob.decode()))
    # END WRONG
    # BEGIN WRONG empty_blob
    # if blob:
    #     torch.compiler.load_cache_artifacts(blob)
    # END WRONG


# BEGIN GRADER
def calls(gen):
    """The first request (the one both starts answer), of a batch size drawn per seed."""
    return [(torch.randn(int(torch.randint(1, 9, (1,), generator=gen)), 32, generator=gen),)]
# END GRADER


if __name__ == "__main__":
    from autograder.lab import warm_start_report

    report = warm_start_report(build, (torch.randn(4, 32),), save_compile_state, load_compile_state)
    for name in ("cold", "warm"):
        side = report[name] or {}
        if side.get("error"):
            print(f"{name} start failed: {side['error']}")
            continue
        counters = side.get("counters") or {}
        print(f"{name} start: {side.get('cpu_s') or 0:.2f} s of CPU to the first answer, "
              f"{counters.get('fx_hits', 0)} graph(s) found in the cache, {counters.get('fx_misses', 0)} compiled")
    if report.get("problem"):
        print("save_compile_state()", report["problem"])
