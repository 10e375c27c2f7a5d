"""RNN, LSTM, GRU and their cells (PyTorch's ``torch.nn.modules.rnn``).

A layer is computed per direction by one ``RecurrentLayer`` primitive (``ember/ops/rnn.py``):
one GEMM for the input projections of all time steps, then the recurrence. Padded input
``(T, B, *)`` is handled as a packed sequence whose batch sizes are all ``B``; a
``PackedSequence`` input is run on its own batch sizes, so each sequence's final state is the
one at its true last step.
"""

from __future__ import annotations

import numbers
import warnings

from ember.nn import functional as F
from ember.nn._default_init import reset_recurrent
from ember.nn.modules.module import Module
from ember.nn.parameter import Parameter
from ember.nn.utils.rnn import PackedSequence
from ember.ops.creation import empty, zeros
from ember.ops.joining import cat, stack
from ember.ops.rnn import RecurrentLayer, plan, uniform_plan
from ember.tensor import Tensor

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


class RNNBase(Module):
    """What RNN, LSTM and GRU share: the parameters ``weight_ih_l{k}``, ``weight_hh_l{k}``,
    ``bias_ih_l{k}``, ``bias_hh_l{k}`` (and ``weight_hr_l{k}`` for a projected LSTM), with
    ``_reverse`` for the second direction, in PyTorch's order; gates stacked along dim 0.

    Example:
        >>> m = ember.nn.RNNBase("GRU", 4, 8)
        >>> [name for name, _ in m.named_parameters()]
        ['weight_ih_l0', 'weight_hh_l0', 'bias_ih_l0', 'bias_hh_l0']
    """

    __constants__ = [
        "mode",
        "input_size",
        "hidden_size",
        "num_layers",
        "bias",
        "batch_first",
        "dropout",
        "bidirectional",
        "proj_size",
    ]

    def __init__(
        self,
        mode: str,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        proj_size: int = 0,
        device=None,
        dtype=None,
    ) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        num_directions = 2 if bidirectional else 1
        _check_args(dropout, num_layers, bias, batch_first, input_size, hidden_size, proj_size)
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = _GATES[mode] * hidden_size
        real_hidden = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input = input_size if layer == 0 else real_hidden * num_directions
                suffix = f"l{layer}" + ("_reverse" if direction == 1 else "")
                shapes = [
                    ("weight_ih", (gate_size, layer_input)),
                    ("weight_hh", (gate_size, real_hidden)),
                ]
                if bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                if proj_size > 0:
                    shapes.append(("weight_hr", (proj_size, hidden_size)))
                names = []
                for kind, shape in shapes:
                    name = f"{kind}_{suffix}"
                    setattr(self, name, Parameter(empty(shape, **factory_kwargs)))
                    names.append(name)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self) -> list:
        """The parameters in PyTorch's flat order (read live, so a replaced parameter shows)."""
        return [getattr(self, n) if hasattr(self, n) else None for n in self._flat_weights_names]

    @property
    def all_weights(self) -> list:
        """The parameters grouped per layer and direction."""
        return [[getattr(self, n) for n in names] for names in self._all_weights]

    def flatten_parameters(self) -> None:
        """A no-op: PyTorch packs the weights into one buffer for cuDNN; ember has no use for
        that."""

    def reset_parameters(self) -> None:
        # version 1: PyTorch's U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)) for every parameter
        reset_recurrent(self)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    # ---- checks (PyTorch's messages) -----------------------------------------------------------
    def check_input(self, input: Tensor, batch_sizes) -> None:
        w = self._flat_weights[0]
        if input.dtype != w.dtype:
            raise ValueError(
                f"RNN input dtype ({input.dtype}) does not match weight dtype ({w.dtype}). "
                f"Convert input: input.to({w.dtype}), or convert model: model.to({input.dtype})"
            )
        expected = 2 if batch_sizes is not None else 3
        if input.dim() != expected:
            raise RuntimeError(f"input must have {expected} dimensions, got {input.dim()}")
        if self.input_size != input.shape[-1]:
            raise RuntimeError(
                f"input.size(-1) must be equal to input_size. Expected "
                f"{self.input_size}, got {input.shape[-1]}"
            )

    def get_expected_hidden_size(self, input: Tensor, batch_sizes) -> tuple:
        batch = _batch(self, input, batch_sizes)
        d = 2 if self.bidirectional else 1
        return (self.num_layers * d, batch, self.proj_size or self.hidden_size)

    def check_hidden_size(
        self, hx: Tensor, expected: tuple, msg: str = "Expected hidden size {}, got {}"
    ) -> None:
        if tuple(hx.shape) != expected:
            raise RuntimeError(msg.format(expected, list(hx.shape)))

    def check_forward_args(self, input: Tensor, hidden: Tensor, batch_sizes) -> None:
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return hx.index_select(1, permutation)

    # ---- the computation -----------------------------------------------------------------------
    def _prepare(self, input, hx, cell: bool):
        """Common front end: returns ``(data (N, I), batch_sizes or None, steps, batch,
        h0 or None, c0 or None, sorted, unsorted, packed, unbatched)``."""
        name = type(self).__name__
        lstm = self.mode == "LSTM"
        packed = isinstance(input, PackedSequence)
        unbatched = False
        sorted_i = unsorted_i = None
        if packed:
            input, batch_sizes, sorted_i, unsorted_i = input
            if hx is not None:
                hx = (
                    (
                        tuple(h.index_select(1, sorted_i) for h in hx)
                        if lstm
                        else hx.index_select(1, sorted_i)
                    )
                    if sorted_i is not None
                    else hx
                )
        else:
            batch_sizes = None
            if input.dim() not in (2, 3):
                tail = " tensor" if self.mode.startswith("RNN") else ""
                raise ValueError(
                    f"{name}: Expected input to be 2D or 3D, got {input.dim()}D{tail} instead"
                )
            unbatched = input.dim() == 2
            if unbatched:
                input = input.unsqueeze(0 if self.batch_first else 1)
            if hx is not None:
                want = 2 if unbatched else 3
                what = "unbatched 2-D" if unbatched else "batched 3-D"
                if lstm:
                    if hx[0].dim() != want or hx[1].dim() != want:
                        raise RuntimeError(
                            f"For {what} input, hx and cx should also be {want}-D but got "
                            f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors"
                        )
                    if unbatched:
                        hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
                else:
                    if hx.dim() != want:
                        raise RuntimeError(
                            f"For {what} input, hx should also be {want}-D but "
                            f"got {hx.dim()}-D tensor"
                        )
                    if unbatched:
                        hx = hx.unsqueeze(1)
        self.check_input(input, batch_sizes)
        if hx is not None:
            if lstm:
                self.check_hidden_size(
                    hx[0],
                    self.get_expected_hidden_size(input, batch_sizes),
                    "Expected hidden[0] size {}, got {}",
                )
                d = 2 if self.bidirectional else 1
                cell_size = (
                    self.num_layers * d,
                    _batch(self, input, batch_sizes),
                    self.hidden_size,
                )
                self.check_hidden_size(hx[1], cell_size, "Expected hidden[1] size {}, got {}")
            else:
                self.check_hidden_size(hx, self.get_expected_hidden_size(input, batch_sizes))
        return input, batch_sizes, hx, sorted_i, unsorted_i, packed, unbatched

    def _run(self, input, hx):
        lstm = self.mode == "LSTM"
        x, batch_sizes, hx, sorted_i, unsorted_i, packed, unbatched = self._prepare(
            input, hx, False
        )
        if packed:
            sizes = tuple(int(b) for b in batch_sizes.tolist())
            plans = (plan(sizes, False), plan(sizes, True))
            shape = None
        else:
            if self.batch_first:
                x = x.transpose(0, 1)
            steps, batch = x.shape[0], x.shape[1]
            if steps == 0:
                raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
            shape = (steps, batch)
            plans = (uniform_plan(steps, batch, False), uniform_plan(steps, batch, True))
            x = x.reshape(steps * batch, x.shape[2])
        h0, c0 = (hx if hx is not None else (None, None)) if lstm else (hx, None)
        y, hn, cn = _layers(self, x, plans, h0, c0)
        if packed:
            out = PackedSequence(y, batch_sizes, sorted_i, unsorted_i)
        else:
            out = y.reshape(shape + (y.shape[1],))
            if self.batch_first:
                out = out.transpose(0, 1)
            if unbatched:
                out = out.squeeze(0 if self.batch_first else 1)
                hn = hn.squeeze(1)
                cn = cn.squeeze(1) if lstm else None
        if unsorted_i is not None:
            hn = hn.index_select(1, unsorted_i)
            cn = cn.index_select(1, unsorted_i) if lstm else None
        return out, ((hn, cn) if lstm else hn)


def _batch(m, input, batch_sizes) -> int:
    if batch_sizes is not None:
        return int(batch_sizes[0])
    return input.shape[0] if m.batch_first else input.shape[1]


def _check_args(dropout, num_layers, bias, batch_first, input_size, hidden_size, proj_size):
    if (
        not isinstance(dropout, numbers.Number)
        or isinstance(dropout, bool)
        or not 0 <= dropout <= 1
    ):
        raise ValueError(
            "dropout should be a number in range [0, 1] representing the "
            "probability of an element being zeroed"
        )
    if dropout > 0 and num_layers == 1:
        warnings.warn(
            "dropout option adds dropout after all but last recurrent layer, so "
            "non-zero dropout expects num_layers greater than 1, but got "
            f"dropout={dropout} and num_layers={num_layers}",
            stacklevel=4,
        )
    for name, v in (("bias", bias), ("batch_first", batch_first)):
        if not isinstance(v, bool):
            raise TypeError(f"{name} should be of type bool, got: {type(v).__name__}")
    for name, v in (("input_size", input_size), ("hidden_size", hidden_size)):
        if not isinstance(v, int):
            raise TypeError(f"{name} should be of type int, got: {type(v).__name__}")
        if v <= 0:
            raise ValueError(f"{name} must be greater than zero")
    if num_layers <= 0:
        raise ValueError("num_layers must be greater than zero")
    if proj_size < 0:
        raise ValueError("proj_size should be a positive integer or zero to disable projections")
    if proj_size >= hidden_size:
        raise ValueError("proj_size has to be smaller than hidden_size")


def _layers(m: RNNBase, x: Tensor, plans, h0, c0):
    """All layers and directions over the packed rows ``x`` (N, I): ``(y, h_n, c_n)``."""
    mode = m.mode
    lstm = mode == "LSTM"
    gru = mode == "GRU"
    dirs = 2 if m.bidirectional else 1
    names = m._flat_weights_names
    per = len(names) // (m.num_layers * dirs)
    params = m._parameters
    bias = m.bias
    proj = m.proj_size > 0
    batch = plans[0].batch
    p_size = m.proj_size or m.hidden_size
    drop = m.dropout if m.training and m.dropout > 0 else 0.0
    hs, cs = [], []
    for layer in range(m.num_layers):
        outs = []
        for d in range(dirs):
            k = layer * dirs + d
            ws = [
                params[n] if n in params else getattr(m, n) for n in names[k * per : (k + 1) * per]
            ]
            w_ih, w_hh = ws[0], ws[1]
            b_hh = None
            if not bias:
                b = None
            elif gru:
                b, b_hh = ws[2], ws[3]
            else:
                b = ws[2] + ws[3]
            w_hr = ws[-1] if proj else None
            hk = h0[k] if h0 is not None else zeros(batch, p_size, dtype=x.dtype, device=x.device)
            ck = None
            if lstm:
                ck = (
                    c0[k]
                    if c0 is not None
                    else zeros(batch, m.hidden_size, dtype=x.dtype, device=x.device)
                )
            res = RecurrentLayer.apply(x, hk, ck, w_ih, w_hh, b, b_hh, w_hr, mode, plans[d])
            outs.append(res[0])
            hs.append(res[1])
            if lstm:
                cs.append(res[2])
        x = outs[0] if dirs == 1 else cat(outs, 1)
        if drop and layer < m.num_layers - 1:
            x = F.dropout(x, drop, True)
    return x, stack(hs), (stack(cs) if lstm else None)


class RNN(RNNBase):
    """Elman RNN: ``h_t = act(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)`` with ``act`` tanh
    or relu (``nonlinearity``), stacked ``num_layers`` deep, optionally bidirectional.

    Input ``(T, B, input_size)`` (``(B, T, ...)`` with ``batch_first``; ``(T, input_size)``
    unbatched; or a ``PackedSequence``); returns ``(output, h_n)``.

    Example:
        >>> rnn = ember.nn.RNN(10, 20, 2)
        >>> out, hn = rnn(ember.randn(5, 3, 10))
        >>> out.shape, hn.shape
        (ember.Size([5, 3, 20]), ember.Size([2, 3, 20]))
    """

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(
                f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'."
            )
        super().__init__(mode, *args, **kwargs)

    def forward(self, input, hx=None):
        return self._run(input, hx)


class LSTM(RNNBase):
    """Long short-term memory: gates ``i, f, g, o`` (stacked in that order in the weights),
    ``c_t = f c_{t-1} + i g``, ``h_t = o tanh(c_t)`` (times ``W_hr^T`` with ``proj_size``).

    Returns ``(output, (h_n, c_n))``; ``hx`` is ``(h_0, c_0)`` or None (zeros).

    Example:
        >>> lstm = ember.nn.LSTM(10, 20, num_layers=2, batch_first=True)
        >>> out, (hn, cn) = lstm(ember.randn(3, 5, 10))
        >>> out.shape, hn.shape, cn.shape
        (ember.Size([3, 5, 20]), ember.Size([2, 3, 20]), ember.Size([2, 3, 20]))
    """

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input: Tensor, batch_sizes) -> tuple:
        d = 2 if self.bidirectional else 1
        return (self.num_layers * d, _batch(self, input, batch_sizes), self.hidden_size)

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return hx[0].index_select(1, permutation), hx[1].index_select(1, permutation)

    def forward(self, input, hx=None):
        return self._run(input, hx)


class GRU(RNNBase):
    """Gated recurrent unit: gates ``r, z, n`` (in that order in the weights),
    ``n = tanh(W_in x + b_in + r (W_hn h + b_hn))``, ``h' = (1 - z) n + z h``.

    Example:
        >>> gru = ember.nn.GRU(10, 20, bidirectional=True)
        >>> out, hn = gru(ember.randn(5, 3, 10))
        >>> out.shape, hn.shape
        (ember.Size([5, 3, 40]), ember.Size([2, 3, 20]))
    """

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        return self._run(input, hx)


# ---- cells -------------------------------------------------------------------------------------
class RNNCellBase(Module):
    """What the cells share: ``weight_ih`` ``(chunks * hidden, input)``, ``weight_hh``
    ``(chunks * hidden, hidden)``, ``bias_ih`` and ``bias_hh`` (or None with ``bias=False``).

    Example:
        >>> ember.nn.RNNCellBase(4, 8, True, num_chunks=3).weight_ih.shape
        ember.Size([24, 4])
    """

    __constants__ = ["input_size", "hidden_size", "bias"]

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool,
        num_chunks: int,
        device=None,
        dtype=None,
    ) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(empty((num_chunks * hidden_size, input_size), **factory_kwargs))
        self.weight_hh = Parameter(empty((num_chunks * hidden_size, hidden_size), **factory_kwargs))
        if bias:
            self.bias_ih = Parameter(empty(num_chunks * hidden_size, **factory_kwargs))
            self.bias_hh = Parameter(empty(num_chunks * hidden_size, **factory_kwargs))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += f", bias={self.bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def reset_parameters(self) -> None:
        reset_recurrent(self)

    def _cell(self, mode: str, input: Tensor, hx, name: str):
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        lstm = mode == "LSTM"
        if hx is not None:
            if lstm:
                for idx, value in enumerate(hx):
                    if value.dim() not in (1, 2):
                        raise ValueError(
                            f"{name}: Expected hx[{idx}] to be 1D or 2D, got {value.dim()}D instead"
                        )
            elif hx.dim() not in (1, 2):
                raise ValueError(f"{name}: Expected hidden to be 1D or 2D, got {hx.dim()}D instead")
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        batch = input.shape[0]
        if hx is None:
            h0 = zeros(batch, self.hidden_size, dtype=input.dtype, device=input.device)
            c0 = h0 if lstm else None
        elif lstm:
            h0, c0 = (hx[0], hx[1]) if batched else (hx[0].unsqueeze(0), hx[1].unsqueeze(0))
        else:
            h0, c0 = (hx if batched else hx.unsqueeze(0)), None
        _check_cell(self, input, h0, c0, name)
        b_ih, b_hh = self.bias_ih, self.bias_hh
        if b_ih is None:
            b = gh_b = None
        elif mode == "GRU":
            b, gh_b = b_ih, b_hh
        else:
            b, gh_b = b_ih + b_hh, None
        res = RecurrentLayer.apply(
            input,
            h0,
            c0,
            self.weight_ih,
            self.weight_hh,
            b,
            gh_b,
            None,
            mode,
            uniform_plan(1, batch, False),
        )
        if lstm:
            h, c = res[0], res[2]
            return (h, c) if batched else (h.squeeze(0), c.squeeze(0))
        return res[0] if batched else res[0].squeeze(0)


def _check_cell(m, input, h0, c0, name):
    if input.shape[1] != m.input_size:
        raise RuntimeError(
            f"{name}: input has inconsistent input_size: got {input.shape[1]} "
            f"expected {m.input_size}"
        )
    for what, h in (("hidden", h0), ("cell", c0)):
        if h is None:
            continue
        if h.shape[0] != input.shape[0]:
            raise RuntimeError(
                f"{name}: Input batch size {input.shape[0]} doesn't match "
                f"{what} batch size {h.shape[0]}"
            )
        if h.shape[1] != m.hidden_size:
            raise RuntimeError(
                f"{name}: {what} has inconsistent hidden_size: got "
                f"{h.shape[1]}, expected {m.hidden_size}"
            )


class RNNCell(RNNCellBase):
    """One step of an Elman RNN: ``h' = act(x W_ih^T + b_ih + h W_hh^T + b_hh)``.

    Example:
        >>> cell = ember.nn.RNNCell(10, 20)
        >>> cell(ember.randn(3, 10)).shape
        ember.Size([3, 20])
    """

    __constants__ = ["input_size", "hidden_size", "bias", "nonlinearity"]

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        nonlinearity: str = "tanh",
        device=None,
        dtype=None,
    ) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        mode = "RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU"
        return self._cell(mode, input, hx, "RNNCell")


class LSTMCell(RNNCellBase):
    """One LSTM step: returns ``(h', c')``.

    Example:
        >>> cell = ember.nn.LSTMCell(10, 20)
        >>> h, c = cell(ember.randn(3, 10))
        >>> h.shape, c.shape
        (ember.Size([3, 20]), ember.Size([3, 20]))
    """

    def __init__(
        self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None
    ) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input: Tensor, hx=None):
        return self._cell("LSTM", input, hx, "LSTMCell")


class GRUCell(RNNCellBase):
    """One GRU step.

    Example:
        >>> cell = ember.nn.GRUCell(10, 20)
        >>> cell(ember.randn(3, 10)).shape
        ember.Size([3, 20])
    """

    def __init__(
        self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None
    ) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        return self._cell("GRU", input, hx, "GRUCell")
