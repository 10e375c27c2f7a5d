"""The legacy typed classes of ``torch.cuda`` (``torch.cuda.FloatTensor``, ``FloatStorage``...).

They exist so that ``isinstance(x, torch.cuda.FloatTensor)`` and ``FloatTensor.dtype`` work in
scripts written for a GPU; no CUDA tensor or storage can exist in ember, so no object is an
instance of them and building one raises what a CPU-only torch raises.
"""

from __future__ import annotations

from ember import _dtype
from ember.storage import TypedStorage, _LegacyStorageMeta

_TENSOR_DTYPES = {
    "BoolTensor": "bool",
    "ByteTensor": "uint8",
    "CharTensor": "int8",
    "ShortTensor": "int16",
    "IntTensor": "int32",
    "LongTensor": "int64",
    "HalfTensor": "float16",
    "FloatTensor": "float32",
    "DoubleTensor": "float64",
    "BFloat16Tensor": "bfloat16",
}
_STORAGE_DTYPES = {
    "BoolStorage": "bool",
    "ByteStorage": "uint8",
    "CharStorage": "int8",
    "ShortStorage": "int16",
    "IntStorage": "int32",
    "LongStorage": "int64",
    "HalfStorage": "float16",
    "FloatStorage": "float32",
    "DoubleStorage": "float64",
    "BFloat16Storage": "bfloat16",
    "ComplexFloatStorage": "complex64",
    "ComplexDoubleStorage": "complex128",
}


class _CudaTensorType(type):
    """Metaclass of the CUDA typed tensor classes: no ember tensor is a CUDA tensor."""

    def __call__(cls, *args, **kwargs):
        # NOTE: matches torch: a CPU-only build refuses the type itself, whatever the arguments
        raise TypeError(
            f"type {cls._torch_name} not available. Torch not compiled with CUDA enabled."
        )

    def __instancecheck__(cls, obj) -> bool:
        return False

    @property
    def is_cuda(cls) -> bool:
        return True


def _tensor_type(module: str, name: str, sparse: bool) -> type:
    dt = getattr(_dtype, _TENSOR_DTYPES[name])
    from ember import _layout

    layout = _layout.sparse_coo if sparse else _layout.strided
    return _CudaTensorType(
        name,
        (),
        {
            "dtype": dt,
            "layout": layout,
            "is_sparse": sparse,
            "_torch_name": f"torch.{module}.{name}",
            "__module__": f"ember.{module}",
            "__doc__": f"Legacy type of CUDA ``{dt}`` tensors: cannot be built without CUDA.",
        },
    )


def tensor_types(module: str, sparse: bool = False) -> dict[str, type]:
    """The typed tensor classes of ``torch.<module>``."""
    names = [n for n in _TENSOR_DTYPES if not (sparse and n == "BoolTensor")]
    return {n: _tensor_type(module, n, sparse) for n in names}


class _CudaStorageMeta(_LegacyStorageMeta):
    def __instancecheck__(cls, obj) -> bool:
        # every ember storage lives on the CPU
        return False

    def __call__(cls, *args, **kwargs):
        # NOTE: matches torch: building a CUDA storage checks for CUDA first
        raise AssertionError("Torch not compiled with CUDA enabled")

    @property
    def is_cuda(cls) -> bool:
        return True


def storage_types() -> dict[str, type]:
    """The typed storage classes of ``torch.cuda``."""
    out = {}
    for name, dt_name in _STORAGE_DTYPES.items():
        dt = getattr(_dtype, dt_name)
        out[name] = _CudaStorageMeta(
            name,
            (TypedStorage,),
            {
                "_legacy_dtype": dt,
                "dtype": dt,
                "__module__": "ember.cuda",
                "__doc__": f"Legacy CUDA storage of ``{dt}``: cannot be built without CUDA.",
            },
        )
    return out
