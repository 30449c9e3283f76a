"""Tests of the referee: sandbox, match runner, records and replay (real processes and sockets)."""
