"""Tests of the sandbox, with real bubblewrap."""
