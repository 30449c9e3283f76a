"""Tabletop Arena: the platform around the referee (storage, ratings, scheduling, API, CLI).

Its code lives in rooms, one concern each, each importing only the rooms below it
(docs/architecture.md; the contracts in pyproject.toml): ``cli``, ``server``, ``play``,
``workers``, ``competition``, ``records``, ``intake``, ``evaluation``, ``db`` and ``sdk``, with
``envs`` (the learning toolkit) beside ``cli``. What a bot author imports is :mod:`arena.sdk`;
what stays here is the package's public face: :class:`SettingError`, the shortcuts' registry,
:mod:`arena.quoting`, and the module names used before the rooms (:mod:`arena._moved`).
"""

import referee  # noqa: F401 - chooses gRPC's I/O before anything here imports grpc
from arena import _moved  # noqa: F401 - old module names keep working (issue #36)

# Registers the broker, database and rating shortcuts, so ARENA_SHORTCUTS knows their names in
# every process that imports the platform (the CLI checks the setting at start-up).
from arena import shortcuts as _shortcuts  # noqa: F401 - registers them
from referee.errors import SettingError  # noqa: F401 - the platform's name for it too
