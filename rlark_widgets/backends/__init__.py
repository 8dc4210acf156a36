"""One protocol, two implementations: ``local`` (real Ray processes) and ``kubernetes``."""
