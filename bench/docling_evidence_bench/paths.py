"""Where the bench finds its data and, for the tools that measure and rewrite the docs, the repository checkout.

The tools under :mod:`docling_evidence_bench.tools` read and write the repository's ``docs/`` and read the real
fixtures in ``../shared`` beside it: they run from a source checkout (``pip install -e ./bench``), where this file
sits at ``<repo>/bench/docling_evidence_bench/paths.py``.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
"""The installed ``docling_evidence_bench`` package folder."""
DATA = PACKAGE / "data"
"""Data shipped with the bench: the written questions and the hand labels of context."""
REPO = PACKAGE.parents[1]
"""The repository checkout holding ``bench/`` (meaningful for an editable install only)."""
SHARED = REPO.parent / "shared"
"""``../shared`` beside the repository: the real fixtures and TAT-QA."""
