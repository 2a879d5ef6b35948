"""Host-like test apps, one package each, with their own URLconf."""
