"""Tables continued on the next page: decide when consecutive ``TableItem`` parts are one table.

Docling emits a table that runs over a page break as one ``TableItem`` per page. Two parts are joined only when
every rule below holds; a false merge is worse than a missed one, so any doubt keeps them apart. Rules, checked in
this order (the first that fails names the verdict's ``reason``):

1. ``not paginated``: both parts carry page provenance with finite boxes, and the document is not a spreadsheet or
   slide deck (Docling gives each sheet or slide a "page" of its own; those are separate tables).
2. ``not adjacent``: the next part follows the first in reading order with nothing between them but furniture
   (page headers and footers), the first part's own Docling-linked captions and footnotes, and stray cells (a short
   plain text lying inside either part's box: a cell Docling left out of the grid).
3. ``not next page``: the next part starts on the page right after the one the first part ends on.
4. ``not at page end``: the first part (with its linked captions, footnotes and stray cells) is the last body
   item of its page in reading order, and it ends near the page bottom (within ``ContinuationRules.edge_fraction``
   of the page height) or nothing of the body lies below it on that page.
5. ``not at page start``: the next part (with its stray cells) is the first body item of its page and starts near
   the page top (or nothing of the body lies above it).
6. ``column count``: both parts have the same number of columns.
7. ``own header``: when the next part starts with the first part's header row(s) (flagged as column headers or
   not, compared with whitespace and case ignored), those rows are a repeated header and are dropped from the
   continuation; a header of its own that differs means another table.
8. ``own caption``: the next part has no caption of its own: none linked by Docling, no caption-like "Table N"
   text next to it, no caption-like header row (:func:`docling_evidence.units.captions.find_caption`; a caption on the
   adjacent page is the first part's, so it does not count).

A run of parts (page 7 -> 8 -> ... -> 13) is built from consecutive pairs that each pass; every continuation is
compared with the run's first part.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from docling_core.types.doc import DocItemLabel, DoclingDocument, TableItem, TextItem

from docling_evidence.document.index import DocIndex
from docling_evidence.document.layout import Box, page_height, top_left_box
from docling_evidence.tables.rows import TableRows
from docling_evidence.units.captions import (
    DEFAULT_ORDER_RULES,
    DEFAULT_PAGE_RULES,
    OrderRules,
    PageRules,
    find_caption,
)

FURNITURE_LABELS = frozenset({DocItemLabel.PAGE_HEADER, DocItemLabel.PAGE_FOOTER})
"""Labels of items that may stand between two parts of one table (when Docling left them in the body)."""


@dataclass(frozen=True)
class ContinuationRules:
    """When a table part continues the one before it (the chunker's are ``UnitParams``'s ``continuation_*`` fields
    and its caption rules).

    Attributes:
        edge_fraction: a part "ends near the page bottom" (starts near the top) when within this fraction of the
            page height of it.
        edge_tolerance_pt: boxes overlapping by up to this many points still count as "below" / "above" one another.
        stray_cell_max_words: a plain text of at most this many words ...
        stray_cell_max_chars: ... and characters, whose box lies inside a table part's box ...
        stray_cell_tolerance_pt: ... widened by this many points, is a cell Docling left out of the grid: part of
            the table, not something between two parts.
        caption_order: how a continuation's own caption is looked for without layout (rule 8).
        caption_page: how it is looked for on documents with pages.
    """

    edge_fraction: float = 0.15
    edge_tolerance_pt: float = 2.0
    stray_cell_max_words: int = 3
    stray_cell_max_chars: int = 24
    stray_cell_tolerance_pt: float = 10.0
    caption_order: OrderRules = DEFAULT_ORDER_RULES
    caption_page: PageRules = DEFAULT_PAGE_RULES


DEFAULT_CONTINUATION_RULES = ContinuationRules()
"""The measured defaults."""

_UNPAGED_MIMETYPES = ("spreadsheet", "presentation", "excel", "powerpoint", "csv")
"""Mimetype fragments of formats whose "pages" are sheets or slides, never page breaks inside one table."""

_OWN_CAPTION_SOURCES = frozenset({"docling_ref", "text_nearby", "header_row"})


@dataclass(frozen=True)
class Verdict:
    """Whether a table part continues the previous one.

    Attributes:
        merge: True when the part is a continuation.
        reason: ``"continued"`` when merged, else the first rule that failed (see the module docstring).
        drop_rows: how many leading rows of the continuation repeat the header (dropped when merged).
    """

    merge: bool
    reason: str
    drop_rows: int = 0


@dataclass(frozen=True)
class TableRun:
    """One table continued over pages: reading positions of its parts and the header rows each repeats.

    Attributes:
        positions: reading positions of the parts, first part first.
        drop_rows: per part, how many leading rows repeat the first part's header (0 for the first part).
    """

    positions: tuple[int, ...]
    drop_rows: tuple[int, ...]


def _norm(row: Sequence[str]) -> tuple[str, ...]:
    return tuple(" ".join(cell.split()).casefold() for cell in row)


def repeated_header_rows(first: TableRows, nxt: TableRows) -> int | None:
    """How many leading rows of ``nxt`` repeat the header of ``first`` (0: none), or None when ``nxt`` has a
    header of its own that differs (then it is another table).

    The first part's header is its flagged column-header rows; without any, its first row is taken as the header
    when ``nxt`` starts with the same row and that row holds words (not only numbers).
    """
    rows = (*nxt.header, *nxt.body)
    if first.header:
        k = len(first.header)
        drop = k if [_norm(r) for r in rows[:k]] == [_norm(r) for r in first.header] else 0
    elif first.body and rows and _norm(rows[0]) == _norm(first.body[0]) and _has_words(first.body[0]):
        drop = 1
    else:
        drop = 0
    if len(nxt.header) > drop:
        return None
    return drop


def _has_words(row: Sequence[str]) -> bool:
    return any(re.search(r"[^\W\d_]{2,}", cell) for cell in row)


def _paginated(doc: DoclingDocument) -> bool:
    mimetype = (doc.origin.mimetype if doc.origin is not None else "") or ""
    return not any(fragment in mimetype.lower() for fragment in _UNPAGED_MIMETYPES)


def _stray_cell(index: DocIndex, idx: int, table_boxes: Sequence[Box], rules: ContinuationRules) -> bool:
    """True for a short plain text lying inside the table's box: a cell Docling left out of the grid ("-",
    "D2111"), which it emits as a text of its own next to the table in reading order."""
    item = index.items[idx]
    if not isinstance(item, TextItem) or item.label != DocItemLabel.TEXT:
        return False
    if len(item.text) > rules.stray_cell_max_chars or len(item.text.split()) > rules.stray_cell_max_words:
        return False
    boxes = index.boxes[item.self_ref]
    pad = rules.stray_cell_tolerance_pt
    return bool(boxes) and all(
        any(
            b.page == t.page
            and b.left >= t.left - pad
            and b.right <= t.right + pad
            and b.top >= t.top - pad
            and b.bottom <= t.bottom + pad
            for t in table_boxes
        )
        for b in boxes
    )


def _block(index: DocIndex, pos: int, rules: ContinuationRules, satellites: bool = True) -> set[int]:
    """Reading positions of the table at ``pos``, of the stray cells inside its box and (``satellites``) of the
    captions and footnotes Docling linked to it: all part of the table, not something between two parts."""
    table = index.items[pos]
    assert isinstance(table, TableItem)
    refs = {ref.cref for ref in (*table.captions, *table.footnotes)} if satellites else set()
    block = {pos} | {index.order[r] for r in refs if r in index.order}
    table_boxes = index.boxes[table.self_ref]
    for page in {b.page for b in table_boxes}:
        block.update(i for i in index.pages_of_index.get(page, []) if _stray_cell(index, i, table_boxes, rules))
    return block


def _between(index: DocIndex, first: int, nxt: int, idx: int, rules: ContinuationRules) -> bool:
    """True when the item at ``idx`` (between the tables at ``first`` and ``nxt``) is body text that separates them:
    not furniture, not a caption/footnote Docling linked to ``first``, not a stray cell of either table.

    The same test as membership in ``_block(first) | _block(nxt, satellites=False)``, asked only of the items in
    between, so that checking every consecutive pair costs one pass over the reading order, however many tables
    share a page."""
    if index.items[idx].label in FURNITURE_LABELS:
        return False
    table = index.items[first]
    assert isinstance(table, TableItem)
    if index.items[idx].self_ref in {ref.cref for ref in (*table.captions, *table.footnotes)}:
        return False
    return not any(_stray_cell(index, idx, index.boxes[index.items[t].self_ref], rules) for t in (first, nxt))


def _edge_distance(doc: DoclingDocument, index: DocIndex, block: set[int], page: int, side: str) -> float | None:
    """Distance in points between the block's boxes on ``page`` and that page's bottom (``side="bottom"``) or top."""
    height = page_height(doc, page, positive_only=True)
    if height is None:
        return None
    heights = {page: height}
    found: list[float] = []
    for idx in block:
        for prov in index.items[idx].prov:
            if prov.page_no != page:
                continue
            box = top_left_box(prov.bbox, page, heights, rounded=False)  # exact: compared with a share of the page
            if box is None:  # a NaN or infinite coordinate has no distance to the edge
                continue
            _left, top, _right, bottom = box
            found.append(height - bottom if side == "bottom" else top)
    return min(found) if found else None


def _alone_on_edge(index: DocIndex, block: set[int], page: int, side: str, tolerance: float) -> bool:
    """True when no other body item of ``page`` lies below (``side="bottom"``) or above the block (boxes overlapping
    it by up to ``tolerance`` points do not count)."""
    mine = [b for idx in block for b in index.boxes[index.items[idx].self_ref] if b.page == page]
    if not mine:
        return False
    edge = max(b.bottom for b in mine) if side == "bottom" else min(b.top for b in mine)
    for idx in _body_on_page(index, page):
        if idx in block:
            continue
        for box in index.boxes[index.items[idx].self_ref]:
            if box.page != page:
                continue
            if side == "bottom" and box.bottom > edge + tolerance:
                return False
            if side == "top" and box.top < edge - tolerance:
                return False
    return True


def _body_on_page(index: DocIndex, page: int) -> list[int]:
    """Reading positions of the page's items, page headers and footers left out."""
    return [i for i in index.pages_of_index.get(page, []) if index.items[i].label not in FURNITURE_LABELS]


def _at_edge(doc: DoclingDocument, index: DocIndex, pos: int, page: int, side: str, rules: ContinuationRules) -> bool:
    """True when the table at ``pos`` (with its linked captions and footnotes) closes (``side="bottom"``) or opens
    ``page``: last (first) in reading order among the page's body items, and near that edge or alone on it."""
    block = _block(index, pos, rules)
    on_page = [i for i in _body_on_page(index, page) if i not in block or i == pos]
    if not on_page or on_page[-1 if side == "bottom" else 0] != pos:
        return False
    height = page_height(doc, page, positive_only=True)
    distance = _edge_distance(doc, index, block, page, side)
    if height is not None and distance is not None and distance <= rules.edge_fraction * height:
        return True
    return _alone_on_edge(index, block, page, side, rules.edge_tolerance_pt)


def has_own_caption(
    doc: DoclingDocument,
    index: DocIndex,
    pos: int,
    rows: TableRows,
    rules: ContinuationRules = DEFAULT_CONTINUATION_RULES,
) -> bool:
    """True when the table at ``pos`` has a caption of its own (rule 8 of the module docstring), found by
    ``rules.caption_order`` and ``rules.caption_page``."""
    table = index.items[pos]
    assert isinstance(table, TableItem)
    for ref in table.captions:
        try:
            item = ref.resolve(doc)
        except Exception:
            continue
        if isinstance(item, TextItem) and item.text.strip():
            return True
    found = find_caption(index, table, rows, set(), [], order=rules.caption_order, page=rules.caption_page)
    return found is not None and found.source in _OWN_CAPTION_SOURCES


def check_continuation(
    doc: DoclingDocument,
    index: DocIndex,
    first: int,
    first_rows: TableRows,
    nxt: int,
    next_rows: TableRows,
    rules: ContinuationRules = DEFAULT_CONTINUATION_RULES,
) -> Verdict:
    """Whether the table at reading position ``nxt`` continues the one at ``first`` (rules 1-8 above, with the
    bounds of ``rules``).

    ``first`` is the part just before in reading order (its rows may be those of a whole run's first part: the
    header compared is ``first_rows``'s).
    """
    a, b = index.items[first], index.items[nxt]
    if not (isinstance(a, TableItem) and isinstance(b, TableItem)):
        raise TypeError("check_continuation compares two tables")
    if not (index.boxes[a.self_ref] and index.boxes[b.self_ref] and _paginated(doc)):
        return Verdict(False, "not paginated")
    if nxt <= first or any(_between(index, first, nxt, i, rules) for i in range(first + 1, nxt)):
        return Verdict(False, "not adjacent")
    end_page = max(p.page_no for p in a.prov)
    start_page = min(p.page_no for p in b.prov)
    if start_page != end_page + 1:
        return Verdict(False, "not next page")
    if not _at_edge(doc, index, first, end_page, "bottom", rules):
        return Verdict(False, "not at page end")
    if not _at_edge(doc, index, nxt, start_page, "top", rules):
        return Verdict(False, "not at page start")
    if first_rows.num_cols != next_rows.num_cols:
        return Verdict(False, "column count")
    drop = repeated_header_rows(first_rows, next_rows)
    if drop is None:
        return Verdict(False, "own header")
    body = (*next_rows.header, *next_rows.body)[drop:]
    if has_own_caption(doc, index, nxt, TableRows(header=(), body=body, label_cols=next_rows.label_cols), rules):
        return Verdict(False, "own caption")
    return Verdict(True, "continued", drop)


def find_runs(
    doc: DoclingDocument,
    index: DocIndex,
    tables: Sequence[tuple[int, TableRows]],
    rules: ContinuationRules = DEFAULT_CONTINUATION_RULES,
) -> tuple[list[TableRun], list[tuple[int, int, Verdict]]]:
    """Group consecutive table parts into continued tables.

    Args:
        doc: the document.
        index: its reading-order index.
        tables: ``(reading position, rows)`` of the tables that become units, in reading order.
        rules: the bounds of the rules that decide when a part continues the one before.

    Returns:
        The runs of two or more parts, and the verdict on every consecutive pair ``(first, next, verdict)`` (what
        was merged and why the others were not).
    """
    runs: list[TableRun] = []
    verdicts: list[tuple[int, int, Verdict]] = []
    current: list[tuple[int, int]] = []
    head_rows: TableRows | None = None
    for k, (pos, rows) in enumerate(tables):
        if k > 0 and head_rows is not None:
            prev = tables[k - 1][0]
            verdict = check_continuation(doc, index, prev, head_rows, pos, rows, rules)
            verdicts.append((prev, pos, verdict))
            if verdict.merge:
                current.append((pos, verdict.drop_rows))
                continue
        if len(current) > 1:
            runs.append(TableRun(tuple(p for p, _ in current), tuple(d for _, d in current)))
        current = [(pos, 0)]
        head_rows = rows
    if len(current) > 1:
        runs.append(TableRun(tuple(p for p, _ in current), tuple(d for _, d in current)))
    return runs, verdicts


def join_rows(parts: Sequence[TableRows], drop_rows: Sequence[int]) -> tuple[TableRows, tuple[int, ...]]:
    """One table from its parts: the first part's header, every part's rows in order (repeated headers dropped).

    Returns:
        The joined rows and, per part, the index of its first body row in the joined body.
    """
    if not parts or len(parts) != len(drop_rows):
        raise ValueError("join_rows needs one drop count per part, and at least one part")
    first = parts[0]
    body: list[tuple[str, ...]] = list(first.body)
    starts = [0]
    for part, drop in zip(parts[1:], drop_rows[1:], strict=True):
        starts.append(len(body))
        body.extend((*part.header, *part.body)[drop:])
    return TableRows(header=first.header, body=tuple(body), label_cols=first.label_cols), tuple(starts)
