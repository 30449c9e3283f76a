"""The archive taken out as training data (``arena export``, docs/datasets.md).

A room above both the CLI and the toolkit environments because it needs both sides: the
database's selection of matches (:mod:`arena.records.dataset`) and the environments' encodings of
what a seat saw (:mod:`arena.envs.decisions`). The CLI attaches its commands by module name
(``COMMAND_MODULES``), as it does ``arena web`` and ``arena bench``.
"""
