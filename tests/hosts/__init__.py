"""Host-like test apps: each configured as a real project runs in production."""
