"""Read a retrieved chunk into what the packer can select: caption, header lines, whole rows, sentences, footnotes.

An ``EvidenceChunk`` says what each line of its text is (``meta.line_roles``, kept through a JSON round trip); any
other chunk (HybridChunker's, or one whose metadata was lost) is read from its text: Markdown and HTML table lines,
docling-core's triplet rows (``label, column = value. ...``, all the triplets of one row label make one row, a triplet
cut at the chunk's edge is left out), and prose split into sentences.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, Literal

from docling_evidence.assemble.views import CONTEXT_GAP
from docling_evidence.pack.lines import BLOCK_DELIM, tag_arg
from docling_evidence.tables.pipes import is_separator_line, pipe_cells
from docling_evidence.text.normalize import normalize_text
from docling_evidence.text.sentences import sentence_spans
from docling_evidence.units.captions import _TABLE_LABEL

RowFormat = Literal["markdown", "html", "triplets", "plain", "labelled"]
"""How a row is written: a table line, docling-core's triplets, plain text, or ``labelled`` (each value named by its
column, a row that reads without its header: what the packer delivers when the header does not fit)."""
ProseRole = Literal["context", "text", "footnote"]

SEPARATOR_MIN_DASHES = 2
"""Dashes a retrieved chunk's separator row has per column at least (any Markdown writer's, so fewer than this
package's three); a row of single ``-`` placeholders is a body row, not the end of a header."""
_HTML_CELL = re.compile(r"<t([dh])[^>]*>(.*?)</t[dh]>", re.DOTALL)
_TRIPLET_SEP = ". "
_TRIPLET_EQ = " = "
_COLUMNS_HEADER = "Columns: "
_MD_LINK = re.compile(r"!?\[([^\]]*)\]\([^)\s]*\)")
_HTML_TAG = re.compile(r"</?[A-Za-z][^<>]*>")
_WORD_RUN = re.compile(r"[^\W_]+(?:[.,][^\W_]+)*")


@dataclass(frozen=True)
class Row:
    """One whole table row as delivered: a Markdown/HTML line, or all the triplets of one row label."""

    text: str
    label: str
    index: int | None
    header: tuple[str, ...]
    fmt: RowFormat
    key: tuple[Any, ...]
    triplets: tuple[str, ...] = ()
    ref: str | None = None

    def score_text(self) -> str:
        """What the scorer sees: ``"<label>: <column> = <value>; ..."`` when the columns are known, else the row."""
        if self.fmt in ("markdown", "html") and self.header:
            head = _cells(self.header[0], self.fmt)
            cells = _cells(self.text, self.fmt)
            if head and len(head) == len(cells):
                return _named_values(cells, head)
        return self.text

    def labelled(self) -> Row | None:
        """This row written to read alone, ``"<label>: <column> = <value>; ..."``, each column named by its cells in
        every header line (a spanning cell once); None when it has no header that gives each cell a column."""
        if self.fmt not in ("markdown", "html") or not self.header:
            return None
        cells = _cells(self.text, self.fmt)
        lines = (_cells(line, self.fmt) for line in self.header if not _is_separator(line.strip()))
        heads = [h for h in lines if len(h) == len(cells)]
        if not heads or len(cells) < 2 or not any(cells[1:]):
            return None
        names = [" ".join(dict.fromkeys(h[k] for h in heads if h[k])) for k in range(len(cells))]
        return replace(self, text=_named_values(cells, names), header=(), fmt="labelled")


def said_words(text: str) -> str:
    """The words of ``text`` as the packer compares sentences, to deliver each once: normalised
    (:func:`~docling_evidence.text.normalize.normalize_text`), its markup left out (a Markdown link's target, HTML
    tags, emphasis marks, punctuation), so that a sentence a text chunk shows rendered ("Table [4](#page-10-1) has
    ...") and a unit's context shows plain ("Table 4 has ...") is one sentence."""
    plain = _HTML_TAG.sub(" ", _MD_LINK.sub(r"\1", text))
    return " ".join(_WORD_RUN.findall(normalize_text(plain)))


def _named_values(cells: Sequence[str], names: Sequence[str]) -> str:
    """A row's cells as ``"<label>: <name> = <value>; ..."`` (the first cell is the label; an empty cell is left out,
    a value without a name stands alone)."""
    values = [f"{n} = {c}" if n else c for n, c in zip(names[1:], cells[1:], strict=True) if c]
    return f"{cells[0]}: {'; '.join(values)}" if cells[0] else "; ".join(values)


@dataclass(frozen=True)
class Sentence:
    """A sentence of a paragraph (context or text) or a whole footnote."""

    text: str
    role: ProseRole
    ref: str | None
    para: tuple[int, int]
    pos: int
    span: tuple[int, int] | None = None

    @cached_property
    def words(self) -> str:
        """The text's words as the packer compares them to deliver a sentence once (:func:`said_words`)."""
        return said_words(self.text)


@dataclass
class Reading:
    """One retrieved chunk, read: its unit key and its selectable parts in text order."""

    rank: int
    key: str
    unit_id: str | None
    kind: Literal["table", "text"]
    caption: str | None = None
    rows: list[Row] = field(default_factory=list)
    sentences: list[Sentence] = field(default_factory=list)
    footnotes: list[Sentence] = field(default_factory=list)
    table_refs: list[str] = field(default_factory=list)
    items: dict[str, Any] = field(default_factory=dict)
    roles: dict[str, str] = field(default_factory=dict)
    origin: Any = None


def _cells(line: str, fmt: RowFormat) -> list[str]:
    if fmt == "html":
        return [html.unescape(m.group(2)).strip() for m in _HTML_CELL.finditer(line)]
    cells = pipe_cells(line.strip(), frame_optional=True) or []  # never None with frame_optional
    return [c.strip().replace("\\|", "|") for c in cells]


def _is_separator(line: str) -> bool:
    return is_separator_line(line, min_dashes=SEPARATOR_MIN_DASHES)


def _is_md(line: str) -> bool:
    s = line.strip()
    return len(s) >= 2 and s.startswith("|") and s.endswith("|")


def _is_html(line: str) -> bool:
    s = line.strip()
    return s.startswith(("<table", "</table", "<tr", "<thead", "</thead", "<tbody", "</tbody"))


def _row_label(line: str, fmt: RowFormat) -> str:
    if fmt == "triplets":
        left = line.split(_TRIPLET_EQ, 1)[0]
        return left.split(", ", 1)[0] if ", " in left else ""
    return next((c for c in _cells(line, fmt) if c), "")


def _row_format(line: str) -> RowFormat:
    if _is_md(line):
        return "markdown"
    if _is_html(line):
        return "html"
    return "triplets" if _TRIPLET_EQ in line else "plain"


def triplet_rows(line: str, *, cut_start: bool = False, cut_end: bool = False) -> list[tuple[str, tuple[str, ...]]]:
    """The rows of a triplet line, ``(label, triplets)`` in order: consecutive triplets of one row label are one row.

    A leading piece without ``" = "`` (a triplet cut at the chunk's start) and a trailing one (cut at its end) are
    left out; a piece without ``" = "`` between two triplets is part of the previous value (a value holding ". ").
    ``cut_start``: the line starts inside the text (a chunk cut there), so its first triplet is kept only when the
    next one has the same label (else its label may be the tail of a cut one: "devices" of "Medical devices");
    ``cut_end``: the line was cut at its end, so its last triplet (whose value may be cut) is left out.
    """
    pieces = line.strip().split(_TRIPLET_SEP)
    triplets: list[str] = []
    for k, piece in enumerate(pieces):
        if _TRIPLET_EQ in piece:
            triplets.append(piece.strip())
        elif triplets and k < len(pieces) - 1:
            triplets[-1] += _TRIPLET_SEP + piece
    if cut_end and triplets and _TRIPLET_EQ in pieces[-1]:
        triplets.pop()
    if cut_start and triplets:
        second = _row_label(triplets[1], "triplets") if len(triplets) > 1 else None
        if second != _row_label(triplets[0], "triplets"):
            triplets.pop(0)
    rows: list[tuple[str, list[str]]] = []
    for triplet in triplets:
        label = _row_label(triplet, "triplets")
        if rows and rows[-1][0] == label:
            rows[-1][1].append(triplet.rstrip("."))
        else:
            rows.append((label, [triplet.rstrip(".")]))
    return [(label, tuple(ts)) for label, ts in rows]


def _sentences(
    text: str, role: ProseRole, ref: str | None, para: tuple[int, int], bases: Sequence[int | None]
) -> list[Sentence]:
    """The sentences of one line of prose; ``bases``: where each of its fragments (parts joined by " … ") starts in
    its doc item's text, None where unknown."""
    out: list[Sentence] = []
    for k, fragment in enumerate(text.split(CONTEXT_GAP)):
        base = bases[k] if k < len(bases) else None
        for a, b in sentence_spans(fragment):
            span = None if base is None else (base + a, base + b)
            out.append(Sentence(fragment[a:b], role, ref, para, len(out), span))
    return out


def _item_span(items: dict[str, Any], ref: str | None, text: str) -> int | None:
    item = items.get(ref) if ref else None
    whole = getattr(item, "text", None)
    if not isinstance(whole, str):
        return None
    at = whole.find(text)
    return at if at >= 0 else None


def at_rank(reading: Reading, rank: int) -> Reading:
    """``reading`` as read at another rank (a chunk read for an earlier query)."""
    if reading.rank == rank:
        return reading

    def moved(s: Sentence) -> Sentence:
        return replace(s, para=(rank, s.para[1]))

    key = f"#{rank}" if reading.key == f"#{reading.rank}" else reading.key
    return replace(
        reading,
        rank=rank,
        key=key,
        sentences=[moved(s) for s in reading.sentences],
        footnotes=[moved(f) for f in reading.footnotes],
    )


def _items_and_tables(meta: Any) -> tuple[dict[str, Any], list[str]]:
    """A chunk's doc items by self_ref, and the refs of those that are tables (by role, or by label)."""
    items_list = list(getattr(meta, "doc_items", None) or [])
    items = {str(getattr(it, "self_ref", "")): it for it in items_list if getattr(it, "self_ref", None)}
    roles = getattr(meta, "roles", None) or {}
    table_refs = [r for r, it in items.items() if roles.get(r) == "table" or str(getattr(it, "label", "")) == "table"]
    return items, table_refs


def group_key(chunk: Any) -> str | None:
    """What groups ``chunk`` with other chunks into one packed block: its ``unit_id``, else the first table it holds
    (HybridChunker's pieces of one table, told apart by document), else None (a chunk of its own)."""
    meta = getattr(chunk, "meta", None)
    if getattr(meta, "unit_id", None):
        return _group_key(meta, [])
    return _group_key(meta, _items_and_tables(meta)[1])


def _group_key(meta: Any, table_refs: list[str]) -> str | None:
    unit_id = getattr(meta, "unit_id", None) or None
    if unit_id:
        return str(unit_id)
    return f"table {_doc_key(getattr(meta, 'origin', None))}{table_refs[0]}" if table_refs else None


def read_chunk(chunk: Any, rank: int) -> Reading:
    """Read ``chunk`` (an ``EvidenceChunk``, a docling-core ``DocChunk``, or any object with a ``text``) at ``rank``."""
    meta = getattr(chunk, "meta", None)
    items, table_refs = _items_and_tables(meta)
    roles = getattr(meta, "roles", None) or {}
    unit_id = getattr(meta, "unit_id", None) or None
    kind_meta = getattr(meta, "kind", None)
    kind: Literal["table", "text"] = "table" if kind_meta == "table" or (kind_meta is None and table_refs) else "text"
    origin = getattr(meta, "origin", None)
    key = _group_key(meta, table_refs) or f"#{rank}"
    reading = Reading(rank, key, unit_id, kind, table_refs=table_refs, items=items, roles=dict(roles))
    reading.origin = origin
    text = chunk.text
    tags = list(getattr(meta, "line_roles", None) or [])
    lines = text.split("\n")
    if tags and len(tags) == len(lines):
        _read_tagged(reading, lines, tags, getattr(meta, "context_spans", None) or {})
    else:
        _read_plain(reading, text)
    return reading


def _doc_key(origin: Any) -> str:
    """Which document a chunk without a unit id comes from (``meta.origin``), so that two documents' tables with the
    same ref stay apart in one ranking; "" when the chunk does not say."""
    mark = getattr(origin, "binary_hash", None) or getattr(origin, "filename", None)
    return f"{mark}:" if mark else ""


def _read_tagged(reading: Reading, lines: Sequence[str], tags: Sequence[str], spans: dict[str, Any]) -> None:
    caption: list[str] = []
    header: list[str] = []
    in_header = False
    prev_tag = ""
    for n, (line, tag) in enumerate(zip(lines, tags, strict=True)):
        role, arg = tag_arg(tag)
        if role == "header":
            header = header if in_header else []
            header.append(line)
            in_header = True
            continue
        in_header = False
        if role == "caption":
            caption.append(line)
        elif role == "row":
            fmt = _row_format(line)
            index = int(arg) if arg and arg.isdigit() else None
            ref = reading.table_refs[0] if len(reading.table_refs) == 1 else None
            key = ("row", index) if index is not None else ("line", line)
            reading.rows.append(Row(line, _row_label(line, fmt), index, tuple(header), fmt, key, ref=ref))
        elif role == "footnote":
            if prev_tag == tag and reading.footnotes:
                last = reading.footnotes[-1]
                reading.footnotes[-1] = Sentence(last.text + "\n" + line, "footnote", arg, last.para, 0)
            else:
                reading.footnotes.append(Sentence(line, "footnote", arg, (reading.rank, n), 0))
        elif role in ("context", "text") and line.strip():
            prose_role: ProseRole = "context" if role == "context" else "text"
            bases = _context_bases(spans.get(arg) if arg else None, line) if role == "context" else []
            if not any(b is not None for b in bases):
                bases = [_item_span(reading.items, arg, fragment) for fragment in line.split(CONTEXT_GAP)]
            reading.sentences += _sentences(line, prose_role, arg, (reading.rank, n), bases)
        prev_tag = tag
    if caption:
        reading.caption = "\n".join(caption)


def _context_bases(spans: Any, line: str) -> list[int | None]:
    """Where each fragment of a context line starts in its item's text, from ``meta.context_spans``: the line shows
    the spans in order, joined by " … ", so a fragment as long as its span starts there."""
    fragments = line.split(CONTEXT_GAP)
    if not isinstance(spans, Sequence) or len(spans) != len(fragments):
        return []
    bases: list[int | None] = []
    for fragment, span in zip(fragments, spans, strict=True):
        start, end = int(span[0]), int(span[1])
        bases.append(start if end - start == len(fragment) else None)
    return bases


def _table_block(lines: Sequence[str], in_table_chunk: bool) -> bool:
    first = lines[0].strip()
    if _is_md(first) or _is_html(first):
        return True
    return in_table_chunk and (first.startswith(_COLUMNS_HEADER) or all(_TRIPLET_EQ in ln for ln in lines))


def _read_plain(reading: Reading, text: str) -> None:
    blocks = [b for b in text.split(BLOCK_DELIM) if b.strip()]
    table_chunk = reading.kind == "table"
    for k, block in enumerate(blocks):
        lines = block.split("\n")
        if _table_block(lines, table_chunk):
            _read_table_lines(reading, lines)
            continue
        nxt = blocks[k + 1].split("\n") if k + 1 < len(blocks) else None
        if table_chunk and reading.caption is None and nxt and _table_block(nxt, True) and _TABLE_LABEL.match(block):
            reading.caption = block
            continue
        role: ProseRole = "context" if table_chunk else "text"
        for n, line in enumerate(lines):
            if line.strip():
                ref = _find_ref(reading.items, line)
                if ref is None and len(reading.items) == 1:
                    ref = next(iter(reading.items))  # one doc item (its text lost in a JSON round trip): its line
                bases = [_item_span(reading.items, ref, fragment) for fragment in line.split(CONTEXT_GAP)]
                reading.sentences += _sentences(line, role, ref, (reading.rank, k * 10_000 + n), bases)


def _find_ref(items: dict[str, Any], line: str) -> str | None:
    return next(
        (ref for ref, it in items.items() if isinstance(getattr(it, "text", None), str) and line in it.text), None
    )


def _read_table_lines(reading: Reading, lines: Sequence[str]) -> None:
    header: list[str] = []
    has_sep = any(_is_separator(ln.strip()) for ln in lines)
    body_started = not has_sep
    ref = reading.table_refs[0] if reading.table_refs else None
    for line in lines:
        s = line.strip()
        if not s:
            continue
        if _is_md(s) and not _triplet_cell(s):
            cells = _cells(s, "markdown")
            if not body_started:
                header.append(s)
                body_started = _is_separator(s)
                continue
            if len(cells) == 1 and cells[0] in ("-", ""):
                continue  # the one-column frame docling-core puts around a triplet table
            if len(cells) == 1 and reading.caption is None and _TABLE_LABEL.match(cells[0]):
                reading.caption = cells[0]
                continue
            reading.rows.append(
                Row(s, _row_label(s, "markdown"), None, tuple(header), "markdown", ("line", s), ref=ref)
            )
        elif _is_html(s):
            for row_line in _html_rows(s):
                if "<th" in row_line and "<td" not in row_line:
                    header.append(row_line)
                else:
                    key = ("line", row_line)
                    row = Row(row_line, _row_label(row_line, "html"), None, tuple(header), "html", key, ref=ref)
                    reading.rows.append(row)
        elif s.startswith(_COLUMNS_HEADER):
            header = [s]
        else:
            cut_start = line[:1].isspace()  # docling-core starts a chunk cut inside a row with its leftover
            cut_end = not (s.endswith("|") or s.endswith("."))
            for label, triplets in triplet_rows(_unframed(s), cut_start=cut_start, cut_end=cut_end):
                key = ("triplets", ref, label)
                reading.rows.append(Row(". ".join(triplets), label, None, (), "triplets", key, triplets, ref=ref))


def _triplet_cell(line: str) -> bool:
    """A one-cell Markdown line holding triplets: docling-core writes a triplet table as one column."""
    cells = _cells(line, "markdown")
    return len(cells) == 1 and _TRIPLET_EQ in cells[0]


def _unframed(line: str) -> str:
    """A triplet line without the one-column frame's pipes (``| ... |``, either end may be cut off)."""
    s = line.strip()
    s = s[1:] if s.startswith("|") else s
    s = s[:-1] if s.endswith("|") and not s.endswith("\\|") else s
    return s.strip()


def _html_rows(line: str) -> Iterator[str]:
    """The ``<tr>...</tr>`` parts of an HTML line (a table written on one line gives several)."""
    found = re.findall(r"<tr[^>]*>.*?</tr>", line, re.DOTALL)
    yield from found
