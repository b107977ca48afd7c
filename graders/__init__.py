"""Grading engine: runs untrusted code in a sandbox and judges it. Never imports `app`."""
