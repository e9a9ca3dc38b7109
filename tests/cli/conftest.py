"""Fixtures for the CLI tests: a Typer runner, the bundled example as DoclingDocument JSON, small real fixtures."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

EXAMPLES = Path(__file__).resolve().parents[2] / "docling_evidence" / "examples"


@pytest.fixture
def runner() -> CliRunner:
    """A runner keeping stdout (chunks) and stderr (progress, errors, summary) apart."""
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    return CliRunner()


@pytest.fixture(scope="session")
def has_docling() -> bool:
    """Whether Docling's converters (the ``convert`` extra) are installed."""
    return importlib.util.find_spec("docling") is not None


@pytest.fixture(scope="session")
def example_json(tmp_path_factory: pytest.TempPathFactory, has_docling: bool) -> Path:
    """The bundled example report converted once by Docling and saved as DoclingDocument JSON."""
    if not has_docling:
        pytest.skip("Docling converters are not installed (pip install 'docling-evidence[convert]')")
    from docling_evidence.document.convert import convert_path

    doc = convert_path(EXAMPLES / "annual_report.html")
    path = tmp_path_factory.mktemp("example") / "annual_report.json"
    doc.save_as_json(path)
    return path


@pytest.fixture(scope="session")
def one_page_fixture(shared_dir: Path) -> Path:
    """A real one-page Docling document with layout and a captioned table."""
    path = shared_dir / "fixtures" / "docling" / "2305.03393v1-pg9.json"
    if not path.is_file():
        pytest.skip(f"{path} is missing")
    return path


@pytest.fixture(scope="session")
def layout_fixture(shared_dir: Path) -> Path:
    """A real 9-page paper with five tables and layout."""
    path = shared_dir / "fixtures" / "docling" / "2206.01062.json"
    if not path.is_file():
        pytest.skip(f"{path} is missing")
    return path


def build_doc(rows: int = 6, caption: str = "Table 1: Revenue by region (USD m)") -> Any:
    """A one-page DoclingDocument with layout: a heading, a paragraph naming the table, a captioned table."""
    from docling_core.types.doc import DocItemLabel

    from tests.docs_builder import add_table, paged_doc, prov

    doc = paged_doc(1)
    doc.add_heading("Results", prov=prov(1, 72, 60, 540, 80))
    doc.add_text(label=DocItemLabel.TEXT, text="Table 1 shows revenue by region.", prov=prov(1, 72, 90, 540, 120))
    body = [[f"Region {i}", f"{100 + i}.5", f"{90 + i}.0"] for i in range(rows)]
    add_table(
        doc,
        [["Region", "2025", "2024"]],
        body,
        caption=caption,
        provs=[prov(1, 72, 150, 540, min(150 + 12 * (rows + 1), 780))],
        caption_prov=prov(1, 72, 130, 540, 145),
    )
    return doc


@pytest.fixture
def doc_json(tmp_path: Path) -> Path:
    """A small DoclingDocument JSON with one captioned table, written in the test's temp folder."""
    path = tmp_path / "inputs" / "report.json"
    path.parent.mkdir()
    build_doc().save_as_json(path)
    return path
