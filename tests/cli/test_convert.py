"""The Python helpers: input expansion, DoclingDocument JSON loading, conversion, chunk_path / chunk_document."""

from __future__ import annotations

from pathlib import Path

import pytest
from docling_core.types.doc import DoclingDocument

from docling_evidence import EvidenceChunker, bundled_tokenizer
from docling_evidence.document.convert import InputError, convert_path, expand_inputs, iter_input_files
from docling_evidence.meta import EvidenceChunk
from docling_evidence.pipeline import chunk_document, chunk_path, chunk_record, make_chunker

EXAMPLES = Path(__file__).resolve().parents[2] / "docling_evidence" / "examples"


def test_iter_input_files_expands_folders_recursively(tmp_path: Path) -> None:
    for name in ["b/z.json", "b/a.docx", "a.html", "c/d/e.md", "c/skip.bin", "README"]:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x")
    files = list(iter_input_files([tmp_path, tmp_path / "a.html"]))
    assert files == sorted(files)
    assert [p.relative_to(tmp_path).as_posix() for p in files] == ["a.html", "b/a.docx", "b/z.json", "c/d/e.md"]


def test_iter_input_files_raises_before_yielding(tmp_path: Path) -> None:
    good = tmp_path / "a.json"
    good.write_text("{}")
    (tmp_path / "x.tiff").write_bytes(b"II*")
    with pytest.raises(InputError, match="no such file"):
        list(iter_input_files([good, tmp_path / "missing.pdf"]))
    expanded = expand_inputs([good, tmp_path / "missing.pdf", tmp_path / "x.tiff"])
    assert expanded.files == [good]
    assert [e.problem.split()[0] for e in expanded.errors] == ["no", "unsupported"]


def test_chunk_path_on_docling_json(example_json: Path) -> None:
    chunks = chunk_path(example_json)
    assert chunks and all(isinstance(c, EvidenceChunk) for c in chunks)
    doc = DoclingDocument.load_from_json(example_json)
    chunker = EvidenceChunker(tokenizer=bundled_tokenizer(128))
    small = chunk_document(doc, chunker)
    assert len(small) > len(chunks)
    record = chunk_record(small[0], chunker, example_json)
    assert record["text"] == chunker.contextualize(small[0])
    restored = EvidenceChunk.model_validate(record["chunk"])
    assert restored.model_dump(mode="json", by_alias=True) == record["chunk"]
    assert restored.text == small[0].text and restored.meta.unit_id == small[0].meta.unit_id


def test_convert_html_and_docx_match(has_docling: bool) -> None:
    if not has_docling:
        pytest.skip("Docling converters are not installed")
    html_doc = convert_path(EXAMPLES / "annual_report.html")
    docx_doc = convert_path(EXAMPLES / "annual_report.docx")
    assert len(html_doc.tables) == len(docx_doc.tables) == 5
    # HTML <caption>s become linked captions, except Table 4 whose caption is a plain paragraph.
    assert [bool(t.captions) for t in html_doc.tables] == [True, True, True, False, True]
    register = html_doc.tables[2]
    assert register.data.num_rows == 65  # header + 64 vessels: has to be split at 256 tokens


def test_unlinked_caption_is_still_found(has_docling: bool) -> None:
    if not has_docling:
        pytest.skip("Docling converters are not installed")
    chunks = chunk_path(EXAMPLES / "annual_report.html")
    captions = [c.meta.caption for c in chunks if c.meta.kind == "table"]
    assert any(c and c.startswith("Table 4:") for c in captions)


def test_chunk_document_rejects_other_types() -> None:
    with pytest.raises(TypeError, match="DoclingDocument"):
        chunk_document({"texts": []})  # type: ignore[arg-type]


def test_make_chunker_settings() -> None:
    chunker = make_chunker(max_tokens=100, bbox_threshold=12.5, table_format="html")
    assert chunker.tokenizer.get_max_tokens() == 100
    assert chunker.bbox_threshold == 12.5
    with pytest.raises(ValueError, match="max_tokens"):
        make_chunker(max_tokens=0)


def test_backend_fallback_without_torch_matches_document_converter(
    has_docling: bool, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """docling-slim's DocumentConverter imports torch; without it the declarative backends give the same document."""
    if not has_docling:
        pytest.skip("Docling converters are not installed")
    from docling_evidence.document import convert

    expected = {name: convert_path(EXAMPLES / name).export_to_markdown() for name in ("annual_report.docx",)}

    def no_torch() -> None:
        raise ModuleNotFoundError("No module named 'torch'")

    monkeypatch.setattr(convert, "_document_converter", no_torch)
    for name, markdown in expected.items():
        assert convert_path(EXAMPLES / name).export_to_markdown() == markdown
    html = convert_path(EXAMPLES / "annual_report.html")
    assert [bool(t.captions) for t in html.tables] == [True, True, True, False, True]
    truncated = tmp_path / "cut.docx"
    truncated.write_bytes((EXAMPLES / "annual_report.docx").read_bytes()[:5000])
    with pytest.raises(InputError, match="truncated or corrupt"):
        convert_path(truncated)
    pdf = tmp_path / "a.pdf"
    pdf.write_bytes(b"%PDF-1.4\n%%EOF\n")
    with pytest.raises(InputError, match="docling-tools models download"):
        convert_path(pdf)


def test_public_entry_points_are_the_pipeline_functions() -> None:
    import docling_evidence

    assert docling_evidence.convert_path is convert_path
    assert docling_evidence.chunk_path is chunk_path
    assert docling_evidence.chunk_document is chunk_document
    assert {"convert_path", "chunk_path", "chunk_document"} <= set(docling_evidence.__all__)
