"""Browser tests: the web console driven by Playwright in Debian's Chromium against the real stack."""
