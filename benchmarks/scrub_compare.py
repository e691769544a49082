"""Compare what two versions of the secret scrubber find: this tree against a git ref.

Usage: .venv/bin/python benchmarks/scrub_compare.py [--ref main] [--corpora PATH] [--fuzz N]

A change meant to make the scrubber faster must not change what it scrubs. Both versions
run, each in its own process, ``find_spans`` (every replacement and kept span, with its kind)
and ``scrub_text`` over the same inputs:

- the labelled secrets and near-misses of the tests (tests/data/secrets_labelled.jsonl);
- every hostile input of benchmarks/scrub_speed.py (at 64 KB), and their 1 MB mix;
- every file of the shared corpora (mail, Slack, JSON Lines), raw, and every string of every
  record the importers make from them;
- ``--fuzz`` generated texts (fixed seed): fragments of all of the above, glued and cut at
  random, so that rules start, end and overlap where no hand-written input puts them.

Prints how many inputs differ (with the first few differences) and exits 1 if any does.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import importlib.util
import json
import os
import pickle
import random
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DEFAULT_CORPORA = Path(os.environ.get("MEMTRAILS_CORPORA", ROOT.parent / "shared" / "corpora"))
KB = 1 << 10

# Run in each version's process: the digest of what the scrubber makes of every input.
_WORKER = """
import hashlib, pickle, sys, time
from memtrails.secrets.engine import find_spans, scrub_text
inputs = pickle.load(open(sys.argv[1], "rb"))
out = []
t = time.process_time()
for buf in inputs:
    spans = find_spans(buf)
    text, found = scrub_text(buf.decode("utf-8", "surrogatepass"))
    blob = repr((spans, text, sorted(found.items()))).encode("utf-8", "surrogatepass")
    out.append((hashlib.sha256(blob).hexdigest(), spans))
cpu = time.process_time() - t
pickle.dump((out, cpu), open(sys.argv[2], "wb"))
"""


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def _inputs(corpora: Path, fuzz: int) -> list[tuple[str, bytes]]:
    inputs: list[tuple[str, bytes]] = []
    labelled = ROOT / "tests" / "data" / "secrets_labelled.jsonl"
    for i, line in enumerate(labelled.read_text("utf-8").splitlines()):
        if line.strip():
            inputs.append((f"labelled {i}", _utf8(json.loads(line)["text"])))
    speed = _load("scrub_speed", ROOT / "benchmarks" / "scrub_speed.py")
    for name, build in speed.HOSTILE.items():
        inputs.append((f"hostile {name}", _utf8(build(64 * KB))))
    inputs.append(("hostile mix, 1 MB", _utf8(speed.mixed_near_misses(1 << 20))))
    for path in sorted(corpora.rglob("*")):
        if (
            path.is_file()
            and path.suffix not in (".md", ".tsv")
            and "_nonpermissive" not in path.parts
        ):
            raw = path.read_bytes().decode("utf-8", "replace")
            inputs.append((f"raw {path.relative_to(corpora)}", _utf8(raw)))
    fp = _load("scrub_false_positives", ROOT / "benchmarks" / "scrub_false_positives.py")

    async def records() -> None:
        for family, items in fp._importers(corpora):
            n = 0
            async for item in items:
                if isinstance(item, fp.MemoryRecord):
                    for j, text in enumerate(fp._strings(item)):
                        if text:
                            inputs.append((f"{family} record {n} string {j}", _utf8(text)))
                    n += 1

    asyncio.run(records())
    rng = random.Random(13)
    # Mostly secrets and near-misses, some ordinary text between them.
    secret = [buf for name, buf in inputs if name.startswith("labelled")]
    secret += [buf[:256] for name, buf in inputs if name.startswith("hostile")]
    plain = [buf for name, buf in inputs if " record " in name and len(buf) < 4 * KB]
    seps = [b"", b" ", b"\n", b"=", b": ", b'"', b"'", b"\\n", b"-", b"/", b"@", b"\r\n> "]
    for i in range(fuzz):
        parts = []
        for _ in range(rng.randint(2, 12)):
            frag = rng.choice(secret if rng.random() < 0.8 else plain)
            a = rng.randrange(len(frag) + 1)
            b = min(len(frag), a + rng.randint(1, 200))
            parts.append(frag[a:b] if rng.random() < 0.6 else frag)
            parts.append(rng.choice(seps))
        buf = b"".join(parts).decode("utf-8", "ignore").encode("utf-8")
        inputs.append((f"fuzz {i}", buf))
    return inputs


def _run(tree: Path, inputs_file: str) -> tuple[list[tuple[str, Any]], float]:
    with tempfile.NamedTemporaryFile(suffix=".pickle", delete=False) as f:
        out_file = f.name
    env = {**os.environ, "PYTHONPATH": str(tree)}
    subprocess.run(
        [sys.executable, "-c", _WORKER, inputs_file, out_file], check=True, env=env, cwd=tree
    )
    with open(out_file, "rb") as f:
        result: tuple[list[tuple[str, Any]], float] = pickle.load(f)
    os.unlink(out_file)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ref", default="main", help="the git ref to compare against")
    parser.add_argument("--corpora", type=Path, default=DEFAULT_CORPORA)
    parser.add_argument("--fuzz", type=int, default=3000, help="generated texts")
    parser.add_argument("--show", type=int, default=5, help="differing inputs to print")
    args = parser.parse_args()

    inputs = _inputs(args.corpora, args.fuzz)
    size = sum(len(b) for _, b in inputs)
    print(f"{len(inputs)} inputs, {size / (1 << 20):.1f} MB; this tree against {args.ref}")
    with tempfile.TemporaryDirectory() as tmp:
        inputs_file = os.path.join(tmp, "inputs.pickle")
        with open(inputs_file, "wb") as f:
            pickle.dump([b for _, b in inputs], f)
        old_tree = Path(tmp) / "ref"
        old_tree.mkdir()
        archive = subprocess.run(
            ["git", "archive", args.ref, "memtrails"], cwd=ROOT, check=True, capture_output=True
        ).stdout
        archive_file = Path(tmp) / "ref.tar"
        archive_file.write_bytes(archive)
        with tarfile.open(archive_file) as tar:
            tar.extractall(old_tree, filter="data")
        t = time.perf_counter()
        old, old_cpu = _run(old_tree, inputs_file)
        new, new_cpu = _run(ROOT, inputs_file)
        wall = time.perf_counter() - t
    differ = [
        (name, o[1], n[1]) for (name, _), o, n in zip(inputs, old, new, strict=True) if o[0] != n[0]
    ]
    replaced = sum(1 for _, spans in new for s in spans if s[2])
    holding = sum(1 for _, spans in new if spans)
    print(f"  {args.ref}: {old_cpu:.1f} CPU s; this tree: {new_cpu:.1f} CPU s ({wall:.0f} s wall)")
    print(f"  replacements found by this tree: {replaced}, in {holding} inputs")
    # A kept span (a data URI, kind "") protects what is inside it; what is replaced is
    # what a user sees change.
    replaced_differ = [
        (name, o, n) for name, o, n in differ if [s for s in o if s[2]] != [s for s in n if s[2]]
    ]
    print(f"  inputs that differ: {len(differ)}, in what is replaced: {len(replaced_differ)}")

    def covered(spans: list[Any]) -> set[int]:
        return {i for start, end, kind in spans if kind for i in range(start, end)}

    # Bytes the reference replaces that this tree leaves: what a rule change gave up.
    less = [(name, o, n) for name, o, n in replaced_differ if covered(o) - covered(n)]
    print(f"  inputs where this tree leaves bytes the reference replaced: {len(less)}")
    replaced_differ = less + [d for d in replaced_differ if d not in less]
    text = dict(inputs)
    for name, o, n in (replaced_differ + differ)[: args.show]:
        print(f"    {name}: {args.ref} {o[:4]}... this tree {n[:4]}...")
        for side, spans in (
            (args.ref, sorted(set(o) - set(n))),
            ("this tree", sorted(set(n) - set(o))),
        ):
            for start, end, kind in spans[:3]:
                around = text[name][max(start - 40, 0) : end + 10]
                print(f"      only {side}: {(start, end, kind)} in {around!r}")
    digest = hashlib.sha256(repr([n[0] for n in new]).encode()).hexdigest()[:16]
    print(
        json.dumps(
            {
                "inputs": len(inputs),
                "differ": len(differ),
                "differ_in_replacements": len(replaced_differ),
                "replaces_less": len(less),
                "digest": digest,
            }
        )
    )
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
