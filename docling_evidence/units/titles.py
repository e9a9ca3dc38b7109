"""Tables titled by the heading right above them, and the texts that refer to a table by that title.

Legal and government documents title a table with a heading ("SCHEDULE", "FIRST SCHEDULE") instead of a "Table 3"
caption, and refer to it by that title: "the persons named in the first column of the Schedule", "the place
specified in the First Schedule". Such a reference names the table as "Table 3" would
(:mod:`docling_evidence.context.choose`
then treats the paragraph as naming it). A title is short (``TitleRules.max_words``); a reference is "the" followed by
the title with a capital letter ("the Schedule", not "the schedule of payments"), so ordinary prose that merely uses
the word does not name the table. Finding references costs one set lookup per "the" before a capital, however many
titled tables a document has.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from docling_core.types.doc import TextItem

from docling_evidence.document.index import DocIndex


@dataclass(frozen=True)
class TitleRules:
    """What titles a table and how far a reference by title reaches (the chunker's are ``UnitParams``'s
    ``title_max_words``, ``subtitle_max_words`` and ``title_reach``).

    Attributes:
        max_words: the longest title, in words: a heading longer than this is a section title, not a table's name.
        subtitle_max_words: the longest text that may stand between a title and its table ("Appointment and limits
            of a Customs Area.").
        reach: the farthest reading distance (items) between a reference and the table it names by title: titles
            such as "SCHEDULE" recur in every notice of a gazette, so only a reference near the table names it.
    """

    max_words: int = 4
    subtitle_max_words: int = 12
    reach: int = 16


DEFAULT_TITLE_RULES = TitleRules()
"""The measured defaults."""

_TITLE_PREFIX = "TITLE:"


def table_title(index: DocIndex, t_idx: int, rules: TitleRules = DEFAULT_TITLE_RULES) -> str | None:
    """The title of the table at reading position ``t_idx``, or None.

    The title is the section header (or an all-capitals line) of at most ``rules.max_words`` words right above the
    table in reading order, with only the table's captions or footnotes and at most one short text (a subtitle, at
    most ``rules.subtitle_max_words`` words) between them.
    """
    idx, subtitle = t_idx - 1, False
    while idx >= 0 and t_idx - idx <= 4:
        item = index.items[idx]
        if not isinstance(item, TextItem):
            return None
        words = item.text.split()
        if item.self_ref in index.satellites:
            idx -= 1
            continue
        if (index.is_heading(idx) or item.text.isupper()) and 0 < len(words) <= rules.max_words:
            return " ".join(words)
        if subtitle or index.is_heading(idx) or len(words) > rules.subtitle_max_words:
            return None
        subtitle, idx = True, idx - 1
    return None


def title_label(title: str) -> str:
    """The label under which a table titled ``title`` is named (kept apart from "Table 3" labels)."""
    return _TITLE_PREFIX + " ".join(title.split()).upper()


def is_title_label(label: str) -> bool:
    """Whether ``label`` is a :func:`title_label` (not a "Table 3" label)."""
    return label.startswith(_TITLE_PREFIX)


_REFERENCE = re.compile(r"\b[Tt]he\s+(?=[A-Z])")
"""Where a reference may start: 'the' before a capital letter. Each one is checked against the titles by a set
lookup of its next one to ``TitleRules.max_words`` words, however many titles a document has."""
_TOKEN = re.compile(r"\S+")
_TRAILING = ",;:.)]"
_JOINERS = frozenset({"of", "to", "for", "on"})


def title_set(titles: Iterable[str]) -> frozenset[str]:
    """The titles in the form references are compared in (words joined by one space, upper case)."""
    return frozenset(" ".join(t.split()).upper() for t in titles if t.strip())


def title_mentions(
    text: str, titles: frozenset[str], rules: TitleRules = DEFAULT_TITLE_RULES
) -> list[tuple[str, int, int]]:
    """The references to ``titles`` in ``text`` ("the First Schedule"), as ``(label, start, end)`` like
    :func:`captions.table_mentions`; a title is at most ``rules.max_words`` words. A title followed by a capitalised
    word, or by "of"/"to"/"for"/"on" and one, is part of a longer name ("the Schedule of Tariffs 2023"), not a
    reference."""
    if not titles:
        return []
    found: list[tuple[str, int, int]] = []
    for m in _REFERENCE.finditer(text):
        tokens = []
        for t in _TOKEN.finditer(text, m.end()):
            tokens.append(t)
            if len(tokens) > rules.max_words + 2:
                break
        words = [t.group(0).rstrip(_TRAILING) for t in tokens]
        for n in range(min(len(words), rules.max_words), 0, -1):
            if " ".join(words[:n]).upper() not in titles:
                continue
            if any(t.group(0)[-1] in _TRAILING for t in tokens[: n - 1]):
                break  # punctuation inside: not one name
            ends_phrase = tokens[n - 1].group(0)[-1] in _TRAILING or n == len(words)
            rest = words[n:]
            longer = bool(rest) and (
                rest[0][:1].isupper() or (rest[0] in _JOINERS and len(rest) > 1 and rest[1][:1].isupper())
            )
            if ends_phrase or not longer:
                end = tokens[n - 1].start() + len(words[n - 1])
                found.append((title_label(" ".join(words[:n])), m.start(), end))
            break
    return found
