"""A fixture that runs a test twice: with every shortcut on, and with ``ARENA_SHORTCUTS=off``
(every dependency's public path; docs/shortcuts.md).

A test module imports it (``from tests.shortcut_paths import shortcut_paths  # noqa: F401``) and
marks the tests that exercise a shortcut with ``@pytest.mark.usefixtures("shortcut_paths")``.
The setting is in ``os.environ`` for the whole test, so the worker and CLI processes the test
starts inherit it; in this process the decisions are forgotten
(:func:`referee.shortcuts.reset_cache`) and kombu's methods re-installed for the setting
(:func:`arena.celery_app.install_kombu_shortcuts`), before the test and again after it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from referee import shortcuts


def apply_setting(value: str | None) -> None:
    """Set ``ARENA_SHORTCUTS`` (None: unset) and make this process follow it at once."""
    if value is None:
        os.environ.pop(shortcuts.ENV, None)
    else:
        os.environ[shortcuts.ENV] = value
    shortcuts.reset_cache()
    from arena import celery_app

    celery_app.install_kombu_shortcuts()


@pytest.fixture(params=["on", "off"], ids=["shortcuts-on", "shortcuts-off"])
def shortcut_paths(request: pytest.FixtureRequest) -> Iterator[str]:
    old = os.environ.get(shortcuts.ENV)
    apply_setting(request.param)
    try:
        yield request.param
    finally:
        apply_setting(old)
