"""``EvidenceParams``: every tunable rule of the chunker, grouped by the pipeline stage that reads it.

``EvidenceChunker(params=EvidenceParams(units=UnitParams(with_caption=False)))`` switches one rule; the defaults
are the measured ones. HybridChunker's own settings (``tokenizer``, ``merge_peers``, ``repeat_table_header`` ...)
and the chunker's output switches stay top-level fields of ``EvidenceChunker``. docs/parameters.md lists every field
(``python -m docling_evidence.params`` writes it from the descriptions here).
"""

from __future__ import annotations

import warnings
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from pydantic.fields import FieldInfo

from docling_evidence.assemble.params import PieceParams, UnitParams
from docling_evidence.context.params import ContextParams
from docling_evidence.document.params import DocumentParams
from docling_evidence.pack.params import PackParams
from docling_evidence.split.params import SplitParams
from docling_evidence.tables.params import TableParams

__all__ = [
    "ContextParams",
    "DocumentParams",
    "EvidenceParams",
    "PackParams",
    "PieceParams",
    "SplitParams",
    "TableParams",
    "UnitParams",
    "parameters_markdown",
]


class EvidenceParams(BaseModel):
    """The chunker's tunable rules, one validated model per stage (frozen: change one with ``model_copy`` or a
    new model)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    document: DocumentParams = Field(
        default_factory=DocumentParams,
        description="Which texts of the document are page boilerplate (link lines, navigation), never context.",
    )
    tables: TableParams = Field(
        default_factory=TableParams,
        description="How a table's header rows are found when Docling marked none, and which rows a text names.",
    )
    units: UnitParams = Field(
        default_factory=UnitParams,
        description="What a unit attaches to its table (captions, context, footnotes) and how what belongs to a table "
        "is found (captions, titles, references by place, continued tables).",
    )
    context: ContextParams = Field(
        default_factory=ContextParams, description="How the paragraphs and sentences that explain a table are chosen."
    )
    split: SplitParams = Field(default_factory=SplitParams, description="How a unit is split into pieces.")
    pieces: PieceParams = Field(
        default_factory=PieceParams, description="How the chunker sizes context budgets and headings in pieces."
    )
    pack: PackParams = Field(
        default_factory=PackParams, description="How EvidenceChunker.pack orders the evidence it delivers."
    )


LEGACY_UNIT_SWITCHES = ("with_caption", "with_context", "with_footnotes")
"""Top-level ``EvidenceChunker`` arguments that are spelled ``params.units.<name>``."""


def move_legacy_switches(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` (``EvidenceChunker`` arguments) with top-level ``with_caption``, ``with_context`` and
    ``with_footnotes`` moved into ``params.units``, with a ``DeprecationWarning`` naming the new spelling.

    Raises:
        ValueError: when a switch is given both ways with different values.
    """
    given = {name: data[name] for name in LEGACY_UNIT_SWITCHES if name in data}
    if not given:
        return data
    data = {k: v for k, v in data.items() if k not in given}
    spelled = ", ".join(f"{name}={value!r}" for name, value in given.items())
    warnings.warn(
        f"EvidenceChunker({spelled}) is deprecated: pass params=EvidenceParams(units=UnitParams({spelled}))",
        DeprecationWarning,
        stacklevel=4,
    )
    params = EvidenceParams.model_validate(data.get("params") or {})
    units = params.units
    clashes = [n for n, v in given.items() if n in units.model_fields_set and getattr(units, n) != v]
    if clashes:
        both = ", ".join(f"{n}={given[n]!r} and params.units.{n}={getattr(units, n)!r}" for n in clashes)
        raise ValueError(f"{both} disagree: pass the switch once, as params=EvidenceParams(units=UnitParams(...))")
    explicit = units.model_dump(include=units.model_fields_set)
    data["params"] = params.model_copy(update={"units": UnitParams.model_validate({**explicit, **given})})
    return data


_STAGES: tuple[tuple[str, type[BaseModel]], ...] = (
    ("document", DocumentParams),
    ("tables", TableParams),
    ("units", UnitParams),
    ("context", ContextParams),
    ("split", SplitParams),
    ("pieces", PieceParams),
    ("pack", PackParams),
)


def _bounds(info: FieldInfo) -> str:
    """The numeric bounds of a field, as ``>= 0, <= 1``."""
    signs = {"ge": ">=", "gt": ">", "le": "<=", "lt": "<"}
    found = [f"{sign} {getattr(m, name)}" for m in info.metadata for name, sign in signs.items() if hasattr(m, name)]
    return ", ".join(found)


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def parameters_markdown() -> str:
    """docs/parameters.md: one table per stage of :class:`EvidenceParams`, from the fields' descriptions."""
    lines = [
        "# Parameters",
        "",
        "`EvidenceChunker(params=EvidenceParams(...))` holds every tunable rule of the chunker, grouped by the stage",
        "that reads it; the defaults are the measured ones. Change one rule and keep the others:",
        "",
        "```python",
        "from docling_evidence import EvidenceChunker, EvidenceParams, UnitParams",
        "",
        "chunker = EvidenceChunker(params=EvidenceParams(units=UnitParams(with_caption=False)))",
        "```",
        "",
        "The models are frozen and reject unknown names; `chunker.model_dump()['params']` round-trips through",
        "`EvidenceParams.model_validate`. HybridChunker's own settings (`tokenizer`, `merge_peers`,",
        "`repeat_table_header`, ...) and the chunker's output switches stay top-level `EvidenceChunker` fields",
        "(README, Settings); so does `merge_continued_tables`, which decides which `TableItem`s are one table rather",
        "than what a table carries. The top-level `with_caption`, `with_context` and `with_footnotes` still work,",
        "with a `DeprecationWarning` naming the new spelling; given both ways with different values, they are an",
        "error.",
        "",
        "This page is written by `python -m docling_evidence.params > docs/parameters.md`;",
        "`tests/core/test_params.py` fails when it and the models disagree.",
    ]
    for name, model in _STAGES:
        summary = " ".join((model.__doc__ or "").split("\n\n")[0].split())
        lines += ["", f"## `{name}`: `{model.__name__}` (`{model.__module__}`)", "", summary, ""]
        if not model.model_fields:
            lines.append("No fields.")
            continue
        lines += ["| Field | Default | Bounds | Description |", "|---|---|---|---|"]
        for field, info in model.model_fields.items():
            default = info.get_default(call_default_factory=True)
            lines.append(f"| `{field}` | `{default!r}` | {_bounds(info)} | {_cell(info.description or '')} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(parameters_markdown(), end="")
