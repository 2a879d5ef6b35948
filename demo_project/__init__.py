"""A runnable Django project that serves a small CRUD database through DRF and MCP.

Apps: ``demo_project.contacts`` (Contact) and ``demo_project.dcim`` (Site,
Device, Tag). ``python manage.py seed_demo`` fills the database.
"""
