"""Solenia: deliver supplies around a planet whose day and night stopped turning."""
