"""The run environment a benchmark records."""

from __future__ import annotations

import pytest
from docling_evidence_bench import environment as env


def test_uncommitted_package_files_are_listed_by_their_whole_path(monkeypatch: pytest.MonkeyPatch) -> None:
    porcelain = " M docling_evidence/context.py\n?? docling_evidence/deixis.py\nR  docling_evidence/a.py -> b.py\n"

    def fake_git(*args: str) -> str:
        return porcelain.strip() if args[0] == "status" else "abc123"

    monkeypatch.setattr(env, "_git", fake_git)
    recorded = env.environment(packages=())
    assert recorded["git_commit"] == "abc123"
    assert recorded["package_uncommitted"] == [
        "docling_evidence/context.py",
        "docling_evidence/deixis.py",
        "docling_evidence/a.py -> b.py",
    ]
