"""Meta shape rules for the shape op family (registered with meta.rule)."""
