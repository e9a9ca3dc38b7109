"""Words and numbers of a text: the one reader every stage compares texts with.

- :func:`words`: the words in reading order, as written (case kept). By default a word starts with a letter and runs
  through letters, digits, ``_`` and hyphens ("non-current", "FY2019"); numbers are left to :func:`numbers`. With
  ``numerals=True`` every run of letters, digits and ``_`` is a word ("FY2019", "2019", "non" and "current"): for
  matching names that may hold a number or a hyphen either way, such as a row label ("Q1 2019").
- :func:`content_words`: the words that tie two texts together, lowercased, without :data:`STOP_WORDS` and
  words under three letters; a word of a script written without spaces (Korean, CJK) becomes its character pairs.
- :func:`numbers`: the numbers, thousands separators dropped ("1,496.5" -> "1496.5"). Whether a number may sit inside
  a word ("2019" of "FY2019") and how long it must be are options, because callers differ on purpose: a context
  sentence quoting "FY2019" speaks of 2019, while a row is named only by a value standing on its own.
"""

from __future__ import annotations

import re

WORD = re.compile(r"[^\W\d_][\w\-]*", re.UNICODE)
"""A word: letters first, then letters, digits, ``_`` or hyphens (numbers and punctuation are not words)."""

STOP_WORDS: frozenset[str] = frozenset(
    {
        "a", "about", "above", "after", "all", "also", "an", "and", "any", "are", "as", "at", "be", "been", "before",
        "being", "below", "between", "both", "but", "by", "can", "could", "did", "do", "does", "each", "for", "from",
        "had", "has", "have", "he", "her", "here", "his", "how", "if", "in", "into", "is", "it", "its", "itself",
        "may", "more", "most", "much", "must", "no", "nor", "not", "of", "on", "once", "only", "or", "other", "our",
        "out", "over", "own", "same", "she", "should", "so", "some", "such", "than", "that", "the", "their", "them",
        "then", "there", "these", "they", "this", "those", "through", "to", "too", "under", "until", "up", "very",
        "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with", "would",
        "you", "your", "per", "one", "two", "three", "total",
    }
)  # fmt: skip
"""Lowercase words too common to tie a text to a table: function words, and words every table uses ("total",
"per", small counts)."""

MIN_CONTENT_WORD_CHARS = 3
"""A word (of a script written with spaces) shorter than this ties nothing: "of", "Q1", "EU" are everywhere."""

_RUN = re.compile(r"\w+")
_NUMBER_ANYWHERE = re.compile(r"\d[\d,]*(?:\.\d+)?")
_NUMBER_ALONE = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?!\w)")


def words(text: str, *, numerals: bool = False) -> list[str]:
    """The words of ``text`` in reading order, as written.

    Args:
        text: any text.
        numerals: False (default): a word starts with a letter and runs through letters, digits, ``_`` and hyphens
            ("non-current", "FY2019"; "2019" is no word). True: every run of letters, digits and ``_`` is a word
            ("FY2019", "2019"; "non-current" is "non" and "current"), for matching names that hold numbers.
    """
    return (_RUN if numerals else WORD).findall(text)


def content_words(text: str) -> set[str]:
    """The words of ``text`` that tie it to another text: lowercased :func:`words`, without :data:`STOP_WORDS` and
    without words shorter than :data:`MIN_CONTENT_WORD_CHARS`. A word of a script written without spaces between a
    word and its particles (Korean, CJK) is compared by its character pairs, each as ``"~" + pair``."""
    found = set()
    for word in WORD.findall(text):
        word = word.lower()
        if word.isascii():
            if len(word) >= MIN_CONTENT_WORD_CHARS and word not in STOP_WORDS:
                found.add(word)
        elif len(word) >= 2:
            found.update("~" + word[i : i + 2] for i in range(len(word) - 1))
    return found


def significant_digits(number: str) -> int:
    """Digits of ``number`` (as :func:`numbers` gives it) after its leading zeros, the decimal point not counted:
    "0.05" has 1, "1496.5" has 5."""
    return len(number.replace(".", "").lstrip("0"))


def numbers(text: str, *, inside_words: bool = True, min_significant_digits: int = 2, min_chars: int = 0) -> set[str]:
    """The numbers of ``text``, thousands separators dropped ("1,496.5" -> "1496.5").

    Args:
        text: any text.
        inside_words: True (default): a number is any run of digits, also inside a word ("FY2019" holds "2019").
            False: only a number standing on its own (not glued to a letter, digit, ``_`` or a preceding ".").
        min_significant_digits: fewest :func:`significant_digits` a number needs; the default 2 drops single digits,
            which are everywhere (counts, list numbers).
        min_chars: fewest characters a number needs as written (thousands separators counted, a trailing one not).

    ``numbers("FY2019 revenue 1,496.5")`` is ``{"2019", "1496.5"}``; with ``inside_words=False`` it is
    ``{"1496.5"}``.
    """
    found = set()
    # findall, not finditer: this runs on every paragraph and cell, most of them holding few numbers
    for written in (_NUMBER_ANYWHERE if inside_words else _NUMBER_ALONE).findall(text):
        written = written.rstrip(",")
        number = written.replace(",", "") if "," in written else written
        if len(written) >= min_chars and significant_digits(number) >= min_significant_digits:
            found.add(number)
    return found
