"""labkit: the kernels, measurement tools and site tooling of the executable GPU performance course."""

__version__ = "0.1.0"
