"""Fixtures for the packer tests: the report of ``packdocs`` chunked by EvidenceChunker and by HybridChunker at a
small limit."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from docling_core.types.doc import DoclingDocument

sys.path.insert(0, str(Path(__file__).parent))  # the test modules import the report's data from packdocs.py beside this
from packdocs import build_report

from docling_evidence import EvidenceChunker, bundled_tokenizer


@pytest.fixture(scope="session")
def report() -> DoclingDocument:
    """The report document."""
    return build_report()


@pytest.fixture(scope="session")
def chunker() -> EvidenceChunker:
    """EvidenceChunker at 128 tokens, so the table is split into several pieces."""
    return EvidenceChunker(tokenizer=bundled_tokenizer(128))


@pytest.fixture(scope="session")
def evidence_chunks(chunker: EvidenceChunker, report: DoclingDocument) -> list[Any]:
    """EvidenceChunker's chunks of the report."""
    return list(chunker.chunk(report))


@pytest.fixture(scope="session")
def hybrid_chunks(report: DoclingDocument) -> list[Any]:
    """HybridChunker's chunks of the report (triplet tables, the same tokenizer and limit)."""
    from docling_core.transforms.chunker.hybrid_chunker import HybridChunker

    return list(HybridChunker(tokenizer=bundled_tokenizer(128)).chunk(report))


@pytest.fixture(scope="session")
def hybrid_markdown_chunks(report: DoclingDocument) -> list[Any]:
    """HybridChunker's chunks of the report with docling-core's Markdown table serializer."""
    from docling_core.transforms.chunker.hierarchical_chunker import ChunkingDocSerializer, ChunkingSerializerProvider
    from docling_core.transforms.chunker.hybrid_chunker import HybridChunker
    from docling_core.transforms.serializer.markdown import MarkdownTableSerializer

    class MarkdownTables(ChunkingSerializerProvider):
        def get_serializer(self, doc: DoclingDocument) -> ChunkingDocSerializer:
            return ChunkingDocSerializer(doc=doc, table_serializer=MarkdownTableSerializer())

    return list(HybridChunker(tokenizer=bundled_tokenizer(128), serializer_provider=MarkdownTables()).chunk(report))
