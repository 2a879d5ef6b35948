"""Models and viewsets that exercise frisian_mcp beyond the demo."""
