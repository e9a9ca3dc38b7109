"""The per-document facts context search reads, built once per document (:func:`build_context_index`): which
paragraphs may be context, which name which table (by label, title or place), which quote a table's values, how
rare each word is, and where paragraphs and pictures sit on each page.

One pass over the paragraphs; each table's search then looks at a bounded number of them (:mod:`.candidates`).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from docling_core.types.doc import PictureItem, TextItem

from docling_evidence.context.params import DEFAULT_PARAMS, ContextParams
from docling_evidence.context.terms import distinctive_value
from docling_evidence.document.index import DocIndex
from docling_evidence.document.layout import Box
from docling_evidence.tables.rows import TableRows
from docling_evidence.text.sentences import sentence_spans
from docling_evidence.text.words import content_words, numbers
from docling_evidence.units.captions import mentions_figure, normalize_label, table_mentions
from docling_evidence.units.deixis import (
    DEFAULT_POINTING_RULES,
    PointingRules,
    pointed_table,
    pointing_mentions,
    position_label,
)
from docling_evidence.units.titles import DEFAULT_TITLE_RULES, TitleRules, title_mentions, title_set

Mention = tuple[str, int, int]
"""A reference to a table in a text: (normalised label, start, end)."""


@dataclass
class Paragraph:
    """One candidate paragraph's sentences and what each of them names and holds."""

    text: str
    spans: list[tuple[int, int]]
    named: list[frozenset[str]]
    """Per sentence: the table labels it names."""
    mentions: list[Mention]
    """Every table mention of the text."""
    figure: list[bool]
    """Per sentence: whether it names a figure."""
    words: list[set[str]]
    """Per sentence: its content words (:func:`~docling_evidence.text.words.content_words`)."""
    numbers: list[set[str]]
    """Per sentence: its numbers (:func:`~docling_evidence.text.words.numbers`)."""


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
    """Page -> boxes of the pictures on it."""
    titles: frozenset[str] = frozenset()
    """The titles of tables titled by a heading, whose references name them (:mod:`docling_evidence.units.titles`)."""
    pointers: dict[int, list[Mention]] = field(default_factory=dict)
    """Reading position of a paragraph -> its references to a table by place ("the table below"), each as
    (:func:`~docling_evidence.units.deixis.position_label` of the table it points at, start, end)."""
    quoted_by: dict[int, list[int]] = field(default_factory=dict)
    """Reading position of a table -> reading positions of the paragraphs quoting its values
    (``ContextParams.min_quoted_values``)."""
    boilerplate: list[int] = field(default_factory=list)
    """Reading positions of the page boilerplate that is no context (``DocIndex.boilerplate`` naming no table),
    ascending."""
    text_count: int = 0
    """How many paragraphs ``doc_freq`` counts over (boilerplate included; 0: ``len(paragraphs)``)."""
    by_top: dict[int, list[tuple[float, int]]] = field(default_factory=dict)
    """Page -> (top edge, reading position) of each paragraph box on it, ascending."""
    by_bottom: dict[int, list[tuple[float, int]]] = field(default_factory=dict)
    """Page -> (bottom edge, reading position) of each paragraph box on it, ascending."""
    params: ContextParams = DEFAULT_PARAMS
    """The rules the index was built with; context is chosen by the same ones."""
    title_rules: TitleRules = DEFAULT_TITLE_RULES
    """How long a title is and how far a reference by title reaches (:mod:`docling_evidence.units.titles`)."""
    _parsed: dict[tuple[int, int | None], Paragraph] = field(default_factory=dict)

    def paragraph(self, idx: int, end: int | None = None) -> Paragraph:
        """The sentences of the paragraph at ``idx`` (only of ``text[:end]`` when ``end`` is given)."""
        key = (idx, end)  # the same paragraph read to another end has other sentences
        if key not in self._parsed:
            # an inline group's runs (text, links, code spans) are one paragraph: its sentences are those of the
            # runs' joined text, a sentence may hold a link or a code span
            text = self.index.paragraph_text(idx)
            spans = sentence_spans(text[:end] if end is not None else text)
            mentions = self.mentions(text) + self.pointers.get(idx, [])
            named = [frozenset(lab for lab, a, b in mentions if a < e and b > s) for s, e in spans]
            self._parsed[key] = Paragraph(
                text=text,
                spans=spans,
                named=named,
                mentions=mentions,
                figure=[mentions_figure(text[s:e]) for s, e in spans],
                words=[content_words(text[s:e]) for s, e in spans],
                numbers=[numbers(text[s:e]) for s, e in spans],
            )
        return self._parsed[key]

    def mentions(self, text: str) -> list[Mention]:
        """Every table ``text`` names, by label or by title, with its span (:func:`text_mentions`)."""
        return text_mentions(text, self.titles, self.title_rules)

    def weight(self, term: str) -> float:
        """Inverse document frequency of a word or number over the document's paragraphs (at least log 2)."""
        n = max(1, self.text_count or len(self.paragraphs))
        return math.log(1 + n / max(1, self.doc_freq.get(term, 0)))


def text_mentions(text: str, titles: frozenset[str], title_rules: TitleRules = DEFAULT_TITLE_RULES) -> list[Mention]:
    """Every table ``text`` names, by label ("Table 3") or by one of ``titles`` ("the First Schedule", at most
    ``title_rules.max_words`` words), with its span."""
    return table_mentions(text) + title_mentions(text, titles, title_rules)


def build_context_index(
    index: DocIndex,
    table_labels: dict[int, str | None],
    titles: Iterable[str] = (),
    table_rows: dict[int, TableRows] | None = None,
    *,
    params: ContextParams = DEFAULT_PARAMS,
    title_rules: TitleRules = DEFAULT_TITLE_RULES,
    pointing_rules: PointingRules = DEFAULT_POINTING_RULES,
) -> ContextIndex:
    """One pass over the document's paragraphs: mentions, word frequencies and per-page position lists.

    Args:
        index: the document's reading-order index.
        table_labels: reading position of each unit table -> its label (from its caption, or
            :func:`~docling_evidence.units.titles.title_label` of its title), or None.
        titles: the titles of the tables titled by a heading, whose references name them.
        table_rows: reading position of each unit table -> its rows, whose body's distinctive values tie the
            paragraphs quoting them to it.
        params: the rules of context choice (pass the same ones to ``choose_context``).
        title_rules: how long a title is and how far a reference by title reaches.
        pointing_rules: how far a reference by place ("the table below") reaches.
    """
    title_forms = title_set(titles)
    # page boilerplate (a link line, a label line, navigation: DocIndex.boilerplate) explains no table, unless it
    # names one ("See Table 2", the whole text a link)
    texts = [i for i in range(len(index.items)) if index.is_paragraph(i)]
    paragraphs = [
        i
        for i in texts
        if i not in index.boilerplate
        or text_mentions(index.paragraph_text(i), title_forms, title_rules)
        or pointing_mentions(index.paragraph_text(i))
    ]
    tables = sorted(table_labels)
    named_by, pointers = _references(index, paragraphs, tables, title_forms, (title_rules, pointing_rules))
    # how rare a word is: over every paragraph of the document, boilerplate too (it is text the reader sees)
    doc_freq: Counter[str] = Counter()
    # each paragraph's numbers, read once: the quotes below look at them again
    numbers_of: dict[int, set[str]] = {}
    for idx in texts:
        text = index.paragraph_text(idx)
        found = numbers_of[idx] = numbers(text)
        doc_freq.update(content_words(text) | found)
    tables_by_label: dict[str, list[int]] = {}
    for pos, label in sorted(table_labels.items()):
        if label:
            tables_by_label.setdefault(normalize_label(label), []).append(pos)
    by_top, by_bottom = _edges_by_page(index, paragraphs)
    kept = set(paragraphs)
    return ContextIndex(
        index,
        paragraphs,
        named_by,
        tables_by_label,
        tables,
        doc_freq,
        pictures=_pictures_by_page(index),
        titles=title_forms,
        pointers=pointers,
        quoted_by=_quotes(numbers_of, paragraphs, doc_freq, table_rows or {}, params),
        boilerplate=sorted(i for i in index.boilerplate if i not in kept),
        text_count=len(texts),
        by_top=by_top,
        by_bottom=by_bottom,
        params=params,
        title_rules=title_rules,
    )


def _references(
    index: DocIndex,
    paragraphs: list[int],
    tables: list[int],
    title_forms: frozenset[str],
    rules: tuple[TitleRules, PointingRules],
) -> tuple[dict[str, list[int]], dict[int, list[Mention]]]:
    """Label (or position label) -> the paragraphs naming that table, in reading order; and paragraph -> its
    references to a table by place, resolved to the table they point at (``rules``: by title, by place)."""
    title_rules, pointing_rules = rules
    named_by: dict[str, list[int]] = {}
    pointers: dict[int, list[Mention]] = {}
    for idx in paragraphs:
        text = index.paragraph_text(idx)
        for label in {lab for lab, _a, _b in text_mentions(text, title_forms, title_rules)}:
            named_by.setdefault(label, []).append(idx)
        for direction, start, end in pointing_mentions(text):
            pointed = pointed_table(index, paragraphs, tables, idx, direction, pointing_rules)
            if pointed is not None:
                pointers.setdefault(idx, []).append((position_label(pointed), start, end))
                by_place = named_by.setdefault(position_label(pointed), [])
                if by_place[-1:] != [idx]:
                    by_place.append(idx)
    return named_by, pointers


def _edges_by_page(
    index: DocIndex, paragraphs: list[int]
) -> tuple[dict[int, list[tuple[float, int]]], dict[int, list[tuple[float, int]]]]:
    """Page -> sorted (top, position) and (bottom, position) of the paragraphs' boxes (empty without layout)."""
    by_top: dict[int, list[tuple[float, int]]] = {}
    by_bottom: dict[int, list[tuple[float, int]]] = {}
    if index.has_layout:
        for idx in paragraphs:
            item = index.items[idx]
            assert isinstance(item, TextItem)
            for box in index.boxes[item.self_ref]:
                by_top.setdefault(box.page, []).append((box.top, idx))
                by_bottom.setdefault(box.page, []).append((box.bottom, idx))
    for lists in (by_top, by_bottom):
        for entries in lists.values():
            entries.sort()
    return by_top, by_bottom


def _pictures_by_page(index: DocIndex) -> dict[int, list[Box]]:
    pictures: dict[int, list[Box]] = {}
    for item in index.items:
        if isinstance(item, PictureItem):
            for box in index.boxes[item.self_ref]:
                pictures.setdefault(box.page, []).append(box)
    return pictures


def _quotes(
    numbers_of: dict[int, set[str]],
    paragraphs: list[int],
    doc_freq: Counter[str],
    table_rows: dict[int, TableRows],
    params: ContextParams,
) -> dict[int, list[int]]:
    """Table position -> the paragraphs that quote at least ``params.min_quoted_values`` of its distinctive values
    (of its body cells), values no other table prints and at most ``params.quoted_value_max_paragraphs`` paragraphs
    print, and more of them than of any other table's. ``numbers_of``: each paragraph's :func:`numbers`."""
    owners: dict[str, set[int]] = {}
    for pos, rows in table_rows.items():
        for value in {n for row in rows.body for cell in row for n in numbers(cell)}:
            if distinctive_value(value, params):
                owners.setdefault(value, set()).add(pos)
    own = {value: next(iter(tables)) for value, tables in owners.items() if len(tables) == 1}
    found: dict[int, list[int]] = {}
    if not own:
        return found
    for idx in paragraphs:
        counts = Counter(
            own[n] for n in numbers_of[idx] if n in own and doc_freq.get(n, 0) <= params.quoted_value_max_paragraphs
        )
        ranked = counts.most_common(2)
        if ranked and ranked[0][1] >= params.min_quoted_values and (len(ranked) == 1 or ranked[1][1] < ranked[0][1]):
            found.setdefault(ranked[0][0], []).append(idx)
    return found
