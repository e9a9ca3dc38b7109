"""The integrations import nothing heavy until used."""

from __future__ import annotations

import subprocess
import sys

import pytest


def _loaded_after(statement: str) -> set[str]:
    code = f"import sys\n{statement}\nprint('\\n'.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=300)
    return {name.split(".")[0] for name in out.stdout.split()}


def test_package_and_maxpool_import_no_framework() -> None:
    loaded = _loaded_after("import docling_evidence.integrations, docling_evidence.integrations.maxpool")
    assert not loaded & {"langchain_core", "langchain_docling", "llama_index", "docling", "torch"}


def test_langchain_module_needs_langchain_docling_only_for_the_extractor() -> None:
    pytest.importorskip("langchain_core")
    loaded = _loaded_after("import docling_evidence.integrations.langchain")
    assert "langchain_core" in loaded
    assert "langchain_docling" not in loaded
