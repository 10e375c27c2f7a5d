"""Meta shape rules for the activation ops (registered with meta.rule)."""

from __future__ import annotations

import numpy

from ember.backend.meta import broadcast_shapes, rule


@rule(numpy.copyto)
def _copyto(dst, src, casting="same_kind", where=True):
    # writes in place: only the shapes need to agree (src and where broadcast to dst)
    shapes = [getattr(a, "shape", ()) for a in (src, where)]
    if broadcast_shapes(dst.shape, *shapes) != tuple(dst.shape):
        raise ValueError(
            f"could not broadcast input array from shape {shapes[0]} into shape {dst.shape}"
        )
