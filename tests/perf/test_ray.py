"""The Ray engine gives the local engine's records, and a bad file becomes an error row, not a failed job."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

ray = pytest.importorskip("ray")

from shared_paths import FIXTURES  # noqa: E402

from docling_evidence.batch import ChunkSettings, process_file  # noqa: E402
from docling_evidence.integrations.ray import chunk_dataset, chunk_files, iter_records, write_jsonl  # noqa: E402

NAMES = ["docling/2305.03393v1-pg9.json", "docling-core/doc__cross_page_table__input.json"]


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> list[Path]:
    if not FIXTURES.is_dir():
        pytest.skip("shared fixtures absent")
    folder = tmp_path_factory.mktemp("ray-in")
    files = [Path(shutil.copy(FIXTURES / n, folder / Path(n).name)) for n in NAMES]
    bad = folder / "broken.json"
    bad.write_text("{not json", encoding="utf-8")
    return [files[0], bad, files[1]]


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def test_ray_records_identical_to_local_engine(inputs, local_ray, tmp_path) -> None:
    settings = ChunkSettings()
    local = [process_file(str(p), settings) for p in inputs]
    remote = list(chunk_files(inputs))
    assert [r[0] for r in remote] == [str(p) for p in inputs]
    for outcome, (_path, records, error, warnings) in zip(local, remote, strict=True):
        assert records == outcome.records
        assert error == outcome.error
        assert warnings == outcome.warnings
    assert remote[1][1] == [] and "broken.json" in remote[1][2]
    assert all(records and error is None for _, records, error, _w in (remote[0], remote[2]))

    # read_binary_files rows (bytes + path), one row per chunk; the bad file is one error row
    files = ray.data.read_binary_files([str(p) for p in inputs], include_paths=True)
    rows = chunk_dataset(files, concurrency=1).materialize()
    out = tmp_path / "chunks.jsonl"
    n = write_jsonl(rows, out)
    written = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    expected = [r for o in local for r in o.records]
    key = lambda r: (r["meta"]["source"], r["meta"]["unit_id"], r["meta"]["part"], r["text"])  # noqa: E731
    assert n == len(expected) and sorted(written, key=key) == sorted(expected, key=key)
    errors = [row for row in rows.iter_rows() if row["error"]]
    assert len(errors) == 1 and errors[0]["source"].endswith("broken.json") and errors[0]["text"] == ""
    assert list(iter_records(errors)) == []
    # Parquet keeps one schema for every document: meta and chunk as JSON strings
    import pyarrow.parquet as pq

    rows.write_parquet(str(tmp_path / "pq"))
    table = pq.read_table(str(tmp_path / "pq"))
    assert set(table.column_names) >= {"source", "text", "meta", "chunk", "error"}
    assert table.num_rows == len(expected) + 1


def test_address_needs_the_ray_engine(tmp_path) -> None:
    from typer.testing import CliRunner

    from docling_evidence.cli.main import app

    doc = tmp_path / "d.json"
    doc.write_text("{}", encoding="utf-8")
    result = CliRunner().invoke(app, ["chunk", str(doc), "--address", "auto"])
    assert result.exit_code == 2
    assert "--address needs --engine ray" in result.output


def test_the_ray_engine_prints_only_our_lines(inputs, tmp_path) -> None:
    """Ray's start-up notices (token authentication) and its native core worker's log lines stay out of stderr:
    one line per bad file and the summary, as with the local engine."""
    import os
    import subprocess
    import sys

    repo = Path(__file__).resolve().parents[2]
    out = tmp_path / "chunks.jsonl"
    proc = subprocess.run(
        [sys.executable, "-m", "docling_evidence.cli", "chunk", *map(str, inputs), "--engine", "ray", "-o", str(out)],
        cwd=tmp_path,
        env={**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(repo)},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 1, proc.stderr  # the broken input
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 2, proc.stderr
    assert lines[0].startswith(f"error: {inputs[1]}: corrupt JSON")
    assert lines[1].startswith("2 file(s) chunked into ") and lines[1].endswith("1 input(s) failed")
    assert out.read_text(encoding="utf-8").count("\n") > 0


def test_the_ray_engine_leaves_a_ray_the_caller_started_running(inputs, local_ray, tmp_path) -> None:
    """`chunk --engine ray` run in a process whose Ray is already initialised joins that Ray and leaves it running:
    only a Ray the command started itself is shut down when it ends."""
    from typer.testing import CliRunner

    from docling_evidence.cli.main import app
    from docling_evidence.integrations.ray import connect

    assert connect() is False  # already initialised: nothing started, nothing for us to shut down
    out = tmp_path / "chunks.jsonl"
    result = CliRunner().invoke(app, ["chunk", str(inputs[0]), "--engine", "ray", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert ray.is_initialized()
    assert ray.cluster_resources().get("CPU") == 2  # still the caller's Ray, not one the command started
    expected = process_file(str(inputs[0]), ChunkSettings()).records
    assert [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()] == expected
