"""Meta shape rules for the activation ops (registered with meta.rule)."""

from __future__ import annotations

import numpy

from ember.backend.meta import MetaArray, broadcast_shapes, rule


@rule(numpy.copyto)
def _copyto(dst, src, casting="same_kind", where=True):
    # writes in place: only the shapes need to agree (src and where broadcast to dst)
    shapes = [getattr(a, "shape", ()) for a in (src, where)]
    if broadcast_shapes(dst.shape, *shapes) != tuple(dst.shape):
        raise ValueError(
            f"could not broadcast input array from shape {shapes[0]} into shape {dst.shape}"
        )


@rule(numpy.clip)
def _clip(a, a_min=None, a_max=None, out=None, **kwargs):
    shapes = [getattr(b, "shape", ()) for b in (a_min, a_max)]
    shape = broadcast_shapes(a.shape, *shapes)
    if out is not None:
        return out
    return MetaArray(shape, a.dtype)
