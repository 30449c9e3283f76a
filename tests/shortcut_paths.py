"""Switching every shortcut (docs/shortcuts.md) in a test process: the ``shortcut_setting``
fixture of tests/conftest.py runs a test with ``ARENA_SHORTCUTS=on`` and again with ``off`` (mark
it ``@pytest.mark.usefixtures("shortcut_setting")``), through :func:`apply_setting`. The setting is in ``os.environ`` for the whole test, so the worker and CLI processes the test
starts inherit it; in this process the decisions are forgotten
(:func:`referee.shortcuts.reset_cache`) and kombu's methods re-installed for the setting
(:func:`arena.celery_app.install_kombu_shortcuts`), before the test and again after it.
"""

from __future__ import annotations

import os

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
