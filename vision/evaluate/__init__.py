"""Scoring the reader on labelled sets, live clips and benchmarks (never imported by the runtime)."""
