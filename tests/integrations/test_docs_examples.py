"""Run every Python block of docs/integrations.md, in order, in one namespace, offline: the docs cannot rot."""

from __future__ import annotations

from pathlib import Path

import pytest
from docs.blocks import REPO, python_blocks, run_python_blocks

DOC = REPO / "docs" / "integrations.md"


def test_block_extraction() -> None:
    text = "intro\n```python\na = 1\n```\n```bash\nls\n```\n```python\nb = a + 1\n```\n"
    assert python_blocks(text) == ["a = 1\n", "b = a + 1\n"]


def test_docs_examples_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for module in ("langchain_docling", "llama_index.node_parser.docling"):
        pytest.importorskip(module)
    assert len(python_blocks(DOC.read_text(encoding="utf-8"))) >= 6, "docs/integrations.md lost its examples"
    monkeypatch.chdir(tmp_path)  # examples write files (annual_report.json) into the working directory
    run_python_blocks(DOC)
    assert (tmp_path / "annual_report.json").is_file()
