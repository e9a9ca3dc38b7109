"""The ``--max-tokens`` that works for a file the chunker refused at a smaller one, and the advice naming it.

The chunker's "token limit too small" message speaks to Python callers ("use a tokenizer with a larger max_tokens");
a command-line user needs the option to change and a value for it. The document is at hand when the error happens,
so it is chunked again at larger limits (doubling, then bisecting: about ten runs at most, most of them failing
fast at the first table) until the smallest limit that works is known, or the time budget is spent.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Iterator
from typing import Any, Protocol


class Settings(Protocol):
    """A :class:`~docling_evidence.batch.process.ChunkSettings` (a frozen dataclass): what
    :func:`smallest_max_tokens` rebuilds a chunker from."""

    max_tokens: int | None
    tokenizer: str | None
    bbox_threshold: float | None
    table_format: str | None


LIMIT_SEARCH_SECONDS = 20.0
"""How long :func:`smallest_max_tokens` may chunk a file again to find the limit that works for it."""
LIMIT_SEARCH_CAP = 8192
"""The largest limit :func:`smallest_max_tokens` tries."""


def smallest_max_tokens(
    doc: Any, settings: Settings, failed: int, seconds: float = LIMIT_SEARCH_SECONDS
) -> tuple[int | None, bool]:
    """A ``--max-tokens`` that chunks ``doc`` with these settings, found by doubling ``failed`` and then bisecting,
    and whether it is exact (one less fails). ``(None, False)`` when none up to :data:`LIMIT_SEARCH_CAP` works in
    ``seconds``. Only run after a failure: the document is chunked again a few times (about ten at most)."""
    from dataclasses import replace

    from docling_evidence.split.splitter import TokenLimitTooSmall

    deadline = time.perf_counter() + seconds

    def works(limit: int) -> bool:
        try:
            chunker = _chunker_for_limit(replace(settings, max_tokens=limit))
            for _ in chunker.chunk(doc):
                pass
        except TokenLimitTooSmall:
            return False
        except Exception as exc:  # the advice runs inside the caller's error handler: nothing may escape it
            raise _TrialFailed from exc
        return True

    try:
        return _search(works, failed, deadline)
    except _TrialFailed:
        return None, False


class _TrialFailed(Exception):
    """A trial run failed for another reason than the limit: no limit can be advised."""


def _search(works: Callable[[int], bool], failed: int, deadline: float) -> tuple[int | None, bool]:
    """Double ``failed`` until ``works``, then bisect; see :func:`smallest_max_tokens`."""
    low, high = failed, None
    with _silenced():  # the trial runs' warnings are not the file's
        while high is None and low < LIMIT_SEARCH_CAP and time.perf_counter() < deadline:
            trial = min(LIMIT_SEARCH_CAP, low * 2)
            if works(trial):
                high = trial
            else:
                low = trial
        while high is not None and high - low > 1 and time.perf_counter() < deadline:
            middle = (low + high) // 2
            low, high = (low, middle) if works(middle) else (middle, high)
    return high, high is not None and high - low == 1


@contextlib.contextmanager
def _silenced() -> Iterator[None]:
    """No warnings and no log records in the block, not even for a :func:`collect_warnings` around it."""
    import warnings

    previous = logging.root.manager.disable
    logging.disable(logging.CRITICAL)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        logging.disable(previous)


def _chunker_for_limit(settings: Settings) -> Any:
    from docling_evidence.pipeline import make_chunker

    return make_chunker(
        max_tokens=settings.max_tokens,
        tokenizer=settings.tokenizer,
        bbox_threshold=settings.bbox_threshold,
        table_format=settings.table_format,
    )


_API_ADVICE = "use a tokenizer with a larger max_tokens"


def limit_advice(exc: Exception, doc: Any, settings: Settings) -> str:
    """The chunker's "token limit too small" message with the advice in the command line's terms: the
    ``--max-tokens`` that works for this file (searched when the document is at hand), ``--table-format markdown``
    for the compact one."""
    from docling_evidence.tokenizer import DEFAULT_MAX_TOKENS

    failed = settings.max_tokens or DEFAULT_MAX_TOKENS
    found, exact = smallest_max_tokens(doc, settings, failed) if doc is not None else (None, False)
    if found is not None and exact:
        advice = f"use --max-tokens {found} or more ({found} is the smallest limit that chunks this file)"
    elif found is not None:
        advice = f"use a larger --max-tokens ({found} chunks this file)"
    else:
        advice = "use a larger --max-tokens"
    message = " ".join(str(exc).split()).replace("table_format='markdown'", "--table-format markdown")
    return message.replace(_API_ADVICE, advice) if _API_ADVICE in message else f"{message}; {advice}"
