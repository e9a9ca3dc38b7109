"""Shared test setup: offline Hugging Face hub, the ../shared data folder, document builders."""

from __future__ import annotations

import os
import random

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, is_hypothesis_test, settings
from shared_paths import SHARED

_HEALTH = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]
# ci (default) is reproducible: derandomized, so every run (CI's and a developer's) draws the same examples and a
# failure reruns as it failed; it does not shrink, since shrinking a 500-row table can take many minutes (the blob
# is printed). thorough explores: many more examples, shrinking, and one seed for the whole run, HYPOTHESIS_SEED or a
# new one, printed in the pytest header (tests/run_thorough.sh runs the property tests so).
settings.register_profile(
    "ci",
    max_examples=20,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=_HEALTH,
    print_blob=True,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
)
settings.register_profile(
    "thorough",
    max_examples=int(os.environ.get("HYPOTHESIS_MAX_EXAMPLES", "1000")),
    deadline=None,
    database=None,
    suppress_health_check=_HEALTH,
    print_blob=True,
)
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")
settings.load_profile(PROFILE)

THOROUGH_FACTOR = int(os.environ.get("HYPOTHESIS_EXAMPLES_FACTOR", "1"))
"""In a ``thorough`` run, each property test runs this many times the examples it asks for (its own
``max_examples``, or the profile's)."""

THOROUGH_SEED: int | None = None
"""The seed of a ``thorough`` run: ``HYPOTHESIS_SEED``, or a new one (None in the derandomized ``ci`` profile)."""
if PROFILE == "thorough":
    THOROUGH_SEED = int(os.environ.get("HYPOTHESIS_SEED") or random.SystemRandom().randrange(2**32))
    os.environ["HYPOTHESIS_SEED"] = str(THOROUGH_SEED)  # pytest-xdist's workers inherit it: one seed for the run
    # the split suite seeds its properties itself (@seed): give it this run's seed unless it was set on its own
    os.environ.setdefault("SPLIT_HYPOTHESIS_SEED", str(THOROUGH_SEED))


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The ../shared folder, or skip the test."""
    if not SHARED.is_dir():
        pytest.skip("../shared is not present")
    return SHARED


@pytest.fixture(scope="session")
def fixture_paths(shared_dir: Path) -> list[Path]:
    """Every real DoclingDocument JSON under ../shared/fixtures."""
    paths = sorted((shared_dir / "fixtures").rglob("*.json"))
    if not paths:
        pytest.skip("no fixtures in ../shared/fixtures")
    return paths


SHARED_FIXTURES = frozenset({"shared_dir", "fixture_paths"})
"""Fixtures that read ../shared: a test requesting one (directly or through another fixture) is ``slow``."""

DOCLING_FIXTURES = frozenset({"example_json", "converter", "has_docling"})
"""Fixtures that convert with Docling (importing its converters alone costs about 2 s of CPU): their tests are
``slow`` too, so the fast tier never imports Docling."""

SLOW_MODULES = frozenset(
    {
        "test_docling_core_suite",  # runs docling-core's own chunker tests in a subprocess per case
        "test_hybrid_settings",  # every HybridChunker setting against HybridChunker, one at a time
        "test_signals",  # starts --jobs worker pools and waits for them to stop
        "test_ray",  # starts a local Ray cluster
        "test_docs_examples",  # runs the integrations' documented examples end to end
        "test_readme_examples",  # runs the README's blocks, once in a subprocess
        "test_split_properties",  # end-to-end properties over three tokenizers
        "test_import",  # fresh interpreters checking what importing the package pulls in
        "test_imports",  # the same for the integrations
        "test_embed",  # loads the embedding models
        "test_figures",  # renders every figure the docs quote, from the results and by chunking the example
    }
)
"""Modules whose tests are ``slow`` although they need no ../shared: each costs seconds to minutes."""

SLOW_TESTS = frozenset(
    {
        # each starts the console script in a fresh interpreter (docling-core's import pulls in transformers and
        # torch: about 3 s of CPU per process) or waits for the hub's retries
        "tests/cli/test_faults.py::test_unreadable_input_is_one_line_and_the_rest_goes_on",
        "tests/cli/test_hostile_paths.py::test_chunk_to_dev_stdout_appends_to_the_redirected_file",
        "tests/cli/test_hostile_paths.py::test_a_limit_too_small_says_what_to_change_not_that_it_is_a_bug",
        "tests/cli/test_version_and_streams.py::test_an_uncached_tokenizer_gives_only_our_line",
        "tests/cli/test_version_and_streams.py::test_a_closed_stdout_ends_the_run_quietly_with_141",
        # loads a sentence-transformers model
        "tests/core/test_context.py::test_similarity_gate_is_off_at_zero_and_filters_when_on",
        # convert with Docling (importing its converters alone costs about 2 s of CPU)
        "tests/cli/test_faults.py::test_mixed_good_and_bad_folder",
        "tests/core/test_table_rows_and_format.py::test_a_page_with_nested_tables_converted_by_docling_chunks_within_the_limit",
        "tests/core/test_context_boilerplate.py::test_a_web_page_converted_by_docling_gives_its_tables_no_boilerplate",
        # every table format at every tiny limit, end to end
        "tests/split/test_split_cases.py::test_tiny_limits_chunk_every_format_within_the_limit_and_lose_nothing",
        # the benchmark's sweep end to end: a sweep run through its CLI, and its report with a matplotlib figure
        "bench/tests/test_sweep.py::test_cli_runs_reports_and_rejects_bad_input",
        "bench/tests/test_sweep.py::test_report_is_generated_from_the_json",
    }
)
"""Single tests (``path::function``, every parameter) that are ``slow`` although their module is not."""


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """Register the tiers' markers, and give a ``thorough`` run its one seed.

    ``pytest -m "not slow"`` is the fast unit tier (no ../shared, under a minute); ``pytest -m property`` runs the
    property (hypothesis) tests alone.
    """
    config.addinivalue_line("markers", "slow: reads ../shared or takes seconds; left out by -m 'not slow'")
    config.addinivalue_line("markers", "property: a hypothesis property test; -m property runs only these")
    if THOROUGH_SEED is not None and config.getoption("hypothesis_seed", None) is None:
        # as if --hypothesis-seed were given (hypothesis's plugin reads it after this hook): every property test
        # draws from this seed
        config.option.hypothesis_seed = str(THOROUGH_SEED)


def pytest_report_header(config: pytest.Config) -> str:
    """Name the hypothesis profile, and in a ``thorough`` run the seed that replays it."""
    if THOROUGH_SEED is None:
        return f"hypothesis: profile {PROFILE} (derandomized: every run draws the same examples)"
    return (
        f"hypothesis: profile thorough, {settings.default.max_examples} examples, seed {THOROUGH_SEED} "
        f"(replay: HYPOTHESIS_PROFILE=thorough HYPOTHESIS_SEED={THOROUGH_SEED})"
    )


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Name the split suite's seed and the profile at the end of the run (here, so that the main process prints it
    when pytest-xdist's workers ran the tests)."""
    seed = os.environ.get("SPLIT_HYPOTHESIS_SEED", "0")
    terminalreporter.write_line(f"split property suite: SPLIT_HYPOTHESIS_SEED={seed}, profile {PROFILE}")


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """In the fast tier (``-m "not slow"`` exactly), do not even import the modules of :data:`SLOW_MODULES`: all their
    tests would be deselected, and their imports (Ray, docling-core's test suite, the models) cost seconds."""
    if config.option.markexpr.replace(" ", "") == "notslow" and collection_path.stem in SLOW_MODULES:
        return True
    return None


def _under_shared(value: object) -> bool:
    return isinstance(value, Path) and (value == SHARED or SHARED in value.parents)


def _module_reads_shared(module: object) -> bool:
    """Whether a test module keeps a path into ../shared (its fixtures folder, TAT-QA) at module level."""
    return any(_under_shared(value) for value in vars(module).values())


def _is_slow(item: pytest.Item, reads_shared: bool) -> bool:
    """Whether ``item`` belongs to the slow tier: it reads ../shared (a fixture of :data:`SHARED_FIXTURES`, a module
    path into it, a parameter under it), converts with Docling (:data:`DOCLING_FIXTURES`), or its module or itself
    is listed as slow."""
    module = getattr(item, "module", None)
    name = module.__name__.rpartition(".")[2] if module is not None else ""
    test_id = item.nodeid.partition("[")[0]
    params = getattr(getattr(item, "callspec", None), "params", {})
    return (
        bool((SHARED_FIXTURES | DOCLING_FIXTURES) & set(getattr(item, "fixturenames", ())))
        or reads_shared
        or name in SLOW_MODULES
        or test_id in SLOW_TESTS
        or any(_under_shared(value) for value in params.values())
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the tests of the slow tier (:func:`_is_slow`) and the property tests (hypothesis ``@given`` tests)."""
    shared_modules: dict[str, bool] = {}
    for item in items:
        module = getattr(item, "module", None)
        name = module.__name__ if module is not None else ""
        if module is not None and name not in shared_modules:
            shared_modules[name] = _module_reads_shared(module)
        if _is_slow(item, shared_modules.get(name, False)):
            item.add_marker(pytest.mark.slow)
        if is_hypothesis_test(getattr(item, "obj", None)):
            item.add_marker(pytest.mark.property)
            if THOROUGH_SEED is not None and THOROUGH_FACTOR > 1:
                _scale_examples(item.obj, THOROUGH_FACTOR)


def _scale_examples(test: object, factor: int) -> None:
    """Multiply the examples a hypothesis test runs. Most tests pin their count with ``@settings(max_examples=...)``,
    which a profile cannot raise; hypothesis keeps the effective settings on the test function, and a test whose
    settings cannot be found (another hypothesis version) runs its own count."""
    own = getattr(test, "_hypothesis_internal_use_settings", None)
    if own is not None and not getattr(test, "_scaled_by", None):
        test._hypothesis_internal_use_settings = settings(own, max_examples=own.max_examples * factor)  # type: ignore[attr-defined]
        test._scaled_by = factor  # type: ignore[attr-defined]  # a parametrized test is one function for many items
