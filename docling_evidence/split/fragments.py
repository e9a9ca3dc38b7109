"""Cutting a text into consecutive fragments of at most a number of tokens, and the budget a prefix leaves."""

from __future__ import annotations

from collections.abc import Callable

SEMCHUNK_MIN_SIZE = 8
"""Below this many tokens a text is cut by characters instead of by semchunk (which can recurse without end there)."""


def piece_budget(count: Callable[[str], int], limit: int, prefix: str = "") -> int:
    """Tokens left for a piece's text when ``prefix`` is put in front of it (the "limit minus headings" budget).

    ``prefix`` is what ``contextualize`` adds before the text (the headings and the delimiter). Its cost is measured
    as the tokenizer counts it in front of a text (``count(prefix + "x") - count("x")``), so a tokenizer that adds
    special tokens once per text does not pay for them twice. The result can be zero or negative when the prefix
    alone fills the limit.
    """
    return limit - (count(prefix + "x") - count("x")) if prefix else limit


def fragments(
    text: str, size: int, count: Callable[[str], int], *, semchunk_min_size: int = SEMCHUNK_MIN_SIZE
) -> list[str]:
    """Cut ``text`` into consecutive fragments of at most ``size`` tokens that concatenate back to ``text``.

    semchunk cuts at the most meaningful boundary (paragraph, sentence, word); where it cannot (sizes below
    ``semchunk_min_size``, characters worth several tokens), fragments are cut by characters, as long as each still
    fits. :func:`fragment_spans` gives where each fragment starts and ends in ``text``.
    """
    if not text:
        return [text]
    size = max(1, size)
    if size >= semchunk_min_size:
        import semchunk  # when first needed: it loads mpire (~0.2 s), and importing SplitParams should not

        try:
            _chunks, offsets = semchunk.chunk(text, chunk_size=size, token_counter=count, offsets=True)
        except RecursionError:
            offsets = []
        if offsets:
            # semchunk drops the whitespace between its chunks: each fragment runs up to where the next one starts
            starts = [0, *(start for start, _ in offsets[1:])]
            ends = [*starts[1:], len(text)]
            pieces = [text[s:e] for s, e in zip(starts, ends, strict=True)]
            if all(count(p) <= size for p in pieces):
                return pieces
    return _char_fragments(text, size, count)


def fragment_spans(pieces: list[str], start: int = 0) -> list[tuple[int, int]]:
    """The ``(start, end)`` character offsets of consecutive fragments (as :func:`fragments` returns them) in the
    text they were cut from, the first starting at ``start``."""
    spans: list[tuple[int, int]] = []
    for piece in pieces:
        spans.append((start, start + len(piece)))
        start += len(piece)
    return spans


def _char_fragments(text: str, size: int, count: Callable[[str], int]) -> list[str]:
    pieces: list[str] = []
    start = 0
    while start < len(text):
        lo, hi = start + 1, len(text)  # the longest prefix from ``start`` that fits (at least one character)
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if count(text[start:mid]) <= size:
                lo = mid
            else:
                hi = mid - 1
        pieces.append(text[start:lo])
        start = lo
    return pieces
