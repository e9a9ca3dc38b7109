"""A self-contained HTML report that shows what the chunker grouped: every chunk, its members and their boxes.

```python
from docling_evidence.cli.inspect_report import render_report, write_report

write_report("paper.json", "paper.inspect.html")          # converts/loads, chunks with EvidenceChunker()
html_text = render_report(doc, chunks, chunker, source="paper.json")
```

One HTML file per document, no external assets (inline CSS and SVG, no script). For each chunk: kind, unit id,
part, page span, token count against the chunker's limit, and its members (caption, context, table, footnote, text)
each marked with a coloured label; a table member shows its column labels in column order. When the document has
layout (items with provenance and page sizes), every page is drawn to scale as SVG with the members of each table
unit outlined in that unit's colour, once as an overview and again beside each table chunk; a click on a drawn page
enlarges it to the window's height (a CSS ``:target`` overlay: the page's figure is the link's target) and the close
mark or a click beside it goes back. All document text is HTML-escaped.
"""

from __future__ import annotations

import html
import math
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docling_evidence.cli.listing import rows_text
from docling_evidence.cli.safe_write import write_text
from docling_evidence.document.layout import page_heights, top_left_box
from docling_evidence.tables.formats import column_label
from docling_evidence.tables.rows import RowReader

if TYPE_CHECKING:
    from docling_core.transforms.chunker.base import BaseChunker
    from docling_core.types.doc import DocItem, DoclingDocument

ROLE_COLOURS: dict[str, str] = {
    "caption": "#b45309",
    "context": "#1d4ed8",
    "table": "#047857",
    "footnote": "#7e22ce",
    "text": "#4b5563",
}
"""Label colour of each member role (``EvidenceMeta.roles`` values)."""

UNIT_COLOURS: tuple[str, ...] = (
    "#e6194b",
    "#3cb44b",
    "#4363d8",
    "#f58231",
    "#911eb4",
    "#0fa3b1",
    "#f032e6",
    "#808000",
    "#9a6324",
    "#800000",
    "#000075",
    "#469990",
)
"""Outline colour of table units, cycled in reading order (distinct on white, readable as text)."""

_ROLE_ORDER = ("caption", "context", "table", "footnote", "text")

_CSS = """
*{box-sizing:border-box}body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;
color:#111;background:#f4f5f7}header{background:#1f2937;color:#fff;padding:14px 24px}header h1{margin:0;font-size:20px}
header p{margin:4px 0 0;color:#d1d5db}main{padding:16px 24px}h2{font-size:16px;margin:18px 0 8px}
.role{display:inline-block;border-radius:3px;padding:0 6px;margin-right:4px;color:#fff;font-size:12px;
font-weight:600}.pages{display:flex;flex-wrap:wrap;gap:10px}.page{background:#fff;border:1px solid #d1d5db;
padding:4px;margin:0}
.page figcaption{font-size:11px;color:#555;text-align:center}.chunk{background:#fff;border:1px solid #d1d5db;
border-left:8px solid #9ca3af;margin:10px 0;padding:8px 12px;display:flex;gap:14px}.chunk .body{flex:1;min-width:0}
.chunk .thumbs{display:flex;gap:6px;align-items:flex-start}.chunk h3{margin:0 0 6px;font-size:14px}
.kind{font-weight:600;text-transform:uppercase;font-size:11px;letter-spacing:.05em;color:#374151}
.tok{display:inline-block;width:120px;height:9px;background:#e5e7eb;border-radius:4px;vertical-align:middle;
overflow:hidden}.tok i{display:block;height:100%;background:#10b981}.tok.over i{background:#dc2626}
ul.members{list-style:none;margin:4px 0;padding:0}ul.members li{margin:2px 0;overflow:hidden;text-overflow:ellipsis;
white-space:nowrap}details pre{white-space:pre-wrap;background:#f9fafb;border:1px solid #e5e7eb;padding:6px;
font-size:12px;max-height:24em;overflow:auto}.muted{color:#6b7280}code{font-size:12px}
.page>a.open{display:block;cursor:zoom-in}.page>a.close{display:none}
.page:target{position:fixed;inset:0;z-index:10;margin:0;padding:12px 48px 8px;border:0;background:rgba(17,24,39,.9);
display:flex;flex-direction:column;align-items:center;justify-content:center}
.page:target>a.open{position:relative;z-index:1;cursor:default;pointer-events:none}
.page:target svg{width:auto;height:calc(100vh - 56px);max-width:calc(100vw - 96px)}
.page:target figcaption{position:relative;z-index:1;color:#f9fafb;font-size:14px;margin-top:4px}
.page:target>a.close{display:block;position:absolute;inset:0;cursor:zoom-out;color:#fff;text-decoration:none}
.page>a.close span{position:absolute;top:6px;right:16px;font-size:32px;line-height:1}
"""


@dataclass(frozen=True)
class _Box:
    """One member's box on a page, top-left origin, in page points."""

    page: int
    left: float
    top: float
    right: float
    bottom: float
    role: str
    label: str
    note: str = ""
    """Drawn after the unit's tag: "part 2/7" on each part of a table continued over pages."""


def _esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def _excerpt(text: str, limit: int = 220) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _resolve(doc: DoclingDocument, ref: str) -> DocItem | None:
    from docling_core.types.doc import RefItem

    try:
        return RefItem(cref=ref).resolve(doc)
    except Exception:  # a dangling ref must not break the report
        return None


def _members(doc: DoclingDocument, chunk: Any) -> list[tuple[str, Any]]:
    """(role, item) for every member of a chunk (its doc items plus role-only refs), by role, then document order."""
    roles: dict[str, str] = dict(getattr(chunk.meta, "roles", {}) or {})
    items: dict[str, Any] = {it.self_ref: it for it in chunk.meta.doc_items}
    for ref in roles:
        if ref not in items and (item := _resolve(doc, ref)) is not None:
            items[ref] = item
    order = {item.self_ref: i for i, (item, _level) in enumerate(doc.iterate_items(with_groups=False))}
    rank = {role: i for i, role in enumerate(_ROLE_ORDER)}
    refs = sorted(items, key=lambda r: (rank.get(roles.get(r, "text"), len(rank)), order.get(r, len(order))))
    return [(roles.get(r, "text"), items[r]) for r in refs]


class _Summaries:
    """One line per member item; a table's is its size and its column labels in column order (the header rows, or
    its first row, as :mod:`docling_evidence.tables.rows` reads them), each table read once per report."""

    def __init__(self, doc: DoclingDocument) -> None:
        self._rows = RowReader(doc)
        self._tables: dict[str, str] = {}

    def __call__(self, item: Any) -> str:
        """The item's summary line (a text item's text, else its label)."""
        from docling_core.types.doc import TableItem

        if not isinstance(item, TableItem):
            return getattr(item, "text", "") or getattr(item, "label", "")
        if item.self_ref not in self._tables:
            self._tables[item.self_ref] = self._table(item)
        return self._tables[item.self_ref]

    def _table(self, table: Any) -> str:
        rows = self._rows(table)
        if rows.header:
            labels = [column_label(rows.header, c) for c in range(rows.num_cols)]
        else:
            labels = list(rows.body[0]) if rows.body else []
        shown = [t for k, t in enumerate(labels) if t and (k == 0 or t != labels[k - 1])]  # a merged cell once
        return f"table {table.data.num_rows}×{table.data.num_cols}: " + " | ".join(shown)[:160]


def _drawable(doc: DoclingDocument, page_no: int) -> bool:
    """Whether a page has a finite, positive size (a page without one cannot be drawn to scale)."""
    page = doc.pages.get(page_no)
    size = getattr(page, "size", None)
    return size is not None and all(math.isfinite(v) and v > 0 for v in (size.width, size.height))


def non_finite_boxes(doc: DoclingDocument) -> int:
    """How many provenance boxes of ``doc`` have a NaN or infinite coordinate (they are left out of the drawing)."""
    return sum(
        not all(math.isfinite(v) for v in (prov.bbox.l, prov.bbox.t, prov.bbox.r, prov.bbox.b))
        for item, _ in doc.iterate_items(with_groups=False)
        for prov in getattr(item, "prov", None) or []
    )


def _boxes(
    doc: DoclingDocument,
    members: Iterable[tuple[str, Any]],
    summary: _Summaries,
    notes: dict[str, str] | None = None,
) -> list[_Box]:
    """The members' boxes on drawable pages; boxes with a non-finite coordinate are skipped (flagged by the caller).
    ``notes``: text drawn after the unit's tag for some items (``self_ref`` -> note)."""
    heights = page_heights(doc)
    boxes = []
    for role, item in members:
        note = (notes or {}).get(item.self_ref, "")
        for prov in getattr(item, "prov", None) or []:
            if not _drawable(doc, prov.page_no):
                continue
            box = top_left_box(prov.bbox, prov.page_no, heights, rounded=False)  # drawn to its own precision
            if box is None:
                continue
            boxes.append(_Box(prov.page_no, *box, role, _excerpt(summary(item), 120), note))
    return boxes


def _has_layout(doc: DoclingDocument) -> bool:
    return bool(doc.pages) and any(getattr(item, "prov", None) for item, _ in doc.iterate_items(with_groups=False))


def _page_svg(
    doc: DoclingDocument,
    page_no: int,
    width: int,
    background: Sequence[_Box],
    highlights: Sequence[tuple[str, str, Sequence[_Box]]],
) -> str:
    """A page drawn to scale: faint boxes for all items, then each (colour, tag, boxes) group outlined."""
    size = doc.pages[page_no].size
    scale = width / size.width
    height = round(size.height * scale)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {size.width:.1f} {size.height:.1f}" role="img" aria-label="page {page_no}">',
        f'<rect x="0" y="0" width="{size.width:.1f}" height="{size.height:.1f}" fill="#fff" stroke="#9ca3af"/>',
    ]
    for b in background:
        if b.page == page_no:
            parts.append(
                f'<rect x="{b.left:.1f}" y="{b.top:.1f}" width="{b.right - b.left:.1f}" '
                f'height="{b.bottom - b.top:.1f}" fill="#e5e7eb" stroke="#d1d5db" stroke-width="0.5"/>'
            )
    for colour, tag, boxes in highlights:
        for b in boxes:
            if b.page != page_no:
                continue
            dash = ' stroke-dasharray="4 2"' if b.role == "context" else ""
            parts.append(
                f'<rect x="{b.left:.1f}" y="{b.top:.1f}" width="{b.right - b.left:.1f}" '
                f'height="{b.bottom - b.top:.1f}" fill="{colour}" fill-opacity="0.13" stroke="{colour}" '
                # screen pixels, so that an enlarged page keeps thin outlines
                f'stroke-width="2" vector-effect="non-scaling-stroke"{dash}>'
                f"<title>{_esc(tag)} · {_esc(b.role)}: {_esc(b.label)}</title></rect>"
            )
        first = next((b for b in boxes if b.page == page_no and b.role == "table"), None)
        if first is not None:
            size_pt = max(9.0, 11.0 / scale)
            parts.append(
                f'<text x="{first.left + 2:.1f}" y="{max(first.top - 3, size_pt):.1f}" font-size="{size_pt:.1f}" '
                f'font-family="sans-serif" font-weight="bold" fill="{colour}">'
                f"{_esc(tag + (' ' + first.note if first.note else ''))}</text>"
            )
    parts.append("</svg>")
    return "".join(parts)


def _page_figure(svg: str, page_no: int, figure_id: str, back: str) -> str:
    """A drawn page that a click enlarges: the figure is its own link's ``:target`` (see the CSS); the close link,
    shown only while enlarged and covering the backdrop, goes back to ``back`` (the section's id)."""
    return (
        f'<figure class="page" id="{_esc(figure_id)}"><a class="open" href="#{_esc(figure_id)}" '
        f'title="page {page_no}: click to enlarge">{svg}</a><figcaption>page {page_no}</figcaption>'
        f'<a class="close" href="#{_esc(back)}" title="close" aria-label="close the enlarged page {page_no}">'
        "<span>×</span></a></figure>"
    )


def _role_badge(role: str) -> str:
    return f'<span class="role" style="background:{ROLE_COLOURS.get(role, "#4b5563")}">{_esc(role)}</span>'


def _pages_text(span: Sequence[int]) -> str:
    if not span:
        return "no page info"
    return f"page {span[0]}" if len(span) == 1 else f"pages {span[0]}–{span[-1]}"


def _token_bar(tokens: int | None, limit: int | None) -> str:
    if tokens is None:
        return ""
    over = limit is not None and tokens > limit
    pct = min(100.0, 100.0 * tokens / limit) if limit else 0.0
    return (
        f'<span class="tok{" over" if over else ""}" title="{tokens} of {limit} tokens">'
        f'<i style="width:{pct:.0f}%"></i></span> {tokens}/{limit or "?"} tokens'
    )


def _members_list(members: Sequence[tuple[str, Any]], summary: _Summaries) -> str:
    rows = []
    for role, item in members:
        label = getattr(item, "label", "")
        label_txt = getattr(label, "value", label)
        rows.append(
            f'<li>{_role_badge(role)} <span class="muted">{_esc(label_txt)}</span> {_esc(_excerpt(summary(item)))}</li>'
        )
    return '<ul class="members">' + "".join(rows) + "</ul>"


def _caption_line(meta: Any) -> str:
    caption = getattr(meta, "caption", None)
    if not caption:
        return '<div class="muted"><b>Caption:</b> none found</div>'
    how = getattr(meta, "caption_source", None)
    how_txt = f' <span class="muted">(found by: {_esc(how)})</span>' if how else ""
    return f"<div><b>Caption:</b> {_esc(caption)}{how_txt}</div>"


@dataclass
class _Unit:
    """A table unit gathered over its pieces."""

    tag: str
    colour: str
    pieces: list[int]
    members: dict[str, tuple[str, Any]]


@dataclass
class _Report:
    """What every section of one report reads: the chunks with their members, texts and token counts, the table
    units, and the boxes drawn on the pages."""

    doc: DoclingDocument
    chunks: Sequence[Any]
    chunk_members: list[list[tuple[str, Any]]]
    texts: list[str]
    tokens: list[int | None]
    limit: int | None
    layout: bool
    units: dict[str, _Unit]
    parts: dict[str, list[str]]
    summary: _Summaries
    unit_boxes: dict[str, list[_Box]]
    background: list[_Box]


def render_report(
    doc: DoclingDocument,
    chunks: Sequence[Any],
    chunker: BaseChunker | None = None,
    source: str | None = None,
    page_width: int = 200,
    thumb_width: int = 190,
    citations: Any = None,
) -> str:
    """Return the report for ``chunks`` of ``doc`` as one HTML string (no external resources).

    Sections: the pages with every table unit outlined (documents with layout), one card per table unit (caption,
    members of all its pieces, token count of each piece, its pages to scale), then every chunk in reading order.

    Args:
        doc: the document the chunks come from (its pages and items give the layout).
        chunks: the chunks, in reading order (``EvidenceChunk`` or any ``DocChunk`` with ``meta.roles``).
        chunker: used for ``contextualize`` and token counts; without it the raw chunk text is shown.
        source: file name shown in the title (default: the document's name).
        page_width: pixel width of each page in the overview.
        thumb_width: pixel width of each page drawn in a table unit's card.
        citations: a ``docling_evidence.cite.CitationReport`` to show first, its evidence boxes outlined on the
        pages.
    """
    report = _gather(doc, chunks, chunker)
    out = _head(report, source or doc.name, chunker)
    if citations is not None:
        out.append(citations_section(doc, citations, page_width, report.background if report.layout else []))
    out.extend(_pages_section(report, page_width))
    out.append(f"<h2>Table units ({len(report.units)})</h2>")
    out.extend(_unit_card(report, uid, unit, thumb_width) for uid, unit in report.units.items())
    out.append(f"<h2>All chunks in reading order ({len(chunks)})</h2>")
    out.extend(_chunk_section(report, index) for index in range(len(chunks)))
    out.append("</main></body></html>")
    return "\n".join(out) + "\n"


def _gather(doc: DoclingDocument, chunks: Sequence[Any], chunker: BaseChunker | None) -> _Report:
    """Read what the report shows: every chunk's members, text and tokens; the table units and their boxes."""
    from docling_evidence.pipeline import count_tokens, max_tokens_of

    limit = max_tokens_of(chunker) if chunker is not None else None
    layout = _has_layout(doc)
    chunk_members = [_members(doc, c) for c in chunks]
    texts = [chunker.contextualize(c) if chunker is not None else c.text for c in chunks]
    tokens = [count_tokens(chunker, t) if chunker is not None else None for t in texts]
    units = _table_units(chunks, chunk_members)
    # a table continued over pages is one unit of several TableItems: each part is labelled "part k/n"
    parts = {uid: [r for r, (role, _) in u.members.items() if role == "table"] for uid, u in units.items()}
    notes = {r: f"part {k + 1}/{len(p)}" for p in parts.values() if len(p) > 1 for k, r in enumerate(p)}
    summary = _Summaries(doc)
    unit_boxes = {uid: _boxes(doc, u.members.values(), summary, notes) if layout else [] for uid, u in units.items()}
    items = (("text", it) for it, _ in doc.iterate_items(with_groups=False))
    background = _boxes(doc, items, summary) if layout else []
    return _Report(
        doc, chunks, chunk_members, texts, tokens, limit, layout, units, parts, summary, unit_boxes, background
    )


def _table_units(chunks: Sequence[Any], chunk_members: list[list[tuple[str, Any]]]) -> dict[str, _Unit]:
    """The table units by unit id, in order of their first piece, each with its colour and tag (T1, T2, ...)."""
    units: dict[str, _Unit] = {}
    for index, (chunk, members) in enumerate(zip(chunks, chunk_members, strict=True)):
        if getattr(chunk.meta, "kind", "text") != "table":
            continue
        uid = chunk.meta.unit_id
        if uid not in units:
            colour = UNIT_COLOURS[len(units) % len(UNIT_COLOURS)]
            units[uid] = _Unit(tag=f"T{len(units) + 1}", colour=colour, pieces=[], members={})
        units[uid].pieces.append(index)
        for role, item in members:
            units[uid].members.setdefault(item.self_ref, (role, item))
    return units


def _head(report: _Report, name: str, chunker: BaseChunker | None) -> list[str]:
    """The document's head, its title line (counts and chunker settings) and the legend."""
    doc = report.doc
    settings = []
    for attr in ("table_format", "bbox_threshold"):
        value = getattr(chunker, attr, None) if chunker is not None else None
        if value is not None:
            settings.append(f"{attr.replace('_', ' ')} {value}")
    if report.limit:
        settings.append(f"limit {report.limit} tokens")
    return [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{_esc(name)} · docling-evidence inspector</title>",
        f"<style>{_CSS}</style></head><body>",
        f"<header><h1>{_esc(name)}</h1><p>{len(report.chunks)} chunks · {len(report.units)} table units"
        + (f" · {len(doc.pages)} pages" if doc.pages else "")
        + (f" · {_esc(' · '.join(settings))}" if settings else "")
        + "</p></header><main>",
        '<p class="legend">Members: '
        + "".join(_role_badge(r) for r in _ROLE_ORDER)
        + ' <em class="muted">Page boxes: one colour per table unit (dashed: context paragraph); grey: other items.'
        " Click a page to enlarge it."
        "</em></p>",
    ]


def _pages_section(report: _Report, page_width: int) -> list[str]:
    """Every drawable page with the table units outlined, or the line saying why no page is drawn."""
    doc = report.doc
    if not report.layout:
        if doc.pages:
            return ['<p class="muted">No item carries a bounding box: pages are not drawn.</p>']
        return ['<p class="muted">This document has no page layout (e.g. converted from HTML or DOCX).</p>']
    out = ['<h2>Pages</h2><div class="pages" id="pages">']
    highlights = [(u.colour, u.tag, report.unit_boxes[uid]) for uid, u in report.units.items()]
    for page_no in sorted(doc.pages):
        if _drawable(doc, page_no):
            svg = _page_svg(doc, page_no, page_width, report.background, highlights)
            out.append(_page_figure(svg, page_no, f"page-{page_no}", "pages"))
    out.append("</div>")
    if bad := non_finite_boxes(doc):
        message = f"{bad} bounding box(es) with a NaN or infinite coordinate are not drawn"
        warnings.warn(message, UserWarning, stacklevel=3)  # at render_report's caller
        out.append(f'<p class="muted" id="non-finite">{_esc(message)}.</p>')
    return out


def _unit_card(report: _Report, uid: str, unit: _Unit, thumb_width: int) -> str:
    """One table unit's card: caption, members of all its pieces, each piece's tokens, its pages to scale."""
    chunks = report.chunks
    first = chunks[unit.pieces[0]].meta
    span = sorted({p for i in unit.pieces for p in (getattr(chunks[i].meta, "page_span", []) or [])})
    pieces = "".join(
        f"<div>piece {k + 1}/{len(unit.pieces)} (chunk #{i + 1}): {_token_bar(report.tokens[i], report.limit)}</div>"
        for k, i in enumerate(unit.pieces)
    )
    thumbs = ""
    if report.layout:
        mine = [(unit.colour, unit.tag, report.unit_boxes[uid])]
        thumbs = (
            '<div class="thumbs">'
            + "".join(
                _page_figure(
                    _page_svg(report.doc, p, thumb_width, report.background, mine), p, f"{unit.tag}-page-{p}", unit.tag
                )
                for p in sorted({b.page for b in report.unit_boxes[uid]})
            )
            + "</div>"
        )
    parts = report.parts[uid]
    return (
        f'<section class="chunk" id="{_esc(unit.tag)}" style="border-left-color:{unit.colour}"><div class="body">'
        f'<h3><b style="color:{unit.colour}">{_esc(unit.tag)}</b> · <code>{_esc(uid)}</code> · '
        f"{len(unit.pieces)} piece{'s' if len(unit.pieces) > 1 else ''} · {_esc(_pages_text(span))}"
        + (f" · continued table: {len(parts)} parts" if len(parts) > 1 else "")
        + "</h3>"
        f"{_caption_line(first)}{_members_list(list(unit.members.values()), report.summary)}{pieces}</div>"
        f"{thumbs}</section>"
    )


def _chunk_section(report: _Report, index: int) -> str:
    """One chunk in the reading-order list: kind, unit, part, rows, pages, tokens, members and its text."""
    meta = report.chunks[index].meta
    kind = getattr(meta, "kind", "text")
    uid = getattr(meta, "unit_id", "")
    unit = report.units.get(uid) if kind == "table" else None
    head = [f"#{index + 1}", f'<span class="kind">{_esc(kind)}</span>']
    if unit is not None:
        head.append(f'<b style="color:{unit.colour}">{_esc(unit.tag)}</b>')
    head.append(f"<code>{_esc(uid)}</code>")
    if getattr(meta, "parts", 1) > 1:
        head.append(f"part {meta.part + 1}/{meta.parts}")
    if getattr(meta, "rows", None):
        head.append(rows_text(meta.rows))
    head.append(_esc(_pages_text(list(getattr(meta, "page_span", []) or []))))
    head.append(_token_bar(report.tokens[index], report.limit))
    body = (_caption_line(meta) if kind == "table" else "") + _members_list(report.chunk_members[index], report.summary)
    body += f"<details><summary>Chunk text (contextualized)</summary><pre>{_esc(report.texts[index])}</pre></details>"
    colour = unit.colour if unit is not None else "#9ca3af"
    return (
        f'<section class="chunk" style="border-left-color:{colour}"><div class="body"><h3>{" · ".join(head)}</h3>'
        f"{body}</div></section>"
    )


def write_report(path: str | Path, output: str | Path, chunker: BaseChunker | None = None) -> Path:
    """Convert/load ``path``, chunk it (default ``EvidenceChunker()``) and write its report to ``output``.

    Raises:
        InputError: when ``path`` cannot be read or converted.
        OutputError: when ``output`` may not be written (it is ``path``, a folder, in a missing folder).
    """
    from docling_evidence.pipeline import chunk_document, convert_path, default_chunker

    path, output = Path(path), Path(output)
    chunker = chunker or default_chunker()
    doc = convert_path(path)
    chunks = chunk_document(doc, chunker)
    return write_text(output, render_report(doc, chunks, chunker, source=path.name), inputs=[path])


def citations_section(doc: DoclingDocument, report: Any, page_width: int = 200, background: Sequence[_Box] = ()) -> str:
    """HTML for a ``CitationReport``: every claim (supported or not) with its evidence, and the pages holding evidence
    with each claim's boxes outlined (green: supported, red: unsupported claims' partial evidence)."""
    rows, highlights = [], []
    for k, claim in enumerate(report.claims, 1):
        tag = f"C{k}"
        colour = "#047857" if claim.supported else "#dc2626"
        boxes = [
            _Box(e.page, *e.bbox, "cite", _excerpt(e.text, 120))
            for e in claim.evidence
            if e.page is not None and e.bbox is not None and e.page in doc.pages
        ]
        highlights.append((colour, tag, boxes))
        where = "; ".join(
            f"{e.ref}"
            + (f" r{e.row} c{e.col}" if e.kind == "table_cell" else f" {e.kind}")
            + (f" p.{e.page}" if e.page is not None else "")
            for e in claim.evidence[:5]
        )
        more = f" (+{len(claim.evidence) - 5})" if len(claim.evidence) > 5 else ""
        mark = "✓" if claim.supported else "✗"
        rows.append(
            f'<li><b style="color:{colour}">{mark} {tag}</b> <span class="muted">{_esc(claim.kind)}</span> '
            f'{_esc(_excerpt(claim.text))} <span class="muted">{_esc(where or "no evidence")}{more}</span></li>'
        )
    pages = sorted({b.page for _c, _t, boxes in highlights for b in boxes})
    figures = "".join(
        _page_figure(_page_svg(doc, p, page_width, background, highlights), p, f"cite-page-{p}", "citations")
        for p in pages
        if _drawable(doc, p)
    )
    scope = "the cited chunks" if report.chunks_given else "the whole document"
    n_ok = sum(c.supported for c in report.claims)
    return (
        f"<h2>Citations ({n_ok} of {len(report.claims)} claims supported by {scope})</h2>"
        f"<p>{_esc(_excerpt(report.answer, 400))}</p>"
        f'<ul class="members" id="citations">{"".join(rows)}</ul>'
        + (f'<div class="pages">{figures}</div>' if figures else "")
    )
