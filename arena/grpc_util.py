"""Shared gRPC plumbing: every server the project runs offers health checking and reflection.

Health lets orchestration (docker-compose, the referee waiting for a bot) ask "are you up?";
reflection lets ``grpcurl`` list and call services without the .proto files.
"""

from __future__ import annotations

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection


def add_health_and_reflection(server: grpc.Server, *service_names: str) -> health.HealthServicer:
    servicer = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(servicer, server)
    for name in ("", *service_names):
        servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    reflection.enable_server_reflection(
        (*service_names, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name, reflection.SERVICE_NAME),
        server,
    )
    return servicer


async def add_health_and_reflection_aio(server: grpc.aio.Server, *service_names: str) -> object:
    """The same for a ``grpc.aio`` server (called on its event loop): health's Watch streams
    are coroutines there too, so they hold no thread."""
    servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(servicer, server)
    for name in ("", *service_names):
        await servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    reflection.enable_server_reflection(
        (*service_names, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name, reflection.SERVICE_NAME),
        server,
    )
    return servicer
