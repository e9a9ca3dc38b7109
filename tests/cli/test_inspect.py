"""The HTML inspector: members marked by role, token counts, pages to scale with unit boxes, escaping, Chromium."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from docling_core.types.doc import (
    BoundingBox,
    CoordOrigin,
    DocItemLabel,
    DoclingDocument,
    ProvenanceItem,
    Size,
)
from docs_builder import table_data
from typer.testing import CliRunner

from docling_evidence import EvidenceChunker
from docling_evidence.cli import app
from docling_evidence.inspect_report import UNIT_COLOURS, render_report

REPO = Path(__file__).resolve().parents[2]


def _bottom_left(left: float, top: float, right: float, bottom: float) -> ProvenanceItem:
    box = BoundingBox(l=left, t=top, r=right, b=bottom, coord_origin=CoordOrigin.BOTTOMLEFT)
    return ProvenanceItem(page_no=1, bbox=box, charspan=(0, 0))


def _hostile_document() -> DoclingDocument:
    """One 600x800 page, a table whose caption and cells hold markup, boxes in Docling's BOTTOMLEFT origin."""
    doc = DoclingDocument(name="hostile")
    doc.add_page(page_no=1, size=Size(width=600, height=800))
    doc.add_text(
        label=DocItemLabel.TEXT,
        text="As Table 1 shows, <b>bold</b> claims & more.",
        prov=_bottom_left(50, 780, 550, 740),
    )
    data = table_data([["Item", "<img src=x onerror=alert(1)>"]], [["a", "1"], ["b", "2"]])
    table = doc.add_table(data=data, prov=_bottom_left(100, 700, 500, 500))
    caption = doc.add_text(
        label=DocItemLabel.CAPTION,
        text="Table 1: <script>alert('x')</script> results",
        prov=_bottom_left(100, 720, 500, 705),
    )
    table.captions.append(caption.get_ref())
    return doc


def test_report_escapes_text_and_draws_boxes_top_left() -> None:
    doc = _hostile_document()
    chunker = EvidenceChunker()
    chunks = list(chunker.chunk(doc))
    page = render_report(doc, chunks, chunker, source="hostile<1>.json")
    assert "<script" not in page and "<img" not in page and "<b>bold" not in page
    assert "&lt;script&gt;" in page and "hostile&lt;1&gt;.json" in page
    # The table's BOTTOMLEFT box (t=700, b=500 on an 800pt page) is drawn from y=100, 200 high, in the unit colour.
    table_rect = re.findall(r'<rect x="100.0" y="100.0" width="400.0" height="200.0" fill="(#[0-9a-f]{6})"', page)
    assert UNIT_COLOURS[0] in table_rect
    assert '<svg xmlns="http://www.w3.org/2000/svg" width="200" height="267"' in page  # to scale: 600x800 -> 200
    table_chunks = [c for c in chunks if c.meta.kind == "table"]
    assert table_chunks
    limit = chunker.tokenizer.get_max_tokens()
    for chunk in table_chunks:
        tokens = chunker.tokenizer.count_tokens(chunker.contextualize(chunk))
        assert f"{tokens}/{limit} tokens" in page
    for role in set(table_chunks[0].meta.roles.values()):
        assert f">{role}</span>" in page


def test_report_without_layout_says_so(example_json: Path) -> None:
    doc = DoclingDocument.load_from_json(example_json)
    chunker = EvidenceChunker()
    chunks = list(chunker.chunk(doc))
    page = render_report(doc, chunks, chunker)
    assert "<svg" not in page and "no page layout" in page
    # Table 2 opens with a piece of context (it fits one piece without it): its header says so, not "rows 1–0"
    assert any(c.meta.rows == (0, 0) for c in chunks) and "no rows" in page and "rows 1–0" not in page
    assert page.count('<section class="chunk"') == len(chunks) + len(
        {c.meta.unit_id for c in chunks if c.meta.kind == "table"}
    )


def test_report_with_layout_draws_pages_and_does_not_say_it_has_none(one_page_fixture: Path) -> None:
    doc = DoclingDocument.load_from_json(one_page_fixture)
    chunker = EvidenceChunker()
    page = render_report(doc, list(chunker.chunk(doc)), chunker)
    assert "<h2>Pages</h2>" in page and "<svg" in page
    assert "no page layout" not in page and "NaN or infinite" not in page


def test_cited_evidence_on_a_page_without_a_size_is_listed_not_drawn(runner: CliRunner, tmp_path: Path) -> None:
    # a zero-size page cannot be drawn to scale (it divided by zero and failed the file as an internal error)
    doc = DoclingDocument(name="zero")
    doc.add_page(page_no=1, size=Size(width=0, height=0))
    box = BoundingBox(l=10, t=10, r=100, b=20, coord_origin=CoordOrigin.TOPLEFT)
    doc.add_text(
        label=DocItemLabel.TEXT,
        text="Revenue was 1,234 million in 2023.",
        prov=ProvenanceItem(page_no=1, bbox=box, charspan=(0, 0)),
    )
    path = tmp_path / "zero.json"
    doc.save_as_json(path)
    out = tmp_path / "zero.html"
    result = runner.invoke(app, ["inspect", str(path), "-o", str(out), "--answer", "Revenue was 1,234 million."])
    assert result.exit_code == 0, result.stderr
    report = out.read_text()
    assert "<h2>Citations (" in report and "<svg" not in report


def test_inspect_command_single_and_several(
    runner: CliRunner, one_page_fixture: Path, example_json: Path, tmp_path: Path
) -> None:
    out = tmp_path / "report.html"
    result = runner.invoke(app, ["inspect", str(one_page_fixture), "-o", str(out)])
    assert result.exit_code == 0, result.stderr
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "<svg" in page and "<link" not in page and "src=" not in page

    folder = tmp_path / "reports"
    missing = tmp_path / "missing.json"
    result = runner.invoke(app, ["inspect", str(one_page_fixture), str(example_json), str(missing), "-o", str(folder)])
    assert result.exit_code == 1
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        [f"{one_page_fixture.stem}.inspect.html", "annual_report.inspect.html"]
    )
    assert str(missing) in result.stderr


def test_inspect_usage_errors(runner: CliRunner, one_page_fixture: Path, tmp_path: Path) -> None:
    assert runner.invoke(app, ["inspect", str(one_page_fixture), "--max-tokens", "0"]).exit_code == 2
    blocker = tmp_path / "f"
    blocker.write_text("x")
    result = runner.invoke(app, ["inspect", str(one_page_fixture), "-o", str(blocker / "r.html")])
    assert result.exit_code == 2 and "cannot write" in result.stderr


def _chromium() -> str | None:
    return os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")


def test_screenshot_script_renders_the_report(one_page_fixture: Path, tmp_path: Path) -> None:
    if _chromium() is None:
        pytest.skip("headless Chromium is not installed (apt-get install chromium)")
    png = tmp_path / "shot.png"
    env = {**os.environ, "WINDOW_SIZE": "800,600", "PYTHON": sys.executable}
    subprocess.run(
        ["bash", str(REPO / "scripts" / "screenshot_inspector.sh"), str(one_page_fixture), str(png)],
        check=True,
        env=env,
        capture_output=True,
        timeout=180,
    )
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert (width, height) == (800, 600)
    assert len(data) > 20_000  # a blank page compresses to a few KB
