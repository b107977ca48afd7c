"""LTI 1.3 Advantage, tool side: launches from an LMS, deep linking, grade passback, rosters."""
