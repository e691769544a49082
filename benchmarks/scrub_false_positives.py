"""Count what the secret scrubber replaces in real mail, chat and JSON Lines: false positives.

Usage: .venv/bin/python benchmarks/scrub_false_positives.py [--corpora PATH] [--sample N]

The shared corpora (public mailing-list archives, test mail, Slack exports, JSON Lines data
sets) hold no live credentials, so every marker the scrubber writes into them is read as a
false positive unless the sample shows a real secret-shaped string (test keys in a mail
library's fixtures, say). Two views: the records the importers make (what a memory folder
would store: bodies decoded, attachments reduced to their names) and the raw bytes of every
file (base64 attachments, headers, signatures included). A third view is code: the project's
own package (``memtrails/``) and every Python source of the virtual environment's
site-packages (its dependencies: code that talks about passwords, tokens and keys all the
time and holds none, bar the test fixtures some packages ship). Prints counts by kind,
markers per MB, a sample of what was replaced with its context, then one JSON line with
every figure.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import site
import sys
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memtrails.importers.eml import from_eml
from memtrails.importers.jsonl import from_jsonl
from memtrails.importers.mbox import from_mbox
from memtrails.importers.slack import from_slack_export
from memtrails.records import MemoryRecord
from memtrails.secrets import RULES_VERSION, scrub_record
from memtrails.secrets.engine import find_spans

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CORPORA = Path(os.environ.get("MEMTRAILS_CORPORA", ROOT.parent / "shared" / "corpora"))
MB = 1 << 20


def _importers(corpora: Path) -> list[tuple[str, AsyncIterator[Any]]]:
    runs: list[tuple[str, AsyncIterator[Any]]] = []
    for path in sorted((corpora / "mbox").rglob("*.mbox")):
        runs.append(("mail", from_mbox(path)))
    for folder in sorted(p for p in (corpora / "eml").iterdir() if p.is_dir()):
        runs.append(("mail", from_eml(folder)))
    for folder in sorted(p for p in (corpora / "slack").iterdir() if p.is_dir()):
        if folder.name != "_nonpermissive":
            runs.append(("chat", from_slack_export(folder)))
    for path in sorted((corpora / "jsonl").glob("*.jsonl")):
        runs.append(("jsonl", from_jsonl(path)))
    return runs


def _strings(record: MemoryRecord) -> list[str]:
    out = [record.id, record.text, record.title or "", record.author or "", record.thread or ""]
    stack: list[Any] = [record.meta]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            out.append(value)
        elif isinstance(value, dict):
            stack.extend(value.keys())
            stack.extend(value.values())
        elif isinstance(value, list | tuple):
            stack.extend(value)
    return out


def _context(buf: bytes, start: int, end: int) -> str:
    before = buf[max(start - 50, 0) : start].decode("utf-8", "replace")
    after = buf[end : end + 30].decode("utf-8", "replace")
    hit = buf[start:end].decode("utf-8", "replace")
    if len(hit) > 80:
        hit = hit[:40] + "..." + hit[-20:]
    return " ".join(f"{before}<<{hit}>>{after}".split())


async def _records(corpora: Path) -> tuple[dict[str, dict[str, Any]], list[str]]:
    figures: dict[str, dict[str, Any]] = {}
    hits: list[str] = []
    for family, items in _importers(corpora):
        fig = figures.setdefault(family, {"records": 0, "mb": 0.0, "markers": Counter()})
        async for item in items:
            if not isinstance(item, MemoryRecord):
                continue
            fig["records"] += 1
            _, found = scrub_record(item)
            fig["markers"].update(found)
            for text in _strings(item):
                buf = text.encode("utf-8", "surrogatepass")
                fig["mb"] += len(buf) / MB
                if found:
                    for s, e, kind in find_spans(buf):
                        if kind:
                            hits.append(f"[{family} record, {kind}] {_context(buf, s, e)}")
    return figures, hits


def _raw(corpora: Path) -> tuple[dict[str, Any], list[str]]:
    markers: Counter[str] = Counter()
    size = 0
    hits: list[str] = []
    for path in sorted(corpora.rglob("*")):
        if not path.is_file() or path.suffix in (".md", ".tsv") or "_nonpermissive" in path.parts:
            continue
        buf = path.read_bytes()
        size += len(buf)
        text = buf.decode("utf-8", "replace").encode("utf-8", "surrogatepass")
        for s, e, kind in find_spans(text):
            if kind:
                markers[kind] += 1
                hits.append(f"[raw {path.relative_to(corpora)}, {kind}] {_context(text, s, e)}")
    return {"mb": size / MB, "markers": markers}, hits


def _code(roots: list[Path]) -> tuple[dict[str, Any], list[str]]:
    """Scrub every Python source under ``roots``: markers per kind, and each with its context."""
    markers: Counter[str] = Counter()
    size = files = 0
    hits: list[str] = []
    for root in roots:
        for path in sorted(root.rglob("*.py")):
            if not path.is_file():
                continue
            buf = path.read_bytes()
            files += 1
            size += len(buf)
            text = buf.decode("utf-8", "replace").encode("utf-8", "surrogatepass")
            for s, e, kind in find_spans(text):
                if kind:
                    markers[kind] += 1
                    hits.append(
                        f"[code {path.relative_to(root.parent)}, {kind}] {_context(text, s, e)}"
                    )
    return {"files": files, "mb": size / MB, "markers": markers}, hits


def _site_packages() -> list[Path]:
    return [Path(p) for p in site.getsitepackages() if Path(p).is_dir()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", type=Path, default=DEFAULT_CORPORA)
    parser.add_argument("--sample", type=int, default=20, help="replacements to print")
    parser.add_argument("--no-code", action="store_true", help="skip the code view")
    args = parser.parse_args()

    figures, record_hits = asyncio.run(_records(args.corpora))
    raw, raw_hits = _raw(args.corpora)
    results: dict[str, Any] = {"rules_version": RULES_VERSION, "records": {}, "raw": {}}
    print(f"rule set {RULES_VERSION}; corpora {args.corpora}")
    for family, fig in figures.items():
        n = sum(fig["markers"].values())
        per_mb = n / fig["mb"] if fig["mb"] else 0.0
        print(
            f"  records/{family:<6} {fig['records']:6d} records, {fig['mb']:6.2f} MB of strings:"
            f" {n} markers ({per_mb:.2f}/MB) {dict(fig['markers'])}"
        )
        results["records"][family] = {
            "records": fig["records"],
            "mb": round(fig["mb"], 2),
            "markers": n,
            "by_kind": dict(fig["markers"]),
        }
    n = sum(raw["markers"].values())
    print(
        f"  raw files          {raw['mb']:6.2f} MB: {n} markers ({n / raw['mb']:.2f}/MB) {dict(raw['markers'])}"
    )
    results["raw"] = {"mb": round(raw["mb"], 2), "markers": n, "by_kind": dict(raw["markers"])}
    hits = record_hits + raw_hits
    if not args.no_code:
        for name, roots in (("project", [ROOT / "memtrails"]), ("site-packages", _site_packages())):
            code, code_hits = _code(roots)
            n = sum(code["markers"].values())
            per_mb = n / code["mb"] if code["mb"] else 0.0
            print(
                f"  code/{name:<13} {code['files']:6d} files, {code['mb']:6.2f} MB: {n} markers"
                f" ({per_mb:.2f}/MB) {dict(code['markers'])}"
            )
            results[f"code_{name}"] = {
                "files": code["files"],
                "mb": round(code["mb"], 2),
                "markers": n,
                "by_kind": dict(code["markers"]),
            }
            hits += code_hits
    sample = random.Random(0).sample(hits, min(args.sample, len(hits)))
    print(f"sample of {len(sample)} of {len(hits)} replacements (<<replaced>>):")
    for line in sample:
        print("  " + line)
    print(json.dumps(results, sort_keys=True))


if __name__ == "__main__":
    main()
