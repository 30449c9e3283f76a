"""Shared pytest set-up: the ``--full`` switch and the toy game used by referee tests."""

from __future__ import annotations

import os
import re
import sys

import pytest

from referee import registry
from tests.toy_game import ToyState

registry.register(ToyState)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--full",
        action="store_true",
        default=False,
        help="run the long forms: 200 games per configuration, 200-seed bot matches, soak tests",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # A test that drives Chromium is a browser test whether or not its module says so, so that
    # ``-m "not browser"`` (the CI run against the minimum versions, .ci/run) leaves it out.
    for item in items:
        if "browser" in getattr(item, "fixturenames", ()) and "browser" not in item.keywords:
            item.add_marker(pytest.mark.browser)
    if config.getoption("full"):
        return
    skip = pytest.mark.skip(reason="long form: run with --full")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def full_run(request: pytest.FixtureRequest) -> bool:
    """True under ``--full``: tests scale their game counts with it."""
    return bool(request.config.getoption("full"))


@pytest.fixture(autouse=True)
def _no_warm_bots_between_tests():
    """Tests that play matches through ``arena.workers.tasks`` fill its warm bot pool: empty it after
    each test, so no test sees another's bot processes (tests/referee checks none is left)."""
    yield
    tasks = sys.modules.get("arena.workers.tasks")
    if tasks is not None:
        tasks.close_worker_bot_pool()


@pytest.fixture(autouse=True)
def _no_person_games_between_tests():
    """A test that starts a person's game and ends before it (or fails half-way) would leave the
    game waiting for its person, holding its bots for up to 600 s, in the next tests' process
    (tests/referee would see their socket folders): resign what is left, and wait for it."""
    yield
    human = sys.modules.get("arena.play.human")
    if human is not None:
        left = human.resign_games_played_here(wait_s=60.0)
        assert not left, f"person's games still running 60 s after they were resigned: {left}"


@pytest.fixture(params=["on", "off"], ids=["shortcuts-on", "shortcuts-off"])
def shortcut_setting(request: pytest.FixtureRequest):
    """Run the test on both paths of every shortcut (docs/shortcuts.md): ``ARENA_SHORTCUTS=on``
    (the private-API paths, where the installed releases were tested) and ``off`` (the public
    paths). The setting is in ``os.environ`` for the whole test, so the processes it starts (a
    worker, the CLI, a sandboxed bot) inherit it; this process follows it at once
    (tests/shortcut_paths.py). Yields the setting."""
    from tests.shortcut_paths import apply_setting, untested_shortcuts

    if request.param == "on" and (gated := untested_shortcuts()):
        pytest.skip(f"the version gate keeps {', '.join(gated)} off on the installed releases: "
                    "'on' is the public path, which the 'off' run tests")
    old = os.environ.get("ARENA_SHORTCUTS")
    apply_setting(request.param)
    try:
        yield request.param
    finally:
        apply_setting(old)


# --- why a test was rerun: the CI log's summary names reruns (-raR) but not their errors --------

_rerun_reasons: list[tuple[str, str, str]] = []
_PLACE = re.compile(r"^[\w/.+-]+\.py:\d+: ")  # a long traceback's "path.py:123: in function" line


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.outcome == "rerun":
        text = (report.longreprtext or "").strip().splitlines()
        errors = [line[1:].strip() for line in text if line.startswith("E ")] or text[-1:]
        # where it failed: the traceback's innermost places (a timeout's, where it hung)
        places = [line.split(": ")[0] for line in text if _PLACE.match(line)]
        where = f" [at {' < '.join(reversed(places[-4:]))}]" if places else ""
        _rerun_reasons.append((report.nodeid, report.when, " | ".join(errors[:3])[:400] + where))


def pytest_terminal_summary(terminalreporter) -> None:  # noqa: ANN001 - pytest's TerminalReporter
    if _rerun_reasons:
        terminalreporter.section("why tests were rerun")
        for nodeid, when, error in _rerun_reasons:
            terminalreporter.write_line(f"{nodeid} ({when}): {error}")
