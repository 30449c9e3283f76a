"""Switching every shortcut (docs/shortcuts.md) in a test process: the ``shortcut_setting``
fixture of tests/conftest.py runs a test with ``ARENA_SHORTCUTS=on`` and again with ``off`` (mark
it ``@pytest.mark.usefixtures("shortcut_setting")``), through :func:`apply_setting`. The setting is in ``os.environ`` for the whole test, so the worker and CLI processes the test
starts inherit it; in this process the decisions are forgotten
(:func:`referee.shortcuts.reset_cache`) and kombu's methods re-installed for the setting
(:func:`arena.workers.celery_app.install_kombu_shortcuts`), before the test and again after it.
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
    from arena.workers import celery_app

    celery_app.install_kombu_shortcuts()


def untested_shortcuts(*names: str) -> list[str]:
    """Of ``names`` (every shortcut when none is named), those the installed release of their
    package was not tested with: on such a release the version gate keeps them off, so "on" is
    the public path and a test of the private path has nothing to test (the CI run against the
    declared minimum versions, .ci/run)."""
    import arena  # noqa: F401 - registers the broker, database and rating shortcuts
    import arena.sdk.bot_server  # noqa: F401 - registers cygrpc_server
    import referee.direct_stream  # noqa: F401 - registers cygrpc_stream

    table = shortcuts.registered()
    return [
        name
        for name in (names or tuple(table))
        if not shortcuts.version_tested(table[name], shortcuts.installed_version(table[name].package))
    ]


def needs_tested_releases(*names: str):  # noqa: ANN201 - a pytest mark
    """Skip a test of the private paths where the installed releases gate them off."""
    import pytest

    gated = untested_shortcuts(*names)
    return pytest.mark.skipif(
        bool(gated), reason=f"gated off on the installed releases: {', '.join(gated)}"
    )
