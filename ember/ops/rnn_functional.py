"""torch's functional recurrent ops ``torch.lstm``, ``torch.gru``, ``torch.rnn_tanh`` and
``torch.rnn_relu``: a whole stacked, optionally bidirectional recurrent network over a padded
``(T, B, I)`` sequence or packed rows, its weights given as one flat list (per layer, per
direction: ``w_ih, w_hh[, b_ih, b_hh][, w_hr]``), as ``nn.LSTM``/``nn.GRU``/``nn.RNN`` call
them. Each layer and direction is one ``RecurrentLayer`` (ember/ops/rnn.py), the primitive the
layers use, so values and gradients are the layers'.

Two overloads each, told apart by their arguments, as torch's are:
``lstm(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first)``
and ``lstm(data, batch_sizes, hx, params, has_biases, num_layers, dropout, train,
bidirectional)``; ``gru``/``rnn_*`` have the same two with ``hx`` one tensor.
"""

from __future__ import annotations

from ember.ops.joining import cat, stack
from ember.ops.rnn import RecurrentLayer, plan, uniform_plan
from ember.tensor import Tensor


def _layers(mode, x, plans, h0, c0, params, has_biases, num_layers, dropout, train, dirs):
    gru = mode == "GRU"
    lstm = mode == "LSTM"
    per = len(params) // (num_layers * dirs) if num_layers * dirs else 0
    full = (4 if has_biases else 2) + (1 if lstm else 0)
    if per * num_layers * dirs != len(params) or per not in (full - (1 if lstm else 0), full):
        raise RuntimeError("got an incorrect number of RNN parameters")
    proj = lstm and per == full
    hs, cs = [], []
    for layer in range(num_layers):
        outs = []
        for d in range(dirs):
            k = layer * dirs + d
            ws = params[k * per : (k + 1) * per]
            w_ih, w_hh = ws[0], ws[1]
            b = b_hh = None
            if has_biases:
                if gru:
                    b, b_hh = ws[2], ws[3]
                else:
                    b = ws[2] + ws[3]
            w_hr = ws[-1] if proj else None
            res = RecurrentLayer.apply(
                x, h0[k], c0[k] if lstm else None, w_ih, w_hh, b, b_hh, w_hr, mode, plans[d]
            )
            outs.append(res[0])
            hs.append(res[1])
            if lstm:
                cs.append(res[2])
        x = outs[0] if dirs == 1 else cat(outs, 1)
        if dropout and train and layer < num_layers - 1:
            from ember.nn.functional import dropout as _dropout

            x = _dropout(x, dropout, True)
    return x, stack(hs), (stack(cs) if lstm else None)


def _run(mode, args, kwargs):
    names_padded = (
        "input",
        "hx",
        "params",
        "has_biases",
        "num_layers",
        "dropout",
        "train",
        "bidirectional",
        "batch_first",
    )
    names_packed = (
        "data",
        "batch_sizes",
        "hx",
        "params",
        "has_biases",
        "num_layers",
        "dropout",
        "train",
        "bidirectional",
    )
    lstm = mode == "LSTM"
    second = args[1] if len(args) > 1 else kwargs.get("batch_sizes", kwargs.get("hx"))
    third = args[2] if len(args) > 2 else kwargs.get("params", kwargs.get("hx"))
    # the packed overload has batch_sizes second (a Tensor; for the LSTM hx is a list) and hx
    # third (for gru/rnn a Tensor, where the padded overload has the params list)
    packed = "batch_sizes" in kwargs or (
        isinstance(second, Tensor) if lstm else isinstance(third, Tensor)
    )
    names = names_packed if packed else names_padded
    if len(args) > len(names):
        raise TypeError(f"{mode.lower()}() takes {len(names)} arguments ({len(args)} given)")
    a = dict(zip(names, args, strict=False))
    for key, v in kwargs.items():
        if key not in names or key in a:
            raise TypeError(f"{mode.lower()}() got an unexpected keyword argument '{key}'")
        a[key] = v
    missing = [n for n in names if n not in a]
    if missing:
        raise TypeError(f"{mode.lower()}() missing required argument '{missing[0]}'")
    hx = a["hx"]
    if lstm:
        if len(hx) != 2:
            raise RuntimeError("lstm expects two hidden states")
        h0, c0 = hx
    else:
        h0, c0 = hx, None
    dirs = 2 if a["bidirectional"] else 1
    if packed:
        x = a["data"]
        sizes = tuple(int(s) for s in a["batch_sizes"].tolist())
        plans = (plan(sizes, False), plan(sizes, True))
    else:
        x = a["input"]
        if x.dim() != 3:
            raise RuntimeError(
                f"Dimension out of range (expected to be in range of [-{x.dim()}, "
                f"{x.dim() - 1}], but got {x.dim()})"
            )
        if a["batch_first"]:
            x = x.transpose(0, 1)
        steps, batch = x.shape[0], x.shape[1]
        plans = (uniform_plan(steps, batch, False), uniform_plan(steps, batch, True))
        x = x.reshape(steps * batch, x.shape[2])
    y, hn, cn = _layers(
        mode,
        x,
        plans,
        h0,
        c0,
        list(a["params"]),
        bool(a["has_biases"]),
        int(a["num_layers"]),
        float(a["dropout"]),
        bool(a["train"]),
        dirs,
    )
    if not packed:
        y = y.reshape(steps, batch, y.shape[1])
        if a["batch_first"]:
            y = y.transpose(0, 1)
    return (y, hn, cn) if lstm else (y, hn)


def lstm(*args, **kwargs) -> tuple[Tensor, Tensor, Tensor]:
    """A stacked LSTM over a whole sequence with a flat weight list: ``(output, h_n, c_n)``
    (the op behind ``nn.LSTM``; ``hx`` is ``(h_0, c_0)``).

    Example:
        >>> m = ember.nn.LSTM(3, 4)
        >>> x, h = ember.randn(5, 2, 3), ember.zeros(1, 2, 4)
        >>> out, hn, cn = ember.lstm(x, (h, h), m._flat_weights, True, 1, 0.0, False, False, False)
        >>> out.shape
        ember.Size([5, 2, 4])
    """
    return _run("LSTM", args, kwargs)


def gru(*args, **kwargs) -> tuple[Tensor, Tensor]:
    """A stacked GRU over a whole sequence with a flat weight list: ``(output, h_n)`` (the op
    behind ``nn.GRU``).

    Example:
        >>> m = ember.nn.GRU(3, 4)
        >>> x, h = ember.randn(5, 2, 3), ember.zeros(1, 2, 4)
        >>> out, hn = ember.gru(x, h, m._flat_weights, True, 1, 0.0, False, False, False)
        >>> hn.shape
        ember.Size([1, 2, 4])
    """
    return _run("GRU", args, kwargs)


def rnn_tanh(*args, **kwargs) -> tuple[Tensor, Tensor]:
    """A stacked Elman RNN with tanh over a whole sequence with a flat weight list:
    ``(output, h_n)`` (the op behind ``nn.RNN``).

    Example:
        >>> m = ember.nn.RNN(3, 4)
        >>> x, h = ember.randn(5, 2, 3), ember.zeros(1, 2, 4)
        >>> out, hn = ember.rnn_tanh(x, h, m._flat_weights, True, 1, 0.0, False, False, False)
        >>> out.shape
        ember.Size([5, 2, 4])
    """
    return _run("RNN_TANH", args, kwargs)


def rnn_relu(*args, **kwargs) -> tuple[Tensor, Tensor]:
    """A stacked Elman RNN with relu over a whole sequence with a flat weight list:
    ``(output, h_n)`` (the op behind ``nn.RNN(nonlinearity='relu')``).

    Example:
        >>> m = ember.nn.RNN(3, 4, nonlinearity="relu")
        >>> x, h = ember.randn(5, 2, 3), ember.zeros(1, 2, 4)
        >>> out, hn = ember.rnn_relu(x, h, m._flat_weights, True, 1, 0.0, False, False, False)
        >>> out.shape
        ember.Size([5, 2, 4])
    """
    return _run("RNN_RELU", args, kwargs)


__all__ = ["lstm", "gru", "rnn_tanh", "rnn_relu"]
