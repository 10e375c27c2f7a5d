"""``ember.hub``: torch.hub's loading of models from a repository's ``hubconf.py`` and of
checkpoints from URLs.

``source='local'`` (a directory with a ``hubconf.py``) works fully offline. ``source='github'``
uses the cached copy under ``get_dir()`` when there is one, else downloads the repository's
zip archive; without network that raises ``urllib.error.URLError``, as torch does. The
``trust_repo`` prompt is not shown (the argument is accepted): only load code you trust.
Checkpoints from ``load_state_dict_from_url`` are cached under ``get_dir()/checkpoints`` and
read with ``ember.load``.

Example:
    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> with open(os.path.join(d, "hubconf.py"), "w") as f:
    ...     _ = f.write("def double(x):\\n    '''Twice x.'''\\n    return 2 * x\\n")
    >>> ember.hub.load(d, "double", 21, source="local")
    42
"""

from __future__ import annotations

import importlib.util
import os
import re
import sys
from urllib.error import HTTPError, URLError  # noqa: F401  (torch.hub re-exports them)

__all__ = [
    "download_url_to_file",
    "get_dir",
    "help",
    "list",
    "load",
    "load_state_dict_from_url",
    "set_dir",
]

MODULE_HUBCONF = "hubconf.py"
VAR_DEPENDENCY = "dependencies"
ENV_GITHUB_TOKEN = "GITHUB_TOKEN"
ENV_TORCH_HOME = "TORCH_HOME"
ENV_XDG_CACHE_HOME = "XDG_CACHE_HOME"
DEFAULT_CACHE_DIR = "~/.cache"
READ_DATA_CHUNK = 128 * 1024
HASH_REGEX = re.compile(r"-([a-f0-9]*)\.")

_hub_dir: str | None = None
_builtin_list = list


def get_dir() -> str:
    """The hub cache directory: ``set_dir``'s, else ``$TORCH_HOME/hub``, else
    ``$XDG_CACHE_HOME/torch/hub`` (``~/.cache/torch/hub``).

    Example:
        >>> ember.hub.get_dir().endswith("hub")
        True
    """
    if _hub_dir is not None:
        return _hub_dir
    torch_home = os.path.expanduser(
        os.getenv(
            ENV_TORCH_HOME,
            os.path.join(os.getenv(ENV_XDG_CACHE_HOME, DEFAULT_CACHE_DIR), "torch"),
        )
    )
    return os.path.join(torch_home, "hub")


def set_dir(d) -> None:
    """Use ``d`` as the hub cache directory."""
    global _hub_dir
    _hub_dir = os.path.expanduser(os.fspath(d))


# ---- repositories --------------------------------------------------------------------------------
def _load_hubconf(repo_dir: str):
    path = os.path.join(repo_dir, MODULE_HUBCONF)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"hubconf.py not found in {repo_dir!r}")
    import uuid

    sys.path.insert(0, repo_dir)
    try:
        spec = importlib.util.spec_from_file_location(f"hubconf_{uuid.uuid4().hex}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(repo_dir)
    missing = [
        pkg for pkg in getattr(module, VAR_DEPENDENCY, []) if importlib.util.find_spec(pkg) is None
    ]
    if missing:
        raise RuntimeError(f"Missing dependencies: {', '.join(missing)}")
    return module


def _parse_repo_info(github: str):
    if ":" in github:
        repo_info, ref = github.split(":", 1)
    else:
        repo_info, ref = github, None
    if repo_info.count("/") != 1:
        raise ValueError(f"Invalid github repo {github!r}: expected 'repo_owner/repo_name[:ref]'")
    owner, name = repo_info.split("/")
    return owner, name, ref or "main"


def _github_dir(github: str, force_reload: bool, verbose: bool) -> str:
    import shutil
    import zipfile

    owner, name, ref = _parse_repo_info(github)
    hub_dir = get_dir()
    os.makedirs(hub_dir, exist_ok=True)
    repo_dir = os.path.join(hub_dir, "_".join([owner, name, ref.replace("/", "_")]))
    if os.path.isdir(repo_dir) and not force_reload:
        if verbose:
            sys.stderr.write(f"Using cache found in {repo_dir}\n")
        return repo_dir
    url = f"https://github.com/{owner}/{name}/zipball/{ref}"
    cached = os.path.join(hub_dir, ref.replace("/", "_") + ".zip")
    if verbose:
        sys.stderr.write(f'Downloading: "{url}" to {cached}\n')
    download_url_to_file(url, cached, progress=False)
    with zipfile.ZipFile(cached) as z:
        top = z.infolist()[0].filename.split("/")[0]
        z.extractall(hub_dir)
    os.remove(cached)
    shutil.rmtree(repo_dir, ignore_errors=True)
    shutil.move(os.path.join(hub_dir, top), repo_dir)
    return repo_dir


def _repo_dir(repo_or_dir: str, source: str, force_reload: bool, verbose: bool) -> str:
    source = source.lower()
    if source not in ("github", "local"):
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "local".')
    if source == "local":
        return repo_or_dir
    return _github_dir(repo_or_dir, force_reload, verbose)


def _entry(module, model: str):
    if not isinstance(model, str):
        raise ValueError("Invalid input: model should be a string of function name")
    fn = getattr(module, model, None)
    if fn is None or not callable(fn):
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return fn


def list(  # noqa: A001  (torch's name)
    github,
    force_reload=False,
    skip_validation=False,
    trust_repo="check",
    verbose=True,
):
    """The entrypoints (public callables) of a GitHub repository's ``hubconf.py``."""
    module = _load_hubconf(_repo_dir(github, "github", force_reload, verbose))
    return [f for f in dir(module) if callable(getattr(module, f)) and not f.startswith("_")]


def help(  # noqa: A001  (torch's name)
    github, model, force_reload=False, skip_validation=False, trust_repo="check"
):
    """The docstring of entrypoint ``model`` of a GitHub repository's ``hubconf.py``."""
    module = _load_hubconf(_repo_dir(github, "github", force_reload, True))
    return _entry(module, model).__doc__


def load(
    repo_or_dir,
    model,
    *args,
    source="github",
    trust_repo="check",
    force_reload=False,
    verbose=True,
    skip_validation=False,
    **kwargs,
):
    """Call entrypoint ``model(*args, **kwargs)`` of the ``hubconf.py`` in ``repo_or_dir`` (a
    directory with ``source='local'``, or ``'owner/repo[:ref]'`` on GitHub)."""
    module = _load_hubconf(_repo_dir(repo_or_dir, source, force_reload, verbose))
    return _entry(module, model)(*args, **kwargs)


# ---- files and checkpoints -----------------------------------------------------------------------
def download_url_to_file(url: str, dst: str, hash_prefix: str | None = None, progress=True):
    """Download ``url`` to ``dst`` (through a temporary file in the same directory), checking
    that the SHA-256 digest starts with ``hash_prefix`` when given. Without network this raises
    ``urllib.error.URLError``; ``file://`` URLs work offline."""
    import hashlib
    import shutil
    import tempfile
    from urllib.request import Request, urlopen

    req = Request(url, headers={"User-Agent": "ember.hub"})
    u = urlopen(req)
    dst = os.path.expanduser(dst)
    tmp = tempfile.NamedTemporaryFile(
        delete=False, dir=os.path.dirname(os.path.abspath(dst)), suffix=".partial"
    )
    try:
        sha = hashlib.sha256() if hash_prefix is not None else None
        with u:
            while True:
                buf = u.read(READ_DATA_CHUNK)
                if not buf:
                    break
                tmp.write(buf)
                if sha is not None:
                    sha.update(buf)
        tmp.close()
        if sha is not None:
            digest = sha.hexdigest()
            if digest[: len(hash_prefix)] != hash_prefix:
                raise RuntimeError(f'invalid hash value (expected "{hash_prefix}", got "{digest}")')
        shutil.move(tmp.name, dst)
    finally:
        tmp.close()
        if os.path.exists(tmp.name):
            os.remove(tmp.name)


def load_state_dict_from_url(
    url: str,
    model_dir: str | None = None,
    map_location=None,
    progress: bool = True,
    check_hash: bool = False,
    file_name: str | None = None,
    weights_only: bool = False,
):
    """Download the checkpoint at ``url`` into ``model_dir`` (default
    ``get_dir()/checkpoints``) unless it is already there, and ``ember.load`` it. With
    ``check_hash``, the file name's ``-<sha256 prefix>.`` part is verified."""
    from urllib.parse import urlparse

    from ember.serialization import load as _load

    if model_dir is None:
        model_dir = os.path.join(get_dir(), "checkpoints")
    os.makedirs(model_dir, exist_ok=True)
    filename = file_name or os.path.basename(urlparse(url).path)
    cached = os.path.join(model_dir, filename)
    if not os.path.exists(cached):
        if progress:
            sys.stderr.write(f'Downloading: "{url}" to {cached}\n')
        match = HASH_REGEX.search(filename) if check_hash else None
        download_url_to_file(url, cached, match.group(1) if match else None, progress=progress)
    return _load(cached, map_location=map_location, weights_only=weights_only)
