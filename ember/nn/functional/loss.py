"""``ember.nn.functional``: Losses: cross_entropy, nll_loss, mse_loss, bce, kl_div, ctc_loss..."""

from __future__ import annotations

__all__: list[str] = []
