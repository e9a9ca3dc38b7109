"""The README's Python blocks run as written after the README's own install (the `convert` extra: no torch)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from docs.blocks import REPO, fenced_blocks, python_blocks, run_python_blocks

README = REPO / "README.md"


def test_fenced_blocks_by_language() -> None:
    text = "```bash\nls\n```\n```python title\nx = 1\n```\n```\nplain\n```\n"
    assert fenced_blocks(text, "bash") == ["ls\n"]
    assert python_blocks(text) == ["x = 1\n"]
    assert fenced_blocks(text, "") == ["plain\n"]


def test_readme_install_is_the_convert_extra_with_constraints() -> None:
    """What the blocks below must run after: the first line of the README's first bash block."""
    first = fenced_blocks(README.read_text(encoding="utf-8"), "bash")[0].splitlines()[0]
    assert "pip install -c constraints.txt '.[convert]'" in first


def test_readme_python_blocks_run(monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = python_blocks(README.read_text(encoding="utf-8"))
    assert blocks, "README.md lost its Python example"
    monkeypatch.chdir(REPO)  # the README's commands run from the repository root
    namespace = run_python_blocks(README)
    chunks = list(namespace["chunker"].chunk(namespace["doc"]))  # type: ignore[attr-defined]
    assert any(c.meta.kind == "table" for c in chunks)


def test_readme_python_blocks_run_without_torch() -> None:
    """As in a venv with only the `convert` extra: torch cannot be imported (docling's converter module needs it)."""
    script = textwrap.dedent(
        f"""
        import sys
        sys.modules["torch"] = None  # any `import torch` raises ImportError, as when torch is not installed
        sys.path.insert(0, {str(REPO / "tests")!r})
        from pathlib import Path
        from docs.blocks import run_python_blocks
        run_python_blocks(Path({str(README)!r}))
        """
    )
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, env=env, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
