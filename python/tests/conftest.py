import os

import pytest
import torch


def cuda_available() -> bool:
    return torch.cuda.is_available() and torch.cuda.device_count() > 0


def pytest_collection_modifyitems(config, items):
    if cuda_available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA device: torch.cuda.is_available() is False "
                                   "on this machine (run scripts/gpu-python.sh on a GPU host)")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory, monkeypatch):
    """Tests never write the user's tuning database or cubin store."""
    root = tmp_path_factory.getbasetemp()
    monkeypatch.setenv("W8A8_CACHE_DB", os.environ.get("W8A8_TEST_CACHE_DB",
                                                       str(root / "tuning.db")))
    monkeypatch.setenv("W8A8_KERNEL_DIR", os.environ.get("W8A8_TEST_KERNEL_DIR",
                                                         str(root / "kernels")))
