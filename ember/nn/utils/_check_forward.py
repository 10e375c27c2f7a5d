"""The part of ``ember.nn.utils.check`` that runs the model: one forward and backward on a deep
copy, to find the parameters that get no gradient and the buffers that the forward never uses
(see ``check.py`` for the whole check)."""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Iterator

from ember.autograd.grad_mode import enable_grad
from ember.nn.modules.module import Module
from ember.nn.utils.check import _ATOMS, _MAX_DEPTH, Finding, _contents, _internal, _join
from ember.random.generator import fork_rng
from ember.tensor import Tensor


# ---- one forward and backward on a copy --------------------------------------------------------
class _ReadRecorder(dict):
    """A module's ``_buffers`` dict that remembers which names were read (registered buffers
    are read through ``Module.__getattr__``, which indexes this dict)."""

    def __init__(self, data, reads: set, key):
        super().__init__(data)
        self._reads, self._key = reads, key

    def __getitem__(self, name):
        self._reads.add((self._key, name))
        return super().__getitem__(name)

    def get(self, name, default=None):
        self._reads.add((self._key, name))
        return super().get(name, default)

    def _all(self):
        self._reads.update((self._key, n) for n in super().keys())

    def values(self):
        self._all()
        return super().values()

    def items(self):
        self._all()
        return super().items()

    def __iter__(self):
        self._all()
        return super().__iter__()


def _as_call(inputs) -> tuple[tuple, dict]:
    if isinstance(inputs, dict):
        return (), dict(inputs)
    if isinstance(inputs, tuple) and not hasattr(inputs, "_fields"):
        return inputs, {}
    return (inputs,), {}


def _floating_outputs(out, depth: int = 0) -> Iterator[Tensor]:
    if isinstance(out, Tensor):
        if out.is_floating_point() and out.requires_grad:
            yield out
    elif depth < _MAX_DEPTH * 2:
        if isinstance(out, dict):
            items = out.values()
        elif isinstance(out, (list, tuple)):
            items = out
        elif dataclasses.is_dataclass(out) and not isinstance(out, type):
            items = [getattr(out, f.name, None) for f in dataclasses.fields(out)]
        else:
            return
        for v in items:
            yield from _floating_outputs(v, depth + 1)


def _memo_for_activations(model: Module, inputs) -> dict:
    """A ``deepcopy`` memo that copies non-leaf tensors as detached clones.

    A tensor with history refuses to be deep-copied (as in torch), but models keep some: the
    hook-based weight_norm's ``weight``, an activation cached by forward, an input computed by
    another network. The copy needs their values only; the originals stay referenced by the
    model and the inputs, so their ids are stable while the memo is used."""
    memo: dict = {}

    def seed(value, where):
        for _, t in _contents(value, where, 0, set()):
            if isinstance(t, Tensor) and t._grad_fn is not None and id(t) not in memo:
                memo[id(t)] = t.detach().clone().requires_grad_(t.requires_grad)

    for _, m in model.named_modules():
        for name, value in vars(m).items():
            if not _internal(name) and not isinstance(value, (Module, *_ATOMS)):
                seed(value, name)
    seed(inputs, "inputs")
    return memo


def run_copy(model: Module, inputs) -> list[Finding]:
    """The findings of one forward and backward of a copy of ``model`` on ``inputs``."""
    # A deep copy on the model's own device, not the meta device: meta would show which
    # parameters get no gradient (that is the graph's shape), but it holds no values, so it
    # cannot tell a buffer that changed from one that did not, and a forward with data-dependent
    # control flow (``if x.sum() > 0``) cannot run on it. The copy costs one model's memory.
    # The inputs are copied with the model (one memo) so input tensors that require grad are not
    # given gradients, and anything the inputs share with the model stays shared.
    with fork_rng():  # dropout in the copy must not move the user's random stream
        try:
            twin, twin_inputs = copy.deepcopy((model, inputs), _memo_for_activations(model, inputs))
        except Exception as e:
            e.add_note("(raised by ember.nn.utils.check while copying the model and inputs)")
            raise
        # the check is about training: a training-mode forward (BatchNorm updates its
        # statistics); the user's own flags are checked by _modes
        twin.train()
        reads: set = set()
        snapshots = []
        for path, m in twin.named_modules():
            for p in m._parameters.values():
                if p is not None:
                    p.grad = None
            if not m._buffers:
                continue
            for name, b in m._buffers.items():
                # Only persistent floating buffers: integer ones are counters and indices, and
                # non-persistent ones are caches and constants that may serve other calls only.
                if (
                    b is not None
                    and b.is_floating_point()
                    and not b.is_meta
                    and name not in m._non_persistent_buffers_set
                ):
                    snapshots.append((m, path, name, b, b.detach().clone()))
            m.__dict__["_buffers"] = _ReadRecorder(m._buffers, reads, id(m))
        args, kwargs = _as_call(twin_inputs)
        try:
            with enable_grad():
                out = twin(*args, **kwargs)
                heads = list(_floating_outputs(out))
                if heads:
                    loss = heads[0].sum()
                    for h in heads[1:]:
                        loss = loss + h.sum()
                    loss.backward()
        except Exception as e:
            e.add_note(
                "(raised by the forward/backward that ember.nn.utils.check ran on a copy of the "
                "model with the given inputs)"
            )
            raise
    out_findings = []
    trainable = [p for p in twin.parameters() if p.requires_grad]
    if not heads and trainable:
        out_findings.append(
            Finding(
                "output_not_differentiable",
                "",
                None,
                "no floating-point output of the forward requires grad, so no parameter can get "
                "a gradient (a detach(), a .item()/.numpy() round trip, or no_grad in forward?).",
                "keep the outputs in the graph: return tensors computed from the parameters",
            )
        )
    elif heads:
        seen = set()
        for path, m in twin.named_modules():
            for name, p in m._parameters.items():
                if p is not None and p.requires_grad and p.grad is None and id(p) not in seen:
                    seen.add(id(p))
                    out_findings.append(
                        Finding(
                            "no_gradient",
                            path,
                            name,
                            f"{_join(path, name)} requires grad but got no gradient from a "
                            "forward and backward: forward does not use it (or detaches it); "
                            "DistributedDataParallel would need find_unused_parameters=True.",
                            "use it in forward, remove it, or freeze it: p.requires_grad_(False)",
                        )
                    )
    for m, path, name, before, snap in snapshots:
        now = dict.get(m._buffers, name)  # not a read of the forward's
        changed = now is not before or not _same(snap, now)
        if not changed and (id(m), name) not in reads:
            out_findings.append(
                Finding(
                    "unused_buffer",
                    path,
                    name,
                    f"{_join(path, name)} is a persistent buffer that a training-mode forward "
                    "neither read nor changed: state_dict() saves it, the model never uses it "
                    "(state meant to be updated, or a leftover).",
                    f"use it in forward, or remove it: del self.{name}",
                )
            )
    return out_findings


def _same(a: Tensor, b) -> bool:
    if not isinstance(b, Tensor) or tuple(a.shape) != tuple(b.shape) or a.dtype != b.dtype:
        return False
    return bool(((a == b) | (a.isnan() & b.isnan())).all())
