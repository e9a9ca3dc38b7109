"""Cited chunks must be chunks of the document checked: by origin, else by name, else by what their text shows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from docling_core.types.doc import DocItemLabel, DoclingDocument
from docling_core.types.doc.document import DocumentOrigin
from docs_builder import add_table
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from docling_evidence import EvidenceChunker
from docling_evidence.cite import (
    CitedChunk,
    DocumentSources,
    ForeignChunkError,
    check_answer,
    check_chunks_belong,
)
from docling_evidence.cli.common import EXIT_FAILED
from docling_evidence.cli.main import app


def _origin(filename: str, binary_hash: int) -> DocumentOrigin:
    return DocumentOrigin(mimetype="application/pdf", binary_hash=binary_hash, filename=filename)


def _doc(
    name: str, values: tuple[str, str], texts: tuple[str, str, str], origin: DocumentOrigin | None
) -> DoclingDocument:
    """Two documents built by this function have the same refs (#/texts/0, #/tables/0, ...) and other content."""
    doc = DoclingDocument(name=name, origin=origin)
    doc.add_text(label=DocItemLabel.TEXT, text=texts[0])
    add_table(doc, [["", "2019"]], [["Revenue", values[0]], ["Cost", values[1]]], caption=texts[1])
    doc.add_text(label=DocItemLabel.TEXT, text=texts[2])
    return doc


def _pair(with_origin: bool = True) -> tuple[DoclingDocument, DoclingDocument]:
    mine = _doc(
        "mine",
        ("1,496.5", "12.0"),
        (
            "Hydropower output grew strongly after the new dam opened.",
            "Table 1: Results of the hydropower business",
            "Management expects rainfall to stay near its long-term average.",
        ),
        _origin("mine.pdf", 11) if with_origin else None,
    )
    other = _doc(
        "other",
        ("2,222.2", "34.5"),
        (
            "Retail banking deposits rose as interest rates climbed.",
            "Table 1: Retail banking segment figures",
            "The board proposes a final dividend payable in June.",
        ),
        _origin("other.pdf", 22) if with_origin else None,
    )
    return mine, other


def _chunks(doc: DoclingDocument) -> list:
    return list(EvidenceChunker().chunk(doc))


def test_chunks_of_another_document_are_refused_although_their_refs_exist() -> None:
    mine, other = _pair()
    foreign = _chunks(other)
    assert {r for c in map(CitedChunk.from_chunk, foreign) for r in c.refs} <= DocumentSources(mine).refs
    with pytest.raises(ValueError, match=r"chunk 0 is not from document 'mine' \(mine\.pdf, binary_hash 11\)") as exc:
        check_answer("Revenue was 1,496.5.", mine, chunks=foreign)
    assert "other.pdf, binary_hash 22" in str(exc.value)
    assert check_answer("Revenue was 1,496.5.", mine, chunks=_chunks(mine)).supported


def test_the_hash_decides_over_the_file_name() -> None:
    mine, _ = _pair()
    renamed = CitedChunk.from_chunk(_chunks(mine)[0])
    same_bytes = CitedChunk(renamed.text, renamed.refs, renamed.rows, binary_hash=11, filename="renamed.pdf")
    check_answer("Revenue was 1,496.5.", mine, chunks=[same_bytes])
    other_bytes = CitedChunk(renamed.text, renamed.refs, renamed.rows, binary_hash=99, filename="mine.pdf")
    with pytest.raises(ForeignChunkError, match="binary_hash 99"):
        check_answer("Revenue was 1,496.5.", mine, chunks=[other_bytes])


def test_document_without_origin_is_matched_by_its_name() -> None:
    mine, _ = _pair(with_origin=False)
    chunk = CitedChunk.from_chunk(_chunks(mine)[0])
    named = CitedChunk(chunk.text, chunk.refs, binary_hash=5, filename="mine.pdf")
    check_answer("Revenue was 1,496.5.", mine, chunks=[named])
    misnamed = CitedChunk(chunk.text, chunk.refs, binary_hash=5, filename="other.pdf")
    with pytest.raises(ForeignChunkError, match=r"'mine' \(no origin\).*other\.pdf"):
        check_answer("Revenue was 1,496.5.", mine, chunks=[misnamed])


@pytest.mark.parametrize("with_origin", [True, False])
def test_chunks_without_origin_are_judged_by_what_their_text_shows(with_origin: bool) -> None:
    mine, other = _pair(with_origin)
    strip = [CitedChunk(c.text, c.refs, c.rows) for c in map(CitedChunk.from_chunk, _chunks(other))]
    with pytest.raises(ForeignChunkError, match="carries no origin and its text shows none") as exc:
        check_answer("Revenue was 1,496.5.", mine, chunks=strip)
    assert exc.value.index == 0
    own = [CitedChunk(c.text, c.refs, c.rows) for c in map(CitedChunk.from_chunk, _chunks(mine))]
    assert check_answer("Revenue was 1,496.5.", mine, chunks=own).supported


def test_unknown_refs_are_refused_in_python_too() -> None:
    mine, _ = _pair()
    with pytest.raises(ForeignChunkError, match=r"chunk 1 .*not in the document \(e\.g\. #/texts/99\)"):
        check_answer("1,496.5", mine, chunks=[CitedChunk("x", frozenset()), CitedChunk("y", frozenset({"#/texts/99"}))])


@pytest.mark.parametrize(
    ("origin", "message"),
    [
        ("mine.pdf", "'meta.origin' must be an object or null"),
        ({"binary_hash": "11"}, "'meta.origin.binary_hash' must be an integer"),
        ({"binary_hash": True}, "'meta.origin.binary_hash' must be an integer"),
        ({"filename": 3}, "'meta.origin.filename' must be a string"),
    ],
)
def test_bad_origin_in_a_record_is_a_value_error(origin: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        CitedChunk.from_record({"text": "x", "meta": {"doc_items": [], "origin": origin}})


def _run(*args: str):
    return CliRunner().invoke(app, list(args))


def test_cli_refuses_another_documents_chunks_in_one_line(tmp_path: Path) -> None:
    mine, other = _pair()
    mine_path, other_path = tmp_path / "mine.json", tmp_path / "other.json"
    mine.save_as_json(mine_path)
    other.save_as_json(other_path)
    chunks = tmp_path / "other.jsonl"
    assert _run("chunk", str(other_path), "-o", str(chunks)).exit_code == 0
    result = _run("cite", str(mine_path), "-a", "Revenue was 2,222.2.", "--chunks", str(chunks))
    assert result.exit_code == EXIT_FAILED and "✓" not in result.stdout
    [line] = result.stderr.splitlines()
    assert line.startswith(f"error: {chunks}:1: chunk 0 is not from document 'mine'") and "other.pdf" in line
    own = tmp_path / "mine.jsonl"
    assert _run("chunk", str(mine_path), "-o", str(own)).exit_code == 0
    ok = _run("cite", str(mine_path), "-a", "Revenue was 1,496.5.", "--chunks", str(own), "-f", "json")
    assert ok.exit_code == 0 and json.loads(ok.stdout)["supported"]


_WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=9)
_PARAGRAPH = st.lists(_WORD, min_size=1, max_size=40).map(" ".join)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(_PARAGRAPH, min_size=1, max_size=6),
    st.lists(st.lists(_WORD, min_size=2, max_size=3), min_size=1, max_size=4),
)
def test_a_documents_own_chunks_are_never_refused(paragraphs: list[str], rows: list[list[str]]) -> None:
    doc = DoclingDocument(name="generated")
    for text in paragraphs[:-1]:
        doc.add_text(label=DocItemLabel.TEXT, text=text)
    width = max(len(r) for r in rows)
    add_table(doc, [["h"] * width], [r + [""] * (width - len(r)) for r in rows], caption=paragraphs[-1])
    cited = [CitedChunk.from_chunk(c) for c in EvidenceChunker().chunk(doc)]
    check_chunks_belong(DocumentSources(doc), [CitedChunk(c.text, c.refs, c.rows) for c in cited])
