"""The model's device: CUDA when onnxruntime has it, else the CPU with one line saying why."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest

from memtrails import EmbeddingError
from memtrails.embedding import _session
from memtrails.embedding._session import choose_providers
from memtrails.embedding.onnx import OnnxEmbedder

CPU, CUDA = "CPUExecutionProvider", "CUDAExecutionProvider"
TEXTS = ["The cat sat on the mat.", "Quarterly revenue grew by 12 percent.", ""]


def test_auto_takes_cuda_when_listed_and_says_why_not_when_not() -> None:
    assert choose_providers(None, [CUDA, CPU], {}) == ([CUDA, CPU], None)
    providers, why = choose_providers("auto", [CPU], {})
    assert providers == [CPU]
    assert why is not None and CUDA in why and CPU in why


def test_cpu_is_chosen_by_argument_or_environment_and_the_argument_wins() -> None:
    assert choose_providers("cpu", [CUDA, CPU], {}) == ([CPU], None)
    assert choose_providers(None, [CUDA, CPU], {"MEMTRAILS_DEVICE": "CPU"}) == ([CPU], None)
    assert choose_providers("auto", [CUDA, CPU], {"MEMTRAILS_DEVICE": "cpu"})[0] == [CUDA, CPU]


def test_cuda_asked_for_without_it_and_an_unknown_device_are_errors() -> None:
    with pytest.raises(EmbeddingError, match="onnxruntime-gpu"):
        choose_providers("cuda", [CPU], {})
    with pytest.raises(EmbeddingError, match=r"\$MEMTRAILS_DEVICE is 'gpu'; use one of auto"):
        choose_providers(None, [CPU], {"MEMTRAILS_DEVICE": "gpu"})


async def test_the_packaged_model_on_this_cpu_build_runs_on_the_cpu_and_says_why(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MEMTRAILS_DEVICE", raising=False)
    assert CUDA not in ort.get_available_providers()  # the CPU build, as the tests install
    with caplog.at_level(logging.INFO, logger="memtrails.embedding"):
        auto = await OnnxEmbedder.packaged(threads=1)
    lines = [r.getMessage() for r in caplog.records if "runs on the CPU" in r.getMessage()]
    assert len(lines) == 1 and CUDA in lines[0]
    cpu = await OnnxEmbedder.packaged(threads=1, device="cpu")
    try:
        assert auto._session.get_providers() == [CPU]  # type: ignore[union-attr]
        assert auto.describe() == cpu.describe()  # the device is not the model's identity
        got, want = await auto.embed(TEXTS), await cpu.embed(TEXTS)
        for a, b in zip(got, want, strict=True):
            assert np.allclose(a[0].vector, b[0].vector, atol=1e-6)
        monkeypatch.setenv("MEMTRAILS_DEVICE", "cuda")
        with pytest.raises(EmbeddingError, match="device cuda asked for"):
            await OnnxEmbedder.packaged(threads=1)
    finally:
        await auto.aclose()
        await cpu.aclose()


@pytest.mark.filterwarnings("ignore:Specified provider:UserWarning")
async def test_a_cuda_provider_that_does_not_load_falls_back_to_the_cpu_with_one_warning(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    # What a GPU build without the CUDA libraries does: lists CUDA, then loads without it.
    monkeypatch.delenv("MEMTRAILS_DEVICE", raising=False)
    monkeypatch.setattr(_session.ort, "get_available_providers", lambda: [CUDA, CPU])
    with caplog.at_level(logging.WARNING, logger="memtrails.embedding"):
        embedder = await OnnxEmbedder.packaged(threads=1)
    try:
        [line] = [r.getMessage() for r in caplog.records]
        assert "runs on the CPU" in line and "did not load" in line
        assert embedder._session.get_providers() == [CPU]  # type: ignore[union-attr]
        [[passage]] = await embedder.embed(["still embeds"])
        assert abs(float(np.linalg.norm(passage.vector)) - 1.0) < 1e-5
    finally:
        await embedder.aclose()
    with pytest.raises(EmbeddingError, match="did not load"):
        await OnnxEmbedder.packaged(threads=1, device="cuda")


def test_the_default_thread_count_is_the_cores_this_process_may_use(tmp_path: Path) -> None:
    cores = len(os.sched_getaffinity(0))
    assert _session.default_threads(tmp_path) == cores  # no quota file: the affinity set
    (tmp_path / "cpu.max").write_text("max 100000\n")
    assert _session.default_threads(tmp_path) == cores
    (tmp_path / "cpu.max").write_text("50000 100000\n")  # half a core: one thread
    assert _session.default_threads(tmp_path) == 1


def test_the_threads_wait_awake_only_with_a_whole_core_each(tmp_path: Path) -> None:
    cores = len(os.sched_getaffinity(0))
    assert _session.may_spin(cores, tmp_path)  # no quota file: the affinity set
    assert not _session.may_spin(cores + 1, tmp_path)  # more threads than cores
    (tmp_path / "cpu.max").write_text("max 100000\n")
    assert _session.may_spin(cores, tmp_path)
    (tmp_path / "cpu.max").write_text("150000 100000\n")  # a core and a half
    assert _session.default_threads(tmp_path) == min(cores, 2)
    assert _session.may_spin(1, tmp_path)
    assert not _session.may_spin(2, tmp_path)


def python_says(code: str) -> list[str]:
    """What ``code`` prints, run by a Python process of its own, split at white space."""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return out.stdout.split()


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two cores to pin to one")
def test_a_process_pinned_to_one_core_runs_the_model_with_one_thread() -> None:
    code = (
        "import asyncio, os\n"
        "os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})\n"
        "from memtrails.embedding import default_embedder\n"
        "async def main():\n"
        "    e = await default_embedder()\n"
        "    print(e.threads)\n"
        "    await e.aclose()\n"
        "asyncio.run(main())\n"
    )
    assert python_says(code) == ["1"]


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="one thread has no pool to spin")
def test_the_model_threads_take_no_cpu_once_a_query_is_embedded() -> None:
    # The pool's threads busy-wait inside a run and must stop when it returns: a search's
    # index calls, and whatever else runs on the machine, need those cores next. Left
    # spinning, they took about 28 ms of CPU in the 200 ms after each query here.
    code = (
        "import asyncio, time\n"
        "from memtrails.embedding import default_embedder\n"
        "async def main():\n"
        "    e = await default_embedder(threads=2)\n"
        "    await e.embed_query('warm up')\n"
        "    for _ in range(3):\n"
        "        await e.embed_query('what did the team decide about the backup schedule?')\n"
        "        cpu = time.process_time()\n"
        "        time.sleep(0.2)\n"
        "        print(time.process_time() - cpu)\n"
        "    await e.aclose()\n"
        "asyncio.run(main())\n"
    )
    assert min(float(cpu) for cpu in python_says(code)) < 0.01
