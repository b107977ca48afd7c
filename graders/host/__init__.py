"""Process management on the host: warm pools, fork servers, start lanes, health, warm-ups."""
