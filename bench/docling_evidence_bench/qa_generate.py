"""Generate retrieval questions from real DoclingDocuments, deterministically, in three types.

- ``cell_value``: a cell value that occurs once in its table, asked for by its row label and column label: "What is
  the <column label> of <row label> in the table about <topic>?". Gold: the value and the row label (so a paragraph
  that merely repeats the number is not a hit).
- ``table_about``: what the table lists. The question paraphrases the caption (its content words, or the column labels
  when there is no caption); gold: up to three distinctive row labels from the top of the table (so the first piece of a
  table split by rows can answer it).
- ``context_dependent``: a body paragraph on the same page as the table shares a number with exactly one table cell.
  Gold: that number, the cell's row label (table only) and a short phrase next to the number in the paragraph
  (paragraph only); ``required_texts`` is the paragraph's sentence holding the number. Invariant, checked for every
  item (items failing it are dropped and counted): all gold strings occur in table + paragraph together, but not all in
  the table's cell texts alone and not all in the paragraph alone.

Questions never copy an arm's serialisation: no "|", no "row, column = value" triplet syntax. Tables that are not
document tables are skipped: not labelled ``table``, not in the body layer, fewer than 2 rows or 2 columns, mostly empty
cells. Choices are made with ``random.Random`` seeded from ``(seed, doc_id, table index)``, so the output depends only
on the documents and the seed.

Run: ``python -m docling_evidence_bench.qa_generate FIXTURE_DIR -o qa.jsonl`` (doc ids are the JSON paths relative
to FIXTURE_DIR, as :func:`docling_evidence_bench.qa_jsonl.load_qa_jsonl` expects).
"""

from __future__ import annotations

import random
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from docling_evidence.tables.rows import table_rows
from docling_evidence_bench.dataset import BenchDataError, QAItem
from docling_evidence_bench.normalize import contains_answer, normalize_text

if TYPE_CHECKING:
    from docling_core.types.doc import DoclingDocument, TableItem

MAX_EMPTY_SHARE = 0.5
"""A table with more than this share of empty cells is layout, not data."""
MAX_LABEL_CHARS = 80
"""Longer row/column labels are sentences (gazette notices), not labels: not used to locate a cell."""
ABOUT_ANSWERS = 3
"""Row labels asked for by a ``table_about`` question."""
PHRASE_WORDS = 4
"""Words of paragraph text next to the shared number that form the paragraph-only gold phrase."""
MIN_PARAGRAPH_WORDS = 12
"""Shorter body texts are headings or list fragments, not explaining paragraphs."""

_CAPTION_PREFIX = re.compile(r"^\s*(?:table|tab\.)\s*[\dIVXivx]+[a-z]?\s*[.:\-–]?\s*", re.IGNORECASE)
_TABLE_CAPTION_LINE = re.compile(r"^\s*(?:table|tab\.)\s*[\dIVX]+\b", re.IGNORECASE)
_NUMBER_TOKEN = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?![\w]|\.\d)")
_YEAR = re.compile(r"(?:19|20)\d\d")
_WORD = re.compile(r"[A-Za-z][A-Za-z\-]+")
_PUNCT_BREAK = re.compile(r"[,;:()\[\]\"!?]|\.(?!\d)")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(])")
"""Where a paragraph's (and a caption topic's) sentence ends for the questions: at ``.``/``!``/``?`` before a capital or
"(" only. Not :mod:`docling_evidence.text.sentences`: the generated question sets (a ``context_dependent`` item's
``required_texts`` is such a sentence) were made with this cut, and another one would change them."""
_GENERIC_LABELS = {
    "total",
    "totals",
    "subtotal",
    "other",
    "others",
    "none",
    "n/a",
    "na",
    "average",
    "mean",
    "sum",
    "all",
}
_CAPTION_WORDS = frozenset({"table", "show", "shows", "shown", "using", "used", "based", "per", "vs"})
"""Words every table caption may use: never a keyword that identifies one table."""


def _stopwords() -> frozenset[str]:
    from bm25s.stopwords import STOPWORDS_EN

    return frozenset(STOPWORDS_EN) | _CAPTION_WORDS


_STOPWORDS = _stopwords()


@dataclass(frozen=True)
class _Table:
    """A table as the generator reads it: labels and cell texts."""

    index: int
    ref: str
    pages: tuple[int, ...]
    topic: str
    """Caption without its "Table N:" prefix, first sentence; or "" when there is none."""
    column_labels: tuple[str, ...]
    """Per column; "" where the header is empty; all "" when no header row is marked."""
    body: tuple[tuple[str, ...], ...]
    """Body rows of cell texts (spanned cells repeated, as in docling-core's ``grid``)."""
    cells: tuple[str, ...]
    """Distinct cells' texts (a spanned cell counted once), header included."""


def _clean(text: str) -> str:
    """One line of text safe in a question: no serialisation marks."""
    text = re.sub(r"\s+", " ", text.replace("|", "/").replace("=", "-")).strip()
    return text


def _short(text: str, max_words: int) -> str:
    words = text.split()
    return " ".join(words[:max_words])


def _caption(doc: DoclingDocument, table: TableItem, items: list, position: dict[str, int]) -> str:
    """The table's linked caption, else a "Table N ..." text right before or after it in reading order."""
    text = table.caption_text(doc).strip()
    if text:
        return text
    from docling_core.types.doc import TextItem

    i = position.get(table.self_ref)
    if i is None:
        return ""
    for j in (i - 1, i + 1, i - 2, i + 2):
        if 0 <= j < len(items) and isinstance(items[j], TextItem) and _TABLE_CAPTION_LINE.match(items[j].text):
            return items[j].text.strip()
    return ""


def _topic(caption: str) -> str:
    topic = _CAPTION_PREFIX.sub("", caption).strip()
    topic = _SENTENCE_END.split(topic, maxsplit=1)[0].rstrip(". ")
    return _clean(_short(topic, 14))


def _read_table(
    doc: DoclingDocument, table: TableItem, index: int, items: list, position: dict[str, int]
) -> _Table | str:
    """The table's labels and cells, or why it is not a document table."""
    from docling_core.types.doc import ContentLayer, DocItemLabel

    if table.label != DocItemLabel.TABLE or table.content_layer != ContentLayer.BODY:
        return "not_body_table"
    data = table.data
    if data.num_rows < 2 or data.num_cols < 2:
        return "too_small"
    rows = table_rows(table, doc)  # the chunker's reader: the same header rows, the same cell texts
    texts = [list(row) for row in (*rows.header, *rows.body)]
    empty = sum(1 for row in texts for t in row if not t)
    if empty > MAX_EMPTY_SHARE * data.num_rows * data.num_cols:
        return "mostly_empty"
    n_header = len(rows.header)
    labels: list[str] = []
    for c in range(data.num_cols):
        parts: list[str] = []
        for r in range(n_header):
            t = texts[r][c]
            if t and (not parts or parts[-1] != t):
                parts.append(t)
        labels.append(_clean(" ".join(parts)))
    starts = sorted(((c.start_row_offset_idx, c.start_col_offset_idx), c.text.strip()) for c in data.table_cells)
    distinct = dict(starts)
    return _Table(
        index=index,
        ref=table.self_ref,
        pages=tuple(sorted({p.page_no for p in table.prov})),
        topic=_topic(_caption(doc, table, items, position)),
        column_labels=tuple(labels),
        body=tuple(tuple(row) for row in texts[n_header:]),
        cells=tuple(t for t in distinct.values() if t),
    )


def _about(table: _Table) -> str:
    """Words naming the table in a question: its caption topic, else its column labels."""
    if table.topic:
        return f"the table about {table.topic}"
    return _by_columns(table)


def _by_columns(table: _Table) -> str:
    """The table named by its column labels ("the table with the columns A, B and C"), or ""."""
    cols = [c for c in table.column_labels[1:] if c][:3]
    if not cols:
        return ""
    listed = cols[0] if len(cols) == 1 else ", ".join(cols[:-1]) + f" and {cols[-1]}"
    return f"the table with the columns {_short(listed, 16)}"


def _distinctive(text: str) -> bool:
    """Long enough to be worth matching: not one character, not a stop word or a generic label ("a", "All")."""
    key = normalize_text(text)
    return len(key) >= 2 and key not in _STOPWORDS and key not in _GENERIC_LABELS


def _usable_label(label: str) -> bool:
    """A row label that can locate a cell and serve as a gold string: short, has a letter, distinctive."""
    return len(label) <= MAX_LABEL_CHARS and any(ch.isalpha() for ch in label) and _distinctive(label)


def _usable_column(label: str) -> bool:
    """A column label that can locate a cell in a question (years such as "2019" included)."""
    return len(label) <= MAX_LABEL_CHARS and _distinctive(label)


def _unique_row_labels(table: _Table) -> dict[int, str]:
    """Body row index -> row label, for rows whose label is usable and occurs once in column 0."""
    counts = Counter(normalize_text(row[0]) for row in table.body)
    return {
        r: _clean(row[0])
        for r, row in enumerate(table.body)
        if _usable_label(row[0]) and counts[normalize_text(row[0])] == 1
    }


def _cell_question(col: str, label: str, about: str) -> str:
    return f"What is the {col} of {label} in {about}?"


def _askable(table: _Table) -> set[str]:
    """Every question (normalized) this table could be asked: a cell question for each non-empty cell of a row
    with a usable unique label under a usable column, and its table_about topic. Another table of the document that
    could be asked the same question makes it ambiguous (e.g. dozens of coordinate tables with rows L1, L2, ... and
    the columns Longitude and Latitude): its gold cell is one of several right answers."""
    asked: set[str] = set()
    # a captioned table fits a question naming it by its columns too
    for about in {a for a in (_about(table), _by_columns(table)) if a}:
        for r, label in _unique_row_labels(table).items():
            for c in range(1, len(table.column_labels)):
                col = table.column_labels[c]
                if table.body[r][c] and _usable_column(col):
                    asked.add(normalize_text(_cell_question(col, label, about)))
    for topic in {_about_topic(table), _columns_topic(table)} - {""}:
        asked.add(_about_key(topic))
    return asked


def _cell_value_items(table: _Table, doc_id: str, rng: random.Random, per_table: int) -> list[QAItem]:
    about = _about(table)
    if not about:
        return []
    col_counts = Counter(normalize_text(c) for c in table.column_labels if c)
    cell_counts = Counter(normalize_text(t) for t in table.cells)
    rows = _unique_row_labels(table)
    candidates = []
    for r, label in rows.items():
        seen_in_row: set[str] = set()
        for c in range(1, len(table.column_labels)):
            value, col = table.body[r][c], table.column_labels[c]
            key = normalize_text(value)
            if not value or key in seen_in_row or key == normalize_text(table.body[r][0]):
                continue
            seen_in_row.add(key)  # a cell spanning columns is one candidate, not several
            if not _usable_column(col) or col_counts[normalize_text(col)] != 1 or cell_counts[key] != 1:
                continue
            if len(value) > MAX_LABEL_CHARS or not any(ch.isalnum() for ch in value) or not _distinctive(value):
                continue
            candidates.append((r, c, label, col, value))
    numeric = [c for c in candidates if any(ch.isdigit() for ch in c[4])]
    pool = numeric or candidates
    chosen = rng.sample(pool, min(per_table, len(pool)))
    chosen.sort(key=lambda c: (c[0], c[1]))
    return [
        QAItem(
            qid=f"{doc_id}#t{table.index}-cell-r{r}c{c}",
            doc_id=doc_id,
            question=_cell_question(col, label, about),
            answers=(value, label),
            qtype="cell_value",
            evidence_refs=(table.ref,),
            evidence_pages=table.pages,
        )
        for r, c, label, col, value in chosen
    ]


def _keywords(text: str, limit: int) -> list[str]:
    out: list[str] = []
    for w in _WORD.findall(text):
        lw = w.lower()
        if lw not in _STOPWORDS and len(lw) > 2 and lw not in out:
            out.append(lw)
    return out[:limit]


_ABOUT_TEMPLATES = (
    "Which entries are listed in the table on {topic}?",
    "What does the table on {topic} list?",
    "Which items does the table covering {topic} enumerate?",
)


def _about_topic(table: _Table) -> str:
    """The words a table_about question names the table by: caption keywords, else column keywords."""
    if table.topic:
        return " ".join(_keywords(table.topic, 8))
    return _columns_topic(table)


def _columns_topic(table: _Table) -> str:
    """Keywords of the table's first column labels, joined by "and" ("" without labels)."""
    per_column = [" ".join(_keywords(c, 3)) for c in table.column_labels[1:4] if c]
    return " and ".join(t for t in per_column if t)


def _about_key(topic: str) -> str:
    """A table_about question on ``topic`` in one normalized form, whichever template asks it."""
    return normalize_text(_ABOUT_TEMPLATES[0].format(topic=topic))


def _table_about_item(table: _Table, doc_id: str, rng: random.Random) -> QAItem | None:
    topic = _about_topic(table)
    if not topic:
        return None
    rows = _unique_row_labels(table)
    labels = [label for label in rows.values() if normalize_text(label) not in _GENERIC_LABELS]
    if len(labels) < 2:
        return None
    answers = tuple(labels[:ABOUT_ANSWERS])
    template = rng.choice(_ABOUT_TEMPLATES)
    return QAItem(
        qid=f"{doc_id}#t{table.index}-about",
        doc_id=doc_id,
        question=template.format(topic=topic),
        answers=answers,
        qtype="table_about",
        evidence_refs=(table.ref,),
        evidence_pages=table.pages,
    )


def _numbers(text: str) -> set[str]:
    """Distinctive number tokens of ``text``, normalised: at least two digits, not a bare year."""
    out = set()
    for m in _NUMBER_TOKEN.finditer(text):
        n = m.group().replace(",", "")
        if sum(ch.isdigit() for ch in n) >= 2 and not _YEAR.fullmatch(n):
            out.add(n)
    return out


def _phrase_near(sentence: str, number: str, table_text: str) -> str:
    """Up to ``PHRASE_WORDS`` words right after (else right before) ``number`` in ``sentence``, not crossing
    punctuation (so the phrase occurs verbatim), with at least two words and not found in the table."""
    norm = normalize_text(sentence)
    m = re.search(rf"(?<![\w.]){re.escape(number)}(?![\w]|\.\d)", norm)
    if not m:
        return ""
    after_segment = _PUNCT_BREAK.split(norm[m.end() :])[0].split()
    before_segment = _PUNCT_BREAK.split(norm[: m.start()])[-1].split()
    after = after_segment[:PHRASE_WORDS]
    before = before_segment[-PHRASE_WORDS:]
    for words in (after, before):
        while words and not any(ch.isalnum() for ch in words[0]):
            words = words[1:]
        while words and not any(ch.isalnum() for ch in words[-1]):
            words = words[:-1]
        phrase = " ".join(words)
        if sum(1 for w in words if _WORD.fullmatch(w)) >= 2 and not contains_answer(table_text, phrase):
            return phrase
    return ""


def context_invariant_holds(answers: tuple[str, ...], table_text: str, paragraph: str) -> bool:
    """All answers in table + paragraph together, but not all in the table alone nor all in the paragraph alone."""
    both = f"{table_text}\n{paragraph}"
    return (
        all(contains_answer(both, a) for a in answers)
        and not all(contains_answer(table_text, a) for a in answers)
        and not all(contains_answer(paragraph, a) for a in answers)
    )


def _context_items(
    table: _Table,
    paragraphs: list[tuple[str, str, int]],
    doc_id: str,
    rng: random.Random,
    per_table: int,
    stats: dict[str, int],
) -> list[QAItem]:
    """``context_dependent`` items for one table; ``paragraphs`` are (self_ref, text, page) on the table's pages."""
    about = _about(table)
    if not about or not paragraphs:
        return []
    table_text = "\n".join(table.cells)
    cell_numbers: dict[str, list[int]] = {}
    for r, row in enumerate(table.body):
        for c, value in enumerate(row[1:], start=1):
            if c > 0 and value:
                for n in _numbers(value):
                    cell_numbers.setdefault(n, []).append(r)
    rows = _unique_row_labels(table)
    counts = Counter(_n for t in table.cells for _n in _numbers(t))
    candidates = []
    for ref, text, page in paragraphs:
        for sentence in _SENTENCE_END.split(text):
            for n in sorted(_numbers(sentence)):
                if counts.get(n) != 1 or n not in cell_numbers or len(set(cell_numbers[n])) != 1:
                    continue
                r = cell_numbers[n][0]
                if r not in rows:
                    continue
                candidates.append((ref, text, page, sentence.strip(), n, rows[r]))
    if not candidates:
        return []
    rng.shuffle(candidates)
    items: list[QAItem] = []
    used: set[tuple[str, str]] = set()
    for ref, text, page, sentence, number, label in candidates:
        if len(items) >= per_table or (ref, number) in used:
            continue
        used.add((ref, number))
        phrase = _phrase_near(sentence, number, table_text)
        if not phrase:
            stats["dropped_context_no_phrase"] = stats.get("dropped_context_no_phrase", 0) + 1
            continue
        answers = (number, label, phrase)
        if not context_invariant_holds(answers, table_text, text):
            stats["dropped_context_invariant"] = stats.get("dropped_context_invariant", 0) + 1
            continue
        hints = [w for w in _keywords(sentence, 12) if not contains_answer(f"{phrase} {label}", w)][:4]
        topic = f" in connection with {', '.join(hints)}" if hints else ""
        question = (
            f"Which row of {about} holds the figure that the text mentions{topic}, "
            "and what does the text say next to it?"
        )
        items.append(
            QAItem(
                qid=f"{doc_id}#t{table.index}-context-{len(items)}",
                doc_id=doc_id,
                question=question,
                answers=answers,
                qtype="context_dependent",
                required_texts=(sentence,),
                evidence_refs=(table.ref, ref),
                evidence_pages=tuple(sorted({*table.pages, page})),
            )
        )
    return items


def _page_paragraphs(doc: DoclingDocument) -> dict[int, list[tuple[str, str, int]]]:
    """Body paragraphs by page: (self_ref, text, page)."""
    from docling_core.types.doc import ContentLayer, DocItemLabel, TextItem

    by_page: dict[int, list[tuple[str, str, int]]] = {}
    for item, _ in doc.iterate_items(with_groups=False):
        if not isinstance(item, TextItem) or item.label not in (DocItemLabel.TEXT, DocItemLabel.PARAGRAPH):
            continue
        if item.content_layer != ContentLayer.BODY or len(item.text.split()) < MIN_PARAGRAPH_WORDS:
            continue
        for page in sorted({p.page_no for p in item.prov}):
            by_page.setdefault(page, []).append((item.self_ref, item.text, page))
    return by_page


def generate_qa(
    docs: dict[str, DoclingDocument],
    seed: int = 0,
    per_table: int = 2,
    stats: dict[str, int] | None = None,
    page_window: int = 0,
) -> list[QAItem]:
    """QA items for every document table: up to ``per_table`` ``cell_value`` and ``context_dependent`` items and one
    ``table_about`` item per table, in document then table order. Same documents and seed, same items.

    ``context_dependent`` paragraphs come from the table's pages (``page_window=0``, the published design) or also
    from up to ``page_window`` pages before and after (lead-in paragraphs often sit on the previous page).
    A question that occurs twice in one document (repeated tables) is ambiguous: all its items are dropped; so is a
    cell or table_about question that another table of the document could be asked too (the same row label and
    column under the same table description, or the same topic), whether or not that one was sampled.

    ``stats``, when given, receives counts: tables seen and skipped by reason, items by type, dropped items by reason.
    """
    if per_table < 1:
        raise ValueError(f"per_table must be >= 1, got {per_table}")
    if page_window < 0:
        raise ValueError(f"page_window must be >= 0, got {page_window}")
    stats = {} if stats is None else stats

    def bump(key: str) -> None:
        stats[key] = stats.get(key, 0) + 1

    out: list[QAItem] = []
    for doc_id, doc in docs.items():
        items = [item for item, _ in doc.iterate_items(with_groups=False)]
        position = {getattr(item, "self_ref", ""): i for i, item in enumerate(items)}
        paragraphs = _page_paragraphs(doc)
        doc_items: list[QAItem] = []
        keys: dict[str, str] = {}  # item id -> the question it asks, in the form _askable gives
        askers: Counter[str] = Counter()  # question -> how many tables of this document could be asked it
        for index, table_item in enumerate(doc.tables):
            bump("tables")
            table = _read_table(doc, table_item, index, items, position)
            if isinstance(table, str):
                bump(f"tables_skipped_{table}")
                continue
            rng = random.Random(f"{seed}:{doc_id}:{index}")
            generated = _cell_value_items(table, doc_id, rng, per_table)
            keys.update({item.qid: normalize_text(item.question) for item in generated})
            about = _table_about_item(table, doc_id, rng)
            if about is not None:
                generated.append(about)
                keys[about.qid] = _about_key(_about_topic(table))
            pages = sorted({q for page in table.pages for q in range(page - page_window, page + page_window + 1)})
            near = [p for page in pages for p in paragraphs.get(page, [])]
            generated += _context_items(table, near, doc_id, rng, per_table, stats)
            doc_items += generated
            for question in _askable(table):
                askers[question] += 1
        # A question asked twice in one document (repeated tables, e.g. gazette notices), or one another table could
        # be asked as well, has no single answer.
        counts = Counter(normalize_text(item.question) for item in doc_items)
        for item in doc_items:
            if counts[normalize_text(item.question)] > 1:
                bump(f"dropped_{item.qtype}_ambiguous_question")
                continue
            if askers[keys.get(item.qid, "")] > 1:
                bump(f"dropped_{item.qtype}_other_table_same_question")
                continue
            bump(f"items_{item.qtype}")
            out.append(item)
    return out


def load_fixture_docs(root: str | Path) -> dict[str, DoclingDocument]:
    """Every ``*.json`` DoclingDocument under ``root`` (recursively, sorted), keyed by its path relative to ``root``.

    JSON files that are not DoclingDocuments are skipped; none at all is a :class:`BenchDataError`.
    """
    from docling_core.types.doc import DoclingDocument

    root = Path(root)
    if not root.is_dir():
        raise BenchDataError("fixture folder not found", root)
    docs: dict[str, DoclingDocument] = {}
    for path in sorted(root.rglob("*.json")):
        try:
            docs[path.relative_to(root).as_posix()] = DoclingDocument.load_from_json(path)
        except Exception:  # not a DoclingDocument: other JSON may live beside the fixtures
            continue
    if not docs:
        raise BenchDataError("no DoclingDocument JSON files found", root)
    return docs


app = typer.Typer(
    name="qa_generate",
    help=__doc__.split("\n")[0] if __doc__ else None,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.command()
def generate(
    fixture_dir: Annotated[
        Path, typer.Argument(help="Folder of DoclingDocument JSON files (searched recursively).", show_default=False)
    ],
    output: Annotated[Path, typer.Option("--output", "-o", help="QA JSONL file to write.", show_default=False)],
    seed: Annotated[int, typer.Option(help="Seed of every random choice.")] = 0,
    per_table: Annotated[int, typer.Option(help="cell_value and context_dependent items per table.", min=1)] = 2,
    page_window: Annotated[
        int, typer.Option(help="Context paragraphs from this many pages around the table.", min=0)
    ] = 0,
) -> None:
    """Generate QA JSONL over the DoclingDocuments in FIXTURE_DIR (doc ids relative to it)."""
    from docling_evidence.cli.common import usage_error
    from docling_evidence_bench.qa_jsonl import write_qa_jsonl

    try:
        docs = load_fixture_docs(fixture_dir)
        stats: dict[str, int] = {}
        items = generate_qa(docs, seed=seed, per_table=per_table, stats=stats, page_window=page_window)
        if not items:
            raise BenchDataError("no questions could be generated", fixture_dir)
        write_qa_jsonl(items, output)
    except (BenchDataError, ValueError, OSError) as e:
        raise usage_error(str(e)) from None
    summary = ", ".join(f"{k}={v}" for k, v in sorted(stats.items()))
    typer.echo(f"wrote {len(items)} questions over {len(docs)} documents to {output} ({summary})")


def main(argv: list[str] | None = None) -> int:
    """``python -m docling_evidence_bench.qa_generate FIXTURE_DIR -o out.jsonl [--seed N] [--per-table N]``."""
    from docling_evidence.cli.common import run_app

    return run_app(app, argv, prog_name="python -m docling_evidence_bench.qa_generate")


if __name__ == "__main__":
    raise SystemExit(main())
