"""TAT-QA as a retrieval benchmark: each context becomes DoclingDocument content, each question a :class:`QAItem`.

TAT-QA (Zhu et al., ACL 2021) pairs one real financial-report table with the paragraphs around it ("a context") and
asks questions answered from the table, the text, or both. We build the documents with docling-core's API, so every
chunker sees exactly what it would see after a Docling conversion:

- A heading "Report excerpt N" per context, then its paragraphs in order, and the table right after the paragraph that
  announces it (see :func:`table_position`), or after all paragraphs when none does, but never after its own notes
  ("(2) Excludes ..." for a row "Total expenses (2)").
- Consecutive contexts are grouped into documents (``contexts_per_doc``, default 10); ``doc_id`` is
  ``tatqa-<split>-<NNNN>`` (split from the file name, e.g. ``dev``), so ids are stable across runs.
- Header rows are marked as Docling marks them (``column_header=True`` on every cell of each header row). Most TAT-QA
  tables start with a super-header row with blank cells ("Years Ended September 30,") and the year row comes next;
  ALL leading rows without a numeric value (a bare year is not a value) are header rows, otherwise pieces of a table
  split by rows would lose their years. Non-empty first-column cells of body rows get ``row_header=True``.

Scoring traps, and how each is handled (the gold answers are strings that must all appear in a hit chunk):

1. Arithmetic answers (e.g. -12.6 from "44.1-56.7") never appear in the text. The gold strings are the numbers of the
   derivation instead, the cells a reader must retrieve.
2. About a fifth of derivations use constants that are not in the context: "/2" of an average, "*100" of a percentage,
   "- 1" of a growth rate. Small integer divisors/factors (<= 12), 100 and 1000 next to "*" or "/", and a "1" subtracted
   after a division are dropped as constants even when the same digit happens to occur in the context ("Note 2" would
   otherwise make any chunk a hit). Other derivation numbers not found in the context are dropped too; if none is left,
   the answer itself is used when it occurs in the context, else the question is dropped (``dropped_arithmetic``).
3. Count questions ("How many years ...?", answer 2) list items in the derivation ("2019##2018"): the gold strings are
   those items, not the count. Items not found in the context are dropped; none left -> question dropped.
4. Comparison spans ("In which year is X the largest?" -> "2019", derivation "1,496.5>1,202.9>1,107.7"): the year is in
   every header row, so the compared numbers are added to the gold strings when they occur in the context.
5. Number formats differ between answer and text ("$1,496.5" vs "$ | 1,496.5", "(12)" vs "-12", "44.1" inside
   "144.1"): handled by :mod:`docling_evidence_bench.normalize` (token-boundary match on normalised text).
6. A span answer that does not occur in its context (annotation noise) cannot be retrieved: the question is dropped
   (``dropped_span_not_in_context``).
7. ``rel_paragraphs`` are 1-based ``order`` numbers (strings) into the context's paragraphs. For table-text questions
   their texts become ``required_texts`` (a hit chunk must hold them too); ``evidence_refs`` name the table and/or the
   paragraphs. Answers are checked against the context's text only, never against another context of the same
   document.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docling_evidence_bench.dataset import BenchDataError, BenchDataset, QAItem
from docling_evidence_bench.normalize import contains_answer, normalize_text

if TYPE_CHECKING:
    from docling_core.types.doc import DoclingDocument

_TABLE_ANNOUNCE = re.compile(
    r"\b(?:following tables?|tables? below|below tables?|tables? (?:that )?follows?|accompanying tables?"
    r"|tables? sets? forth|tables? (?:above|hereunder))\b",
    re.IGNORECASE,
)
"""A paragraph that names the table ("The following table sets forth ...")."""
_GENERIC_ANNOUNCE = re.compile(r"(?:as follows|the following|below)\s*[:.]?\s*$|:\s*$", re.IGNORECASE)
"""A paragraph that ends by pointing forward ("... as follows:", "... (in thousands):")."""
_LIST_ITEM = re.compile(r"^\s*(?:[a-z]|[-–•*]|\(?[ivx0-9]+\)\s)|[;,]\s*(?:and|or)?\s*$")
"""A paragraph that looks like an item of a list (so the paragraph before announced the list, not the table)."""
_MIN_ANNOUNCE_WORDS = 6
"""Shorter paragraphs ending with ":" are headings ("7. INCOME TAXES:"), not announcements."""
_NOTE_MARKER = re.compile(r"^\s*(\(\s*[0-9a-z]{1,2}\s*\)|\*{1,3}|[¹²³⁴⁵⁶⁷⁸⁹⁰]+)")
"""A paragraph opening with a note marker ("(1) Represents ...", "* Excludes ...") whose marker a table cell carries
("Total expenses (2)") is that table's note: reports print it under the table."""

_CELL_STRIP = re.compile(r"[\s$€£¥%,]")
_NUMERIC_CELL = re.compile(r"[(\-]*\d+(?:\.\d+)?\)?|[(\-]*\.\d+\)?")
_YEAR = re.compile(r"(?:19|20)\d\d")

_DERIVATION_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?|\.\d+")
_NUMERIC_EXPRESSION = re.compile(r"[\d\s,.$%()+\-*/<>=]+")
_SMALL_CONSTANTS = {str(n) for n in range(1, 13)} | {"100", "1000"}


def _bump(stats: dict[str, int], key: str, n: int = 1) -> None:
    stats[key] = stats.get(key, 0) + n


def _is_value_cell(text: str) -> bool:
    """A number that is data (not blank, not a bare year such as "2019" or "2 0 1 8")."""
    s = _CELL_STRIP.sub("", text)
    if not s or not _NUMERIC_CELL.fullmatch(s):
        return False
    return not _YEAR.fullmatch(s)


def count_header_rows(rows: list[list[str]]) -> int:
    """Number of leading rows that hold no data value (super-header, year row, units row).

    A row with text in its first cell only ends the header once a row with column labels was seen: it is a body
    section label ("Transportation Solutions:"); before that it is a title row ("Income tax expense").

    A table whose rows all lack values (a text table) gets one header row; an empty table none.
    """
    n = 0
    columns_seen = False
    for row in rows:
        if any(_is_value_cell(c) for c in row):
            break
        label_only = bool(row) and bool(row[0].strip()) and not any(c.strip() for c in row[1:])
        if label_only and columns_seen:
            break  # a body section label ("Assets", "Current:") under the column headers
        columns_seen = columns_seen or any(c.strip() for c in row[1:])
        n += 1
    if n == len(rows):
        return 1 if rows and any(c.strip() for c in rows[0]) else 0
    return n


def table_position(paragraphs: list[str], rows: list[list[str]] | None = None) -> int:
    """Index of the paragraph after which the table goes (``len(paragraphs) - 1`` = after all of them, -1 = before
    the first).

    Preference: the first paragraph that names the table ("following table", "table below", ...) and ends with ":";
    then the first one that names it anywhere; then the last paragraph ending in a forward pointer ("as follows",
    "the following", a trailing ":") of at least six words whose next paragraph is not a list item; else the end.
    Whatever that gives, the table never goes after its own notes: when a paragraph opens with a note marker that a
    cell of ``rows`` carries ("(2) Excludes stock-based compensation ..." and the row "Total expenses (2)"), the
    table goes right before the first such paragraph if that is earlier. TAT-QA lists a context's paragraphs in the
    report's order but not where the table stood, and a report prints a table's notes under it.
    """
    position = _announced_position(paragraphs)
    notes = _first_note(paragraphs, rows or [])
    return notes - 1 if notes is not None and notes <= position else position


def _first_note(paragraphs: list[str], rows: list[list[str]]) -> int | None:
    """Index of the first paragraph opening with a note marker that some cell of ``rows`` carries, or None."""
    cells = [re.sub(r"\s+", "", c) for row in rows for c in row if c.strip()]
    for i, text in enumerate(paragraphs):
        match = _NOTE_MARKER.match(text)
        if match is None:
            continue
        marker = re.sub(r"\s+", "", match.group(1))
        if any(marker in c for c in cells):
            return i
    return None


def _announced_position(paragraphs: list[str]) -> int:
    """:func:`table_position` from the paragraphs alone (which one announces the table)."""
    naming = [i for i, p in enumerate(paragraphs) if _TABLE_ANNOUNCE.search(p)]
    for i in naming:
        if paragraphs[i].rstrip().endswith(":"):
            return i
    if naming:
        return naming[0]
    generic = [
        i
        for i, p in enumerate(paragraphs)
        if len(p.split()) >= _MIN_ANNOUNCE_WORDS
        and _GENERIC_ANNOUNCE.search(p.strip())
        and not (i + 1 < len(paragraphs) and _LIST_ITEM.search(paragraphs[i + 1].strip()))
    ]
    if generic:
        return generic[-1]
    return len(paragraphs) - 1


def header_spans(row: list[str]) -> list[tuple[int, int]]:
    """Column ranges ``[start, end)`` of the non-empty cells of a super-header row (column 0 excluded).

    TAT-QA flattens spanning header cells into one cell plus blanks. A row with a single label spans all value columns
    ("Years Ended September 30," over every year); otherwise each label spans the blank cells to its right
    ("Domestic", "", "International", "").
    """
    filled = [c for c in range(1, len(row)) if row[c].strip()]
    if len(filled) == 1:
        return [(1, len(row))]
    return [(c, filled[k + 1] if k + 1 < len(filled) else len(row)) for k, c in enumerate(filled)]


def _table_data(rows: list[list[str]]) -> tuple[Any, int]:
    """Docling ``TableData`` of a TAT-QA table and its number of header rows.

    Every cell of a header row gets ``column_header``; super-header rows (all header rows but the last, and a last
    header row holding a single label such as "(in millions)") get spanning cells (see :func:`header_spans`);
    non-empty first-column cells of body rows get ``row_header``.
    """
    from docling_core.types.doc import TableCell, TableData

    num_cols = max((len(r) for r in rows), default=0)
    n_header = count_header_rows(rows)
    cells = []

    def cell(text: str, r: int, c0: int, c1: int) -> None:
        cells.append(
            TableCell(
                text=text,
                row_span=1,
                col_span=c1 - c0,
                start_row_offset_idx=r,
                end_row_offset_idx=r + 1,
                start_col_offset_idx=c0,
                end_col_offset_idx=c1,
                column_header=r < n_header,
                row_header=r >= n_header and c0 == 0 and bool(text),
            )
        )

    for r, row in enumerate(rows):
        padded = [str(c).strip() for c in row] + [""] * (num_cols - len(row))
        single_label = sum(1 for t in padded[1:] if t) == 1  # a units row: "(in millions)"
        spans = header_spans(padded) if r < n_header - 1 or (r == n_header - 1 and r > 0 and single_label) else []
        if spans:
            covered = {c for c0, c1 in spans for c in range(c0, c1)}
            cell(padded[0], r, 0, 1)
            for c0, c1 in spans:
                cell(padded[c0] if padded[c0] else " ".join(padded[c0:c1]).strip(), r, c0, c1)
            for c in range(1, num_cols):
                if c not in covered:
                    cell(padded[c], r, c, c + 1)
        else:
            for c, text in enumerate(padded):
                cell(text, r, c, c + 1)
    cells.sort(key=lambda x: (x.start_row_offset_idx, x.start_col_offset_idx))
    return TableData(num_rows=len(rows), num_cols=num_cols, table_cells=cells), n_header


def _split_name(path: Path) -> str:
    stem = path.stem
    m = re.search(r"(train|dev|test)", stem)
    return m.group(1) if m else re.sub(r"[^a-z0-9]+", "-", stem.lower()).strip("-") or "data"


def _unique_answers(answers: list[str]) -> tuple[str, ...]:
    seen: set[str] = set()
    out = []
    for a in answers:
        a = a.strip()
        key = normalize_text(a)
        if key and key not in seen:
            seen.add(key)
            out.append(a)
    return tuple(out)


def _is_constant(derivation: str, match: re.Match[str]) -> bool:
    """A derivation number that is arithmetic, not data: "/2", "* 100", "100 *", "... / 67 - 1"."""
    value = match.group().replace(",", "")
    if value not in _SMALL_CONSTANTS:
        return False
    before = derivation[: match.start()].rstrip()
    after = derivation[match.end() :].lstrip()
    if before.endswith(("/", "*")) or after.startswith("*"):
        return True
    return value == "1" and before.endswith("-") and "/" in before


def derivation_numbers(derivation: str) -> tuple[list[str], int]:
    """Numbers of an arithmetic derivation, as written, without constants; and how many constants were dropped."""
    numbers, constants = [], 0
    for m in _DERIVATION_NUMBER.finditer(derivation):
        text = m.group().rstrip(",")
        if _is_constant(derivation, m):
            constants += 1
        else:
            numbers.append(text)
    return numbers, constants


def _format_answer(answer: Any) -> str:
    if isinstance(answer, float) and answer.is_integer():
        return str(int(answer))
    return str(answer)


def _answers_for(q: dict[str, Any], context_text: str, stats: dict[str, int]) -> tuple[str, ...] | str:
    """The gold strings of a TAT-QA question, or the reason it is dropped."""
    kind = q.get("answer_type")
    derivation = str(q.get("derivation") or "")
    answer = q.get("answer")
    if kind in ("span", "multi-span"):
        spans = [str(a) for a in (answer if isinstance(answer, list) else [answer]) if str(a).strip()]
        if not spans:
            return "empty_answer"
        if not all(contains_answer(context_text, a) for a in spans):
            return "span_not_in_context"
        if derivation and _NUMERIC_EXPRESSION.fullmatch(derivation):
            numbers, _ = derivation_numbers(derivation)
            extra = [n for n in numbers if contains_answer(context_text, n)]
            if extra:
                _bump(stats, "span_with_derivation_numbers", 1)
            spans += extra
        return _unique_answers(spans)
    if kind == "count":
        items = [s for s in derivation.split("##") if s.strip()]
        if not items and isinstance(answer, list):
            items = [str(a) for a in answer]
        found = [s for s in items if contains_answer(context_text, s)]
        if not found:
            return "count_items_not_found"
        if len(found) < len(items):
            _bump(stats, "count_items_partly_found", 1)
        return _unique_answers(found)
    if kind == "arithmetic":
        numbers, constants = derivation_numbers(derivation)
        _bump(stats, "arithmetic_constants_dropped", constants)
        if constants:
            _bump(stats, "arithmetic_questions_with_constants")
        found = [n for n in numbers if contains_answer(context_text, n)]
        missing = len(numbers) - len(found)
        if missing:
            _bump(stats, "arithmetic_numbers_not_in_context", missing)
        if found:
            return _unique_answers(found)
        fallback = _format_answer(answer)
        if answer not in (None, "") and contains_answer(context_text, fallback):
            _bump(stats, "arithmetic_answer_used", 1)
            return (fallback,)
        return "arithmetic_no_number_in_context"
    return f"unknown_answer_type_{kind}"


def _context_text(paragraphs: list[str], rows: list[list[str]]) -> str:
    table_text = "\n".join(" | ".join(str(c) for c in row) for row in rows)
    return "\n".join([*paragraphs, table_text])


def _check_context(ctx: Any, path: Path, index: int) -> None:
    if not isinstance(ctx, dict):
        raise BenchDataError(f"context {index}: expected an object, got {type(ctx).__name__}", path)
    for key, kind in (("table", dict), ("paragraphs", list), ("questions", list)):
        if not isinstance(ctx.get(key), kind):
            raise BenchDataError(f"context {index}: missing or malformed field {key!r}", path)
    if not isinstance(ctx["table"].get("table"), list):
        raise BenchDataError(f"context {index}: missing or malformed field 'table.table'", path)


def _add_context(
    doc: DoclingDocument, ctx: dict[str, Any], number: int, stats: dict[str, int]
) -> tuple[dict[int, str], str, list[str], list[list[str]]]:
    """Append one context to ``doc``; return paragraph refs by order number, the table ref, paragraphs and rows."""
    from docling_core.types.doc import DocItemLabel

    paragraphs_raw = sorted(ctx["paragraphs"], key=lambda p: int(p.get("order", 0)))
    paragraphs = [str(p.get("text", "")).strip() for p in paragraphs_raw]
    rows = [[str(c) for c in row] for row in ctx["table"]["table"]]
    doc.add_heading(text=f"Report excerpt {number}", level=1)
    data, n_header = _table_data(rows)
    _bump(stats, "header_rows_3+" if n_header >= 3 else f"header_rows_{n_header}")
    position = table_position(paragraphs, rows) if paragraphs else -1
    if paragraphs and position < _announced_position(paragraphs):
        _bump(stats, "tables_above_their_notes")
    elif position == len(paragraphs) - 1:
        _bump(stats, "tables_after_all_paragraphs")
    else:
        _bump(stats, "tables_after_announcing_paragraph")
    para_refs: dict[int, str] = {}
    table_ref = ""
    if position < 0:
        table_ref = doc.add_table(data=data).self_ref
    for i, (p, text) in enumerate(zip(paragraphs_raw, paragraphs, strict=True)):
        if text:
            para_refs[int(p.get("order", i + 1))] = doc.add_text(label=DocItemLabel.TEXT, text=text).self_ref
        if i == position:
            table_ref = doc.add_table(data=data).self_ref
    return para_refs, table_ref, paragraphs, rows


def load_tatqa(path: str | Path, contexts_per_doc: int = 10, limit_contexts: int | None = None) -> BenchDataset:
    """Load a TAT-QA JSON file (``tatqa_dataset_{train,dev,test}.json`` format) as a :class:`BenchDataset`.

    ``limit_contexts`` keeps the first N contexts. ``dataset.stats`` counts contexts, documents, questions kept,
    questions by type, dropped questions by reason (``dropped_<reason>``) and how tables were placed and headed.
    Raises :class:`BenchDataError` (naming the file) for a missing, unreadable or malformed file.
    """
    from docling_core.types.doc import DoclingDocument

    path = Path(path)
    if contexts_per_doc < 1:
        raise ValueError(f"contexts_per_doc must be >= 1, got {contexts_per_doc}")
    if limit_contexts is not None and limit_contexts < 1:
        raise ValueError(f"limit_contexts must be >= 1 or None, got {limit_contexts}")
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BenchDataError("file not found", path) from None
    except (OSError, UnicodeDecodeError) as e:
        raise BenchDataError(f"cannot read: {e}", path) from None
    except json.JSONDecodeError as e:
        raise BenchDataError(f"not JSON: {e.msg}", path, e.lineno) from None
    if not isinstance(raw, list) or not raw:
        raise BenchDataError("expected a non-empty JSON list of TAT-QA contexts", path)
    contexts = raw[:limit_contexts] if limit_contexts is not None else raw
    split = _split_name(path)
    stats: dict[str, int] = {"contexts": len(contexts), "questions_in_file": 0}
    documents: dict[str, DoclingDocument] = {}
    questions: list[QAItem] = []
    seen_qids: set[str] = set()
    doc: DoclingDocument | None = None
    doc_id = ""
    for index, ctx in enumerate(contexts):
        _check_context(ctx, path, index)
        if index % contexts_per_doc == 0:
            doc_id = f"tatqa-{split}-{index // contexts_per_doc:04d}"
            doc = DoclingDocument(name=doc_id)
            documents[doc_id] = doc
        assert doc is not None
        para_refs, table_ref, paragraphs, rows = _add_context(doc, ctx, index + 1, stats)
        context_text = _context_text(paragraphs, rows)
        by_order = {
            int(p.get("order", i + 1)): str(p.get("text", "")).strip()
            for i, p in enumerate(sorted(ctx["paragraphs"], key=lambda p: int(p.get("order", 0))))
        }
        for q in ctx["questions"]:
            stats["questions_in_file"] += 1
            answers = _answers_for(q, context_text, stats)
            if isinstance(answers, str):
                _bump(stats, f"dropped_{answers}")
                continue
            qtype = str(q.get("answer_from", ""))
            rel = [int(r) for r in q.get("rel_paragraphs", []) if str(r).strip().isdigit() and int(r) in para_refs]
            para_evidence = tuple(para_refs[r] for r in rel)
            if qtype == "table":
                refs: tuple[str, ...] = (table_ref,)
            elif qtype == "text":
                refs = para_evidence
            else:
                refs = (table_ref, *para_evidence)
            required = tuple(by_order[r] for r in rel) if qtype == "table-text" else ()
            qid = str(q.get("uid") or f"{doc_id}-q{len(questions)}")
            if qid in seen_qids:
                _bump(stats, "dropped_duplicate_id", 1)
                continue
            seen_qids.add(qid)
            questions.append(
                QAItem(
                    qid=qid,
                    doc_id=doc_id,
                    question=str(q.get("question", "")).strip(),
                    answers=answers,
                    qtype=qtype,
                    required_texts=required,
                    evidence_refs=refs,
                )
            )
    stats["documents"] = len(documents)
    stats["questions"] = len(questions)
    for q in questions:
        stats[f"questions_{q.qtype}"] = stats.get(f"questions_{q.qtype}", 0) + 1
    stats["dropped"] = sum(v for k, v in stats.items() if k.startswith("dropped_"))
    return BenchDataset(name=f"tatqa-{split}", documents=documents, questions=questions, stats=stats)
