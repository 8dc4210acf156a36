"""Read RLinf: Hydra composition, the typed cluster model and a placement engine faithful to RLinf.

Nothing here imports ipywidgets or kubernetes; everything is a pure function of the config.
"""

from .cluster import ClusterSpec, NodeGroupSpec, PlacementEntry, parse_cluster
from .errors import ClusterConfigError, ConfigLoadError, PlacementError, RLinfConfigError
from .expansion import Expansion, NodeSummary, expand_placement, gpu_requirements
from .loader import RLinfConfig, compose_config, load_config, load_text, rlinf_repo_env
from .report import ConfigReport, inspect_config
from .strategies import ProcessPlacement
from .topology import GpuLayout

__all__ = [
    "ClusterConfigError",
    "ClusterSpec",
    "ConfigLoadError",
    "ConfigReport",
    "Expansion",
    "GpuLayout",
    "NodeGroupSpec",
    "NodeSummary",
    "PlacementEntry",
    "PlacementError",
    "ProcessPlacement",
    "RLinfConfig",
    "RLinfConfigError",
    "compose_config",
    "expand_placement",
    "gpu_requirements",
    "inspect_config",
    "load_config",
    "load_text",
    "parse_cluster",
    "rlinf_repo_env",
]
