"""Compare document text extractors on real files: speed, memory, and what the text gets right.

Usage: python benchmarks/documents_compare.py [--site DIR] [--rate N]

Candidates that are not importable are left out (``--site`` adds a folder of packages
installed with ``pip install --target``, so the candidates need not be in the project's
environment). Each candidate runs in its own process over every file it reads (three runs a
file, the median kept), so its peak RSS is its own. The files: the samples of
documents_samples.py (a two-column PDF with a header, footer, table and a word hyphenated
at a line end; DOCX, PPTX, XLSX, ODT, ODS, ODP, RTF, HTML, EPUB), two real PDFs from Debian's
documentation (a 36-page texinfo manual, a DocBook spec) when present, and a PDF attached
to a mail of the shared corpora. ``--rate N`` also measures ``memtrails``' import rate over
N copies of the samples with the real model.
"""

from __future__ import annotations

import argparse
import asyncio
import email
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import documents_samples as samples  # noqa: E402

REAL_PDFS = [
    Path("/usr/share/doc/libtasn1-doc/libtasn1.pdf"),
    Path("/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf"),
]
MAIL_PDF = HERE.parent.parent / "shared/corpora/eml/flanker/attached-pdf.eml"


def _kreuzberg(path: Path) -> str:
    import kreuzberg

    cfg = kreuzberg.ExtractionConfig(use_cache=False, disable_ocr=True)  # type: ignore[call-arg]
    if path.suffix == ".odp":
        raise ValueError("no reader for .odp")
    return str(kreuzberg.extract_file_sync(str(path), config=cfg).content)


def _pypdfium2(path: Path) -> str:
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(str(path))
    try:
        return "\n\n".join(page.get_textpage().get_text_range() for page in doc)
    finally:
        doc.close()


def _pdfminer(path: Path) -> str:
    from pdfminer.high_level import extract_text

    return str(extract_text(str(path)))


def _pypdf(path: Path) -> str:
    import pypdf

    return "\n\n".join(p.extract_text() or "" for p in pypdf.PdfReader(str(path)).pages)


def _markitdown(path: Path) -> str:
    from markitdown import MarkItDown

    return str(MarkItDown(enable_plugins=False).convert(str(path)).text_content)


def _python_docx(path: Path) -> str:
    import docx

    d = docx.Document(str(path))
    parts = [p.text for p in d.paragraphs]
    for table in d.tables:
        parts.extend(" ".join(c.text for c in row.cells) for row in table.rows)
    return "\n".join(parts)


def _python_pptx(path: Path) -> str:
    from pptx import Presentation

    out = []
    for slide in Presentation(str(path)).slides:
        out.extend(s.text_frame.text for s in slide.shapes if s.has_text_frame)
    return "\n".join(out)


def _openpyxl(path: Path) -> str:
    import openpyxl

    wb = openpyxl.load_workbook(str(path), read_only=True, data_only=True)
    rows = []
    for ws in wb.worksheets:
        for row in ws.iter_rows(values_only=True):
            rows.append(" ".join(str(v) for v in row if v is not None))
    return "\n".join(rows)


def _inscriptis(path: Path) -> str:
    from inscriptis import get_text

    return str(get_text(path.read_text(encoding="utf-8")))


def _striprtf(path: Path) -> str:
    from striprtf.striprtf import rtf_to_text

    return str(rtf_to_text(path.read_text(encoding="ascii")))


def _memtrails(path: Path) -> str:
    """memtrails' own readers: the mail HTML converter, the stdlib OpenDocument reader."""
    if path.suffix == ".odp" or path.suffix in (".odt", ".ods"):
        sys.path.insert(0, str(HERE.parent / "memtrails/importers/documents"))
        from _odf import read_odf  # type: ignore[import-not-found]

        return str(read_odf(path.read_bytes())[0])
    from memtrails.importers.documents._html import html_to_text

    return html_to_text(path.read_text(encoding="utf-8"))


CANDIDATES: dict[str, tuple[Callable[[Path], str], set[str]]] = {
    "kreuzberg": (
        _kreuzberg,
        {".pdf", ".docx", ".pptx", ".xlsx", ".odt", ".ods", ".odp", ".rtf", ".html", ".epub"},
    ),
    "pypdfium2": (_pypdfium2, {".pdf"}),
    "pdfminer.six": (_pdfminer, {".pdf"}),
    "pypdf": (_pypdf, {".pdf"}),
    "markitdown": (_markitdown, {".pdf", ".docx", ".pptx", ".xlsx", ".html", ".epub"}),
    "python-docx": (_python_docx, {".docx"}),
    "python-pptx": (_python_pptx, {".pptx"}),
    "openpyxl": (_openpyxl, {".xlsx"}),
    "inscriptis": (_inscriptis, {".html"}),
    "striprtf": (_striprtf, {".rtf"}),
    "memtrails (stdlib)": (_memtrails, {".html", ".odt", ".ods", ".odp"}),
}


def _checks(name: str, text: str) -> dict[str, bool]:
    """What the text of a sample gets right."""
    flat = " ".join(text.split())
    fmt = name.rsplit(".", 1)[-1]
    if not name.startswith("sample."):
        return {}
    out = {"sentence": samples.SENTENCES[fmt] in flat}
    if name == "sample.pdf":
        out["columns"] = (
            "harbour" in flat
            and "Right column" in flat
            and flat.index("harbour") < flat.index("Right column")
        )
        out["table rows"] = "Heron 17" in flat
        out["dehyphenated"] = "unpredictable" in flat
        out["no header/footer"] = "Confidential footer" not in flat
    if name == "sample.docx":
        out["table rows"] = "Apples 120 crates" in flat
    if name == "sample.html":
        out["no script"] = "tracking" not in flat
    return out


def _one(candidate: str, files: list[str]) -> None:
    """Child mode: run one candidate over files, print one JSON line per file."""
    fn, _ = CANDIDATES[candidate]
    for f in files:
        path = Path(f)
        times, text, error = [], "", None
        for _ in range(3):
            t = time.perf_counter()
            try:
                text = fn(path)
            except Exception as exc:  # why: a candidate that fails on a file is a result
                error = f"{type(exc).__name__}: {str(exc)[:80]}"
                break
            times.append(time.perf_counter() - t)
        row = {
            "file": path.name,
            "ms": round(statistics.median(times) * 1000, 1) if times else None,
            "chars": len(text),
            "error": error,
            "checks": _checks(path.name, text) if not error else {},
        }
        print(json.dumps(row), flush=True)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    print(json.dumps({"rss_mib": rss}), flush=True)


def _files(folder: Path) -> list[Path]:
    files = list(samples.write_all(folder).values())
    files += [p for p in REAL_PDFS if p.exists()]
    if MAIL_PDF.exists():
        msg = email.message_from_bytes(MAIL_PDF.read_bytes())
        for part in msg.walk():
            if part.get_content_type() == "application/pdf":
                out = folder / "mail-attachment.pdf"
                out.write_bytes(part.get_payload(decode=True))  # type: ignore[arg-type]
                files.append(out)
    return files


def compare(site: str | None) -> list[dict[str, Any]]:
    env = dict(os.environ)
    if site:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [site, env.get("PYTHONPATH")]))
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        files = _files(Path(tmp))
        for name, (_, suffixes) in CANDIDATES.items():
            mine = [str(f) for f in files if f.suffix in suffixes]
            run = subprocess.run(
                [sys.executable, __file__, "--one", name, *mine],
                env=env,
                capture_output=True,
                text=True,
                timeout=600,
            )
            lines = [json.loads(x) for x in run.stdout.splitlines() if x.startswith("{")]
            if not lines:
                print(f"{name}: not installed or failed ({run.stderr.strip().splitlines()[-1:]})")
                continue
            rss = lines[-1].get("rss_mib")
            for row in lines[:-1]:
                results.append({"candidate": name, "rss_mib": rss, **row})
    return results


def _table(results: list[dict[str, Any]]) -> None:
    print("| candidate | file | ms | chars | checks failed | peak RSS MiB |")
    print("|---|---|---:|---:|---|---:|")
    for r in results:
        failed = [k for k, v in r["checks"].items() if not v]
        print(
            f"| {r['candidate']} | {r['file']} | {r['ms'] if r['ms'] is not None else '-'} | "
            f"{r['chars']} | {r['error'] or ', '.join(failed) or 'none'} | {r['rss_mib']} |"
        )


async def rate(copies: int) -> dict[str, float]:
    """Import ``copies`` x the samples (10 formats) with the real model; documents per second."""
    from contextlib import aclosing

    from memtrails import Memory, from_files

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "notes"
        for i in range(copies):
            samples.write_all(root / f"copy{i:03d}")
        n = sum(1 for _ in root.rglob("sample.*"))
        t = time.perf_counter()
        async with aclosing(from_files(root)) as items:
            walked = len([item async for item in items])
        walk_s = time.perf_counter() - t
        t = time.perf_counter()
        async with Memory.open(Path(tmp) / "memory") as memory:
            report = await memory.ingest(from_files(root))
            total_s = time.perf_counter() - t
            t = time.perf_counter()
            state = memory.source_state(str(root.resolve()))
            again = await memory.ingest(from_files(root, state=state))
            rerun_s = time.perf_counter() - t
        assert report.added == n and walked > n, (report.added, n, report.errors[:3])
        assert again.added == 0 and again.updated == 0, again
    return {
        "documents": n,
        "extract_only_per_s": round(n / walk_s, 1),
        "import_per_s": round(n / total_s, 1),
        "import_s": round(total_s, 1),
        "rerun_s": round(rerun_s, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", help="a folder of candidate packages (pip install --target)")
    parser.add_argument("--rate", type=int, default=0, help="copies of the samples to import")
    parser.add_argument("--one", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        _one(args.one[0], args.one[1:])
        return
    _table(compare(args.site))
    if args.rate:
        print(json.dumps(asyncio.run(rate(args.rate))))


if __name__ == "__main__":
    main()
