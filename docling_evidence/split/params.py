"""The tunable rules of splitting a unit to the token limit, as one validated model (``EvidenceParams.split``)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class SplitParams(BaseModel):
    """How a unit is split into pieces. Every field is documented where it is defined; defaults are the measured
    ones."""

    model_config = ConfigDict(frozen=True, extra="forbid")
