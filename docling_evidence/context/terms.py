"""What a text may share with a table: its label and the words and numbers of its caption and cells, and which of
its numbers are specific enough to tie a text to it alone."""

from __future__ import annotations

import re
from dataclasses import dataclass

from docling_evidence.context.params import DEFAULT_PARAMS, ContextParams
from docling_evidence.tables.rows import TableRows
from docling_evidence.text.words import content_words, numbers, significant_digits
from docling_evidence.units.captions import normalize_label

_YEAR = re.compile(r"(?:19|20)\d\d")


@dataclass(frozen=True)
class TableTerms:
    """What a sentence may share with a table: its label and the words and numbers of its caption and cells."""

    label: str | None
    words: frozenset[str]
    numbers: frozenset[str]


def table_terms(rows: TableRows, caption: str, label: str | None) -> TableTerms:
    """The :class:`TableTerms` of a table from its cell texts and caption."""
    # read as one text, a line per distinct cell: neither a word nor a number runs across a line break, so this is
    # the union of each cell's words and numbers, read in one pass
    text = "\n".join(dict.fromkeys(cell for row in ((caption,), *rows.header, *rows.body) for cell in row))
    table_words = content_words(text)
    table_numbers = numbers(text)
    return TableTerms(normalize_label(label) if label else None, frozenset(table_words), frozenset(table_numbers))


def distinctive_value(number: str, params: ContextParams = DEFAULT_PARAMS) -> bool:
    """Whether a number (as :func:`~docling_evidence.text.words.numbers` gives it) is specific enough to tie a text
    to the one table printing it: ``params.distinctive_min_digits`` significant digits ("452680", "13210471"), or
    ``params.distinctive_decimal_min_digits`` with a decimal point ("98.5", "0.316"), and not a year. Small integers
    are counts, page numbers or plot numbers that many things share."""
    if _YEAR.fullmatch(number):
        return False
    digits = significant_digits(number)
    return digits >= params.distinctive_min_digits or (
        "." in number and digits >= params.distinctive_decimal_min_digits
    )
