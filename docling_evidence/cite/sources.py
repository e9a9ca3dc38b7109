"""What a document can support: its table cells and rows, captions, footnotes, headings and paragraphs, each with
its page and box.

Every table cell (with its grid row and column, read with :mod:`docling_evidence.tables.rows`), every text item
(caption, footnote, heading, paragraph or list item) and, for sentence matching, every table row is a
:class:`Source`. :class:`DocumentSources` builds them once per document.

**Boxes.** ``page`` and ``bbox`` (``[left, top, right, bottom]`` in page points, top-left origin, via
:func:`docling_evidence.document.layout.top_left_box`) come from Docling's provenance: a cell's own box when Docling
has one, else the table's box (``box_source`` says which). Without layout (HTML, DOCX, Markdown) both are ``None``; a
box is never invented.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Literal

from docling_evidence.cite.claims import (
    NGRAM_N,
    SCALE_WORDS,
    Number,
    content_words,
    read_numbers,
    word_ngrams,
)
from docling_evidence.document.layout import TopLeftBox, item_top_left_boxes, page_heights, top_left_box
from docling_evidence.text.normalize import contains_answer, normalize_text

if TYPE_CHECKING:
    from docling_core.types.doc import DocItem, DoclingDocument, TableItem

    from docling_evidence.cite.chunks import CitedChunk

SourceKind = Literal["table_cell", "table_row", "caption", "footnote", "heading", "paragraph"]

_TABLE_SCALE = re.compile(
    r"\bin (thousands|millions|billions)\b|\b(thousands|millions|billions) of\b|'000s?\b|\(000s?\)|\b000s\b"
)
"""A table's scale marker ("in thousands", "$'000"): its numbers are in that unit."""


@dataclass(frozen=True)
class Source:
    """One citable piece of the document: a table cell or row, or a text item."""

    ref: str
    """The doc item's ``self_ref`` (a cell's table, e.g. ``#/tables/0``)."""
    kind: SourceKind
    text: str
    page: int | None
    bbox: TopLeftBox | None
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


def _table_scale(texts: Iterable[str]) -> Decimal | None:
    """The one scale named in the table's caption, header cells and footnotes; None when none or several."""
    found: set[Decimal] = set()
    for text in texts:
        for m in _TABLE_SCALE.finditer(normalize_text(text)):
            word = m.group(1) or m.group(2)
            found.add(SCALE_WORDS[word] if word else Decimal(1000))
    return found.pop() if len(found) == 1 else None


def _make(ref: str, kind: SourceKind, text: str, **kw: Any) -> Source:
    norm = normalize_text(text)
    words = " " + " ".join(content_words(norm)) + " "
    return Source(
        ref=ref,
        kind=kind,
        text=text,
        norm=norm,
        numbers=read_numbers(norm),
        ngrams=word_ngrams(norm),
        words=words,
        **kw,
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
    cell: Any, table_boxes: list[tuple[int, TopLeftBox | None]], heights: dict[int, float]
) -> tuple[int | None, TopLeftBox | None, Literal["cell", "table"] | None]:
    """Page and box of a cell: its own box on the table page that contains it, else the table's (first) box."""
    if cell.bbox is not None and table_boxes:
        for page, tbox in table_boxes:
            box = top_left_box(cell.bbox, page, heights)
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
    boxes = item_top_left_boxes(table, heights)
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
        heights = page_heights(doc)
        sources: list[Source] = []
        self.n_header: dict[str, int] = {}
        """Header rows of each table (by ref), to place a split table's body rows."""
        refs: set[str] = set()
        for order, (item, _level) in enumerate(doc.iterate_items(with_groups=False)):
            refs.add(item.self_ref)
            if isinstance(item, TableItem):
                sources.extend(_table_sources(item, doc, heights, order, self.n_header))
            elif isinstance(item, TextItem) and item.text.strip():
                boxes = item_top_left_boxes(item, heights)
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
        grams = word_ngrams(norm)
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
