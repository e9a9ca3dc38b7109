"""What a citation check reports: each claim, whether it is supported and by which sources (:class:`Evidence`), as
data (:class:`CitationReport`, ``to_dict``) and as a terminal report (:func:`format_text`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from docling_evidence.cite.claims import MIN_NGRAM_COVERAGE, NGRAM_N

if TYPE_CHECKING:
    from docling_evidence.cite.claims import ClaimKind
    from docling_evidence.cite.sources import SourceKind
    from docling_evidence.document.layout import TopLeftBox

MatchKind = Literal["exact", "unsigned", "scaled", "ngram"]
"""How a source supports a claim: the same number, the same digits under a sign the words carry, the same value
after scaling, or the sentence's word n-grams."""


@dataclass(frozen=True)
class Evidence:
    """One source that supports a claim."""

    ref: str
    kind: SourceKind
    text: str
    page: int | None
    bbox: TopLeftBox | None
    box_source: Literal["cell", "item", "table"] | None
    match: MatchKind
    chunk: int | None = None
    """Index (in the given order) of the first chunk that cites this source; None when no chunks were given."""
    row: int | None = None
    col: int | None = None
    row_label: str | None = None
    column_label: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``ref``, ``kind``, ``page``, ``bbox`` (list or null), ``box_source``, ``match``, ``chunk``,
        ``text``, and ``row`` / ``col`` / ``row_label`` / ``column_label`` for table sources."""
        out: dict[str, Any] = {
            "ref": self.ref,
            "kind": self.kind,
            "page": self.page,
            "bbox": list(self.bbox) if self.bbox is not None else None,
            "box_source": self.box_source,
            "match": self.match,
            "chunk": self.chunk,
            "text": self.text,
        }
        if self.kind in ("table_cell", "table_row"):
            out.update(row=self.row, col=self.col, row_label=self.row_label, column_label=self.column_label)
        return out


@dataclass(frozen=True)
class Claim:
    """A claim of the answer and what supports it."""

    text: str
    kind: ClaimKind
    start: int
    end: int
    supported: bool
    evidence: tuple[Evidence, ...] = ()
    elsewhere: tuple[Evidence, ...] = ()
    """When chunks were given and the claim is not supported by them: where the document does support it."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``text``, ``kind``, ``start``, ``end``, ``supported``, ``evidence`` (and ``elsewhere``)."""
        out: dict[str, Any] = {
            "text": self.text,
            "kind": self.kind,
            "start": self.start,
            "end": self.end,
            "supported": self.supported,
            "evidence": [e.to_dict() for e in self.evidence],
        }
        if self.elsewhere:
            out["elsewhere"] = [e.to_dict() for e in self.elsewhere]
        return out


@dataclass(frozen=True)
class CitationReport:
    """The claims of one answer checked against one document (and its cited chunks)."""

    answer: str
    claims: tuple[Claim, ...]
    document: str
    chunks_given: bool
    has_layout: bool

    @property
    def supported(self) -> bool:
        """True when the answer has claims and every one is supported."""
        return bool(self.claims) and all(c.supported for c in self.claims)

    def to_dict(self) -> dict[str, Any]:
        """``{"document", "answer", "supported", "chunks_given", "has_layout", "claims": [...]}``."""
        return {
            "document": self.document,
            "answer": self.answer,
            "supported": self.supported,
            "chunks_given": self.chunks_given,
            "has_layout": self.has_layout,
            "claims": [c.to_dict() for c in self.claims],
        }


def _where(e: Evidence) -> str:
    parts = []
    if e.kind == "table_cell":
        label = " / ".join(x for x in (e.row_label, e.column_label) if x)
        parts.append(f"{e.ref} cell r{e.row} c{e.col}" + (f" ({label})" if label else ""))
    elif e.kind == "table_row":
        parts.append(f"{e.ref} row r{e.row}")
    else:
        parts.append(f"{e.ref} {e.kind}")
    if e.page is not None:
        parts.append(f"page {e.page}")
    if e.bbox is not None:
        box = "box [" + ", ".join(f"{v:.1f}" for v in e.bbox) + "]"
        parts.append(box + (" (table's box)" if e.box_source == "table" else ""))
    if e.chunk is not None:
        parts.append(f"chunk {e.chunk}")
    if e.match != "exact":
        parts.append(e.match)
    return " · ".join(parts)


def _excerpt(text: str, limit: int = 90) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def format_text(report: CitationReport, max_evidence: int = 5) -> str:
    """A terminal-readable report: one block per claim, ✓/✗, then where it is supported (at most ``max_evidence``
    sources per claim, with a count of the rest)."""
    scope = "the cited chunks" if report.chunks_given else "the whole document"
    n_ok = sum(c.supported for c in report.claims)
    lines = [f"{report.document}: {n_ok} of {len(report.claims)} claims supported by {scope}"]
    if not report.has_layout:
        lines.append("(this document has no page layout: pages and boxes are not available)")
    if not report.claims:
        lines.append("no claim found in the answer (no number, quote or sentence with words)")
    for c in report.claims:
        mark = "✓" if c.supported else "✗"
        lines.append(f"{mark} {c.kind:<8} {_excerpt(c.text)}")
        for e in c.evidence[:max_evidence]:
            lines.append(f"    {_where(e)}: {_excerpt(e.text, 70)}")
        if len(c.evidence) > max_evidence:
            lines.append(f"    … and {len(c.evidence) - max_evidence} more")
        if not c.supported:
            if c.elsewhere:
                lines.append("    not in the cited chunks; the document supports it at:")
                for e in c.elsewhere[:max_evidence]:
                    lines.append(f"    {_where(e)}: {_excerpt(e.text, 70)}")
            elif not c.evidence:
                where = f"{scope}, nor elsewhere in the document" if report.chunks_given else scope
                lines.append(f"    found nowhere in {where}")
            else:
                lines.append(
                    f"    too little of it found (fewer than {MIN_NGRAM_COVERAGE:.0%} of its {NGRAM_N}-grams, "
                    "or a number/quote inside it is unsupported)"
                )
    return "\n".join(lines) + "\n"
