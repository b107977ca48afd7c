"""Turning a raw run into verdicts: exercise specs, comparison, feedback and known mistakes."""
