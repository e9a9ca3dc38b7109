"""QA over DoclingDocument JSON files, one JSON object a line.

A line looks like::

    {"id": "q1", "doc": "reports/annual.json", "question": "...", "answers": ["12.5"], "type": "cell_value",
     "evidence": {"refs": ["#/tables/1", "#/texts/120"], "pages": [6]}, "required_texts": ["..."]}

``doc`` is a path relative to the docs folder and is also the ``doc_id``; ``required_texts`` is optional, and so are
``evidence.refs`` and ``evidence.pages`` (the ``evidence`` object itself is required). Blank lines are skipped. Every
problem is a :class:`BenchDataError` naming the QA file and line: not JSON, not an object, a missing or mistyped field,
a duplicate id, a doc file that does not exist or does not load, an evidence ref that the document does not have, a
file with no questions.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docling_evidence.cli.safe_write import write_text
from docling_evidence_bench.dataset import BenchDataError, BenchDataset, QAItem

if TYPE_CHECKING:
    from docling_core.types.doc import DoclingDocument

_REQUIRED_STR = ("id", "doc", "question", "type")


def _str_list(value: Any, name: str, path: Path, line: int, *, non_empty: bool) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise BenchDataError(f"field {name!r} must be a list of strings", path, line)
    if non_empty and (not value or not all(v.strip() for v in value)):
        raise BenchDataError(f"field {name!r} must be a non-empty list of non-empty strings", path, line)
    return tuple(value)


def _check_ref(doc: DoclingDocument, ref: str, path: Path, line: int) -> None:
    parts = ref.split("/")
    if ref == "#/body" or (len(parts) == 3 and parts[0] == "#" and parts[2].isdigit()):
        items = getattr(doc, parts[1], None) if ref != "#/body" else [doc.body]
        if ref == "#/body" or (isinstance(items, list) and int(parts[2]) < len(items)):
            return
    raise BenchDataError(f"evidence ref {ref!r} does not exist in document {doc.name!r}", path, line)


def _load_doc(doc_path: Path, qa_path: Path, line: int) -> DoclingDocument:
    from docling_core.types.doc import DoclingDocument

    if not doc_path.is_file():
        raise BenchDataError(f"doc file not found: {doc_path}", qa_path, line)
    try:
        return DoclingDocument.load_from_json(doc_path)
    except Exception as e:  # pydantic ValidationError, JSONDecodeError, OSError, ...
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise BenchDataError(
            f"doc file {doc_path} is not a loadable DoclingDocument JSON: {first}", qa_path, line
        ) from None


def _parse_line(text: str, path: Path, line: int) -> dict[str, Any]:
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as e:
        raise BenchDataError(f"not JSON ({e.msg})", path, line) from None
    if not isinstance(obj, dict):
        raise BenchDataError(f"expected a JSON object, got {type(obj).__name__}", path, line)
    for key in (*_REQUIRED_STR, "answers", "evidence"):
        if key not in obj:
            raise BenchDataError(f"missing field {key!r}", path, line)
    for key in _REQUIRED_STR:
        if not isinstance(obj[key], str) or not obj[key].strip():
            raise BenchDataError(f"field {key!r} must be a non-empty string", path, line)
    if not isinstance(obj["evidence"], dict):
        raise BenchDataError("field 'evidence' must be an object with 'refs' and 'pages'", path, line)
    return obj


def load_qa_jsonl(qa_path: str | Path, docs_dir: str | Path) -> BenchDataset:
    """Load a QA JSONL file whose ``doc`` paths are relative to ``docs_dir`` (see the module docstring).

    Each document is loaded once; ``documents`` are in order of first mention. Raises :class:`BenchDataError`.
    """
    qa_path, docs_dir = Path(qa_path), Path(docs_dir)
    if not docs_dir.is_dir():
        raise BenchDataError(f"docs folder not found: {docs_dir}", qa_path)
    try:
        lines = qa_path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise BenchDataError("QA file not found", qa_path) from None
    except (OSError, UnicodeDecodeError) as e:
        raise BenchDataError(f"cannot read: {e}", qa_path) from None
    documents: dict[str, DoclingDocument] = {}
    questions: list[QAItem] = []
    seen: set[str] = set()
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        obj = _parse_line(text, qa_path, number)
        answers = _str_list(obj["answers"], "answers", qa_path, number, non_empty=True)
        evidence = obj["evidence"]
        refs = _str_list(evidence.get("refs", []), "evidence.refs", qa_path, number, non_empty=False)
        pages = evidence.get("pages", [])
        if not isinstance(pages, list) or not all(isinstance(p, int) and not isinstance(p, bool) for p in pages):
            raise BenchDataError("field 'evidence.pages' must be a list of integers", qa_path, number)
        required = _str_list(obj.get("required_texts", []), "required_texts", qa_path, number, non_empty=False)
        qid, doc_id = obj["id"], obj["doc"]
        if qid in seen:
            raise BenchDataError(f"duplicate id {qid!r}", qa_path, number)
        seen.add(qid)
        if doc_id not in documents:
            documents[doc_id] = _load_doc(docs_dir / doc_id, qa_path, number)
        for ref in refs:
            _check_ref(documents[doc_id], ref, qa_path, number)
        questions.append(
            QAItem(
                qid=qid,
                doc_id=doc_id,
                question=obj["question"].strip(),
                answers=answers,
                qtype=obj["type"],
                required_texts=required,
                evidence_refs=refs,
                evidence_pages=tuple(pages),
            )
        )
    if not questions:
        raise BenchDataError("no questions (empty QA file)", qa_path)
    stats = {"documents": len(documents), "questions": len(questions)}
    for q in questions:
        stats[f"questions_{q.qtype}"] = stats.get(f"questions_{q.qtype}", 0) + 1
    return BenchDataset(name=qa_path.stem, documents=documents, questions=questions, stats=stats)


def qa_item_to_json(item: QAItem) -> dict[str, Any]:
    """The JSONL object of one item (``doc`` is the item's ``doc_id``)."""
    obj: dict[str, Any] = {
        "id": item.qid,
        "doc": item.doc_id,
        "question": item.question,
        "answers": list(item.answers),
        "type": item.qtype,
        "evidence": {"refs": list(item.evidence_refs), "pages": list(item.evidence_pages)},
    }
    if item.required_texts:
        obj["required_texts"] = list(item.required_texts)
    return obj


def write_qa_jsonl(items: Iterable[QAItem], path: str | Path) -> int:
    """Write ``items`` as QA JSONL (``doc`` = ``doc_id``, so doc ids should be paths relative to the docs folder).

    The file appears complete or not at all (:func:`docling_evidence.cli.safe_write.open_output`). Returns the number
    of lines written.
    """
    lines = [json.dumps(qa_item_to_json(item), ensure_ascii=False) for item in items]
    write_text(path, "".join(line + "\n" for line in lines), parents=True)
    return len(lines)
