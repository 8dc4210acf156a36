"""The Kubernetes backend: RLark Jobs over the official client, read back as snapshots."""
