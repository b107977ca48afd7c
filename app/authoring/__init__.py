"""Course authoring tools: scaffold, validate, grading checks and the editors' JSON schemas."""
