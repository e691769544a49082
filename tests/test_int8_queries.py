"""The int8 copy that reads long queries: which products it changes, and how close it stays."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from memtrails._exceptions import EmbeddingError
from memtrails.embedding._int8_queries import int8_graph
from memtrails.embedding._long_queries import LONG_QUERY_PIECES, LongQueries
from memtrails.embedding._session import open_graph


def encoder_like(rng: np.random.Generator) -> onnx.ModelProto:
    """A linear layer (a product by a weight) then an attention-like product of two
    activations: only the first is the int8 copy's."""
    w = rng.normal(0, 0.2, (16, 12)).astype(np.float32)
    b = rng.normal(0, 0.1, (12,)).astype(np.float32)
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["xw"], name="linear"),
        helper.make_node("Add", ["xw", "b"], ["h"], name="bias"),
        helper.make_node("Transpose", ["h"], ["ht"], perm=[0, 2, 1], name="t"),
        helper.make_node("MatMul", ["h", "ht"], ["y"], name="scores"),
    ]
    graph = helper.make_graph(
        nodes,
        "encoder-like",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 5, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 5, 5])],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def run(model: onnx.ModelProto, x: np.ndarray) -> np.ndarray:
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    (out,) = session.run(None, {"x": x})
    return np.asarray(out)


def test_only_products_by_a_weight_become_int8_and_the_result_stays_close() -> None:
    rng = np.random.default_rng(7)
    model = encoder_like(rng)
    copy = int8_graph(model)
    onnx.checker.check_model(copy)
    ops = [(n.name, n.op_type) for n in copy.graph.node]
    assert ops == [
        ("linear", "DynamicQuantizeMatMul"),
        ("bias", "Add"),
        ("t", "Transpose"),
        ("scores", "MatMul"),
    ]
    weights = {t.name: numpy_helper.to_array(t) for t in copy.graph.initializer}
    assert "w" not in weights and weights["w.i8"].dtype == np.int8
    # One symmetric scale per output column: the column's largest weight maps to 127.
    w = numpy_helper.to_array(model.graph.initializer[0])
    assert np.allclose(weights["w.i8s"], np.abs(w).max(axis=0) / 127)
    assert not weights["w.i8z"].any()
    x = rng.normal(0, 1, (1, 5, 16)).astype(np.float32)
    exact, quantized = run(model, x), run(copy, x)
    assert not np.array_equal(exact, quantized)
    assert np.abs(quantized - exact).max() < 0.02 * np.abs(exact).max()
    assert int8_graph(model).SerializeToString() == copy.SerializeToString()  # deterministic


def test_a_short_query_never_opens_the_copy(tmp_path: Path) -> None:
    long = LongQueries(tmp_path / "missing.onnx", "0" * 64, 1)
    assert long.reading(LONG_QUERY_PIECES) is None  # not even tried: nothing logged
    with pytest.raises(EmbeddingError, match="not found"):
        open_graph(tmp_path / "missing.onnx", "0" * 64, 1)


def test_a_copy_that_cannot_be_opened_leaves_queries_to_the_model(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "copy.onnx"
    path.write_bytes(int8_graph(encoder_like(np.random.default_rng(1))).SerializeToString())
    long = LongQueries(path, "0" * 64, 1)  # not its SHA-256
    with caplog.at_level("WARNING", logger="memtrails.embedding"):
        assert long.reading(LONG_QUERY_PIECES + 1) is None
        assert long.reading(LONG_QUERY_PIECES + 1) is None
    assert caplog.text.count("long queries run on the fp32 graph") == 1
    assert not path.exists()  # the model's next load builds it again
