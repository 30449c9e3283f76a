"""One module per group of ``arena`` sub-commands; each exposes ``register(group)``."""
