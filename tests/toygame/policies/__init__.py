"""Pig race's policies."""
