"""A report-like document for the packer tests: a long table with caption, an "in millions" footnote, a paragraph
explaining it, and text around it."""

from __future__ import annotations

from docling_core.types.doc import DocItemLabel, DoclingDocument
from docs_builder import add_table

SEGMENTS = [
    "Cloud services",
    "Retail banking",
    "Freight logistics",
    "Medical devices",
    "Consumer electronics",
    "Renewable energy",
    "Industrial robotics",
    "Satellite imaging",
    "Seed genetics",
    "Water utilities",
    "Specialty chemicals",
    "Payment processing",
    "Textile mills",
    "Cement works",
    "Fibre networks",
    "Mobile gaming",
    "Cargo airlines",
    "Dairy farming",
]
HEADER = ["Segment", "Revenue 2019", "Revenue 2020", "Operating margin"]
BODY = [[name, f"{1000 + 37 * k:,}", f"{1100 + 41 * k:,}", f"{10 + k}.{k % 10}%"] for k, name in enumerate(SEGMENTS)]
CAPTION = "Table 4: Revenue and operating margin by business segment."
FOOTNOTE = "All amounts are in millions of US dollars; 2019 figures restated for the new segments."


def build_report() -> DoclingDocument:
    """The document: intro paragraphs, the table (linked caption and footnote), an explaining paragraph, outro."""
    doc = DoclingDocument(name="segment_report")
    doc.add_heading(text="Annual review", level=1)
    doc.add_text(
        label=DocItemLabel.TEXT,
        text="The group reorganised its reporting into eighteen segments during the year. "
        "Management reviews each segment monthly.",
    )
    doc.add_heading(text="Segment results", level=2)
    doc.add_text(
        label=DocItemLabel.TEXT,
        text="Table 4 shows revenue by segment. Cloud services grew fastest, while Cement works shrank. "
        "Fibre networks kept the highest margin of the infrastructure businesses.",
    )
    add_table(doc, [HEADER], BODY, caption=CAPTION, footnotes=[FOOTNOTE])
    doc.add_heading(text="Outlook", level=2)
    doc.add_text(
        label=DocItemLabel.TEXT,
        text="The board expects capital spending to rise. Hiring will focus on engineering. "
        "Dividends stay unchanged for the coming year.",
    )
    return doc
