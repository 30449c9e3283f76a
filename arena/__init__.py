"""Tabletop Arena: the platform around the referee (storage, ratings, scheduling, API, CLI)."""

import referee  # noqa: F401 - chooses gRPC's I/O before anything here imports grpc


class SettingError(RuntimeError):
    """An operator's setting (an environment variable, a secret file) that cannot be used.

    The CLI prints its message as one line instead of a traceback.
    """
