"""RLinf's own placement code as a test oracle (test-only; see the Makefile's oracle target)."""
