"""The LangChain retriever, with the real langchain-core, over a folder and over a service."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from helpers import ERRANDS as NOTES
from helpers import serving
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever

from memtrails import Memory
from memtrails.adapters.langchain import MemtrailsRetriever


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
    with serving(home):
        # the service holds the folder (its lock): the retriever asks it
        docs = MemtrailsRetriever(home=str(home), k=1).invoke("renew the visa")
        assert [d.metadata["id"] for d in docs] == ["visa"]
