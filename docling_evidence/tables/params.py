"""The tunable rules of reading a table into header and body rows, and of which rows a text names
(``EvidenceParams.tables``)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class TableParams(BaseModel):
    """How a table Docling marked no column header in gets one (HTML written with ``<td>`` only, JATS without
    ``<thead>``), and which body rows a context text names (``docling_evidence.tables.affinity``). Tables with
    ``column_header`` cells keep Docling's header whatever these say."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_inferred_header_rows: int = Field(
        default=3,
        ge=0,
        le=20,
        description="The most leading rows read as the header of a table Docling marked no column header in, when "
        "they read as one (text, no value cell, short cells) and the rows under them mostly hold values; 0 turns "
        "header inference off (such a table is shown without a header, as Docling marked it).",
    )
    max_header_cell_words: int = Field(
        default=12,
        ge=1,
        le=200,
        description="The most words a cell of an inferred header row holds: column headers are labels, not "
        'sentences or entries (a table of contents\' "Notices . . . . | vii" is an entry).',
    )
    max_named_rows: int = Field(
        default=3,
        ge=0,
        le=1000,
        description="A context text that names more body rows than this (by row label or by a value no other row "
        "holds) is about the table as a whole: it is general context, placed in a split unit's first piece, not "
        "beside the rows it names; 0 makes every text general context.",
    )
    min_row_label_chars: int = Field(
        default=3,
        ge=1,
        le=200,
        description="The fewest characters a row label holds (its label cells' words, caseless) to name its row in "
        'a text: shorter labels ("A", "No") are too unspecific to tie a sentence to one row.',
    )
    max_row_label_words: int = Field(
        default=12,
        ge=1,
        le=200,
        description="The most words a row label holds to be looked for in the texts: a longer one is a row of "
        "prose, not a label, and would rarely be quoted whole.",
    )
    min_row_value_chars: int = Field(
        default=3,
        ge=1,
        le=50,
        description="The fewest characters a number holds as written to name the one row that holds it: short "
        'numbers ("5", "12") recur everywhere; "12.5", "2019" and "1,234" are specific enough.',
    )


DEFAULT_TABLE_PARAMS = TableParams()
"""The measured defaults, for callers that read a table without a chunker's settings."""
