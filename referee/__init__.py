"""The referee: game engines, the match runner and how bots are hosted and talked to."""

from referee.grpc_io import choose_io

choose_io()  # before anything imports grpc: it reads its settings once (referee/grpc_io.py)
