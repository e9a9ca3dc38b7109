"""Views: short texts embedded as extra vectors of a chunk, each pointing back to the chunk.

One vector per chunk cannot be about a table's rows and the paragraph that explains it at once (docs/views.md). A
**row view**, ``"<row label>: <column> = <value>; ..."`` under the table's caption, is about one row only; a
**sentence view** is one sentence of a text chunk, or of a context or section paragraph a table piece shows; a
**caption view**, the table's caption, is about the table as a whole and goes with the piece the table starts in.
Indexed beside the chunk's own vector and max-pooled by ``unit_id``, they let a question about one row or one
sentence find its chunk while the chunk's own vector still matches questions that need all of it. What is
retrieved and handed to the reader is the chunk, never the view alone (a re-assembled unit that ranked by a view
starts with it: ``docling_evidence.integrations.maxpool.matched_view``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from docling_evidence.tables.formats import column_label, one_line
from docling_evidence.tables.pipes import is_separator_row
from docling_evidence.tables.rows import TableRows
from docling_evidence.text.sentences import sentence_spans

if TYPE_CHECKING:
    from docling_evidence.split.splitter import Piece

_WORD = re.compile(r"\w")
CONTEXT_GAP = " … "
"""Joins the sentences a unit takes from one context paragraph when it does not take them all
(``docling_evidence.assemble.paragraphs``); not part of a sentence, so a sentence view leaves it out."""

VALUE_SEP = "; "
"""Joins the ``<column> = <value>`` parts of a row view."""

PLACEHOLDER = re.compile(r"[\s$€£¥%()\-‐‑‒–—―−.…]*")
"""A cell text that fills a place but holds no value: dashes, dots, a currency or percent sign alone ("—", "$ —",
"(%)"). A row view leaves such cells out like empty ones; otherwise a row of dashes repeats every column name and
outscores the row a question names ("What is the Units in December 2025 (Gi) of Kipevu III ..."). Symbols that
mean something (✓, ✗, ●) are kept."""


def label_rows(header: Sequence[Sequence[str]]) -> list[Sequence[str]]:
    """The header rows that name columns: a pipe table's separator row (``|---|---|``, a header row of another
    serializer's Markdown table) names none."""
    return [row for row in header if not is_separator_row(row)]


def row_view_parts(
    rows: TableRows, row: int, cols: Sequence[int] | None = None, cell_text: str | None = None
) -> tuple[str, list[str]]:
    """The label and the ``<column> = <value>`` parts of body row ``row`` over ``cols`` (None: every column).

    ``cell_text`` replaces the text of the last of ``cols`` (a fragment of a cell split inside). Empty cells and
    value cells holding only a placeholder (:data:`PLACEHOLDER`) are skipped; a label spread over several label
    columns (or a merged label cell) is read once per distinct text.
    """
    body = rows.body[row]
    header = label_rows(rows.header)
    columns = range(len(body)) if cols is None else cols
    last = columns[-1] if len(columns) else None
    labels: list[str] = []
    values: list[str] = []
    for c in columns:
        raw = cell_text if cell_text is not None and c == last else body[c]
        text = one_line(raw).strip()
        if not text:
            continue
        if c < rows.label_cols:
            if text not in labels:
                labels.append(text)
            continue
        if PLACEHOLDER.fullmatch(text):
            continue
        name = one_line(column_label(header, c)).strip()
        values.append(f"{name} = {text}" if name else text)
    return " ".join(labels), values


def join_row_view(label: str, values: Sequence[str]) -> str:
    """``"<label>: <values>"`` (either part may be empty)."""
    body = VALUE_SEP.join(values)
    return f"{label}: {body}" if label and body else label or body


def view_body(caption: str, row_text: str) -> str:
    """A row view as stored: the caption line (when given), then the row text."""
    return f"{caption}\n{row_text}" if caption else row_text


def fitted_row_views(label: str, values: Sequence[str], caption: str, fits: Callable[[str], bool]) -> list[str]:
    """The views of one row, each ``fits``: the caption is dropped when a view cannot fit with it, values are packed
    greedily into views that repeat the label, and a value too long for a view of its own is cut into fitting parts.

    Returns ``[]`` only when not even one character of the row fits (a limit taken up by headings).
    """
    whole = join_row_view(label, values)
    if not whole:
        return []
    if caption and fits(view_body(caption, whole)):
        return [view_body(caption, whole)]
    if fits(whole):
        return [whole]
    if label and not fits(join_row_view(label, [label])):
        # a label that leaves less room for a value than its own length is not repeated: shown once, as a value
        values, label = [label, *values], ""
    if not values:
        values, label = [label], ""
    views: list[str] = []
    current: list[str] = []
    for value in values:
        if fits(join_row_view(label, [*current, value])):
            current.append(value)
            continue
        if current:
            views.append(join_row_view(label, current))
            current = []
        if fits(join_row_view(label, [value])):
            current = [value]
            continue
        parts, rest = _cut(value, lambda p: fits(join_row_view(label, [p])))
        views.extend(join_row_view(label, [part]) for part in parts)
        if rest:  # what does not fit beside the label goes without it
            views.extend(_cut(rest, fits)[0])
    if current:
        views.append(join_row_view(label, current))
    return views


def piece_row_views(rows: TableRows, piece: Piece, caption: str, fits: Callable[[str], bool]) -> list[str]:
    """The row views of ``piece``: one per row slice it shows, each within the limit (``fits``)."""
    views: list[str] = []
    labels = tuple(range(rows.label_cols))
    for row, cols, cell_text in piece.row_slices:
        # a piece of a row split by columns may show its values without the label: the view names the row anyway
        view_cols = cols if cols is None else (*(c for c in labels if c not in cols), *cols)
        label, values = row_view_parts(rows, row, view_cols, cell_text)
        views.extend(fitted_row_views(label, values, one_line(caption), fits))
    return views


def caption_views(caption: str, fits: Callable[[str], bool]) -> list[str]:
    """The view of a table's caption, on one line (cut into fitting parts when it does not fit): it matches a
    question about the table as a whole and points to the piece the table starts in. ``[]`` without a caption."""
    text = one_line(caption).strip()
    if not text:
        return []
    return [text] if fits(text) else _cut(text, fits)[0]


def sentence_views(texts: Sequence[str], fits: Callable[[str], bool], min_count: int = 2) -> list[str]:
    """One view per distinct sentence of ``texts`` (each line of each text split on its own; the context gap mark and
    lines without a word character left out), each ``fits`` (a longer one cut into parts); ``[]`` when there are
    fewer than ``min_count`` sentences (a chunk of one sentence: its own vector is that sentence)."""
    sentences: list[str] = []
    seen: set[str] = set()
    for text in texts:
        for line in text.splitlines():
            for a, b in sentence_spans(line):
                sentence = " ".join(line[a:b].split()).strip(CONTEXT_GAP)
                # markup lines of a table or code block ("|---|", "```") have no words to match
                if _WORD.search(sentence) and sentence not in seen:
                    seen.add(sentence)
                    sentences.append(sentence)
    if len(sentences) < min_count:
        return []
    views: list[str] = []
    for sentence in sentences:
        views.extend([sentence] if fits(sentence) else _cut(sentence, fits)[0])
    return views


def shown_sentences(views: Sequence[str], text: str) -> list[str]:
    """The ``views`` whose words ``text`` shows in that order (a context sentence a piece left out is dropped)."""
    folded = " ".join(text.split())
    return [v for v in views if v in folded]


def _cut(text: str, fits: Callable[[str], bool]) -> tuple[list[str], str]:
    """``text`` cut into consecutive parts, each the longest prefix of the rest that ``fits`` (at a space when one is
    near), and what is left when not even one more character fits (``""`` when all of it was placed)."""
    parts: list[str] = []
    rest = text.strip()
    while rest:
        lo, hi = 0, len(rest)
        while lo < hi:  # the longest prefix that fits
            mid = (lo + hi + 1) // 2
            if fits(rest[:mid]):
                lo = mid
            else:
                hi = mid - 1
        if lo == 0:
            break
        end = lo
        if lo < len(rest):
            space = rest.rfind(" ", 0, lo)
            if space > lo // 2:
                end = space
        parts.append(rest[:end].strip())
        rest = rest[end:].strip()
    return [p for p in parts if p], rest


REPEATED_ROLES = frozenset({"caption", "header", "frame"})
"""Line roles (``EvidenceMeta.line_roles``) a piece repeats from its table rather than holds of its own."""

ONCE_TAGS = frozenset({"caption once"})
"""Tags of those roles that a piece holds of its own: the caption the other pieces repeat shortened, shown whole."""


def repeated_line(tag: str) -> bool:
    """Whether a line tagged ``tag`` (``EvidenceMeta.line_roles``) repeats the table's caption, header or frame."""
    return tag.partition(" ")[0] in REPEATED_ROLES and tag not in ONCE_TAGS


def ranking_text(text: str, line_roles: Sequence[str] | None, rows: tuple[int, int] | None) -> str:
    """What a table piece holding no rows is ranked by: its own lines (context, footnotes), without the caption and
    header it repeats from the table; ``text`` unchanged for every other chunk.

    With one vector per chunk, a piece of context that repeats the caption and header matches a question about a row
    as well as the piece that shows the row, and its prose often better: max-pooled by unit, it hides the answer.
    Delivered, the piece still shows caption and header (every chunk listing a table shows its header). A piece whose
    lines are all repeated ones (a table with no body rows) keeps them, so the table stays findable; a caption too
    long to repeat is kept in the one piece that shows it whole (tagged ``caption once``), and a piece without header
    lines keeps its caption.
    """
    if rows is None or rows[0] != rows[1] or not line_roles or "header" not in line_roles:
        # a piece without header lines repeats neither header nor caption beside them: its text is what it holds
        return text
    lines = text.split("\n")
    if len(lines) != len(line_roles):
        return text  # not the piece's own text (a view, or an edited chunk): nothing to align the roles with
    own = [line for line, role in zip(lines, line_roles, strict=True) if not repeated_line(role)]
    body = re.sub(r"\n{3,}", "\n\n", "\n".join(own)).strip("\n")
    return body if body.strip() else text
