"""Security and failure-shape tests: what an attacker or an unlucky user can do through the HTTP API."""
