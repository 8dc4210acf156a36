"""The local backend: a Job's Workers as real Ray nodes on this machine, run by a detached supervisor."""
