"""Plotly figure builders: plain data in, ``go.Figure`` out (no ipywidgets, testable headless)."""
