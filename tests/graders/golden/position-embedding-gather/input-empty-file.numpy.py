# Bad input: nothing but this comment -> invalid_submission.
