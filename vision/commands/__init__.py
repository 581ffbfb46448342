"""Thin command-line modules: argument parsing and output around the rooms' work."""
