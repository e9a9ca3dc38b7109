"""The tunable rules of context choice, as one validated model (``EvidenceParams.context``)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class ContextParams(BaseModel):
    """How the context of a table is chosen. Every field is documented where it is defined; defaults are the
    measured ones."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    reading_order_neighbours: int = Field(
        default=4,
        ge=0,
        description="Paragraphs taken by reading order on each side of a table: without layout, the nearest ones "
        "in its section; with layout, those across the page break when the table opens or closes its page.",
    )
    layout_neighbours: int = Field(
        default=8,
        ge=1,
        description="With layout: how many nearest paragraphs above, below and level with a table, per page, are "
        "candidates.",
    )
    max_items_between: int = Field(
        default=8,
        ge=1,
        description="Most reading-order steps (captions, footnotes, other non-text items) between a table and the "
        "paragraph found right before or after it, between a paragraph and the table it leads into, and between a "
        "table and its page's edge.",
    )
    page_break_max_items: int = Field(
        default=32,
        ge=0,
        description="With layout: most items looked at across the page break a table opens or closes, for the "
        "paragraphs there (reading_order_neighbours).",
    )
    relevance_threshold: float = Field(
        default=2.0,
        gt=0,
        description="Least weight of shared words and numbers (each word weighted by its inverse document "
        "frequency) for a sentence that does not name the table to count as explaining it.",
    )
    by_place_threshold_factor: float = Field(
        default=2.0,
        ge=1,
        description="A sentence of a paragraph found by its place in the text or by the values it quotes, and lying "
        "outside the table's layout neighbourhood or in another column, needs this many times relevance_threshold: "
        "it needs a stronger tie to the table.",
    )
    shared_number_bonus: float = Field(
        default=1.5,
        ge=0,
        description="Extra weight of a shared number over a shared word (a cell value quoted in the text is strong "
        "evidence).",
    )
    min_shared_words: int = Field(
        default=2,
        ge=1,
        description="A sentence that shares no number with the table must share at least this many distinct words "
        "with it.",
    )
    tie_number_min_chars: int = Field(
        default=3,
        ge=1,
        description="A sentence that shares no word with the table counts only through a shared number of at least "
        "this many characters as compared (digits and decimal point, no separators): a small integer ('10' in "
        "'10:00 AM') is in too many tables to tie a text to one.",
    )
    adjacent_whole_max_sentences: int = Field(
        default=3,
        ge=1,
        description="A paragraph right before or after the table of at most this many sentences counts whole; of a "
        "longer one, the sentence next to the table and the relevant sentences.",
    )
    following_min_words: int = Field(
        default=3,
        ge=0,
        description="A sentence taken only for being next to the table needs at least this many words: a signature, "
        "a dash or a stray code after a table explains nothing (a short text before it, often the table's title, "
        "needs one word or number).",
    )
    lead_in_max_gap_pt: float = Field(
        default=36.0,
        ge=0,
        description="With layout: a paragraph right above the table, in its column and at most this far (points), "
        "introduces it and lets context reach across the page break above it.",
    )
    max_framed_paragraphs: int = Field(
        default=6,
        ge=0,
        description="Most paragraphs between two paragraphs naming the table that are candidates as its discussion.",
    )
    min_quoted_values: int = Field(
        default=2,
        ge=1,
        description="A paragraph anywhere in the document that quotes at least this many of one table's distinctive "
        "values (and more of them than of any other table's) discusses that table, named or not.",
    )
    quoted_value_max_paragraphs: int = Field(
        default=2,
        ge=1,
        description="A value is distinctive of a table only when at most this many paragraphs print it: a postal "
        "code or a figure repeated in every notice ties those notices to nothing.",
    )
    distinctive_min_digits: int = Field(
        default=4,
        ge=1,
        description="A number is distinctive of a table (specific enough to tie a text to the one table printing "
        "it) with at least this many significant digits ('452680'), or distinctive_decimal_min_digits with a "
        "decimal point, and when it is not a year: small integers are counts and page numbers many things share.",
    )
    distinctive_decimal_min_digits: int = Field(
        default=3,
        ge=1,
        description="A number with a decimal point is distinctive with at least this many significant digits "
        "('98.5', '0.316'), or distinctive_min_digits without one.",
    )


DEFAULT_PARAMS = ContextParams()
"""The measured rules, for callers that pass none."""
