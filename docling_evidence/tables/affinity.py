"""Which body rows of a table a context text names: its row label, or a value found in no other row.

A split table's context is placed by these matches (``docling_evidence.split.pieces``): a paragraph or sentence
that names a few rows goes into the piece holding the first of them, so each piece's embedding stays about its own
rows; context that names no row, or many rows, is general and goes once per unit, into the first piece. (A table
that fits one piece without its context stays one piece: texts naming rows are the first to go beside them, the rest
fills the room, and what does not fit gets pieces of its own before it.)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from docling_evidence.tables.rows import TableRows
from docling_evidence.text.words import numbers, words

MAX_NAMED_ROWS = 3
"""A text that names more rows than this is about the table as a whole (general context), not about rows."""

MIN_LABEL_CHARS = 3
"""A row label shorter than this (after normalising) is too unspecific to name its row."""

MIN_VALUE_CHARS = 3
"""A value with fewer characters as written (``5``, ``12``) is too common to name a row; ``12.5``, ``2019``,
``1,234`` are not."""

MAX_LABEL_WORDS = 12
"""Longer row labels are not looked for in the text (they would be rows of prose, not labels)."""


def _label_words(text: str) -> list[str]:
    """The words of a row label or a text as labels are matched: caseless, numbers and hyphenated parts included."""
    return words(text.casefold(), numerals=True)


def _values(text: str) -> set[str]:
    """The values of ``text`` that may name a row: numbers standing on their own, at least ``MIN_VALUE_CHARS`` long
    as written (a number inside a word, "FY2019", is part of a name, not a value)."""
    return numbers(text, inside_words=False, min_significant_digits=0, min_chars=MIN_VALUE_CHARS)


def named_rows(texts: Sequence[str], rows: TableRows) -> tuple[tuple[int, ...], ...]:
    """For each of ``texts``, the body rows it names (sorted), or ``()`` when it names none or more than
    ``MAX_NAMED_ROWS``.

    A text names row ``r`` when it contains the row's label (its label cells, joined; a label shared by several rows
    names none of them) or a number of the row that no other body row holds. Labels match case-insensitively on whole
    words; numbers match with or without thousands separators. Time is linear in the rows and in the texts' length.
    """
    body = rows.body
    if not body or not texts:
        return tuple(() for _ in texts)
    label_rows: dict[str, list[int]] = {}
    for r, row in enumerate(body):
        label_words = _label_words(" ".join(row[: rows.label_cols]))
        phrase = " ".join(label_words)
        if (
            len(phrase) >= MIN_LABEL_CHARS
            and len(label_words) <= MAX_LABEL_WORDS
            and any(ch.isalpha() for ch in phrase)
        ):
            label_rows.setdefault(phrase, []).append(r)
    unique_labels = {phrase: rs[0] for phrase, rs in label_rows.items() if len(rs) == 1}
    longest = max((phrase.count(" ") + 1 for phrase in unique_labels), default=0)
    row_numbers = [_values(" ".join(row[rows.label_cols :])) for row in body]
    number_count = Counter(n for values in row_numbers for n in values)
    unique_numbers = {n: r for r, values in enumerate(row_numbers) for n in values if number_count[n] == 1}
    result: list[tuple[int, ...]] = []
    for text in texts:
        text_words = _label_words(text)
        hits: set[int] = set()
        for size in range(1, longest + 1):
            for i in range(len(text_words) - size + 1):
                r = unique_labels.get(" ".join(text_words[i : i + size]))
                if r is not None:
                    hits.add(r)
        hits |= {unique_numbers[n] for n in _values(text) if n in unique_numbers}
        result.append(tuple(sorted(hits)) if 0 < len(hits) <= MAX_NAMED_ROWS else ())
    return tuple(result)
