"""``ember.cuda.sparse``: the legacy typed classes of sparse CUDA tensors.

No CUDA tensor exists in ember: nothing is an instance of these, and building one raises what a
CPU-only torch raises.
"""

from __future__ import annotations

from ember.cuda._legacy import tensor_types

__all__ = [
    "BFloat16Tensor",
    "ByteTensor",
    "CharTensor",
    "DoubleTensor",
    "FloatTensor",
    "HalfTensor",
    "IntTensor",
    "LongTensor",
    "ShortTensor",
]

_types = tensor_types("cuda.sparse", sparse=True)
BFloat16Tensor = _types["BFloat16Tensor"]
ByteTensor = _types["ByteTensor"]
CharTensor = _types["CharTensor"]
DoubleTensor = _types["DoubleTensor"]
FloatTensor = _types["FloatTensor"]
HalfTensor = _types["HalfTensor"]
IntTensor = _types["IntTensor"]
LongTensor = _types["LongTensor"]
ShortTensor = _types["ShortTensor"]
