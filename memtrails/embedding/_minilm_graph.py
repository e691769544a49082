"""Rewrite the packaged all-MiniLM-L6-v2 int8 graph with onnxruntime's fused transformer ops."""

from __future__ import annotations

import collections
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import onnx
from onnx import TensorProto, helper, numpy_helper

__all__ = ["build_fused_graph", "read_weights"]

_Array = npt.NDArray[Any]
_LAYERS, _HIDDEN, _HEADS, _EPS = 6, 384, 12, 1e-12
_WORDS = "embeddings.word_embeddings.weight"


def read_weights(model_path: Path) -> dict[str, _Array | tuple[_Array, _Array]]:
    """Return the packaged graph's weights under their Hugging Face names.

    The package stores each linear layer as int8 values and a per-column fp32 scale, turned
    into fp32 in its graph by ``Cast`` then ``Mul`` (which onnxruntime folds at load). Here the
    same two steps run in numpy, so the fp32 values are the very ones the packaged graph
    computes with. Linear weights keep the graph's ``(in, out)`` layout. The word-embedding
    table stays ``(int8 rows, row scales)``: it is looked up, then scaled, in the new graph.

    Args:
        model_path: the package's ``model.onnx`` (its SHA-256 checked by the caller).

    Returns:
        ``name -> array`` (fp32), and ``name -> (int8, scale)`` for the word embeddings.
    """
    graph = onnx.load(str(model_path)).graph
    raw = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    casts = {
        n.output[0]: n.input[0] for n in graph.node if n.op_type == "Cast" and n.input[0] in raw
    }
    scaled: dict[str, tuple[_Array, _Array]] = {}
    for n in graph.node:
        if n.op_type == "Mul" and n.input[0] in casts and n.input[1] in raw:
            scaled[n.output[0]] = (raw[casts[n.input[0]]], raw[n.input[1]])
    users = collections.defaultdict(list)
    for n in graph.node:
        for name in n.input:
            users[name].append(n)
    weights: dict[str, _Array | tuple[_Array, _Array]] = {}
    for n in graph.node:
        # A linear layer is MatMul(x, W) then Add(bias); the bias carries the layer's name.
        if n.op_type == "MatMul" and n.input[1] in scaled:
            [add] = users[n.output[0]]
            bias = next(x for x in add.input if x != n.output[0])
            q, scale = scaled[n.input[1]]
            weights[_name(bias).removesuffix(".bias") + ".weight"] = _dequantized(q, scale)
    for name, value in raw.items():
        if name.startswith("inner.") and not name.endswith(("_q", "_scale", "position_ids")):
            weights[_name(name)] = value
    for name, (q, scale) in scaled.items():
        if name.startswith("inner."):
            weights[_name(name)] = (q, scale) if _name(name) == _WORDS else _dequantized(q, scale)
    return weights


def _name(graph_name: str) -> str:
    return graph_name.removeprefix("inner.")


def _dequantized(q: _Array, scale: _Array) -> _Array:
    # Cast then Mul, both in fp32, exactly as the packaged graph does it.
    out: _Array = q.astype(np.float32) * scale.astype(np.float32)
    return out


def build_fused_graph(weights: dict[str, _Array | tuple[_Array, _Array]]) -> onnx.ModelProto:
    """Return the encoder with fused ops: ``Attention``, ``SkipLayerNormalization``, ``BiasGelu``.

    Same inputs and output as the packaged graph (``input_ids``, ``attention_mask``,
    ``token_type_ids`` in; ``last_hidden_state`` out) and the same fp32 weights; each
    layer's query, key and value projections become one ``Attention`` node (one matrix
    product for the three, one kernel for scores, mask, softmax and context), the residual
    adds join their layer norms, and the GELU joins its bias. onnxruntime's own optimiser
    does not recognise the exported attention of the packaged graph (nor does
    ``onnxruntime.transformers.optimizer``, which fuses only the layer norms and GELU).

    Args:
        weights: what :func:`read_weights` returns.

    Returns:
        The checked model (opset 17 plus ``com.microsoft``), the same bytes for the same
        weights.
    """
    g = _Graph()

    def w(name: str) -> _Array:
        value = weights[name]
        assert not isinstance(value, tuple)
        return value

    e = "embeddings."
    words_q, words_scale = weights[_WORDS]
    ids = "input_ids"
    # Look up int8 rows and their scales, then scale: 12 MB in the file instead of 47 MB.
    rows = g.op(
        "Cast", [g.op("Gather", [g.const("words.q", words_q), ids], axis=0)], to=TensorProto.FLOAT
    )
    words = g.op("Mul", [rows, g.op("Gather", [g.const("words.scale", words_scale), ids], axis=0)])
    types = g.op(
        "Gather",
        [g.const("types", w(e + "token_type_embeddings.weight")), "token_type_ids"],
        axis=0,
    )
    shape = g.op("Shape", [ids])
    tokens = g.op(
        "Slice",
        [shape, g.const("c.1", np.array([1], np.int64)), g.const("c.2", np.array([2], np.int64))],
    )
    zero = g.const("c.0", np.array([0], np.int64))
    positions = g.op(
        "Slice", [g.const("positions", w(e + "position_embeddings.weight")), zero, tokens, zero]
    )
    x = g.op("Add", [g.op("Add", [words, types]), positions])
    x = g.op(
        "LayerNormalization",
        [
            x,
            g.const("emb.ln.w", w(e + "LayerNorm.weight")),
            g.const("emb.ln.b", w(e + "LayerNorm.bias")),
        ],
        axis=-1,
        epsilon=_EPS,
    )
    # A 2-D 0/1 mask: padding gets -10000 before the softmax, whose exp() is exactly 0 in fp32,
    # as the packaged graph's -3.4e38 gives: a padded row adds nothing to a text's vector.
    mask = g.op("Cast", ["attention_mask"], to=TensorProto.INT32)
    for n in range(_LAYERS):
        p, a = f"encoder.layer.{n}.", f"encoder.layer.{n}.attention."
        qkv = ("query", "key", "value")
        qkv_w = np.concatenate([w(f"{a}self.{k}.weight") for k in qkv], axis=1)
        qkv_b = np.concatenate([w(f"{a}self.{k}.bias") for k in qkv])
        context = g.ms(
            "Attention",
            [x, g.const(f"l{n}.qkv.w", qkv_w), g.const(f"l{n}.qkv.b", qkv_b), mask],
            num_heads=_HEADS,
        )
        x = g.skip_norm(
            g.matmul(context, f"l{n}.ao.w", w(a + "output.dense.weight")),
            x,
            f"l{n}.aln",
            w(a + "output.LayerNorm.weight"),
            w(a + "output.LayerNorm.bias"),
            w(a + "output.dense.bias"),
        )
        mid = g.ms(
            "BiasGelu",
            [
                g.matmul(x, f"l{n}.fi.w", w(p + "intermediate.dense.weight")),
                g.const(f"l{n}.fi.b", w(p + "intermediate.dense.bias")),
            ],
        )
        x = g.skip_norm(
            g.matmul(mid, f"l{n}.fo.w", w(p + "output.dense.weight")),
            x,
            f"l{n}.oln",
            w(p + "output.LayerNorm.weight"),
            w(p + "output.LayerNorm.bias"),
            w(p + "output.dense.bias"),
        )
    g.nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"], name="output"))
    inputs = [
        helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "tokens"])
        for name in ("input_ids", "attention_mask", "token_type_ids")
    ]
    output = helper.make_tensor_value_info(
        "last_hidden_state", TensorProto.FLOAT, ["batch", "tokens", _HIDDEN]
    )
    graph = helper.make_graph(
        g.nodes, "all-MiniLM-L6-v2-fused", inputs, [output], initializer=g.inits
    )
    # Fixed producer and versions: the same weights give the same bytes on every machine.
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)],
        producer_name="memtrails",
        producer_version="1",
        ir_version=8,
    )
    onnx.checker.check_model(model)
    return model


class _Graph:
    """Collects nodes and initializers; node outputs are named by a counter."""

    def __init__(self) -> None:
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []
        self._n = 0

    def const(self, name: str, value: _Array) -> str:
        self.inits.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def op(self, kind: str, inputs: list[str], domain: str = "", **attrs: Any) -> str:
        self._n += 1
        out = f"{kind.lower()}_{self._n}"
        node = helper.make_node(kind, inputs, [out], name=f"n{self._n}", domain=domain, **attrs)
        self.nodes.append(node)
        return out

    def ms(self, kind: str, inputs: list[str], **attrs: Any) -> str:
        return self.op(kind, inputs, domain="com.microsoft", **attrs)

    def matmul(self, x: str, name: str, weight: _Array) -> str:
        return self.op("MatMul", [x, self.const(name, weight)])

    def skip_norm(
        self, x: str, skip: str, name: str, gamma: _Array, beta: _Array, bias: _Array
    ) -> str:
        """``LayerNorm(x + bias + skip)``: a linear layer's bias, the residual and the norm."""
        inputs = [x, skip, self.const(f"{name}.w", gamma), self.const(f"{name}.b", beta)]
        return self.ms(
            "SkipLayerNormalization", [*inputs, self.const(f"{name}.bias", bias)], epsilon=_EPS
        )
