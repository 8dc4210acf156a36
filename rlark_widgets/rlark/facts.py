"""Facts about a run that no config holds: versions and image digest, given by the user."""

from __future__ import annotations

import platform
from dataclasses import dataclass
from importlib import metadata

from ..contract import DISTRIBUTION


def installed_version(distribution: str) -> str | None:
    """A package's installed version without importing it (Ray is slow to import)."""
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


@dataclass
class RecordFacts:
    """What the run record must hold beyond the config; ``None`` means not known (never invented)."""

    rlinf_commit: str | None = None
    image_digest: str | None = None
    cuda_version: str | None = None
    ray_version: str | None = None  # of the image; defaults to nothing, not to this machine's Ray
    python_version: str | None = None  # of the image

    def versions(self) -> dict[str, str | None]:
        from .. import __version__

        return {
            DISTRIBUTION: __version__,
            "rlinf_commit": self.rlinf_commit,
            "image_digest": self.image_digest,
            "ray (image)": self.ray_version,
            "python (image)": self.python_version,
            "cuda (image)": self.cuda_version,
            "ray (planning machine)": installed_version("ray"),
            "python (planning machine)": platform.python_version(),
        }
