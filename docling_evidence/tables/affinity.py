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

from docling_evidence.tables.params import DEFAULT_TABLE_PARAMS, TableParams
from docling_evidence.tables.rows import TableRows
from docling_evidence.text.words import numbers, words


def _label_words(text: str) -> list[str]:
    """The words of a row label or a text as labels are matched: caseless, numbers and hyphenated parts included."""
    return words(text.casefold(), numerals=True)


def _values(text: str, min_chars: int) -> set[str]:
    """The values of ``text`` that may name a row: numbers standing on their own, at least ``min_chars`` long as
    written (a number inside a word, "FY2019", is part of a name, not a value)."""
    return numbers(text, inside_words=False, min_significant_digits=0, min_chars=min_chars)


def named_rows(
    texts: Sequence[str], rows: TableRows, params: TableParams = DEFAULT_TABLE_PARAMS
) -> tuple[tuple[int, ...], ...]:
    """For each of ``texts``, the body rows it names (sorted), or ``()`` when it names none or more than
    ``params.max_named_rows``.

    A text names row ``r`` when it contains the row's label (its label cells, joined; a label shared by several rows
    names none of them) or a number of the row that no other body row holds. Labels match case-insensitively on whole
    words and count when they hold a letter, at least ``params.min_row_label_chars`` characters and at most
    ``params.max_row_label_words`` words; numbers match with or without thousands separators and count from
    ``params.min_row_value_chars`` characters as written. Time is linear in the rows and in the texts' length.
    """
    body = rows.body
    if not body or not texts:
        return tuple(() for _ in texts)
    label_rows: dict[str, list[int]] = {}
    for r, row in enumerate(body):
        label_words = _label_words(" ".join(row[: rows.label_cols]))
        phrase = " ".join(label_words)
        if (
            len(phrase) >= params.min_row_label_chars
            and len(label_words) <= params.max_row_label_words
            and any(ch.isalpha() for ch in phrase)
        ):
            label_rows.setdefault(phrase, []).append(r)
    unique_labels = {phrase: rs[0] for phrase, rs in label_rows.items() if len(rs) == 1}
    longest = max((phrase.count(" ") + 1 for phrase in unique_labels), default=0)
    row_numbers = [_values(" ".join(row[rows.label_cols :]), params.min_row_value_chars) for row in body]
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
        hits |= {unique_numbers[n] for n in _values(text, params.min_row_value_chars) if n in unique_numbers}
        result.append(tuple(sorted(hits)) if 0 < len(hits) <= params.max_named_rows else ())
    return tuple(result)
