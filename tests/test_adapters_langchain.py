"""The LangChain retriever, with the real langchain-core, over a folder and over a service."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever

from memtrails import Memory, MemoryRecord
from memtrails.adapters.langchain import MemtrailsRetriever
from memtrails.service.discovery import find_service

NOTES = [
    MemoryRecord(
        id="ferry",
        text="The ferry to Orkney leaves Scrabster at 08:45.",
        kind="note",
        author="ann",
        at="2025-06-01",
    ),
    MemoryRecord(
        id="boiler",
        text="The boiler service is booked for the 14th.",
        kind="note",
        author="bob",
        at="2025-07-02",
    ),
    MemoryRecord(
        id="visa",
        text="Renew the visa before the trip in September.",
        kind="mail",
        author="ann",
        at="2025-08-03",
    ),
]


@pytest.fixture
def home(tmp_path: Path, embedder: Any) -> Path:
    async def build() -> None:
        async with Memory.open(tmp_path / "m", embedder=embedder) as memory:
            await memory.ingest(NOTES, name="notes")

    asyncio.run(build())
    return tmp_path / "m"


def test_the_retriever_returns_documents_with_the_records_metadata(home: Path) -> None:
    retriever = MemtrailsRetriever(home=str(home), k=2)
    assert isinstance(retriever, BaseRetriever)
    docs = retriever.invoke("when does the boat to Orkney leave?")
    assert all(isinstance(d, Document) for d in docs) and len(docs) == 2
    best = docs[0]
    assert best.metadata["id"] == "ferry" and "Scrabster" in best.page_content
    assert best.metadata["author"] == "ann" and best.metadata["at"].startswith("2025-06-01")
    assert best.metadata["source"] == "notes" and best.metadata["kind"] == "note"
    # the filters of Memory.search
    mails = MemtrailsRetriever(home=str(home), kind="mail").invoke("the trip")
    assert [d.metadata["id"] for d in mails] == ["visa"]


async def test_the_retriever_is_async_too(home: Path) -> None:
    docs = await MemtrailsRetriever(home=str(home), k=1).ainvoke("who services the boiler")
    assert [d.metadata["id"] for d in docs] == ["boiler"]


def test_a_missing_folder_is_an_error_not_a_new_folder(tmp_path: Path) -> None:
    with pytest.raises(Exception, match="no memory folder"):
        MemtrailsRetriever(home=str(tmp_path / "typo")).invoke("anything")
    assert not (tmp_path / "typo").exists()


@pytest.mark.slow
def test_the_retriever_goes_through_a_running_service(home: Path) -> None:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "memtrails.cli",
            "serve",
            "--home",
            str(home),
            "--port",
            "0",
            "--threads",
            "2",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        while find_service(home) is None:
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.1)
        # the service holds the folder (its lock): the retriever asks it
        docs = MemtrailsRetriever(home=str(home), k=1).invoke("renew the visa")
        assert [d.metadata["id"] for d in docs] == ["visa"]
    finally:
        proc.terminate()
        assert proc.wait(60) == 0
