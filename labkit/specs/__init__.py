"""What GPUs are, as data readable without a GPU: vendor datasheets and what the driver
reports on common parts (the doctor, figures, plans and tests read them)."""
