"""Chunk documents at scale with Ray Data: one converter and one chunker per actor.

Install with ``pip install 'docling-evidence[ray]'``. :class:`ChunkDocuments` is a ``map_batches`` callable class:
each actor builds the chunker (and, on first use, Docling's converter) once and turns a batch of files into chunk
rows. Input rows hold ``path`` (a file every worker can read) and, from ``ray.data.read_binary_files(...,
include_paths=True)``, ``bytes``; a DoclingDocument JSON file is loaded, any other supported format converted
(``docling_evidence.document.convert``). A file that cannot be read, converted or chunked becomes one *error row*
(``error`` set, ``text`` empty): it never fails the job.

Rows (one per chunk) have the columns of :data:`COLUMNS`: ``source``, ``text`` (what to embed), ``meta`` and
``chunk`` (the ``meta`` and ``chunk`` objects of a ``docling-evidence chunk -o`` record, as JSON strings so that
Parquet keeps one schema for every document) and ``error``. :func:`write_jsonl` writes them as the CLI's JSONL
records; ``dataset.write_parquet(folder)`` keeps the columns.

Example::

    import ray
    from docling_evidence.integrations.ray import chunk_dataset, write_jsonl

    ray.init()
    files = ray.data.read_binary_files("s3://bucket/docs/", include_paths=True)
    chunk_dataset(files, concurrency=8).write_parquet("s3://bucket/chunks/")
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from docling_evidence.batch import (
    ChunkSettings,
    FileOutcome,
    chunker_for,
    internal_error,
    process_file,
    quiet_environment,
)

COLUMNS = ("source", "text", "meta", "chunk", "error")
"""Columns of a chunk row."""


class ChunkDocuments:
    """Ray Data ``map_batches`` callable class: files in, chunk rows out (one converter and chunker per actor).

    Args:
        max_tokens, tokenizer, bbox_threshold, table_format: as the ``docling-evidence chunk`` options.
        per_file: emit one row per file (``source``, ``records`` and ``warnings`` as JSON lists, ``error``) instead
            of one row per chunk; keeps files without chunks visible (the CLI uses it).

    Raises:
        ValueError: at construction, when the options cannot build a chunker (e.g. an unknown tokenizer).
    """

    def __init__(
        self,
        max_tokens: int | None = None,
        tokenizer: str | None = None,
        bbox_threshold: float | None = None,
        table_format: str | None = None,
        per_file: bool = False,
    ) -> None:
        quiet_environment()
        self.settings = ChunkSettings(max_tokens, tokenizer, bbox_threshold, table_format)
        self.per_file = per_file
        chunker_for(self.settings)  # the chunker (and its tokenizer) once per actor
        self._tmp = tempfile.mkdtemp(prefix="docling-evidence-ray-")

    def __del__(self) -> None:
        shutil.rmtree(getattr(self, "_tmp", ""), ignore_errors=True)

    def process(self, path: str, data: bytes | None = None) -> FileOutcome:
        """The :class:`~docling_evidence.batch.FileOutcome` of one file (read from ``path``, or from ``data`` when
        given), as the command line's local engine makes it."""
        if data is None:
            return process_file(path, self.settings)
        local = Path(self._tmp) / Path(path).name
        local.write_bytes(bytes(data))
        try:
            outcome = process_file(str(local), self.settings)
        finally:
            local.unlink(missing_ok=True)
        for record in outcome.records:
            record["meta"]["source"] = path
        outcome.path = path
        outcome.error = outcome.error.replace(str(local), path) if outcome.error else None
        outcome.warnings = [w.replace(str(local), path) for w in outcome.warnings]
        return outcome

    def __call__(self, batch: dict[str, Any]) -> Any:
        """Chunk every file of ``batch`` (columns ``path`` and optionally ``bytes``) into a ``pyarrow.Table``.

        Every column is typed ``string`` (nullable), so blocks with and without errors share one schema.
        """
        import pyarrow as pa

        paths = [str(p) for p in batch["path"]]
        data = batch.get("bytes")
        if self.per_file:
            out: dict[str, list[Any]] = {"source": [], "records": [], "error": [], "warnings": []}
        else:
            out = {name: [] for name in COLUMNS}
        for k, path in enumerate(paths):
            warnings: list[str] = []
            try:
                outcome = self.process(path, None if data is None else data[k])
                records, error, warnings = outcome.records, outcome.error, outcome.warnings
            except Exception as exc:  # never fail the job: the file becomes an error row
                records, error = [], internal_error(path, exc)
            if self.per_file:
                out["source"].append(path)
                out["records"].append(json.dumps(records, ensure_ascii=False))
                out["error"].append(error)
                out["warnings"].append(json.dumps(warnings, ensure_ascii=False))
            elif error is not None:
                for name, value in zip(COLUMNS, (path, "", None, None, error), strict=True):
                    out[name].append(value)
            else:
                for r in records:
                    out["source"].append(path)
                    out["text"].append(r["text"])
                    out["meta"].append(json.dumps(r["meta"], ensure_ascii=False))
                    out["chunk"].append(json.dumps(r["chunk"], ensure_ascii=False))
                    out["error"].append(None)
        return pa.table({name: pa.array(values, type=pa.string()) for name, values in out.items()})


def chunk_dataset(
    dataset: Any,
    *,
    concurrency: int | tuple[int, int] | None = None,
    batch_size: int = 1,
    per_file: bool = False,
    **options: Any,
) -> Any:
    """``dataset.map_batches(ChunkDocuments, ...)``: chunk rows (see :data:`COLUMNS`) of every file in ``dataset``.

    Args:
        dataset: rows with ``path`` (and ``bytes``, as ``ray.data.read_binary_files(..., include_paths=True)``).
        concurrency: number of actors (or a ``(min, max)`` range); default: one per CPU of the cluster.
        batch_size: files per batch.
        options: ``max_tokens``, ``tokenizer``, ``bbox_threshold``, ``table_format``.
    """
    import ray

    if concurrency is None:
        concurrency = _cpus()
    pool = (
        ray.data.ActorPoolStrategy(min_size=concurrency[0], max_size=concurrency[1])
        if isinstance(concurrency, tuple)
        else ray.data.ActorPoolStrategy(size=concurrency)
    )
    return dataset.map_batches(
        ChunkDocuments,
        fn_constructor_kwargs={**options, "per_file": per_file},
        batch_size=batch_size,
        compute=pool,
        num_cpus=1,
    )


def write_jsonl(dataset: Any, path: str | Path) -> int:
    """Write chunk rows as ``docling-evidence chunk -o x.jsonl`` records (error rows are skipped); returns the count.

    The file is written to a temporary name and renamed, so an existing file is replaced only by a complete one.
    """
    target = Path(path)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    count = 0
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as stream:
            for record in iter_records(dataset.iter_rows()):
                stream.write(json.dumps(record, ensure_ascii=False) + "\n")
                count += 1
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return count


def connect(address: str | None = None, num_cpus: int | None = None, verbose: bool = True) -> bool:
    """Join the Ray cluster at ``address`` (``"auto"``, ``"ray://host:10001"``), or start a local one with ``num_cpus``
    CPUs (default: all) when ``address`` is None; nothing when Ray is already initialised. Ray's Python warnings
    (its token-authentication notice at start-up) are shown only when ``verbose``.

    Returns:
        True when this call initialised Ray, so the caller owns ``ray.shutdown()``; False when Ray was already
        initialised by someone else, whose Ray must keep running.

    Raises:
        RuntimeError: when Ray cannot start or connect (one line, naming the cause).
    """
    import ray

    if ray.is_initialized():
        return False
    level = logging.WARNING if verbose else logging.ERROR
    logging.getLogger("ray").setLevel(level)
    logging.getLogger("ray.data").setLevel(level)
    try:
        ray.init(
            logging_level=level,
            address=address,
            num_cpus=num_cpus if address is None else None,
            include_dashboard=False,
            log_to_driver=False,
            configure_logging=False,
        )
    except Exception as exc:  # ConnectionError, TimeoutError, ray's own start-up errors
        where = f"the Ray cluster at {address}" if address else "a local Ray instance"
        message = " ".join(str(exc).split())[:200]
        raise RuntimeError(f"could not start or join {where}: {type(exc).__name__}: {message}") from exc
    return True


def chunk_files(
    files: Sequence[str | Path],
    *,
    address: str | None = None,
    num_cpus: int | None = None,
    **options: Any,
) -> Iterator[tuple[str, list[dict[str, Any]], str | None, list[str]]]:
    """Chunk ``files`` on Ray; yields ``(path, records, error, warnings)`` per file in input order (``--engine ray``).

    Calls :func:`connect` with ``address`` and ``num_cpus`` first.
    """
    import ray

    connect(address, num_cpus)
    ctx = ray.data.DataContext.get_current()
    ctx.execution_options.preserve_order = True
    ctx.enable_progress_bars = False
    ctx.print_on_execution_start = False
    # Ray Data sets up its loggers when it is first imported: quiet them now (the CLI's stderr is one line per
    # problem; Ray's own logs stay in /tmp/ray/session_*/logs)
    logging.getLogger("ray.data").setLevel(logging.ERROR)
    paths = [str(p) for p in files]
    if not paths:
        return
    dataset = ray.data.from_items([{"path": p} for p in paths])
    rows = chunk_dataset(dataset, per_file=True, concurrency=min(len(paths), _cpus()), **options)
    for row in rows.iter_rows():
        yield row["source"], json.loads(row["records"]), row["error"], json.loads(row["warnings"])


def _cpus() -> int:
    import ray

    return max(1, int(ray.cluster_resources().get("CPU", 1)))


def iter_records(rows: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """CLI records of chunk rows (error rows skipped): ``{"text", "meta", "chunk"}``."""
    for row in rows:
        if not row.get("error"):
            yield {"text": row["text"], "meta": json.loads(row["meta"]), "chunk": json.loads(row["chunk"])}
