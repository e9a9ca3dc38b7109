"""Deterministic citation checks: which part of a document, or of the retrieved chunks, supports each claim
of an answer.

May import: ``document``, ``text``, ``tables``, ``docling_evidence.meta``.
"""

from docling_evidence.cite.check import (
    CitationReport,
    CitedChunk,
    Claim,
    Evidence,
    ForeignChunkError,
    check_answer,
    check_file,
    extract_claims,
    format_text,
    read_chunks_jsonl,
)

__all__ = [
    "CitationReport",
    "CitedChunk",
    "Claim",
    "Evidence",
    "ForeignChunkError",
    "check_answer",
    "check_file",
    "extract_claims",
    "format_text",
    "read_chunks_jsonl",
]
