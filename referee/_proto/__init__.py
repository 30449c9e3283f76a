"""Generated gRPC code, built from ``protos/`` by grpcio-tools when the package is installed.

The ``*_pb2*.py`` files here are build products (git-ignored) and must never be edited by hand:
change the ``.proto`` files and reinstall (or run ``python -m arena.build_protos``).

Both files' code is here, in the lowest Python layer: the referee speaks ``bot.proto`` to bots
and ``arena.proto``'s ``DialinRelay`` to the dial-in relay; the platform imports it from here.
"""
