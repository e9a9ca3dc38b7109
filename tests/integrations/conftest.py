"""Offline building blocks for the integration tests: a hashing embedding, a long-table document, a converter."""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from docling_core.types.doc import DocItemLabel, DoclingDocument, TableData
from docs_builder import table_data

EXAMPLE_HTML = Path(__file__).resolve().parents[2] / "docling_evidence" / "examples" / "annual_report.html"
DIM = 512


def hash_embed(text: str) -> list[float]:
    """Bag of hashed word tokens, signed, L2-normalised: similar wording gives similar vectors, no model needed."""
    vec = [0.0] * DIM
    for token in re.findall(r"\w+", text.lower()):
        digest = hashlib.sha1(token.encode("utf-8")).digest()
        vec[int.from_bytes(digest[:4], "little") % DIM] += 1.0 if digest[4] % 2 else -1.0
    norm = math.sqrt(sum(v * v for v in vec)) or 1.0
    return [v / norm for v in vec]


@pytest.fixture(scope="session")
def embed() -> Callable[[str], list[float]]:
    """The hashing embedding as a plain function."""
    return hash_embed


def _table(header: list[str], rows: list[list[str]]) -> TableData:
    return table_data([header], rows)


def build_fleet_doc() -> DoclingDocument:
    """A report whose vessel register (60 rows) splits into several pieces, among short sections and small tables."""
    doc = DoclingDocument(name="fleet")
    doc.add_heading("Fleet report")
    topics = ["harbour cranes", "staff training", "fuel contracts", "insurance cover", "port fees"]
    for topic in topics:
        doc.add_heading(f"Notes on {topic}", level=2)
        doc.add_text(label=DocItemLabel.TEXT, text=f"This section explains our {topic} policy for the year in detail.")
    doc.add_heading("Vessel register", level=2)
    doc.add_text(label=DocItemLabel.TEXT, text="Table 9 lists every vessel of the fleet with its flag and tonnage.")
    rows = [[f"Vessel {i}", "Panama flag vessel", f"{1000 + 37 * i} tonnes"] for i in range(60)]
    caption = doc.add_text(label=DocItemLabel.CAPTION, text="Table 9: Vessel register with flag and tonnage")
    doc.add_table(data=_table(["Vessel", "Flag", "Tonnage"], rows), caption=caption)
    doc.add_heading("Crew", level=2)
    caption = doc.add_text(label=DocItemLabel.CAPTION, text="Table 10: Crew by rank")
    doc.add_table(data=_table(["Rank", "Count"], [["Captain", "12"], ["Engineer", "30"]]), caption=caption)
    return doc


@pytest.fixture(scope="session")
def fleet_doc() -> DoclingDocument:
    """See :func:`build_fleet_doc`."""
    return build_fleet_doc()


@pytest.fixture(scope="session")
def chunker() -> Any:
    """The real EvidenceChunker with a small limit, so the register splits into several pieces."""
    from docling_evidence import EvidenceChunker, bundled_tokenizer

    return EvidenceChunker(tokenizer=bundled_tokenizer(128))


@pytest.fixture(scope="session")
def converter() -> Any:
    """One offline Docling converter for HTML and Docling JSON, shared by the tests (its set-up costs seconds)."""
    pytest.importorskip("docling.document_converter")
    from docling.datamodel.base_models import InputFormat
    from docling.document_converter import DocumentConverter

    return DocumentConverter(allowed_formats=[InputFormat.HTML, InputFormat.JSON_DOCLING])


@pytest.fixture(scope="session")
def example_html() -> Path:
    """The bundled example annual report (HTML with captioned tables, one of them long)."""
    assert EXAMPLE_HTML.is_file(), EXAMPLE_HTML
    return EXAMPLE_HTML


@pytest.fixture(scope="session")
def fixture_json(shared_dir: Path) -> Path:
    """A real Docling JSON with tables from ../shared (skips when absent)."""
    path = shared_dir / "fixtures" / "more" / "annual_report_page_stock_options.json"
    if not path.is_file():
        pytest.skip(f"{path} is not present")
    return path
