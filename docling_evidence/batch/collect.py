"""The warnings raised while one file is processed, collected instead of printed so the caller can name the file."""

from __future__ import annotations

import contextlib
import logging
import warnings
from collections.abc import Iterator, Sequence


class _Collect(logging.Handler):
    def __init__(self, sink: list[str]) -> None:
        super().__init__(logging.WARNING)
        self.sink = sink

    def emit(self, record: logging.LogRecord) -> None:
        self.sink.append(record.getMessage())


@contextlib.contextmanager
def collect_warnings(
    loggers: Sequence[str] = ("docling_evidence", "docling_core", "docling", "bs4"),
) -> Iterator[list[str]]:
    """Collect, instead of printing, the warnings raised in the block: ``warnings.warn`` (docling-core's
    UserWarnings) and WARNING-or-above records of ``loggers``. Yields the list of one-line messages (in order, each
    once), filled when the block ends; the caller prints them with the file they are about. ``bs4`` is Docling's
    HTML parser ("Some characters could not be decoded ...").
    """
    messages: list[str] = []
    handler = _Collect(messages)
    saved = []
    for name in loggers:
        logger = logging.getLogger(name)
        saved.append((logger, logger.propagate))
        logger.addHandler(handler)
        logger.propagate = False
    result: list[str] = []
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            warnings.filterwarnings("ignore", category=DeprecationWarning)
            warnings.filterwarnings("ignore", category=PendingDeprecationWarning)
            yield result
    finally:
        for logger, propagate in saved:
            logger.removeHandler(handler)
            logger.propagate = propagate
        messages.extend(str(w.message) for w in caught)
        result.extend(dict.fromkeys(" ".join(m.split()) for m in messages if m.strip()))
