"""Optional features, each behind a documented hook; the core imports none."""
