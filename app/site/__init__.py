"""Pages and endpoints that combine several domains: home, lessons, exercises, history, metrics."""
