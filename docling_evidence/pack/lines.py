"""What each line of a table piece's text is: the compact map ``EvidenceMeta.line_roles`` holds.

The chunker knows what it put into a piece (the caption, the context texts, the table's lines, the footnotes, the
section paragraphs); this module writes that down as one tag per line of ``chunk.text``, so that a reader (the
packer) can select rows and sentences without re-parsing the text, also after a JSON round trip (where doc items lose
their text). A tag is ``"<role>"`` or ``"<role> <arg>"``:

- ``caption``, ``header``, ``frame`` (a table's opening or closing line, e.g. ``<table>``); ``caption once``: the
  caption in the one piece that shows it whole, where the other pieces repeat it shortened;
- ``row <i>``: body row ``i`` of the unit (as ``EvidenceMeta.rows`` counts them);
- ``context <ref>``, ``footnote <ref>``, ``text <ref>``: a line of that doc item's text;
- ``""``: the blank line between two blocks.

Pure string work: imports nothing from the package, so the chunker can use it without importing the packer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

BLOCK_DELIM = "\n\n"
"""How a piece joins its blocks (the splitter's delimiter)."""


def tag_arg(tag: str) -> tuple[str, str | None]:
    """``("row", "3")`` for ``"row 3"``, ``("caption", None)`` for ``"caption"``."""
    role, _, arg = tag.partition(" ")
    return role, (arg or None)


def _block_lines(block: str, tag: str) -> list[str]:
    return [tag] * (block.count("\n") + 1)


def _is_caption(block: str, caption: str) -> bool:
    """Whether ``block`` shows ``caption``, in full or shortened (a piece may show a cut caption)."""
    if not caption or not block:
        return False
    head = block.rstrip(" .…")
    return block == caption or caption.startswith(head) or block.startswith(caption)


def _caption_blocks(blocks: Sequence[str], caption: str) -> int:
    """How many of a piece's first blocks show its caption: 0 when the piece does not start with it."""
    if not blocks or not _is_caption(blocks[0], caption):
        return 0
    n = caption.count(BLOCK_DELIM) + 1
    if n > 1 and len(blocks) >= n and BLOCK_DELIM.join(blocks[:n]) == caption:
        return n
    return 1


def _table_tags(block: str, rows: Sequence[int], open_lines: int, close_lines: int) -> list[str] | None:
    lines = block.split("\n")
    n_header = len(lines) - open_lines - len(rows) - close_lines
    if n_header < 0:
        return None
    return [
        *(["frame"] * open_lines),
        *(["header"] * n_header),
        *(f"row {r}" for r in rows),
        *(["frame"] * close_lines),
    ]


def piece_line_roles(
    text: str,
    *,
    caption: str,
    caption_shown: bool,
    caption_once: bool = False,
    prose: Mapping[str, str],
    rows: Sequence[int],
    has_header: bool = False,
    open_lines: int = 0,
    close_lines: int = 0,
) -> list[str]:
    """One tag per line of a table piece's ``text`` (``text.split("\\n")``).

    Args:
        text: the piece's text, blocks joined by :data:`BLOCK_DELIM`.
        caption: the unit's caption text ("" without one); ``caption_shown``: whether the piece shows it;
            ``caption_once``: whether it is the one piece showing whole a caption the others shorten.
        prose: the other texts the piece may show, each with its tag (``"context #/texts/3"``, ``"footnote ..."``).
        rows: the body row of each table line of the piece, in order; ``has_header``: whether its table block
            starts with header lines (a piece may show the header alone).
        open_lines, close_lines: lines the table format puts before the header and after the last row.

    A block that matches nothing known (it should not happen) is tagged ``text``; the map always has one tag per
    line.
    """
    tags: list[str] = []
    table_done = not rows
    blocks = text.split(BLOCK_DELIM)
    caption_blocks = _caption_blocks(blocks, caption) if caption_shown else 0
    if caption_blocks:
        # a caption of several paragraphs (a web page's table title with an edit note) is one caption block
        tags += _block_lines(BLOCK_DELIM.join(blocks[:caption_blocks]), "caption once" if caption_once else "caption")
    for k, block in enumerate(blocks[caption_blocks:], start=caption_blocks):
        if k:
            tags.append("")
        # a cut paragraph's fragment is matched before the table: a one-line fragment would otherwise pass for a
        # table of one row and no header, and the table block after it would lose its tags
        tag = prose.get(block) or _fragment_of(block, prose, caption)
        if tag is not None:
            tags += _block_lines(block, tag)
            continue
        table = None if table_done else _table_tags(block, rows, open_lines, close_lines)
        if table is not None:
            table_done = True
            tags += table
            continue
        tags += _block_lines(block, _fragment_tag(block, caption, header_only=has_header and not rows))
    return tags


def _fragment_of(block: str, prose: Mapping[str, str], caption: str) -> str | None:
    """The tag of the known text ``block`` is part of: a fragment of a long footnote, paragraph or caption cut over
    pieces (a caption too long to repeat is shown in fragments after its shortened form)."""
    part = block.strip()
    if not part:
        return None
    found = next((tag for text, tag in prose.items() if part in text), None)
    if found is None and part in caption:
        return "caption"
    return found


def _fragment_tag(block: str, caption: str, *, header_only: bool) -> str:
    """The tag of a block that is no known text nor the piece's table: a caption repeated after the first block, or
    the header shown alone (the columns no row of the piece shows)."""
    if block == caption:
        return "caption"
    return "header" if header_only else "text"


def peer_line_roles(texts: Sequence[tuple[str, str]], *, before: bool) -> list[str]:
    """The tags of section paragraphs joined to a piece (``before`` or after its text): ``texts`` are ``(text, ref)``
    pairs in order, each block with the blank line that joins it to the piece."""
    tags: list[str] = []
    for text, ref in texts:
        if text:
            block = _block_lines(text, f"text {ref}")
            tags += [*block, ""] if before else ["", *block]
    return tags
