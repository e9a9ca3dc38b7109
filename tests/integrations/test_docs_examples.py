"""Run every Python block of docs/integrations.md, in order, in one namespace, offline: the docs cannot rot."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "integrations.md"
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def python_blocks(text: str) -> list[str]:
    """The fenced ```python blocks of a Markdown text, in order."""
    return BLOCK.findall(text)


def test_block_extraction() -> None:
    text = "intro\n```python\na = 1\n```\n```bash\nls\n```\n```python\nb = a + 1\n```\n"
    assert python_blocks(text) == ["a = 1\n", "b = a + 1\n"]


def test_docs_examples_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for module in ("langchain_docling", "llama_index.node_parser.docling"):
        pytest.importorskip(module)
    blocks = python_blocks(DOC.read_text(encoding="utf-8"))
    assert len(blocks) >= 6, "docs/integrations.md lost its examples"
    monkeypatch.chdir(tmp_path)  # examples write files (annual_report.json) into the working directory
    namespace: dict[str, object] = {"__name__": "docs_example"}
    for number, code in enumerate(blocks, start=1):
        exec(compile(code, f"{DOC.name}[block {number}]", "exec"), namespace)
    assert (tmp_path / "annual_report.json").is_file()
