"""Answer matching for the benchmark: re-exported from :mod:`docling_evidence.text.normalize`.

The one implementation lives in the core package because the citation check (:mod:`docling_evidence.cite.check`) uses
the same normalisation at run time; the benchmark keeps importing it from here.
"""

from __future__ import annotations

from docling_evidence.text.normalize import answer_variants, contains_all, contains_answer, normalize_text

__all__ = ["answer_variants", "contains_all", "contains_answer", "normalize_text"]
