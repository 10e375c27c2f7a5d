"""ember: PyTorch's ``torch.nn`` system in Python, from the tensor up.

``import ember as torch`` is the compatibility contract: the names below are PyTorch's.
"""

# ruff: noqa: I001  (the import order below is deliberate: autograd before the tensor and ops)

from ember import backend  # noqa: F401
from ember import _dtype as _dtype_mod
from ember._device import device, get_default_device, set_default_device  # noqa: F401
from ember._dtype import (  # noqa: F401
    bfloat16,
    can_cast,
    finfo,
    iinfo,
    cdouble,
    cfloat,
    complex64,
    complex128,
    float8_e4m3fn,
    float8_e4m3fnuz,
    float8_e5m2,
    float8_e5m2fnuz,
    float8_e8m0fnu,
    uint16,
    uint32,
    uint64,
    bool,
    double,
    dtype,
    float,
    float16,
    float32,
    float64,
    get_default_dtype,
    half,
    int,
    int8,
    int16,
    int32,
    int64,
    long,
    promote_types,
    set_default_dtype,
    short,
    uint8,
    qint8,
    qint32,
    quint8,
    quint4x2,
    quint2x4,
    qscheme,
    per_tensor_affine,
    per_channel_affine,
    per_tensor_symmetric,
    per_channel_symmetric,
    per_channel_affine_float_qparams,
)
from ember import autograd  # noqa: F401,I001  (first: it imports ember.tensor in the right order)
from ember.tensor import Size, Tensor  # noqa: F401
from ember.autograd.grad_mode import (  # noqa: F401
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from ember.autograd.anomaly_mode import (  # noqa: F401
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
)
from ember import ops as _ops  # noqa: F401  (attaches Tensor methods)
from ember.ops.creation import (  # noqa: F401
    arange,
    as_tensor,
    asarray,
    empty,
    empty_like,
    eye,
    from_numpy,
    full,
    full_like,
    linspace,
    logspace,
    ones,
    ones_like,
    scalar_tensor,
    tensor,
    tril_indices,
    triu_indices,
    zeros,
    zeros_like,
)
from ember.ops.pointwise import *  # noqa: F401,F403,E402
from ember.ops.math import *  # noqa: F401,F403,E402
from ember.ops.rounding import *  # noqa: F401,F403,E402
from ember.ops.binary_math import *  # noqa: F401,F403,E402
from ember.ops.clamp import *  # noqa: F401,F403,E402
from ember.ops.ternary import *  # noqa: F401,F403,E402
from ember.ops.comparison import *  # noqa: F401,F403,E402
from ember.ops.logical import *  # noqa: F401,F403,E402
from ember.ops.reduction import *  # noqa: F401,F403,E402
from ember.ops.extrema import *  # noqa: F401,F403,E402
from ember.ops.sorting import *  # noqa: F401,F403,E402
from ember.ops.cumulative import *  # noqa: F401,F403,E402
from ember.ops.shape import *  # noqa: F401,F403,E402
from ember.ops.broadcast import *  # noqa: F401,F403,E402
from ember.ops.slicing import *  # noqa: F401,F403,E402
from ember.ops.joining import *  # noqa: F401,F403,E402
from ember.ops.rearrange import *  # noqa: F401,F403,E402
from ember.ops.diagonal import *  # noqa: F401,F403,E402
from ember.ops.indexing import *  # noqa: F401,F403,E402
from ember.ops.gather_scatter import *  # noqa: F401,F403,E402
from ember.ops.index_dim import *  # noqa: F401,F403,E402
from ember.ops.masked import *  # noqa: F401,F403,E402
from ember.ops.nonzero_unique import *  # noqa: F401,F403,E402
from ember.ops.linalg import *  # noqa: F401,F403,E402
from ember.ops.addmm import *  # noqa: F401,F403,E402
from ember.ops.products import *  # noqa: F401,F403,E402
from ember.ops.cross import *  # noqa: F401,F403,E402
from ember.ops.einsum import *  # noqa: F401,F403,E402
from ember.ops.softmax import *  # noqa: F401,F403,E402
from ember.ops.special_gamma import *  # noqa: F401,F403,E402
from ember import random as _random  # noqa: E402

globals().update({_n: getattr(_random, _n) for _n in _random.TOP_LEVEL})
from ember import linalg, return_types, utils  # noqa: F401,E402
from ember._tensor_str import set_printoptions  # noqa: F401,E402
from ember.ops.conversion import clone  # noqa: F401,E402

__version__ = "0.1.0"

# torch's constants (``torch.pi``...); the builtin ``float`` is ember's dtype in this namespace
from math import e, inf, nan, pi  # noqa: E402,F401

newaxis = None


def is_tensor(obj) -> bool:
    """Whether ``obj`` is an ember Tensor (or a subclass such as Parameter)."""
    return isinstance(obj, Tensor)


def is_floating_point(input: Tensor) -> bool:
    return input.is_floating_point()


def is_nonzero(input: Tensor) -> bool:
    """The truth value of a one-element tensor (errors otherwise, as ``bool(t)``)."""
    if input.numel() != 1:
        what = "no values" if input.numel() == 0 else "more than one value"
        raise RuntimeError(f"Boolean value of Tensor with {what} is ambiguous")
    return input.__bool__()


def result_type(tensor1, tensor2) -> dtype:
    """The dtype of an arithmetic op between two tensors or numbers, by PyTorch's promotion
    rules (dimensioned tensors before zero-dim tensors before Python numbers).

    Example:
        >>> import ember
        >>> ember.result_type(ember.tensor([1, 2]), 1.0)
        ember.float32
    """
    from ember.ops._dispatch import promote

    return _dtype_mod.from_np(promote(tensor1, tensor2))


def numel(input: Tensor) -> int:
    return input.numel()


from ember import nn, optim  # noqa: F401,E402
from ember._layout import (  # noqa: F401,E402
    jagged,
    layout,
    sparse_bsc,
    sparse_bsr,
    sparse_coo,
    sparse_csc,
    sparse_csr,
    strided,
)

from ember import _lazy, _lazy_table  # noqa: E402

# What loads on first use, so ``import ember`` does not pay for it (ember/_lazy.py): the
# namespaces that define no ``ember.`` name (``ember.fft``, ``import ember.fft`` and
# ``from ember import fft`` all work; torch.windows is torch.signal.windows), and the op
# families of _lazy_table.py, whose ``ember.`` names and Tensor methods load their module.
_LAZY = {
    n: f"ember.{n}"
    for n in (
        "accelerator cpu jit mps testing version xpu fft signal quasirandom special masked "
        "compiler distributed hub multiprocessing profiler distributions cuda backends sparse "
        "serialization func amp ao quantization"
    ).split()
}
_LAZY["windows"] = "ember.signal.windows"
_LAZY.update(_lazy.names(__name__))
_lazy.attach_lazy_attrs(Tensor, _lazy_table.TENSOR)

from ember.random.generator import thread_safe_generator  # noqa: F401,E402

# Torch names ember deliberately lacks (ember/_unsupported.py): Tensor methods become stubs that
# raise NotImplementedError with the reason; module misses go through __getattr__ below.
from ember import _unsupported  # noqa: E402

_unsupported.attach_tensor_stubs(Tensor)
# ...and importing a torch module path ember lacks (``import ember.fx``) says why
_unsupported.install_module_finder()


def _miss(name: str):
    # Runs only on a miss that is no lazy namespace, so existing names cost nothing.
    if name == "__all__":
        # Built on first use, after every import above: torch's public names that ember has,
        # plus ember's documented extras (summary); submodules stay out, as in torch's __all__.
        names = sorted(
            {
                n
                for n, v in globals().items()
                if not n.startswith("_") and not isinstance(v, type(_unsupported))
            }
            | set(_lazy.names(__name__))
        )
        globals()["__all__"] = names
        return names
    if name == "Storage":
        # NOTE: matches torch: the legacy storage class of the default dtype (torch rebinds it in
        # set_default_dtype)
        from ember.storage import _LEGACY, FloatStorage

        return _LEGACY.get(get_default_dtype().name, FloatStorage)
    return _unsupported.module_getattr(__name__, name)


__getattr__ = _lazy.lazy_getattr(__name__, _LAZY, fallback=_miss)
__dir__ = _lazy.lazy_dir(globals(), _LAZY)


from ember._autocast import (  # noqa: F401,E402  (torch's autocast state functions)
    autocast_decrement_nesting,
    autocast_increment_nesting,
    clear_autocast_cache,
    get_autocast_cpu_dtype,
    get_autocast_dtype,
    get_autocast_gpu_dtype,
    is_autocast_cache_enabled,
    is_autocast_cpu_enabled,
    is_autocast_enabled,
    set_autocast_cache_enabled,
    set_autocast_cpu_dtype,
    set_autocast_cpu_enabled,
    set_autocast_dtype,
    set_autocast_enabled,
    set_autocast_gpu_dtype,
)
