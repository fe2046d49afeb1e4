"""Pure models of a GPU: arithmetic only, no GPU and no I/O, so the tests need neither."""
