"""Where the test data that is not part of the repository lives: ``../shared`` beside the checkout by default.

It holds the real Docling fixtures, TAT-QA and docling-core's own tests. ``DOCLING_EVIDENCE_SHARED`` names another
folder; naming a missing one (``DOCLING_EVIDENCE_SHARED=/nonexistent pytest -m "not slow"``) checks that the fast tier
needs none of it: every test that reads the folder is marked ``slow`` (``tests/conftest.py``) or skips without it.
"""

from __future__ import annotations

import os
from pathlib import Path

SHARED = Path(os.environ.get("DOCLING_EVIDENCE_SHARED") or Path(__file__).resolve().parents[1].parent / "shared")
"""The shared data folder (it may be absent)."""

FIXTURES = SHARED / "fixtures"
"""The real Docling JSON fixtures."""
