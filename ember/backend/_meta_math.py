"""Meta shape rules for the math op family (registered with meta.rule)."""

from __future__ import annotations

import numpy as _np

from ember.backend.meta import MetaArray, rule


@rule(_np.nan_to_num)
def _nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    return MetaArray(x.shape, x.dtype)
