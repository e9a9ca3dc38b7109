"""Evidence units: one table with its caption, all its footnotes and the paragraphs that explain it."""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from docling_core.transforms.serializer.base import BaseDocSerializer
from docling_core.types.doc import DocItemLabel, DoclingDocument, TableItem, TextItem

from docling_evidence.assemble.params import UnitParams
from docling_evidence.context.choose import build_context_index, choose_context, paginated, table_terms
from docling_evidence.context.params import ContextParams
from docling_evidence.document.index import DocIndex
from docling_evidence.document.layout import horizontal_overlap, nearest_gap
from docling_evidence.tables.params import DEFAULT_TABLE_PARAMS, TableParams
from docling_evidence.tables.rows import RowReader, TableRows
from docling_evidence.units.captions import (
    CaptionMatch,
    OrderRules,
    PageRules,
    build_caption_index,
    find_caption,
    table_label,
)
from docling_evidence.units.continuation import ContinuationRules, find_runs, join_rows
from docling_evidence.units.deixis import PointingRules
from docling_evidence.units.titles import TitleRules, table_title, title_label

_log = logging.getLogger(__name__)

_FOOTNOTE_START = re.compile(
    r"^\s*(?:[*†‡§¶※#]|\(\s*[0-9a-z]{1,2}\s*\)|[0-9a-z]\)\s|\[[0-9a-z]{1,2}\]|[¹²³⁴⁵⁶⁷⁸⁹⁰]"
    r"|notes?\b\s*[:.]?|sources?\s*[:.]|\(?\s*(?:amounts?|figures?|dollars?|values?|all\s+\w+)?\s*in\s+"
    r"(?:thousands|millions|billions|usd|eur|\$))",
    re.IGNORECASE,
)
"""Unlinked footnote texts start like this: a marker (*, †, (1), a), [2], ¹), "Note:", "Source:", "in millions"."""


@dataclass(frozen=True)
class EvidenceUnit:
    """One table and the items that travel with it.

    Attributes:
        table: the table.
        position: the table's reading-order position.
        rows: its cell texts (without a header row used as the caption).
        caption: the caption found, or None.
        footnotes: footnote texts (Docling-linked first, then unlinked ones found below the table).
        context_before: explaining paragraphs before the table, in reading order.
        context_after: explaining paragraphs after it.
        context_rank: priority of each paragraph of ``context_before + context_after`` (0 = most important).
        context_spans: for each paragraph of ``context_before + context_after``, the half-open character spans of its
            ``text`` that the unit uses, in order (empty: the whole paragraph).
        unit_id: stable id (document identity + table ref).
        continuations: the parts of a table continued on the following pages (``docling_evidence.units.continuation``),
            after ``table``, in reading order; their rows follow the first part's in ``rows``.
        row_starts: per part (``tables``), the index of its first row in ``rows.body``.
    """

    table: TableItem
    position: int
    rows: TableRows
    caption: CaptionMatch | None
    footnotes: tuple[TextItem, ...]
    context_before: tuple[TextItem, ...]
    context_after: tuple[TextItem, ...]
    unit_id: str
    context_rank: tuple[int, ...] = ()
    continuations: tuple[TableItem, ...] = ()
    row_starts: tuple[int, ...] = (0,)
    context_spans: tuple[tuple[tuple[int, int], ...], ...] = ()
    footnote_runs: tuple[int, ...] = ()
    """How many of ``footnotes`` make each note, in order (empty: one each): a marker alone and its note's runs
    are one note."""

    def notes(self) -> list[tuple[TextItem, str]]:
        """Each footnote as the unit shows it: its first item and its text (its items' texts joined by spaces);
        notes with no text are left out."""
        runs = self.footnote_runs or (1,) * len(self.footnotes)
        out, start = [], 0
        for n in runs:
            items = self.footnotes[start : start + n]
            start += n
            text = " ".join(t for t in (f.text.strip() for f in items) if t)
            if text:
                out.append((items[0], text))
        return out

    def spans_of(self, k: int) -> tuple[tuple[int, int], ...]:
        """Character spans used of the k-th paragraph of ``context_before + context_after`` (whole text if unset)."""
        item = (*self.context_before, *self.context_after)[k]
        spans = self.context_spans[k] if k < len(self.context_spans) else ()
        return spans or ((0, len(item.text)),)

    @property
    def tables(self) -> tuple[TableItem, ...]:
        """Every part of the table: ``table`` and its continuations, in reading order."""
        return (self.table, *self.continuations)

    def tables_for_rows(self, start: int, end: int) -> tuple[TableItem, ...]:
        """The parts that hold body rows ``start:end`` (for an empty range: the part where ``start`` falls). A part
        left with no rows (only a repeated header) goes with the pieces that meet at its place, so that every part is
        in some piece's ``doc_items``."""
        bounds = [*self.row_starts[1:], len(self.rows.body)]
        parts = self.tables
        held = tuple(
            t
            for t, lo, hi in zip(parts, self.row_starts, bounds, strict=True)
            if (lo < end and start < hi) or (lo == hi and start <= lo <= end)
        )
        if held:
            return held
        for t, lo, hi in zip(parts, self.row_starts, bounds, strict=True):
            if lo <= start < hi:
                return (t,)
        return (parts[-1],) if start > 0 else (parts[0],)

    def owned_refs(self) -> set[str]:
        """Refs that belong to this unit only (table, caption, footnotes). Context is not listed: whether it also
        stays in the text chunks is the chunker's ``context_in_text``."""
        caption_items = self.caption.items if self.caption and not self.caption.partial else ()
        return {
            *(t.self_ref for t in self.tables),
            *(c.self_ref for c in caption_items),
            *(f.self_ref for f in self.footnotes),
        }


def document_key(doc: DoclingDocument) -> str:
    """A stable identity for a document: its source (Docling's ``origin``, else its name) plus a digest of every
    text and table cell, in document order.

    Neither the name nor the origin alone is an identity: Docling names many documents ``input``, and the
    conversions of one PDF in page ranges share its ``origin`` while holding different tables, so ids made from
    them alone would merge units of different documents.
    """
    source = f"{doc.origin.binary_hash}:{doc.origin.filename}" if doc.origin is not None else doc.name
    digest = hashlib.sha1(doc.name.encode("utf-8"))
    for text in doc.texts:
        digest.update(b"\x00t" + text.text.encode("utf-8"))
    for table in doc.tables:
        digest.update(b"\x00T")
        for cell in table.data.table_cells:
            where = f"\x00{cell.start_row_offset_idx},{cell.start_col_offset_idx}:"
            digest.update(where.encode("ascii") + cell.text.encode("utf-8"))
    return f"{source}:{digest.hexdigest()[:16]}"


def stable_id(*parts: str) -> str:
    """A short stable hash of ``parts``."""
    return hashlib.sha1("\x00".join(parts).encode("utf-8")).hexdigest()[:16]


def is_unit_table(table: TableItem, rows: TableRows) -> bool:
    """Tables with at least one non-empty cell become units; empty ones (0x0 fragments) are left to the text path."""
    return any(cell for row in (*rows.header, *rows.body) for cell in row)


def unit_tables(
    doc: DoclingDocument,
    index: DocIndex,
    cell_serializer: BaseDocSerializer | None = None,
    params: TableParams = DEFAULT_TABLE_PARAMS,
) -> list[tuple[int, TableRows]]:
    """``(reading position, rows)`` of every table of the body that becomes a unit (``is_unit_table``), in order,
    read by ``params``. Rich cells are written by ``cell_serializer`` (the chunker's, as HybridChunker writes them),
    else by :func:`~docling_evidence.tables.rows.rich_cell_serializer`."""
    read = RowReader(doc, cell_serializer, params)
    return [
        (pos, rows)
        for pos, item in enumerate(index.items)
        if isinstance(item, TableItem) and is_unit_table(item, rows := read(item))
    ]


def _linked_texts(doc: DoclingDocument, table: TableItem, kind: str) -> list[TextItem]:
    found: list[TextItem] = []
    for ref in getattr(table, kind):
        try:
            item = ref.resolve(doc)
        except Exception:
            _log.warning("%s of %s points to %s, which does not exist: ignored", kind, table.self_ref, ref.cref)
            continue
        if isinstance(item, TextItem):
            found.append(item)
        else:
            _log.warning("%s of %s points to %s, which is not a text item: ignored", kind, table.self_ref, ref.cref)
    return found


_MARKER_ALONE = re.compile(r"^\s*(?:[a-z]|[*†‡§¶#]{1,3}|\(\s*[0-9a-z]{1,2}\s*\)|\[[0-9a-z]{1,2}\])\s*$")
"""A text that is a footnote marker and nothing else ("a", "*", "†", "(b)", "[2]"): publisher HTML writes a table's
note as its marker and then the note. Digits alone are left out (a stray page number reads the same)."""


def _unlinked_footnotes(index: DocIndex, t_idx: int, taken: set[str], parts: UnitParams) -> list[tuple[TextItem, ...]]:
    """The texts right below the table at ``t_idx`` that read as its footnotes (:data:`_FOOTNOTE_START`, or
    Docling's footnote label), at most ``parts.footnote_max_items`` notes, each near the one above. A marker alone
    (:data:`_MARKER_ALONE`; letters in order from "a") and the paragraph after it are one note (the paragraph's every
    run, when it is an inline group)."""
    found: list[tuple[TextItem, ...]] = []
    table = index.items[t_idx]
    prev_boxes = index.boxes[table.self_ref]
    idx, notes, letters = t_idx + 1, 0, 0
    while idx < len(index.items) and notes < parts.footnote_max_items:
        note = _note_at(index, idx, taken)
        if not note:
            break
        item = index.items[note[0]]
        assert isinstance(item, TextItem)
        marked = len(note) > 1
        if marked and len(item.text.strip()) == 1 and item.text.strip().isalpha():
            # letter markers run a, b, c from the table down: a stray letter is no note
            marked = item.text.strip() == chr(ord("a") + letters)
            letters += marked
        if not (item.label == DocItemLabel.FOOTNOTE or _FOOTNOTE_START.match(item.text) or marked):
            break
        if index.has_layout and prev_boxes:
            boxes = [b for m in note for b in index.boxes[index.items[m].self_ref]]
            near = nearest_gap(boxes, prev_boxes)
            if near is None or near[0] > parts.footnote_max_gap_pt or horizontal_overlap(near[1], near[2]) <= 0:
                break
            if index.heads_next_table(note[-1], t_idx, near[0]):
                break  # nearer the next table ("(In thousands of EUR)" above it): that table's line
            prev_boxes = boxes
        found.append(tuple(index.items[m] for m in note))  # type: ignore[misc]
        idx, notes = note[-1] + 1, notes + 1
    return found


def _note_at(index: DocIndex, idx: int, taken: set[str]) -> tuple[int, ...]:
    """The reading positions of the note that may start at ``idx``: the text there, or a marker alone and the whole
    paragraph after it; empty when no note can start there (not text, a heading, another item's satellite)."""

    def free(pos: int) -> bool:
        return index.is_free_text(pos, taken) and not index.is_heading(pos)

    if not free(idx):
        return ()
    body = idx + 1
    marker = index.items[idx].text.strip()  # type: ignore[attr-defined]
    if body < len(index.items) and _MARKER_ALONE.match(marker) and index.inline_of.get(idx, idx) == idx:
        members = index.members(body)
        if index.inline_of.get(body, body) == body and all(free(m) for m in members):
            return (idx, *members)
    return (idx,)


@dataclass(frozen=True)
class ContextBudget:
    """The tokens of context a unit may take (:func:`build_units`).

    Attributes:
        flow: the budget of a table not placed on a page (documents without layout).
        page: the budget of a table placed on a page (:func:`docling_evidence.context.choose.paginated`), and of the
            sentences naming a table anywhere; None: ``flow`` (the splitter keeps a table that fits one piece whole
            and gives what does not fit beside it pieces of its own).
        room: the room beside a unit that fits one piece (None when it does not fit): a table not placed on a page
            gets at most that much, except for sentences naming it. None: no such bound.
    """

    flow: int
    page: int | None = None
    room: Callable[[EvidenceUnit], int | None] | None = None


@dataclass(frozen=True)
class UnitRequest:
    """What :func:`build_units` attaches to each table, and how it measures and filters context.

    Attributes:
        count_text: the token count of a text.
        budget: the context budgets.
        parts: what a unit attaches, and the footnote rules.
        context: the rules of context choice.
        merge_continued_tables: a table continued on the next pages is one unit (its first part's position).
        bbox_threshold: on paginated documents, the largest vertical distance in points between a table's edge and
            a context paragraph.
        keep_context: a gate over a table's context candidates (reading positions): which of them may be kept
            (the similarity gate). None keeps every candidate.
        cell_serializer: writes rich cells (:func:`unit_tables`).
        tables: how the tables' header rows are found (:func:`unit_tables`).
        doc_key: the document's :func:`document_key` when the caller already has it (computed here otherwise).
    """

    count_text: Callable[[str], int]
    budget: ContextBudget
    parts: UnitParams = field(default_factory=UnitParams)
    context: ContextParams = field(default_factory=ContextParams)
    merge_continued_tables: bool = True
    bbox_threshold: float = 300.0
    keep_context: Callable[[TableItem, list[int]], list[bool]] | None = None
    cell_serializer: BaseDocSerializer | None = None
    tables: TableParams = DEFAULT_TABLE_PARAMS
    doc_key: str | None = None


def build_units(doc: DoclingDocument, index: DocIndex, request: UnitRequest) -> list[EvidenceUnit]:
    """Build one unit per table of the body with any cell text, in reading order; with
    ``request.merge_continued_tables``, a table continued on the next pages is one unit (its first part's position).

    Captions and footnotes are found first for every table (so no table takes another one's caption as context),
    then each table's context, within ``request.budget`` (:class:`ContextBudget`).
    """
    taken: set[str] = set()
    rules = UnitRules.of(request.parts)
    units = _units_without_context(doc, index, request, rules, taken)
    if not request.parts.with_context:
        return units
    return _with_context(units, index, request, rules, taken)


@dataclass(frozen=True)
class UnitRules:
    """``UnitParams``' bounds as the rule objects of ``units/`` (which may not import the params): the one place
    that maps the one to the other. Each default is its rule object's own default."""

    order: OrderRules = field(default_factory=OrderRules)
    page: PageRules = field(default_factory=PageRules)
    continuation: ContinuationRules = field(default_factory=ContinuationRules)
    title: TitleRules = field(default_factory=TitleRules)
    pointing: PointingRules = field(default_factory=PointingRules)

    @classmethod
    def of(cls, parts: UnitParams) -> UnitRules:
        """The rules ``parts`` set; a continuation's own caption is found by the same caption rules as a unit's."""
        order = OrderRules(parts.caption_max_steps, parts.caption_run_max_items, parts.caption_run_max_words)
        page = PageRules(parts.caption_max_gap_pt, parts.caption_page_edge_items)
        continuation = ContinuationRules(
            edge_fraction=parts.continuation_edge_fraction,
            edge_tolerance_pt=parts.continuation_edge_tolerance_pt,
            stray_cell_max_words=parts.continuation_stray_cell_max_words,
            stray_cell_max_chars=parts.continuation_stray_cell_max_chars,
            stray_cell_tolerance_pt=parts.continuation_stray_cell_tolerance_pt,
            caption_order=order,
            caption_page=page,
        )
        return cls(
            order=order,
            page=page,
            continuation=continuation,
            title=TitleRules(parts.title_max_words, parts.subtitle_max_words, parts.title_reach),
            pointing=PointingRules(parts.pointing_reach),
        )


def _units_without_context(
    doc: DoclingDocument, index: DocIndex, request: UnitRequest, rules: UnitRules, taken: set[str]
) -> list[EvidenceUnit]:
    """Every unit with its caption and footnotes; what they take joins ``taken``."""
    key = request.doc_key or document_key(doc)
    parts = request.parts
    caption_owner: dict[str, str] = {}
    units: list[EvidenceUnit] = []
    tables = unit_tables(doc, index, request.cell_serializer, request.tables)
    rows_at = dict(tables)
    runs = find_runs(doc, index, tables, rules.continuation)[0] if request.merge_continued_tables else []
    run_of = {run.positions[0]: run for run in runs}
    continued = {pos for run in runs for pos in run.positions[1:]}
    cap_index = build_caption_index(index) if parts.with_caption and index.has_layout else None
    for pos, rows in tables:
        if pos in continued:
            continue
        item = index.items[pos]
        assert isinstance(item, TableItem)
        run = run_of.get(pos)
        caption = None
        if parts.with_caption:
            linked = _linked_texts(doc, item, "captions")
            caption = find_caption(index, item, rows, taken, linked, cap_index, rules.order, rules.page)
            if caption is not None:
                _take_caption(caption, item, caption_owner, taken)
                if caption.drop_header_row:
                    rows = dataclasses.replace(rows, header=rows.header[1:])
        row_starts: tuple[int, ...] = (0,)
        if run:
            rows, row_starts = join_rows([rows, *(rows_at[p] for p in run.positions[1:])], run.drop_rows)
        notes: list[tuple[TextItem, ...]] = []
        if parts.with_footnotes:
            for part_pos in run.positions if run else (pos,):
                part = index.items[part_pos]
                assert isinstance(part, TableItem)
                for note in [(f,) for f in _linked_texts(doc, part, "footnotes")] + _unlinked_footnotes(
                    index, part_pos, taken, parts
                ):
                    if not any(f in known for known in notes for f in note):
                        notes.append(note)
                taken.update(f.self_ref for note in notes for f in note)
        footnotes = [f for note in notes for f in note]
        units.append(
            EvidenceUnit(
                table=item,
                position=pos,
                rows=rows,
                caption=caption,
                footnotes=tuple(footnotes),
                footnote_runs=tuple(len(note) for note in notes),
                context_before=(),
                context_after=(),
                unit_id=stable_id(key, item.self_ref),
                continuations=tuple(index.items[p] for p in run.positions[1:]) if run else (),  # type: ignore[misc]
                row_starts=row_starts,
            )
        )
    return units


def _take_caption(caption: CaptionMatch, table: TableItem, caption_owner: dict[str, str], taken: set[str]) -> None:
    """Mark the items of ``table``'s caption as taken (a Docling-linked caption shared by two tables is kept with
    both, with a warning)."""
    for cap in caption.items:
        if cap.self_ref in caption_owner and caption.source == "docling_ref":
            _log.warning(
                "caption %s is shared by %s and %s: kept with both",
                cap.self_ref,
                caption_owner[cap.self_ref],
                table.self_ref,
            )
        caption_owner.setdefault(cap.self_ref, table.self_ref)
        taken.add(cap.self_ref)


def _with_context(
    units: list[EvidenceUnit], index: DocIndex, request: UnitRequest, rules: UnitRules, taken: set[str]
) -> list[EvidenceUnit]:
    """``units`` with their context chosen (:func:`docling_evidence.context.choose.choose_context`); nothing in
    ``taken`` (captions, footnotes) is context."""
    labels = {u.position: table_label(u.caption.text) if u.caption else None for u in units}
    # a table without a "Table 3" label may be titled by the heading right above it ("SCHEDULE")
    titles = {pos: table_title(index, pos, rules.title) for pos, label in labels.items() if label is None}
    labels.update({pos: title_label(title) for pos, title in titles.items() if title})
    ctx = build_context_index(
        index,
        labels,
        [t for t in titles.values() if t],
        {u.position: u.rows for u in units},
        params=request.context,
        title_rules=rules.title,
        pointing_rules=rules.pointing,
    )
    budget = request.budget
    keep_context = request.keep_context
    with_context_units = []
    for unit in units:
        if unit.table.label == DocItemLabel.DOCUMENT_INDEX:
            with_context_units.append(unit)  # a table of contents: no paragraph explains it
            continue
        text_end: dict[int, int] = {}
        if unit.caption is not None and unit.caption.partial:
            for cap in unit.caption.items:
                start = cap.text.rfind(unit.caption.text)
                if start > 0:
                    text_end[index.order[cap.self_ref]] = start
        on_page = paginated(index, unit.position)
        choice = choose_context(
            ctx,
            unit.position,
            terms=table_terms(unit.rows, unit.caption.text if unit.caption else "", labels[unit.position]),
            excluded=taken,
            bbox_threshold=request.bbox_threshold,
            budget=budget.page if on_page and budget.page is not None else budget.flow,
            room=budget.room(unit) if budget.room and not on_page else None,
            naming_budget=budget.page,
            count_text=request.count_text,
            text_end=text_end,
            keep=(lambda idxs, table=unit.table: keep_context(table, idxs)) if keep_context else None,
            params=request.context,
        )
        with_context_units.append(
            dataclasses.replace(
                unit,
                context_before=tuple(index.items[i] for i in choice.before),  # type: ignore[misc]
                context_after=tuple(index.items[i] for i in choice.after),  # type: ignore[misc]
                context_rank=choice.rank,
                context_spans=choice.spans,
            )
        )
    return with_context_units
