"""A sentence is delivered once: the same words shown by two retrieved chunks do not spend the budget twice."""

from __future__ import annotations

from typing import Any

from docling_core.transforms.chunker import DocChunk, DocMeta
from docling_core.types.doc import DocItemLabel, DoclingDocument

from docling_evidence import EvidenceChunker
from docling_evidence.pack.segments import said_words

REPEATED = (
    "Nature (London) 526, 207-211. Since the year 2000, a concerted campaign against malaria has led to unprecedented "
    "levels of intervention coverage across sub-Saharan Africa. Clinical cases of malaria fell by 40% between 2000 "
    "and 2015."
)
ANSWER = "Malaria is a devastating disease with over 214 million clinical cases in 2015."


def _text_chunks() -> list[Any]:
    """Three chunks of a document that prints one reference abstract twice (as publisher pages do) and a paragraph."""
    doc = DoclingDocument(name="repeats")
    items = [doc.add_text(label=DocItemLabel.TEXT, text=t) for t in (REPEATED, ANSWER, REPEATED)]
    return [DocChunk(text=item.text, meta=DocMeta(doc_items=[item])) for item in items]


def test_a_text_retrieved_twice_is_delivered_once_and_leaves_room_for_the_next() -> None:
    chunker = EvidenceChunker()
    first, answer, again = _text_chunks()
    one = chunker.tokenizer.count_tokens(REPEATED)
    # room for the abstract and the answer: not for the abstract's matching sentence a second time as well
    budget = one + chunker.tokenizer.count_tokens(ANSWER) + 4
    packed = chunker.pack("How many clinical cases of malaria were there in 2015?", [first, again, answer], budget)
    assert packed.tokens <= budget
    assert ANSWER in packed.text, "the budget the repeat would have taken goes to the next chunk"
    for sentence in ("Since the year 2000", "fell by 40%"):
        assert packed.text.count(sentence) == 1, sentence
    delivered = [s.text for b in packed.blocks for s in b.sentences]
    assert len(delivered) == len(set(delivered))


def test_without_repeats_every_ranked_text_is_delivered_when_it_fits() -> None:
    chunker = EvidenceChunker()
    first, answer, _ = _text_chunks()
    packed = chunker.pack("malaria", [first, answer], 10_000)
    assert REPEATED.split(". ")[1] in packed.text and ANSWER in packed.text
    assert [len(b.sentences) for b in packed.blocks] == [3, 1]


def test_a_sentence_shown_with_markup_and_plain_is_delivered_once() -> None:
    """A text chunk renders a paragraph with its link ("Table [4](#page-10-1) has ..."), a unit's context shows the
    same sentence as plain text ("Table 4 has ..."): one sentence, delivered once, and the room goes to the next."""
    rendered = "Table [4](#page-10-1) has the results for our *expert dropout* protocol, with <b>0.4</b> inside."
    plain = "Table 4 has the results for our expert dropout protocol, with 0.4 inside."
    assert (
        said_words(rendered)
        == said_words(plain)
        == "table 4 has the results for our expert dropout protocol with 0.4 inside"
    )
    assert said_words("Revenue was 1,496.5 in 2019.") != said_words("Revenue was 1,496.6 in 2019.")
    doc = DoclingDocument(name="markup")
    items = [doc.add_text(label=DocItemLabel.TEXT, text=t) for t in (rendered, plain, ANSWER)]
    chunks = [DocChunk(text=item.text, meta=DocMeta(doc_items=[item])) for item in items]
    chunker = EvidenceChunker()
    count = chunker.tokenizer.count_tokens
    budget = count(rendered) + count(ANSWER) + 4
    packed = chunker.pack("Which table has the expert dropout protocol results?", chunks, budget)
    assert packed.tokens <= budget
    assert "Table [4](#page-10-1) has" in packed.text and "Table 4 has" not in packed.text, "delivered once, as ranked"
    assert ANSWER in packed.text, "the room the repeat would have taken goes to the next chunk"
