"""Build the bundled example report: ``docling_evidence/examples/annual_report.{html,docx}``.

The report is fictional (Northwind Harbour Group does not exist); its text and figures were written for this project.
It has what the chunker is built for: captioned tables, unit notes ("in millions of USD"), numbered footnotes below
tables, paragraphs that discuss a table by number, a long table that must be split, and one table whose caption is a
plain paragraph rather than a ``<caption>`` element. Run ``python -m docling_evidence_bench.tools.build_example``
after editing it.
"""

from __future__ import annotations

import html
import random
from dataclasses import dataclass, field
from pathlib import Path

from docling_evidence_bench.paths import REPO

OUT_DIR = REPO / "docling_evidence" / "examples"


@dataclass
class Table:
    """A table block: caption (as ``<caption>`` or as a plain paragraph), header, body rows, footnotes."""

    caption: str
    header: list[str]
    rows: list[list[str]]
    footnotes: list[str] = field(default_factory=list)
    caption_as_paragraph: bool = False


Block = tuple[str, str] | Table  # ("h1" | "h2" | "p", text) or a table


def _fleet_rows() -> list[list[str]]:
    """64 vessels, generated from a fixed seed so the register is the same on every build."""
    rng = random.Random(2025)
    first = [
        "Nordkapp",
        "Skagen",
        "Hanko",
        "Visby",
        "Bergen",
        "Lindesnes",
        "Rauma",
        "Kolding",
        "Tallinn",
        "Gdynia",
        "Aarhus",
        "Tromsø",
        "Umeå",
        "Klaipėda",
        "Kemi",
        "Esbjerg",
    ]
    second = ["Trader", "Spirit", "Carrier", "Express", "Frost", "Pioneer", "Star", "Bridge"]
    types = [
        ("Feeder container", "TEU", (700, 1800)),
        ("Reefer", "pallets", (3000, 6500)),
        ("Ro-Ro", "lane m", (1800, 4200)),
        ("Short-sea bulk", "dwt", (4500, 12000)),
    ]
    flags = ["Norway", "Denmark", "Finland", "Malta", "Netherlands"]
    names = sorted({f"{a} {b}" for a in first for b in second})
    rng.shuffle(names)
    rows = []
    for name in sorted(names[:64]):
        kind, unit, (lo, hi) = rng.choice(types)
        capacity = rng.randrange(lo, hi, 50)
        built = rng.randint(2004, 2024)
        owned = "Owned" if rng.random() < 0.6 else "Chartered-in (1)"
        rows.append([name, kind, f"{capacity:,} {unit}", str(built), rng.choice(flags), owned])
    return rows


BLOCKS: list[Block] = [
    ("h1", "Northwind Harbour Group — Annual Report 2025"),
    (
        "p",
        "Northwind Harbour Group operates container terminals, refrigerated warehouses, short-sea shipping routes "
        "and inland transport across the Nordic and Baltic region. This report covers the financial year ended "
        "31 December 2025. All figures are audited unless marked otherwise; the company and its figures are "
        "fictional and serve as an example document.",
    ),
    ("h2", "1. Financial highlights"),
    (
        "p",
        "2025 was the third consecutive year of growth. As Table 1 shows, revenue rose 8.4% to USD 1,842.6 million "
        "and adjusted EBITDA reached USD 431.5 million, while net debt fell for the second year running. The "
        "ratio of net debt to adjusted EBITDA is now 2.3 times, inside the 2.5 times ceiling set by the board.",
    ),
    Table(
        caption="Table 1: Financial highlights, 2023–2025 (in millions of USD, unless stated otherwise)",
        header=["", "2025", "2024", "2023"],
        rows=[
            ["Revenue", "1,842.6", "1,699.8", "1,611.3"],
            ["Operating profit", "273.8", "251.8", "229.4"],
            ["Adjusted EBITDA (1)", "431.5", "398.2", "371.0"],
            ["Net profit", "176.2", "161.9", "140.7"],
            ["Earnings per share (USD)", "1.47", "1.35", "1.17"],
            ["Free cash flow (2)", "142.9", "118.6", "97.3"],
            ["Net debt", "1,005.7", "1,088.4", "1,152.0"],
            ["Net debt / adjusted EBITDA (times)", "2.3", "2.7", "3.1"],
        ],
        footnotes=[
            "(1) Excludes restructuring costs of USD 14.2 million in 2025 and USD 6.8 million in 2024.",
            "(2) Cash flow from operating activities less capital expenditure and lease payments.",
        ],
    ),
    (
        "p",
        "Earnings per share grew faster than net profit because the group bought back 2.1 million shares in the "
        "second half of the year. Free cash flow improved by USD 24.3 million, mainly from lower working capital "
        "in the Cold Chain segment.",
    ),
    ("h2", "2. Segment performance"),
    (
        "p",
        "The group reports four segments. Container Terminals remains the largest, but Cold Chain grew fastest "
        "after the opening of the Gdynia refrigerated hub in March 2025.",
    ),
    Table(
        caption="Table 2: Revenue and operating profit by segment (in millions of USD)",
        header=[
            "Segment",
            "Revenue 2025",
            "Revenue 2024",
            "Operating profit 2025",
            "Operating profit 2024",
            "Margin 2025",
        ],
        rows=[
            ["Container Terminals", "742.1", "705.3", "168.4", "159.0", "22.7%"],
            ["Cold Chain", "418.9", "352.6", "51.7", "38.2", "12.3%"],
            ["Short-Sea Shipping", "512.4", "488.0", "43.9", "46.1", "8.6%"],
            ["Inland Logistics", "169.2", "153.9", "9.8", "8.5", "5.8%"],
            ["Group", "1,842.6", "1,699.8", "273.8", "251.8", "14.9%"],
        ],
        footnotes=["Segment figures are before group eliminations, which were nil in both years."],
    ),
    (
        "p",
        "As Table 2 shows, Cold Chain revenue rose 18.8% and its margin widened by 1.5 percentage points, while "
        "Short-Sea Shipping was the only segment whose operating profit fell: bunker costs rose faster than the "
        "surcharges we could pass on, and two vessels spent a combined 41 days in dry dock.",
    ),
    ("h2", "3. Fleet"),
    (
        "p",
        "At year end the group operated 64 vessels, of which roughly two thirds are owned. Table 3 lists every "
        "vessel with its capacity, year of build, flag and ownership; capacity is stated in the unit customary for "
        "each vessel type.",
    ),
    Table(
        caption="Table 3: Vessel register at 31 December 2025",
        header=["Vessel", "Type", "Capacity", "Built", "Flag", "Ownership"],
        rows=_fleet_rows(),
        footnotes=["(1) Chartered-in vessels are shown at contracted capacity; charters run for one to five years."],
    ),
    (
        "p",
        "The average age of the owned fleet is 11.2 years. Four vessels built before 2008 will be replaced by "
        "dual-fuel feeders ordered in 2025 and due for delivery in 2027 and 2028.",
    ),
    ("h2", "4. Financing and interest rate risk"),
    (
        "p",
        "The group finances itself through bank loans, two listed bonds and leases. During 2025 we refinanced USD "
        "300 million of floating-rate loans with a fixed-rate green bond, which lowered the share of debt exposed "
        "to market rates from 41% to 33%.",
    ),
    Table(
        caption="Table 4: Sensitivity of net finance costs to a parallel shift in interest rates (in millions of USD)",
        header=["Change in market rates", "Effect on net finance costs 2025", "Effect on net finance costs 2024"],
        rows=[
            ["+100 basis points", "+4.1", "+5.3"],
            ["+50 basis points", "+2.0", "+2.7"],
            ["−50 basis points", "−2.0", "−2.7"],
            ["−100 basis points", "−4.1", "−5.3"],
        ],
        footnotes=[
            "(1) Excludes lease liabilities and fixed-rate bonds, which are not exposed to changes in market rates."
        ],
        caption_as_paragraph=True,
    ),
    (
        "p",
        "Table 4 shows that a rise of one percentage point in market rates would now add USD 4.1 million to annual "
        "net finance costs, down from USD 5.3 million a year earlier. The effect is symmetric because the group "
        "holds no interest rate floors or caps.",
    ),
    ("h2", "5. People"),
    (
        "p",
        "Headcount grew in every region, most of all in the Nordics and Northern Europe where the new warehouses "
        "opened.",
    ),
    Table(
        caption="Table 5: Employees by region at year end (full-time equivalents)",
        header=["Region", "2025", "2024", "Change"],
        rows=[
            ["Nordics", "2,140", "2,065", "+75"],
            ["Northern Europe", "1,385", "1,310", "+75"],
            ["Baltic states", "612", "598", "+14"],
            ["United Kingdom and Ireland", "433", "401", "+32"],
            ["Total", "4,570", "4,374", "+196"],
        ],
    ),
    (
        "p",
        "Voluntary staff turnover fell to 7.9% from 9.4%. Lost-time injuries per million hours worked fell to 2.1, "
        "the lowest rate the group has recorded; Table 5 counts permanent and fixed-term staff but not agency "
        "workers, of whom there were about 380 at the peak of the season.",
    ),
    ("h2", "6. Outlook"),
    (
        "p",
        "For 2026 the board expects revenue growth of 4–6% at constant exchange rates and capital expenditure of "
        "USD 210–240 million, most of it for the feeder newbuilds and automated stacking cranes in Aarhus. The "
        "board proposes a dividend of USD 0.62 per share, up from USD 0.55.",
    ),
]

_CSS = """body{font-family:Georgia,serif;max-width:52rem;margin:2rem auto;padding:0 1rem;line-height:1.45}
table{border-collapse:collapse;margin:1rem 0}th,td{border:1px solid #999;padding:.2rem .5rem;text-align:right}
th:first-child,td:first-child{text-align:left}caption{font-weight:bold;text-align:left;padding-bottom:.3rem}
p.caption{font-weight:bold;margin-bottom:0}p.footnote{font-size:.85em;color:#444;margin:.2rem 0}"""


def render_html(blocks: list[Block]) -> str:
    """The report as one HTML page (captions as ``<caption>`` except where ``caption_as_paragraph``)."""
    esc = html.escape
    out = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        "",
        f"<style>{_CSS}</style>",
        "</head>",
        "<body>",
    ]
    for block in blocks:
        if isinstance(block, Table):
            if block.caption_as_paragraph:
                out.append(f'<p class="caption">{esc(block.caption)}</p>')
            out.append("<table>")
            if not block.caption_as_paragraph:
                out.append(f"<caption>{esc(block.caption)}</caption>")
            out.append("<thead><tr>" + "".join(f"<th>{esc(c)}</th>" for c in block.header) + "</tr></thead>")
            out.append("<tbody>")
            out.extend("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>" for row in block.rows)
            out.append("</tbody></table>")
            out.extend(f'<p class="footnote">{esc(f)}</p>' for f in block.footnotes)
        else:
            tag, text = block
            out.append(f"<{tag}>{esc(text)}</{tag}>")
    out += ["</body>", "</html>", ""]
    return "\n".join(out)


def write_docx(blocks: list[Block], path: Path) -> None:
    """The report as DOCX: captions are "Caption"-styled paragraphs above each table, as Word makes them."""
    import datetime

    from docx import Document
    from docx.shared import Pt

    doc = Document()
    fixed = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
    doc.core_properties.created = fixed
    doc.core_properties.modified = fixed
    doc.core_properties.title = "Northwind Harbour Group — Annual Report 2025"
    for block in blocks:
        if isinstance(block, Table):
            doc.add_paragraph(block.caption, style="Caption")
            table = doc.add_table(rows=1 + len(block.rows), cols=len(block.header))
            table.style = "Table Grid"
            for r, row in enumerate([block.header, *block.rows]):
                for c, text in enumerate(row):
                    table.cell(r, c).text = text
            for note in block.footnotes:
                doc.add_paragraph(note).runs[0].font.size = Pt(8)
        else:
            tag, text = block
            if tag == "p":
                doc.add_paragraph(text)
            else:
                doc.add_heading(text, level=int(tag[1]) - 1 if tag == "h1" else 1)
    doc.save(str(path))


def main() -> None:
    """Write the HTML and DOCX versions of the example report."""
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    (OUT_DIR / "annual_report.html").write_text(render_html(BLOCKS), encoding="utf-8")
    write_docx(BLOCKS, OUT_DIR / "annual_report.docx")
    print(f"wrote {OUT_DIR / 'annual_report.html'} and {OUT_DIR / 'annual_report.docx'}")


if __name__ == "__main__":
    main()
