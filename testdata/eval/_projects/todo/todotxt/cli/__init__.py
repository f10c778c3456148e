"""The todo command line."""
