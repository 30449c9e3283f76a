"""Tabletop Arena: the platform around the referee (storage, ratings, scheduling, API, CLI)."""


class SettingError(RuntimeError):
    """An operator's setting (an environment variable, a secret file) that cannot be used.

    The CLI prints its message as one line instead of a traceback.
    """
