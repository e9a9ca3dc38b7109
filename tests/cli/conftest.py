"""Fixtures for the CLI tests: a Typer runner, the bundled example as DoclingDocument JSON, small real fixtures."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

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
    from docling_evidence.convert import convert_path

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
