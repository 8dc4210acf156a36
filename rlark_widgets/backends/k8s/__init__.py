"""What the Kubernetes and KubeRay backends share: the official client's API door (timeouts,
retries, errors a user can act on), kubeconfig, nodes as an inventory and the node checks, pods
as Workers, and the parts of a refresh read from pods (events, Ray members, checkpoints, logs).

Neither backend knows the other; both build on this.
"""
