"""The document worker process: reads requests on stdin, extracts, answers on stdout.

Started by :class:`~memtrails.importers.documents.DocumentReader` as a script (not ``-m``),
so it loads kreuzberg and this folder's stdlib-only modules, never memtrails itself.
"""

from __future__ import annotations

import os
import pickle
import resource
import struct
import sys
import types
from typing import Any, BinaryIO

_HEADER = struct.Struct(">Q")


def _load_extract() -> Any:
    """Import ``_extract`` from this folder as a package of its own (relative imports work)."""
    package = types.ModuleType("_memtrails_documents")
    package.__path__ = [os.path.dirname(os.path.abspath(__file__))]
    sys.modules[package.__name__] = package
    import importlib

    return importlib.import_module("_memtrails_documents._extract")


def _read_exact(stream: BinaryIO, n: int) -> bytes | None:
    data = stream.read(n)
    return data if len(data) == n else None


def main() -> None:
    memory = int(sys.argv[1])
    if memory > 0:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    # Answers go to a private copy of stdout: a library that prints cannot corrupt them.
    answers = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    requests = sys.stdin.buffer
    extract = _load_extract()
    while True:
        header = _read_exact(requests, _HEADER.size)
        if header is None:
            return  # the reader closed the pipe: done
        body = _read_exact(requests, _HEADER.unpack(header)[0])
        if body is None:
            return
        suffix, data, max_unpacked = pickle.loads(body)
        answer: tuple[str, Any]
        try:
            answer = ("ok", extract.extract(data, suffix, max_unpacked))
        except extract.Failed as exc:
            answer = ("failed", str(exc))
        except MemoryError:
            answer = ("failed", f"needs more memory than the worker's limit ({memory >> 20} MiB)")
        except RecursionError:
            answer = ("failed", "corrupt or hostile document: nested too deeply to read")
        except Exception as exc:  # why: one bad file must not stop the worker
            answer = ("failed", f"cannot read the document ({type(exc).__name__}: {exc})"[:300])
        del data
        out = pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL)
        answers.write(_HEADER.pack(len(out)) + out)
        answers.flush()


if __name__ == "__main__":
    main()
