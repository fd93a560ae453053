"""Every example runs as it stands (the NumPy ones on the CPU backend; the PyTorch ones say
what they need where PyTorch or a GPU is missing, and run where both are)."""

import importlib.util
import pathlib
import subprocess
import sys

import pytest

EXAMPLES = sorted((pathlib.Path(__file__).parent.parent / "examples").glob("0*.py"))


def test_there_are_examples():
    assert len(EXAMPLES) >= 4


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_runs(path):
    r = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    if "needs PyTorch" in r.stdout:
        # only where PyTorch or its GPU is really missing
        if importlib.util.find_spec("torch") is not None:
            import torch

            assert not torch.cuda.is_available(), r.stdout
        return
    assert "problem" in r.stdout, r.stdout
