"""Hostile: a gRPC server whose Act answers bytes that are no ActReply message at all."""

import os
from concurrent import futures

import grpc

from arena.sdk import ADDRESS_ENV
from referee._proto import bot_pb2


def start_match(request: bytes, context) -> bytes:
    return bot_pb2.Ready(protocol_version=1, bot_name="garbage").SerializeToString()


def act(request: bytes, context) -> bytes:
    return b"\x0f\x0f\x0fgarbage that is not protobuf"


def end_match(request: bytes, context) -> bytes:
    return b""


if __name__ == "__main__":
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    handlers = {
        name: grpc.unary_unary_rpc_method_handler(fn)
        for name, fn in (("StartMatch", start_match), ("Act", act), ("EndMatch", end_match))
    }
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("tabletop.bot.v1.Bot", handlers),))
    server.add_insecure_port(os.environ[ADDRESS_ENV])
    server.start()
    server.wait_for_termination()
