"""Meta shape rules for the reduction op family (registered with meta.rule)."""
