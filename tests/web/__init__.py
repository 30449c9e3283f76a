"""Website tests: Flask test client, real Chromium through Playwright, markup checks."""
