"""Deterministic citation check: which part of a document (or of the retrieved chunks) supports each claim of an answer.

```python
from docling_evidence.cite.check import check_answer

report = check_answer("Revenue rose to $1,496.5 million in 2019.", doc, chunks=retrieved)   # chunks optional
for claim in report.claims:
    claim.text, claim.kind, claim.supported
    for ev in claim.evidence:                  # what supports it, best-ranked chunk first
        ev.ref, ev.kind, ev.page, ev.bbox, ev.row, ev.col, ev.chunk
report.to_dict()                                # {"claims": [{"text", "supported", "evidence": [...]}, ...]}
```

No model, no randomness: the same answer and document always give the same report.

**Claims.** The answer is split into (see :func:`extract_claims`):

- *numbers*, with their sign (``-12``, ``(12)``), currency (a symbol or a code such as ``USD``), percent form
  (``12%``, ``12 percent``) and scale word
  (``thousand``, ``million``, ``billion``, ``trillion``; ``k``/``m``/``bn`` only after a currency sign);
- *quoted spans* (text between straight or curly double quotes, or « »);
- *sentences* (split at ``.``/``!``/``?`` followed by a space and a capital, and at line breaks) that hold words
  besides their numbers.

**Sources.** Every table cell (with its grid row and column, read with :mod:`docling_evidence.tables.rows`), every text
item (caption, footnote, heading, paragraph or list item) and, for sentence matching, every table row. With
``chunks``, only the items a chunk lists in ``meta.doc_items`` count, and a table cell only when the chunk's text shows
it (and, for a piece of a split table, when its row is one of the piece's rows): a claim is supported by what was
actually cited. Chunks of another document are refused (:func:`check_chunks_belong`: by ``meta.origin``, else by what
their text shows).

**Matching** (after :func:`docling_evidence.text.normalize.normalize_text`: case, Unicode, whitespace, currency symbols,
thousands separators):

- A number is supported by a source number of the same value and sign, ``(12)`` being ``-12``; ``12.50`` equals
  ``12.5``; a ``%`` on either side is optional (tables put it in the header). A number written without a sign is
  also supported by the negative one (``match="unsigned"``: "a loss of 9,819" for a cell "(9,819)"); a negative
  number is never supported by a positive one. Scales: when the claim has a scale word
  and the source has a different known scale (its own word, or the table's "in thousands" / "$'000" marker in the
  caption, header cells or footnotes) the values are compared after scaling, to the precision the claim is written
  with (``$1.5 million`` is supported by ``1,496.5`` in a table "in thousands"); two different known scales with the
  same digits do not match. A number right after "Table", "Figure", "Note", "page", "section", "item", "no." or "#"
  is a label: it matches only the same label ("Section 404" in the answer and the text; "Table 1" is not
  "Figure 1"), never a value ("Table 1" does not support "$1 million"). A number found nowhere is unsupported.
- A quoted span is supported by a source holding it verbatim (normalised, at word boundaries).
- A sentence is supported when at least :data:`MIN_NGRAM_COVERAGE` of its word :data:`NGRAM_N`-grams (n-grams made
  only of stop words do not count) occur in the sources, each n-gram inside one source, **and** every number and
  quote inside it is supported. Its evidence is the smallest set of sources, best first, that reaches that coverage.

**Boxes.** ``page`` and ``bbox`` (``[left, top, right, bottom]`` in page points, top-left origin, via docling-core's
``BoundingBox.to_top_left_origin``) come from Docling's provenance: a cell's own box when Docling has one, else the
table's box (``box_source`` says which). Without layout (HTML, DOCX, Markdown) both are ``None``; a box is never
invented.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from docling_evidence.text.normalize import DASH_MAP, contains_answer, normalize_text

if TYPE_CHECKING:
    from docling_core.types.doc import DocItem, DoclingDocument, TableItem

NGRAM_N: int = 3
"""Word n-gram length for sentence claims (shorter sentences use all their words as one n-gram)."""

MIN_NGRAM_COVERAGE: float = 0.5
"""Share of a sentence's n-grams that must occur in the sources for the sentence to count as supported."""

MAX_SENTENCE_EVIDENCE: int = 3
"""At most this many sources are cited for one sentence."""

ClaimKind = Literal["number", "quote", "sentence"]
SourceKind = Literal["table_cell", "table_row", "caption", "footnote", "heading", "paragraph"]
MatchKind = Literal["exact", "unsigned", "scaled", "ngram"]

_SCALE_WORDS: dict[str, Decimal] = {
    "thousand": Decimal(1000),
    "thousands": Decimal(1000),
    "k": Decimal(1000),
    "million": Decimal(10) ** 6,
    "millions": Decimal(10) ** 6,
    "m": Decimal(10) ** 6,
    "mn": Decimal(10) ** 6,
    "mm": Decimal(10) ** 6,
    "billion": Decimal(10) ** 9,
    "billions": Decimal(10) ** 9,
    "bn": Decimal(10) ** 9,
    "trillion": Decimal(10) ** 12,
    "trillions": Decimal(10) ** 12,
}
_CURRENCY_ONLY_SCALES = frozenset({"k", "m", "mn", "mm", "bn"})
"""Abbreviations read as a scale only after a currency sign ("$5m"): "5 m" may be metres."""

_NUMBER = re.compile(
    r"(?<![\w.])(?P<open>\()?(?P<sign>[-\u2212\u2013])?(?P<cur>[$€£¥]|(?:USD|EUR|GBP|JPY|CHF|CAD|AUD|CNY|RMB|US\$)\s?)?\s?(?P<sign2>[-\u2212])?"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)(?!\.\d)(?=\W|$|(?:bn|mn|mm|m|k)\b)(?P<close>\))?"
    r"(?:\s?(?P<pct>%|percent\b|per\s?cent\b))?"
    r"(?:\s?(?P<scale>thousands?|millions?|billions?|trillions?|bn|mn|mm|m|k)\b)?",
    re.IGNORECASE,
)
_LABEL_BEFORE = re.compile(
    r"(?:\btable|\btab\.|\bfigure|\bfig\.|\bnotes?|\bpage|\bsection|\bitem|\bchapter|\bappendix|\bexhibit|\bno\.|#)\s?$",
    re.IGNORECASE,
)
"""A number right after one of these words labels something ("Table 1", "Note 2"): not a value to cite."""
_LABEL_ALIASES = {"tab": "table", "fig": "figure", "notes": "note", "#": "no"}
_QUOTE = re.compile(r"\"([^\"\n]+)\"|\u201c([^\u201d\n]+)\u201d|\u00ab\s?([^\u00bb\n]+?)\s?\u00bb")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"\u201c(A-Z0-9$€£¥])|\n+")
_WORD = re.compile(r"\w+(?:[.,]\d+)*")
_LETTER = re.compile(r"[^\W\d_]")
_TABLE_SCALE = re.compile(
    r"\bin (thousands|millions|billions)\b|\b(thousands|millions|billions) of\b|'000s?\b|\(000s?\)|\b000s\b"
)
_STOPWORDS = frozenset(
    re.findall(
        r"\w+", "a an and are as at be by for from has have in is it its of on or that the this to was were which with"
    )
)


# ---------------------------------------------------------------------------------------------------------------
# claims


@dataclass(frozen=True)
class Number:
    """A number as written: value, sign, percent form, scale word and decimals."""

    value: Decimal
    """Absolute value as written (``1,496.5`` -> 1496.5), before any scale."""
    negative: bool
    percent: bool
    scale: Decimal | None
    """Multiplier of the scale word that follows it (``million`` -> 10**6), else None."""
    decimals: int
    label: str = ""
    """The word it numbers ("table" for "Table 1", "note", "section", ...), else "": a label matches only the same
    label ("Table 1" is not "Figure 1"), never a value."""


def _label_word(text: str, start: int) -> str:
    """The label word right before ``start`` in ``text`` ("table", "figure", "note", ...), or ""."""
    m = _LABEL_BEFORE.search(text, max(0, start - 12), start) if text else None
    if m is None:
        return ""
    word = m.group().strip().lower().rstrip(".")
    return _LABEL_ALIASES.get(word, word)


def _parse_number(m: re.Match[str], text: str = "") -> Number | None:
    raw = m.group("num").replace(",", "")
    try:
        value = Decimal(raw)
    except InvalidOperation:
        return None
    negative = bool(m.group("sign") or m.group("sign2") or (m.group("open") and m.group("close")))
    scale_word = (m.group("scale") or "").lower()
    if scale_word in _CURRENCY_ONLY_SCALES and not m.group("cur"):
        scale_word = ""
    decimals = len(raw.split(".")[1]) if "." in raw else 0
    return Number(
        value=value,
        negative=negative and value != 0,
        percent=bool(m.group("pct")),
        scale=_SCALE_WORDS.get(scale_word),
        decimals=decimals,
        label=_label_word(text, m.start()),
    )


def _number_span(m: re.Match[str], n: Number) -> tuple[int, int]:
    """The claim's span: sign/currency/parentheses, digits, percent, and the scale word only when it was read."""
    start = m.start("open") if m.group("open") and m.group("close") else m.start()
    if m.group("open") and not m.group("close"):
        start = m.start() + 1
    end = m.end()
    if m.group("scale") and n.scale is None:
        end = m.end("pct") if m.group("pct") else (m.end("close") if m.group("close") else m.end("num"))
    return start, end


@dataclass(frozen=True)
class ClaimSpan:
    """One claim found in an answer: its text, kind and ``[start, end)`` offsets into the answer."""

    text: str
    kind: ClaimKind
    start: int
    end: int
    number: Number | None = None


def extract_claims(answer: str) -> list[ClaimSpan]:
    """Split ``answer`` into number, quote and sentence claims, in order of appearance (see the module docstring).

    Raises:
        TypeError: when ``answer`` is not a string.
    """
    if not isinstance(answer, str):
        raise TypeError(f"answer must be a str, got {type(answer).__name__}")
    claims: list[ClaimSpan] = []
    scan = answer.translate(DASH_MAP)  # every minus form is "-", as in the normalised sources (same offsets)
    for m in _QUOTE.finditer(answer):
        g = next(i for i in (1, 2, 3) if m.group(i) is not None)
        text = m.group(g).strip()
        if _WORD.search(text):
            claims.append(ClaimSpan(text, "quote", m.start(g), m.end(g)))
    for m in _NUMBER.finditer(scan):
        n = _parse_number(m, scan)
        if n is None:
            continue
        start, end = _number_span(m, n)
        if m.group("sign") and scan[m.end("sign")].isspace() and not (m.group("open") and m.group("close")):
            # a dash set apart by a space is punctuation or a range ("from 10 - 20", "income - 12 million"), not a sign
            n = replace(n, negative=bool(m.group("sign2")) and n.value != 0)
            start = m.end("sign")
            while scan[start].isspace():  # (no copy of the rest of the answer per number)
                start += 1
        claims.append(ClaimSpan(answer[start:end].strip(), "number", start, end, n))
    covered = bytearray(len(answer))  # characters inside a number or quote claim (one pass, not one per claim)
    for c in claims:
        covered[c.start : c.end] = b"\x01" * (c.end - c.start)
    pos = 0
    for piece in [*_SENTENCE_END.split(answer)]:
        start = answer.find(piece, pos)
        end = start + len(piece)
        pos = end
        text = piece.strip()
        if not text:
            continue
        rest = "".join(ch for i, ch in enumerate(piece, start) if not covered[i])
        if content_words(normalize_text(rest)):
            lead = len(piece) - len(piece.lstrip())
            claims.append(ClaimSpan(text, "sentence", start + lead, start + lead + len(text)))
    claims.sort(key=lambda c: (c.start, {"sentence": 0, "quote": 1, "number": 2}[c.kind]))
    return claims


# ---------------------------------------------------------------------------------------------------------------
# sources


@dataclass(frozen=True)
class Source:
    """One citable piece of the document: a table cell or row, or a text item."""

    ref: str
    """The doc item's ``self_ref`` (a cell's table, e.g. ``#/tables/0``)."""
    kind: SourceKind
    text: str
    page: int | None
    bbox: tuple[float, float, float, float] | None
    """``(left, top, right, bottom)``, page points, top-left origin; None without layout."""
    box_source: Literal["cell", "item", "table"] | None
    row: int | None = None
    """Grid row of a table cell or row (0-based, header rows included)."""
    col: int | None = None
    """Grid column of a table cell (0-based)."""
    row_label: str | None = None
    column_label: str | None = None
    scale: Decimal | None = None
    """The table's scale marker ("in thousands" -> 1000) for cells, else None."""
    order: int = 0
    """Position in reading order (items) and within a table (cells), for a stable evidence order."""
    norm: str = field(default="", repr=False)
    numbers: tuple[Number, ...] = field(default=(), repr=False)
    ngrams: frozenset[tuple[str, ...]] = field(default=frozenset(), repr=False)
    words: str = field(default=" ", repr=False)
    """Content words joined by single spaces and padded with one, to find n-grams shorter than NGRAM_N."""


def _page_heights(doc: DoclingDocument) -> dict[int, float]:
    return {no: p.size.height for no, p in doc.pages.items() if p.size is not None}


def _top_left(bbox: Any, page: int | None, heights: dict[int, float]) -> tuple[float, float, float, float] | None:
    """The box in top-left page coordinates, or None when it cannot be placed (no page height for a bottom-left box,
    non-finite coordinates)."""
    from docling_core.types.doc import CoordOrigin

    if bbox is None:
        return None
    if bbox.coord_origin != CoordOrigin.TOPLEFT:
        if page is None or page not in heights:
            return None
        bbox = bbox.to_top_left_origin(page_height=heights[page])
    coords = (bbox.l, bbox.t, bbox.r, bbox.b)
    if not all(math.isfinite(c) for c in coords):
        return None
    left, right = min(bbox.l, bbox.r), max(bbox.l, bbox.r)
    top, bottom = min(bbox.t, bbox.b), max(bbox.t, bbox.b)
    return (round(left, 2), round(top, 2), round(right, 2), round(bottom, 2))


def _item_boxes(item: DocItem, heights: dict[int, float]) -> list[tuple[int, tuple[float, float, float, float] | None]]:
    """(page, top-left box or None) for every provenance entry of ``item``."""
    return [(p.page_no, _top_left(p.bbox, p.page_no, heights)) for p in (getattr(item, "prov", None) or [])]


def content_words(norm: str) -> list[str]:
    """The words of normalised text that sentence matching compares: no numbers (checked as number claims), no stop
    words."""
    return [w for w in _WORD.findall(norm) if _LETTER.search(w) and w not in _STOPWORDS]


def _ngrams(norm: str) -> frozenset[tuple[str, ...]]:
    words = content_words(norm)
    n = min(NGRAM_N, len(words))
    if n == 0:
        return frozenset()
    return frozenset(tuple(words[i : i + n]) for i in range(len(words) - n + 1))


def _numbers(norm: str) -> tuple[Number, ...]:
    return tuple(n for m in _NUMBER.finditer(norm) if (n := _parse_number(m, norm)) is not None)


def _table_scale(texts: Iterable[str]) -> Decimal | None:
    """The one scale named in the table's caption, header cells and footnotes; None when none or several."""
    found: set[Decimal] = set()
    for text in texts:
        for m in _TABLE_SCALE.finditer(normalize_text(text)):
            word = m.group(1) or m.group(2)
            found.add(_SCALE_WORDS[word] if word else Decimal(1000))
    return found.pop() if len(found) == 1 else None


def _make(ref: str, kind: SourceKind, text: str, **kw: Any) -> Source:
    norm = normalize_text(text)
    words = " " + " ".join(content_words(norm)) + " "
    return Source(
        ref=ref, kind=kind, text=text, norm=norm, numbers=_numbers(norm), ngrams=_ngrams(norm), words=words, **kw
    )


def _text_kind(item: DocItem) -> SourceKind:
    label = getattr(getattr(item, "label", None), "value", "")
    if label == "caption":
        return "caption"
    if label == "footnote":
        return "footnote"
    if label in ("section_header", "title"):
        return "heading"
    return "paragraph"


def _cell_place(
    cell: Any, table_boxes: list[tuple[int, tuple[float, float, float, float] | None]], heights: dict[int, float]
) -> tuple[int | None, tuple[float, float, float, float] | None, Literal["cell", "table"] | None]:
    """Page and box of a cell: its own box on the table page that contains it, else the table's (first) box."""
    if cell.bbox is not None and table_boxes:
        for page, tbox in table_boxes:
            box = _top_left(cell.bbox, page, heights)
            if box is None:
                continue
            if len(table_boxes) == 1 or (
                tbox is not None
                and tbox[0] - 1 <= (box[0] + box[2]) / 2 <= tbox[2] + 1
                and tbox[1] - 1 <= (box[1] + box[3]) / 2 <= tbox[3] + 1
            ):
                return page, box, "cell"
    if table_boxes:
        page, tbox = table_boxes[0]
        return page, tbox, "table" if tbox is not None else None
    return None, None, None


def _table_sources(
    table: TableItem, doc: DoclingDocument, heights: dict[int, float], order: int, n_header: dict[str, int]
) -> list[Source]:
    """The table's cells and rows as sources; records its number of header rows in ``n_header``."""
    from docling_evidence.tables.rows import table_rows

    rows = table_rows(table, doc)
    grid = [*rows.header, *rows.body]
    n_header[table.self_ref] = len(rows.header)
    if not grid:
        return []
    n_head = len(rows.header)
    boxes = _item_boxes(table, heights)
    caption_texts = [getattr(r.resolve(doc), "text", "") for r in table.captions]
    footnote_texts = [getattr(r.resolve(doc), "text", "") for r in table.footnotes]
    scale = _table_scale([*caption_texts, *footnote_texts, *(c for row in rows.header for c in row)])

    def col_label(c: int) -> str | None:
        parts: list[str] = []
        for row in rows.header:
            if row[c] and row[c] not in parts:
                parts.append(row[c])
        return " ".join(parts) or None

    def row_label(r: int) -> str | None:
        if r < n_head:
            return None
        label = " ".join(dict.fromkeys(t for t in grid[r][: rows.label_cols] if t))
        return label or None

    sources: list[Source] = []
    seen: set[tuple[int, int]] = set()
    cells = sorted(table.data.table_cells, key=lambda c: (c.start_row_offset_idx, c.start_col_offset_idx))
    for cell in cells:
        r, c = cell.start_row_offset_idx, cell.start_col_offset_idx
        if not (0 <= r < len(grid) and 0 <= c < len(grid[r])) or (r, c) in seen:
            continue
        seen.add((r, c))
        text = grid[r][c]
        if not text:
            continue
        page, box, box_source = _cell_place(cell, boxes, heights)
        sources.append(
            _make(
                table.self_ref,
                "table_cell",
                text,
                page=page,
                bbox=box,
                box_source=box_source,
                row=r,
                col=c,
                row_label=row_label(r),
                column_label=col_label(c) if r >= n_head else None,
                scale=scale,
                order=order,
            )
        )
    page, tbox = boxes[0] if boxes else (None, None)
    for r, row in enumerate(grid):
        text = " ".join(dict.fromkeys(t for t in row if t))
        if text:
            sources.append(
                _make(
                    table.self_ref,
                    "table_row",
                    text,
                    page=page,
                    bbox=tbox,
                    box_source="table" if tbox is not None else None,
                    row=r,
                    row_label=row_label(r),
                    scale=scale,
                    order=order,
                )
            )
    return sources


class DocumentSources:
    """Every citable source of one document, built once (reuse it to check many answers against one document).

    Raises:
        TypeError: when ``doc`` is not a ``DoclingDocument``.
    """

    def __init__(self, doc: DoclingDocument) -> None:
        from docling_core.types.doc import DoclingDocument, TableItem, TextItem

        if not isinstance(doc, DoclingDocument):
            raise TypeError(f"doc must be a docling_core DoclingDocument, got {type(doc).__name__}")
        self.doc = doc
        self.has_layout = bool(doc.pages)
        heights = _page_heights(doc)
        sources: list[Source] = []
        self.n_header: dict[str, int] = {}
        """Header rows of each table (by ref), to place a split table's body rows."""
        refs: set[str] = set()
        for order, (item, _level) in enumerate(doc.iterate_items(with_groups=False)):
            refs.add(item.self_ref)
            if isinstance(item, TableItem):
                sources.extend(_table_sources(item, doc, heights, order, self.n_header))
            elif isinstance(item, TextItem) and item.text.strip():
                boxes = _item_boxes(item, heights)
                page, box = boxes[0] if boxes else (None, None)
                sources.append(
                    _make(
                        item.self_ref,
                        _text_kind(item),
                        item.text.strip(),
                        page=page,
                        bbox=box,
                        box_source="item" if box is not None else None,
                        order=order,
                    )
                )
        self.sources: tuple[Source, ...] = tuple(sources)
        self.refs: frozenset[str] = frozenset(refs)
        """The ``self_ref`` of every doc item a chunk of this document can list."""
        self._item_marks: dict[str, tuple[frozenset[tuple[str, ...]], frozenset[str], tuple[str, ...]]] | None = None

    def shows_its_items(self, chunk: CitedChunk) -> bool:
        """Whether ``chunk``'s text shows one of the doc items it lists, as this document has them: a word
        :data:`NGRAM_N`-gram of the item or of one of its cells, all the words of a shorter one of two words or
        more, or a table cell's number (not a year). True when it cannot tell (a chunk text with fewer than
        :data:`NGRAM_N` content words, or no listed item with such words or numbers)."""
        norm = normalize_text(chunk.text)
        words = content_words(norm)
        if len(words) < NGRAM_N:
            return True
        grams = _ngrams(norm)
        padded = " " + " ".join(words) + " "
        counted = False
        for ref in chunk.refs:
            marks = self._marks().get(ref)
            if marks is None:
                continue
            item_grams, phrases, cells = marks
            counted = True
            if item_grams & grams or any(p in padded for p in phrases) or any(contains_answer(norm, c) for c in cells):
                return True
        return not counted

    def _marks(self) -> dict[str, tuple[frozenset[tuple[str, ...]], frozenset[str], tuple[str, ...]]]:
        """Per item ref, what shows it in a chunk's text: its sources' word n-grams, the padded word runs of sources
        shorter than an n-gram (two words or more: one word such as "Total" is in too many documents), and the
        texts of its table cells that hold a number other than a year."""
        if self._item_marks is None:
            grams: dict[str, set[tuple[str, ...]]] = {}
            phrases: dict[str, set[str]] = {}
            cells: dict[str, list[str]] = {}
            for s in self.sources:
                full = {g for g in s.ngrams if len(g) == NGRAM_N}
                grams.setdefault(s.ref, set()).update(full)
                phrases.setdefault(s.ref, set()).update(" " + " ".join(g) + " " for g in s.ngrams - full if len(g) > 1)
                if s.kind == "table_cell" and any(not n.label and not _is_year(n) for n in s.numbers):
                    cells.setdefault(s.ref, []).append(s.norm)
            marks = {r: (frozenset(g), frozenset(phrases[r]), tuple(cells.get(r, ()))) for r, g in grams.items()}
            self._item_marks = {r: m for r, m in marks.items() if any(m)}
        return self._item_marks


def _is_year(n: Number) -> bool:
    return not n.decimals and not n.negative and 1900 <= n.value <= 2100


# ---------------------------------------------------------------------------------------------------------------
# chunks


@dataclass(frozen=True)
class CitedChunk:
    """What a citation check needs of a chunk: its text, the refs of its doc items and, for a table piece, its rows.

    ``rows`` is the half-open range of table body rows (``EvidenceMeta.rows``); header rows always count as shown.
    """

    text: str
    refs: frozenset[str]
    rows: tuple[int, int] | None = None
    binary_hash: int | None = None
    """``meta.origin.binary_hash`` of the document the chunk was made from, when the chunk carries it."""
    filename: str | None = None
    """``meta.origin.filename`` of that document, when the chunk carries it."""

    @classmethod
    def from_chunk(cls, chunk: Any) -> CitedChunk:
        """From a docling-core ``DocChunk`` (an ``EvidenceChunk`` included) or a ``CitedChunk``.

        Raises:
            TypeError: for an object without ``text`` and ``meta.doc_items``.
        """
        if isinstance(chunk, CitedChunk):
            return chunk
        meta = getattr(chunk, "meta", None)
        items = getattr(meta, "doc_items", None)
        text = getattr(chunk, "text", None)
        if not isinstance(text, str) or items is None:
            raise TypeError(
                f"chunks must be docling-core DocChunks (text and meta.doc_items) or CitedChunk, got "
                f"{type(chunk).__name__}"
            )
        rows = getattr(meta, "rows", None)
        origin = getattr(meta, "origin", None)
        return cls(
            text=text,
            refs=frozenset(it.self_ref for it in items),
            rows=tuple(rows) if rows else None,
            binary_hash=getattr(origin, "binary_hash", None),
            filename=getattr(origin, "filename", None),
        )

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> CitedChunk:
        """From one line of ``docling-evidence chunk`` JSONL output, or a ``DocChunk.model_dump()`` object.

        Raises:
            ValueError: when the object has neither shape.
        """
        if not isinstance(record, dict):
            raise ValueError(f"expected a JSON object, got {type(record).__name__}")
        dump = record.get("chunk") if isinstance(record.get("chunk"), dict) else record
        meta = dump.get("meta")
        text = dump.get("text")
        if not isinstance(text, str) or not isinstance(meta, dict) or not isinstance(meta.get("doc_items"), list):
            raise ValueError("expected a chunk record with 'text' and 'meta.doc_items' (docling-evidence chunk output)")
        refs = frozenset(
            str(it.get("self_ref") or it.get("$ref") or "") if isinstance(it, dict) else str(it)
            for it in meta["doc_items"]
        ) - {""}
        rows = meta.get("rows")
        piece_rows = None
        if rows is not None:
            if not (
                isinstance(rows, (list, tuple))
                and len(rows) == 2
                and all(isinstance(r, int) and not isinstance(r, bool) and r >= 0 for r in rows)
            ):
                raise ValueError(f"'meta.rows' must be two non-negative integers [start, end], got {rows!r}"[:200])
            piece_rows = (rows[0], rows[1])
        binary_hash, filename = _record_origin(meta.get("origin"))
        return cls(text=text, refs=refs, rows=piece_rows, binary_hash=binary_hash, filename=filename)


def _record_origin(origin: Any) -> tuple[int | None, str | None]:
    """``(binary_hash, filename)`` of a chunk record's ``meta.origin`` (a ``DocumentOrigin`` dump, or null)."""
    if origin is None:
        return None, None
    if not isinstance(origin, dict):
        raise ValueError(f"'meta.origin' must be an object or null, got {type(origin).__name__}")
    binary_hash, filename = origin.get("binary_hash"), origin.get("filename")
    if binary_hash is not None and (isinstance(binary_hash, bool) or not isinstance(binary_hash, int)):
        raise ValueError(f"'meta.origin.binary_hash' must be an integer, got {binary_hash!r}"[:200])
    if filename is not None and not isinstance(filename, str):
        raise ValueError(f"'meta.origin.filename' must be a string, got {filename!r}"[:200])
    return binary_hash, filename or None


def read_chunks_jsonl(path: str | Path) -> list[CitedChunk]:
    """Read chunks from a JSONL file (``docling-evidence chunk -o chunks.jsonl`` output, one chunk per line).

    Raises:
        ValueError: naming the file and line of a malformed record; for a missing or unreadable file.
    """
    return [chunk for _, chunk in _read_chunk_lines(path)]


def _read_chunk_lines(path: str | Path) -> list[tuple[int, CitedChunk]]:
    """(line number, chunk) for every chunk record of a JSONL file (see :func:`read_chunks_jsonl`)."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise ValueError(f"{path}: file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: cannot read: {exc}") from None
    chunks: list[tuple[int, CitedChunk]] = []
    for no, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            chunks.append((no, CitedChunk.from_record(json.loads(line))))
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}:{no}: not JSON: {exc.msg}") from None
        except ValueError as exc:
            raise ValueError(f"{path}:{no}: {exc}") from None
    return chunks


def _shows(chunk: CitedChunk, source: Source, n_header: dict[str, int]) -> bool:
    """Whether ``chunk`` cites ``source``: its item is a member, and a table cell/row is visible in the chunk."""
    if source.ref not in chunk.refs:
        return False
    if source.kind not in ("table_cell", "table_row"):
        return True
    row = source.row or 0
    head = n_header.get(source.ref, 0)
    if chunk.rows is not None and row >= head and not (chunk.rows[0] <= row - head < chunk.rows[1]):
        return False
    probe = source.text if source.kind == "table_cell" else (source.row_label or source.text.split(" ")[0])
    return contains_answer(chunk.text, probe)


class ForeignChunkError(ValueError):
    """A cited chunk that is not from the document checked; ``index`` is its position in the given chunks."""

    def __init__(self, index: int, message: str) -> None:
        super().__init__(message)
        self.index = index


def _same_origin(chunk: CitedChunk, doc: DoclingDocument) -> bool | None:
    """Whether the chunk's ``meta.origin`` names ``doc``: the binary hash, else the file name, against the document's
    origin; without one, the file name's stem against the document's name (Docling names a converted document after
    its file). None when there is nothing to compare."""
    origin = doc.origin
    if origin is not None and chunk.binary_hash is not None:
        return chunk.binary_hash == origin.binary_hash
    if chunk.filename is None:
        return None
    if origin is not None:
        return chunk.filename == origin.filename
    return Path(chunk.filename).stem == doc.name


def _describe(doc: DoclingDocument) -> str:
    origin = doc.origin
    where = f"{origin.filename}, binary_hash {origin.binary_hash}" if origin is not None else "no origin"
    return f"{doc.name!r} ({where})"


def _foreign_reason(chunk: CitedChunk, sources: DocumentSources) -> str | None:
    """Why ``chunk`` is not a chunk of the document of ``sources``, or None."""
    same = _same_origin(chunk, sources.doc)
    if same is False:
        said = [chunk.filename or "no filename"]
        if chunk.binary_hash is not None:
            said.append(f"binary_hash {chunk.binary_hash}")
        return f"its meta.origin is {', '.join(said)}"
    unknown = sorted(chunk.refs - sources.refs)
    if unknown:
        return f"{len(unknown)} of its doc item ref(s) are not in the document (e.g. {unknown[0]})"
    if same is None and not sources.shows_its_items(chunk):
        return "it carries no origin and its text shows none of the document's items it lists"
    return None


def check_chunks_belong(sources: DocumentSources, chunks: Sequence[CitedChunk]) -> None:
    """Refuse chunks of another document, whose refs would otherwise cite whatever this document holds there.

    A chunk belongs when its ``meta.origin`` names the document (see :func:`_same_origin`) and its doc item refs
    exist in it; a chunk without an origin to compare must also show, in its text, one of the items it lists.

    Raises:
        ForeignChunkError: (a ``ValueError``) naming the first chunk that does not belong, and the document.
    """
    for k, chunk in enumerate(chunks):
        reason = _foreign_reason(chunk, sources)
        if reason is not None:
            raise ForeignChunkError(k, f"chunk {k} is not from document {_describe(sources.doc)}: {reason}")


# ---------------------------------------------------------------------------------------------------------------
# results


@dataclass(frozen=True)
class Evidence:
    """One source that supports a claim."""

    ref: str
    kind: SourceKind
    text: str
    page: int | None
    bbox: tuple[float, float, float, float] | None
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


# ---------------------------------------------------------------------------------------------------------------
# matching


def number_match(claim: Number, source: Number, source_scale: Decimal | None) -> MatchKind | None:
    """How ``source`` (in a source whose scale is ``source_scale``) supports the number ``claim``, or None.

    A negative claim needs a negative source; an unsigned claim also matches a negative source (``"unsigned"``: "a
    loss of 9,819" for a cell "(9,819)" — the sign is in the words).
    """
    if (claim.negative and not source.negative) or claim.label != source.label:
        return None
    scale = source.scale or source_scale
    same: MatchKind = "unsigned" if source.negative and not claim.negative else "exact"
    if claim.value == source.value:
        if claim.scale is None or scale is None or claim.scale == scale or claim.percent or source.percent:
            return same
        return None
    if claim.scale is None or scale is None or claim.scale == scale or claim.percent or source.percent:
        return None
    claimed = claim.value * claim.scale
    found = source.value * scale
    tolerance = claim.scale * Decimal(5) * Decimal(10) ** (-(claim.decimals + 1))
    if found != 0 and abs(claimed - found) <= tolerance:
        return "scaled"
    return None


_MATCH_RANK: dict[str, int] = {"exact": 0, "unsigned": 1, "scaled": 2, "ngram": 3}


def _evidence(source: Source, match: MatchKind, chunk: int | None) -> Evidence:
    return Evidence(
        ref=source.ref,
        kind=source.kind,
        text=source.text,
        page=source.page,
        bbox=source.bbox,
        box_source=source.box_source,
        match=match,
        chunk=chunk,
        row=source.row,
        col=source.col,
        row_label=source.row_label,
        column_label=source.column_label,
    )


def _number_evidence(number: Number, pool: Sequence[tuple[Source, int | None]]) -> list[Evidence]:
    out = []
    for source, chunk in pool:
        if source.kind == "table_row":
            continue
        best: MatchKind | None = None
        for candidate in source.numbers:
            kind = number_match(number, candidate, source.scale)
            if kind == "exact":
                best = kind
                break
            if kind is not None and (best is None or _MATCH_RANK[kind] < _MATCH_RANK[best]):
                best = kind
        if best is not None:
            out.append(_evidence(source, best, chunk))
    return out


def _quote_evidence(quote: str, pool: Sequence[tuple[Source, int | None]]) -> list[Evidence]:
    return [
        _evidence(source, "exact", chunk)
        for source, chunk in pool
        if source.kind != "table_cell" and contains_answer(source.norm, quote)
    ] or [_evidence(source, "exact", chunk) for source, chunk in pool if contains_answer(source.norm, quote)]


def sentence_ngrams(text: str) -> frozenset[tuple[str, ...]]:
    """The word n-grams a sentence claim is matched by: :data:`NGRAM_N`-grams of its :func:`content_words` (all of
    them as one n-gram when there are fewer)."""
    return _ngrams(normalize_text(text))


def _sentence_evidence(text: str, pool: Sequence[tuple[Source, int | None]]) -> tuple[float, list[Evidence]]:
    """Coverage of the sentence's n-grams by the pool, and the greedy smallest set of sources reaching it."""
    grams = sentence_ngrams(text)
    if not grams:
        return 0.0, []
    if len(next(iter(grams))) == NGRAM_N:
        found = [(source, chunk, grams & source.ngrams) for source, chunk in pool if source.kind != "table_cell"]
    else:  # a sentence with fewer content words: one short n-gram, looked for as a run of words
        phrase = " " + " ".join(next(iter(grams))) + " "
        found = [
            (source, chunk, grams if phrase in source.words else frozenset())
            for source, chunk in pool
            if source.kind != "table_cell"
        ]
    candidates = found
    candidates = [c for c in candidates if c[2]]
    covered: set[tuple[str, ...]] = set()
    chosen: list[Evidence] = []
    reachable: set[tuple[str, ...]] = set().union(*(c[2] for c in candidates)) if candidates else set()
    while candidates and len(chosen) < MAX_SENTENCE_EVIDENCE and len(covered) < len(reachable):
        source, chunk, gained = max(candidates, key=lambda c: len(c[2] - covered))  # first best: chunk order
        covered |= gained
        chosen.append(_evidence(source, "ngram", chunk))
    return len(reachable) / len(grams), chosen


def _dedupe(evidence: Iterable[Evidence]) -> tuple[Evidence, ...]:
    seen: set[tuple[Any, ...]] = set()
    out = []
    for e in evidence:
        key = (e.ref, e.kind, e.row, e.col, e.text)
        if key not in seen:
            seen.add(key)
            out.append(e)
    return tuple(out)


def _pool(sources: DocumentSources, chunks: Sequence[CitedChunk] | None) -> list[tuple[Source, int | None]]:
    """(source, first chunk citing it) for every source the check may use, in chunk order then reading order."""
    if chunks is None:
        return [(s, None) for s in sources.sources]
    first: dict[int, int] = {}
    for k, chunk in enumerate(chunks):
        for i, source in enumerate(sources.sources):
            if i not in first and _shows(chunk, source, sources.n_header):
                first[i] = k
    ordered = sorted(first, key=lambda i: (first[i], i))
    return [(sources.sources[i], first[i]) for i in ordered]


def _check(
    spans: Sequence[ClaimSpan], pool: Sequence[tuple[Source, int | None]]
) -> list[tuple[bool, tuple[Evidence, ...]]]:
    results: list[tuple[bool, tuple[Evidence, ...]]] = []
    for span in spans:
        if span.kind == "number":
            assert span.number is not None
            found = _dedupe(_number_evidence(span.number, pool))
            results.append((bool(found), found))
        elif span.kind == "quote":
            found = _dedupe(_quote_evidence(span.text, pool))
            results.append((bool(found), found))
        else:
            coverage, chosen = _sentence_evidence(span.text, pool)
            results.append((coverage >= MIN_NGRAM_COVERAGE, _dedupe(chosen)))
    # a sentence holds only if the numbers and quotes inside it hold too
    for i, span in enumerate(spans):
        if span.kind != "sentence" or not results[i][0]:
            continue
        inner = [
            results[j][0]
            for j, other in enumerate(spans)
            if other.kind != "sentence" and span.start <= other.start and other.end <= span.end
        ]
        if not all(inner):
            results[i] = (False, results[i][1])
    return results


def check_answer(
    answer: str,
    doc: DoclingDocument | DocumentSources,
    chunks: Sequence[Any] | None = None,
) -> CitationReport:
    """Split ``answer`` into claims and find, for each, the sources that support it (see the module docstring).

    Args:
        answer: the answer text (e.g. an LLM's answer built from retrieved chunks).
        doc: the document (or a prebuilt :class:`DocumentSources` of it, to check many answers cheaply).
        chunks: the chunks the answer cites (``DocChunk`` / ``EvidenceChunk`` objects or :class:`CitedChunk`), in
            rank order, or the ``PackedEvidence`` the answer was written from (``EvidenceChunker.pack``: each block
            counts as a chunk showing what it delivered); None checks against the whole document. An empty list
            supports nothing.

    Raises:
        TypeError: for an answer that is not a string, a document that is not a ``DoclingDocument``, or chunks that
            are not chunks.
        ForeignChunkError: (a ``ValueError``) for a chunk of another document (see :func:`check_chunks_belong`).
    """
    spans = extract_claims(answer)
    sources = doc if isinstance(doc, DocumentSources) else DocumentSources(doc)
    if callable(getattr(chunks, "cited_chunks", None)):  # a PackedEvidence: each block cites what it delivered
        chunks = chunks.cited_chunks()  # type: ignore[union-attr]
    if chunks is not None and (isinstance(chunks, (str, bytes)) or not isinstance(chunks, Sequence)):
        raise TypeError(f"chunks must be a sequence of chunks or None, got {type(chunks).__name__}")
    cited = [CitedChunk.from_chunk(c) for c in chunks] if chunks is not None else None
    if cited is not None:
        check_chunks_belong(sources, cited)
    results = _check(spans, _pool(sources, cited))
    elsewhere: list[tuple[Evidence, ...]] = [()] * len(spans)
    if cited is not None and not all(ok for ok, _ in results):
        whole = _check(spans, _pool(sources, None))
        elsewhere = [w[1] if not r[0] and w[0] else () for r, w in zip(results, whole, strict=True)]
    claims = tuple(
        Claim(s.text, s.kind, s.start, s.end, ok, found, other)
        for s, (ok, found), other in zip(spans, results, elsewhere, strict=True)
    )
    return CitationReport(
        answer=answer,
        claims=claims,
        document=sources.doc.name,
        chunks_given=cited is not None,
        has_layout=sources.has_layout,
    )


def check_file(document: str | Path, answer: str, chunks_path: str | Path | None = None) -> CitationReport:
    """Load or convert ``document`` (DoclingDocument JSON, or any format ``docling_evidence.document.convert``
    handles), read
    the cited chunks from ``chunks_path`` (JSONL, see :func:`read_chunks_jsonl`) if given, and check ``answer``.

    Raises:
        ValueError: a one-line message naming the file at fault (``convert.InputError`` for the document), also when
            a chunk is not from this document (naming the chunks file and line).
    """
    from docling_evidence.document.convert import convert_path

    doc = convert_path(document)
    lines = _read_chunk_lines(chunks_path) if chunks_path is not None else None
    chunks = [chunk for _, chunk in lines] if lines is not None else None
    try:
        return check_answer(answer, doc, chunks)
    except ForeignChunkError as exc:
        assert lines is not None
        raise ValueError(
            f"{chunks_path}:{lines[exc.index][0]}: {exc}; chunk {document} alone "
            "(docling-evidence chunk DOC -o chunks.jsonl) and pass those chunks"
        ) from None


# ---------------------------------------------------------------------------------------------------------------
# text output


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
