"""The commands of ``labkit`` (labkit/cli.py parses and dispatches): doctor, diagnose, and the
labs' notebooks for a notebook service (notebooks)."""
