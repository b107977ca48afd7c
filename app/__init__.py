"""Course platform web app: content, accounts, submissions and grading glue."""
