"""The ``kuberay`` backend: RayJob/RayCluster on any Kubernetes with the KubeRay operator."""

from .backend import KubeRayBackend

__all__ = ["KubeRayBackend"]
