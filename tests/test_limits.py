"""The limits a grading child sets on itself (sandbox/limits.py): hard = soft, memory by what is
written (RLIMIT_DATA) and not by address space, and a file-size limit that Inductor's own compiles
fit under, with an empty compile cache as on a fresh machine (issue 19, item 9)."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

from conftest import ROOT


def _contained(code: str, tmp_path, timeout=240) -> dict:
    """Run ``code`` in a fresh interpreter after ``contain`` (as the cold child does, before torch is
    imported), with its temporary folder, and so Inductor's default cache, empty; ``code`` sets
    ``out``, printed as JSON."""
    script = textwrap.dedent("""
        import json, sys
        from autograder.sandbox.limits import contain
        applied = contain(60)
    """) + textwrap.dedent(code) + "\nprint(json.dumps(out))\n"
    env = {**os.environ, "TMPDIR": str(tmp_path), "TORCHINDUCTOR_CACHE_DIR": str(tmp_path / "inductor")}
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_every_limit_has_hard_equal_to_soft_and_memory_is_not_the_address_space(tmp_path):
    out = _contained("""
        import resource
        out = {name: resource.getrlimit(getattr(resource, name)) for name in
               ("RLIMIT_CPU", "RLIMIT_DATA", "RLIMIT_FSIZE", "RLIMIT_CORE", "RLIMIT_AS")}
        out["applied"] = applied
        try:
            resource.setrlimit(resource.RLIMIT_DATA, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
            out["raised"] = True
        except (ValueError, OSError):
            out["raised"] = False
        try:
            block = bytearray(5 << 30)
            out["allocated"] = True
        except MemoryError:
            out["allocated"] = False
    """, tmp_path)
    for name in ("RLIMIT_CPU", "RLIMIT_DATA", "RLIMIT_FSIZE", "RLIMIT_CORE"):
        soft, hard = out[name]
        assert soft == hard != -1, (name, out[name])
    assert out["RLIMIT_DATA"][0] == 4 << 30 and out["RLIMIT_FSIZE"][0] == 64 << 20
    assert out["RLIMIT_AS"][0] == -1, "the address space is not limited: the CUDA build maps more than any cap fair to it"
    assert not out["raised"] and not out["allocated"]
    assert any("memory 4.0 GiB by RLIMIT_DATA" in line for line in out["applied"]), out["applied"]


def test_a_contained_process_compiles_without_precompiled_headers_in_the_warm_configuration_too(tmp_path):
    out = _contained("""
        import os
        import torch._inductor.config as config
        out = {"env": os.environ.get("TORCHINDUCTOR_CPP_CACHE_PRECOMPILE_HEADERS"),
               "cold": config.cpp_cache_precompile_headers}
        config.cpp_cache_precompile_headers = True  # as a warm worker's torch, loaded before the fork
        from autograder.sandbox.limits import compile_within_the_file_size_limit
        compile_within_the_file_size_limit()
        out["warm"] = config.cpp_cache_precompile_headers
        out["aot"] = config.aot_inductor.precompile_headers
    """, tmp_path)
    assert out == {"env": "0", "cold": False, "warm": False, "aot": False}


@pytest.mark.slow
def test_inductor_compiles_a_cpu_kernel_under_the_file_size_limit_with_an_empty_cache(tmp_path):
    """On a fresh machine nothing is cached: with precompiled headers Inductor would first write a
    ~150 MiB header, cut off at the 64 MiB limit (g++: "File size limit exceeded")."""
    out = _contained("""
        import torch
        def chain(x):
            return torch.relu(torch.sin(x) * 2 + 1)
        torch.manual_seed(0)
        x = torch.randn(1000)
        compiled = torch.compile(chain, backend="inductor")
        # Inductor's vectorised sin differs from eager's by an ulp or two, so near relu's kink
        # (sin(x) close to -0.5) the default atol of 1e-8 fails by chance; the grader's own is 1e-6.
        out = {"same": bool(torch.allclose(compiled(x), chain(x), rtol=1e-5, atol=1e-6))}
    """, tmp_path)
    assert out == {"same": True}
    written = [os.path.join(folder, name) for folder, _, names in os.walk(tmp_path) for name in names]
    assert not [name for name in written if name.endswith((".gch", ".pch"))], written
    assert max(os.path.getsize(name) for name in written) < 64 << 20
