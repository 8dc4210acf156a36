"""rlark-widgets: a Jupyter/Voila assistant that migrates RLinf workloads to RLark."""

from importlib.metadata import PackageNotFoundError, version

from .contract import DISTRIBUTION

try:
    __version__ = version(DISTRIBUTION)
except PackageNotFoundError:  # running from a source tree without an install
    __version__ = "0.1.0"

__all__ = ["__version__"]
