"""EvidenceChunker on every real Docling fixture in ``../shared/fixtures`` (skipped when the folder is absent).

Each fixture is loaded and chunked once per session (``_chunked``); the determinism test chunks it a second time
with a second chunker instance. The checks: captions Docling linked stay with their table (text and doc item),
``page_span`` is right, nothing of the body is lost, every chunk fits the tokenizer.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from shared_paths import FIXTURES

os.environ.setdefault("HF_HUB_OFFLINE", "1")

FIXTURE_PATHS = sorted(FIXTURES.rglob("*.json")) if FIXTURES.is_dir() else []
FIXTURE_PARAMS = [pytest.param(p, id=p.relative_to(FIXTURES).as_posix()) for p in FIXTURE_PATHS] or [
    pytest.param(
        None,
        marks=[pytest.mark.skip(reason=f"real fixtures not found at {FIXTURES}"), pytest.mark.slow],
        id="no-fixtures",
    )
]

_MD_ESCAPE = re.compile(r"\\([\\|])")


def norm(text: str) -> str:
    """Collapse whitespace."""
    return " ".join(text.split())


def norm_chunk(text: str) -> str:
    """Chunk text as plain text: Markdown cell escapes (``\\|``, ``\\\\``) undone, whitespace collapsed."""
    return norm(_MD_ESCAPE.sub(r"\1", text))


@dataclass
class Chunked:
    """One fixture, chunked once: the document, the chunker, its chunks and their contextualized texts."""

    doc: Any
    chunker: Any
    chunks: list[Any]
    embed: list[str]

    def units(self) -> dict[str, list[Any]]:
        """Table pieces grouped by ``unit_id``, in emission order."""
        found: dict[str, list[Any]] = {}
        for chunk in self.chunks:
            if chunk.meta.kind == "table":
                found.setdefault(chunk.meta.unit_id, []).append(chunk)
        return found

    def unit_of_table(self) -> dict[str, list[Any]]:
        """Table ``self_ref`` -> the pieces of its unit."""
        return {table_ref(pieces[0]): pieces for pieces in self.units().values()}


def table_refs(chunk: Any) -> list[str]:
    """The ``self_ref``s of the tables of a table piece: one, or the parts of a continued table it shows."""
    refs = [ref for ref, role in chunk.meta.roles.items() if role == "table"]
    assert refs, "a table piece must hold its table"
    return refs


def table_ref(chunk: Any) -> str:
    """The ``self_ref`` of the (first) table of a table piece."""
    return table_refs(chunk)[0]


def item_pages(items: list[Any]) -> list[int]:
    """Sorted pages named by the provenance of ``items``."""
    return sorted({prov.page_no for item in items for prov in item.prov})


@cache
def _chunked(path: Path) -> Chunked:
    from docling_core.types.doc import DoclingDocument

    from docling_evidence import EvidenceChunker

    doc = DoclingDocument.load_from_json(path)
    chunker = EvidenceChunker()
    chunks = list(chunker.chunk(doc))
    return Chunked(
        doc=doc, chunker=chunker, chunks=chunks, embed=[norm_chunk(chunker.contextualize(c)) for c in chunks]
    )


def chunked(path: Path | None) -> Chunked:
    """The cached chunking of a fixture (skips when fixtures are absent)."""
    if path is None:
        pytest.skip("real fixtures absent")
    return _chunked(path)


def all_chunked() -> list[tuple[str, Chunked]]:
    """Every fixture, chunked (skips when fixtures are absent)."""
    if not FIXTURE_PATHS:
        pytest.skip(f"real fixtures not found at {FIXTURES}")
    return [(p.relative_to(FIXTURES).as_posix(), _chunked(p)) for p in FIXTURE_PATHS]


def body_items(doc: Any) -> list[Any]:
    """Body doc items in reading order, pictures not entered (as the chunker walks them)."""
    return [item for item, _ in doc.iterate_items(with_groups=False, traverse_pictures=False)]


def is_heading(item: Any) -> bool:
    """Title or section header."""
    from docling_core.types.doc import SectionHeaderItem, TitleItem

    return isinstance(item, SectionHeaderItem | TitleItem)


def uncovered(text: str, sources: list[str], min_piece: int = 12) -> str:
    """The part of ``text`` that ``sources`` do not cover, or ``""``.

    ``text`` is covered when it is a run of substrings of ``sources``, each the longest possible at its start and at
    least ``min_piece`` characters long (or the rest of ``text``): a text that a chunker cut into consecutive chunks
    is covered, a text scattered over stray letters is not.
    """
    i, n = 0, len(text)
    while i < n:
        if text[i] == " ":
            i += 1
            continue
        lo, hi = 0, n - i
        while lo < hi:  # longest prefix of text[i:] found in one source (monotone: a shorter prefix is found too)
            mid = (lo + hi + 1) // 2
            if any(text[i : i + mid] in s for s in sources):
                lo = mid
            else:
                hi = mid - 1
        if lo == 0 or (lo < min_piece and i + lo < n):
            return text[i : i + 80]
        i += lo
    return ""


# ---------------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("path", FIXTURE_PARAMS)
def test_docling_captions_stay_with_their_table(path: Path | None) -> None:
    """A caption Docling linked to a table is in the table's unit (text and doc item), never in a text chunk."""
    from docling_core.types.doc import TableItem, TextItem

    ch = chunked(path)
    units = ch.unit_of_table()
    text_chunk_refs = {it.self_ref for c in ch.chunks if c.meta.kind == "text" for it in c.meta.doc_items}
    checked = 0
    for table in body_items(ch.doc):
        if not isinstance(table, TableItem) or not table.captions:
            continue
        captions = [ref.resolve(ch.doc) for ref in table.captions]
        captions = [c for c in captions if isinstance(c, TextItem) and c.text.strip()]
        if not captions:
            continue
        if table.self_ref not in units:  # a table with no cell text is no unit; its caption stays in the text
            assert not any(cell.text.strip() for cell in table.data.table_cells), f"{table.self_ref} has no unit"
            continue
        pieces = units[table.self_ref]
        assert pieces[0].meta.caption_source == "docling_ref", table.self_ref
        embed = [norm_chunk(ch.chunker.contextualize(c)) for c in pieces]
        for cap in captions:
            assert any(norm(cap.text) in e for e in embed), f"caption of {table.self_ref} missing from its unit"
            assert any(cap.self_ref in {d.self_ref for d in c.meta.doc_items} for c in pieces), (
                f"caption item {cap.self_ref} not in the doc_items of {table.self_ref}'s unit"
            )
            assert cap.self_ref not in text_chunk_refs, f"caption {cap.self_ref} leaked into a text chunk"
            checked += 1
    linked = sum(1 for t in body_items(ch.doc) if isinstance(t, TableItem) and t.captions and t.self_ref in units)
    assert checked >= linked  # every linked table with a unit was looked at


@pytest.mark.parametrize("path", FIXTURE_PARAMS)
def test_page_span(path: Path | None) -> None:
    """Text chunks: the sorted pages of their doc items. Table pieces: the sorted pages of the doc items of all
    pieces of their unit (so a page is never claimed for an item the unit does not show)."""
    ch = chunked(path)
    for chunk in ch.chunks:
        if chunk.meta.kind == "text":
            assert chunk.meta.page_span == item_pages(chunk.meta.doc_items), chunk.meta.doc_items[0].self_ref
    for pieces in ch.units().values():
        emitted = item_pages([d for c in pieces for d in c.meta.doc_items])
        for chunk in pieces:
            assert chunk.meta.page_span == emitted, (table_ref(chunk), chunk.meta.part)


def lost_text(doc: Any, chunks: list[Any], embed: list[str], min_piece: int = 12) -> list[tuple[str, str]]:
    """Body text items whose text the contextualized chunks ``embed`` do not cover: ``(self_ref, uncovered part)``.

    An item is looked for in the chunks that list it (long paragraphs may be cut over consecutive chunks, each piece
    at least ``min_piece`` characters, see :func:`uncovered`); a heading that only appears as ``meta.headings`` in any
    contextualized chunk."""
    from docling_core.types.doc import TextItem

    listing: dict[str, list[str]] = {}
    for chunk, text in zip(chunks, embed, strict=True):
        for item in chunk.meta.doc_items:
            listing.setdefault(item.self_ref, []).append(text)
    lost = []
    for item in body_items(doc):
        if not isinstance(item, TextItem) or not norm(item.text):
            continue
        text = norm(item.text)
        if item.self_ref in listing:
            rest = uncovered(text, listing[item.self_ref], min_piece)
        else:
            rest = "" if any(text in e for e in embed) else text
        if rest:
            lost.append((item.self_ref, rest))
    return lost


def lost_cells(
    doc: Any, chunks: list[Any], embed: list[str], min_piece: int = 12, serializer: Any = None
) -> list[tuple[str, str]]:
    """Table cells whose text the contextualized chunks that hold their table do not cover: ``(table ref, text)``.
    A rich cell's text is its items as ``serializer`` writes them (the chunker's: HTML entities and Markdown escapes
    as in the chunks). A table nested in another table's cell is held by no chunk of its own: it is looked for in
    every chunk."""
    from docling_core.types.doc import TableItem
    from docling_core.types.doc.document import RichTableCell

    holding: dict[str, list[str]] = {}
    for chunk, text in zip(chunks, embed, strict=True):
        for item in chunk.meta.doc_items:
            if isinstance(item, TableItem):
                holding.setdefault(item.self_ref, []).append(text)
    lost = []
    for table in body_items(doc):
        if not isinstance(table, TableItem):
            continue
        for cell in table.data.table_cells:
            rich = isinstance(cell, RichTableCell)
            text = norm(cell._get_text(doc=doc, doc_serializer=serializer) if rich else cell.text)
            if text and uncovered(text, holding.get(table.self_ref, embed), min_piece):
                lost.append((table.self_ref, text[:80]))
    return lost


@pytest.mark.parametrize("path", FIXTURE_PARAMS)
def test_every_body_text_is_in_some_chunk(path: Path | None) -> None:
    """Coverage: each body text item's text is in the contextualized chunks that list it (or, for headings that
    only appear as ``meta.headings``, in some contextualized chunk)."""
    ch = chunked(path)
    lost = lost_text(ch.doc, ch.chunks, ch.embed)
    assert not lost, lost[:5]


@pytest.mark.parametrize("path", FIXTURE_PARAMS)
def test_every_table_cell_is_in_some_chunk(path: Path | None) -> None:
    """Coverage: each table cell's text is in the contextualized chunks that hold its table."""
    ch = chunked(path)
    lost = lost_cells(ch.doc, ch.chunks, ch.embed, serializer=ch.chunker.serializer_provider.get_serializer(ch.doc))
    assert not lost, lost[:5]


@pytest.mark.parametrize("path", FIXTURE_PARAMS)
def test_every_chunk_fits_the_tokenizer(path: Path | None) -> None:
    """Every contextualized chunk is within ``max_tokens`` (256 with the bundled tokenizer)."""
    ch = chunked(path)
    assert ch.chunker.max_tokens == 256
    sizes = [ch.chunker.tokenizer.count_tokens(ch.chunker.contextualize(c)) for c in ch.chunks]
    assert max(sizes, default=0) <= 256


@pytest.mark.parametrize("path", FIXTURE_PARAMS)
def test_units_are_well_formed(path: Path | None) -> None:
    """Pieces of one unit are consecutive, numbered 0..parts-1, and each holds its table; units follow reading
    order (a unit comes after the text chunks that precede its table)."""
    ch = chunked(path)
    order = {item.self_ref: i for i, item in enumerate(body_items(ch.doc))}
    ids = [c.meta.unit_id for c in ch.chunks if c.meta.kind == "table"]
    for uid, pieces in ch.units().items():
        assert [c.meta.part for c in pieces] == list(range(len(pieces)))
        assert {c.meta.parts for c in pieces} == {len(pieces)}
        # one table, or the parts of a continued table: each piece shows its parts, in reading order
        parts = [order[ref] for c in pieces for ref in table_refs(c)]
        assert parts == sorted(parts), "pieces of a continued table are out of order"
        first = ids.index(uid)
        assert ids[first : first + len(pieces)] == [uid] * len(pieces), "pieces of a unit are not consecutive"
    text_ids = [c.meta.unit_id for c in ch.chunks if c.meta.kind == "text"]
    assert len(set(text_ids)) == len(text_ids), "text chunk unit_ids are not unique"
    positions = []
    for chunk in ch.chunks:
        if chunk.meta.kind == "table":
            positions.append(order[table_ref(chunk)])
            continue
        # headings are left out: with always_emit_headings docling-core may list a heading (e.g. the title) in a
        # much later chunk's doc_items, in HybridChunker's own output too
        body = [order[d.self_ref] for d in chunk.meta.doc_items if d.self_ref in order and not is_heading(d)]
        if body:
            positions.append(min(body))
    assert positions == sorted(positions), "chunks are not in reading order"


@pytest.mark.parametrize("path", FIXTURE_PARAMS)
def test_deterministic_and_unit_ids_stable(path: Path | None) -> None:
    """A second chunker instance gives identical chunks (``model_dump``), hence identical ``unit_id``s."""
    from docling_evidence import EvidenceChunker

    ch = chunked(path)
    again = list(EvidenceChunker().chunk(ch.doc))
    assert [c.meta.unit_id for c in again] == [c.meta.unit_id for c in ch.chunks]
    assert [c.model_dump() for c in again] == [c.model_dump() for c in ch.chunks]


@pytest.mark.parametrize("path", FIXTURE_PARAMS)
def test_every_chunk_is_a_docling_core_chunk(path: Path | None) -> None:
    """Drop-in: every chunk validates as docling-core's ``DocChunk`` and survives its JSON export, names
    the document's ``origin`` (as every HybridChunker chunk does), and has text (no empty node downstream)."""
    from docling_core.transforms.chunker import DocChunk

    ch = chunked(path)
    for chunk in ch.chunks:
        assert chunk.text.strip(), chunk.meta.doc_items[0].self_ref
        assert chunk.meta.origin == ch.doc.origin
        plain = DocChunk.model_validate(chunk.model_dump())
        assert DocChunk.model_validate(plain.export_json_dict()).text == chunk.text


# --- problems seen on the real fixtures: regression tests -------------------------
def _fixture(rel: str) -> Chunked:
    path = FIXTURES / rel
    if not path.is_file():
        pytest.skip(f"fixture {rel} absent")
    return _chunked(path)


def test_paragraph_naming_the_table_survives_the_split() -> None:
    """2206.01062 Table 1: the paragraph that names it ('Table 1 shows the overall frequency ...', page 3) is in
    the unit, although caption + paragraph exceed half the budget (it fits in the first piece)."""
    ch = _fixture("docling/2206.01062.json")
    pieces = ch.unit_of_table()["#/tables/0"]
    assert "#/texts/361" in {d.self_ref for c in pieces for d in c.meta.doc_items}


def test_caption_heading_the_next_block_is_not_taken() -> None:
    """kenya_gazette_cxxvii_73 #/tables/4 (block A4): the caption-labelled 'BLOCK A6' 4 pt below it heads the next
    block (a picture, 'Area = ...', #/tables/5) and is not table 4's caption."""
    ch = _fixture("more/kenya_gazette_cxxvii_73.json")
    pieces = ch.unit_of_table()["#/tables/4"]
    assert "#/texts/155" not in {d.self_ref for c in pieces for d in c.meta.doc_items}


def test_caption_merged_into_a_paragraph_reaches_the_unit() -> None:
    """Docling merged Table 5's caption into the end of a paragraph after a running header ('... Peter Staar Table
    5: ...', one space before 'Table'); the unit must still carry it."""
    ch = _fixture("docling/2206.01062.json")
    pieces = ch.unit_of_table()["#/tables/4"]
    assert any("Table 5" in ch.chunker.contextualize(c) for c in pieces)
