"""One pass over a document: reading order, pages, which items are captions or footnotes of something, and which
texts are page boilerplate rather than body text."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from docling_core.types.doc import (
    ContentLayer,
    DocItem,
    DocItemLabel,
    DoclingDocument,
    FloatingItem,
    GroupLabel,
    PictureItem,
    SectionHeaderItem,
    TableItem,
    TextItem,
    TitleItem,
)
from docling_core.types.doc.document import RichTableCell

from docling_evidence.document.layout import Box, item_boxes, nearest_gap
from docling_evidence.document.params import DEFAULT_DOCUMENT_PARAMS, DocumentParams
from docling_evidence.text.sentences import sentence_spans
from docling_evidence.text.words import WORD

PARAGRAPH_LABELS = frozenset({DocItemLabel.TEXT, DocItemLabel.PARAGRAPH, DocItemLabel.LIST_ITEM})
"""Labels of body text that may explain a table."""

URL = re.compile(r"(?:\b[a-z][a-z0-9+.\-]*://|\bwww\.)\S+", re.IGNORECASE)


@dataclass
class DocIndex:
    """Reading-order facts about one document, computed once per ``chunk()`` call.

    Attributes:
        items: body doc items in reading order (``iterate_items`` over the body layer, pictures not entered but for
            their captions and footnotes).
        order: ``self_ref`` -> position in ``items``.
        boxes: ``self_ref`` -> the item's finite boxes (empty when it has no usable layout).
        satellites: refs of items that Docling links as a caption or footnote of some item.
        has_layout: whether the document's items carry usable boxes (a paginated document).
    """

    items: list[DocItem]
    order: dict[str, int]
    boxes: dict[str, list[Box]]
    satellites: set[str]
    has_layout: bool
    pages_of_index: dict[int, list[int]] = field(default_factory=dict)
    headings_before: list[int] = field(default_factory=list)
    """``headings_before[i]``: how many titles/section headers precede reading position ``i`` (length n + 1)."""
    inline_of: dict[int, int] = field(default_factory=dict)
    """Reading position of an item inside an inline group (a paragraph that Docling reads as runs of text, links
    and code spans: HTML, Markdown, DOCX) -> the position of the group's first item, which stands for the whole
    paragraph; -1 when the group holds something other than text and cannot be one."""
    inline_members: dict[int, tuple[int, ...]] = field(default_factory=dict)
    """The first item's position -> the positions of every item of its inline group, in reading order."""
    boilerplate: frozenset[int] = frozenset()
    """Reading positions of the paragraphs (:meth:`is_paragraph`) that are page boilerplate, not body text: in a
    furniture group, link lines and navigation (:func:`is_boilerplate`), label lines above them. Never context or a
    section peer; without layout they also end a table's neighbourhood, as a heading does."""
    _paragraphs: dict[int, bool] = field(default_factory=dict, init=False, repr=False, compare=False)
    """:meth:`is_paragraph` by position, answered once: the index's items do not change, and the context rules ask
    it of the same positions many times (its label test hashes an enum in Python)."""

    def __post_init__(self) -> None:
        if len(self.headings_before) != len(self.items) + 1:
            counts = [0]
            for i in range(len(self.items)):
                counts.append(counts[-1] + self.is_heading(i))
            self.headings_before = counts

    def is_heading(self, idx: int) -> bool:
        """True when the item at ``idx`` is a title or section header."""
        return isinstance(self.items[idx], SectionHeaderItem | TitleItem)

    def heading_between(self, a: int, b: int) -> bool:
        """True when a title or section header lies strictly between reading positions ``a`` and ``b`` (O(1))."""
        lo, hi = min(a, b), max(a, b)
        return hi > lo + 1 and self.headings_before[hi] - self.headings_before[lo + 1] > 0

    def section_of(self, idx: int) -> int:
        """The section a reading position belongs to: how many headings precede it or sit at it."""
        return self.headings_before[idx + 1]

    def page_of(self, idx: int) -> int | None:
        """First page of the item at ``idx`` (None without provenance)."""
        prov = self.items[idx].prov
        return prov[0].page_no if prov else None

    def next_table(self, idx: int, max_between: int = 2) -> int | None:
        """The table right after ``idx`` in reading order, with at most ``max_between`` text items between (its
        caption, a units line) and no heading, or None: the table a text just above it introduces."""
        for nxt in range(idx + 1, min(len(self.items), idx + 2 + max_between)):
            item = self.items[nxt]
            if isinstance(item, TableItem):
                return nxt
            if not isinstance(item, TextItem) or self.is_heading(nxt):
                return None
        return None

    def heads_next_table(self, idx: int, t_idx: int, gap: float | None = None) -> bool:
        """Whether the text at ``idx``, below the table at ``t_idx``, introduces another table that follows it (a
        caption, a units line): without layout (``gap`` None) whenever it sits right above that table; with layout
        when that table is also nearer to it than ``gap`` (its distance to the table at ``t_idx``)."""
        ahead = self.next_table(idx)
        if ahead is None or ahead == t_idx or idx < t_idx < ahead:
            return False
        if gap is None:
            return True
        below = nearest_gap(self.boxes[self.items[idx].self_ref], self.boxes[self.items[ahead].self_ref])
        return below is not None and below[0] < gap

    def is_free_text(self, idx: int, taken: set[str]) -> bool:
        """Whether the item at ``idx`` is a text that no item links as a satellite and that is not in ``taken``
        (the refs other tables' captions and footnotes already hold): a text a unit may still take."""
        item = self.items[idx]
        return isinstance(item, TextItem) and item.self_ref not in self.satellites and item.self_ref not in taken

    def members(self, idx: int) -> tuple[int, ...]:
        """The positions of the items making up the paragraph at ``idx``: its inline group's, or ``idx`` alone."""
        return self.inline_members.get(idx, (idx,))

    def paragraph_text(self, idx: int) -> str:
        """The plain text of the paragraph at ``idx``: an inline group's runs joined by spaces (as docling-core's
        serializer joins them), else the item's text."""
        return " ".join(self.items[m].text for m in self.members(idx))  # type: ignore[attr-defined]

    def run_starts(self, idx: int) -> list[tuple[int, int]]:
        """Per item of the paragraph at ``idx`` (:meth:`members`), its position and where its text starts in
        :meth:`paragraph_text`."""
        out, start = [], 0
        for m in self.members(idx):
            out.append((m, start))
            start += len(self.items[m].text) + 1  # type: ignore[attr-defined]
        return out

    def is_paragraph(self, idx: int) -> bool:
        """Body text that can serve as table context: a text/paragraph/list item that is nobody's satellite. An
        inline group is one paragraph, stood for by its first item; its other items are none."""
        known = self._paragraphs.get(idx)
        if known is not None:
            return known
        rep = self.inline_of.get(idx, idx)
        if rep != idx:
            answer = False
        else:
            members = [self.items[m] for m in self.members(idx)]
            answer = (
                all(isinstance(m, TextItem) and m.self_ref not in self.satellites for m in members)
                and any(m.label in PARAGRAPH_LABELS for m in members)
                and bool(self.paragraph_text(idx).strip())
            )
        self._paragraphs[idx] = answer
        return answer


def document_texts(doc: DoclingDocument) -> Iterator[str]:
    """Every text item's text and every table cell's text of ``doc``: the words chunking counts."""
    for text_item in doc.texts:
        yield text_item.text
    for table in doc.tables:
        for cell in table.data.table_cells:
            yield cell.text


def rich_cell_content(doc: DoclingDocument, table: TableItem) -> set[str]:
    """Refs of the nodes a table's rich cells show (and everything below them): content rendered with the table.

    A table's captions and footnotes may be its children too; they are not included unless a rich cell points at
    them.
    """
    found: set[str] = set()
    stack = [cell.ref for cell in table.data.table_cells if isinstance(cell, RichTableCell)]
    while stack:
        ref = stack.pop()
        if ref.cref in found:
            continue
        found.add(ref.cref)
        try:
            stack.extend(ref.resolve(doc).children)
        except Exception:  # a dangling ref: nothing below it
            continue
    return found


def build_index(
    doc: DoclingDocument,
    excluded: frozenset[str] | set[str] = frozenset(),
    params: DocumentParams = DEFAULT_DOCUMENT_PARAMS,
) -> DocIndex:
    """Walk the document once and collect a :class:`DocIndex` (the content of rich table cells is not a body item:
    it belongs to its table). Items in ``excluded`` (what the serializer leaves out for ``chunk(**kwargs)``) are
    not indexed; ``params`` says which texts are page boilerplate."""
    items: list[DocItem] = []
    satellites: set[str] = set()
    in_cells: set[str] = set()
    for node, _level in doc.iterate_items(with_groups=False, traverse_pictures=False):
        if not isinstance(node, DocItem) or node.self_ref in in_cells or node.self_ref in excluded:
            continue
        if isinstance(node, TableItem):
            in_cells |= rich_cell_content(doc, node)
        items.append(node)
        if isinstance(node, FloatingItem):
            satellites.update(ref.cref for ref in node.captions)
            satellites.update(ref.cref for ref in node.footnotes)
    items = _with_picture_notes(doc, items, excluded)
    order = {item.self_ref: i for i, item in enumerate(items)}
    boxes = {item.self_ref: item_boxes(item) for item in items}
    tables_with_layout = any(boxes[t.self_ref] for t in items if isinstance(t, TableItem))
    texts_with_layout = sum(1 for item in items if isinstance(item, TextItem) and boxes[item.self_ref])
    has_layout = texts_with_layout > 0 and (tables_with_layout or not any(isinstance(t, TableItem) for t in items))
    pages: dict[int, list[int]] = {}
    for i, item in enumerate(items):
        for page in sorted({p.page_no for p in item.prov}):
            pages.setdefault(page, []).append(i)
    inline_of, inline_members = _inline_paragraphs(doc, items)
    index = DocIndex(
        items=items,
        order=order,
        boxes=boxes,
        satellites=satellites,
        has_layout=has_layout,
        pages_of_index=pages,
        inline_of=inline_of,
        inline_members=inline_members,
    )
    index.boilerplate = _boilerplate(doc, index, params)
    return index


def _with_picture_notes(
    doc: DoclingDocument, items: list[DocItem], excluded: frozenset[str] | set[str]
) -> list[DocItem]:
    """``items`` with the footnotes that a picture lists among its own children, each after its picture and the
    captions that follow it.

    Docling puts a float's captions and footnotes under the float. ``iterate_items`` enters a picture only for its
    captions (the rest of a picture's children is the text inside the figure), so without this a picture's footnote
    ("Source: ...") would be in no chunk: HybridChunker drops it.
    """
    walked = {item.self_ref for item in items}
    out: list[DocItem] = []
    k = 0
    while k < len(items):
        item = items[k]
        out.append(item)
        k += 1
        if not isinstance(item, PictureItem) or not item.footnotes:
            continue
        notes = []
        for ref in item.footnotes:
            try:
                note = ref.resolve(doc)
            except Exception:  # a dangling ref: nothing to show
                continue
            if (
                isinstance(note, TextItem)
                and note.self_ref not in walked
                and note.self_ref not in excluded
                and note.content_layer == ContentLayer.BODY
            ):
                notes.append(note)
                walked.add(note.self_ref)
        captions = {ref.cref for ref in item.captions}
        while k < len(items) and items[k].self_ref in captions:
            out.append(items[k])
            k += 1
        out.extend(notes)
    return out


def _boilerplate(doc: DoclingDocument, index: DocIndex, params: DocumentParams) -> frozenset[int]:
    """``DocIndex.boilerplate``: the paragraphs in furniture or that :func:`is_boilerplate` marks, and the label lines
    introducing them ("Categories:" above its links). A label above prose ("Interest Expense:" above the paragraph
    about it) is that paragraph's title, not boilerplate."""
    paragraphs = [i for i in range(len(index.items)) if index.is_paragraph(i)]
    runs = {i: [(index.items[m].text, _is_link(index.items[m])) for m in index.members(i)] for i in paragraphs}  # type: ignore[attr-defined]
    marked = {i for i in paragraphs if _in_furniture(doc, index.items[i]) or is_boilerplate(runs[i], params)}
    for i, nxt in zip(reversed(paragraphs[:-1]), reversed(paragraphs[1:]), strict=True):
        if nxt in marked and is_label_line(index.paragraph_text(i), params) and nxt == _next_paragraph(index, i):
            marked.add(i)
    return frozenset(marked)


def _next_paragraph(index: DocIndex, idx: int) -> int | None:
    """The item right after the paragraph at ``idx`` (its inline group's runs skipped), when it is a paragraph."""
    nxt = max(index.members(idx)) + 1
    return nxt if nxt < len(index.items) and index.is_paragraph(nxt) else None


def is_label_line(text: str, params: DocumentParams = DEFAULT_DOCUMENT_PARAMS) -> bool:
    """A label for what follows, holding no sentence: at most ``params.label_line_max_words`` words without a digit,
    ending with a colon ("Categories:", "See also:", "Interest Expense:")."""
    text = text.strip()
    return (
        text.endswith(":")
        and len(WORD.findall(text)) <= params.label_line_max_words
        and not any(c.isdigit() for c in text)
    )


def _is_link(item: DocItem) -> bool:
    """Whether the whole text of ``item`` is a link (Docling's ``hyperlink`` on a text item or run)."""
    return getattr(item, "hyperlink", None) is not None


def _in_furniture(doc: DoclingDocument, item: DocItem) -> bool:
    """Whether ``item`` or one of its ancestors is outside the body layer (a page's navigation, header or footer that
    Docling marks as furniture, holding a body-layer text)."""
    node, steps = item, 0
    while node is not None and steps < 64:
        if node.content_layer != ContentLayer.BODY:
            return True
        try:
            node = node.parent.resolve(doc) if node.parent is not None else None
        except Exception:  # a parent ref that points nowhere: nothing above to judge
            return False
        steps += 1
    return False


def is_boilerplate(runs: Sequence[tuple[str, bool]], params: DocumentParams = DEFAULT_DOCUMENT_PARAMS) -> bool:
    """Whether a paragraph, given as its runs ``(text, whole run is a link)`` (one run for a plain text), is page
    boilerplate rather than prose that could explain a table:

    - a link line: a link or a URL with at most ``params.link_line_max_words`` words besides;
    - navigation: links, and at least half of its sentences navigation sentences (link text at least
      ``params.navigation_link_share`` of the sentence's words).

    A label line (:func:`is_label_line`) is boilerplate only above boilerplate, which this text alone cannot tell.
    """
    text = " ".join(t for t, _link in runs).strip()
    if not text:
        return False
    has_link = any(link and t.strip() for t, link in runs) or (_may_hold_url(text) and URL.search(text) is not None)
    if not has_link:  # most paragraphs: neither rule applies, so their words need no counting
        return False
    plain = " ".join(URL.sub(" ", t) for t, link in runs if not link)
    if len(WORD.findall(plain)) <= params.link_line_max_words:
        return True
    return _navigation(runs, text, params.navigation_link_share)


def _may_hold_url(text: str) -> bool:
    """Whether ``text`` holds what every :data:`URL` match holds ("://" or "www.", in any case): a substring test,
    much cheaper than the pattern, which tries a scheme at every word start (no character but w and W matches "w"
    under IGNORECASE, so lowercasing is exact)."""
    return "://" in text or "www." in text.lower()


def _navigation(runs: Sequence[tuple[str, bool]], text: str, link_share: float) -> bool:
    """At least half of the sentences of ``text`` (the runs joined by spaces) are navigation sentences: link text
    makes at least ``link_share`` of their words."""
    link_spans, start = [], 0
    for t, link in runs:
        if link:
            link_spans.append((start, start + len(t)))
        start += len(t) + 1
    for m in URL.finditer(text):
        link_spans.append(m.span())
    # a URL is one word, however many its path holds
    text = URL.sub(lambda m: "u" + " " * (len(m.group()) - 1), text)
    spans = sentence_spans(text)
    navigational = 0
    for a, b in spans:
        words = [w.span() for w in WORD.finditer(text, a, b)]
        linked = sum(1 for s, e in words if any(ls <= s and e <= le for ls, le in link_spans))
        if words and linked and linked >= link_share * len(words):
            navigational += 1
    return bool(spans) and 2 * navigational >= len(spans)


def _inline_paragraphs(doc: DoclingDocument, items: list[DocItem]) -> tuple[dict[int, int], dict[int, tuple[int, ...]]]:
    """Which indexed items belong to an inline group (``DocIndex.inline_of``, ``DocIndex.inline_members``)."""
    groups: dict[str, list[int]] = {}
    for i, item in enumerate(items):
        try:
            parent = item.parent.resolve(doc) if item.parent is not None else None
        except Exception:  # a parent ref that points nowhere: the item stands alone
            parent = None
        if parent is not None and getattr(parent, "label", None) == GroupLabel.INLINE:
            groups.setdefault(parent.self_ref, []).append(i)
    inline_of: dict[int, int] = {}
    inline_members: dict[int, tuple[int, ...]] = {}
    for positions in groups.values():
        whole = all(isinstance(items[m], TextItem) for m in positions)
        rep = positions[0] if whole else -1
        for m in positions:
            inline_of[m] = rep
        if whole:
            inline_members[rep] = tuple(positions)
    return inline_of, inline_members
