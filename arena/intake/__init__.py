"""Intake: how a bot gets in, from an upload to a qualified version on the ladder.

A submission's archive is checked and unpacked (uploads), played against the random bot on the
qualification table (qualification), registered as a bot version (bots), and, when it replaces a
predecessor, tested against it (sprt_runner). The house bots (house, house_bots) are registered
here too: they enter the ladder the same way, from the registry of built-in bots.
"""
