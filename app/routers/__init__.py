"""HTTP routes: pages and fragments, the JSON API, the health check."""
