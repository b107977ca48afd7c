"""The experiment lab: its runner, scoring, module checks, reference runs and their report."""
