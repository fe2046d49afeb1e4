"""Caught by: host_written
No kernel at all: the product is computed by NumPy on the host and copied into c. The output is
right, and no shared memory is read; what the chapter asks of a GPU kernel is not there."""

import numpy as np


def run(a, b, c):
    product = a.copy_to_host().astype(np.float64) @ b.copy_to_host().astype(np.float64)
    c.copy_to_device(product.astype(np.float32))
