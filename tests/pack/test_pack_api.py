"""The packer's public surface: the lazy export, the JSON-safe result, and citing from packed evidence."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from docling_core.types.doc import DoclingDocument

from docling_evidence import EvidenceChunker, bundled_tokenizer
from docling_evidence.cite.check import check_answer

REPO = Path(__file__).resolve().parents[2]


def test_packed_evidence_is_exported_lazily() -> None:
    code = (
        "import sys, docling_evidence\n"
        "assert 'docling_evidence.pack.packer' not in sys.modules\n"
        "from docling_evidence import PackedEvidence\n"
        "print(PackedEvidence.__module__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert out.returncode == 0, out.stderr[-1500:]
    assert out.stdout.strip() == "docling_evidence.pack.evidence"


def test_result_is_json_safe(chunker: EvidenceChunker, evidence_chunks: list[Any]) -> None:
    packed = chunker.pack("Fibre networks revenue 2020", evidence_chunks, 200)
    dumped = json.loads(json.dumps(packed.model_dump(mode="json")))
    assert dumped["text"] == packed.text and dumped["tokens"] == packed.tokens
    for block in packed.blocks:
        assert json.loads(json.dumps(block.metadata()))["doc_refs"] == block.doc_refs


def test_check_answer_accepts_packed_evidence(
    chunker: EvidenceChunker, evidence_chunks: list[Any], report: DoclingDocument
) -> None:
    pieces = [c for c in evidence_chunks if c.meta.kind == "table"]
    fibre = next(c for c in pieces if "| Fibre networks |" in c.text)
    packed = chunker.pack("What was the revenue of Fibre networks in 2020?", [fibre], 128)
    assert "1,674" in packed.text and "1,797" not in packed.text
    report_ok = check_answer("Fibre networks had revenue of 1,674 in 2020.", report, chunks=packed)
    (cell,) = [c for c in report_ok.claims if c.text == "1,674"]
    assert cell.supported and cell.evidence[0].chunk == 0 and cell.evidence[0].row_label == "Fibre networks"
    report_off = check_answer("Dairy farming had revenue of 1,797 in 2020.", report, chunks=packed)
    (other,) = [c for c in report_off.claims if c.text == "1,797"]
    assert not other.supported and other.elsewhere, "not in the packed text, found elsewhere in the document"


def test_a_caption_of_two_paragraphs_is_tagged_caption_and_the_row_keeps_its_tag() -> None:
    """A web page's table title can be two paragraphs ("Authority control databases" and an "Edit this at
    Wikidata" note): both are the caption, and the table's line is still its row, not a shifted tag."""
    from docling_evidence.pack.lines import piece_line_roles

    caption = "Authority control databases\n\nEdit this at Wikidata"
    text = f"{caption}\n\n| National | United States |"
    tags = piece_line_roles(text, caption=caption, caption_shown=True, prose={}, rows=[0])
    assert len(tags) == len(text.split("\n"))
    assert tags == ["caption", "caption", "caption", "", "row 0"]


def test_a_one_line_fragment_before_the_table_is_not_taken_for_its_row() -> None:
    """A caption too long to repeat is shown shortened, then in fragments; a one-line fragment must keep its caption
    tag rather than pass for a table of one row and no header, which would leave the real table lines untagged."""
    from docling_evidence.pack.lines import piece_line_roles

    caption = "Table 7: Distillation rates. We measure quality. However, larger teachers need larger students."
    short = "Table 7: Distillation rates.  …"
    fragment = "However, larger teachers need larger students."
    text = f"{short}\n\n{fragment}\n\n| Model | Params |\n|---|---|\n| T5-Base | 223M |"
    tags = piece_line_roles(text, caption=caption, caption_shown=True, prose={}, rows=[0], has_header=True)
    assert tags == ["caption", "", "caption", "", "header", "header", "row 0"]
    context = "The paragraph that explains the table. It is cut over two pieces."
    text = f"{short}\n\nIt is cut over two pieces.\n\n| Model | Params |\n|---|---|\n| T5-Base | 223M |"
    tags = piece_line_roles(text, caption=caption, caption_shown=True, prose={context: "context #/texts/3"}, rows=[0])
    assert tags == ["caption", "", "context #/texts/3", "", "header", "header", "row 0"]


def test_every_table_line_of_a_piece_is_tagged_as_the_table_under_a_caption_cut_over_pieces() -> None:
    """End to end: a caption too long to repeat is cut over the pieces; in every piece each Markdown table line is
    tagged ``header`` or ``row <i>`` and no other line is, so the packer finds the rows."""
    from docs_builder import add_table

    doc = DoclingDocument(name="long-caption")
    sentences = " ".join(f"Sentence {k} describes the setting at length." for k in range(12))
    caption = f"Table 1: Results of the models. {sentences}"
    add_table(doc, [["Model", "Score"]], [[f"model {r}", f"{r}.5"] for r in range(6)], caption=caption)
    chunks = list(EvidenceChunker(tokenizer=bundled_tokenizer(96)).chunk(doc))
    table_chunks = [c for c in chunks if c.meta.kind == "table"]
    assert len(table_chunks) > 1
    rows_seen: list[int] = []
    for c in table_chunks:
        lines = c.text.split("\n")
        roles = c.meta.line_roles
        assert len(roles) == len(lines)
        for line, role in zip(lines, roles, strict=True):
            is_table_line = line.startswith("|")
            assert is_table_line == (role == "header" or role.startswith("row ")), (line, role)
            if role.startswith("row "):
                rows_seen.append(int(role.split()[1]))
    assert sorted(rows_seen) == list(range(6))
