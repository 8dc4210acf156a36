"""One protocol, three implementations: ``local`` (real Ray processes), ``kubernetes`` (RLark's
Job) and ``kuberay`` (KubeRay's RayJob/RayCluster)."""
