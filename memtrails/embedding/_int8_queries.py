"""An int8 copy of multilingual-e5-small for long queries, built once into the cache.

A query's run grows with the word pieces it reads, and a long one (a pasted paragraph, a log
excerpt) is where the search's time budget goes. Its linear layers run here on int8 weights
(per output column, symmetric) with the activations quantized at run time
(onnxruntime's ``DynamicQuantizeMatMul``). Only queries use it, one at a time, so a run's
activation range is the query's own and its vector is reproducible; stored vectors always
come from the fp32 graph. Measured in benchmarks/README.md (issue 32, eleventh pass).
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .._exceptions import EmbeddingError
from ._tokens import sha256_file
from .download import _built_once, _install_built

if TYPE_CHECKING:
    import onnx

__all__ = ["INT8_SHA256", "int8_graph", "int8_queries"]

# What int8_graph makes of multilingual-e5-small's pinned fp32 graph. The build is
# deterministic, so every machine writes these bytes; they are checked when the copy is
# opened (a search's first long query, _long_queries.py).
INT8_SHA256 = "45bd21f5247513401603df264f95955a949b719e1cb41cea8cf6a14ee85fea62"
_FOLDER = f"multilingual-e5-small-int8-queries-{INT8_SHA256[:12]}"
_MICROSOFT = "com.microsoft"


def int8_graph(model: onnx.ModelProto) -> onnx.ModelProto:
    """Return ``model`` with each MatMul by a 2-D weight (a linear layer) replaced by
    ``DynamicQuantizeMatMul`` over that weight in int8, one symmetric scale per column.

    The attention's products (two activations) and every other node stay as they are.
    """
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    weights = {t.name: t for t in model.graph.initializer if len(t.dims) == 2}
    out = onnx.ModelProto()
    out.CopyFrom(model)
    del out.graph.node[:]
    replaced: set[str] = set()
    extra: list[onnx.TensorProto] = []
    for node in model.graph.node:
        name = node.input[1] if node.op_type == "MatMul" and len(node.input) == 2 else ""
        if name not in weights or weights[name].data_type != TensorProto.FLOAT:
            out.graph.node.append(node)
            continue
        w = numpy_helper.to_array(weights[name]).astype(np.float32)
        scale = np.maximum(np.abs(w).max(axis=0), 1e-12) / 127.0
        q = np.clip(np.rint(w / scale), -127, 127).astype(np.int8)
        extra += [
            numpy_helper.from_array(q, f"{name}.i8"),
            numpy_helper.from_array(scale.astype(np.float32), f"{name}.i8s"),
            numpy_helper.from_array(np.zeros(scale.shape, np.int8), f"{name}.i8z"),
        ]
        out.graph.node.append(
            helper.make_node(
                "DynamicQuantizeMatMul",
                [node.input[0], f"{name}.i8", f"{name}.i8s", f"{name}.i8z"],
                list(node.output),
                name=node.name,
                domain=_MICROSOFT,
            )
        )
        replaced.add(name)
    kept = [t for t in model.graph.initializer if t.name not in replaced]
    del out.graph.initializer[:]
    out.graph.initializer.extend([*kept, *extra])
    if not any(o.domain == _MICROSOFT for o in out.opset_import):
        out.opset_import.append(helper.make_opsetid(_MICROSOFT, 1))
    return out


async def int8_queries(
    source: Path,
    source_sha256: str,
    cache_dir: str | os.PathLike[str] | None = None,
    *,
    force: bool = False,
) -> Path | None:
    """Return the int8 query graph built from ``source`` (the fp32 graph, checked against
    ``source_sha256``), building it on first use (~1.5 s) into a private temporary folder in
    the cache, checked against its pin and renamed into place under a lock file.

    Returns:
        Its ``model.onnx``, or ``None`` when it cannot be had here (no ``onnx`` package, a
        cache that is not writable, other bytes than the pin's): the fp32 graph then reads
        every query.
    """
    build = functools.partial(_build_into, source, source_sha256)
    return await _built_once(cache_dir, _FOLDER, build, force=force)


def _build_into(source: Path, source_sha256: str, folder: Path) -> None:
    """Build the graph from ``source`` and install it as ``folder``."""
    import onnx  # only to build: importing it costs ~0.5 s

    if sha256_file(source) != source_sha256:
        raise EmbeddingError(f"{source} is not the pinned model file")
    data = int8_graph(onnx.load(str(source))).SerializeToString()
    _install_built(folder, data, INT8_SHA256, "the int8 query graph")
