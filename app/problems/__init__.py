"""Students report problems with an exercise or a quiz question; instructors resolve them."""
