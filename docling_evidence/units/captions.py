"""Find a table's caption.

Rules, tried in this order (the first that finds something wins, and its name is recorded as ``caption_source``):

1. ``docling_ref``: the captions Docling linked to the table (``table.captions``).
2. ``text_nearby``: the nearest caption-like text next to the table: on the same page within
   ``PageRules.max_gap_pt`` above or below it and sharing its column (paginated documents), or within
   ``OrderRules.max_steps`` reading-order steps with no heading in between (documents without layout), with the
   short texts between it and the table below it as its rest (``OrderRules.run_max_items``, ``run_max_words``).
3. ``adjacent_page``: for a table that opens (closes) its page, the nearest caption-like text among the last (first)
   ``PageRules.edge_items`` items of the previous (next) page.
4. ``header_row``: a first header row that is one full-width cell reading like a caption.

Caption-like means a text starting with a table label ("Table 3", "TABLE III", "Tab. 2", "Table A.1", "Table S4",
"Table 2-1", "표 3", "[표 1]") followed by punctuation, a capitalised title, or little else — not a sentence such as
"Table 3 shows ...". A text Docling labelled ``caption`` that is nobody's caption qualifies too when it stands above
the table. A caption Docling merged into the end of a paragraph ("... as shown. Table 5: Results") qualifies with a
lower rank; then only that tail is the caption and the paragraph stays in the text chunks. Figure captions
("Figure 2", "Fig. 3", "그림 1") never qualify, and a text already linked to another item is never taken.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass

from docling_core.types.doc import DocItemLabel, PictureItem, TableItem, TextItem

from docling_evidence.document.index import DocIndex
from docling_evidence.document.layout import horizontal_overlap, nearest_gap
from docling_evidence.meta import CaptionSource
from docling_evidence.tables.rows import TableRows


@dataclass(frozen=True)
class OrderRules:
    """Where a caption is looked for without layout (the chunker's are ``UnitParams``'s ``caption_*`` fields).

    Attributes:
        max_steps: the largest reading-order distance between a table and its caption.
        run_max_items: how many texts between a caption and the table below it may continue the caption.
        run_max_words: the most words those texts hold together (the rest of a title, not a paragraph).
    """

    max_steps: int = 2
    run_max_items: int = 3
    run_max_words: int = 30


DEFAULT_ORDER_RULES = OrderRules()
"""The measured defaults."""


@dataclass(frozen=True)
class PageRules:
    """Where a caption is looked for on documents with pages (the chunker's are ``UnitParams``'s
    ``caption_max_gap_pt`` and ``caption_page_edge_items``).

    Attributes:
        max_gap_pt: the largest vertical gap in points between a table and a caption found by layout.
        edge_items: how many items at the end (start) of the adjacent page are searched for the caption of a table
            that opens (closes) its page; 0: none.
    """

    max_gap_pt: float = 100.0
    edge_items: int = 3


DEFAULT_PAGE_RULES = PageRules()
"""The measured defaults."""

_TABLE_LABEL = re.compile(
    r"^\s*[\[(]?\s*(?:table|tab\.|tbl\.|표)\s*"
    r"(?P<num>(?:[A-Z][.\-]?)?\d+(?:[.\-–]\d+)*[a-z]?|[IVXLC]+)\b\s*[\])]?",
    re.IGNORECASE,
)
_FIGURE_LABEL = re.compile(r"^\s*[\[(]?\s*(?:figure|fig\.|chart|graph|그림|도표)\s*\w", re.IGNORECASE)
_SENTENCE_VERBS = frozenset(
    {
        "shows",
        "show",
        "lists",
        "list",
        "presents",
        "present",
        "summarizes",
        "summarises",
        "summarize",
        "reports",
        "gives",
        "provides",
        "contains",
        "compares",
        "illustrates",
        "indicates",
        "displays",
        "depicts",
        "describes",
        "includes",
        "is",
        "are",
        "was",
        "were",
        "has",
        "have",
        "also",
        "below",
        "above",
        "and",
        "in",
        "of",
        "from",
        "to",
        "with",
        "for",
        "on",
        "at",
        "as",
    }
)


@dataclass(frozen=True)
class CaptionMatch:
    """A caption found for a table: the text items that hold it (none for ``header_row``) and its text."""

    items: tuple[TextItem, ...]
    text: str
    source: CaptionSource
    drop_header_row: bool = False
    partial: bool = False
    """True when the caption is the tail of a longer text (a caption Docling merged into a paragraph): the text
    item then also stays in the text chunks, since the unit shows only its caption part."""


def table_label(text: str) -> str | None:
    """The table number a text starts with ("Table 3: ..." -> "3"), or None."""
    m = _TABLE_LABEL.match(text)
    if not m:
        return None
    num = m.group("num")
    if re.fullmatch(r"[IVXLC]+", num, re.IGNORECASE) and not num.isupper():
        return None  # "Table civil ..." is a word, not a Roman numeral
    return num


def is_figure_caption(text: str) -> bool:
    """True for texts that start like a figure caption."""
    return bool(_FIGURE_LABEL.match(text))


_FIGURE_NUMBER = re.compile(
    r"^\s*[\[(]?\s*(?:figures?|figs?\.?|그림)\s*(?:[A-Z][.\-]?)?\d+(?:[.\-–]\d+)*[a-z]?\b\s*[\])]?", re.IGNORECASE
)


def looks_like_figure_caption(text: str) -> bool:
    """True for a figure's caption ("Fig 2 Overall greenhouse gas emissions ...", "Figure 3: Results"); false for a
    sentence that starts with a figure's label ("Figure 3 shows ...")."""
    m = _FIGURE_NUMBER.match(text)
    return m is not None and _caption_after_label(text, text[m.end() :])


def looks_like_caption(text: str) -> bool:
    """True for a caption ("Table 3: Revenue"); false for a sentence that starts with a label ("Table 3 shows")."""
    m = _TABLE_LABEL.match(text)
    if not m or table_label(text) is None:
        return False
    return _caption_after_label(text, text[m.end() :])


def _caption_after_label(text: str, rest: str) -> bool:
    """Whether ``text``, which starts with a label followed by ``rest``, is a caption rather than a sentence."""
    if not rest.strip() or rest[:1] in ":.-–—|" or rest.lstrip()[:1] in ":.-–—|":
        return True
    words = rest.split()
    if words[0].lower().strip(",;") in _SENTENCE_VERBS:
        return False
    if words[0][:1].islower() and text.rstrip().endswith("."):
        return False  # "Table 2 contrasts these regions with last year.": a sentence about the table
    return words[0][:1].isupper() or words[0][:1].isdigit() or len(words) <= 12


_NUM = r"(?:(?-i:[A-Z])[.\-]?)?\d+(?:[.\-–]\d+)*[a-z]?(?![\w.\-–]\w)|(?-i:[IVXLC]+)\b"
_MENTION = re.compile(
    rf"(?:\btables?\b\.?|\btab\.|\btbl\.|표)\s*(?P<nums>(?:{_NUM})(?:\s*(?:,|and|or|&)\s*(?:{_NUM}))*)",
    re.IGNORECASE,
)
_ONE_NUM = re.compile(_NUM, re.IGNORECASE)
_FIGURE_MENTION = re.compile(r"(?:\bfig(?:ure)?s?\b\.?|그림)\s*\d", re.IGNORECASE)


def _may_name_a_table(text: str) -> bool:
    """Whether ``text`` holds what every match of ``_MENTION`` and ``_EMBEDDED_START`` holds ("tab", as "table" and
    "tab." start, "tbl." or "표"): most texts do not, and a lowercased substring test is ten times cheaper than either
    pattern. Lowercasing is safe here: no character other than t, a, b, l matches those letters under IGNORECASE."""
    lowered = text.lower()
    return "tab" in lowered or "tbl." in lowered or "표" in text


def normalize_label(label: str) -> str:
    """The form in which table labels are compared ("3a" and "3A" are the same table)."""
    return label.upper()


def table_mentions(text: str) -> list[tuple[str, int, int]]:
    """Every table label ``text`` names, with the span of the mention: "as Tables 2 and 3 show" gives
    ``[("2", a, b), ("3", a, b)]``. Labels are normalised (:func:`normalize_label`); "Table 3.1" names "3.1", not
    "3"."""
    found: list[tuple[str, int, int]] = []
    if not _may_name_a_table(text):
        return found
    for m in _MENTION.finditer(text):
        for num in _ONE_NUM.finditer(m.group("nums")):
            found.append((normalize_label(num.group(0)), m.start(), m.end()))
    return found


def mentions_figure(text: str) -> bool:
    """True when ``text`` names a figure ("Figure 5", "Fig. 3", "그림 1")."""
    return _FIGURE_MENTION.search(text) is not None


def mentions_table(text: str, label: str) -> bool:
    """True when ``text`` refers to table ``label`` ("as Table 3 shows", "Tab. 3", "표 3")."""
    wanted = normalize_label(label)
    return any(found == wanted for found, _a, _b in table_mentions(text))


_EMBEDDED_START = re.compile(
    r"(?:(?<=[.!?;:)\]])\s+|\s{2,}|\n)(?=[\[(]?\s*(?:table|tab\.|tbl\.|표)\s*\w)"
    # after a single space (a caption glued to a running header or a name) only a "Table N:" label counts
    r"|\s(?=(?:table|tab\.)\s*(?:[A-Z][.\-]?)?\d+(?:[.\-–]\d+)*\s*:\s)",
    re.IGNORECASE,
)


def embedded_caption(text: str) -> str | None:
    """A table caption merged into the end of a longer text ("... as shown. Table 5: Results"), or None."""
    if not _may_name_a_table(text):
        return None
    for m in reversed(list(_EMBEDDED_START.finditer(text))):
        tail = text[m.end() :].strip()
        if looks_like_caption(tail):
            return tail
    return None


def _eligible(index: DocIndex, idx: int, taken: set[str], t_idx: int) -> bool:
    if not index.is_free_text(idx, taken):
        return False
    item = index.items[idx]
    assert isinstance(item, TextItem)
    text = item.text.strip()
    if not text or is_figure_caption(text):
        return False
    # a caption-labelled text without a table label counts only above the table: below, it usually heads the next
    # float (a figure or the next table's block)
    return looks_like_caption(text) or (item.label == DocItemLabel.CAPTION and idx < t_idx)


def _match(index: DocIndex, idx: int, source: CaptionSource) -> CaptionMatch:
    item = index.items[idx]
    assert isinstance(item, TextItem)
    return CaptionMatch(items=(item,), text=item.text.strip(), source=source)


def _merged(index: DocIndex, idx: int, taken: set[str]) -> CaptionMatch | None:
    if not index.is_free_text(idx, taken):
        return None
    item = index.items[idx]
    assert isinstance(item, TextItem)
    tail = embedded_caption(item.text)
    if tail is None or looks_like_caption(item.text.strip()):
        return None
    return CaptionMatch(items=(item,), text=tail, source="text_nearby", partial=True)


@dataclass
class CaptionIndex:
    """Per page, the texts that could be a table caption (caption-like, Docling ``caption`` label, or ending with a
    merged caption), as ``(top, reading position)`` sorted by top; built once per document so that each table
    looks only at the candidates within reach instead of at every item of its page."""

    by_page: dict[int, list[tuple[float, int]]]
    tallest: dict[int, float]


def build_caption_index(index: DocIndex) -> CaptionIndex:
    """One pass over the document's text items (see :class:`CaptionIndex`)."""
    by_page: dict[int, list[tuple[float, int]]] = {}
    tallest: dict[int, float] = {}
    for idx, item in enumerate(index.items):
        if not isinstance(item, TextItem) or item.self_ref in index.satellites or not item.text.strip():
            continue
        text = item.text.strip()
        possible = not is_figure_caption(text) and (looks_like_caption(text) or item.label == DocItemLabel.CAPTION)
        if not (possible or embedded_caption(item.text) is not None):
            continue
        for box in index.boxes[item.self_ref]:
            by_page.setdefault(box.page, []).append((box.top, idx))
            tallest[box.page] = max(tallest.get(box.page, 0.0), box.bottom - box.top)
    for entries in by_page.values():
        entries.sort()
    return CaptionIndex(by_page, tallest)


def _nearby_by_layout(
    index: DocIndex, t_idx: int, taken: set[str], cap_index: CaptionIndex | None, max_gap: float
) -> CaptionMatch | None:
    table_boxes = index.boxes[index.items[t_idx].self_ref]
    best: tuple[tuple[bool, float, int], CaptionMatch] | None = None
    cap_index = cap_index or build_caption_index(index)
    near: set[int] = set()
    for tb in table_boxes:
        entries = cap_index.by_page.get(tb.page, [])
        lo = tb.top - max_gap - cap_index.tallest.get(tb.page, 0.0)
        a = bisect_left(entries, (lo, -1))
        b = bisect_right(entries, (tb.bottom + max_gap, math.inf))
        near.update(idx for _top, idx in entries[a:b])
    for idx in sorted(near):
        if idx == t_idx:
            continue
        match = _match(index, idx, "text_nearby") if _eligible(index, idx, taken, t_idx) else None
        match = match or _merged(index, idx, taken)
        if match is None:
            continue
        found = nearest_gap(index.boxes[index.items[idx].self_ref], table_boxes)
        if found is None:
            continue
        gap, cap_box, tab_box = found
        if gap > max_gap or horizontal_overlap(cap_box, tab_box) <= 0:
            continue
        if index.heads_next_table(idx, t_idx, gap) or _nearer_the_picture_above(index, idx, gap):
            continue
        rank = (match.partial, gap, abs(idx - t_idx))
        if best is None or rank < best[0]:
            best = (rank, match)
    return best[1] if best else None


def _nearer_the_picture_above(index: DocIndex, idx: int, gap: float) -> bool:
    """Whether the caption candidate at ``idx`` comes right after a picture and lies nearer to it than ``gap`` (its
    distance to the table): an unlabelled caption between a figure and a table is the figure's."""
    if idx == 0 or not isinstance(index.items[idx - 1], PictureItem):
        return False
    found = nearest_gap(index.boxes[index.items[idx].self_ref], index.boxes[index.items[idx - 1].self_ref])
    return found is not None and found[0] < gap


def _nearby_by_order(index: DocIndex, t_idx: int, taken: set[str], rules: OrderRules) -> CaptionMatch | None:
    for step in range(1, rules.max_steps + 1):
        for idx in (t_idx - step, t_idx + step):  # above first: captions usually precede tables
            if idx > t_idx and index.heads_next_table(idx, t_idx):
                continue
            if 0 <= idx < len(index.items) and not index.heading_between(idx, t_idx):
                if _eligible(index, idx, taken, t_idx):
                    run = _caption_run(index, idx, t_idx, taken, rules) if idx < t_idx else None
                    return _with_run(index, idx, run or ())
                merged = _merged(index, idx, taken)
                if merged:
                    return merged
    # farther above, a caption whose rest runs down to the table ("Table 8. In vivo Oral Activity in the",
    # "P. berghei", "Mouse Model Peter's Test": HTML that breaks a title at every italic run)
    for idx in range(t_idx - rules.max_steps - 1, t_idx - rules.run_max_items - 2, -1):
        if idx >= 0 and not index.heading_between(idx, t_idx) and _eligible(index, idx, taken, t_idx):
            run = _caption_run(index, idx, t_idx, taken, rules)
            if run is not None:
                return _with_run(index, idx, run)
    return None


def _caption_run(
    index: DocIndex, idx: int, t_idx: int, taken: set[str], rules: OrderRules
) -> tuple[TextItem, ...] | None:
    """The texts between the caption at ``idx`` and the table at ``t_idx`` below it, when they read as the rest
    of the caption: at most ``rules.run_max_items`` free texts, no other caption among them, at most
    ``rules.run_max_words`` words in all (a title's rest, or the title of a label alone: "Table 1",
    "Optimization of ..."); None otherwise. Empty when the caption sits right above the table."""
    between = range(idx + 1, t_idx)
    if len(between) > rules.run_max_items:
        return None
    run: list[TextItem] = []
    for pos in between:
        item = index.items[pos]
        if not index.is_free_text(pos, taken) or index.is_heading(pos):
            return None
        assert isinstance(item, TextItem)
        text = item.text.strip()
        if table_label(text) or is_figure_caption(text):
            return None
        run.append(item)
    return tuple(run) if sum(len(t.text.split()) for t in run) <= rules.run_max_words else None


def _with_run(index: DocIndex, idx: int, run: tuple[TextItem, ...]) -> CaptionMatch:
    """The caption at ``idx`` followed by ``run``, the rest of it down to the table (:func:`_caption_run`)."""
    match = _match(index, idx, "text_nearby")
    if not run:
        return match
    text = " ".join([match.text, *(t.text.strip() for t in run if t.text.strip())])
    return CaptionMatch(items=(*match.items, *run), text=text, source="text_nearby")


def _adjacent_page(index: DocIndex, t_idx: int, taken: set[str], edge_items: int) -> CaptionMatch | None:
    """The caption of a table that opens (closes) its page among the last (first) ``edge_items`` items of the
    previous (next) page."""
    page = index.page_of(t_idx)
    if page is None or edge_items <= 0:
        return None
    on_page = index.pages_of_index.get(page, [])
    if on_page and on_page[0] == t_idx:
        before = index.pages_of_index.get(page - 1, [])[-edge_items:]
        for idx in reversed(before):
            if _eligible(index, idx, taken, t_idx) and not index.heading_between(idx, t_idx):
                return _match(index, idx, "adjacent_page")
    if on_page and on_page[-1] == t_idx:
        after = index.pages_of_index.get(page + 1, [])[:edge_items]
        for idx in after:
            if index.heads_next_table(idx, t_idx):
                continue  # the next page's table's own caption
            if _eligible(index, idx, taken, t_idx) and not index.heading_between(idx, t_idx):
                return _match(index, idx, "adjacent_page")
    return None


def _header_row(rows: TableRows) -> CaptionMatch | None:
    first = rows.header[0] if rows.header else None
    if first is None or rows.num_cols < 2:
        return None
    texts = {t for t in first if t}
    if len(texts) != 1 or any(not t for t in first):
        return None
    text = texts.pop()
    if is_figure_caption(text) or not (looks_like_caption(text) or len(text.split()) >= 3):
        return None
    if re.fullmatch(r"[\d\s.,%$()\-–]+", text):
        return None
    return CaptionMatch(items=(), text=text, source="header_row", drop_header_row=True)


def find_caption(
    index: DocIndex,
    table: TableItem,
    rows: TableRows,
    taken: set[str],
    doc_captions: list[TextItem],
    cap_index: CaptionIndex | None = None,
    order: OrderRules = DEFAULT_ORDER_RULES,
    page: PageRules = DEFAULT_PAGE_RULES,
) -> CaptionMatch | None:
    """Find the caption of ``table`` by the rules above.

    Args:
        index: the document's reading-order index.
        table: the table.
        rows: the table's cell texts (for the header-row rule).
        taken: refs of texts already used as another table's caption; never reused.
        doc_captions: the table's Docling-linked captions that resolve to text items.
        cap_index: the document's :class:`CaptionIndex` (built on the fly when not given; pass one built once per
            document to keep caption search linear in the number of tables per page).
        order: where a caption is looked for on documents without layout.
        page: where a caption is looked for on documents with pages (by layout, and on the adjacent page).
    """
    if doc_captions:
        text = "\n".join(c.text.strip() for c in doc_captions if c.text.strip())
        return CaptionMatch(items=tuple(doc_captions), text=text, source="docling_ref")
    t_idx = index.order.get(table.self_ref)
    if t_idx is not None:
        if index.has_layout and index.boxes[table.self_ref]:
            found = _nearby_by_layout(index, t_idx, taken, cap_index, page.max_gap_pt)
        else:
            found = _nearby_by_order(index, t_idx, taken, order)
        found = found or _adjacent_page(index, t_idx, taken, page.edge_items)
        if found:
            return found
    return _header_row(rows)
