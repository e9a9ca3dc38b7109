"""EvidenceDocSerializer answers get_excluded_refs() from its own record: always what docling-core answers."""

from __future__ import annotations

from docling_core.transforms.chunker.hierarchical_chunker import ChunkingDocSerializer
from docling_core.transforms.serializer.markdown import MarkdownParams
from docling_core.types.doc import ContentLayer, DocItemLabel
from docs_builder import add_table, paged_doc, prov

from docling_evidence.tables.serializer import EvidenceDocSerializer, EvidenceSerializerProvider


def _doc():
    doc = paged_doc(2)
    doc.add_text(label=DocItemLabel.TEXT, text="on page one", prov=prov(1, 50, 60, 300, 70))
    doc.add_text(label=DocItemLabel.TEXT, text="on page two", prov=prov(2, 50, 60, 300, 70))
    doc.add_text(label=DocItemLabel.PAGE_HEADER, text="header", prov=prov(2, 50, 10, 300, 20))
    add_table(
        doc, [["Year", "Revenue"]], [["2019", "10"]], caption="Table 1: Revenue", provs=[prov(2, 50, 100, 300, 200)]
    )
    return doc


def _docling_core(ser: EvidenceDocSerializer, **kwargs) -> set[str]:
    return ChunkingDocSerializer(
        doc=ser.doc, table_serializer=ser.table_serializer, params=ser.params
    ).get_excluded_refs(**kwargs)


def test_excluded_refs_follow_the_parameters() -> None:
    provider = EvidenceSerializerProvider(params=MarkdownParams(escape_underscores=False, escape_html=False))
    doc = _doc()
    ser = provider.get_serializer(doc=doc)
    assert isinstance(ser, EvidenceDocSerializer)
    assert ser.get_excluded_refs() == _docling_core(ser) == set()
    assert ser.get_excluded_refs(pages={1}) == _docling_core(ser, pages={1}) != set()
    ser.params.pages = {2}  # reassigned: the record is not reused
    assert ser.get_excluded_refs() == _docling_core(ser)
    assert doc.texts[0].self_ref in ser.get_excluded_refs() and doc.texts[1].self_ref not in ser.get_excluded_refs()
    ser.params = ser.params.model_copy(update={"pages": None, "layers": {ContentLayer.FURNITURE}})
    assert ser.get_excluded_refs() == _docling_core(ser) == {doc.tables[0].self_ref}  # the body table's layer


def test_a_patch_restating_the_parameters_is_answered_as_no_patch() -> None:
    doc = _doc()
    ser = EvidenceSerializerProvider().get_serializer(doc=doc)
    restated = {**ser.params.model_dump(), "delim": "\n", "visited": set()}  # as a list serializer passes it on
    assert ser.get_excluded_refs(**restated) is ser.get_excluded_refs()
    assert ser.get_excluded_refs(**restated) == _docling_core(ser, **restated)
    other_pages = {**restated, "pages": {1}}  # a real patch: docling-core's answer for it
    assert ser.get_excluded_refs(**other_pages) == _docling_core(ser, **other_pages) != ser.get_excluded_refs()
