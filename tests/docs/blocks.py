"""The one way the docs tests read code out of Markdown: fenced blocks by language, run in one namespace."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
"""The repository root (README.md, docs/)."""

_FENCE = re.compile(r"^```(?P<lang>[\w+-]*)[^\n]*\n(?P<body>.*?)^```", re.S | re.M)


def fenced_blocks(text: str, lang: str) -> list[str]:
    """The bodies of the fenced blocks of ``text`` whose info string starts with ``lang``, in order."""
    return [m["body"] for m in _FENCE.finditer(text) if m["lang"] == lang]


def python_blocks(text: str) -> list[str]:
    """The fenced ```python blocks of a Markdown text, in order."""
    return fenced_blocks(text, "python")


def run_python_blocks(doc: Path, namespace: dict[str, object] | None = None) -> dict[str, object]:
    """Execute every Python block of ``doc`` in order in one namespace (tracebacks name the block); return it."""
    namespace = {"__name__": "docs_example"} if namespace is None else namespace
    for number, code in enumerate(python_blocks(doc.read_text(encoding="utf-8")), start=1):
        exec(compile(code, f"{doc.name}[block {number}]", "exec"), namespace)
    return namespace
