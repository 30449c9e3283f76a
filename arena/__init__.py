"""Tabletop Arena: the platform around the referee (storage, ratings, scheduling, API, CLI)."""

import referee  # noqa: F401 - chooses gRPC's I/O before anything here imports grpc
from referee.errors import SettingError  # noqa: F401 - the platform's name for it too
