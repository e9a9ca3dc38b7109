"""The human-readable Markdown listing of ``docling-evidence chunk --format md``.

It leads with a summary of the table units (caption, context paragraphs, pieces, pages), then lists the chunks in
reading order. By default a unit split into several pieces is shown by one piece only (the first holding rows), with
a line saying which pieces (rows, or context) are not shown: one long table split into 21 near-identical pieces
would otherwise bury the point. ``full=True`` (``--all``) lists every chunk. Input: the records of
:func:`docling_evidence.pipeline.chunk_record`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

_ROLE_ORDER = ("caption", "context", "table", "footnote", "text")
CAPTION_WIDTH = 80
"""Characters of a caption shown in the summary table (the chunk itself shows it whole)."""


@dataclass
class UnitSummary:
    """One table unit, gathered over its pieces."""

    unit_id: str
    caption: str | None
    caption_source: str | None
    pieces: list[int] = field(default_factory=list)
    context_refs: set[str] = field(default_factory=set)
    """One key per context paragraph (``_context_paragraphs``): their count is the summary's context column."""
    pages: set[int] = field(default_factory=set)
    rows: tuple[int, int] | None = None


def table_units(records: list[dict[str, Any]]) -> dict[str, UnitSummary]:
    """The table units of one file's records, in reading order, keyed by ``unit_id``."""
    units: dict[str, UnitSummary] = {}
    for index, record in enumerate(records):
        meta = record["meta"]
        if meta["kind"] != "table":
            continue
        unit = units.setdefault(
            meta["unit_id"], UnitSummary(meta["unit_id"], meta.get("caption"), meta.get("caption_source"))
        )
        unit.pieces.append(index)
        unit.context_refs.update(_context_paragraphs(record))
        unit.pages.update(meta.get("page_span") or [])
        if meta.get("rows"):
            first, end = meta["rows"]
            unit.rows = (min(first, unit.rows[0]), max(end, unit.rows[1])) if unit.rows else (first, end)
    return units


def _context_paragraphs(record: dict[str, Any]) -> set[str]:
    """The context paragraphs of a record, one key each: an item's ref, or for the runs of one group (an inline group:
    a paragraph Docling reads as runs of text, links and code spans) the group's ref, so a paragraph with three links
    counts once. List items are paragraphs of their own."""
    roles = record["meta"]["roles"]
    parents: dict[str, str] = {}
    for item in (record.get("chunk") or {}).get("meta", {}).get("doc_items", []):
        parent = (item.get("parent") or {}).get("$ref", "")
        if parent.startswith("#/groups/") and item.get("label") != "list_item":
            parents[item.get("self_ref", "")] = parent
    return {parents.get(ref, ref) for ref, role in roles.items() if role == "context"}


def _members_summary(record: dict[str, Any]) -> str:
    counts: dict[str, int] = {}
    for role in record["meta"]["roles"].values():
        counts[role] = counts.get(role, 0) + 1
    return ", ".join(f"{r} ×{counts[r]}" if counts[r] > 1 else r for r in _ROLE_ORDER if r in counts)


def rows_text(rows: list[int] | tuple[int, int] | None) -> str:
    """A piece's half-open ``meta.rows`` range for people: ``rows 3–7``, ``row 3``, ``no rows`` ("" for None)."""
    if not rows:
        return ""
    first, end = rows[0] + 1, rows[1]
    if end < first:
        return "no rows"  # a piece of context that did not fit beside the rows
    return f"row {first}" if end == first else f"rows {first}–{end}"


def _holds_rows(meta: dict[str, Any]) -> bool:
    """Whether a record's piece shows table rows (a piece of context has an empty ``rows`` range)."""
    rows = meta.get("rows")
    return bool(rows) and rows[1] > rows[0]


def _shown_piece(unit: UnitSummary, records: list[dict[str, Any]]) -> int:
    """The piece a short listing shows of a unit: the first one holding rows (a unit may open with pieces of context
    that did not fit beside its rows), else the first."""
    return next((index for index in unit.pieces if _holds_rows(records[index]["meta"])), unit.pieces[0])


def _parts_text(parts: list[int]) -> str:
    """``piece 2``, ``pieces 2–5`` or ``pieces 1, 3–4`` for 1-based part numbers in order."""
    runs: list[list[int]] = []
    for n in parts:
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    text = ", ".join(f"{r[0]}" if len(r) == 1 else f"{r[0]}–{r[-1]}" for r in runs)
    return f"piece {text}" if len(parts) == 1 else f"pieces {text}"


def _pages(span: list[int] | set[int]) -> str:
    pages = sorted(span)
    if not pages:
        return ""  # HTML, DOCX, Markdown: no pages to show
    return f"page {pages[0]}" if len(pages) == 1 else f"pages {pages[0]}–{pages[-1]}"


def _cell(text: str | None, width: int = CAPTION_WIDTH) -> str:
    if not text:
        return "_none found_"
    text = " ".join(text.split()).replace("|", "\\|")
    return text if len(text) <= width else text[: width - 1] + "…"


def _summary(units: dict[str, UnitSummary]) -> list[str]:
    if not units:
        return []
    lines = ["| # | unit | caption | context | pieces | pages |", "|---:|---|---|---:|---:|---|"]
    for n, unit in enumerate(units.values(), 1):
        lines.append(
            f"| T{n} | `{unit.unit_id}` | {_cell(unit.caption)} | {len(unit.context_refs)} | {len(unit.pieces)} "
            f"| {_pages(unit.pages) or '–'} |"
        )
    return [*lines, ""]


def markdown_listing(source: str, records: list[dict[str, Any]], max_tokens: int | None, full: bool = False) -> str:
    """The Markdown listing of one file's chunk records: summary of table units, then the chunks.

    Args:
        source: the input file (its name is the title).
        records: the file's chunk records, in reading order.
        max_tokens: the chunker's limit, shown in the header (None: not shown).
        full: list every piece of every unit (default: one piece of each unit, the first holding rows, and what was
            left out).
    """
    units = table_units(records)
    tags = {uid: f"T{n}" for n, uid in enumerate(units, 1)}
    limit = f" · limit {max_tokens} tokens" if max_tokens else ""
    lines = [f"# {Path(source).name}", "", f"{len(records)} chunks · {len(units)} table units{limit}", ""]
    lines += _summary(units)
    hidden = sum(len(u.pieces) - 1 for u in units.values())
    if hidden and not full:
        lines += [
            f"_Showing one piece of each table unit, the first with rows ({hidden} more pieces not shown; `--all` "
            "lists them)._",
            "",
        ]
    for i, record in enumerate(records, 1):
        meta = record["meta"]
        unit = units.get(meta["unit_id"]) if meta["kind"] == "table" else None
        if unit is not None and not full and _shown_piece(unit, records) != i - 1:
            continue
        tokens = f" · {meta['num_tokens']} tokens" if meta.get("num_tokens") is not None else ""
        pages = f" · {_pages(meta['page_span'])}" if meta["page_span"] else ""
        if unit is not None:
            part = f" · part {meta['part'] + 1} of {meta['parts']}" if meta["parts"] > 1 else ""
            rows = f" · {rows_text(meta.get('rows'))}" if meta.get("rows") else ""
            title = f"## Chunk {i} · table unit {tags[unit.unit_id]} `{unit.unit_id}`{part}{rows}{pages}{tokens}"
        else:
            title = f"## Chunk {i} · text{pages}{tokens}"
        lines += ["---", "", title, ""]
        if unit is not None:
            how = f" _(found by: {meta['caption_source']})_" if meta.get("caption_source") else ""
            caption = meta.get("caption")
            lines.append(f"**Caption:** {caption}{how}" if caption else "**Caption:** _none found_")
            lines.append(f"**Members:** {_members_summary(record)}")
            lines.append("")
        lines += [record["text"].rstrip(), ""]
        if unit is not None and not full and len(unit.pieces) > 1:
            rest = [records[j]["meta"] for j in unit.pieces if j != i - 1]
            ranges = [m["rows"] for m in rest if _holds_rows(m)]
            rows = f" ({rows_text((ranges[0][0], ranges[-1][1]))})" if ranges else " (context)"
            which = _parts_text([m["part"] + 1 for m in rest])
            lines += [f"_… {which} of {tags[unit.unit_id]}{rows} not shown; `--all` lists them._", ""]
    return "\n".join(lines) + "\n"
