"""Benchmarks: speed and memory, reported as numbers, never asserted in tests.

Each module runs on its own: ``python -m benchmarks.<name>``.
"""
