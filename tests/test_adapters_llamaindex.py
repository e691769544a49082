"""The LlamaIndex retriever and reader, with the real llama-index-core, over a folder and
over a service."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest
from helpers import ERRANDS as NOTES
from helpers import serving
from llama_index.core.readers.base import BaseReader
from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import Document, MetadataMode, NodeWithScore, TextNode

from memtrails import Memory
from memtrails.adapters.llamaindex import MemtrailsReader, MemtrailsRetriever
from memtrails.keys import record_uid
from memtrails.service.discovery import find_service


@pytest.fixture
def home(tmp_path: Path, embedder: Any) -> Path:
    async def build() -> None:
        async with Memory.open(tmp_path / "m", embedder=embedder) as memory:
            await memory.ingest(NOTES[:2], name="notes")
            await memory.ingest(NOTES[2:], name="mail")

    asyncio.run(build())
    return tmp_path / "m"


def test_the_retriever_returns_nodes_with_the_records_metadata(home: Path) -> None:
    retriever = MemtrailsRetriever(home=str(home), k=2)
    assert isinstance(retriever, BaseRetriever)
    found = retriever.retrieve("when does the boat to Orkney leave?")
    assert len(found) == 2 and all(isinstance(n, NodeWithScore) for n in found)
    best = found[0]
    assert isinstance(best.node, TextNode) and "Scrabster" in best.node.get_content()
    assert best.node.node_id == record_uid("notes", "ferry")
    assert best.score is not None and best.score >= (found[1].score or 0)
    meta = best.node.metadata
    assert meta["id"] == "ferry" and meta["title"] == "Ferry" and meta["author"] == "ann"
    assert meta["at"].startswith("2025-06-01") and meta["source"] == "notes"
    # identifiers stay out of what a model reads
    assert "uid" not in best.node.get_content(metadata_mode=MetadataMode.LLM)
    assert "author: ann" in best.node.get_content(metadata_mode=MetadataMode.LLM)
    # the filters of Memory.search
    mails = MemtrailsRetriever(home=str(home), kind="mail").retrieve("the trip")
    assert [n.node.metadata["id"] for n in mails] == ["visa"]


async def test_the_retriever_is_async_too(home: Path) -> None:
    found = await MemtrailsRetriever(home=str(home), k=1).aretrieve("who services the boiler")
    assert [n.node.metadata["id"] for n in found] == ["boiler"]


def test_the_reader_yields_the_folders_records_as_documents(home: Path) -> None:
    reader = MemtrailsReader(home=str(home))
    assert isinstance(reader, BaseReader)
    documents = reader.load_data()
    assert all(isinstance(d, Document) for d in documents)
    assert [d.metadata["id"] for d in documents] == ["ferry", "boiler", "visa"]
    ferry, _, visa = documents
    assert ferry.text == NOTES[0].text and ferry.doc_id == record_uid("notes", "ferry")
    assert ferry.metadata["meta"] == {"port": "Scrabster"} and ferry.metadata["kind"] == "note"
    assert visa.metadata["thread"] == "travel" and visa.metadata["source"] == "mail"
    lazy = MemtrailsReader(home=str(home), source="notes").lazy_load_data()
    assert next(iter(lazy)).metadata["id"] == "ferry"
    assert [d.metadata["id"] for d in lazy] == ["boiler"]


async def test_the_reader_is_async_too(home: Path) -> None:
    documents = await MemtrailsReader(home=str(home), source="mail").aload_data()
    assert [d.metadata["id"] for d in documents] == ["visa"]


def test_a_missing_folder_is_an_error_not_a_new_folder(tmp_path: Path) -> None:
    with pytest.raises(Exception, match="no memory folder"):
        MemtrailsRetriever(home=str(tmp_path / "typo")).retrieve("anything")
    with pytest.raises(Exception, match="no memory folder"):
        MemtrailsReader(home=str(tmp_path / "typo")).load_data()
    assert not (tmp_path / "typo").exists()


@pytest.mark.slow
def test_the_retriever_and_reader_go_through_a_running_service(home: Path) -> None:
    with serving(home):
        # the service holds the folder (its lock): the retriever asks it
        found = MemtrailsRetriever(home=str(home), k=1).retrieve("renew the visa")
        assert [n.node.metadata["id"] for n in found] == ["visa"]
        # the reader reads the records through it (streamed as JSON Lines)
        documents = MemtrailsReader(home=str(home)).load_data()
        assert [d.metadata["id"] for d in documents] == ["ferry", "boiler", "visa"]
        assert documents[0].text == NOTES[0].text
        assert documents[0].metadata["meta"] == {"port": "Scrabster"}
        lazy = MemtrailsReader(home=str(home), source="mail").lazy_load_data()
        assert [d.metadata["id"] for d in lazy] == ["visa"]

        async def remote_records() -> tuple[bool, list[str]]:
            async with Memory.open(home, create=False) as memory:
                return memory.remote, [r.id async for r in memory.records(source="notes")]

        assert asyncio.run(remote_records()) == (True, ["ferry", "boiler"])
        info = find_service(home)
        assert info is not None  # the records are the token holder's only
        assert httpx.get(f"{info.url}/v1/records", timeout=30).status_code == 401
