"""The rows' second hop: a question that names its row only through what a paragraph says of it gets that row."""

from __future__ import annotations

from docling_core.types.doc import DocItemLabel, DoclingDocument
from docs_builder import add_table

from docling_evidence import EvidenceChunker, EvidenceParams
from docling_evidence.pack.packer import _Cand, bridged_scores
from docling_evidence.pack.params import PackParams
from docling_evidence.pack.segments import Row, Sentence

SPLITS = ["Upscale", "Maximal", "Minimal", "Original", "Downscale", "Balanced"]
QUESTION = "What error does the network get on the split whose training set holds only ten images?"


def _paper() -> DoclingDocument:
    doc = DoclingDocument(name="paper")
    doc.add_text(label=DocItemLabel.TEXT, text="We evaluate on six splits of the crowd data. " * 3)
    doc.add_text(
        label=DocItemLabel.TEXT,
        text="The Minimal split is particularly challenging, as its training set holds only ten images. "
        "The other splits are larger.",
    )
    add_table(
        doc,
        [["Split", "MAE", "MSE"]],
        [[name, f"{1.1 + k / 10:.2f}", f"{2.2 + k / 10:.2f}"] for k, name in enumerate(SPLITS)],
        caption="Table 2: Mean absolute error on the splits.",
    )
    return doc


def test_the_row_a_matching_sentence_names_is_packed_though_the_query_does_not_name_it() -> None:
    chunker = EvidenceChunker()
    chunks = list(chunker.chunk(_paper()))
    # room for the caption, the sentence, the header and one row: every row matches the query's "split" alike, and
    # the table's first row would take that room without the second hop
    one_row = "\n\n".join(
        [
            "Table 2: Mean absolute error on the splits.",
            "| Split | MAE | MSE |\n|---|---|---|\n| Minimal | 1.30 | 2.40 |",
            "The Minimal split is particularly challenging, as its training set holds only ten images.",
        ]
    )
    budget = chunker.tokenizer.count_tokens(one_row) + 2
    packed = chunker.pack(QUESTION, chunks, budget)
    rows = [r.label for b in packed.blocks for r in b.rows]
    assert rows == ["Minimal"], packed.text
    assert packed.tokens <= budget
    # the chunker's params reach the packer: with the second hop turned off the table's first row takes that room
    no_hop = EvidenceChunker(params=EvidenceParams(pack=PackParams(bridge_sentences=0)))
    packed = no_hop.pack(QUESTION, list(no_hop.chunk(_paper())), budget)
    assert [r.label for b in packed.blocks for r in b.rows] == ["Upscale"], packed.text


def _row(label: str) -> Row:
    return Row(f"| {label} | 1.0 |", label, None, ("| Split | MAE |", "|---|---|"), "markdown", (label,))


def test_bridged_scores_lift_the_named_row_below_the_best_match_and_change_nothing_else() -> None:
    sentence = Sentence("Minimal is particularly challenging.", "text", "#/texts/1", (0, 0), 0, (0, 36))
    cands = [
        _Cand(0, "sentence", sentence, 0),
        _Cand(1, "row", _row("Upscale"), 0),
        _Cand(1, "row", _row("Minimal"), 1),
        _Cand(1, "row", _row("Maximal"), 2),
    ]
    texts = [sentence.text, *(c.item.score_text() for c in cands[1:])]
    params = PackParams()
    scores = bridged_scores(cands, [4.0, 0.0, 0.0, 0.0], texts, params)
    assert scores[0] == 4.0 and scores[1] == scores[3] == 0.0
    assert scores[2] == params.bridge_weight * 4.0  # the best bridged row: bridge_weight x the best score
    assert bridged_scores(cands, [4.0, 0.0, 0.0, 0.0], texts, PackParams(bridge_weight=0.25))[2] == 1.0
    # the second hop turned off, no sentence that scores, no row sharing a word with the best sentences: no change
    assert bridged_scores(cands, [4.0, 0.0, 0.0, 0.0], texts, PackParams(bridge_sentences=0)) == [4.0, 0.0, 0.0, 0.0]
    assert bridged_scores(cands, [0.0, 1.0, 0.0, 0.0], texts, params) == [0.0, 1.0, 0.0, 0.0]
    other = [_Cand(0, "sentence", Sentence("Nothing here.", "text", "#/texts/2", (1, 0), 0, (0, 13)), 0), *cands[1:]]
    assert bridged_scores(other, [4.0, 1.0, 0.0, 0.0], ["Nothing here.", *texts[1:]], params) == [4.0, 1.0, 0.0, 0.0]
