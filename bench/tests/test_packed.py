"""pack@B: the key-sentence judging rule, the budget, one packer for both arms, the report and the CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from docling_core.types.doc import DocItemLabel, DoclingDocument
from docling_evidence_bench.arms import make_chunker
from docling_evidence_bench.cli import app
from docling_evidence_bench.dataset import BenchDataset, QAItem
from docling_evidence_bench.pack_report import packing_gain, paired_deltas, render_pack_report
from docling_evidence_bench.pack_run import PACK_SCHEMA, run_pack_benchmark
from docling_evidence_bench.packed import (
    CosineScorer,
    key_sentence,
    pack_flags,
    packed_hit,
    ranked_chunk_ids,
    retriever_input,
)
from docs_builder import add_table
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from docling_evidence import EvidenceChunker
from docling_evidence.text.sentences import sentence_spans

needs_packer = pytest.mark.skipif(not hasattr(EvidenceChunker, "pack"), reason="EvidenceChunker.pack is not there")

PARA = (
    "The company was founded in 1998 in Ohio. Revenue rose to 1,496.5 million on higher cloud subscriptions. "
    "Management expects growth to continue."
)


def _q(
    answers: tuple[str, ...] = ("1,496.5",), required: tuple[str, ...] = (PARA,), qtype: str = "table-text"
) -> QAItem:
    return QAItem("q", "d", "Why did revenue rise in 2019?", answers, qtype, required)


def test_key_sentence_is_the_sentence_sharing_most_words_with_question_and_answer() -> None:
    assert key_sentence(PARA, "Why did revenue rise in 2019?", ("1,496.5",)) == (
        "Revenue rose to 1,496.5 million on higher cloud subscriptions."
    )
    # nothing shared: the earliest sentence; one sentence: the paragraph itself
    assert key_sentence(PARA, "zzz", ()) == "The company was founded in 1998 in Ohio."
    assert key_sentence("Only one sentence here", "q", ()) == "Only one sentence here"


def test_a_paragraph_counts_by_its_key_sentence_not_by_another_sentence() -> None:
    q = _q()
    key = "Revenue rose to 1,496.5 million on higher cloud subscriptions."
    assert packed_hit(f"Cloud | 2019 = 1,496.5\n{key}", q)
    assert packed_hit(PARA, q)  # whole paragraph
    other = "The company was founded in 1998 in Ohio. Management expects growth to continue."
    assert not packed_hit(f"Cloud | 2019 = 1,496.5\n{other}", q)
    # the answers must be there whatever the paragraph gives
    no_answer = _q(answers=("2,001.0",))
    assert not packed_hit(PARA, no_answer)
    assert not packed_hit("anything", QAItem("q", "d", "?", (), "table"))


_sentence = st.text(alphabet="abcdefgh 0123456789", min_size=3, max_size=30).map(lambda s: s.strip() or "x")


@settings(max_examples=60, deadline=None)
@given(st.lists(_sentence, min_size=1, max_size=6), st.text(max_size=40))
def test_key_sentence_is_one_of_the_paragraphs_sentences_and_delivering_it_counts(
    sentences: list[str], question: str
) -> None:
    paragraph = " ".join(f"{s.capitalize()}." for s in sentences)
    key = key_sentence(paragraph, question, ())
    assert key in [paragraph[a:b] for a, b in sentence_spans(paragraph)]
    q = QAItem("q", "d", question, (), "text", (paragraph,))
    assert packed_hit(f"header line\n{key}\nother text", q)
    assert packed_hit(paragraph, q)


def test_ranked_chunk_ids_keeps_first_distinct_chunks_in_order() -> None:
    assert ranked_chunk_ids([4, 4, 1, 7, 1, 2], depth=3) == [4, 1, 7]


class _Packed:
    def __init__(self, text: str) -> None:
        self.text = text


def test_pack_flags_judges_each_budget_and_reports_the_tokens_it_took() -> None:
    calls: list[tuple[str, int, object]] = []

    def pack(query: str, ranked: list[Any], budget: int, *, scorer: object = None, pieces: object = None) -> _Packed:
        calls.append((query, budget, scorer))
        return _Packed(PARA if budget >= 512 else "Revenue rose.")

    scorer = lambda q, texts: [0.0] * len(texts)  # noqa: E731
    flags, tokens = pack_flags(pack, lambda t: len(t.split()), _q(), ["c1"], (256, 512), scorer)
    assert flags == [False, True]
    assert tokens == [2, len(PARA.split())]
    assert calls == [("Why did revenue rise in 2019?", 256, scorer), ("Why did revenue rise in 2019?", 512, scorer)]


class _CountingEmbedder:
    name, dim = "count", 2

    def __init__(self) -> None:
        self.passages: list[str] = []

    def encode_queries(self, texts: list[str]) -> Any:
        import numpy as np

        return np.array([[1.0, 0.0]] * len(texts), dtype=np.float32)

    def encode_passages(self, texts: list[str]) -> Any:
        import numpy as np

        self.passages += texts
        return np.array([[1.0, 0.0] if "rev" in t else [0.0, 1.0] for t in texts], dtype=np.float32)


def test_cosine_scorer_embeds_each_text_once() -> None:
    emb = _CountingEmbedder()
    scorer = CosineScorer(emb)
    assert scorer("q", ["rev a", "cost b", "rev a"]) == [1.0, 0.0, 1.0]
    assert scorer("q", ["cost b", "rev c"]) == [0.0, 1.0]
    assert emb.passages == ["rev a", "cost b", "rev c"]


def _report_doc() -> DoclingDocument:
    doc = DoclingDocument(name="r")
    doc.add_heading("Results of operations")
    doc.add_text(DocItemLabel.TEXT, "The following table shows revenue by year.")
    add_table(doc, [["", "2019", "2018"]], [["Revenue", "1,496.5", "1,202.9"], ["Costs", "44.1", "41.0"]])
    doc.add_text(DocItemLabel.TEXT, "Revenue rose on higher cloud subscriptions. Costs were flat.")
    doc.add_heading("Outlook")
    doc.add_text(DocItemLabel.TEXT, "We expect margins to widen next year. Hiring will slow down.")
    return doc


def _dataset() -> BenchDataset:
    questions = [
        QAItem("a", "r", "What was revenue in 2019?", ("1,496.5",), "table"),
        QAItem("b", "r", "What will happen to hiring?", ("Hiring will slow down",), "text"),
        QAItem("c", "r", "Why did revenue rise in 2019?", ("1,496.5",), "table-text",
               ("Revenue rose on higher cloud subscriptions. Costs were flat.",)),
    ]  # fmt: skip
    return BenchDataset("tiny", {"r": _report_doc()}, questions)


INPUTS = ("ranked", "ranked+units")
"""The inputs that hand the packer its own scorer unchanged (the retriever input adds the views' hints)."""


def test_both_arms_go_through_the_one_packer_with_the_same_scorer(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[int, str, int, object]] = []

    def pack(
        self: EvidenceChunker, query: str, ranked: Any, budget: int, *, scorer: object = None, pieces: object = None
    ) -> _Packed:
        seen.append((id(self), type(ranked[0]).__name__, budget, scorer))
        return _Packed("\n".join(c.text for c in ranked))

    monkeypatch.setattr(EvidenceChunker, "pack", pack, raising=False)
    results = run_pack_benchmark(
        _dataset(), max_tokens=256, methods=("bm25",), scorers=("lexical",), budgets=(64,), inputs=INPUTS
    )
    assert results["schema"] == PACK_SCHEMA
    assert len({s[0] for s in seen}) == 1  # one packer instance for every arm
    assert {s[1] for s in seen} == {"DocChunk", "EvidenceChunk"}  # HybridChunker's chunks and ours
    assert {s[3] for s in seen} == {None}  # the packer's default scorer for both
    kinds = [(r["arm"], r["kind"], r.get("ranking")) for r in results["runs"]]
    assert kinds == [
        *(("hybrid", "drop-in", "maxpool"), ("hybrid", "drop-in", "flat"), ("hybrid", "pack", None)),
        ("hybrid", "pack", None),
        *(("evidence", "drop-in", "maxpool"), ("evidence", "drop-in", "flat"), ("evidence", "pack", None)),
        ("evidence", "pack", None),
    ]
    assert [r["input"] for r in results["runs"] if r["kind"] == "pack"] == ["ranked", "ranked+units"] * 2
    assert all(len(f) == 3 for r in results["runs"] for f in r["measures"].values())


def test_the_retriever_input_pools_units_as_max_pool_retriever_does() -> None:
    # records: chunks 0-3 (0, 1 pieces of unit "u"; 2 of "v"; 3 of "w"), views 4 -> 1 (of "u") and 5 -> 2 (of "v")
    target = [0, 1, 2, 3, 1, 2]
    unit_of = ["u", "u", "v", "w", "u", "v"]
    texts = ["c0", "c1", "c2", "c3", "row of c1", "sentence of c2"]
    # ranking: the view of piece 1 first, then chunk 3, the view of 2, piece 0, chunk 2 itself
    chunks, hints = retriever_input([4, 3, 5, 0, 2], target, unit_of, texts, k=2)
    # two units: "u" (its best hit's chunk, then its other ranked piece), then "w"; "v" is the third unit
    assert chunks == [1, 0, 3]
    # every view among the fetched candidates hints, the better ranked weighing more
    assert set(hints) == {"row of c1", "sentence of c2"}
    assert hints["row of c1"] > hints["sentence of c2"]
    # only the first 5 * k vectors are fetched: a view below them gives no hint, its unit does not rank
    chunks, hints = retriever_input([3, 0, 2, 1, 0, 1, 3, 0, 1, 2, 3, 5], target, unit_of, texts, k=2)
    assert chunks == [3, 0, 1] and hints == {}


def test_for_chunks_without_units_the_retriever_input_is_the_first_distinct_chunks() -> None:
    # HybridChunker's records: every chunk its own unit, no view
    target = list(range(30))
    unit_of = [f"d:{i}" for i in range(30)]
    ranking = [7, 3, 12, 0, *range(13, 30)]
    chunks, hints = retriever_input(ranking, target, unit_of, [str(i) for i in target], k=10)
    assert chunks == ranked_chunk_ids(ranking, 10) and hints == {}


@needs_packer
def test_the_retriever_input_hands_the_packer_the_views_hints_and_the_units_pieces(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[tuple[str, object, object]] = []

    def pack(
        self: EvidenceChunker, query: str, ranked: Any, budget: int, *, scorer: object = None, pieces: object = None
    ) -> _Packed:
        seen.append((type(ranked[0]).__name__, scorer, pieces))
        return _Packed("\n".join(c.text for c in ranked))

    monkeypatch.setattr(EvidenceChunker, "pack", pack, raising=False)
    results = run_pack_benchmark(
        _dataset(), max_tokens=256, methods=("bm25",), scorers=("lexical",), budgets=(64,), inputs=("retriever",)
    )
    assert [r["input"] for r in results["runs"] if r["kind"] == "pack"] == ["retriever"] * 2
    ours = [s for s in seen if s[0] == "EvidenceChunk"]
    assert ours and all(callable(scorer) and pieces for _, scorer, pieces in ours)  # hinted, with the unit pieces
    assert all(scorer is None and pieces for kind, scorer, pieces in seen if kind == "DocChunk")  # no view, no hint


@needs_packer
@settings(max_examples=20, deadline=None)
@given(st.integers(min_value=1, max_value=300), st.booleans())
def test_real_packer_never_exceeds_the_budget_for_either_arm(budget: int, hybrid: bool) -> None:
    doc = _report_doc()
    chunks = list(make_chunker("hybrid" if hybrid else "evidence", 256).chunk(doc))
    packer = make_chunker("evidence", 256)
    q = _dataset().questions[2]
    _, tokens = pack_flags(packer.pack, packer.tokenizer.count_tokens, q, chunks[::-1], (budget,))  # type: ignore[attr-defined]
    assert tokens[0] <= budget


@needs_packer
def test_real_packer_delivers_the_answer_row_and_key_sentence_at_a_small_budget() -> None:
    results = run_pack_benchmark(_dataset(), max_tokens=256, methods=("bm25",), scorers=("lexical",), budgets=(128,))
    for run in results["runs"]:
        if run["kind"] == "pack":
            assert run["over_budget"] == {"pack@128": 0}
            assert run["measures"]["pack@128"][0] == "1", run  # the revenue row


def _results(ours: str, control: str) -> dict[str, Any]:
    qs = [{"qid": str(i), "doc_id": f"d{i % 2}", "qtype": "table" if i < 2 else "text"} for i in range(len(ours))]
    run = {"method": "bm25", "kind": "pack", "scorer": "lexical", "tokens": {"pack@256": [1] * len(ours)},
           "over_budget": {"pack@256": 0}, "seconds": 1.0}  # fmt: skip
    return {
        "schema": PACK_SCHEMA,
        "seed": 0,
        "command": ["x"],
        "config": {"baseline": "hybrid", "max_tokens": 256, "embedder": None, "depth": 10, "budgets": [256]},
        "dataset": {"name": "t", "n_questions": len(ours), "n_documents": 2},
        "questions": qs,
        "runs": [
            {"arm": "hybrid", **run, "measures": {"pack@256": control}},
            {"arm": "evidence", **run, "measures": {"pack@256": ours}},
        ],
    }


def test_report_states_where_ours_loses() -> None:
    results = _results("1100", "1111")
    deltas = {(d["subset"], d["measure"]): d for d in paired_deltas(results, n_resamples=200)}
    assert deltas[("all", "pack@256")]["ci"]["diff"] == pytest.approx(-0.5)
    assert deltas[("table", "pack@256")]["ci"]["diff"] == 0.0
    report = render_pack_report({256: results}, n_resamples=200)
    losses = report.split("### Where we lose", 1)[1]
    assert "`evidence`, bm25, packed, lexical scorer, text (n=2), pack@256: 0.0 vs 100.0" in losses
    assert "table (n=2)" not in losses
    assert "Ours is not below the control" in render_pack_report({256: _results("1111", "1111")}, n_resamples=50)


def test_each_drop_in_ranking_is_compared_with_the_control_on_the_same_ranking() -> None:
    results = _results("1111", "1111")
    drop = {"method": "bm25", "kind": "drop-in", "scorer": None}
    results["runs"] += [
        {"arm": "hybrid", **drop, "ranking": "maxpool", "measures": {"ok@256": "1111"}},
        {"arm": "hybrid", **drop, "ranking": "flat", "measures": {"ok@256": "0000"}},
        {"arm": "evidence", **drop, "ranking": "maxpool", "measures": {"ok@256": "1000"}},
        {"arm": "evidence", **drop, "ranking": "flat", "measures": {"ok@256": "1100"}},
    ]
    deltas = {(d["how"], d["subset"]): d["ci"]["diff"] for d in paired_deltas(results, n_resamples=50)}
    assert deltas[("drop-in, max-pool ranking", "all")] == pytest.approx(-0.75)
    assert deltas[("drop-in, flat ranking", "all")] == pytest.approx(0.5)
    # packed - drop-in is against the max-pool units (the packer's own delivery): +75 points for ours, 0 for hybrid
    gains = {row[2]: row[3] for row in packing_gain(results, n_resamples=50)}
    assert gains["`evidence`"].startswith("+75.0") and gains["`hybrid`"].startswith("+0.0")
    report = render_pack_report({256: results}, n_resamples=50)
    assert "drop-in, flat ranking" in report and "drop-in, max-pool ranking" in report


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--scorers", "lexical,bm42"], "'bm42'"),
        (["--inputs", "ranked,everything"], "'everything'"),
        (["--arms", "evidence"], "control"),
        (["--limits", "0"], "--limits"),
    ],
)
def test_cli_pack_rejects_bad_options_in_one_line(tmp_path: Path, args: list[str], needle: str) -> None:
    qa = tmp_path / "qa.jsonl"
    qa.write_text(json.dumps({"id": "a"}) + "\n")
    res = CliRunner().invoke(app, ["pack", "--qa", str(qa), "--docs", str(tmp_path), *args, "-o", str(tmp_path / "o")])
    assert res.exit_code == 2
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:") and needle in lines[0], res.output
    assert not (tmp_path / "o").exists()
