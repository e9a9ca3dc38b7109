"""Processing files into chunk records, outside any command line: the chunker settings of a run, one chunker per
settings per process, one file's records or its one-line error, the warnings raised meanwhile, and the quiet
environment of a worker process.

Two engines run it: the ``docling-evidence chunk`` command (in-process and in its ``--jobs`` worker processes) and
Ray actors (:mod:`docling_evidence.integrations.ray`). It sits below both, so that neither imports the other and
Ray needs no command line. Its messages are in the command line's terms (``--max-tokens``), because both engines
report the same outcomes to the same users. Only the standard library is imported at module level; docling-core and
the chunker load when a file is processed.

May import: ``document``, ``split``, ``docling_evidence.pipeline``, ``docling_evidence.tokenizer``; never ``cli`` or
``integrations``.
"""

from docling_evidence.batch.collect import collect_warnings
from docling_evidence.batch.environment import library_verbosity, quiet_environment
from docling_evidence.batch.process import (
    BUG_REPORT_HINT,
    ChunkSettings,
    FileOutcome,
    chunker_for,
    internal_error,
    process_file,
)

__all__ = [
    "BUG_REPORT_HINT",
    "ChunkSettings",
    "FileOutcome",
    "chunker_for",
    "collect_warnings",
    "internal_error",
    "library_verbosity",
    "process_file",
    "quiet_environment",
]
