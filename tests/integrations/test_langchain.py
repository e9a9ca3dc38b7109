"""LangChain: DoclingLoader with EvidenceChunker, flat metadata, embedding text, and the max-pool retriever."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from docling_core.types.doc import DocItemLabel
from docs_builder import add_table, paged_doc, prov

pytest.importorskip("langchain_core")

from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.vectorstores import InMemoryVectorStore

from docling_evidence.integrations.langchain import (
    FLAT_FIELDS,
    MaxPoolRetriever,
    evidence_ids,
    flatten_evidence_metadata,
)


class HashEmbeddings(Embeddings):
    """LangChain wrapper of the test hashing embedding; records every text it embeds."""

    def __init__(self, embed: Callable[[str], list[float]]) -> None:
        self.embed = embed
        self.documents: list[str] = []

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.documents.extend(texts)
        return [self.embed(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self.embed(text)


def chunk_documents(chunker: Any, dl_doc: Any, source: str = "fleet.json") -> list[Document]:
    """What DoclingLoader yields for ``dl_doc`` (its default MetaExtractor), built without a converter."""
    return [
        Document(
            page_content=chunker.contextualize(chunk),
            metadata={"source": source, "dl_meta": chunk.meta.export_json_dict()},
        )
        for chunk in chunker.chunk(dl_doc)
    ]


def store_of(docs: Sequence[Document], embed: Callable[[str], list[float]], with_ids: bool = True) -> Any:
    store = InMemoryVectorStore(HashEmbeddings(embed))
    store.add_documents(list(docs), ids=evidence_ids(docs) if with_ids else None)
    return store


QUERY = "which vessel has a Panama flag and what tonnage"


# ---------------------------------------------------------------------------------------------------------------------
# The loader, end to end


def _loader(path: Path, chunker: Any, converter: Any) -> Any:
    pytest.importorskip("langchain_docling")
    from langchain_docling import DoclingLoader
    from langchain_docling.loader import ExportType

    from docling_evidence.integrations.langchain import EvidenceMetaExtractor

    return DoclingLoader(
        file_path=str(path),
        converter=converter,
        chunker=chunker,
        export_type=ExportType.DOC_CHUNKS,
        meta_extractor=EvidenceMetaExtractor(),
    )


def _check_loaded(docs: list[Document], chunker: Any, dl_doc: Any, source: str) -> None:
    chunks = list(chunker.chunk(dl_doc))
    assert len(docs) == len(chunks) > 0
    for doc, chunk in zip(docs, chunks, strict=True):
        # The text LangChain embeds is page_content: it must be contextualize(chunk).
        assert doc.page_content == chunker.contextualize(chunk)
        meta = doc.metadata
        assert meta["source"] == source
        assert meta["dl_meta"]["unit_id"] == chunk.meta.unit_id
        assert {key: meta[key] for key in FLAT_FIELDS} == {
            "page_span": chunk.meta.page_span,
            "table_pages": chunk.meta.table_pages,
            "unit_id": chunk.meta.unit_id,
            "kind": chunk.meta.kind,
            "part": chunk.meta.part,
            "parts": chunk.meta.parts,
        }
        assert meta.get("caption") == chunk.meta.caption


def test_loader_on_html_converted_offline(example_html: Path, converter: Any) -> None:
    from docling_evidence import EvidenceChunker

    chunker = EvidenceChunker()
    docs = _loader(example_html, chunker, converter).load()
    dl_doc = converter.convert(str(example_html)).document
    _check_loaded(docs, chunker, dl_doc, str(example_html))
    assert any(d.metadata["parts"] > 1 for d in docs), "the example's vessel register should be split"


def test_loader_on_real_fixture_json(fixture_json: Path, converter: Any) -> None:
    from docling_core.types.doc import DoclingDocument

    from docling_evidence import EvidenceChunker

    chunker = EvidenceChunker()
    docs = _loader(fixture_json, chunker, converter).load()
    # Docling's JSON backend must give back the same document as loading the JSON directly.
    _check_loaded(docs, chunker, DoclingDocument.load_from_json(fixture_json), str(fixture_json))
    tables = [d for d in docs if d.metadata["kind"] == "table"]
    assert tables and all(d.metadata["page_span"] for d in tables), "real PDF output has pages"


def test_vector_store_embeds_contextualized_text(fleet_doc: Any, chunker: Any, embed: Any) -> None:
    docs = flatten_evidence_metadata(chunk_documents(chunker, fleet_doc))
    store = store_of(docs, embed)
    assert store.embedding.documents == [chunker.contextualize(c) for c in chunker.chunk(fleet_doc)]


# ---------------------------------------------------------------------------------------------------------------------
# Metadata helpers


def test_flatten_copies_fields_and_leaves_input_alone(fleet_doc: Any, chunker: Any) -> None:
    raw = chunk_documents(chunker, fleet_doc)
    flat = flatten_evidence_metadata(raw)
    assert all("unit_id" not in d.metadata for d in raw)
    for before, after in zip(raw, flat, strict=True):
        assert after.metadata["dl_meta"] == before.metadata["dl_meta"]
        for key in FLAT_FIELDS:
            assert after.metadata[key] == before.metadata["dl_meta"][key]
    # the fleet document has no pages: page numbers are checked on one that has
    paged = paged_doc(2)
    paged.add_text(label=DocItemLabel.TEXT, text="Table 1 lists the fleet.", prov=prov(1, 50, 700, 300, 780))
    add_table(paged, [["Vessel", "Tonnage"]], [["Aurora", "1444"]], provs=[prov(2, 50, 40, 300, 200)])
    spans = [d.metadata["page_span"] for d in flatten_evidence_metadata(chunk_documents(chunker, paged))]
    assert [1, 2] in spans and all(spans), spans
    assert all(type(p) is int for span in spans for p in span)


def test_flatten_passes_foreign_documents_and_rejects_non_documents() -> None:
    foreign = Document(page_content="x", metadata={"source": "s", "dl_meta": {"headings": ["h"]}})
    assert flatten_evidence_metadata([foreign])[0].metadata == foreign.metadata
    with pytest.raises(TypeError, match="Document"):
        flatten_evidence_metadata(["not a document"])  # type: ignore[list-item]


def test_evidence_ids_are_stable_and_unique(fleet_doc: Any, chunker: Any) -> None:
    docs = chunk_documents(chunker, fleet_doc)
    ids = evidence_ids(docs)
    assert len(set(ids)) == len(ids)
    assert ids == evidence_ids(chunk_documents(chunker, fleet_doc))
    assert evidence_ids(chunk_documents(chunker, fleet_doc, source="other.json")) != ids
    with pytest.raises(ValueError, match="duplicate"):
        evidence_ids([*docs, docs[0]])


# ---------------------------------------------------------------------------------------------------------------------
# MaxPoolRetriever


def test_max_pool_returns_k_distinct_units_where_flat_ranking_repeats(fleet_doc: Any, chunker: Any, embed: Any) -> None:
    docs = flatten_evidence_metadata(chunk_documents(chunker, fleet_doc))
    store = store_of(docs, embed)
    k, fetch_k = 4, 20
    flat = store.similarity_search_with_score(QUERY, k=fetch_k)
    flat_units = [d.metadata["unit_id"] for d, _ in flat]
    assert len(set(flat_units[:k])) < k, "the register's pieces should crowd the flat top-k"

    hits = MaxPoolRetriever(vectorstore=store, k=k, fetch_k=fetch_k).invoke(QUERY)
    units = [d.metadata["unit_id"] for d in hits]
    assert len(hits) == k and len(set(units)) == k
    # The units are the first k distinct units of the flat ranking, each at its best piece's score.
    assert units == list(dict.fromkeys(flat_units))[:k]
    best = {}
    for doc, score in flat:
        best.setdefault(doc.metadata["unit_id"], (doc.page_content, score))
    assert [(d.page_content, d.metadata["score"]) for d in hits] == [best[u] for u in units]


def test_reassemble_returns_whole_units_using_ids(fleet_doc: Any, chunker: Any, embed: Any) -> None:
    docs = flatten_evidence_metadata(chunk_documents(chunker, fleet_doc))
    register = [d for d in docs if d.metadata["parts"] > 1]
    store = store_of(docs, embed)
    fetch_k = 3
    candidates = store.similarity_search(QUERY, k=fetch_k)
    n_found = sum(d.metadata["unit_id"] == register[0].metadata["unit_id"] for d in candidates)
    assert 0 < n_found < len(register), "some pieces must be missing from the candidates (then fetched by id)"
    hits = MaxPoolRetriever(vectorstore=store, k=1, fetch_k=fetch_k, reassemble=True).invoke(QUERY)
    whole = hits[0]
    assert whole.metadata["unit_id"] == register[0].metadata["unit_id"]
    assert whole.metadata["parts_found"] == list(range(len(register)))
    for n in range(60):
        assert whole.page_content.count(f"| Vessel {n} |") == 1
    assert whole.page_content.count("Table 9: Vessel register") == 1
    assert whole.page_content.startswith(register[0].page_content)
    # docling's metadata describes the whole unit, not the piece that ranked: all rows, every piece's items
    dl_meta = whole.metadata["dl_meta"]
    pieces = [d.metadata["dl_meta"] for d in register]
    assert dl_meta["rows"] == [min(m["rows"][0] for m in pieces), max(m["rows"][1] for m in pieces)]
    refs = [it["self_ref"] for it in dl_meta["doc_items"]]
    assert len(refs) == len(set(refs)) and set(refs) == {it["self_ref"] for m in pieces for it in m["doc_items"]}
    assert dl_meta["part"] == 0


@pytest.mark.parametrize("piece_order", ["best_first", "reading"])
def test_reassemble_starts_with_the_piece_that_ranked(
    piece_order: str, fleet_doc: Any, chunker: Any, embed: Any
) -> None:
    docs = flatten_evidence_metadata(chunk_documents(chunker, fleet_doc))
    store = store_of(docs, embed)
    query = "Vessel 52"
    top = store.similarity_search(query, k=1)[0]
    assert top.metadata["part"] > 0, "the query must rank a later piece of the register first"
    whole = MaxPoolRetriever(vectorstore=store, k=1, fetch_k=3, reassemble=True, piece_order=piece_order).invoke(query)[
        0
    ]
    parts = list(range(top.metadata["parts"]))
    for n in range(60):
        assert whole.page_content.count(f"| Vessel {n} |") == 1
    if piece_order == "best_first":
        lead = top.metadata["part"]
        assert whole.metadata["parts_found"] == [lead, *(p for p in parts if p != lead)]
        assert whole.page_content.startswith(top.page_content)
    else:
        assert whole.metadata["parts_found"] == parts
        assert not whole.page_content.startswith(top.page_content)


def test_reassemble_leaves_single_piece_units_as_they_are(fleet_doc: Any, chunker: Any, embed: Any) -> None:
    docs = flatten_evidence_metadata(chunk_documents(chunker, fleet_doc))
    store = store_of(docs, embed)
    hits = MaxPoolRetriever(vectorstore=store, k=3, fetch_k=20, reassemble=True).invoke("crew captain engineer rank")
    by_unit = {d.metadata["unit_id"]: d for d in docs}
    singles = [hit for hit in hits if by_unit[hit.metadata["unit_id"]].metadata["parts"] == 1]
    assert singles, "the crew table and text chunks are single-piece units"
    for hit in singles:
        assert hit.page_content == by_unit[hit.metadata["unit_id"]].page_content
        assert hit.metadata["parts_found"] == [0]


def test_reassemble_without_ids_uses_the_candidates_found(fleet_doc: Any, chunker: Any, embed: Any) -> None:
    docs = flatten_evidence_metadata(chunk_documents(chunker, fleet_doc))
    store = store_of(docs, embed, with_ids=False)
    hits = MaxPoolRetriever(vectorstore=store, k=1, fetch_k=3, reassemble=True).invoke(QUERY)
    found = hits[0].metadata["parts_found"]
    assert found[1:] == sorted(found[1:]) and 1 <= len(found) <= 3  # the best piece first, the others in order


def test_unflattened_documents_pool_by_dl_meta(fleet_doc: Any, chunker: Any, embed: Any) -> None:
    store = store_of(chunk_documents(chunker, fleet_doc), embed)
    hits = MaxPoolRetriever(vectorstore=store, k=4, fetch_k=20).invoke(QUERY)
    units = [d.metadata["dl_meta"]["unit_id"] for d in hits]
    assert len(set(units)) == 4


def test_documents_without_unit_id_warn_once(embed: Any) -> None:
    docs = [Document(page_content=f"vessel {i} Panama flag") for i in range(6)]
    store = InMemoryVectorStore(HashEmbeddings(embed))
    store.add_documents(docs)
    retriever = MaxPoolRetriever(vectorstore=store, k=3, fetch_k=6)
    with pytest.warns(UserWarning, match="unit_id") as record:
        first = retriever.invoke("vessel Panama")
    assert len(record) == 1
    assert len(first) == 3 and len({d.page_content for d in first}) == 3
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert len(retriever.invoke("vessel Panama")) == 3


def test_search_kwargs_reach_the_store(fleet_doc: Any, chunker: Any, embed: Any) -> None:
    store = store_of(flatten_evidence_metadata(chunk_documents(chunker, fleet_doc)), embed)
    retriever = MaxPoolRetriever(
        vectorstore=store, k=2, fetch_k=10, search_kwargs={"filter": lambda d: d.metadata["kind"] == "text"}
    )
    assert {d.metadata["kind"] for d in retriever.invoke(QUERY)} == {"text"}


@pytest.mark.parametrize(("k", "fetch_k"), [(0, 20), (-2, 20), (5, 4)])
def test_bad_k_raises_value_error(k: int, fetch_k: int, embed: Any) -> None:
    store = InMemoryVectorStore(HashEmbeddings(embed))
    with pytest.raises(ValueError, match="k"):
        MaxPoolRetriever(vectorstore=store, k=k, fetch_k=fetch_k)


# ---------------------------------------------------------------------------------------------------------------------
# Row views


def _view_store(fleet_doc: Any, chunker: Any, embed: Any) -> tuple[Any, list[Document], list[Document]]:
    from docling_evidence.integrations.langchain import view_documents

    docs = flatten_evidence_metadata(chunk_documents(chunker, fleet_doc))
    views = view_documents(docs, chunker)
    store = InMemoryVectorStore(HashEmbeddings(embed))
    store.add_documents(docs, ids=evidence_ids(docs))
    store.add_documents(views, ids=evidence_ids(views))
    return store, docs, views


def test_view_documents_point_to_their_piece(fleet_doc: Any, chunker: Any, embed: Any) -> None:
    from docling_evidence.integrations.langchain import VIEW_OF_KEY, piece_id

    _, docs, views = _view_store(fleet_doc, chunker, embed)
    chunks = list(chunker.chunk(fleet_doc))
    assert [v.page_content for v in views] == [t for c in chunks for t in chunker.contextualize_views(c)]
    assert len(views) == 65  # 60 register rows, 2 crew rows, the register's context sentence, 2 captions
    pieces = {piece_id(d.metadata): d for d in docs}
    for view in views:
        piece = pieces[view.metadata[VIEW_OF_KEY]]
        assert view.metadata["unit_id"] == piece.metadata["unit_id"] and "dl_meta" not in view.metadata
        last = view.page_content.split("\n")[-1]
        if last.startswith("Table "):  # a caption view: the piece the table starts in
            assert last in piece.page_content and piece.metadata["part"] == min(
                d.metadata["part"] for d in docs if d.metadata["unit_id"] == piece.metadata["unit_id"]
            )
        elif ": " in last:  # "Vessel 7: Flag = ..." names a row of the piece
            assert f"| {last.split(':')[0]} |" in piece.page_content
        else:  # a sentence the piece shows
            assert last in piece.page_content
    assert len(set(evidence_ids(views))) == len(views)


def test_a_row_view_that_ranks_returns_its_piece(fleet_doc: Any, chunker: Any, embed: Any) -> None:
    store, _docs, views = _view_store(fleet_doc, chunker, embed)
    view = next(v for v in views if v.page_content.endswith("Tonnage = 1444 tonnes"))  # Vessel 12
    hits = MaxPoolRetriever(vectorstore=store, k=3, fetch_k=30).invoke(view.page_content)
    assert hits[0].metadata["unit_id"] == view.metadata["unit_id"]
    assert "| Vessel 12 |" in hits[0].page_content and "view" not in hits[0].metadata  # the piece, not the view
    assert len({h.metadata["unit_id"] for h in hits}) == len(hits)
    whole = MaxPoolRetriever(vectorstore=store, k=1, fetch_k=30, reassemble=True).invoke(view.page_content)[0]
    assert all(f"| Vessel {i} |" in whole.page_content for i in range(60))


def test_a_reassembled_unit_starts_with_the_view_that_matched(fleet_doc: Any, chunker: Any, embed: Any) -> None:
    store, _docs, views = _view_store(fleet_doc, chunker, embed)
    view = next(v for v in views if v.page_content.endswith("Tonnage = 1444 tonnes"))  # Vessel 12

    def whole(**order: str) -> Document:
        retriever = MaxPoolRetriever(vectorstore=store, k=1, fetch_k=30, reassemble=True, **order)
        return retriever.invoke(view.page_content)[0]

    matched = whole()  # the default: what matched first
    assert matched.page_content.startswith(view.page_content)  # the matched row, under its caption, comes first
    assert matched.metadata["matched_view"] == view.page_content
    assert matched.page_content.count("Table 9: Vessel register with flag and tonnage") == 1
    piece_first = whole(piece_order="best_first")
    assert piece_first.metadata["matched_view"] == view.page_content  # what matched is said in every order
    assert "Tonnage = 1444" not in piece_first.page_content  # but only match_first shows it
    # the view's row line is the only addition: the unit is the same text after it
    frame = len(view.page_content.splitlines()) - 1  # headings and caption, above the row
    assert matched.page_content == view.page_content + "\n" + piece_first.page_content.split("\n", frame)[frame]
    assert not whole(piece_order="reading").page_content.startswith(view.page_content)
    # not re-assembled: the piece as stored, and the view that found it in the metadata
    piece = MaxPoolRetriever(vectorstore=store, k=1, fetch_k=30).invoke(view.page_content)[0]
    assert piece.metadata["matched_view"] == view.page_content and "Tonnage = 1444" not in piece.page_content


def test_a_sentence_view_that_ranks_leads_its_text_chunk(embed: Any) -> None:
    from docling_core.types.doc import DocItemLabel, DoclingDocument

    from docling_evidence import EvidenceChunker
    from docling_evidence.integrations.langchain import view_documents
    from docling_evidence.tokenizer import bundled_tokenizer

    doc = DoclingDocument(name="outlook")
    doc.add_heading("Outlook")
    doc.add_text(DocItemLabel.TEXT, "We expect growth next year. Hiring continues in Asia and Europe.")
    chunker = EvidenceChunker(tokenizer=bundled_tokenizer(256))
    docs = flatten_evidence_metadata(chunk_documents(chunker, doc))
    views = view_documents(docs, chunker)
    store = store_of(docs, embed)
    store.add_documents(views, ids=evidence_ids(views))
    hit = MaxPoolRetriever(vectorstore=store, k=1, fetch_k=5, reassemble=True).invoke(views[1].page_content)[0]
    assert hit.metadata["matched_view"] == "Outlook\nHiring continues in Asia and Europe."
    body = docs[0].page_content.split("\n", 1)[1]  # the chunk without its heading, which the view shows
    assert hit.page_content == f"Outlook\nHiring continues in Asia and Europe.\n{body}"


def test_row_views_need_the_pieces_in_the_store(fleet_doc: Any, chunker: Any, embed: Any) -> None:
    from docling_evidence.integrations.langchain import view_documents

    views = view_documents(flatten_evidence_metadata(chunk_documents(chunker, fleet_doc)), chunker)
    store = InMemoryVectorStore(HashEmbeddings(embed))
    store.add_documents(views, ids=evidence_ids(views))
    with pytest.raises(ValueError, match="evidence_ids"):
        MaxPoolRetriever(vectorstore=store, k=2).invoke("Vessel 3 Panama")
    with pytest.raises(TypeError, match="Document"):
        view_documents(["not a document"])
