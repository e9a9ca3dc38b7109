"""The tunable rules of splitting a unit to the token limit, as one validated model (``EvidenceParams.split``).

Shares are fractions of a token budget, rounded down to whole tokens (``floor(budget * share)``).
"""

from __future__ import annotations

import math

from pydantic import BaseModel, ConfigDict, Field, model_validator

from docling_evidence.split.fragments import SEMCHUNK_MIN_SIZE


def share_of(tokens: int, share: float) -> int:
    """``share`` of ``tokens``, rounded down to a whole number of tokens."""
    return math.floor(tokens * share)


class SplitParams(BaseModel):
    """How a unit is split into pieces. Every field is documented where it is defined; defaults are the measured
    ones."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    header_max_share: float = Field(
        default=0.5,
        gt=0,
        le=1,
        description="A header (the table's, or a column group's) is shown above rows, and repeated in pieces "
        "without rows, only while its lines cost at most this share of the budget; a caption the header lines "
        "show is kept in full beside a header within it. Measured on the budget asked for, not on a retry's.",
    )
    widest_rows_per_piece: int = Field(
        default=2,
        ge=1,
        description="Every piece leaves room for this many of the widest row lines: the repeated caption and "
        "footnotes are reduced to leave it (see row_room_max_share), and the column groups of a wide table are cut "
        "narrow enough for it.",
    )
    row_room_max_share: float = Field(
        default=0.5,
        gt=0,
        le=1,
        description="The room kept for the widest rows (widest_rows_per_piece) is at most this share of the budget.",
    )
    row_room_min_share: float = Field(
        default=0.25,
        ge=0,
        le=1,
        description="Rows get at least this share of the budget: the repeated caption and footnotes are reduced "
        "(footnotes emitted once, then the caption shortened) until they leave it.",
    )
    wide_row_quantile: float = Field(
        default=0.5,
        ge=0,
        lt=1,
        description="A table is split by columns when the row line at this quantile of the row costs (0.5: the "
        "median row) does not fit a piece beside the header; higher values split by columns less often.",
    )
    wide_overhead_max_share: float = Field(
        default=0.5,
        gt=0,
        le=1,
        description="In a table split by columns, the repeated caption and footnotes use at most this share of the "
        "budget.",
    )
    wide_row_room_share: float = Field(
        default=0.125,
        ge=0,
        le=1,
        description="In a table split by columns, the repeated caption and footnotes also leave this share of the "
        "budget for rows beside the widest header of one column.",
    )
    wide_row_room_min_tokens: int = Field(
        default=2,
        ge=0,
        description="The room wide_row_room_share leaves is at least this many tokens.",
    )
    column_sample_rows: int = Field(
        default=3,
        ge=1,
        description="Column groups are sized on this many of the widest rows; a row still too wide for its group is "
        "split by columns inside it.",
    )
    repeated_labels_max_share: float = Field(
        default=0.5,
        gt=0,
        le=1,
        description="The row-label columns are repeated in every column group only while, with their header and "
        "the widest rows, they need at most this share of a piece's room for rows.",
    )
    semchunk_min_tokens: int = Field(
        default=SEMCHUNK_MIN_SIZE,
        ge=1,
        description="Texts are cut by semchunk into fragments of at least this many tokens, and by characters below "
        "it (semchunk can recurse without end at tiny sizes); a row label that leaves less room than this for a "
        "fragment of a value is not repeated beside it.",
    )
    cell_fragment_margin_tokens: int = Field(
        default=1,
        ge=0,
        description="Tokens a cell fragment leaves free in its row line (for where the fragment meets the line's "
        "markup); each rendered fragment is then checked exactly.",
    )
    short_caption_min_tokens: int = Field(
        default=2,
        ge=1,
        description="A repeated caption shortened to fit keeps at least this many tokens before the ellipsis, or is "
        "left out of the pieces that repeat it (the full caption is shown once either way).",
    )
    context_caption_max_share: float = Field(
        default=0.5,
        gt=0,
        le=1,
        description="Beside a table kept whole, the pieces of the context that does not fit with it repeat the "
        "caption, shortened when it would take more than this share of the budget.",
    )
    whole_estimate_max_ratio: float = Field(
        default=2.0,
        ge=1,
        description="A unit is tokenized whole, to check whether it fits one piece, only when its line-by-line "
        "estimate is at most this many times the budget (tokenizing a huge table at once is the most expensive "
        "step, and the estimate is off by far less).",
    )
    overflow_fragment_share: float = Field(
        default=0.5,
        gt=0,
        lt=1,
        description="A text that turns out not to fit its piece after all (a join cost more than estimated) is cut "
        "again into fragments of this share of its tokens.",
    )
    retry_step_share: float = Field(
        default=0.0625,
        gt=0,
        lt=1,
        description="When a row does not fit even alone (joins cost more than estimated), the unit is planned again "
        "with the budget lowered by this share of it (at least one token).",
    )
    retry_min_budget: int = Field(
        default=8,
        ge=1,
        description="The unit is planned again at a lower budget only while the budget is above this; then rows too "
        "big for a piece under their header go without it, and after that the limit is too small for the table.",
    )

    @model_validator(mode="after")
    def _row_room_bounds_ordered(self) -> SplitParams:
        if self.row_room_min_share > self.row_room_max_share:
            raise ValueError(
                f"row_room_min_share ({self.row_room_min_share}) is above row_room_max_share "
                f"({self.row_room_max_share}): lower row_room_min_share or raise row_room_max_share"
            )
        return self
