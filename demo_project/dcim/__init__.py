"""DCIM: sites, devices placed at them, and tags on devices."""
