"""Text normalisation and answer matching: normalise text, then look for an answer at token boundaries.

One implementation for the citation check (``docling_evidence.cite.check``) and the benchmark (the separate
``docling-evidence-bench`` distribution re-exports it from ``docling_evidence_bench.normalize``).

``normalize_text`` makes the same fact written two ways compare equal; ``contains_answer`` then finds a normalised
answer inside normalised chunk text without matching inside a longer token. What is unified, and why:

- Markup: HTML entities are unescaped (repeatedly: Markdown export turns "R&D" into "R&amp;D" and an already
  escaped "&amp;" into "&amp;amp;") and Markdown backslash escapes ("\\_", "\\*") are removed.
- Unicode: NFKC (ligatures such as "ﬁ", no-break spaces, full-width digits), every dash and the minus sign become
  "-", curly quotes become straight ones, then casefold.
- Whitespace: any run becomes one space (table serialisers pad cells; PDFs break lines).
- Currency symbols ($ € £ ¥) are dropped: TAT-QA tables often put "$" in a cell of its own and the answer "$1,496.5"
  must match a chunk showing "$ | 1,496.5" or "1,496.5".
- Thousands separators are dropped only between a digit and a group of exactly three digits: "1,234.5" -> "1234.5",
  while "2018,2019" and "1,2" are left alone.
- "12 %" -> "12%"; "( 12 )" -> "(12)".
- Accounting negatives: an answer "-12" also matches "(12)" and an answer "(12)" also matches "-12" (in
  ``contains_answer``; the text itself keeps its parentheses). A trailing "%" of a numeric answer is optional in the
  chunk, because tables often carry the "%" in the column header only.
- Token boundaries: an answer that starts (ends) with a letter or digit must not be preceded (followed) by a letter or
  digit; a number must not be followed by a decimal part either. So "44.1" does not match "144.1", "44.15" or "44.1.2",
  and "cost" does not match "costs".
"""

from __future__ import annotations

import html
import re
import unicodedata
from functools import lru_cache

_DASHES = {
    "\u2010": "-",  # hyphen
    "\u2011": "-",  # non-breaking hyphen
    "\u2012": "-",  # figure dash
    "\u2013": "-",  # en dash
    "\u2014": "-",  # em dash
    "\u2015": "-",  # horizontal bar
    "\u2212": "-",  # minus sign
    "\ufe58": "-",  # small em dash
    "\ufe63": "-",  # small hyphen-minus
    "\uff0d": "-",  # full-width hyphen-minus
}
DASH_MAP = str.maketrans(_DASHES)
"""Every dash and minus form to ``-``, one character for one (offsets are kept): what :func:`normalize_text` does to
dashes, for text whose positions matter."""
_CHAR_MAP = str.maketrans(
    {
        **_DASHES,
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u2032": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "$": " ",
        "€": " ",
        "£": " ",
        "¥": " ",
    }
)
_SPACES = re.compile(r"\s+")
_MD_ESCAPE = re.compile(r"\\(?=[\\`*_{}\[\]()#+\-.!|&$<>~])")
_MAX_UNESCAPE = 3
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_PERCENT_SPACE = re.compile(r"(?<=\d) %")
_PAREN_NUMBER = re.compile(r"\( ?(-?\d[\d.]*%?) ?\)")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_NEG_NUMBER = re.compile(r"-(\d+(?:\.\d+)?)")
_PAREN_NEG = re.compile(r"\((\d+(?:\.\d+)?)\)")


@lru_cache(maxsize=32768)
def normalize_text(s: str) -> str:
    """Casefolded ``s`` with whitespace collapsed and number formatting unified (see the module docstring)."""
    if not isinstance(s, str):
        raise TypeError(f"normalize_text expects str, got {type(s).__name__}")
    for _ in range(_MAX_UNESCAPE):
        if "&" not in s:
            break
        unescaped = html.unescape(s)
        if unescaped == s:
            break
        s = unescaped
    if "\\" in s:
        s = _MD_ESCAPE.sub("", s)
    s = unicodedata.normalize("NFKC", s).translate(_CHAR_MAP).casefold()
    s = _SPACES.sub(" ", s).strip()
    s = _THOUSANDS.sub("", s)
    s = _PERCENT_SPACE.sub("%", s)
    return _PAREN_NUMBER.sub(r"(\1)", s)


@lru_cache(maxsize=32768)
def answer_variants(answer: str) -> tuple[str, ...]:
    """The normalised forms under which ``answer`` may appear in a chunk (accounting negatives, optional "%")."""
    a = normalize_text(answer)
    if a.endswith("%") and _NUMBER.fullmatch(a[:-1].strip("()")):
        a = a[:-1]
    variants = [a]
    if m := _NEG_NUMBER.fullmatch(a):
        variants.append(f"({m.group(1)})")
    elif m := _PAREN_NEG.fullmatch(a):
        variants.append(f"-{m.group(1)}")
    return tuple(variants)


@lru_cache(maxsize=4096)
def _normalized(text: str) -> str:
    """:func:`normalize_text`, cached: a benchmark judges the same chunk text for many questions and answers."""
    return normalize_text(text)


def _is_word(c: str) -> bool:
    return c.isalnum() or c == "_"


def _at_boundaries(text: str, start: int, end: int, v: str) -> bool:
    """Whether ``text[start:end]`` (equal to ``v``) is not glued to a longer word or number."""
    if v[0].isalnum() and start > 0:
        before = text[start - 1]
        if _is_word(before) or (v[0].isdigit() and before == "." and start > 1 and text[start - 2].isdigit()):
            return False
    if v[-1].isalnum() and end < len(text):
        after = text[end]
        if _is_word(after) or (v[-1].isdigit() and after == "." and end + 1 < len(text) and text[end + 1].isdigit()):
            return False
    return True


def contains_answer(chunk_text: str, answer: str) -> bool:
    """True when the normalised ``answer`` occurs in the normalised ``chunk_text`` at token boundaries.

    An answer that normalises to the empty string matches nothing.
    """
    text = _normalized(chunk_text)
    for v in answer_variants(answer):
        if not v:
            continue
        i = text.find(v)
        while i >= 0:
            if _at_boundaries(text, i, i + len(v), v):
                return True
            i = text.find(v, i + 1)
    return False


def contains_all(chunk_text: str, answers: tuple[str, ...] | list[str]) -> bool:
    """True when every string of ``answers`` is found by :func:`contains_answer` (and ``answers`` is not empty)."""
    return bool(answers) and all(contains_answer(chunk_text, a) for a in answers)
