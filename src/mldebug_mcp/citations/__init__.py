"""Evidence: sources, verbatim excerpts, the Argdown evidence map, and quote lookup (pure)."""
