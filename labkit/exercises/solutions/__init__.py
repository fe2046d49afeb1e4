"""Our solutions to the exercises, one module each (the chapters show them on request)."""
