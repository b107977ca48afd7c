"""Offerings: a course run for one group of people (a term or a section), and who is in it."""
