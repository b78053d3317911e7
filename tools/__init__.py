"""Developer tools: the load test."""
