"""kernelrank.corpora — readers, writers, checksums and download for every data set we use."""

from corpora.datadir import resolve_data_dir

__all__ = ["resolve_data_dir"]
