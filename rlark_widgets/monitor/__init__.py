"""Snapshots of a running Job (Workers, Ray members, RLinf progress) and their diagnosis."""
