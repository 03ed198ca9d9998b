"""Adapters of the GitHub port."""
