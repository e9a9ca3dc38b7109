"""The tunable rules of reading a document's page boilerplate (``EvidenceParams.document``)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class DocumentParams(BaseModel):
    """Which body texts are page boilerplate (link lines, navigation, the label lines above them) rather than prose:
    boilerplate is never a table's context or a section peer, and without layout it ends a table's neighbourhood
    as a heading does (``DocIndex.boilerplate``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    link_line_max_words: int = Field(
        default=2,
        ge=0,
        le=50,
        description="A text holding a link or a URL with at most this many words besides is a link line, not prose: "
        '"Retrieved from <url>", a bare URL, a menu entry or a category that is only a link. Such a text says '
        "where to go, not what a table shows.",
    )
    label_line_max_words: int = Field(
        default=3,
        ge=0,
        le=50,
        description='A line of at most this many words without a digit, ending with a colon ("Categories:", "See '
        'also:"), labels what follows and holds no sentence; right above boilerplate it is boilerplate too (above '
        "prose it stays, as that paragraph's title).",
    )
    navigation_link_share: float = Field(
        default=1 / 3,
        ge=0.0,
        le=1.0,
        allow_inf_nan=False,
        description='A sentence holding a link is navigation ("For other uses, see <link>.") when link text makes '
        "at least this share of its words; a paragraph with links is navigation when at least half of its sentences "
        "are.",
    )


DEFAULT_DOCUMENT_PARAMS = DocumentParams()
"""The measured defaults, for callers that index a document without a chunker's settings."""
