"""What the packer takes of one unit, and how it is written: the block of caption, table lines, footnotes and
sentences in reading order, with the refs, pages and boxes to cite it.

:class:`Unit` merges the readings of one unit's retrieved chunks; :class:`Taken` is what the packer chose of it;
:func:`write_unit` writes that as text and :func:`packed_block` as a :class:`PackedBlock`. It imports the packed
evidence model and the chunk readings only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from docling_evidence.pack.evidence import PackedBlock, PackedBox, PackedRow, PackedSentence
from docling_evidence.pack.segments import Reading, Row, Sentence

BLOCK_JOIN = "\n\n"
LINE_JOIN = "\n"
SENTENCE_JOIN = " "
GAP_JOIN = " … "


@dataclass
class Unit:
    """The merged readings of one unit (or of one chunk without a unit), in ranking order."""

    order: int
    readings: list[Reading]
    caption: str | None = None
    rows: dict[tuple[Any, ...], Row] = field(default_factory=dict)
    sentences: dict[tuple[Any, ...], Sentence] = field(default_factory=dict)
    footnotes: dict[str, Sentence] = field(default_factory=dict)
    seen_at: dict[tuple[Any, ...], int] = field(default_factory=dict)
    """The rank of the best-ranked chunk that shows each segment (``(kind, key)``)."""

    @property
    def first(self) -> Reading:
        return self.readings[0]

    def add(self, reading: Reading, ranked: bool = True) -> None:
        """Merge ``reading``; a piece that did not rank (``ranked=False``) brings segments, not the caption (what
        ranked decides whether the unit fits whole, as without it)."""
        self.readings.append(reading)
        if self.caption is None and reading.caption and ranked:
            self.caption = reading.caption
        for row in reading.rows:
            self.seen_at.setdefault(("row", row.key), reading.rank)
            known = self.rows.get(row.key)
            if known is None:
                self.rows[row.key] = row
            elif row.triplets:  # a triplet row cut over two chunks: its triplets joined, each once
                merged = tuple(dict.fromkeys((*known.triplets, *row.triplets)))
                self.rows[row.key] = Row(
                    ". ".join(merged), known.label, None, (), "triplets", known.key, merged, ref=known.ref
                )
        for s in reading.sentences:
            key = (s.ref, s.span) if s.span else (s.role, s.text)
            self.seen_at.setdefault(("sentence", key), reading.rank)
            self.sentences.setdefault(key, s)
        for f in reading.footnotes:
            self.seen_at.setdefault(("footnote", f.text), reading.rank)
            self.footnotes.setdefault(f.text, f)


@dataclass
class Taken:
    caption: bool = False
    headers: set[tuple[str, ...]] = field(default_factory=set)
    rows: list[Row] = field(default_factory=list)
    sentences: list[Sentence] = field(default_factory=list)
    footnotes: list[Sentence] = field(default_factory=list)
    score: float = 0.0


@dataclass
class Written:
    """A block's parts in reading order, and its text."""

    text: str
    rows: list[Row]
    header: list[str]
    footnotes: list[Sentence]
    sentences: list[Sentence]


def write_unit(unit: Unit, state: Taken) -> Written | None:
    if not (state.rows or state.sentences or state.footnotes or state.caption):
        return None
    parts: list[str] = []
    if state.caption and unit.caption:
        parts.append(unit.caption)
    order = list(unit.rows)
    rows = sorted(state.rows, key=lambda r: (r.fmt == "labelled", r.index is None, r.index or 0, order.index(r.key)))
    header_lines: list[str] = []
    if rows:
        lines, header_lines = _table_lines(rows)
        parts.append(LINE_JOIN.join(lines))
    footnotes = [f for f in unit.footnotes.values() if f in state.footnotes]
    parts += [f.text for f in footnotes]
    sentences = sorted(state.sentences, key=lambda s: (s.para, s.pos))
    paragraphs = _paragraphs(sentences)
    if paragraphs:
        parts.append((LINE_JOIN if unit.first.kind == "text" else BLOCK_JOIN).join(paragraphs))
    return Written(BLOCK_JOIN.join(parts), rows, header_lines, footnotes, sentences)


def packed_block(unit: Unit, state: Taken, n_ranked: int) -> PackedBlock | None:
    written = write_unit(unit, state)
    if written is None:
        return None
    first = unit.first
    rows, header_lines, footnotes, sentences = written.rows, written.header, written.footnotes, written.sentences
    refs = _refs(unit, rows, sentences, footnotes, state.caption)
    boxes = _boxes(unit, refs)
    return PackedBlock(
        key=first.key,
        unit_id=first.unit_id,
        kind=first.kind,
        ranks=[r.rank for r in unit.readings if r.rank < n_ranked],
        text=written.text,
        score=state.score,
        caption=unit.caption if state.caption else None,
        header=header_lines,
        rows=[PackedRow(index=r.index, label=r.label, text=r.text, ref=r.ref) for r in rows],
        sentences=[_packed_sentence(s) for s in sentences],
        footnotes=[_packed_sentence(f) for f in footnotes],
        doc_refs=refs,
        pages=sorted({b.page for b in boxes}),
        boxes=boxes,
        origin_filename=getattr(first.origin, "filename", None),
        origin_binary_hash=getattr(first.origin, "binary_hash", None),
    )


def _table_lines(rows: list[Row]) -> tuple[list[str], list[str]]:
    lines: list[str] = []
    headers: list[str] = []
    current: tuple[str, ...] | None = None
    html_open = False
    for row in rows:
        if row.header != current:
            if html_open:
                lines.append("</table>")
            html_open = row.fmt == "html"
            lines += ["<table>"] if html_open else []
            lines += list(row.header)
            headers += [h for h in row.header if h not in headers]
            current = row.header
        lines.append(row.text)
    if html_open:
        lines.append("</table>")
    return lines, headers


def _paragraphs(sentences: list[Sentence]) -> list[str]:
    out: list[str] = []
    para: tuple[int, int] | None = None
    last = -2
    for s in sentences:
        if s.para != para:
            out.append(s.text)
        else:
            out[-1] += (SENTENCE_JOIN if s.pos == last + 1 else GAP_JOIN) + s.text
        para, last = s.para, s.pos
    return out


def _packed_sentence(s: Sentence) -> PackedSentence:
    start, end = s.span if s.span else (None, None)
    return PackedSentence(text=s.text, role=s.role, ref=s.ref, start=start, end=end)


def _refs(unit: Unit, rows: list[Row], sentences: list[Sentence], notes: list[Sentence], caption: bool) -> list[str]:
    refs: list[str | None] = []
    if caption:
        refs += [r for rd in unit.readings for r, role in rd.roles.items() if role == "caption"]
    if rows:
        refs += [row.ref for row in rows] if all(row.ref for row in rows) else [*unit.first.table_refs]
    refs += [f.ref for f in notes] + [s.ref for s in sentences]
    return [r for r in dict.fromkeys(refs) if r]


def _boxes(unit: Unit, refs: list[str]) -> list[PackedBox]:
    items: dict[str, Any] = {}
    for reading in unit.readings:
        for ref, item in reading.items.items():
            items.setdefault(ref, item)
    out: list[PackedBox] = []
    for ref in refs:
        for prov in getattr(items.get(ref), "prov", None) or ():
            bbox = getattr(prov, "bbox", None)
            if bbox is None:
                continue
            origin = getattr(getattr(bbox, "coord_origin", None), "value", None) or str(bbox.coord_origin)
            box = (float(bbox.l), float(bbox.t), float(bbox.r), float(bbox.b))
            out.append(PackedBox(ref=ref, page=int(prov.page_no), bbox=box, coord_origin=str(origin)))
    return out
