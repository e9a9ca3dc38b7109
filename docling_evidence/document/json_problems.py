"""What is wrong with a JSON file that pydantic rejects as a ``DoclingDocument``, in a few words a person can act on.

pydantic reports a bad item of a union-typed list (``texts`` holds titles, headings, list items, code, formulas,
plain text...) once per member type it tried: ``texts[10].text = null`` gives fifteen errors, the first at
``texts.10.TitleItem.label``, a type the item never claimed to be. :func:`describe_validation_error` keeps, for each
such item, the member type that fits the item best (fewest errors, the discriminating ``label`` accepted), drops the
member names from the path and words each remaining problem as ``texts[10].text should be a valid string, got
null``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

Loc = tuple[str | int, ...]

MAX_SHOWN = 3
"""How many problems a message spells out; the rest are counted."""

_ENUM_REPR = re.compile(r"<\w+\.\w+: ('[^']*')>")
_QUOTED = re.compile(r"'([^']*)'")


def describe_validation_error(errors: Sequence[Any], data: Any) -> tuple[list[str], int]:
    """The problems of pydantic ``errors`` (``ValidationError.errors()``) against the validated ``data``, worded,
    at most :data:`MAX_SHOWN` of them, and how many there are in all (union members' duplicates removed)."""
    chosen = _resolve_unions([(tuple(e.get("loc", ())), e) for e in errors], data)
    worded = list(dict.fromkeys(_word(loc, error) for loc, error in chosen))
    return worded[:MAX_SHOWN], len(worded)


def format_loc(loc: Loc) -> str:
    """``("texts", 10, "text")`` as ``texts[10].text``."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "the document"


def _union_member_at(loc: Loc, data: Any) -> int | None:
    """The position in ``loc`` of the first name that is not a key of the data at that point: the name of the union
    member pydantic tried there (a field name is always a key, except the last part of a missing field)."""
    node = data
    for i, part in enumerate(loc[:-1]):
        if isinstance(part, int):
            if not isinstance(node, list) or not 0 <= part < len(node):
                return None
            node = node[part]
        elif isinstance(node, dict) and part in node:
            node = node[part]
        else:
            return i
    if loc and isinstance(loc[-1], str) and not isinstance(node, dict):
        return len(loc) - 1  # a value that is no object at all (texts[3] = 7): the last name is the member tried
    return None


def _resolve_unions(items: list[tuple[Loc, Any]], data: Any) -> list[tuple[Loc, Any]]:
    """Keep one union member's errors per union position (recursively) and drop the members' names from the paths."""
    plain: list[tuple[Loc, Any]] = []
    groups: dict[Loc, dict[str | int, list[tuple[Loc, Any]]]] = {}
    for loc, error in items:
        at = _union_member_at(loc, data)
        if at is None:
            plain.append((loc, error))
        else:
            groups.setdefault(loc[:at], {}).setdefault(loc[at], []).append((loc[:at] + loc[at + 1 :], error))
    out = list(plain)
    for prefix, members in groups.items():
        if len(members) == 1:  # not a union after all (an unknown key): keep the path as it was
            (name, errs), *_ = members.items()
            out += [((*loc[: len(prefix)], name, *loc[len(prefix) :]), e) for loc, e in errs]
            continue
        out += _best_member(prefix, members, data)
    return out


def _best_member(prefix: Loc, members: dict[str | int, list[tuple[Loc, Any]]], data: Any) -> list[tuple[Loc, Any]]:
    """The errors of the member that fits best: fewest errors, and among those one that accepts the value of every
    field the others reject as a wrong literal (``label``); when every member rejects only one and the same field
    as a wrong literal, one error listing every value the members allow."""
    fields = {tuple(loc for loc, _ in errs) for errs in members.values()}
    all_literal = all(e.get("type") == "literal_error" for errs in members.values() for _, e in errs)
    if len(fields) == 1 and all_literal and len(next(iter(fields))) == 1:
        (loc,) = next(iter(fields))
        allowed = [
            value
            for errs in members.values()
            for _, e in errs
            for value in _QUOTED.findall(_ENUM_REPR.sub(r"\1", str(e.get("msg", ""))))
        ]
        first = next(iter(members.values()))[0][1]
        merged = {**first, "type": "literal_error", "allowed": list(dict.fromkeys(allowed))}
        return [(loc, merged)]

    def rank(errs: list[tuple[Loc, Any]]) -> tuple[int, int]:
        return sum(e.get("type") == "literal_error" for _, e in errs), len(errs)

    best = min(members.values(), key=rank)
    return _resolve_unions(best, data)


def _value(value: Any) -> str:
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 40 else text[:37] + "..."


def _word(loc: Loc, error: Any) -> str:
    where = format_loc(loc)
    kind = error.get("type")
    if kind == "missing":
        return f"{where} is missing"
    if kind == "literal_error" and "allowed" in error:
        shown = ", ".join(repr(v) for v in error["allowed"][:8])
        more = ", ..." if len(error["allowed"]) > 8 else ""
        return f"{where} is {_value(error.get('input'))}, not one of {shown}{more}"
    message = _ENUM_REPR.sub(r"\1", str(error.get("msg", "is invalid")))
    message = message[0].lower() + message[1:] if message else "is invalid"
    message = message.removeprefix("input ").removeprefix("value error, ")
    return f"{where} {message}, got {_value(error.get('input'))}"
