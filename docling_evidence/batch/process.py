"""One file into chunk records: the settings of a run, the chunker built for them, and the file's outcome."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from docling_evidence.batch.collect import collect_warnings

BUG_REPORT_HINT = "this is a bug in docling-evidence: please report it with the file"


@dataclass(frozen=True)
class ChunkSettings:
    """The chunker options of a run; picklable, so worker processes build the same chunker."""

    max_tokens: int | None = None
    tokenizer: str | None = None
    bbox_threshold: float | None = None
    table_format: str | None = None


_CHUNKERS: dict[ChunkSettings, Any] = {}
"""The chunkers built in this process, by settings (loading the tokenizer is the slow part)."""


def chunker_for(settings: ChunkSettings) -> Any:
    """One chunker per settings per process, built on first use.

    Raises:
        ValueError, TypeError: when the settings cannot build a chunker (e.g. an unknown tokenizer).
    """
    from docling_evidence.pipeline import make_chunker

    if settings not in _CHUNKERS:
        _CHUNKERS[settings] = make_chunker(
            max_tokens=settings.max_tokens,
            tokenizer=settings.tokenizer,
            bbox_threshold=settings.bbox_threshold,
            table_format=settings.table_format,
        )
    return _CHUNKERS[settings]


@dataclass
class FileOutcome:
    """What processing one input file produced: its chunk records or the one-line error, and its warnings."""

    path: str
    records: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0


def internal_error(path: str | Path, exc: BaseException) -> str:
    """The one-line message for an exception that is our bug, not the input's fault (distinct from InputError's)."""
    message = " ".join(str(exc).split())[:200]
    return f"{path}: internal error: {type(exc).__name__}: {message} ({BUG_REPORT_HINT})"


def process_file(path: str, settings: ChunkSettings) -> FileOutcome:
    """Convert and chunk one file into chunk records; never raises (errors become ``FileOutcome.error``).

    An :class:`~docling_evidence.document.convert.InputError` (the file is unreadable, or docling-core's own validation
    rejects it) and an unexpected exception (our bug) give different messages; a token limit too small for the file
    says which ``--max-tokens`` works (:func:`~docling_evidence.batch.limit_search.limit_advice`). Warnings raised
    meanwhile are returned, not printed, so the caller can name the file.
    """
    from docling_evidence.batch.limit_search import limit_advice
    from docling_evidence.document.convert import InputError, convert_path
    from docling_evidence.pipeline import chunk_document, chunk_record
    from docling_evidence.split.splitter import TokenLimitTooSmall

    start = time.perf_counter()
    outcome = FileOutcome(path)
    doc = None
    with collect_warnings() as caught:
        try:
            chunker = chunker_for(settings)
            doc = convert_path(path)
            outcome.records = [chunk_record(c, chunker, path) for c in chunk_document(doc, chunker)]
        except InputError as exc:
            outcome.error = str(exc)
        except TokenLimitTooSmall as exc:  # the settings' fault, not a bug: say what to change
            outcome.error = f"{path}: {limit_advice(exc, doc, settings)}"
        except Exception as exc:  # a bug or an unforeseen Docling failure: report it, keep the batch going
            outcome.error = internal_error(path, exc)
    outcome.warnings = caught
    outcome.seconds = time.perf_counter() - start
    return outcome
