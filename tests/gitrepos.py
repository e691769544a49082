"""Git repositories built commit by commit for the tests, with fixed authors and clocks."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

BASE = 1_700_000_000  # 2023-11-14T22:13:20Z


def env(i: int = 0) -> dict[str, str]:
    stamp = f"@{BASE + i * 60} +0000"
    return {
        **os.environ,
        "GIT_AUTHOR_NAME": "Ada Lovelace",
        "GIT_AUTHOR_EMAIL": "ada@example.org",
        "GIT_COMMITTER_NAME": "Charles Babbage",
        "GIT_COMMITTER_EMAIL": "cb@example.org",
        "GIT_AUTHOR_DATE": stamp,
        "GIT_COMMITTER_DATE": stamp,
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }


def git(repo: Path, *args: str, i: int = 0) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args], env=env(i), check=True, capture_output=True, text=True
    )
    return done.stdout.strip()


class Repo:
    """A repository built commit by commit, each a minute after the last."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.clock = 0
        path.mkdir(parents=True, exist_ok=True)
        git(path, "init", "-q", "-b", "main")

    def commit(self, message: str, files: dict[str, str | bytes] | None = None) -> str:
        for name, content in (files or {}).items():
            target = self.path / name
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                target.write_bytes(content)
            else:
                target.write_text(content, encoding="utf-8")
        git(self.path, "add", "-A")
        self.clock += 1
        git(self.path, "commit", "-q", "--allow-empty", "-m", message, i=self.clock)
        return git(self.path, "rev-parse", "HEAD")

    def rev_list(self, *args: str) -> list[str]:
        return git(self.path, "rev-list", *args).split()


def repo_source(repo: Repo) -> str:
    return "git:" + str(repo.path.resolve())


def linear(path: Path, n: int) -> Repo:
    repo = Repo(path)
    for k in range(n):
        repo.commit(f"change {k}\n\nBody of change {k}.", {f"f{k % 3}.txt": f"v{k}\n" * (k + 1)})
    return repo


def shallow_clone(repo: Repo, dest: Path, depth: int) -> Path:
    """Clone ``repo`` into ``dest`` keeping only its last ``depth`` commits; return ``dest``."""
    subprocess.run(
        ["git", "clone", "-q", "--depth", str(depth), f"file://{repo.path}", str(dest)],
        env=env(),
        check=True,
        capture_output=True,
    )
    return dest


def raw_commit(repo: Repo, headers: bytes, message: bytes) -> str:
    """Write a commit object of exactly these bytes on top of HEAD, move HEAD to it and return
    its id: the tree and parent lines, ``headers`` (each line ending in a newline), a blank
    line, ``message``. Written ``--literally``: git itself would refuse some of them."""
    tree = git(repo.path, "write-tree")
    parent = git(repo.path, "rev-parse", "HEAD")
    body = b"tree %s\nparent %s\n" % (tree.encode(), parent.encode()) + headers + b"\n" + message
    done = subprocess.run(
        [
            "git",
            "-C",
            str(repo.path),
            "hash-object",
            "-t",
            "commit",
            "-w",
            "--stdin",
            "--literally",
        ],
        input=body,
        env=env(),
        check=True,
        capture_output=True,
    )
    sha = done.stdout.decode().strip()
    git(repo.path, "update-ref", "HEAD", sha)
    return sha
