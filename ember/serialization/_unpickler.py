"""Unpicklers for checkpoints: a restricted one that runs no code, and the full one.

``WeightsUnpickler`` interprets pickle opcodes itself (as PyTorch's weights-only unpickler
does) instead of handing the bytes to Python's unpickler: a GLOBAL outside the allow-list
(``_rebuild.allowed_globals``, plus what the user marked with ``add_safe_globals``: see
``_safe_globals``) is refused before anything is looked up, only allow-listed functions may be
called (REDUCE), only allow-listed classes instantiated (NEWOBJ), and state (BUILD) may only be
set on the containers and tensors those create and on instances of marked classes. Nothing in
a file can import a module or call into arbitrary code. It reads from an in-memory buffer and
checks every length against it, so a truncated or mutated pickle ends in ``UnpicklingError`` at
the offending byte.

``full_unpickler`` is Python's unpickler (``pickle_module.Unpickler``) with PyTorch's names
mapped to ember's: it loads whole pickled objects (modules, optimizers) and runs whatever code
the file names, so it is only for files one trusts.
"""

from __future__ import annotations

import importlib
import pickle
import struct
from collections import Counter, OrderedDict
from pickle import UnpicklingError

from ember.serialization import _rebuild, _safe_globals

_TABLE: dict[str, object] = {}
_CALLABLE: set[int] = set()

_UNSAFE_HINT = (
    "Re-running `ember.load` with `weights_only` set to `False` will likely succeed, but it can "
    "result in arbitrary code execution. Do it only if you got the file from a trusted source."
)
_DOCS = (
    "\n\nCheck the documentation of torch.load to learn more about types accepted by default "
    "with weights_only https://pytorch.org/docs/stable/generated/torch.load.html."
)


def _tables():
    if not _TABLE:
        _TABLE.update(_rebuild.allowed_globals())
        _CALLABLE.update(_rebuild.callable_globals(_TABLE))
    return _TABLE, _CALLABLE


def weights_only_error(detail: str) -> UnpicklingError:
    return UnpicklingError(f"Weights only load failed. {_UNSAFE_HINT}\n{detail}")


def unsafe_global_error(full: str) -> UnpicklingError:
    """PyTorch's error for a global outside the allow-lists, with its two ways out."""
    # NOTE: matches torch: the suggested code names builtins bare (``[print]``) so that it runs;
    # deliberate difference: the GLOBAL keeps the file's full name (``builtins.print``, as
    # get_unsafe_globals_in_checkpoint lists it), and no terminal bold escapes.
    code = full[len("builtins.") :] if full.startswith("builtins.") else full
    return UnpicklingError(
        "Weights only load failed. This file can still be loaded, to do so you have two "
        "options, do those steps only if you trust the source of the checkpoint. "
        f"\n\t(1) {_UNSAFE_HINT}\n\t(2) Alternatively, to load with `weights_only=True` please "
        "check the recommended steps in the following error message.\n\tWeightsUnpickler "
        f"error: Unsupported global: GLOBAL {full} was not an allowed global by default. Please "
        f"use `ember.serialization.add_safe_globals([{code}])` or the "
        f"`ember.serialization.safe_globals([{code}])` context manager to allowlist this global "
        f"if you trust this class/function.{_DOCS}"
    )


def _blocked_error(full: str, module: str) -> UnpicklingError:
    return UnpicklingError(
        f"Weights only load failed. {_UNSAFE_HINT}\n\n\nTrying to load unsupported GLOBAL "
        f"{full} whose module {module} is blocked.{_DOCS}"
    )


_BUILDABLE = (OrderedDict, Counter)
_NEWABLE = (OrderedDict, Counter, set, frozenset, complex)
_unpack_i = struct.Struct("<i").unpack_from
_unpack_I = struct.Struct("<I").unpack_from
_unpack_H = struct.Struct("<H").unpack_from
_unpack_Q = struct.Struct("<Q").unpack_from
_unpack_d = struct.Struct(">d").unpack_from


class WeightsUnpickler:
    """Loads one pickle from ``data`` (bytes-like) starting at ``pos``.

    ``persistent_load(pid)`` resolves storage ids. ``load()`` returns the object; ``pos``
    is then just past the pickle's STOP opcode.
    """

    def __init__(self, data, persistent_load, *, pos: int = 0, encoding: str = "utf-8"):
        self.data = data
        self.pos = pos
        self.persistent_load = persistent_load
        self.encoding = encoding

    def _fail(self, msg: str):
        raise UnpicklingError(f"{msg} (pickle byte {self.pos})")

    def _global(self, module: str, name: str):
        table, _ = _tables()
        module, name = _safe_globals.fix_name(module, name)
        full = f"{module}.{name}"
        # NOTE: matches torch: a blocked module stays refused even when marked safe.
        if module in _safe_globals.BLOCKED_MODULES:
            raise _blocked_error(full, module)
        obj = table.get(full)
        if obj is None:
            obj = _safe_globals.user_allowed().get(full)
            if obj is None:
                raise unsafe_global_error(full)
        return obj

    def load(self):  # noqa: C901  (one loop over opcodes: the interpreter)
        data = self.data
        n = len(data)
        pos = self.pos
        stack: list = []
        metastack: list = []
        memo: dict = {}
        append = stack.append
        _, callables = _tables()

        def take(k):
            nonlocal pos
            if k < 0 or pos + k > n:
                self.pos = pos
                self._fail(f"pickle data was truncated (wanted {k} bytes)")
            b = data[pos : pos + k]
            pos += k
            return b

        def line():
            nonlocal pos
            end = bytes(data[pos : pos + 65536]).find(b"\n")
            if end < 0:
                self.pos = pos
                self._fail("pickle data was truncated (a text opcode lacks its newline)")
            b = bytes(data[pos : pos + end])
            pos += end + 1
            return b

        def pop_mark():
            nonlocal stack, append
            items = stack
            stack = metastack.pop()
            append = stack.append
            return items

        try:
            while True:
                if pos >= n:
                    self.pos = pos
                    self._fail("pickle data was truncated (no STOP opcode)")
                op = data[pos]
                pos += 1
                if op == 0x71:  # BINPUT
                    memo[take(1)[0]] = stack[-1]
                elif op == 0x68:  # BINGET
                    append(memo[take(1)[0]])
                elif op == 0x28:  # MARK
                    metastack.append(stack)
                    stack = []
                    append = stack.append
                elif op == 0x58:  # BINUNICODE
                    (k,) = _unpack_I(take(4))
                    append(str(take(k), "utf-8", "surrogatepass"))
                elif op == 0x4B:  # BININT1
                    append(take(1)[0])
                elif op == 0x74:  # TUPLE
                    items = pop_mark()
                    append(tuple(items))
                elif op == 0x85:  # TUPLE1
                    stack[-1] = (stack[-1],)
                elif op == 0x86:  # TUPLE2
                    stack[-2:] = [(stack[-2], stack[-1])]
                elif op == 0x87:  # TUPLE3
                    stack[-3:] = [(stack[-3], stack[-2], stack[-1])]
                elif op == 0x52:  # REDUCE
                    args = stack.pop()
                    func = stack[-1]
                    user = id(func) not in callables
                    if user and id(func) not in _safe_globals.user_ids():
                        raise weights_only_error(
                            f"Trying to call reduce for unrecognized function {func!r:.200}: "
                            "only tensor rebuild functions, plain containers and globals "
                            "allowlisted via `add_safe_globals` may be called."
                        )
                    if type(args) is not tuple:
                        self.pos = pos
                        self._fail(f"REDUCE arguments must be a tuple, got {type(args).__name__}")
                    stack[-1] = _safe_globals.call_user(func, *args) if user else func(*args)
                elif op == 0x51:  # BINPERSID
                    pid = stack.pop()
                    if type(pid) is not tuple:
                        raise weights_only_error(
                            f"persistent_load id must be a tuple, got {type(pid).__name__}"
                        )
                    append(self.persistent_load(pid))
                elif op in (0x88, 0x89):  # NEWTRUE, NEWFALSE
                    append(op == 0x88)
                elif op == 0x29:  # EMPTY_TUPLE
                    append(())
                elif op == 0x7D:  # EMPTY_DICT
                    append({})
                elif op == 0x5D:  # EMPTY_LIST
                    append([])
                elif op == 0x4E:  # NONE
                    append(None)
                elif op == 0x63:  # GLOBAL
                    module = line().decode("utf-8")
                    name = line().decode("utf-8")
                    append(self._global(module, name))
                elif op == 0x93:  # STACK_GLOBAL
                    name = stack.pop()
                    module = stack.pop()
                    if type(name) is not str or type(module) is not str:
                        self.pos = pos
                        self._fail("STACK_GLOBAL requires str module and name")
                    append(self._global(module, name))
                elif op == 0x75:  # SETITEMS
                    items = pop_mark()
                    target = stack[-1]
                    if type(target) not in (dict, OrderedDict, Counter):
                        raise weights_only_error(
                            f"Can only SETITEMS for dict, collections.OrderedDict, "
                            f"collections.Counter, but got {type(target).__name__}"
                        )
                    if len(items) % 2:
                        self.pos = pos
                        self._fail("SETITEMS with an odd number of items")
                    for i in range(0, len(items), 2):
                        target[items[i]] = items[i + 1]
                elif op == 0x73:  # SETITEM
                    v = stack.pop()
                    k = stack.pop()
                    target = stack[-1]
                    if type(target) not in (dict, OrderedDict, Counter):
                        raise weights_only_error(
                            f"Can only SETITEM for dict, collections.OrderedDict, "
                            f"collections.Counter, but got {type(target).__name__}"
                        )
                    target[k] = v
                elif op == 0x65:  # APPENDS
                    items = pop_mark()
                    if type(stack[-1]) is not list:
                        raise weights_only_error(
                            f"Can only extend lists, but got {type(stack[-1]).__name__}"
                        )
                    stack[-1].extend(items)
                elif op == 0x61:  # APPEND
                    item = stack.pop()
                    if type(stack[-1]) is not list:
                        raise weights_only_error(
                            f"Can only append to lists, but got {type(stack[-1]).__name__}"
                        )
                    stack[-1].append(item)
                elif op == 0x47:  # BINFLOAT
                    append(_unpack_d(take(8))[0])
                elif op == 0x4A:  # BININT
                    append(_unpack_i(take(4))[0])
                elif op == 0x4D:  # BININT2
                    append(_unpack_H(take(2))[0])
                elif op == 0x8A:  # LONG1
                    k = take(1)[0]
                    append(int.from_bytes(take(k), "little", signed=True))
                elif op == 0x8B:  # LONG4
                    (k,) = _unpack_i(take(4))
                    append(int.from_bytes(take(k), "little", signed=True))
                elif op == 0x72:  # LONG_BINPUT
                    memo[_unpack_I(take(4))[0]] = stack[-1]
                elif op == 0x6A:  # LONG_BINGET
                    append(memo[_unpack_I(take(4))[0]])
                elif op == 0x94:  # MEMOIZE
                    memo[len(memo)] = stack[-1]
                elif op == 0x8C:  # SHORT_BINUNICODE
                    k = take(1)[0]
                    append(str(take(k), "utf-8", "surrogatepass"))
                elif op == 0x8D:  # BINUNICODE8
                    (k,) = _unpack_Q(take(8))
                    append(str(take(k), "utf-8", "surrogatepass"))
                elif op == 0x43:  # SHORT_BINBYTES
                    append(bytes(take(take(1)[0])))
                elif op == 0x42:  # BINBYTES
                    append(bytes(take(_unpack_I(take(4))[0])))
                elif op == 0x8E:  # BINBYTES8
                    append(bytes(take(_unpack_Q(take(8))[0])))
                elif op == 0x96:  # BYTEARRAY8
                    append(bytearray(take(_unpack_Q(take(8))[0])))
                elif op == 0x55:  # SHORT_BINSTRING (a Python 2 str)
                    append(self._py2_str(bytes(take(take(1)[0]))))
                elif op == 0x54:  # BINSTRING
                    (k,) = _unpack_i(take(4))
                    append(self._py2_str(bytes(take(k))))
                elif op == 0x8F:  # EMPTY_SET
                    append(set())
                elif op == 0x90:  # ADDITEMS
                    items = pop_mark()
                    if type(stack[-1]) is not set:
                        raise weights_only_error(
                            f"Can only add items to sets, but got {type(stack[-1]).__name__}"
                        )
                    stack[-1].update(items)
                elif op == 0x91:  # FROZENSET
                    append(frozenset(pop_mark()))
                elif op == 0x6C:  # LIST
                    append(list(pop_mark()))
                elif op == 0x64:  # DICT
                    items = pop_mark()
                    if len(items) % 2:
                        self.pos = pos
                        self._fail("DICT with an odd number of items")
                    append({items[i]: items[i + 1] for i in range(0, len(items), 2)})
                elif op == 0x81 or op == 0x92:  # NEWOBJ, NEWOBJ_EX
                    kwargs = stack.pop() if op == 0x92 else {}
                    args = stack.pop()
                    cls = stack.pop()
                    if type(args) is not tuple or type(kwargs) is not dict:
                        self.pos = pos
                        self._fail("NEWOBJ arguments must be a tuple (and a dict)")
                    append(self._new(cls, args, kwargs))
                elif op == 0x62:  # BUILD
                    state = stack.pop()
                    self._build(stack[-1], state)
                elif op == 0x30:  # POP
                    if stack:
                        stack.pop()
                    else:
                        pop_mark()
                elif op == 0x31:  # POP_MARK
                    pop_mark()
                elif op == 0x32:  # DUP
                    append(stack[-1])
                elif op == 0x80:  # PROTO
                    proto = take(1)[0]
                    if proto > pickle.HIGHEST_PROTOCOL:
                        self.pos = pos
                        self._fail(f"unsupported pickle protocol: {proto}")
                elif op == 0x95:  # FRAME: a length prefix only; the data is already here
                    take(8)
                elif op == 0x2E:  # STOP
                    self.pos = pos
                    if not stack or metastack:
                        self._fail("STOP with an empty stack or an open MARK")
                    return stack.pop()
                # Protocol 0 and 1 text forms.
                elif op == 0x49:  # INT
                    s = line()
                    append(True if s == b"01" else False if s == b"00" else int(s))
                elif op == 0x4C:  # LONG
                    append(int(line().rstrip(b"L")))
                elif op == 0x46:  # FLOAT
                    append(float(line()))
                elif op == 0x53:  # STRING
                    s = line().rstrip()
                    if len(s) < 2 or s[0] != s[-1] or s[:1] not in (b'"', b"'"):
                        self.pos = pos
                        self._fail("the STRING opcode argument must be quoted")
                    append(self._py2_str(_escape_decode(s[1:-1])))
                elif op == 0x56:  # UNICODE
                    append(str(line(), "raw-unicode-escape"))
                elif op == 0x70:  # PUT
                    memo[int(line())] = stack[-1]
                elif op == 0x67:  # GET
                    append(memo[int(line())])
                else:
                    self.pos = pos - 1
                    name = _OPCODE_NAMES.get(op, f"0x{op:02x}")
                    if op in (0x69, 0x6F, 0x82, 0x83, 0x84, 0x50, 0x97, 0x98):
                        raise weights_only_error(
                            f"Unsupported operand {name}: it can import or call code, or needs "
                            "state a checkpoint does not have."
                        )
                    self._fail(f"invalid pickle opcode {name}")
        except (UnpicklingError, RuntimeError, _safe_globals.BadEntry, _safe_globals.UserCodeError):
            raise
        except (IndexError, KeyError) as e:
            self.pos = pos
            raise UnpicklingError(
                f"corrupt pickle near byte {pos}: {type(e).__name__} {e} (a stack or memo "
                "reference to nothing)"
            ) from None
        except Exception as e:  # noqa: BLE001  (any failure inside a corrupt pickle is one)
            self.pos = pos
            raise UnpicklingError(
                f"corrupt pickle near byte {pos}: {type(e).__name__}: {str(e)[:300]}"
            ) from None

    def _py2_str(self, b: bytes):
        return b if self.encoding == "bytes" else b.decode(self.encoding)

    def _new(self, cls, args, kwargs):
        from ember.nn.parameter import Parameter

        if cls is Parameter:
            return _rebuild._parameter(*args, **kwargs)
        if cls in _NEWABLE:
            return cls.__new__(cls, *args, **kwargs)
        if id(cls) in _safe_globals.user_ids():
            # NOTE: matches torch (and pickle's NEWOBJ): ``__new__`` only, no ``__init__``.
            return _safe_globals.call_user(cls.__new__, cls, *args, **kwargs)
        raise weights_only_error(
            "Can only create new object for nn.Parameter, OrderedDict, Counter, set, frozenset, "
            f"complex or classes allowlisted via `add_safe_globals` but got {cls!r:.200}"
        )

    def _build(self, inst, state):
        from ember.nn.parameter import Parameter

        if type(inst) in _BUILDABLE:
            # Attributes only (a state dict's ``_metadata``): never shadow a method.
            if not isinstance(state, dict) or not all(
                type(k) is str and not hasattr(type(inst), k) for k in state
            ):
                raise UnpicklingError(
                    f"BUILD state for an {type(inst).__name__} must be a dict of new attribute "
                    f"names, got {state!r:.100}"
                )
            inst.__dict__.update(state)
        elif type(inst) is Parameter:
            _rebuild.set_obj_state(inst, state)
        elif id(type(inst)) in _safe_globals.user_ids():
            _safe_globals.call_user(_set_state, inst, state)
        else:
            raise weights_only_error(
                "Can only build Parameter, OrderedDict, Counter or types allowlisted via "
                f"`add_safe_globals`, but got {type(inst).__name__}"
            )


def _set_state(inst, state) -> None:
    """BUILD on an instance of a class the user marked safe: as pickle's (and PyTorch's)."""
    setstate = getattr(inst, "__setstate__", None)
    if setstate is not None:
        setstate(state)
        return
    slotstate = None
    if isinstance(state, tuple) and len(state) == 2:
        state, slotstate = state
    if state:
        inst.__dict__.update(state)
    if slotstate:
        for k, v in slotstate.items():
            setattr(inst, k, v)


_OPCODE_NAMES = {
    ord(v): k
    for k, v in vars(pickle).items()
    if isinstance(v, bytes) and len(v) == 1 and k.isupper()
}


def _escape_decode(b: bytes) -> bytes:
    import codecs

    return codecs.escape_decode(b)[0]


# ---- the full unpickler ----------------------------------------------------------------------


def _map_torch_name(module: str, name: str):
    """The ember object for a ``torch.*`` global in a fully trusted pickle, or None."""
    table, _ = _tables()
    obj = table.get(f"{module}.{name}")
    if obj is not None:
        return obj
    if "Storage" in name and module in ("torch", "torch.cuda", "torch.storage"):
        return _rebuild.STORAGE_TYPES.get(name)
    # A pickled torch module object: try ember's module of the same path (torch.nn.modules.
    # linear.Linear -> ember.nn.modules.linear.Linear).
    target = "ember" + module[len("torch") :]
    try:
        mod = importlib.import_module(target)
    except ImportError:
        return None
    obj = mod
    for part in name.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def full_unpickler(pickle_module, file, persistent_load, **load_args):
    """``pickle_module.Unpickler`` over ``file`` with torch's names mapped to ember's."""

    class CheckpointUnpickler(pickle_module.Unpickler):
        def find_class(self, module, name):
            if module == "torch" or module.startswith("torch."):
                obj = _map_torch_name(module, name)
                if obj is None:
                    raise UnpicklingError(
                        f"the checkpoint refers to {module}.{name}, which has no ember counterpart"
                    )
                return obj
            return super().find_class(module, name)

    unpickler = CheckpointUnpickler(file, **load_args)
    unpickler.persistent_load = persistent_load
    return unpickler
