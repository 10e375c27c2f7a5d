"""Tensor printing, character for character PyTorch's (``torch/_tensor_str.py``).

The layout rules are PyTorch's: one width for every element, chosen by ``_Formatter`` from the
(summarized) values; fixed notation with ``precision`` digits, integer-valued floats as ``1.``,
scientific notation when the nonzero finite magnitudes span more than 1000x or leave
[1e-4, 1e8]; summarization with ``...`` past ``threshold`` elements; wrapping at ``linewidth``;
then the suffixes (device, size, dtype, grad_fn / requires_grad) in PyTorch's order. Dtypes print
as ``ember.float64`` where PyTorch prints ``torch.float64``.

Formatting works on a NumPy copy of the (summarized) values, never on Tensors, so printing
records nothing and costs no autograd bookkeeping.
"""

from __future__ import annotations

import dataclasses
import math

from ember import _dtype, backend

_cpu = backend.cpu


@dataclasses.dataclass
class _PrinterOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


PRINT_OPTS = _PrinterOptions()


def set_printoptions(
    precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None
) -> None:
    """Set the options of tensor printing (``torch.set_printoptions``).

    Args:
        precision: digits after the decimal point (default 4).
        threshold: number of elements past which the repr is summarized with ``...``
            (default 1000).
        edgeitems: items shown at each end of a summarized dimension (default 3).
        linewidth: characters per line before wrapping (default 80).
        profile: ``"default"``, ``"short"`` or ``"full"``: a preset the other arguments then
            override.
        sci_mode: force scientific notation on (True) or off (False); None chooses per tensor.

    Example:
        >>> ember.set_printoptions(precision=2)
        >>> ember.tensor([1.12345])
        tensor([1.12])
        >>> ember.set_printoptions(profile="default")
    """
    if profile is not None:
        if profile == "default":
            PRINT_OPTS.precision, PRINT_OPTS.threshold = 4, 1000
            PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth = 3, 80
        elif profile == "short":
            PRINT_OPTS.precision, PRINT_OPTS.threshold = 2, 1000
            PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth = 2, 80
        elif profile == "full":
            PRINT_OPTS.precision, PRINT_OPTS.threshold = 4, math.inf
            PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth = 3, 80
    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    # NOTE: matches torch: sci_mode is reset to None unless given, whatever else is set.
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions() -> dict:
    """The current print options, as keyword arguments for ``set_printoptions``."""
    return dataclasses.asdict(PRINT_OPTS)


class printoptions:
    """Context manager: print options for a ``with`` block (``torch._tensor_str.printoptions``)."""

    def __init__(self, **kwargs):
        self.kwargs = kwargs

    def __enter__(self):
        self.old = get_printoptions()
        set_printoptions(**self.kwargs)

    def __exit__(self, *exc):
        set_printoptions(**self.old)


# ---- formatting of values ------------------------------------------------------------------
class _Formatter:
    """Chooses one width and notation for all the values of a tensor (PyTorch's rules)."""

    def __init__(self, a):
        self.floating_dtype = a.dtype.kind in "fV"
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        flat = a.reshape(-1)
        if not self.floating_dtype:
            for v in flat.tolist():
                self.max_width = max(self.max_width, len(str(v)))
            return
        nz = flat[_cpu.isfinite(flat) & (flat != 0)]
        if nz.size == 0:
            return
        absd = _cpu.abs(nz).astype(_cpu.float64)
        mn, mx = float(absd.min()), float(absd.max())
        # Compared in the tensor's own dtype, as PyTorch does.
        self.int_mode = bool((nz == _cpu.ceil(nz)).all())
        p = PRINT_OPTS.precision
        self.sci_mode = (
            mx / mn > 1000.0 or mx > 1.0e8 or mn < 1.0e-4
            if PRINT_OPTS.sci_mode is None
            else PRINT_OPTS.sci_mode
        )
        vals = nz.tolist()
        if self.sci_mode:
            w = max(len(f"{v:.{p}e}") for v in vals)
        elif self.int_mode:
            # integer-valued floats print as ``1.``: one more character than the digits
            w = max(len(f"{v:.0f}") for v in vals) + 1
        else:
            w = max(len(f"{v:.{p}f}") for v in vals)
        self.max_width = max(self.max_width, w)

    def width(self) -> int:
        return self.max_width

    def format(self, value) -> str:
        if self.floating_dtype:
            if self.sci_mode:
                ret = f"{value:{self.max_width}.{PRINT_OPTS.precision}e}"
            elif self.int_mode:
                ret = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    ret += "."
            else:
                ret = f"{value:.{PRINT_OPTS.precision}f}"
        else:
            ret = f"{value}"
        return (self.max_width - len(ret)) * " " + ret


def _complex_format(fr: _Formatter, fi: _Formatter):
    """The element formatter of a complex tensor: the real part by ``fr``, then the imaginary
    part by ``fi`` with its sign and a ``j`` (PyTorch's layout: ``1.0000-2.5000j``)."""

    def fmt(v):
        re = fr.format(v.real)
        im = (fi.format(v.imag) + "j").lstrip()
        return re + im if im[0] in "+-" else re + "+" + im

    fmt.width = lambda: fr.width() + fi.width() + 1  # the ``j``
    fmt.format = fmt
    return fmt


def _vector_str(a, indent: int, summarize: bool, formatter: _Formatter) -> str:
    # an element takes its width plus ", "
    element_length = formatter.width() + 2
    per_line = max(1, math.floor((PRINT_OPTS.linewidth - indent) / element_length))
    e = PRINT_OPTS.edgeitems
    if summarize and not e:
        data = ["..."]
    elif summarize and a.shape[0] > 2 * e:
        data = (
            [formatter.format(v) for v in a[:e].tolist()]
            + [" ..."]
            + [formatter.format(v) for v in a[-e:].tolist()]
        )
    else:
        data = [formatter.format(v) for v in a.tolist()]
    lines = [", ".join(data[i : i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _tensor_str_with_formatter(a, indent: int, summarize: bool, formatter: _Formatter) -> str:
    dim = a.ndim
    if dim == 0:
        return formatter.format(a.item())
    if dim == 1:
        return _vector_str(a, indent, summarize, formatter)
    e = PRINT_OPTS.edgeitems
    if summarize and a.shape[0] > 2 * e:
        slices = (
            [_tensor_str_with_formatter(a[i], indent + 1, summarize, formatter) for i in range(e)]
            + ["..."]
            + [
                _tensor_str_with_formatter(a[i], indent + 1, summarize, formatter)
                for i in range(a.shape[0] - e, a.shape[0])
            ]
        )
    else:
        slices = [
            _tensor_str_with_formatter(a[i], indent + 1, summarize, formatter)
            for i in range(a.shape[0])
        ]
    return "[" + ("," + "\n" * (dim - 1) + " " * (indent + 1)).join(slices) + "]"


def _summarized_data(a):
    """The values a summarized print shows (edge items of every dimension), for the formatter."""
    dim = a.ndim
    e = PRINT_OPTS.edgeitems
    if dim == 0:
        return a
    if dim == 1:
        return _cpu.concatenate((a[:e], a[-e:])) if a.shape[0] > 2 * e else a
    if not e:
        return _cpu.empty((0,) * dim, dtype=a.dtype)
    if a.shape[0] > 2 * e:
        rows = list(range(e)) + list(range(a.shape[0] - e, a.shape[0]))
    else:
        rows = range(a.shape[0])
    return _cpu.stack([_summarized_data(a[i]) for i in rows])


def _tensor_str(a, indent: int) -> str:
    if a.size == 0:
        return "[]"
    summarize = a.size > PRINT_OPTS.threshold
    if a.dtype.kind == "c":
        s = _summarized_data(a) if summarize else a
        formatter = _complex_format(_Formatter(s.real), _Formatter(s.imag))
        return _tensor_str_with_formatter(a, indent, summarize, formatter)
    formatter = _Formatter(_summarized_data(a) if summarize else a)
    return _tensor_str_with_formatter(a, indent, summarize, formatter)


def _add_suffixes(tensor_str: str, suffixes, indent: int, force_newline: bool) -> str:
    parts = [tensor_str]
    last_line_len = len(tensor_str) - tensor_str.rfind("\n") + 1
    for suffix in suffixes:
        if force_newline or last_line_len + len(suffix) + 2 > PRINT_OPTS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line_len = indent + len(suffix)
            force_newline = False
        else:
            parts.append(", " + suffix)
            last_line_len += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def _is_plain(t) -> bool:
    from ember.tensor import Tensor

    cls = type(t)
    # NOTE: matches torch: Parameter prints as "tensor(" too (its own repr adds the header).
    return cls is Tensor or (cls.__name__ == "Parameter" and cls.__module__.startswith("ember."))


def tensor_repr(t, *, tensor_contents=None) -> str:
    """``repr(t)``: PyTorch's format, e.g. ``tensor([1., 2.], requires_grad=True)``."""
    prefix = "tensor(" if _is_plain(t) else f"{type(t).__name__}("
    indent = len(prefix)
    suffixes = []
    data = t._data
    xp = backend.namespace(data)
    dev = t.device
    # NOTE: matches torch: the device is shown unless it is the CPU, even inside a
    # ``with ember.device(...)`` block (PyTorch compares with its default tensor type's device,
    # which that context does not change).
    if dev.type != "cpu":
        suffixes.append(f"device='{dev}'")
    npd = data.dtype
    default = _dtype.get_default_dtype()
    dt = _dtype.from_np(npd)
    has_default_dtype = dt is default or dt is _dtype.int64 or dt is _dtype.bool
    if dt.is_complex:  # NOTE: matches torch: the default complex dtype is not shown either
        has_default_dtype = dt is _dtype.default_complex_dtype()
    shape = tuple(data.shape)
    if npd.__class__ is _dtype._QuantizedNp:
        from ember.ops.quantized import repr_parts

        qsuffixes, values = repr_parts(t)
        suffixes.extend(qsuffixes)
        tensor_str = _tensor_str(values, indent)
    elif xp.device_type == "meta":
        suffixes.append(f"size={shape}")
        if dt is not default:
            suffixes.append(f"dtype={dt}")
        tensor_str = "..."
    elif data.size == 0:
        # Print the shape if it is not (0,), as NumPy does; the dtype of an empty tensor cannot
        # be inferred from its values, so it is shown unless it is the default.
        if data.ndim != 1:
            suffixes.append(f"size={shape}")
        if dt is not default:
            suffixes.append(f"dtype={dt}")
        tensor_str = "[]"
    else:
        if not PRINT_OPTS.edgeitems:
            suffixes.append(f"size={shape}")
        if not has_default_dtype:
            suffixes.append(f"dtype={dt}")
        tensor_str = _tensor_str(xp.to_numpy(data), indent)
    if tensor_contents is not None:
        tensor_str = tensor_contents
    if t._grad_fn is not None:
        suffixes.append(f"grad_fn=<{type(t._grad_fn).__name__}>")
    elif t._requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(prefix + tensor_str, suffixes, indent, force_newline=False)


def _rebuild_tensor(device_type, payload, requires_grad, cls):
    from ember.tensor import _init

    xp = backend.for_device(device_type)
    if device_type == "meta":
        data = xp.empty(payload[0], dtype=payload[1])
    else:
        data = xp.from_numpy(payload)
    t = object.__new__(cls)
    _init(t, data, requires_grad)
    return t


__all__ = ["set_printoptions"]
