"""User-interface components of the migration assistant."""
