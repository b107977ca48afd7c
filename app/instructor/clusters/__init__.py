"""What the class gets wrong: wrong submissions grouped by behaviour (issue 51).

`query` reads the offering's graded work (the one place that decides which work counts),
`grouping` groups it by behaviour key and picks representatives, `service` assembles clusters
with their heatmaps, and `routes` serves the page and the API. Turning a cluster into a
declared mistake writes course content, so it lives with authoring (`app/authoring/explain.py`).
"""
