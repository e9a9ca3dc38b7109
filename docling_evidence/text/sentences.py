"""Split a paragraph into sentences, as half-open character spans of its text.

A sentence ends at ``.``, ``!``, ``?`` (or their CJK forms) followed by white space — not after a known
abbreviation ("e.g.", "et al.", "Fig."), an initial ("J."), a label word followed by its number ("Table. 1"), or
when the next word starts in lower case ("approx. five"). CJK full stops end a sentence without white space. Spans
never include the white space around a sentence, so ``text[a:b]`` is the sentence exactly.

This is the splitter of every document text: context, views, packing. Two readers cut differently, because what they
cut is not a document's paragraph: the citation check's answer (``docling_evidence.cite.claims``) is also cut at
every line break (an answer's list items are claims of their own) and at every stop before a capital, digit, quote
or currency sign, abbreviations included; the benchmark's question generator
(``docling_evidence_bench.qa_generate``) cuts only before a capital or "(" and writes the stored question sets,
which another cut would change.
"""

from __future__ import annotations

import re

ABBREVIATIONS = frozenset(
    {
        "al", "approx", "cf", "co", "corp", "dept", "dr", "e.g", "eg", "eq", "eqs", "est", "etc", "fig", "figs",
        "i.e", "ie", "inc", "incl", "jr", "ltd", "mr", "mrs", "ms", "no", "nos", "p", "pp", "prof", "ref", "refs",
        "resp", "sec", "sect", "sr", "st", "tab", "tbl", "u.s", "viz", "vol", "vs",
    }
)  # fmt: skip
"""Words that end with a full stop without ending the sentence (lower case, without the final stop)."""

_LABEL_WORDS = frozenset({"table", "tables", "figure", "fig", "tab", "section", "sec", "eq", "equation", "no"})
"""A full stop after one of these and before a number belongs to a label ("Table. 1"), not a sentence end."""

# the lookahead names the characters a stop can start with, so that the scan skips other characters at once instead
# of trying both branches at every position (same matches, about 40% less scanning)
_END = re.compile(r"(?=[.!?。！？])(?:[.!?]+[\"'”’)\]]*(?=\s)|[。！？]+)")
_NON_SPACE = re.compile(r"\S")


def _word_before(text: str, stop: int) -> str:
    """The run of word characters and full stops that ends at ``stop`` (``[\\w.]+$`` of ``text[:stop]``, so one line
    break may stand between it and ``stop``), read backwards so that each boundary costs the word's length, not the
    text's."""
    if stop > 0 and text[stop - 1] == "\n":
        stop -= 1
    start = stop
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] in "_."):
        start -= 1
    return text[start:stop]


def _is_boundary(text: str, end: int, stop: int) -> bool:
    """Whether the punctuation ``text[stop:end]`` ends a sentence."""
    if text[stop] in "。！？":
        return True
    after = _NON_SPACE.search(text, end)
    if after is None:
        return True
    first = text[after.start()]
    word = _word_before(text, stop).lower()
    if text[stop] == "." and end - stop == 1:
        if word in ABBREVIATIONS or word.rstrip(".") in ABBREVIATIONS:
            return False
        if len(word) == 1 and word.isalpha() and text[stop - 1].isupper():
            return False  # an initial: "J. Smith"
        if word in _LABEL_WORDS and first.isdigit():
            return False
    return not (first.isalpha() and first.islower())


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """The sentences of ``text`` as ``(start, end)`` spans, in order, covering every non-blank character once."""
    spans: list[tuple[int, int]] = []
    start = 0
    for m in _END.finditer(text):
        if _is_boundary(text, m.end(), m.start()):
            spans.append((start, m.end()))
            start = m.end()
    spans.append((start, len(text)))
    out: list[tuple[int, int]] = []
    for a, b in spans:
        # str.strip() drops exactly the characters str.isspace() holds, in C instead of one by one
        span = text[a:b]
        kept = span.strip()
        if kept:
            start = a + len(span) - len(span.lstrip())
            out.append((start, start + len(kept)))
    return out
