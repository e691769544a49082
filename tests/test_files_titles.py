"""The titles notes give themselves in the formats notes folders hold: Hugo's TOML front
matter, YAML block scalars, Org-mode (org-roam's ``#+title:``) and AsciiDoc."""

from __future__ import annotations

from pathlib import Path

from helpers import collect

from memtrails.importers.files import from_files
from memtrails.records import MemoryRecord

NOTES = {
    "hugo.md": '+++\ntitle = "Walnut harvest"\ndate = 2024-10-01\n+++\n\nBody.\n',
    "folded.md": "---\ntitle: >-\n  Minutes of the\n  spring meeting\ntags: [a]\n---\nBody.\n",
    "roam.org": "#+title: Reading list\n#+filetags: :books:\n\n* Novels\n- Dune\n",
    "plain.org": "Some intro text\n*bold* is no heading\n** Garden plans\ntext\n",
    "guide.adoc": "= Operator guide\n:toc:\n\n== Install\n",
    "open.md": "---\ntitle: never closed\n\n# Real heading\n",
}


async def test_titles_of_toml_front_matter_org_and_asciidoc(tmp_path: Path) -> None:
    for name, text in NOTES.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    items = await collect(from_files(tmp_path))
    titles = {r.id: r.title for r in items if isinstance(r, MemoryRecord)}
    assert titles == {
        "hugo.md": "Walnut harvest",
        "folded.md": "Minutes of the spring meeting",
        "roam.org": "Reading list",
        "plain.org": "Garden plans",
        "guide.adoc": "Operator guide",
        # A --- never closed is no front matter: the heading below names the note.
        "open.md": "Real heading",
    }
