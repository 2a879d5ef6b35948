"""Host-like apps: each reproduces one pattern of a real DRF project."""
