"""Single-page-app hosts: a catch-all route serves the front end (issue 18 item 8)."""
