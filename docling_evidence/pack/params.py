"""The tunable rules of query-time packing, as one validated model (``EvidenceParams.pack``)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class PackParams(BaseModel):
    """How ``EvidenceChunker.pack`` orders what it delivers. Every field is documented where it is defined;
    defaults are the measured ones."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    rank_discount: float = Field(
        default=0.1,
        ge=0,
        le=10,
        description="Below the units delivered whole, a unit's segment scores are divided by "
        "1 + rank_discount x its rank, so that among near ties the better-ranked unit's rows and sentences go first "
        "(0: the scores alone decide).",
    )
    bridge_sentences: int = Field(
        default=2,
        ge=0,
        le=20,
        description="Rows are also scored against this many of the best-scoring sentences (a question that names "
        "its row only through what a paragraph says of it); 0 turns the second hop off.",
    )
    bridge_weight: float = Field(
        default=0.5,
        ge=0,
        le=1,
        description="What the rows' second hop adds at most, as a share of the best score of any candidate: below "
        "1, a row that matches the query as well as the best candidate stays first.",
    )
