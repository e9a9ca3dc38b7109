"""The tunable rules of context choice, as one validated model (``EvidenceParams.context``)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class ContextParams(BaseModel):
    """How the context of a table is chosen. Every field is documented where it is defined; defaults are the
    measured ones."""

    model_config = ConfigDict(frozen=True, extra="forbid")
