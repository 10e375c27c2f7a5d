"""Meta shape rules for the linalg op family (registered with meta.rule)."""
