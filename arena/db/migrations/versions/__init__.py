"""Alembic revision files (a package so that wheels ship them)."""
