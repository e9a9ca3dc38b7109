"""Which body rows a text names, read straight from the definition: an oracle for the tests of ``named_rows`` and
of the splitter's placement of context, independent of ``docling_evidence.tables.affinity``'s indexing."""

from __future__ import annotations

import re
from collections import Counter

from docling_evidence.tables.rows import TableRows
from docling_evidence.text.words import numbers


def rows_named_by_definition(text: str, rows: TableRows) -> tuple[int, ...]:
    r"""The body rows ``text`` names, straight from the definition: each row against the counts over all rows.

    Row ``r`` is named by its label (the words of its label cells, caseless) appearing as consecutive whole words of
    the text, when the label has 3+ characters, at most 12 words, a letter, and no other row has the same label; or
    by a value of its other cells (a number standing alone, 3+ characters as written) that no other row holds and the
    text holds. More than 3 named rows name none. Words are ``\w+`` runs; values are read by ``numbers``
    (tested in ``tests/core/test_words.py``).
    """

    def label(row: tuple[str, ...]) -> list[str]:
        return re.findall(r"\w+", " ".join(row[: rows.label_cols]).casefold())

    def values(text: str) -> set[str]:
        return numbers(text, inside_words=False, min_significant_digits=0, min_chars=3)

    text_words = re.findall(r"\w+", text.casefold())
    labels = [label(row) for row in rows.body]
    row_values = [values(" ".join(row[rows.label_cols :])) for row in rows.body]
    # how many rows have each label, and hold each value: "no other row" is a count of one (counted once per row, so
    # the oracle stays linear in the rows)
    label_rows = Counter(tuple(own) for own in labels)
    value_rows = Counter(v for vals in row_values for v in vals)
    in_text = values(text)
    named = []
    for r, own in enumerate(labels):
        phrase = " ".join(own)
        label_names = (
            len(phrase) >= 3
            and len(own) <= 12
            and any(ch.isalpha() for ch in phrase)
            and label_rows[tuple(own)] == 1
            and any(text_words[i : i + len(own)] == own for i in range(len(text_words)))
        )
        value_names = any(value_rows[v] == 1 for v in row_values[r] & in_text)
        if label_names or value_names:
            named.append(r)
    return tuple(named) if len(named) <= 3 else ()
