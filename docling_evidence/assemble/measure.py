"""Token counts of what a chunk embeds: its headings first, then its text, within the tokenizer's limit."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from docling_evidence.assemble.views import sentence_views
from docling_evidence.split.splitter import fragments, piece_budget
from docling_evidence.tokenizer import MemoTokenizer

_log = logging.getLogger(__name__)


class ChunkMeasure:
    """Measures texts as the chunker embeds them: after the chunk's headings joined by ``delim``, counted by one
    document's token memo, against the tokenizer's limit.

    Args:
        tokenizer: the token memo of the document being chunked.
        delim: what joins the headings and the text (``EvidenceChunker.delim``).
        views: whether chunks get sentence views (``EvidenceChunker.views``).
    """

    def __init__(self, tokenizer: MemoTokenizer, delim: str, *, views: bool) -> None:
        self.tokenizer = tokenizer
        self.limit = tokenizer.get_max_tokens()
        self.delim = delim
        self.views = views
        self.count: Callable[[str], int] = tokenizer.count_tokens
        """``text``'s token count: the memo's own method, so that a splitter given it counts through the memo."""

    def prefix(self, headings: Sequence[str] | None) -> str:
        """What precedes a chunk's text when it is embedded: its headings, each followed by ``delim``."""
        return self.delim.join(headings) + self.delim if headings else ""

    def fits_after(self, prefix: str) -> Callable[[str], bool]:
        """Whether a text, embedded after ``prefix`` (a chunk's headings), is within the limit."""
        limit = self.limit
        count = self.count
        return lambda text: count(prefix + text) <= limit

    def sentence_views(
        self, texts: Sequence[str], prefix: str, min_count: int = 2, within: str | None = None
    ) -> list[str]:
        """The sentence views of ``texts`` (none without ``views``), each within the limit with ``prefix``.

        ``within``: the chunk text that shows them. When it fits after ``prefix`` and the tokenizer's counts add up
        across whitespace (:func:`~docling_evidence.tokenizer.lines_add_up`: no token spans a space or a line
        break), a sentence made of consecutive whole words of it fits too, so it is not counted again.
        """
        if not self.views:
            return []
        fits = self.fits_after(prefix)
        if within is not None and self.tokenizer.by_lines and fits(within):
            words = f" {' '.join(within.split())} "
            counted = fits
            fits = lambda body: f" {body} " in words or counted(body)  # noqa: E731
        return sentence_views(texts, fits, min_count)

    def cut_to_fit(self, text: str, prefix: str, step_divisor: int) -> list[str]:
        """``text`` cut into fragments that each fit after ``prefix``: a text chunk HybridChunker left over the limit
        (its plain-text fallback can overshoot). The fragment size shrinks by ``1/step_divisor`` (at least one token)
        until every fragment fits."""
        count = self.count
        fits = self.fits_after(prefix)
        size = max(1, piece_budget(count, self.limit, prefix))
        out: list[str] = []
        while True:
            out = fragments(text, size, count)
            if all(fits(t) for t in out) or size == 1:
                break
            size = max(1, size - max(1, size // step_divisor))
        # routine, not a fault: the text HybridChunker left over the limit (or never chunked) is kept whole, in pieces
        _log.info("a text chunk over %d tokens was cut into %d pieces", self.limit, len(out))
        return out
