"""The app's steps as thin ipywidgets views over the Session, one module per step.

Each view builds its widgets once, observes the session traits it shows, and forwards every
click to one session method. Labels are bound through :class:`~..labels.Labels` and HTML is
rendered in ``session.lang``, so the language toggle re-labels the same widgets.
"""

from .cluster import ClusterStep
from .import_config import ImportStep
from .job import JobStep
from .monitor import MonitorStep
from .roles import RolesStep
from .topology import TopologyStep

__all__ = ["ClusterStep", "ImportStep", "JobStep", "MonitorStep", "RolesStep", "TopologyStep"]
