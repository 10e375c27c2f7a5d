"""``LBFGS``: limited-memory BFGS with an optional strong-Wolfe line search (``torch.optim.LBFGS``).

The parameters are handled as one flat vector (their gradients concatenated). A step runs up to
``max_iter`` iterations, each: a direction from the two-loop recursion over the last
``history_size`` curvature pairs ``(s, y)``, then a step length, either fixed (``lr``, shrunk on
the very first iteration) or from the strong-Wolfe search (bracketing, then zooming with cubic
interpolation). Vectors are raw arrays; the scalars (step lengths, dot products, ``ro``,
``H_diag``) are NumPy scalars of the parameters' dtype, which promote with Python numbers as
torch's 0-d tensors do, so the arithmetic is torch's in float32 as in float64. The state is
kept in torch's layout (on the first parameter, as torch keeps it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import ember
from ember.ops._dispatch import xp_of
from ember.optim._common import rv
from ember.optim.optimizer import Optimizer
from ember.tensor import Tensor, _wrap

# y += alpha * x runs in blocks this long, so the product's scratch stays in cache (one pass
# over y and x instead of three, with no new array).
_BLOCK = 1 << 15


def _axpy(xp, y, alpha, x, scratch) -> None:
    """``y += x * alpha`` in place on flat arrays (``scratch``: at least ``_BLOCK`` long)."""
    n = y.shape[0]
    if n <= _BLOCK:
        t = scratch[:n]
        xp.multiply(x, alpha, out=t)
        xp.add(y, t, out=y)
        return
    for start in range(0, n, _BLOCK):
        stop = min(start + _BLOCK, n)
        t = scratch[: stop - start]
        ys = y[start:stop]
        xp.multiply(x[start:stop], alpha, out=t)
        xp.add(ys, t, out=ys)


def _cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None, sqrt=None):
    """The minimizer of the cubic through ``(x1, f1)``, ``(x2, f2)`` with slopes ``g1``, ``g2``,
    clamped to ``bounds`` (default: the interval between the points); the midpoint of the bounds
    when the cubic has no minimum.

        d1 = g1 + g2 - 3 (f1 - f2) / (x1 - x2),   d2 = sqrt(d1^2 - g1 g2)
        x  = x2 - (x2 - x1) (g2 + d2 - d1) / (g2 - g1 + 2 d2)       (x2 the farther point)
    """
    if bounds is not None:
        lo, hi = bounds
    else:
        lo, hi = (x1, x2) if x1 <= x2 else (x2, x1)
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1**2 - g1 * g2
    if d2_square >= 0:
        d2 = sqrt(d2_square) if sqrt is not None else d2_square**0.5
        if x1 <= x2:
            min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        # NOTE: matches torch: Python's min/max, so the result is whichever object wins (a
        # bound given as a Python number stays one).
        return min(max(min_pos, lo), hi)
    return (lo + hi) / 2.0


def _strong_wolfe(obj_func, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9, max_ls=25):
    """Line search along ``d`` from step ``t`` for a point meeting the strong Wolfe conditions

        f(t) <= f(0) + c1 t g(0).d    (sufficient decrease)
        |g(t).d| <= -c2 g(0).d         (curvature)

    ``obj_func(x, t, d)`` returns the loss and flat gradient at ``x + t d``. First a bracket is
    found (the step grows by cubic extrapolation), then narrowed by cubic interpolation, kept
    away from its ends. Returns ``(f_new, g_new, t, evaluations)``.
    """
    xp = xp_of(d)
    sqrt = xp.sqrt
    d_norm = xp.abs(d).max()
    g = g.copy()
    f_new, g_new = obj_func(x, t, d)
    ls_func_evals = 1
    gtd_new = g_new.dot(d)

    # bracketing: grow the step until the interval [t_prev, t] must hold a Wolfe point
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done = False
    ls_iter = 0
    while ls_iter < max_ls:
        if f_new > (f + c1 * t * gtd) or (ls_iter > 1 and f_new >= f_prev):
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.copy()], [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, bracket_f, bracket_g = [t], [f_new], [g_new]
            done = True
            break
        if gtd_new >= 0:
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.copy()], [gtd_prev, gtd_new]
            break
        # extrapolate, at least 1% past t and at most 10 t
        min_step = t + 0.01 * (t - t_prev)
        max_step = t * 10
        tmp = t
        t = _cubic_interpolate(
            t_prev, f_prev, gtd_prev, t, f_new, gtd_new, bounds=(min_step, max_step), sqrt=sqrt
        )
        t_prev, f_prev, g_prev, gtd_prev = tmp, f_new, g_new.copy(), gtd_new
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1

    if ls_iter == max_ls:
        bracket, bracket_f, bracket_g = [0, t], [f, f_new], [g, g_new]
        # NOTE: matches torch: no slopes are set for this bracket; the zoom below does not run
        # (ls_iter == max_ls), so they are never read.
        bracket_gtd = None

    # zoom: shrink the bracket around a Wolfe point
    insuf_progress = False
    low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(
            bracket[0],
            bracket_f[0],
            bracket_gtd[0],
            bracket[1],
            bracket_f[1],
            bracket_gtd[1],
            sqrt=sqrt,
        )
        # A trial point within 10% of the bracket's ends makes little progress: the second
        # time in a row (or when it is at or past an end) move it 10% inside.
        hi, lo = max(bracket), min(bracket)
        eps = 0.1 * (hi - lo)
        if min(hi - t, t - lo) < eps:
            if insuf_progress or t >= hi or t <= lo:
                t = hi - eps if abs(t - hi) < abs(t - lo) else lo + eps
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False

        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1

        if f_new > (f + c1 * t * gtd) or f_new >= bracket_f[low_pos]:
            # not a sufficient decrease, or no better than the low end: the new high end
            bracket[high_pos], bracket_f[high_pos] = t, f_new
            bracket_g[high_pos], bracket_gtd[high_pos] = g_new.copy(), gtd_new
            low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high_pos] - bracket[low_pos]) >= 0:
                # the slope points back past the low end: the old low becomes the high end
                bracket[high_pos], bracket_f[high_pos] = bracket[low_pos], bracket_f[low_pos]
                bracket_g[high_pos] = bracket_g[low_pos]
                bracket_gtd[high_pos] = bracket_gtd[low_pos]
            bracket[low_pos], bracket_f[low_pos] = t, f_new
            bracket_g[low_pos], bracket_gtd[low_pos] = g_new.copy(), gtd_new

    return bracket_f[low_pos], bracket_g[low_pos], bracket[low_pos], ls_func_evals


def _raw(value: Any) -> Any:
    """A state value as the step computes with it: a Tensor's array (a 0-d one as a scalar)."""
    if isinstance(value, Tensor):
        data = value._data
        return data[()] if data.ndim == 0 else data
    if isinstance(value, list):
        return [_raw(v) for v in value]
    return value


class LBFGS(Optimizer):
    """L-BFGS (``torch.optim.LBFGS``): quasi-Newton steps from a short history of gradients.

    ``step(closure)`` needs a closure that clears the gradients, evaluates the loss, calls
    ``backward`` and returns the loss; it is called several times per step. One parameter group
    only; the state (history, last direction and step) is kept on the first parameter.

    Args:
        params: parameters (one group).
        lr: learning rate, the step length tried first (scaled down on the first iteration).
        max_iter: iterations per ``step``.
        max_eval: closure evaluations per ``step`` (default ``max_iter * 5 // 4``).
        tolerance_grad: stop when the largest gradient entry is at most this.
        tolerance_change: stop when the step, the loss change or the directional derivative
            is below this.
        history_size: curvature pairs kept.
        line_search_fn: ``None`` (fixed step) or ``"strong_wolfe"``.

    Example:
        >>> import ember
        >>> x = ember.nn.Parameter(ember.tensor([3.0, -2.0], dtype=ember.float64))
        >>> opt = ember.optim.LBFGS([x], line_search_fn="strong_wolfe")
        >>> def closure():
        ...     opt.zero_grad()
        ...     loss = ((x - 1) ** 2).sum()
        ...     loss.backward()
        ...     return loss
        >>> loss = opt.step(closure); [round(v, 6) for v in x.tolist()]
        [1.0, 1.0]
    """

    def __init__(
        self,
        params: Iterable[Tensor] | Iterable[dict],
        lr: float | Tensor = 1,
        max_iter: int = 20,
        max_eval: int | None = None,
        tolerance_grad: float = 1e-7,
        tolerance_change: float = 1e-9,
        history_size: int = 100,
        line_search_fn: str | None = None,
    ):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = dict(
            lr=lr,
            max_iter=max_iter,
            max_eval=max_eval,
            tolerance_grad=tolerance_grad,
            tolerance_change=tolerance_change,
            history_size=history_size,
            line_search_fn=line_search_fn,
        )
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]
        self._numel_cache = None

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        # Deliberate difference: torch's unpickled LBFGS lacks these and cannot step.
        self._params = self.param_groups[0]["params"]
        self._numel_cache = None

    def _numel(self) -> int:
        if self._numel_cache is None:
            # NOTE: matches torch: a complex parameter counts as its real and imaginary parts
            self._numel_cache = sum(rv(p._data).size for p in self._params)
        return self._numel_cache

    def _gather_flat_grad(self):
        """The gradients as one new flat array (zeros for a parameter without one)."""
        parts = []
        for p in self._params:
            g = p._grad
            if g is None:
                parts.append(self._xp.zeros(rv(p._data).size, dtype=rv(p._data).dtype))
            else:
                parts.append(rv(g._data).reshape(-1))
        return self._xp.concatenate(parts)

    def _add_grad(self, step_size, update) -> None:
        """params <- params + step_size * update (``update`` flat)."""
        offset = 0
        scratch = None
        for p in self._params:
            data = rv(p._data)  # complex parameters move as real pairs, as their gradients
            n = data.size
            seg = update[offset : offset + n]
            if data.flags.c_contiguous:
                if scratch is None:
                    scratch = self._xp.empty(min(update.shape[0], _BLOCK), dtype=update.dtype)
                _axpy(self._xp, data.reshape(-1), step_size, seg, scratch)
            else:
                data += seg.reshape(data.shape) * step_size
            p._vc[0] += 1  # an in-place write: autograd must see the parameter changed
            offset += n

    def _clone_param(self) -> list:
        return [p._data.copy() for p in self._params]

    def _set_param(self, params_data: list) -> None:
        for p, data in zip(self._params, params_data):
            self._xp.copyto(p._data, data)
            p._vc[0] += 1

    def _directional_evaluate(self, closure, x, t, d):
        """Loss and flat gradient at ``x + t d``; the parameters are put back to ``x``."""
        self._add_grad(t, d)
        loss = float(closure())
        flat_grad = self._gather_flat_grad()
        self._set_param(x)
        return loss, flat_grad

    def step(self, closure: Callable[[], Any]) -> Any:
        """Run up to ``max_iter`` L-BFGS iterations; returns the loss of the first evaluation.

        Args:
            closure: clears the gradients, evaluates the model, calls ``backward`` and returns
                the loss.
        """
        if len(self.param_groups) != 1:
            raise AssertionError(
                f"Expected exactly one param_group, but got {len(self.param_groups)}"
            )
        # NOTE: matches torch: division by zero or overflow in the scalar arithmetic gives
        # inf/nan silently (torch's 0-d tensors do not warn).
        with ember.no_grad(), xp_of(self._params[0]._data).errstate(all="ignore"):
            return self._step(closure)

    def _step(self, user_closure: Callable[[], Any]) -> Any:
        def closure():
            with ember.enable_grad():
                return user_closure()

        group = self.param_groups[0]
        lr = group["lr"]
        if isinstance(lr, Tensor):
            lr = lr._data.reshape(())[()]
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        line_search_fn, history_size = group["line_search_fn"], group["history_size"]
        self._xp = xp = xp_of(self._params[0]._data)

        # NOTE: matches torch: the optimizer's global state lives on the first parameter.
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        orig_loss = closure()
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1

        flat_grad = self._gather_flat_grad()
        opt_cond = xp.abs(flat_grad).max() <= tolerance_grad
        if opt_cond:
            return orig_loss

        # Tensors already in the state keep their identity when stored back.
        kept = {}
        for key in ("d", "prev_flat_grad", "old_dirs", "old_stps"):
            value = state.get(key)
            for v in value if isinstance(value, list) else [value]:
                if isinstance(v, Tensor):
                    kept[id(v._data)] = v
        d, t = _raw(state.get("d")), _raw(state.get("t"))
        old_dirs, old_stps = _raw(state.get("old_dirs")), _raw(state.get("old_stps"))
        ro, H_diag = _raw(state.get("ro")), _raw(state.get("H_diag"))
        prev_flat_grad, prev_loss = _raw(state.get("prev_flat_grad")), state.get("prev_loss")
        al = _raw(state.get("al"))

        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1

            # ---- direction: -H g from the two-loop recursion ---------------------------------
            if state["n_iter"] == 1:
                d = -flat_grad
                old_dirs, old_stps, ro = [], [], []
                H_diag = 1
            else:
                y = flat_grad - prev_flat_grad
                s = d * t
                ys = y.dot(s)
                if ys > 1e-10:  # keep the pair only where the curvature is positive
                    if len(old_dirs) == history_size:
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    H_diag = ys / y.dot(y)  # the initial inverse Hessian is H_diag * I
                num_old = len(old_dirs)
                if al is None:
                    al = [None] * history_size
                    state["al"] = list(al)  # NOTE: matches torch: the key's place in the state
                q = -flat_grad
                scratch = xp.empty(min(q.shape[0], _BLOCK), dtype=q.dtype)
                for i in range(num_old - 1, -1, -1):
                    al[i] = old_stps[i].dot(q) * ro[i]
                    _axpy(xp, q, -al[i], old_dirs[i], scratch)
                d = r = q * H_diag
                for i in range(num_old):
                    be_i = old_dirs[i].dot(r) * ro[i]
                    _axpy(xp, r, al[i] - be_i, old_stps[i], scratch)

            if prev_flat_grad is None:
                prev_flat_grad = flat_grad.copy()
            else:
                xp.copyto(prev_flat_grad, flat_grad)
            prev_loss = loss

            # ---- step length ------------------------------------------------------------------
            if state["n_iter"] == 1:
                t = min(1.0, 1.0 / xp.abs(flat_grad).sum()) * lr
            else:
                t = lr
            gtd = flat_grad.dot(d)
            if gtd > -tolerance_change:  # not a descent direction (to tolerance)
                break

            ls_func_evals = 0
            if line_search_fn is not None:
                if line_search_fn != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x_init = self._clone_param()

                def obj_func(x, t, d):
                    return self._directional_evaluate(closure, x, t, d)

                loss, flat_grad, t, ls_func_evals = _strong_wolfe(
                    obj_func, x_init, t, d, loss, flat_grad, gtd, max_ls=max_eval - current_evals
                )
                self._add_grad(t, d)
                opt_cond = xp.abs(flat_grad).max() <= tolerance_grad
            else:
                self._add_grad(t, d)
                if n_iter != max_iter:
                    # NOTE: matches torch: no evaluation after the last iteration's fixed step
                    # (in a stochastic setting it would be wasted).
                    loss = float(closure())
                    flat_grad = self._gather_flat_grad()
                    opt_cond = xp.abs(flat_grad).max() <= tolerance_grad
                    ls_func_evals = 1
            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals

            # ---- stopping conditions ----------------------------------------------------------
            if n_iter == max_iter or current_evals >= max_eval or opt_cond:
                break
            if xp.abs(d * t).max() <= tolerance_change:
                break
            if abs(loss - prev_loss) < tolerance_change:
                break

        def tensor(v):
            if v is None or type(v) in (int, float):
                return v
            if getattr(v, "ndim", 0) > 0:
                old = kept.get(id(v))
                return _wrap(v) if old is None else old
            return _wrap(xp.asarray(v))  # a NumPy scalar: torch keeps a 0-d tensor

        state["d"] = tensor(d)
        state["t"] = tensor(t)
        state["old_dirs"] = None if old_dirs is None else [tensor(v) for v in old_dirs]
        state["old_stps"] = None if old_stps is None else [tensor(v) for v in old_stps]
        state["ro"] = None if ro is None else [tensor(v) for v in ro]
        state["H_diag"] = tensor(H_diag)
        state["prev_flat_grad"] = tensor(prev_flat_grad)
        state["prev_loss"] = prev_loss
        if al is not None:
            state["al"] = [tensor(v) for v in al]
        return orig_loss


__all__ = ["LBFGS"]
