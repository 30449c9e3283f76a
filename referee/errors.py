"""Errors shared by every layer above the referee."""


class SettingError(RuntimeError):
    """An operator's setting (an environment variable, a secret file) that cannot be used.

    The CLI prints its message as one line instead of a traceback.
    """
