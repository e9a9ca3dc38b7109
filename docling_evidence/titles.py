"""Tables titled by the heading right above them, and the texts that refer to a table by that title.

Legal and government documents title a table with a heading ("SCHEDULE", "FIRST SCHEDULE") instead of a "Table 3"
caption, and refer to it by that title: "the persons named in the first column of the Schedule", "the place
specified in the First Schedule". Such a reference names the table as "Table 3" would (:mod:`docling_evidence.context`
then treats the paragraph as naming it). A title is short (``TITLE_MAX_WORDS``); a reference is "the" followed by
the title with a capital letter ("the Schedule", not "the schedule of payments"), so ordinary prose that merely uses
the word does not name the table.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from docling_core.types.doc import TextItem

from docling_evidence.doc_index import DocIndex

TITLE_MAX_WORDS = 4
"""Longest title, in words: a heading longer than this is a section title, not a table's name."""

SUBTITLE_MAX_WORDS = 12
"""Longest text that may stand between a title and its table ("Appointment and limits of a Customs Area.")."""

TITLE_REACH = 16
"""Farthest reading distance (items) between a reference and the table it names by title: titles such as "SCHEDULE"
recur in every notice of a gazette, so only a reference near the table names it."""

_TITLE_PREFIX = "TITLE:"


def table_title(index: DocIndex, t_idx: int) -> str | None:
    """The title of the table at reading position ``t_idx``, or None.

    The title is the section header (or an all-capitals line) of at most ``TITLE_MAX_WORDS`` words right above the
    table in reading order, with only the table's captions or footnotes and at most one short text (a subtitle)
    between them.
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
        if (index.is_heading(idx) or item.text.isupper()) and 0 < len(words) <= TITLE_MAX_WORDS:
            return " ".join(words)
        if subtitle or index.is_heading(idx) or len(words) > SUBTITLE_MAX_WORDS:
            return None
        subtitle, idx = True, idx - 1
    return None


def title_label(title: str) -> str:
    """The label under which a table titled ``title`` is named (kept apart from "Table 3" labels)."""
    return _TITLE_PREFIX + " ".join(title.split()).upper()


def is_title_label(label: str) -> bool:
    """Whether ``label`` is a :func:`title_label` (not a "Table 3" label)."""
    return label.startswith(_TITLE_PREFIX)


def title_pattern(titles: Iterable[str]) -> re.Pattern[str] | None:
    """One pattern for references to any of ``titles`` ("the First Schedule"), or None when there are none. A title
    followed by a capitalised word or by "of"/"to"/"for" and one is part of a longer name ("the Schedule of Tariffs
    2023"), not a reference."""
    alternatives = sorted({" ".join(t.split()) for t in titles if t.strip()}, key=len, reverse=True)
    if not alternatives:
        return None
    body = "|".join(r"\s+".join(re.escape(w) for w in t.split()) for t in alternatives)
    longer_name = r"\s+(?:(?:of|to|for|on)\s+)?[A-Z]"
    return re.compile(rf"\b[Tt]he\s+(?P<title>(?=[A-Z])(?i:{body}))(?![\w-])(?!{longer_name})")


def title_mentions(text: str, pattern: re.Pattern[str] | None) -> list[tuple[str, int, int]]:
    """The title references in ``text``, as ``(label, start, end)`` like :func:`captions.table_mentions`."""
    if pattern is None:
        return []
    return [(title_label(m.group("title")), m.start(), m.end()) for m in pattern.finditer(text)]
