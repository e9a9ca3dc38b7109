"""The tunable rules of reading a table into header and body rows (``EvidenceParams.tables``)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class TableParams(BaseModel):
    """How a table Docling marked no column header in gets one (HTML written with ``<td>`` only, JATS without
    ``<thead>``). Tables with ``column_header`` cells keep Docling's header whatever these say."""

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


DEFAULT_TABLE_PARAMS = TableParams()
"""The measured defaults, for callers that read a table without a chunker's settings."""
