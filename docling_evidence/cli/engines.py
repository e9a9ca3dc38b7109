"""Where the ``chunk`` command's files are processed: in this process, in a pool of worker processes (``--jobs``),
or on Ray actors (``--engine ray``). Each engine yields the files' outcomes in input order."""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from enum import Enum
from pathlib import Path

from docling_evidence.batch import ChunkSettings, FileOutcome, process_file, quiet_environment
from docling_evidence.cli.common import native_stderr_silenced, usage_error, worker_signals


class Engine(str, Enum):
    """Where files are processed: this machine's processes, or Ray actors."""

    local = "local"
    ray = "ray"


def _worker_init() -> None:
    worker_signals()
    quiet_environment()


@contextlib.contextmanager
def local_outcomes(files: list[Path], settings: ChunkSettings, jobs: int) -> Iterator[Iterator[FileOutcome]]:
    """Yield an iterator of the outcomes of ``files`` in input order; with ``jobs > 1`` from a process pool.

    The pool's workers start here, before any progress-bar thread exists: on Linux they are forked and inherit the
    already loaded chunker (no second tokenizer load); elsewhere they are spawned. If the block is left by an
    exception (SIGINT/SIGTERM turned into :class:`~docling_evidence.cli.common.Stopped`, a write error), pending
    files are cancelled and the workers are ended at once instead of finishing the batch.
    """
    if jobs <= 1 or len(files) <= 1:
        yield (process_file(str(path), settings) for path in files)
        return
    import multiprocessing

    method = "fork" if "fork" in multiprocessing.get_all_start_methods() and sys.platform == "linux" else "spawn"
    pool = ProcessPoolExecutor(
        max_workers=min(jobs, len(files)),
        mp_context=multiprocessing.get_context(method),
        initializer=_worker_init,
    )
    try:
        futures = [pool.submit(process_file, str(p), settings) for p in files]
        yield _results(files, futures)
    except BaseException:
        _end_pool(pool)
        raise
    pool.shutdown(wait=True)


def _results(files: list[Path], futures: list[Future[FileOutcome]]) -> Iterator[FileOutcome]:
    for path, future in zip(files, futures, strict=True):
        try:
            yield _wait(future)
        except Exception as exc:  # a worker died (out of memory, killed): report the file, go on
            yield FileOutcome(str(path), error=f"{path}: worker process failed: {type(exc).__name__}: {exc}")


def _wait(future: Future[FileOutcome]) -> FileOutcome:
    """``future.result()`` in short waits: the OS may deliver SIGINT/SIGTERM to one of the pool's helper threads,
    and Python runs the handler only when the main thread next runs, so a wait without timeout would hold a stop
    request until the file finished."""
    while True:
        try:
            return future.result(timeout=0.2)
        except FutureTimeout:
            continue


def _end_pool(pool: ProcessPoolExecutor) -> None:
    """Cancel what has not started and end the workers now (SIGTERM, then SIGKILL after a second)."""
    processes = list((getattr(pool, "_processes", None) or {}).values())  # shutdown() forgets them
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        with contextlib.suppress(Exception):
            process.terminate()
    deadline = time.monotonic() + 1.0
    for process in processes:
        with contextlib.suppress(Exception):
            process.join(max(0.0, deadline - time.monotonic()))
            if process.is_alive():
                process.kill()
                process.join(0.5)


def check_ray() -> None:
    """A usage error unless Ray is installed (checked before any input is read)."""
    import importlib.util

    if importlib.util.find_spec("ray") is None:
        raise usage_error("--engine ray needs Ray: pip install 'docling-evidence[ray]'")


@contextlib.contextmanager
def ray_outcomes(
    files: list[Path], settings: ChunkSettings, address: str | None, verbose: bool = False
) -> Iterator[Iterator[FileOutcome]]:
    """The outcomes of ``files`` processed on Ray actors (``docling_evidence.integrations.ray``), in input order.

    Ray's native core worker writes its own notices to the process's stderr; without ``verbose`` they go to
    ``/dev/null`` (Ray keeps its logs under ``/tmp/ray/session_*/logs``) and only our lines are shown. A Ray started
    or joined here is shut down before the block ends, so that its exit notices are silenced too; a Ray the caller
    had already initialised keeps running."""
    import ray

    from docling_evidence.integrations.ray import chunk_files, connect

    with native_stderr_silenced(not verbose):
        started = False
        try:
            try:
                started = connect(address, verbose=verbose)
            except RuntimeError as exc:
                raise usage_error(str(exc)) from None
            options = {k: v for k, v in vars(settings).items() if v is not None}
            yield (
                FileOutcome(path, records=records, error=error, warnings=warnings)
                for path, records, error, warnings in chunk_files(files, address=address, **options)
            )
        finally:
            if started:
                with contextlib.suppress(Exception):
                    ray.shutdown()
