"""The benchmark's data contract: questions with their gold evidence over DoclingDocuments.

Every loader (TAT-QA, QA JSONL, the fixture generator) returns a :class:`BenchDataset`; the engine (arms, retrieval,
measures) only ever sees these types. Matching of answers against chunk text lives in
:mod:`docling_evidence_bench.normalize`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from docling_core.types.doc import DoclingDocument


class BenchDataError(ValueError):
    """Bad benchmark input; the message names the file (and line) at fault, e.g. ``qa.jsonl:3: missing field 'id'``."""

    def __init__(self, message: str, path: str | Path | None = None, line: int | None = None) -> None:
        self.path = None if path is None else str(path)
        self.line = line
        where = ""
        if self.path is not None:
            where = f"{self.path}:{line}: " if line is not None else f"{self.path}: "
        super().__init__(f"{where}{message}")


@dataclass(frozen=True)
class QAItem:
    """One question and its gold evidence.

    A chunk is a *hit* when every string of ``answers`` and every string of ``required_texts`` occurs in it after
    :func:`docling_evidence_bench.normalize.normalize_text` (token-boundary match, see ``contains_answer``).
    """

    qid: str
    doc_id: str
    """Key into :attr:`BenchDataset.documents`."""
    question: str
    answers: tuple[str, ...]
    """Strings that must ALL appear (normalised) in a hit chunk."""
    qtype: str
    """TAT-QA: ``table`` | ``text`` | ``table-text``; generated: ``cell_value`` | ``table_about`` |
    ``context_dependent``; JSONL: as given."""
    required_texts: tuple[str, ...] = ()
    """Gold paragraph texts that must also appear in a hit chunk (table-text / context_dependent)."""
    evidence_refs: tuple[str, ...] = ()
    """Doc item self_refs of the gold evidence, e.g. ``#/tables/1``, ``#/texts/120``."""
    evidence_pages: tuple[int, ...] = ()
    """Gold pages (1-based) for page-level Success@k; empty when the document has no pages."""


@dataclass
class BenchDataset:
    """Documents and the questions asked over them.

    ``documents`` keeps insertion order, which is the stable order every report uses. ``stats`` holds loader counts
    (contexts, documents, dropped questions by reason, ...), free-form ``str -> int``.
    Construction checks that every question points at a known document and that question ids are unique.
    """

    name: str
    documents: dict[str, DoclingDocument]
    questions: list[QAItem]
    stats: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        seen: set[str] = set()
        for q in self.questions:
            if q.doc_id not in self.documents:
                raise ValueError(f"dataset {self.name!r}: question {q.qid!r} refers to unknown document {q.doc_id!r}")
            if q.qid in seen:
                raise ValueError(f"dataset {self.name!r}: duplicate question id {q.qid!r}")
            seen.add(q.qid)

    def qtype_counts(self) -> dict[str, int]:
        """Number of questions per ``qtype``, in first-seen order."""
        counts: dict[str, int] = {}
        for q in self.questions:
            counts[q.qtype] = counts.get(q.qtype, 0) + 1
        return counts
