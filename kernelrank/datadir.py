"""Where kernelrank finds its data sets.

Resolution order (first that is given wins):

1. the ``--data-dir`` option / ``data_dir`` argument;
2. the ``KERNELRANK_DATA`` environment variable;
3. the per-user cache directory (``platformdirs.user_cache_dir("kernelrank")``), which is
   where ``python -m corpora fetch`` downloads missing data sets.

The layout below the data directory is the one of the project's shared data folder:
``ppi/``, ``letor/OHSUMED/``, ``scop153/``, ``craft/conllu/``.
"""

import os
from pathlib import Path

import platformdirs

from kernelrank.errors import DataNotFoundError

ENV_VAR = "KERNELRANK_DATA"


def resolve_data_dir(data_dir=None):
    """Return the data directory as a :class:`pathlib.Path` (it may not exist yet)."""
    if data_dir is not None:
        return Path(data_dir).expanduser()
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_cache_dir("kernelrank")) / "data"


def require_file(data_dir, relative_path, dataset):
    """Path to ``relative_path`` below the data directory, or a clear error if absent.

    Parameters
    ----------
    data_dir : path-like or None
        As for :func:`resolve_data_dir`.
    relative_path : str
        For example ``"ppi/AIMed-learning-format.xml.gz"``.
    dataset : str
        The data set name understood by ``python -m corpora fetch``.
    """
    root = resolve_data_dir(data_dir)
    path = root / relative_path
    if not path.exists():
        raise DataNotFoundError(
            f"{path} does not exist. Download it with `python -m corpora fetch {dataset} "
            f"--data-dir {root}`, or point --data-dir / ${ENV_VAR} at a folder that has "
            f"{relative_path}.")
    return path
