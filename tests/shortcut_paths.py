"""Run a test on both paths of every shortcut (docs/shortcuts.md): ``ARENA_SHORTCUTS=on`` (the
private-API paths, where the installed releases were tested) and ``off`` (the public paths).

Import the fixture into a test module (``from tests.shortcut_paths import shortcut_setting``) and
ask for it; processes the test starts inherit the setting (a sandboxed bot too: the sandbox
passes ``ARENA_SHORTCUTS`` on).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from referee import shortcuts


@pytest.fixture(params=["on", "off"], ids=["shortcuts-on", "shortcuts-off"])
def shortcut_setting(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> Iterator[str]:
    """``ARENA_SHORTCUTS`` set to ``on`` or ``off`` for the test; yields the setting."""
    monkeypatch.setenv(shortcuts.ENV, request.param)
    shortcuts.reset_cache()
    yield request.param
    shortcuts.reset_cache()
