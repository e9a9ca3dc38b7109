"""The HTML inspector: members marked by role, token counts, pages to scale with unit boxes, escaping, Chromium."""

from __future__ import annotations

import os
import random
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
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
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from docling_evidence import EvidenceChunker
from docling_evidence.cli.inspect_report import UNIT_COLOURS, render_report
from docling_evidence.cli.main import app

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
        [
            "bash",
            str(REPO / "bench" / "docling_evidence_bench" / "tools" / "screenshot_inspector.sh"),
            str(one_page_fixture),
            str(png),
        ],
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


class _Elements(HTMLParser):
    """Every start tag with its attributes and the tags it sits in (the report's DOM, enough for structure checks)."""

    def __init__(self) -> None:
        super().__init__()
        self.elements: list[tuple[str, dict[str, str], tuple[str, ...]]] = []
        self._open: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, {k: v or "" for k, v in attrs}, tuple(self._open)))
        if tag not in ("meta", "rect", "br", "img"):
            self._open.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, {k: v or "" for k, v in attrs}, tuple(self._open)))

    def handle_endtag(self, tag: str) -> None:
        if tag in self._open:
            while self._open.pop() != tag:
                pass


def _dom(page: str) -> _Elements:
    parser = _Elements()
    parser.feed(page)
    return parser


def _figures(page: str) -> list[str]:
    return re.findall(r'<figure class="page".*?</figure>', page, flags=re.S)


def _member_summaries(page: str) -> list[str]:
    return re.findall(r'<span class="muted">table</span> (table [^<]*)</li>', page)


def test_every_drawn_page_enlarges_on_click_and_closes_back_to_its_section(one_page_fixture: Path) -> None:
    doc = DoclingDocument.load_from_json(one_page_fixture)
    chunker = EvidenceChunker()
    chunks = list(chunker.chunk(doc))
    from docling_evidence.cite.check import check_answer

    page = render_report(doc, chunks, chunker, citations=check_answer("The model reaches 98.5.", doc))
    ids = [attrs["id"] for _tag, attrs, _in in _dom(page).elements if "id" in attrs]
    assert len(ids) == len(set(ids))
    figures = _figures(page)
    # the overview, the table units' cards and the citations each draw their pages
    assert len(figures) >= len(doc.pages) + 1 and page.count("<svg") == len(figures)
    for figure in figures:
        elements = _dom(figure).elements
        fig_id = elements[0][1]["id"]
        links = {attrs["class"]: (attrs["href"], inside) for tag, attrs, inside in elements if tag == "a"}
        # a click on the drawing makes the figure the document's :target ...
        assert links["open"][0] == f"#{fig_id}"
        assert any(tag == "svg" and inside[-1] == "a" for tag, _attrs, inside in elements)
        # ... and the close link goes back to the section the page was drawn in
        assert links["close"][0][1:] in ids and links["close"][0] != f"#{fig_id}"
    css = page[page.index("<style>") : page.index("</style>")]
    assert ".page:target{position:fixed;inset:0" in css and ".page:target svg{width:auto;height:calc(100vh" in css
    assert "<script" not in page  # plain HTML and CSS: the report stays script-free


def test_enlarged_outlines_stay_thin() -> None:
    doc = _hostile_document()
    chunker = EvidenceChunker()
    page = render_report(doc, list(chunker.chunk(doc)), chunker)
    unit_outlines = re.findall(r"<rect [^>]*fill-opacity[^>]*>", page)
    # drawn in screen pixels: a page enlarged to the window's height keeps 2-pixel outlines
    assert unit_outlines and all('stroke-width="2" vector-effect="non-scaling-stroke"' in r for r in unit_outlines)


def test_table_member_lists_header_cells_in_column_order() -> None:
    doc = DoclingDocument(name="order")
    data = table_data([["Model", "Dataset", "Simple", "TEDS Complex", "All"]], [["EDD", "PTN", "91.1", "88.7", "89.9"]])
    # Docling stores cells in detection order, not grid order
    data.table_cells = [data.table_cells[i] for i in (0, 3, 1, 2, 4, 5, 6, 7, 8, 9)]
    doc.add_table(data=data)
    chunker = EvidenceChunker()
    page = render_report(doc, list(chunker.chunk(doc)), chunker)
    summaries = _member_summaries(page)
    assert summaries and set(summaries) == {"table 2×5: Model | Dataset | Simple | TEDS Complex | All"}


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.text(alphabet="abcdefghij", min_size=1, max_size=6), min_size=1, max_size=6, unique=True),
    st.integers(0, 2),
    st.randoms(use_true_random=False),
)
def test_header_summary_ignores_storage_order(labels: list[str], n_body: int, rnd: random.Random) -> None:
    doc = DoclingDocument(name="shuffled")
    data = table_data([labels], [[f"{r}{c}" for c in range(len(labels))] for r in range(n_body)])
    rnd.shuffle(data.table_cells)
    doc.add_table(data=data)
    chunker = EvidenceChunker()
    summaries = _member_summaries(render_report(doc, list(chunker.chunk(doc)), chunker))
    assert set(summaries) == {f"table {1 + n_body}×{len(labels)}: " + " | ".join(labels)}


def test_fixture_table_header_in_column_order(shared_dir: Path) -> None:
    path = shared_dir / "fixtures" / "docling" / "2203.01017v2.json"
    if not path.is_file():
        pytest.skip(f"{path} is missing")
    doc = DoclingDocument.load_from_json(path)
    chunker = EvidenceChunker()
    summaries = set(_member_summaries(render_report(doc, list(chunker.chunk(doc)), chunker)))
    assert "table 11×5: Model | Dataset | Simple | TEDS Complex | All" in summaries
    assert not any("Model | TEDS Complex" in s for s in summaries)
