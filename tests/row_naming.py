"""Which body rows a text names, read straight from the definition: an oracle for the tests of ``named_rows`` and
of the splitter's placement of context, independent of ``docling_evidence.tables.affinity``'s indexing."""

from __future__ import annotations

import re

from docling_evidence.tables.rows import TableRows
from docling_evidence.text.words import numbers


def rows_named_by_definition(text: str, rows: TableRows) -> tuple[int, ...]:
    r"""The body rows ``text`` names, straight from the definition, one row at a time against every other row.

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
    named = []
    for r, row in enumerate(rows.body):
        others = [other for o, other in enumerate(rows.body) if o != r]
        own = label(row)
        phrase = " ".join(own)
        label_names = (
            len(phrase) >= 3
            and len(own) <= 12
            and any(ch.isalpha() for ch in phrase)
            and all(label(other) != own for other in others)
            and any(text_words[i : i + len(own)] == own for i in range(len(text_words)))
        )
        other_values = set().union(*(values(" ".join(other[rows.label_cols :])) for other in others))
        value_names = bool((values(" ".join(row[rows.label_cols :])) - other_values) & values(text))
        if label_names or value_names:
            named.append(r)
    return tuple(named) if len(named) <= 3 else ()
