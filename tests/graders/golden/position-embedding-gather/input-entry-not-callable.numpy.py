# Bad input: the required name exists but is a number, not a function -> invalid_submission.
position_embedding_gather = 42
