"""Candidate search for captions and context looks at a bounded number of items per table: the work grows
linearly with the number of tables on one page or in one section (counted calls, not time)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from docling_core.types.doc import DocItemLabel, DoclingDocument
from docs_builder import add_table, paged_doc, prov, table_data

from docling_evidence.assemble.units import ContextBudget, UnitRequest, build_units
from docling_evidence.context import candidates, choose
from docling_evidence.document.index import build_index
from docling_evidence.units import captions


def _one_page(n: int) -> DoclingDocument:
    doc = paged_doc(1, height=100_000)
    for k in range(n):
        y = 40 + k * 60
        doc.add_text(label=DocItemLabel.TEXT, text=f"As Table {k + 1} shows, revenue rose to {k + 10}.",
                     prov=prov(1, 50, y, 290, y + 10))  # fmt: skip
        add_table(doc, [["Year", "Revenue"]], [["2020", str(k + 10)]], caption=f"Table {k + 1}: Revenue",
                  caption_prov=prov(1, 50, y + 12, 290, y + 18), provs=[prov(1, 50, y + 20, 290, y + 50)])  # fmt: skip
    return doc


def _one_section(n: int) -> DoclingDocument:
    doc = DoclingDocument(name="d")
    doc.add_heading(text="All")
    for k in range(n):
        doc.add_text(label=DocItemLabel.TEXT, text=f"Revenue rose to {k + 10} in 2020.")
        doc.add_table(data=table_data([["Year", "Revenue"]], [["2020", str(k + 10)]]))
    return doc


def _calls(make: Callable[[int], DoclingDocument], n: int, monkeypatch: pytest.MonkeyPatch) -> int:
    counter = {"n": 0}

    def counted(fn: Callable) -> Callable:
        def wrapper(*args: object, **kwargs: object) -> object:
            counter["n"] += 1
            return fn(*args, **kwargs)

        return wrapper

    with monkeypatch.context() as m:
        m.setattr(candidates, "nearest_gap", counted(candidates.nearest_gap))
        m.setattr(captions, "nearest_gap", counted(captions.nearest_gap))
        m.setattr(choose, "relevant_sentences", counted(choose.relevant_sentences))
        m.setattr(captions, "_eligible", counted(captions._eligible))
        doc = make(n)
        request = UnitRequest(count_text=len, budget=ContextBudget(flow=128), merge_continued_tables=False)
        build_units(doc, build_index(doc), request)
    return counter["n"]


@pytest.mark.parametrize("make", [_one_page, _one_section])
def test_work_per_table_does_not_grow_with_the_tables_per_page_or_section(
    make: Callable[[int], DoclingDocument], monkeypatch: pytest.MonkeyPatch
) -> None:
    small, large = _calls(make, 32, monkeypatch), _calls(make, 256, monkeypatch)
    assert small > 0
    # 8x the tables: about 8x the candidate checks (8.6x measured: the first and last tables have fewer neighbours);
    # a scan of the whole page or section per table would grow quadratically (64x)
    assert large <= 12 * small
