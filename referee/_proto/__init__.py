"""Generated gRPC code, built from ``protos/`` by grpcio-tools when the package is installed.

The ``*_pb2*.py`` files here are build products (git-ignored) and must never be edited by hand:
change the ``.proto`` files and reinstall (or run ``python -m arena.build_protos``).
"""
