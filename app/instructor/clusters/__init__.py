"""What the class gets wrong: wrong submissions grouped by behaviour (issue 51).

`query` reads the offering's graded work (the one place that decides which work counts),
`grouping` groups it by behaviour key and picks representatives, `service` assembles clusters
with their heatmaps, and `routes` serves the page and the API. `explain` (with `mistakes_file`
and `explain_routes`) turns a cluster into a declared mistake.
"""
