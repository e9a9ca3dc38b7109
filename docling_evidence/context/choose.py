"""Pick the context of a table: the paragraphs — and within long paragraphs the sentences — that explain it.

Candidates, on paginated documents (items carry boxes):
- paragraphs on the table's pages within ``bbox_threshold`` points of its top or bottom edge (at most
  ``MAX_LAYOUT_NEIGHBOURS`` nearest on each side per page), with no section header between them and the table in
  reading order;
- the paragraph right before (after) the table in reading order when it sits on the previous (next) page, i.e.
  the table opens (closes) its page.
On documents without layout (HTML, DOCX, Markdown): the nearest ``MAX_ORDER_STEPS`` paragraphs before and after
the table in the same section, not beyond page boilerplate. Page boilerplate (``DocIndex.boilerplate``: furniture,
link lines, label lines, navigation) is never context unless it names a table. On both: any paragraph of the
document that names the table ("Table 3 shows ...") — when several tables carry the same label, the nearest of them —
or points at it by place ("the following table", "the table above": :mod:`docling_evidence.units.deixis`).

Precision, per sentence (:func:`sentence_spans`): a sentence that names the table is always relevant, and so is the
next one (the explanation usually goes on); a sentence that names another table or a figure, and not this table,
is not about it; any other sentence is relevant when the words and numbers it shares with the table's caption
and cells weigh at least ``RELEVANCE_THRESHOLD`` (each word weighted by its inverse
document frequency over the document's paragraphs, so words every paragraph uses count little). A paragraph with no
relevant sentence is not context. On paginated documents a paragraph in another column that does not name the table
is dropped when the table's own column has context.

Ranking: paragraphs naming the table first, then same column, then distance (points, or reading-order steps), then
reading order; far paragraphs that name the table come after the near ones. Within a paragraph, the sentences naming
the table come first, then the others by weight. Sentences are taken in that order while they fit the token budget,
so a long paragraph contributes the sentences that explain the table instead of being dropped whole. On paginated
documents the rules above bound the candidates (a page neighbourhood, per-sentence relevance), and the chunker's
default budget there does not shrink with the token limit (1,024 tokens from limit 256 up): a unit holds what
explains its table at any limit. The result records, per chosen paragraph, the character spans used (the whole text
when every sentence was chosen).

Cost: :class:`ContextIndex` is built once per document (one pass over the paragraphs: sentences, table mentions,
word frequencies, per-page position lists); each table then looks at a bounded number of neighbours found by
bisection, plus the paragraphs that name it, so candidate search is linear in the document's size.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from itertools import pairwise

from docling_core.types.doc import PictureItem, TableItem, TextItem

from docling_evidence.document.index import DocIndex
from docling_evidence.document.layout import Box, horizontal_overlap, inside, nearest_gap
from docling_evidence.tables.rows import TableRows
from docling_evidence.text.sentences import sentence_spans
from docling_evidence.text.words import content_words, numbers, significant_digits, words
from docling_evidence.units.captions import (
    looks_like_caption,
    looks_like_figure_caption,
    mentions_figure,
    normalize_label,
    table_mentions,
)
from docling_evidence.units.deixis import pointed_table, pointing_mentions, position_label
from docling_evidence.units.titles import TITLE_REACH, is_title_label, title_mentions, title_set

MAX_ORDER_STEPS = 4
"""Without layout: how many paragraphs on each side of a table (same section) are candidates."""

MAX_LAYOUT_NEIGHBOURS = 8
"""With layout: how many nearest paragraphs above, below and level with a table, per page, are candidates."""

RELEVANCE_THRESHOLD = 2.0
"""Least weight of shared words/numbers for a sentence that does not name the table to count as explaining it."""

ADJACENT_MAX_SENTENCES = 3
"""An adjacent paragraph of at most this many sentences counts whole; of a longer one, the sentence next to the
table and the relevant sentences."""

ADJACENT_MIN_WORDS = 3
"""A sentence taken only for following the table needs at least this many words: a signature ("OPIYO WANDAYI,"), a
dash or a stray code ("D2111") after a table explains nothing (a short text before it is kept: it is often the
table's title, as an option's name above its table of values; but not a bare dash)."""

MIN_NUMBER_CHARS = 3
"""A sentence that shares no word with the table counts only through a shared number of at least this many digits
(or with a decimal point): a small integer ("10" in "10:00 AM") is in too many tables to tie a text to one."""

LEAD_IN_GAP_PT = 36.0
"""With layout: a paragraph right above the table, in its column and at most this far (points), introduces it (it
then lets context reach across the page break above it)."""

NAMING_WEIGHT = 1e9
"""Weight of a sentence naming the table (above any shared-word weight); the earlier the mention, the higher."""

MIN_SHARED_WORDS = 2
"""A sentence that shares no number with the table must share at least this many distinct words with it."""

MAX_FRAMED = 6
"""Most paragraphs between two paragraphs naming the table that are candidates as its discussion."""

FRAMED_RELEVANCE_THRESHOLD = 2 * RELEVANCE_THRESHOLD
"""Least weight of shared words/numbers for a sentence of such a paragraph that lies outside the table's layout
neighbourhood (or in another column): found by its place in the text, not by its place on the page, it needs a
stronger tie to the table."""

NUMBER_BONUS = 1.5
"""Extra weight of a shared number over a shared word (a cell value quoted in the text is strong evidence)."""

MIN_QUOTED_VALUES = 2
"""A paragraph anywhere in the document that quotes at least this many of one table's distinctive values (and more
of it than of any other table) discusses that table, named or not ("The Company had $452,680 and $1,383,392 in
cash", "TEDS from 91% to 98.5% on simple tables and from 88.7% to 95% on complex ones")."""

QUOTE_MAX_PARAGRAPHS = 2
"""A value is distinctive of a table only when at most this many paragraphs print it: a postal code or a figure
repeated in every notice ties those notices to nothing."""

_YEAR = re.compile(r"(?:19|20)\d\d")


def distinctive_value(number: str) -> bool:
    """Whether a number (as :func:`~docling_evidence.text.words.numbers` gives it) is specific enough to tie a text
    to the one table printing it: four or more significant digits ("452680", "13210471"), or three with a decimal
    point ("98.5", "0.316"), and not a year. Small integers are counts, page numbers or plot numbers that many
    things share."""
    if _YEAR.fullmatch(number):
        return False
    digits = significant_digits(number)
    return digits >= 4 or ("." in number and digits >= 3)


@dataclass(frozen=True)
class TableTerms:
    """What a sentence may share with a table: its label and the words and numbers of its caption and cells."""

    label: str | None
    words: frozenset[str]
    numbers: frozenset[str]


def table_terms(rows: TableRows, caption: str, label: str | None) -> TableTerms:
    """The :class:`TableTerms` of a table from its cell texts and caption."""
    table_words = content_words(caption)
    table_numbers = numbers(caption)
    for row in (*rows.header, *rows.body):
        for cell in row:
            table_words |= content_words(cell)
            table_numbers |= numbers(cell)
    return TableTerms(normalize_label(label) if label else None, frozenset(table_words), frozenset(table_numbers))


@dataclass
class _Paragraph:
    """One candidate paragraph's sentences and what each of them names."""

    text: str
    spans: list[tuple[int, int]]
    named: list[frozenset[str]]  # table labels named by each sentence
    mentions: list[tuple[str, int, int]]  # every table mention of the text: (label, start, end)
    figure: list[bool]  # whether each sentence names a figure
    words: list[set[str]]
    numbers: list[set[str]]


@dataclass
class ContextIndex:
    """Per-document facts for context search, built once (see :func:`build_context_index`).

    Attributes:
        index: the document's reading-order index.
        paragraphs: reading positions of the paragraphs that may be context, ascending.
        named_by: normalised table label (or a table's :func:`~docling_evidence.units.deixis.position_label`) -> reading
            positions of the paragraphs naming it.
        tables_by_label: normalised table label -> reading positions of the tables carrying it.
        tables: reading positions of every unit table, ascending.
        doc_freq: word/number -> how many paragraphs contain it.
    """

    index: DocIndex
    paragraphs: list[int]
    named_by: dict[str, list[int]]
    tables_by_label: dict[str, list[int]]
    tables: list[int]
    doc_freq: Counter[str]
    pictures: dict[int, list[Box]] = field(default_factory=dict)
    titles: frozenset[str] = frozenset()
    """The titles of tables titled by a heading, whose references name them (:mod:`docling_evidence.units.titles`)."""
    pointers: dict[int, list[tuple[str, int, int]]] = field(default_factory=dict)
    """Reading position of a paragraph -> its references to a table by place ("the table below"), each as
    (:func:`~docling_evidence.units.deixis.position_label` of the table it points at, start, end)."""
    quoted_by: dict[int, list[int]] = field(default_factory=dict)
    """Reading position of a table -> reading positions of the paragraphs quoting its values (``MIN_QUOTED_VALUES``)."""
    boilerplate: list[int] = field(default_factory=list)
    """Reading positions of the page boilerplate that is no context (``DocIndex.boilerplate`` naming no table),
    ascending."""
    text_count: int = 0
    """How many paragraphs ``doc_freq`` counts over (boilerplate included; 0: ``len(paragraphs)``)."""
    _by_top: dict[int, list[tuple[float, int]]] = field(default_factory=dict)
    _by_bottom: dict[int, list[tuple[float, int]]] = field(default_factory=dict)
    _parsed: dict[tuple[int, int | None], _Paragraph] = field(default_factory=dict)

    def paragraph(self, idx: int, end: int | None = None) -> _Paragraph:
        """The sentences of the paragraph at ``idx`` (only of ``text[:end]`` when ``end`` is given)."""
        key = (idx, end)  # the same paragraph read to another end has other sentences
        if key not in self._parsed:
            # an inline group's runs (text, links, code spans) are one paragraph: its sentences are those of the
            # runs' joined text, a sentence may hold a link or a code span
            text = self.index.paragraph_text(idx)
            spans = sentence_spans(text[:end] if end is not None else text)
            mentions = self.mentions(text) + self.pointers.get(idx, [])
            named = [frozenset(lab for lab, a, b in mentions if a < e and b > s) for s, e in spans]
            self._parsed[key] = _Paragraph(
                text=text,
                spans=spans,
                named=named,
                mentions=mentions,
                figure=[mentions_figure(text[s:e]) for s, e in spans],
                words=[content_words(text[s:e]) for s, e in spans],
                numbers=[numbers(text[s:e]) for s, e in spans],
            )
        return self._parsed[key]

    def mentions(self, text: str) -> list[tuple[str, int, int]]:
        """Every table ``text`` names, by label or by title, with its span (:func:`_mentions`)."""
        return _mentions(text, self.titles)

    def weight(self, term: str) -> float:
        """Inverse document frequency of a word or number over the document's paragraphs (at least log 2)."""
        n = max(1, self.text_count or len(self.paragraphs))
        return math.log(1 + n / max(1, self.doc_freq.get(term, 0)))


def _mentions(text: str, titles: frozenset[str]) -> list[tuple[str, int, int]]:
    """Every table ``text`` names, by label ("Table 3") or by one of ``titles`` ("the First Schedule"), with its
    span."""
    return table_mentions(text) + title_mentions(text, titles)


def build_context_index(
    index: DocIndex,
    table_labels: dict[int, str | None],
    titles: Iterable[str] = (),
    table_rows: dict[int, TableRows] | None = None,
) -> ContextIndex:
    """One pass over the document's paragraphs: mentions, word frequencies and per-page position lists.

    Args:
        index: the document's reading-order index.
        table_labels: reading position of each unit table -> its label (from its caption, or
            :func:`~docling_evidence.units.titles.title_label` of its title), or None.
        titles: the titles of the tables titled by a heading, whose references name them.
        table_rows: reading position of each unit table -> its rows, whose body's distinctive values tie the
            paragraphs quoting them to it.
    """
    title_forms = title_set(titles)
    # page boilerplate (a link line, a label line, navigation: DocIndex.boilerplate) explains no table, unless it
    # names one ("See Table 2", the whole text a link)
    texts = [i for i in range(len(index.items)) if index.is_paragraph(i)]
    paragraphs = [
        i
        for i in texts
        if i not in index.boilerplate
        or _mentions(index.paragraph_text(i), title_forms)
        or pointing_mentions(index.paragraph_text(i))
    ]
    named_by: dict[str, list[int]] = {}
    tables = sorted(table_labels)
    pointers: dict[int, list[tuple[str, int, int]]] = {}
    doc_freq: Counter[str] = Counter()
    by_top: dict[int, list[tuple[float, int]]] = {}
    by_bottom: dict[int, list[tuple[float, int]]] = {}
    for idx in paragraphs:
        item = index.items[idx]
        assert isinstance(item, TextItem)
        text = index.paragraph_text(idx)
        for label in {lab for lab, _a, _b in _mentions(text, title_forms)}:
            named_by.setdefault(label, []).append(idx)
        for direction, start, end in pointing_mentions(text):
            pointed = pointed_table(index, paragraphs, tables, idx, direction)
            if pointed is not None:
                pointers.setdefault(idx, []).append((position_label(pointed), start, end))
                by_place = named_by.setdefault(position_label(pointed), [])
                if by_place[-1:] != [idx]:
                    by_place.append(idx)
        if index.has_layout:
            for box in index.boxes[item.self_ref]:
                by_top.setdefault(box.page, []).append((box.top, idx))
                by_bottom.setdefault(box.page, []).append((box.bottom, idx))
    for lists in (by_top, by_bottom):
        for entries in lists.values():
            entries.sort()
    # how rare a word is: over every paragraph of the document, boilerplate too (it is text the reader sees)
    for idx in texts:
        doc_freq.update(content_words(index.paragraph_text(idx)) | numbers(index.paragraph_text(idx)))
    tables_by_label: dict[str, list[int]] = {}
    for pos, label in sorted(table_labels.items()):
        if label:
            tables_by_label.setdefault(normalize_label(label), []).append(pos)
    quoted_by = _quotes(index, paragraphs, doc_freq, table_rows or {})
    pictures: dict[int, list[Box]] = {}
    for item in index.items:
        if isinstance(item, PictureItem):
            for box in index.boxes[item.self_ref]:
                pictures.setdefault(box.page, []).append(box)
    kept = set(paragraphs)
    return ContextIndex(
        index,
        paragraphs,
        named_by,
        tables_by_label,
        tables,
        doc_freq,
        pictures,
        title_forms,
        pointers,
        quoted_by,
        sorted(i for i in index.boilerplate if i not in kept),
        len(texts),
        by_top,
        by_bottom,
    )


def _quotes(
    index: DocIndex, paragraphs: list[int], doc_freq: Counter[str], table_rows: dict[int, TableRows]
) -> dict[int, list[int]]:
    """Table position -> the paragraphs that quote at least ``MIN_QUOTED_VALUES`` of its distinctive values (of its
    body cells), values no other table prints and at most ``QUOTE_MAX_PARAGRAPHS`` paragraphs print, and more of them
    than of any other table's."""
    owners: dict[str, set[int]] = {}
    for pos, rows in table_rows.items():
        for value in {n for row in rows.body for cell in row for n in numbers(cell)}:
            if distinctive_value(value):
                owners.setdefault(value, set()).add(pos)
    own = {value: next(iter(tables)) for value, tables in owners.items() if len(tables) == 1}
    found: dict[int, list[int]] = {}
    if not own:
        return found
    for idx in paragraphs:
        counts = Counter(
            own[n]
            for n in numbers(index.paragraph_text(idx))
            if n in own and doc_freq.get(n, 0) <= QUOTE_MAX_PARAGRAPHS
        )
        ranked = counts.most_common(2)
        if ranked and ranked[0][1] >= MIN_QUOTED_VALUES and (len(ranked) == 1 or ranked[1][1] < ranked[0][1]):
            found.setdefault(ranked[0][0], []).append(idx)
    return found


@dataclass(frozen=True)
class _Candidate:
    idx: int
    names_table: bool
    same_column: bool
    distance: float
    far: bool = False
    framed: bool = False
    """Between two paragraphs that name the table, or right after one (:func:`_framed`)."""
    quotes: bool = False
    """Quotes the table's distinctive values (``ContextIndex.quoted_by``)."""

    def rank(self) -> tuple[bool, bool, bool, float, int]:
        return (not self.names_table, self.far, not self.same_column, self.distance, self.idx)


@dataclass(frozen=True)
class ContextChoice:
    """The chosen paragraphs, each side in reading order, their priority and the character spans used.

    ``rank[k]`` is the priority of the k-th paragraph of ``before + after`` (0 = chosen first); ``spans[k]`` the
    half-open character spans of its text that are used, in order (the whole text when all of it is used).
    """

    before: tuple[int, ...]
    after: tuple[int, ...]
    rank: tuple[int, ...] = ()
    spans: tuple[tuple[tuple[int, int], ...], ...] = ()


def _window(entries: list[tuple[float, int]], lo: float, hi: float, nearest_to: float, k: int) -> Iterable[int]:
    """Positions whose key lies in ``[lo, hi]``, at most ``k`` of them, those nearest ``nearest_to`` first."""
    a = bisect_left(entries, (lo, -1))
    b = bisect_right(entries, (hi, math.inf))
    if b - a <= k:
        return [idx for _key, idx in entries[a:b]]
    if nearest_to <= lo:
        return [idx for _key, idx in entries[a : a + k]]
    return [idx for _key, idx in entries[b - k : b]]


def _layout_candidates(ctx: ContextIndex, t_idx: int, bbox_threshold: float) -> dict[int, _Candidate]:
    index = ctx.index
    table = index.items[t_idx]
    t_boxes = index.boxes[table.self_ref]
    found: dict[int, _Candidate] = {}
    near: set[int] = set()
    for tb in t_boxes:
        by_top = ctx._by_top.get(tb.page, [])
        by_bottom = ctx._by_bottom.get(tb.page, [])
        near.update(_window(by_bottom, tb.top - bbox_threshold, tb.top, tb.top, MAX_LAYOUT_NEIGHBOURS))  # above
        near.update(_window(by_top, tb.bottom, tb.bottom + bbox_threshold, tb.bottom, MAX_LAYOUT_NEIGHBOURS))  # below
        near.update(_window(by_top, tb.top, tb.bottom, tb.top, MAX_LAYOUT_NEIGHBOURS))  # level with it
        # a text straddling the table's top edge (its box starts above the table and ends inside it, as a lead-in
        # line whose box Docling's table region overlaps does) is in none of the windows above
        near.update(_window(by_bottom, tb.top, tb.bottom, tb.top, MAX_LAYOUT_NEIGHBOURS))
    for idx in near:
        if idx == t_idx or index.heading_between(idx, t_idx):
            continue
        hit = nearest_gap(index.boxes[index.items[idx].self_ref], t_boxes)
        if hit is not None and hit[0] <= bbox_threshold:
            found[idx] = _Candidate(idx, False, horizontal_overlap(hit[1], hit[2]) > 0, hit[0])
    t_pages = {b.page for b in t_boxes}
    for direction, edge_page in ((-1, min(t_pages) - 1), (1, max(t_pages) + 1)):
        # the table opens (closes) its page, or only its caption, footnotes, other non-text items or its lead-in
        # (the paragraph right above it) stand between it and the page edge
        start = t_idx
        for _step in range(MAX_LAYOUT_NEIGHBOURS):
            nxt = start + direction
            if not (0 <= nxt < len(index.items)) or index.is_heading(nxt) or index.page_of(nxt) not in t_pages:
                break
            lead_in = nxt == _paragraph_before(index, t_idx) and nxt in found and found[nxt].same_column
            if index.is_paragraph(nxt) and not (lead_in and found[nxt].distance <= LEAD_IN_GAP_PT):
                break
            start = nxt
        on_page = [index.pages_of_index.get(p, []) for p in t_pages]
        at_edge = any(ids and ids[0 if direction < 0 else -1] == start for ids in on_page)
        if not at_edge:
            continue
        # up to MAX_ORDER_STEPS paragraphs across the page break, in the same section
        idx, steps, taken = start + direction, 0, 0
        while 0 <= idx < len(index.items) and taken < MAX_ORDER_STEPS and steps < 4 * MAX_LAYOUT_NEIGHBOURS:
            if index.is_heading(idx) or index.page_of(idx) not in (edge_page, *t_pages):
                break
            if isinstance(index.items[idx], PictureItem | TableItem):
                break  # another float across the break: what lies beyond it is about that one
            if index.is_paragraph(idx) and any(b.page == edge_page for b in index.boxes[index.items[idx].self_ref]):
                taken += 1
                if idx not in found:
                    found[idx] = _Candidate(idx, False, True, bbox_threshold + taken)
            idx += direction
            steps += 1
    return found


def _order_candidates(ctx: ContextIndex, t_idx: int) -> dict[int, _Candidate]:
    index = ctx.index
    section = index.section_of(t_idx)
    j = bisect_left(ctx.paragraphs, t_idx)
    # only the text between the previous and the next table: beyond them it is theirs
    k = bisect_left(ctx.tables, t_idx)
    lo = ctx.tables[k - 1] if k > 0 else -1
    hi = ctx.tables[k + 1] if k + 1 < len(ctx.tables) and ctx.tables[k] == t_idx else len(index.items)
    # page boilerplate ("Retrieved from <url>", a menu, "(Redirected from <link>)") ends the table's neighbourhood:
    # what lies beyond it is another part of the page
    b = bisect_left(ctx.boilerplate, t_idx)
    lo = max(lo, ctx.boilerplate[b - 1] if b > 0 else -1)
    hi = min(hi, ctx.boilerplate[b] if b < len(ctx.boilerplate) else len(index.items))
    found: dict[int, _Candidate] = {}
    for steps, idx in enumerate(reversed(ctx.paragraphs[max(0, j - MAX_ORDER_STEPS) : j]), start=1):
        if index.section_of(idx) == section and idx > lo:
            found[idx] = _Candidate(idx, False, True, float(steps))
    for steps, idx in enumerate(ctx.paragraphs[j : j + MAX_ORDER_STEPS], start=1):
        if idx != t_idx and index.section_of(idx) == section and idx < hi and not _introduces_a_table(index, idx):
            found[idx] = _Candidate(idx, False, True, float(steps))
    return found


def _framed(ctx: ContextIndex, naming: list[int]) -> list[int]:
    """Paragraphs that discuss the table without naming it, found by their place in the text: those between two
    paragraphs naming it, at most ``MAX_FRAMED`` of them with no heading in between ("... meta-classes (Tab. 3)",
    "Background music: all models perform worse ...", "Voice over: ...", "... (Tab. 3)"), and the one right after a
    paragraph naming it (the discussion goes on: "All results are shown in Table 1." / "If you need ... the pypdfium
    backend ... is faster"). They still have to share words or numbers with the table to be taken."""
    out: list[int] = []
    for a, b in pairwise(naming):
        inner = ctx.paragraphs[bisect_right(ctx.paragraphs, a) : bisect_left(ctx.paragraphs, b)]
        if 0 < len(inner) <= MAX_FRAMED and not ctx.index.heading_between(a, b):
            out.extend(inner)
    for a in naming:
        j = bisect_right(ctx.paragraphs, a)
        if j < len(ctx.paragraphs) and not ctx.index.heading_between(a, ctx.paragraphs[j]):
            out.append(ctx.paragraphs[j])
    return out


def _naming(ctx: ContextIndex, t_idx: int, label: str | None) -> list[int]:
    """Paragraphs naming the table: by its label, when their nearest table with that label is this one (a
    reference to a title, "the Schedule", names the next table so titled when it is within ``TITLE_REACH`` — the
    notice text comes before its schedule — else the one before within reach); and by its place ("the following
    table", :mod:`docling_evidence.units.deixis`). In reading order."""
    out = list(ctx.named_by.get(position_label(t_idx), []))
    if not label:
        return out
    label = normalize_label(label)
    tables = ctx.tables_by_label.get(label, [t_idx])
    by_title = is_title_label(label)
    for idx in ctx.named_by.get(label, []):
        j = bisect_left(tables, idx)
        if by_title:
            reachable = [t for t in tables[max(0, j - 1) : j + 1] if abs(t - idx) <= TITLE_REACH]
            nearest = max(reachable) if reachable else None
        else:
            nearest = min(tables[max(0, j - 1) : j + 1], key=lambda t: (abs(t - idx), t))
        if nearest == t_idx:
            out.append(idx)
    return sorted(set(out))


def _word_count(para: _Paragraph, k: int) -> int:
    """Words (not numbers or punctuation) in sentence ``k`` of ``para``."""
    a, b = para.spans[k]
    return len(words(para.text[a:b]))


def _relevant_sentences(
    ctx: ContextIndex,
    para: _Paragraph,
    terms: TableTerms,
    names: frozenset[str],
    adjacent: int = 0,
    every: bool = False,
    threshold: float = RELEVANCE_THRESHOLD,
) -> list[tuple[float, int]]:
    """(priority weight, sentence number) of the sentences that explain the table, most important first.

    A paragraph naming other tables and not this one describes them: none of its sentences is taken. Every other
    sentence of a short paragraph adjacent to the table (:func:`_adjacent`; ``adjacent`` -1 before it, +1 after it)
    counts, ranked by its weight; of a longer one, the sentence next to the table counts besides the relevant ones.
    With ``every`` (a paragraph of the table's own section, without layout), every sentence counts, ranked.
    ``names`` are the labels under which the table is named: its "Table 3" label or title, and its place
    (:func:`~docling_evidence.units.deixis.position_label`).
    """
    named_any = frozenset().union(*para.named) if para.named else frozenset()
    if named_any and not named_any & names:
        return []
    chosen: dict[int, float] = {}
    after_naming = False
    for k in range(len(para.spans)):
        named = para.named[k]
        if named & names:
            # "Table 3 shows ..." (the table is the subject) before "... (see Table 3)"
            s, e = para.spans[k]
            first = min((a for lab, a, _b in para.mentions if lab in names and s <= a < e), default=s)
            chosen[k] = NAMING_WEIGHT * (2 - (first - s) / max(1, e - s))
            after_naming = True
            continue
        if named or para.figure[k]:
            after_naming = False
            continue
        shared_words = para.words[k] & terms.words
        shared_numbers = para.numbers[k] & terms.numbers
        # fsum: a set's iteration order varies with the hash seed, and a plain float sum with it, which decided
        # ties between sentences differently from one process to the next
        score = math.fsum(ctx.weight(w) for w in shared_words)
        score += math.fsum(ctx.weight(n) + NUMBER_BONUS for n in shared_numbers)
        # one shared word is too weak a sign (every paragraph of a paper shares one with each table)
        short = len(para.spans) <= ADJACENT_MAX_SENTENCES
        next_to_table = (adjacent < 0 and k == len(para.spans) - 1) or (adjacent > 0 and k == 0)
        if not shared_words and not any(len(n.replace(",", "")) >= MIN_NUMBER_CHARS for n in shared_numbers):
            shared_numbers = set()  # only small integers in common: no tie
            score = 0.0
        word_count = _word_count(para, k)
        substantial = (adjacent < 0 and (word_count > 0 or bool(para.numbers[k]))) or word_count >= ADJACENT_MIN_WORDS
        if score >= threshold and (shared_numbers or len(shared_words) >= MIN_SHARED_WORDS):
            chosen[k] = score
        elif every or (adjacent and (short or next_to_table) and substantial):
            chosen[k] = score / 1000 - 1  # weak: text next to the table, taken after every relevant sentence
        elif after_naming:
            chosen[k] = 0.0
        after_naming = False
    return sorted(((w, k) for k, w in chosen.items()), key=lambda wk: (-wk[0], wk[1]))


def choose_context(
    ctx: ContextIndex,
    t_idx: int,
    *,
    terms: TableTerms,
    excluded: set[str],
    bbox_threshold: float,
    budget: int,
    count_text: Callable[[str], int],
    text_end: dict[int, int] | None = None,
    keep: Callable[[list[int]], list[bool]] | None = None,
    room: int | None = None,
    naming_budget: int | None = None,
) -> ContextChoice:
    """Choose the context of the table at reading position ``t_idx``.

    Args:
        ctx: the document's :class:`ContextIndex`.
        t_idx: the table's reading position.
        terms: the table's label, words and numbers (:func:`table_terms`).
        excluded: refs that may not be context (captions and footnotes of any unit).
        bbox_threshold: largest vertical distance in points on paginated documents.
        budget: token budget for all chosen sentences together.
        count_text: tokens of a text.
        text_end: reading position -> where that paragraph's usable text ends (a paragraph that ends with this
            table's caption contributes only what comes before the caption); such paragraphs may be context even
            when their ref is in ``excluded``.
        keep: optional gate (e.g. embedding similarity) returning, per candidate position, whether it may be used.
        room: tokens left beside a table that fits one piece (None: it does not fit anyway). Only sentences naming
            the table may take more than that, up to ``budget``: other context never makes such a table split.
        naming_budget: token budget of the sentences naming the table (None: ``budget``); every other sentence
            is taken only while all of them stay within ``budget`` (and ``room``).
    """
    if budget <= 0 or _inside_picture(ctx, t_idx):
        return ContextChoice((), (), (), ())
    index = ctx.index
    text_end = text_end or {}
    layout = paginated(index, t_idx)
    candidates = _layout_candidates(ctx, t_idx, bbox_threshold) if layout else _order_candidates(ctx, t_idx)
    naming = _naming(ctx, t_idx, terms.label)
    names = frozenset({position_label(t_idx), *([terms.label] if terms.label else [])})
    for idx in naming:
        near = candidates.get(idx)
        candidates[idx] = _Candidate(idx, True, near.same_column if near else False, near.distance if near else 0.0)
        if near is None:
            candidates[idx] = _Candidate(idx, True, False, float(abs(idx - t_idx)), far=True)
    for idx in _framed(ctx, sorted(naming)):
        if idx != t_idx and idx not in naming:
            near = candidates.get(idx)
            candidates[idx] = (
                replace(near, framed=True)
                if near
                else _Candidate(idx, False, False, float(abs(idx - t_idx)), far=True, framed=True)
            )
    for idx in ctx.quoted_by.get(t_idx, ()):
        near = candidates.get(idx)
        candidates[idx] = (
            replace(near, quotes=True)
            if near
            else _Candidate(idx, False, False, float(abs(idx - t_idx)), far=True, quotes=True)
        )
    adjacent = _adjacent(ctx, t_idx, candidates, layout)
    relevant: dict[int, list[tuple[float, int]]] = {}
    for idx in candidates:
        ref = index.items[idx].self_ref
        if ref in excluded and idx not in text_end:
            continue
        para = ctx.paragraph(idx, text_end.get(idx))
        if idx not in text_end and looks_like_caption(para.text):
            continue  # "Table 1: ..." that is nobody's caption is the caption of a float Docling did not detect
        if looks_like_figure_caption(para.text):
            continue  # "Fig 2 Overall emissions ... (b) factors from Table 3": a figure's caption is about the figure
        cand = candidates[idx]
        if idx > t_idx and not cand.names_table and _introduces_a_table(index, idx):
            continue  # the text between two tables that leads into the next one is that one's
        by_place = (cand.framed or cand.quotes) and (cand.far or not cand.same_column)
        if by_place and (any(para.figure) or any(para.named)) and not cand.names_table:
            continue  # found by its place or its numbers, but about a figure or another table
        sentences = _relevant_sentences(
            ctx,
            para,
            terms,
            names,
            adjacent.get(idx, 0),
            not layout and not cand.far,
            FRAMED_RELEVANCE_THRESHOLD if by_place else RELEVANCE_THRESHOLD,
        )
        if sentences:
            relevant[idx] = sentences
    ranked = sorted((candidates[i] for i in relevant), key=_Candidate.rank)
    if layout and any(c.same_column and not c.far for c in ranked):
        own_column = {c.idx for c in ranked if c.same_column}
        ranked = [
            c
            for c in ranked
            if c.same_column or c.names_table or c.framed or c.quotes or _continues(ctx, c.idx, own_column)
        ]
    if keep is not None and ranked:
        allowed = keep([c.idx for c in ranked])
        ranked = [c for c, ok in zip(ranked, allowed, strict=True) if ok]
    # 1. sentences naming the table (from every paragraph), then the sentences that follow them; 2. whole paragraphs
    # (their listed sentences), in rank order, that still fit; 3. the remaining sentences sharing words/numbers with
    # the table, then the weak ones (next to the table, or in its section without layout)
    order = [
        (
            _tier(weight, cand.quotes and _quotes_values(ctx.paragraph(cand.idx, text_end.get(cand.idx)), k, terms)),
            pos,
            -weight,
            k,
        )
        for pos, cand in enumerate(ranked)
        for weight, k in relevant[cand.idx]
    ]
    # naming sentences: the table as the sentence's subject first, then by paragraph rank
    order.sort(key=lambda entry: (entry[0], entry[2], entry[1]) if entry[0] == 0 else entry)
    costs: dict[tuple[int, int], int] = {}

    def cost(idx: int, k: int) -> int:
        if (idx, k) not in costs:
            para = ctx.paragraph(idx, text_end.get(idx))
            a, b = para.spans[k]
            costs[(idx, k)] = count_text(para.text[a:b])
        return costs[(idx, k)]

    used = 0
    taken: dict[int, list[int]] = {}

    def take(idx: int, ks: list[int]) -> None:
        nonlocal used
        taken.setdefault(idx, []).extend(ks)
        used += sum(cost(idx, k) for k in ks)

    cap = budget if room is None else min(budget, room)  # only a sentence naming the table may exceed the room
    naming_cap = max(budget, naming_budget or 0)
    for tier, pos, _weight, k in order:
        if tier <= 1 and used + cost(ranked[pos].idx, k) <= (naming_cap if tier < 1 else cap):
            take(ranked[pos].idx, [k])
    for cand in ranked:
        rest = [k for _w, k in relevant[cand.idx] if k not in taken.get(cand.idx, ())]
        if rest and used + sum(cost(cand.idx, k) for k in rest) <= cap:
            take(cand.idx, rest)
    for tier, pos, _weight, k in order:
        idx = ranked[pos].idx
        if tier >= 2 and k not in taken.get(idx, ()) and used + cost(idx, k) <= cap:
            take(idx, [k])
    priority = {idx: k for k, idx in enumerate(taken)}
    chosen = sorted(taken)
    spans = []
    for idx in chosen:
        para = ctx.paragraph(idx, text_end.get(idx))
        ks = sorted(taken[idx])
        if len(ks) == len(para.spans) and idx not in text_end:
            spans.append(((0, len(para.text)),))
        else:
            spans.append(tuple(_merge(para.text, [para.spans[k] for k in ks])))
    return ContextChoice(
        before=tuple(i for i in chosen if i < t_idx),
        after=tuple(i for i in chosen if i > t_idx),
        rank=tuple(priority[i] for i in chosen),
        spans=tuple(spans),
    )


def _tier(weight: float, quotes_value: bool) -> float:
    """The pass a sentence of priority ``weight`` is taken in (:func:`choose_context`): 0 naming the table, 0.5
    quoting one of its distinctive values (both under the naming budget), 1 right after a naming sentence, 2 sharing
    words or numbers with the table, 3 weak (next to it, or in its section)."""
    if weight >= NAMING_WEIGHT:
        return 0
    if quotes_value and weight > 0:
        return 0.5
    if weight == 0.0:
        return 1
    return 2 if weight > 0 else 3


def _quotes_values(para: _Paragraph, k: int, terms: TableTerms) -> bool:
    """Whether sentence ``k`` of ``para`` quotes a distinctive value of the table."""
    return any(distinctive_value(n) for n in para.numbers[k] & terms.numbers)


def paginated(index: DocIndex, t_idx: int) -> bool:
    """Whether the table at reading position ``t_idx`` is placed on a page (its document has layout and the table
    a box): its context candidates are then its page neighbours."""
    return index.has_layout and bool(index.boxes[index.items[t_idx].self_ref])


def _inside_picture(ctx: ContextIndex, t_idx: int) -> bool:
    """A "table" lying inside a picture is a fragment of a figure: no paragraph explains it as a table."""
    boxes = ctx.index.boxes[ctx.index.items[t_idx].self_ref]
    if not boxes:
        return False
    return all(any(inside(tb, pb) for pb in ctx.pictures.get(tb.page, [])) for tb in boxes)


def _in_table(index: DocIndex, idx: int, t_idx: int) -> bool:
    """Whether every box of the item at ``idx`` lies inside a box of the table at ``t_idx``."""
    boxes = index.boxes[index.items[idx].self_ref]
    t_boxes = index.boxes[index.items[t_idx].self_ref]
    return bool(boxes) and all(any(inside(b, tb) for tb in t_boxes) for b in boxes)


def _paragraph_before(index: DocIndex, t_idx: int, direction: int = -1) -> int | None:
    """The paragraph before (``direction`` -1) or after (+1) the table in reading order with only captions,
    footnotes or other non-text items (not pictures or tables) between (at most ``MAX_LAYOUT_NEIGHBOURS``), or
    None."""
    idx = t_idx + direction
    while 0 <= idx < len(index.items) and abs(t_idx - idx) <= MAX_LAYOUT_NEIGHBOURS:
        if index.is_paragraph(idx):
            return idx
        item = index.items[idx]
        if isinstance(item, PictureItem) and _in_table(index, idx, t_idx):
            idx += direction  # an image in one of the table's cells (a logo, a symbol) is part of the table
            continue
        if index.is_heading(idx) or isinstance(item, PictureItem | TableItem):
            return None  # another float, or a heading, stands between
        if isinstance(item, TextItem) and item.self_ref not in index.satellites:
            return None
        idx += direction
    return None


def _adjacent(ctx: ContextIndex, t_idx: int, candidates: dict[int, _Candidate], layout: bool) -> dict[int, int]:
    """The paragraphs right before and right after the table in reading order (only non-text items, captions or
    footnotes between), when they are candidates — with layout, in the table's column on its page, or (before the
    table) at the end of the previous page: they introduce or discuss it even in words it does not share ("(Please
    select all that apply)", an option's description)."""
    index = ctx.index
    t_pages = {b.page for b in index.boxes[index.items[t_idx].self_ref]}
    found: dict[int, int] = {}
    for direction in (-1, 1):
        idx = _paragraph_before(index, t_idx, direction)
        if idx is None or idx not in candidates:
            continue
        on_page = any(b.page in t_pages for b in index.boxes[index.items[idx].self_ref])
        # with layout: in the table's column on its page, or the text that ends the previous page (a lead-in)
        if layout and not ((candidates[idx].same_column and on_page) or (direction < 0 and not on_page)):
            continue
        if direction > 0 and _introduces_a_table(index, idx):
            continue  # the text between two tables that leads into the next one is that one's
        found[idx] = direction
    return found


def _introduces_a_table(index: DocIndex, idx: int) -> bool:
    """Whether the next item after the paragraph at ``idx`` (captions and footnotes skipped) is a table."""
    last = max(index.members(idx))
    nxt = last + 1
    while nxt < len(index.items) and nxt - last <= MAX_LAYOUT_NEIGHBOURS:
        item = index.items[nxt]
        if isinstance(item, TableItem):
            return True
        if not (isinstance(item, TextItem) and item.self_ref in index.satellites):
            return False
        nxt += 1
    return False


def _continues(ctx: ContextIndex, idx: int, own_column: set[int]) -> bool:
    """Whether the paragraph at ``idx`` goes on from one in the table's column (text running across a column
    break): the paragraph before it in reading order is one of ``own_column``."""
    j = bisect_left(ctx.paragraphs, idx)
    return j > 0 and ctx.paragraphs[j - 1] in own_column and not ctx.index.heading_between(ctx.paragraphs[j - 1], idx)


def _merge(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Join consecutive sentence spans separated only by white space into one span."""
    out: list[tuple[int, int]] = []
    for a, b in spans:
        if out and not text[out[-1][1] : a].strip():
            out[-1] = (out[-1][0], b)
        else:
            out.append((a, b))
    return out
