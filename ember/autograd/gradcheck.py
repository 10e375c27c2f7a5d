"""``gradcheck`` and ``gradgradcheck``: autograd against central finite differences.

Both follow PyTorch's signatures. The analytical Jacobian is built one output element at a time
with ``autograd.grad`` (a vector-Jacobian product per row); the numerical one perturbs each
input element by ``eps`` in both directions. Use float64 (or complex128) inputs.

Complex numbers are checked as PyTorch does, through their real and imaginary parts: a complex
input is perturbed along ``eps`` and ``eps * 1j``, a complex output contributes its real and
imaginary parts, and the analytical side seeds a complex output with ``1`` and ``1j``. Under the
conjugate Wirtinger convention those seeds give ``dRe/dx + i dRe/dy`` and ``dIm/dx + i dIm/dy``,
so a backward formula missing a conjugation fails the check.
"""

from __future__ import annotations

from ember import backend
from ember.autograd import grad_mode as _gm
from ember.autograd.engine import grad as _grad
from ember.tensor import Tensor, _wrap


class GradcheckError(RuntimeError):
    """Raised by ``gradcheck`` when the analytical and numerical gradients disagree."""


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _diff_inputs(inputs):
    return [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x._requires_grad]


def _outputs(func, inputs):
    out = _as_tuple(func(*inputs))
    return [o for o in out if isinstance(o, Tensor) and o._data.dtype.kind in "fcV"]


def _numpy(t: Tensor):
    return backend.namespace(t._data).to_numpy(t._data)


def _real_flat(a):
    """An array's values as a flat real vector: a complex one interleaves (re, im)."""
    a = a.reshape(-1)
    if a.dtype.kind == "c":
        return backend.cpu.stack([a.real, a.imag], -1).reshape(-1)
    return a.copy()


def _real_size(t: Tensor) -> int:
    return t._data.size * (2 if t._data.dtype.kind == "c" else 1)


def _numerical(func, inputs, idx, eps):
    """Jacobian blocks d out_k / d input_i by central differences: list over inputs of lists
    over outputs of (n_in, n_out) arrays."""
    xp = backend.cpu
    with _gm.no_grad():
        base = _outputs(func, inputs)
    jac = []
    for i in idx:
        x = inputs[i]
        flat = _numpy(x).reshape(-1)  # a view: perturbs the tensor's own memory
        if not _numpy(x).flags.c_contiguous:
            raise ValueError("gradcheck needs contiguous inputs")
        blocks = [xp.zeros((_real_size(x), _real_size(o))) for o in base]
        steps = (eps, eps * 1j) if flat.dtype.kind == "c" else (eps,)
        for j in range(flat.size):
            orig = flat[j]
            for s, step in enumerate(steps):
                flat[j] = orig + step
                with _gm.no_grad():
                    plus = [_real_flat(_numpy(o)) for o in _outputs(func, inputs)]
                flat[j] = orig - step
                with _gm.no_grad():
                    minus = [_real_flat(_numpy(o)) for o in _outputs(func, inputs)]
                flat[j] = orig
                for k in range(len(base)):
                    blocks[k][j * len(steps) + s] = (plus[k] - minus[k]) / (2 * eps)
        jac.append(blocks)
    return jac


def _analytical(func, inputs, idx):
    xp = backend.cpu
    outs = _outputs(func, inputs)
    diff_in = [inputs[i] for i in idx]
    jac = [[xp.zeros((_real_size(inputs[i]), _real_size(o))) for o in outs] for i in idx]
    for k, o in enumerate(outs):
        if not o._requires_grad:
            continue
        # a complex output is seeded with 1 (its real part) and 1j (its imaginary part)
        seeds = (1, 1j) if o._data.dtype.kind == "c" else (1,)
        for j in range(o._data.size):
            for s, seed in enumerate(seeds):
                g = xp.zeros(o._data.size, dtype=o._data.dtype)
                g[j] = seed
                gt = _wrap(g.reshape(o._data.shape))
                grads = _grad([o], diff_in, [gt], retain_graph=True, allow_unused=True)
                for n, gi in enumerate(grads):
                    if gi is not None:
                        if gi._data.shape != inputs[idx[n]]._data.shape:
                            raise GradcheckError(
                                f"gradient for input {idx[n]} has shape "
                                f"{tuple(gi._data.shape)}, expected "
                                f"{tuple(inputs[idx[n]]._data.shape)}"
                            )
                        jac[n][k][:, j * len(seeds) + s] = _real_flat(_numpy(gi))
    return jac


def _forward(func, inputs, idx):
    """Jacobian blocks as ``_numerical``'s, by forward-mode AD: one dual input per column
    (seeded with 1, and 1j for a complex input, as the numerical steps)."""
    from ember.autograd import forward_ad as fwAD

    xp = backend.cpu
    jac = []
    for i in idx:
        x = inputs[i]
        n = x._data.size
        seeds = (1, 1j) if x._data.dtype.kind == "c" else (1,)
        blocks = None
        for j in range(n):
            for s, seed in enumerate(seeds):
                t = xp.zeros(n, dtype=x._data.dtype)
                t[j] = seed
                with fwAD.dual_level():
                    args = list(inputs)
                    args[i] = fwAD.make_dual(x.detach(), _wrap(t.reshape(x._data.shape)))
                    outs = _outputs(func, args)
                    if blocks is None:
                        blocks = [xp.zeros((_real_size(x), _real_size(o))) for o in outs]
                    for k, o in enumerate(outs):
                        tan = fwAD.unpack_dual(o).tangent
                        if tan is not None:
                            blocks[k][j * len(seeds) + s] = _real_flat(_numpy(tan.detach()))
        jac.append(blocks if blocks is not None else [])
    return jac


def gradcheck(
    func,
    inputs,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_batched_forward_grad: bool = False,
    check_forward_ad: bool = False,
    check_backward_ad: bool = True,
    fast_mode: bool = False,
    masked=None,
) -> bool:
    """Check the gradients of ``func`` at ``inputs`` against finite differences.

    Example:
        >>> x = ember.randn(3, dtype=ember.float64, requires_grad=True)
        >>> ember.autograd.gradcheck(lambda t: (t * t).sum(), (x,))
        True
    """
    if check_batched_grad or check_batched_forward_grad:
        raise NotImplementedError("ember's gradcheck does not check batched gradients (vmap)")
    inputs = _as_tuple(inputs)
    idx = _diff_inputs(inputs)
    if not idx:
        raise ValueError("gradcheck expects at least one input tensor to require gradient")
    for i in idx:
        if inputs[i]._data.dtype.itemsize < 8:
            import warnings

            warnings.warn(
                f"Input #{i} requires gradient and is not a double precision floating point. "
                "This check will likely fail if all the inputs are not of double precision "
                "floating point.",
                UserWarning,
                stacklevel=2,
            )
    num = _numerical(func, inputs, idx, eps)
    checks = []
    if check_backward_ad:
        checks.append(("", _analytical(func, inputs, idx)))
    if check_forward_ad:
        checks.append((" computed with forward mode", _forward(func, inputs, idx)))
    for how, ana in checks:
        for n, i in enumerate(idx):
            for k in range(len(num[n])):
                a, b = ana[n][k], num[n][k]
                if not backend.cpu.allclose(a, b, rtol=rtol, atol=atol):
                    if not raise_exception:
                        return False
                    err = backend.cpu.abs(a - b).max()
                    raise GradcheckError(
                        f"Jacobian{how} mismatch for output {k} with respect to input {i} "
                        f"(max abs difference {err:.3g}),\nnumerical:{b}\nanalytical:{a}\n"
                    )
    return True


def gradgradcheck(
    func,
    inputs,
    grad_outputs=None,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    gen_non_contig_grad_outputs: bool = False,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_fwd_over_rev: bool = False,
    check_rev_over_rev: bool = True,
    fast_mode: bool = False,
    masked=None,
) -> bool:
    """Check second derivatives: gradcheck of the vector-Jacobian product of ``func``.

    ``grad_outputs`` defaults to random float64 tensors (they are differentiated too).
    """
    inputs = _as_tuple(inputs)
    outs = _outputs(func, inputs)
    if grad_outputs is None:
        rng = backend.cpu.random.default_rng(0)
        grad_outputs = tuple(
            _wrap(
                backend.cpu.asarray(
                    rng.standard_normal(o._data.shape)
                    + (1j * rng.standard_normal(o._data.shape) if o._data.dtype.kind == "c" else 0)
                ).astype(o._data.dtype)
            ).requires_grad_()
            for o in outs
        )
    grad_outputs = _as_tuple(grad_outputs)
    n_in = len(inputs)
    idx = _diff_inputs(inputs)

    def vjp(*args):
        ins, gos = args[:n_in], args[n_in:]
        outs = _outputs(func, ins)
        diff = [ins[i] for i in idx]
        pairs = [(o, g) for o, g in zip(outs, gos) if o._requires_grad]
        gs = _grad(
            [p[0] for p in pairs], diff, [p[1] for p in pairs], create_graph=True, allow_unused=True
        )
        return tuple(g for g in gs if g is not None)

    return gradcheck(
        vjp, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol, raise_exception=raise_exception
    )
