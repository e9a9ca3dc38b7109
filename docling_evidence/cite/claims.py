"""An answer read into claims: numbers, quoted spans and sentences, with the number and word readers they need.

The answer is split into (see :func:`extract_claims`):

- *numbers*, with their sign (``-12``, ``(12)``), currency (a symbol or a code such as ``USD``), percent form
  (``12%``, ``12 percent``) and scale word
  (``thousand``, ``million``, ``billion``, ``trillion``; ``k``/``m``/``bn`` only after a currency sign);
- *quoted spans* (text between straight or curly double quotes, or « »);
- *sentences* (split at ``.``/``!``/``?`` followed by a space and a capital, and at line breaks) that hold words
  besides their numbers.

Why cite reads numbers and words itself instead of through :mod:`docling_evidence.text.words`: that module tells
whether two texts share a number or a word, as digit strings and sets. A claim needs more. Its number keeps the
value as written with sign, currency, percent form, scale word, decimals and label ("Table 1"), because "$1.5
million" must match "1,496.5" in a table "in thousands" and "(12)" must not match "12" the other way round. Its
sentence is matched by word n-grams, so its words keep their order and their short words ("Q1", "EU"), and only a
short list of function words is dropped: "not", "no" and "total" change what a sentence claims.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from decimal import Decimal, InvalidOperation
from typing import Literal

from docling_evidence.text.normalize import DASH_MAP, normalize_text

NGRAM_N: int = 3
"""Word n-gram length for sentence claims (shorter sentences use all their words as one n-gram)."""

MIN_NGRAM_COVERAGE: float = 0.5
"""Share of a sentence's n-grams that must occur in the sources for the sentence to count as supported."""

ClaimKind = Literal["number", "quote", "sentence"]

SCALE_WORDS: dict[str, Decimal] = {
    "thousand": Decimal(1000),
    "thousands": Decimal(1000),
    "k": Decimal(1000),
    "million": Decimal(10) ** 6,
    "millions": Decimal(10) ** 6,
    "m": Decimal(10) ** 6,
    "mn": Decimal(10) ** 6,
    "mm": Decimal(10) ** 6,
    "billion": Decimal(10) ** 9,
    "billions": Decimal(10) ** 9,
    "bn": Decimal(10) ** 9,
    "trillion": Decimal(10) ** 12,
    "trillions": Decimal(10) ** 12,
}
_CURRENCY_ONLY_SCALES = frozenset({"k", "m", "mn", "mm", "bn"})
"""Abbreviations read as a scale only after a currency sign ("$5m"): "5 m" may be metres."""

_NUMBER = re.compile(
    r"(?<![\w.])(?P<open>\()?(?P<sign>[-\u2212\u2013])?(?P<cur>[$€£¥]|(?:USD|EUR|GBP|JPY|CHF|CAD|AUD|CNY|RMB|US\$)\s?)?\s?(?P<sign2>[-\u2212])?"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)(?!\.\d)(?=\W|$|(?:bn|mn|mm|m|k)\b)(?P<close>\))?"
    r"(?:\s?(?P<pct>%|percent\b|per\s?cent\b))?"
    r"(?:\s?(?P<scale>thousands?|millions?|billions?|trillions?|bn|mn|mm|m|k)\b)?",
    re.IGNORECASE,
)
_LABEL_BEFORE = re.compile(
    r"(?:\btable|\btab\.|\bfigure|\bfig\.|\bnotes?|\bpage|\bsection|\bitem|\bchapter|\bappendix|\bexhibit|\bno\.|#)\s?$",
    re.IGNORECASE,
)
"""A number right after one of these words labels something ("Table 1", "Note 2"): not a value to cite."""
_LABEL_ALIASES = {"tab": "table", "fig": "figure", "notes": "note", "#": "no"}
_QUOTE = re.compile(r"\"([^\"\n]+)\"|\u201c([^\u201d\n]+)\u201d|\u00ab\s?([^\u00bb\n]+?)\s?\u00bb")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"\u201c(A-Z0-9$€£¥])|\n+")
"""Where an answer's sentence claims end: at ``.``/``!``/``?`` before a capital, digit, quote or currency sign, and at
every line break. Not :func:`docling_evidence.text.sentences.sentence_spans`, which keeps a paragraph's lines and
abbreviations together: an answer's list items and lines are claims of their own."""
_WORD = re.compile(r"\w+(?:[.,]\d+)*")
_LETTER = re.compile(r"[^\W\d_]")
_STOPWORDS = frozenset(
    re.findall(
        r"\w+", "a an and are as at be by for from has have in is it its of on or that the this to was were which with"
    )
)


@dataclass(frozen=True)
class Number:
    """A number as written: value, sign, percent form, scale word and decimals."""

    value: Decimal
    """Absolute value as written (``1,496.5`` -> 1496.5), before any scale."""
    negative: bool
    percent: bool
    scale: Decimal | None
    """Multiplier of the scale word that follows it (``million`` -> 10**6), else None."""
    decimals: int
    label: str = ""
    """The word it numbers ("table" for "Table 1", "note", "section", ...), else "": a label matches only the same
    label ("Table 1" is not "Figure 1"), never a value."""


def _label_word(text: str, start: int) -> str:
    """The label word right before ``start`` in ``text`` ("table", "figure", "note", ...), or ""."""
    m = _LABEL_BEFORE.search(text, max(0, start - 12), start) if text else None
    if m is None:
        return ""
    word = m.group().strip().lower().rstrip(".")
    return _LABEL_ALIASES.get(word, word)


def parse_number(m: re.Match[str], text: str = "") -> Number | None:
    """The :class:`Number` of one match of the number pattern in ``text``, or None when its digits are no number."""
    raw = m.group("num").replace(",", "")
    try:
        value = Decimal(raw)
    except InvalidOperation:
        return None
    negative = bool(m.group("sign") or m.group("sign2") or (m.group("open") and m.group("close")))
    scale_word = (m.group("scale") or "").lower()
    if scale_word in _CURRENCY_ONLY_SCALES and not m.group("cur"):
        scale_word = ""
    decimals = len(raw.split(".")[1]) if "." in raw else 0
    return Number(
        value=value,
        negative=negative and value != 0,
        percent=bool(m.group("pct")),
        scale=SCALE_WORDS.get(scale_word),
        decimals=decimals,
        label=_label_word(text, m.start()),
    )


def _number_span(m: re.Match[str], n: Number) -> tuple[int, int]:
    """The claim's span: sign/currency/parentheses, digits, percent, and the scale word only when it was read."""
    start = m.start("open") if m.group("open") and m.group("close") else m.start()
    if m.group("open") and not m.group("close"):
        start = m.start() + 1
    end = m.end()
    if m.group("scale") and n.scale is None:
        end = m.end("pct") if m.group("pct") else (m.end("close") if m.group("close") else m.end("num"))
    return start, end


@dataclass(frozen=True)
class ClaimSpan:
    """One claim found in an answer: its text, kind and ``[start, end)`` offsets into the answer."""

    text: str
    kind: ClaimKind
    start: int
    end: int
    number: Number | None = None


def extract_claims(answer: str) -> list[ClaimSpan]:
    """Split ``answer`` into number, quote and sentence claims, in order of appearance (see the module docstring).

    Raises:
        TypeError: when ``answer`` is not a string.
    """
    if not isinstance(answer, str):
        raise TypeError(f"answer must be a str, got {type(answer).__name__}")
    claims: list[ClaimSpan] = []
    scan = answer.translate(DASH_MAP)  # every minus form is "-", as in the normalised sources (same offsets)
    for m in _QUOTE.finditer(answer):
        g = next(i for i in (1, 2, 3) if m.group(i) is not None)
        text = m.group(g).strip()
        if _WORD.search(text):
            claims.append(ClaimSpan(text, "quote", m.start(g), m.end(g)))
    for m in _NUMBER.finditer(scan):
        n = parse_number(m, scan)
        if n is None:
            continue
        start, end = _number_span(m, n)
        if m.group("sign") and scan[m.end("sign")].isspace() and not (m.group("open") and m.group("close")):
            # a dash set apart by a space is punctuation or a range ("from 10 - 20", "income - 12 million"), not a sign
            n = replace(n, negative=bool(m.group("sign2")) and n.value != 0)
            start = m.end("sign")
            while scan[start].isspace():  # (no copy of the rest of the answer per number)
                start += 1
        claims.append(ClaimSpan(answer[start:end].strip(), "number", start, end, n))
    covered = bytearray(len(answer))  # characters inside a number or quote claim (one pass, not one per claim)
    for c in claims:
        covered[c.start : c.end] = b"\x01" * (c.end - c.start)
    pos = 0
    for piece in [*_SENTENCE_END.split(answer)]:
        start = answer.find(piece, pos)
        end = start + len(piece)
        pos = end
        text = piece.strip()
        if not text:
            continue
        rest = "".join(ch for i, ch in enumerate(piece, start) if not covered[i])
        if content_words(normalize_text(rest)):
            lead = len(piece) - len(piece.lstrip())
            claims.append(ClaimSpan(text, "sentence", start + lead, start + lead + len(text)))
    claims.sort(key=lambda c: (c.start, {"sentence": 0, "quote": 1, "number": 2}[c.kind]))
    return claims


def content_words(norm: str) -> list[str]:
    """The words of normalised text that sentence matching compares: no numbers (checked as number claims), no stop
    words."""
    return [w for w in _WORD.findall(norm) if _LETTER.search(w) and w not in _STOPWORDS]


def word_ngrams(norm: str) -> frozenset[tuple[str, ...]]:
    """The :data:`NGRAM_N`-grams of the :func:`content_words` of normalised text; all its words as one shorter n-gram
    when there are fewer, none when there are no words."""
    words = content_words(norm)
    n = min(NGRAM_N, len(words))
    if n == 0:
        return frozenset()
    return frozenset(tuple(words[i : i + n]) for i in range(len(words) - n + 1))


def read_numbers(norm: str) -> tuple[Number, ...]:
    """Every number of normalised text, in order, read as a claim reads it (sign, percent, scale word, label)."""
    return tuple(n for m in _NUMBER.finditer(norm) if (n := parse_number(m, norm)) is not None)


def sentence_ngrams(text: str) -> frozenset[tuple[str, ...]]:
    """The word n-grams a sentence claim is matched by: :data:`NGRAM_N`-grams of its :func:`content_words` (all of
    them as one n-gram when there are fewer)."""
    return word_ngrams(normalize_text(text))
