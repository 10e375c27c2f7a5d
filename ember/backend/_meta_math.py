"""Meta shape rules for the math op family (registered with meta.rule)."""
