"""Contacts: people an agent can look up, create and update."""
