"""``ember.nn.attention.experimental``: empty, as PyTorch's (its features are private)."""

__all__: list[str] = []
