"""The user-facing ``Tensor``: a backend array plus autograd metadata.

This file holds the Tensor's data model (slots, properties, conversions, autograd entry points).
Its math methods and operators are attached by the op files in ``ember/ops/``, each next to the
op it calls, so that one file holds an op and every name that reaches it.

Invariants:
- ``_data`` is always a backend array (never a NumPy scalar), ``_vc`` a one-element list, the
  version counter, shared by a tensor and its views and bumped by every in-place change.
- ``_grad_fn`` is the node that produced the tensor (``None`` for leaves); ``_output_nr`` is
  which of that node's outputs it is.
"""

from __future__ import annotations

from ember import _dtype, backend
from ember._device import CPU, META, device
from ember._layout import strided as _strided
from ember.autograd import grad_mode as _gm

_new = object.__new__
_state = _gm.state


def _no_imag(v: complex, ctype: str) -> bool:
    """True for a complex scalar with no imaginary part; torch's error otherwise."""
    if v.imag != 0:
        raise RuntimeError(f"value cannot be converted to type {ctype} without overflow")
    return True


class Tensor:
    """A multi-dimensional array that records the operations applied to it for autograd.

    Build tensors with ``ember.tensor``, ``ember.zeros`` and the other factory functions.
    ``Tensor(*sizes)`` and ``Tensor(data)`` work as in PyTorch (legacy constructor, default dtype).

    Example:
        >>> x = ember.tensor([1.0, 2.0], requires_grad=True)
        >>> (x * x).sum().backward()
        >>> x.grad
        tensor([2., 4.])
    """

    __slots__ = (
        "_data",
        "_requires_grad",
        "_grad",
        "_grad_fn",
        "_vc",
        "_base",
        "__dict__",
        "__weakref__",
    )
    # Rarely set; instances override them in their __dict__ when needed.
    _output_nr = 0
    _next = None  # graph edges: a leaf is its own accumulation node and has none (engine.py)
    _hooks = None
    _post_acc_hooks = None
    _retains_grad = False
    _is_inference = False
    _view_fn = None  # on views: recreates this view from ``_base`` (a Tensor -> Tensor function)
    _view_version = 0  # on views: the version counter when the view's history was last valid
    _view_of_function = None  # on views made by a user Function: its name (no in-place on them)
    __array_priority__ = 1000  # make ``ndarray + Tensor`` defer to Tensor.__radd__
    layout = _strided  # sparse tensors (ember/sparse) override these three
    is_sparse = False
    is_sparse_csr = False

    def __new__(cls, *args, **kwargs):
        from ember.ops.creation import _legacy_new

        return _legacy_new(cls, *args, **kwargs)

    def __init__(self, *args, **kwargs):
        pass

    # ---- autograd metadata -------------------------------------------------------------------
    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        self.requires_grad_(value)

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        """Set ``requires_grad`` in place (leaves only) and return ``self``."""
        requires_grad = bool(requires_grad)
        if self._grad_fn is not None and not requires_grad:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use "
                "a computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach()."
            )
        if requires_grad and self._data.dtype.kind not in "fcV":
            raise RuntimeError(
                f"only Tensors of floating point dtype can require gradients, got {self.dtype}"
            )
        self._requires_grad = requires_grad
        return self

    @property
    def grad(self) -> Tensor | None:
        return self._grad

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(
                    f"assigned grad expected to be a Tensor or None, got {type(value).__name__}"
                )
            if value.shape != self.shape:
                raise RuntimeError(
                    f"assigned grad has data of a different size: grad {tuple(value.shape)} for "
                    f"a tensor of shape {tuple(self.shape)}"
                )
            # grad_dtype (ember/_runtime.py) may allow another dtype, or any (None)
            want = self.__dict__.get("_grad_dtype", self.dtype)
            if want is not None and value.dtype is not want:
                raise RuntimeError(
                    f"assigned grad has data of a different type: {value.dtype} for a tensor "
                    f"of {self.dtype}"
                )
        self._grad = value

    @grad.deleter
    def grad(self) -> None:
        self._grad = None

    @property
    def grad_fn(self):
        return self._grad_fn

    @property
    def is_leaf(self) -> bool:
        return self._grad_fn is None

    def _is_view(self) -> bool:
        """Whether this tensor is a view of another (``_base``), as PyTorch's."""
        return self._base is not None

    @property
    def output_nr(self) -> int:
        return self._output_nr

    @property
    def _version(self) -> int:
        return self._vc[0]

    @property
    def retains_grad(self) -> bool:
        return self._retains_grad

    def is_inference(self) -> bool:
        return self._is_inference

    @property
    def data(self) -> Tensor:
        """The same data, detached from autograd (shares memory, not the version counter)."""
        t = _wrap(self._data)
        return t

    @data.setter
    def data(self, value: Tensor) -> None:
        if not isinstance(value, Tensor):
            raise TypeError(f"data must be a Tensor, got {type(value).__name__}")
        self._data = value._data

    def detach(self) -> Tensor:
        """A new tensor sharing data and version counter, outside the graph."""
        t = _wrap(self._data)
        t._vc = self._vc
        return t

    def detach_(self) -> Tensor:
        """Detach in place: make this tensor a leaf that does not require grad."""
        if self._base is not None and self._base._requires_grad:
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using "
                "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is "
                "set as True, gradients are views of DDP buckets..."
            )
        self._grad_fn = None
        self._requires_grad = False
        return self

    def retain_grad(self) -> None:
        """Keep ``.grad`` for this non-leaf tensor after backward."""
        if self._grad_fn is None:
            if not self._requires_grad:
                raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
            return  # leaves keep their grad anyway
        if self._retains_grad:
            return
        self._retains_grad = True
        from ember.autograd.function import _add_retain_grad

        _add_retain_grad(self)

    def register_hook(self, hook):
        """Register ``hook(grad) -> Tensor | None`` to run when this tensor's grad is computed.

        Returning a tensor replaces the gradient. Returns a handle with ``remove()``.
        """
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        from ember.autograd.function import _register_tensor_hook

        return _register_tensor_hook(self, hook)

    def register_post_accumulate_grad_hook(self, hook):
        """Register ``hook(tensor)`` to run after ``.grad`` of this leaf has been accumulated."""
        if self._grad_fn is not None:
            raise RuntimeError(
                "post accumulate grad hooks cannot be registered on non-leaf tensors"
            )
        from ember.autograd.function import _HookList

        if self._post_acc_hooks is None:
            self._post_acc_hooks = _HookList()
        return self._post_acc_hooks.add(hook)

    # ``backward`` is attached by ``ember/autograd/engine.py`` (``tensor_backward``)

    # ---- shape and type ----------------------------------------------------------------------
    @property
    def shape(self) -> Size:
        return Size(self._data.shape)

    def size(self, dim: int | None = None):
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[_wrap_dim(dim, self._data.ndim)]

    def dim(self) -> int:
        return self._data.ndim

    ndimension = dim

    @property
    def ndim(self) -> int:
        return self._data.ndim

    def numel(self) -> int:
        return self._data.size

    nelement = numel

    def element_size(self) -> int:
        return self._data.dtype.itemsize

    @property
    def itemsize(self) -> int:
        return self._data.dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self._data.size * self._data.dtype.itemsize

    @property
    def dtype(self) -> _dtype.dtype:
        return _dtype._FROM_NP[self._data.dtype]

    def is_floating_point(self) -> bool:
        return self._data.dtype.kind in "fV"

    def is_complex(self) -> bool:
        return self._data.dtype.kind == "c"

    @property
    def is_quantized(self) -> bool:
        # a quantized tensor's array (ops/_quantized_array.py) has a stand-in quantized dtype
        return self._data.dtype.__class__ is _dtype._QuantizedNp

    @property
    def is_cuda(self) -> bool:
        return backend.namespace(self._data).device_type == "cuda"

    @property
    def is_meta(self) -> bool:
        return backend.namespace(self._data).device_type == "meta"

    @property
    def is_cpu(self) -> bool:
        return backend.namespace(self._data).device_type == "cpu"

    # Devices ember has no backend for: a tensor is never on them.
    is_xpu = is_mps = is_ipu = is_mtia = is_maia = is_vulkan = is_xla = property(lambda self: False)

    @property
    def device(self) -> device:
        xp = backend.namespace(self._data)
        if xp.device_type == "cpu":
            return CPU
        if xp.device_type == "meta":
            return META
        return device(xp.device_type, xp.device_index(self._data))

    def get_device(self) -> int:
        d = self.device
        return -1 if d.type == "cpu" else (d.index or 0)

    def is_contiguous(self, memory_format=None) -> bool:
        if memory_format is not None:
            from ember.ops.memory import is_contiguous_in  # (memory formats: first use)

            return is_contiguous_in(self, memory_format)
        return backend.namespace(self._data).is_contiguous(self._data)

    def stride(self, dim: int | None = None):
        st = backend.namespace(self._data).strides_of(self._data)
        return st if dim is None else st[_wrap_dim(dim, self._data.ndim)]

    def storage_offset(self) -> int:
        return backend.namespace(self._data).storage_offset(self._data)

    def data_ptr(self) -> int:
        return backend.namespace(self._data).data_ptr(self._data)

    # ---- Python protocol ---------------------------------------------------------------------
    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    __hash__ = object.__hash__  # identity, as PyTorch (``==`` is element-wise)

    def _scalar(self, op: str):
        if self._data.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._data.size} elements cannot be converted to Scalar "
                f"(in {op}); shape {tuple(self._data.shape)}"
            )
        xp = backend.namespace(self._data)
        if xp.device_type == "meta":
            raise RuntimeError(f"Tensor.{op}() cannot be called on meta tensors: they hold no data")
        return xp.to_numpy(self._data).reshape(()).item()

    def item(self):
        """The value of a one-element tensor as a Python number."""
        return self._scalar("item")

    def __bool__(self) -> bool:
        if self._data.size != 1:
            raise RuntimeError(
                f"Boolean value of Tensor with more than one value is ambiguous "
                f"(shape {tuple(self._data.shape)}); use .any() or .all()"
            )
        return bool(self._scalar("__bool__"))

    def __float__(self) -> float:
        v = self._scalar("__float__")
        return float(v.real if v.__class__ is complex and _no_imag(v, "double") else v)

    def __int__(self) -> int:
        v = self._scalar("__int__")
        return int(v.real if v.__class__ is complex and _no_imag(v, "int64_t") else v)

    def __index__(self) -> int:
        if self._data.dtype.kind not in "iub":
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self._scalar("__index__"))

    def __complex__(self) -> complex:
        return complex(self._scalar("__complex__"))

    def tolist(self):
        xp = backend.namespace(self._data)
        if xp.device_type == "meta":
            raise RuntimeError(
                "Tensor.tolist() cannot be called on meta tensors: they hold no data"
            )
        return xp.to_numpy(self._data).tolist()

    def numpy(self, *, force: bool = False):
        """The data as a NumPy array, sharing memory on the CPU."""
        if self._requires_grad and not force:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                "instead."
            )
        xp = backend.namespace(self._data)
        if xp.device_type != "cpu" and not force:
            raise TypeError(
                f"can't convert {xp.device_type} device type tensor to numpy. Use Tensor.cpu() "
                "to copy the tensor to host memory first."
            )
        return xp.to_numpy(self._data)

    def __array__(self, dtype=None, copy=None):
        a = self.numpy(force=self._data.__class__ is backend.ndarray)
        if dtype is not None:
            a = a.astype(dtype, copy=False)
        return a.copy() if copy else a

    def __repr__(self, *, tensor_contents=None) -> str:
        from ember._tensor_str import tensor_repr

        return tensor_repr(self, tensor_contents=tensor_contents)

    def __format__(self, spec: str) -> str:
        if self._data.ndim == 0 and spec:
            return format(self.item(), spec)
        return object.__format__(self, spec) if spec else repr(self)

    def __reduce_ex__(self, proto):
        from ember._tensor_str import _rebuild_tensor

        xp = backend.namespace(self._data)
        data = (
            xp.to_numpy(self._data)
            if xp.device_type != "meta"
            else (tuple(self._data.shape), self._data.dtype.name)
        )
        return (_rebuild_tensor, (xp.device_type, data, self._requires_grad, type(self)))

    def __deepcopy__(self, memo):
        if self._grad_fn is not None:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
                "protocol at the moment. If you were attempting to deepcopy a module, this may "
                "be because of a torch.nn.utils.weight_norm usage, see "
                "https://github.com/pytorch/pytorch/pull/103001"
            )
        if id(self) in memo:
            return memo[id(self)]
        xp = backend.namespace(self._data)
        t = _new(type(self))
        _init(t, xp.copy(self._data), self._requires_grad)
        memo[id(self)] = t
        if self._grad is not None:
            t._grad = self._grad.__deepcopy__(memo)
        if self.__dict__:
            import copy

            for k, v in self.__dict__.items():
                if k not in ("_hooks", "_post_acc_hooks"):
                    t.__dict__[k] = copy.deepcopy(v, memo)
        return t


class Size(tuple):
    """The shape of a tensor: a tuple of ints (``torch.Size``)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"ember.Size([{', '.join(str(s) for s in self)}])"

    def numel(self) -> int:
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, key):
        r = tuple.__getitem__(self, key)
        return Size(r) if isinstance(key, slice) else r

    def __add__(self, other):
        return Size(tuple.__add__(self, tuple(other)))


def _init(t, data, requires_grad=False):
    t._data = data
    t._requires_grad = requires_grad
    t._grad = None
    t._grad_fn = None
    t._vc = [0]
    t._base = None
    return t


def _wrap(data) -> Tensor:
    """A new leaf Tensor over a backend array (no copy). The hot path of every op."""
    t = _new(Tensor)
    t._data = data
    t._requires_grad = False
    t._grad = None
    t._grad_fn = None
    t._vc = [0]
    t._base = None
    if _state.inference:
        t._is_inference = True
    return t


def _wrap_dim(dim: int, ndim: int) -> int:
    """Normalize a possibly negative ``dim`` for a tensor of ``ndim`` dims (0-d counts as 1)."""
    n = ndim if ndim > 0 else 1
    if not -n <= dim < n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})"
        )
    return dim + n if dim < 0 else dim


from ember.autograd import engine as _engine  # noqa: E402, F401  (needs Tensor; attaches backward)
