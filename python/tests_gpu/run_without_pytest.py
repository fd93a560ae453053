"""Runs test_torch_gpu.py's tests where pytest is not installed (a bare GPU machine): a stub
`pytest` expands the parametrize marks; prints one line per case and a summary."""

import importlib
import itertools
import pathlib
import sys
import traceback
import types

stub = types.ModuleType("pytest")


def _skip(msg, allow_module_level=False):
    print("skipped:", msg)
    sys.exit(0)


def _importorskip(name):
    try:
        return importlib.import_module(name)
    except ImportError as e:
        _skip(f"{name} is not installed ({e})")


stub.importorskip = _importorskip


def _parametrize(name, values):
    def mark(f):
        f.__dict__.setdefault("_params", []).insert(0, (name, list(values)))
        return f

    return mark


class _Raises:
    def __init__(self, exc, match=None):
        self.exc, self.match = exc, match

    def __enter__(self):
        return self

    def __exit__(self, kind, value, tb):
        import re

        if kind is None:
            raise AssertionError(f"{self.exc.__name__} not raised")
        if not issubclass(kind, self.exc):
            return False
        if self.match and not re.search(self.match, str(value)):
            raise AssertionError(f"{value!r} does not match {self.match!r}")
        return True


stub.raises = _Raises
stub.skip = _skip
stub.mark = types.SimpleNamespace(parametrize=_parametrize)
sys.modules["pytest"] = stub
sys.path.insert(0, str(pathlib.Path(__file__).parent))
mod = importlib.import_module("test_torch_gpu")
passed = failed = 0
for name in dir(mod):
    f = getattr(mod, name)
    if not name.startswith("test_") or not callable(f):
        continue
    params = getattr(f, "_params", [])
    names = [n for n, _ in params]
    for combo in itertools.product(*[v for _, v in params]) if params else [()]:
        label = f"{name}[{', '.join(map(str, combo))}]"
        try:
            f(**dict(zip(names, combo)))
            passed += 1
        except Exception as e:  # noqa: BLE001
            failed += 1
            print("FAILED", label, repr(e)[:300])
            traceback.print_exc(limit=3)
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
